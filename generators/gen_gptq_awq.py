"""GPTQ (v1, v2) and AWQ GEMM fixtures, written by the upstream libraries' own packing code.

Venv: requirements-gptqawq.txt (torch from the ct venv; auto-gptq, autoawq and gptqmodel installed with
--no-deps, see pcgen/upstream_qlinear.py for how their packers are imported on a CPU-only machine).

Writers (real code, called unchanged):
  * AutoGPTQ 0.7.1   auto_gptq.nn_modules.qlinear.qlinear_cuda.QuantLinear.pack  -> GPTQ v1 (zeros - 1, OR-packed)
  * GPTQModel 7.7.0  gptqmodel.nn_modules.qlinear.torch.TorchLinear.pack_original -> GPTQ v2, and
                     gptqmodel.utils.model.convert_gptq_v2_to_v1_format_module    -> its v1 (word subtract)
  * AutoAWQ 0.2.9    awq.modules.linear.gemm.WQLinear_GEMM.from_linear            -> AWQ GEMM
  * GPTQModel 7.7.0  its AWQ GEMM export on CPU: looper.awq_processor.AWQProcessor.pseudo_quantize_tensor
                     (its quantizer; AWQ's default sym=True gives zeros 2^(bits-1)) -> nn_modules.qlinear.
                     torch_awq.AwqTorchLinear.pack (the GEMM packer GPTQModel selects without CUDA) -> AWQ GEMM
                     with config zero_point false (AWQConfig.to_dict). The activation-aware scale search
                     before it needs a model and calibration data and changes only the weights quantized.
Configs: GPTQModel QuantizeConfig.to_dict(), AutoAWQ AwqConfig.to_dict()/to_transformers_dict(); AutoGPTQ's
BaseQuantizeConfig cannot be imported with transformers 5, so its quantize_config.json is written with the
keys and order of its to_dict (FORMATS.md 5.6).

Pins (CONTRACT 3, f32): GPTQ from GPTQModel's own dequantizer (utils/model_dequant.py convert_gptq_file on
the written file; codes from its unpack_rows), AWQ from AutoAWQ's own unpack_awq + reverse_awq_order in
numpy float32. Never from packcheck's C code.

The weights given to the packers are exact: W = (q - z) * s with scales of at most 3 significant bits, so
every packer recovers the chosen codes q exactly and the probes (patterned, random, all-max) are what the
files hold.
"""
import enum
import json
import math
import os
import tempfile

import numpy as np
import torch
from safetensors.torch import save as st_save

from pcgen import upstream_qlinear as up
from pcgen.corpus import module_pin

PREFIX = "model.layers.0.self_attn.q_proj"
PREFIX2 = "model.layers.0.self_attn.o_proj"
ST_META = {"format": "pt"}


# ---- logical problems -------------------------------------------------------------------------

def first_difference_rule(a_mods, b_mods):
    """The rule `packcheck equiv` must name first (CONTRACT 7: modules/shapes, then codes, then weights),
    decided from the pins the upstream libraries produced."""
    if a_mods.keys() != b_mods.keys() or any(a_mods[m]["shape"] != b_mods[m]["shape"] for m in a_mods):
        return "EQ-001"
    if any(a_mods[m]["codes_sha256"] != b_mods[m]["codes_sha256"] for m in a_mods):
        return "EQ-002"
    return "EQ-003"


class Problem:
    """One quantized nn.Linear: codes q [K, N], zeros z [G, N], fp16 scales s [G, N], g_idx [K],
    and the fp16 weight W [N, K] = (q - z[g_idx]) * s[g_idx] that the packers quantize back to q."""

    def __init__(self, K, N, bits, group_size, sym, probe, seed, desc_act=False, zeros="range"):
        rng = np.random.default_rng(seed)
        self.K, self.N, self.bits, self.group_size, self.sym, self.desc_act = K, N, bits, group_size, sym, desc_act
        self.gs = K if group_size == -1 else group_size
        self.G = math.ceil(K / self.gs)
        maxq = (1 << bits) - 1
        if probe == "patterned":
            q = (np.arange(K)[:, None] * 7 + np.arange(N)[None, :] * 3) % (maxq + 1)
        elif probe == "random":
            q = rng.integers(0, maxq + 1, size=(K, N))
        elif probe == "allmax":
            q = np.full((K, N), maxq)
        else:
            raise ValueError(probe)
        if sym:
            z = np.full((self.G, N), 1 << (bits - 1))
        elif zeros == "range":          # 1..maxq: a v1 file never overflows
            z = rng.integers(1, maxq + 1, size=(self.G, N))
        elif zeros == "full":           # 0..maxq: v2 and AWQ store any of them
            z = rng.integers(0, maxq + 1, size=(self.G, N))
            z[0, :4] = [0, maxq, 0, maxq]
        elif zeros == "zero0":          # one zero of 0 in the middle of a word: the v1 overflow
            z = rng.integers(1, maxq + 1, size=(self.G, N))
            z[0, 3] = 0
        else:
            raise ValueError(zeros)
        self.q = q.astype(np.int64)
        self.z = z.astype(np.int64)
        self.s = (rng.integers(1, 9, size=(self.G, N)) / 64.0).astype(np.float16)
        self.g_idx = (rng.permutation(K) // self.gs if desc_act else np.arange(K) // self.gs).astype(np.int32)
        self.recompute()

    def recompute(self):
        """W from q, z, s and g_idx (after a case edits them)."""
        exact = (self.q - self.z[self.g_idx]) * self.s.astype(np.float64)[self.g_idx]   # [K, N]
        W = exact.astype(np.float16)
        assert np.array_equal(W.astype(np.float64), exact), "weights must be exact in fp16"
        self.W = np.ascontiguousarray(W.T)                                                 # [N, K]

    def linear(self):
        lin = torch.nn.Linear(self.K, self.N, bias=False, dtype=torch.float16)
        lin.weight.data = torch.from_numpy(self.W.copy())
        return lin

    def weight_f32(self):
        """The contract's f32 weight of this problem, [N, K] (for the round-trip assertions)."""
        w = (self.q - self.z[self.g_idx]).astype(np.float32) * self.s.astype(np.float32)[self.g_idx]
        return np.ascontiguousarray(w.T.astype(np.float32))


# ---- writers ------------------------------------------------------------------------------------

def autogptq_pack(P):
    qc, _ = up.autogptq()
    ql = qc.QuantLinear(P.bits, P.group_size, P.K, P.N, False, weight_dtype=torch.float16)
    # The quantizer hands zeros as integers in [0, maxq]; the packer subtracts one and packs as uint32.
    ql.pack(P.linear(), torch.from_numpy(P.s.T.copy()), torch.from_numpy(P.z.T.astype(np.int32).copy()),
            torch.from_numpy(P.g_idx.copy()))
    return {"qweight": ql.qweight, "qzeros": ql.qzeros, "scales": ql.scales, "g_idx": ql.g_idx.to(torch.int32)}


def autogptq_dequant(tensors, P):
    """AutoGPTQ's own reader: qlinear_cuda.QuantLinear.forward (its torch path on CPU) on the identity gives
    its fp16 dequantized W^T [K, N]."""
    qc, _ = up.autogptq()
    ql = qc.QuantLinear(P.bits, P.group_size, P.K, P.N, False, weight_dtype=torch.float16)
    for k in ("qweight", "qzeros", "scales", "g_idx"):
        setattr(ql, k, tensors[k].clone())
    with torch.no_grad():
        return ql(torch.eye(P.K, dtype=torch.float16)).numpy()


def gptqmodel_pack(P, v1):
    g = up.gptqmodel()
    from gptqmodel.nn_modules.qlinear.torch import TorchLinear
    from gptqmodel.quantization.config import QuantizeConfig
    from gptqmodel.utils.model import convert_gptq_v2_to_v1_format_module
    ql = TorchLinear(bits=P.bits, group_size=P.group_size, sym=P.sym, desc_act=P.desc_act, in_features=P.K,
                     out_features=P.N, bias=False, pack_dtype=torch.int32)
    ql.pack_original(P.linear(), torch.from_numpy(P.s.T.copy()), torch.from_numpy(P.z.T.astype(np.int32).copy()),
                     torch.from_numpy(P.g_idx.copy()))
    if v1:
        convert_gptq_v2_to_v1_format_module(ql, QuantizeConfig(bits=P.bits, group_size=P.group_size, offload_to_disk=False))
    del g
    return {"qweight": ql.qweight.clone(), "qzeros": ql.qzeros.clone(), "scales": ql.scales.clone(),
            "g_idx": ql.g_idx.to(torch.int32).clone()}


def autoawq_pack(P):
    gemm, _, _, _ = up.autoawq()
    wq = gemm.WQLinear_GEMM.from_linear(P.linear(), 4, P.gs, scales=torch.from_numpy(P.s.copy()),
                                        zeros=torch.from_numpy(P.z.astype(np.int32)))
    return {"qweight": wq.qweight, "qzeros": wq.qzeros, "scales": wq.scales}


def gptqmodel_awq_export(K, N, group_size, seed):
    """GPTQModel's AWQ GEMM export of one fp16 Linear [N, K]: its quantizer, its CPU packer, its config."""
    import types
    up.gptqmodel()
    from gptqmodel.looper.awq_processor import AWQProcessor
    from gptqmodel.nn_modules.qlinear.torch_awq import AwqTorchLinear
    from gptqmodel.quantization.config import QuantizeConfig
    qc = QuantizeConfig(bits=4, group_size=group_size, method="awq", format="gemm", offload_to_disk=False)
    assert qc.sym, "GPTQModel's AWQ default is symmetric"
    g = torch.Generator().manual_seed(seed)
    W = (torch.randn(N, K, generator=g) * 0.05).to(torch.float16)
    # pseudo_quantize_tensor reads only self.qcfg: the processor's own method on a stand-in holding the config
    w, scales, zeros = AWQProcessor.pseudo_quantize_tensor(types.SimpleNamespace(qcfg=qc), W.float())
    lin = torch.nn.Linear(K, N, bias=False, dtype=torch.float16)
    lin.weight.data = w.to(torch.float16)            # the layer holds the fake-quantized weight when packed
    ql = AwqTorchLinear(bits=4, group_size=group_size, sym=True, desc_act=False, in_features=K, out_features=N,
                        bias=False, register_buffers=False)
    ql.pack(lin, scales.to(torch.float16), zeros)
    t = {"qweight": ql.qweight.clone(), "qzeros": ql.qzeros.clone(), "scales": ql.scales.clone()}
    d = _plain(qc.to_dict())
    d.get("meta", {}).pop("offload_to_disk_path", None)
    d.setdefault("meta", {})["quantizer"] = ["gptqmodel:" + up.gptqmodel().__version__]
    return t, d


def st_bytes(modules, meta=ST_META):
    """modules: {prefix: {suffix: tensor}} -> safetensors bytes (written by the safetensors library)."""
    flat = {f"{p}.{k}": v.contiguous() for p, ts in modules.items() for k, v in ts.items()}
    return st_save(flat, metadata=meta)


# ---- configs ------------------------------------------------------------------------------------

def autogptq_config(P, fmt="gptq", **over):
    c = {"bits": P.bits, "group_size": P.group_size, "damp_percent": 0.01, "desc_act": P.desc_act,
         "static_groups": False, "sym": P.sym, "true_sequential": True, "model_name_or_path": None,
         "model_file_base_name": "model", "quant_method": "gptq", "checkpoint_format": fmt}
    c.update(over)
    return c


def _plain(v):
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, enum.Enum):
        return _plain(v.value)
    return v


def gptqmodel_config(P, v1):
    up.gptqmodel()
    from gptqmodel.quantization.config import QuantizeConfig
    qc = QuantizeConfig(bits=P.bits, group_size=P.group_size, desc_act=P.desc_act, sym=P.sym,
                        format="gptq" if v1 else "gptq_v2", offload_to_disk=False)
    d = _plain(qc.to_dict())
    # Deterministic: drop the temp-dir path GPTQModel records; its saver adds meta.quantizer.
    d.get("meta", {}).pop("offload_to_disk_path", None)
    d.setdefault("meta", {})["quantizer"] = ["gptqmodel:" + up.gptqmodel().__version__]
    return d


def awq_config(P, legacy=False, version="gemm"):
    _, _, cfgmod, _ = up.autoawq()
    c = cfgmod.AwqConfig(zero_point=True, q_group_size=P.group_size, w_bit=4, version=version)
    return c.to_dict() if legacy else c.to_transformers_dict()


def config_json(qc):
    return {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "quantization_config": qc}


# ---- pins (upstream unpack/dequantize -> contract f32) ---------------------------------------

def gptq_pin(tensors, P, v1, cfg, prefix=PREFIX):
    up.gptqmodel()
    from gptqmodel.utils.model_dequant import convert_gptq_file, unpack_rows
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "m.safetensors")
        with open(path, "wb") as f:
            f.write(st_bytes({prefix: tensors}))
        out = convert_gptq_file(path, torch.float32, cfg, "cpu")
    w = out[prefix + ".weight"].numpy().astype(np.float32)                  # [N, K], GPTQModel's own f32 dequant
    codes = unpack_rows(tensors["qweight"], P.bits).numpy().astype(np.uint8).T  # [N, K]
    codes = np.ascontiguousarray(codes)
    return codes, np.ascontiguousarray(w)


def awq_pin(tensors, P):
    _, pu, _, _ = up.autoawq()
    iw, iz = pu.unpack_awq(tensors["qweight"], tensors["qzeros"], 4)
    iw, iz = pu.reverse_awq_order(iw, iz, 4)
    iw = torch.bitwise_and(iw, 15).numpy().astype(np.int64)   # [K, N], AutoAWQ's own "overflow checks"
    iz = torch.bitwise_and(iz, 15).numpy().astype(np.int64)   # [G, N]
    gs = iw.shape[0] // tensors["scales"].shape[0]
    rows = np.arange(iw.shape[0]) // gs
    s = tensors["scales"].float().numpy()
    w = (iw - iz[rows]).astype(np.float32) * s[rows]
    return np.ascontiguousarray(iw.astype(np.uint8).T), np.ascontiguousarray(w.T.astype(np.float32))


def pin(codes, w, bits):
    return module_pin(list(codes.shape), bits, codes.tobytes(), w.astype("<f4").tobytes())


# ---- cases --------------------------------------------------------------------------------------

GPTQ_BASE_RULES = ["CFG-002", "GPTQ-001", "GPTQ-002", "GPTQ-003", "GPTQ-004", "GPTQ-005", "GPTQ-006",
                   "GPTQ-007", "GPTQ-010", "GPTQ-011", "GPTQ-014"]
AWQ_RULES = ["CFG-002", "AWQ-001", "AWQ-002", "AWQ-003", "AWQ-004", "AWQ-005", "AWQ-006", "AWQ-007",
             "AWQ-008", "AWQ-009", "AWQ-010"]


def gptq_rules(P, v1):
    r = list(GPTQ_BASE_RULES)
    r.append("GPTQ-009" if P.desc_act else "GPTQ-008")
    if P.sym:
        r.append("GPTQ-012")
    elif v1:
        r.append("GPTQ-013")
    return sorted(r)


def gptq_files(tensors, cfg, cfg_name):
    files = {"model.safetensors": st_bytes({PREFIX: tensors})}
    files[cfg_name] = cfg if cfg_name == "quantize_config.json" else config_json(cfg)
    return files


def versions():
    _, agv = up.autogptq()
    *_, awv = up.autoawq()
    return agv, up.gptqmodel().__version__, awv


class Gen:
    def __init__(self, out):
        self.out = out
        self.agv, self.gmv, self.awv = versions()

    # GPTQ positives --------------------------------------------------------------------------
    def gptq_case(self, name, P, lib, v1, extra_check=True, profile=None, verdict="pass", reject_rule=None):
        if lib == "autogptq":
            assert v1
            t = autogptq_pack(P)
            cfg, cfg_name = autogptq_config(P), "quantize_config.json"
            src = f"AutoGPTQ {self.agv} qlinear_cuda.QuantLinear.pack (v1)"
        else:
            t = gptqmodel_pack(P, v1)
            cfg, cfg_name = gptqmodel_config(P, v1), "config.json"
            src = (f"GPTQModel {self.gmv} TorchLinear.pack_original (v2)"
                   + (" + convert_gptq_v2_to_v1_format_module (v1)" if v1 else ""))
        codes, w = gptq_pin(t, P, v1, cfg)
        if extra_check:
            assert np.array_equal(codes, P.q.T.astype(np.uint8)), name
            assert np.array_equal(w, P.weight_f32()), name
            if v1:   # AutoGPTQ's own reader agrees (fp16, exact here)
                assert np.array_equal(autogptq_dequant(t, P).astype(np.float32), w.T), name
        mods = {PREFIX: pin(codes, w, P.bits)} if verdict == "pass" else {}
        notes = None
        if not extra_check:
            # The v1 overflow: how far the libraries' readers are from the logical matrix and from each other.
            truth = P.weight_f32()
            ag = autogptq_dequant(t, P).astype(np.float32).T
            notes = (f"packcheck's wrap policy (= GPTQModel {self.gmv} convert_gptq_file) differs from the quantized "
                     f"matrix in {int((w != truth).sum())} weights; AutoGPTQ {self.agv} qlinear_cuda (mask then add: "
                     f"stored 2^b-1 -> 2^b) differs from it in {int((ag != w).sum())} weights")
        self.out.case("gptq", name, verdict=verdict, reject_rule=reject_rule, profile=profile, notes=notes,
                      layout="gptq-v1" if v1 else "gptq-v2", files=gptq_files(t, cfg, cfg_name),
                      rules=gptq_rules(P, v1), modules=mods,
                      source=f"{src}; K={P.K} N={P.N} bits={P.bits} group_size={P.group_size} sym={P.sym} "
                             f"desc_act={P.desc_act}; pins: GPTQModel {self.gmv} convert_gptq_file / unpack_rows")
        return t, cfg, cfg_name

    def gptq_positives(self):
        K, N = 64, 64
        for bits in (2, 3, 4, 8):
            for probe, seed in (("patterned", 1), ("random", 2), ("allmax", 3)):
                if bits in (2, 8) and probe == "allmax":
                    continue
                P = Problem(K, N, bits, 32, True, probe, seed + bits)
                self.gptq_case(f"autogptq-v1-{bits}bit-sym-g32-{probe}", P, "autogptq", True)
        self.gptq_case("autogptq-v1-4bit-asym-g32-random", Problem(K, N, 4, 32, False, "random", 11), "autogptq", True)
        self.gptq_case("autogptq-v1-3bit-asym-descact-g16-random",
                       Problem(K, N, 3, 16, False, "random", 12, desc_act=True), "autogptq", True)
        self.gptq_case("autogptq-v1-4bit-sym-gall-patterned", Problem(K, N, 4, -1, True, "patterned", 13), "autogptq", True)
        self.gptq_case("autogptq-v1-8bit-asym-descact-g32-random",
                       Problem(K, N, 8, 32, False, "random", 14, desc_act=True), "autogptq", True)
        self.gptq_case("gptqmodel-v2-4bit-sym-g32-patterned", Problem(K, N, 4, 32, True, "patterned", 21), "gptqmodel", False)
        self.gptq_case("gptqmodel-v2-4bit-sym-g32-allmax", Problem(K, N, 4, 32, True, "allmax", 22), "gptqmodel", False)
        self.gptq_case("gptqmodel-v2-4bit-asym-descact-g32-random",
                       Problem(K, N, 4, 32, False, "random", 23, desc_act=True, zeros="full"), "gptqmodel", False)
        self.gptq_case("gptqmodel-v2-3bit-asym-g32-random",
                       Problem(K, N, 3, 32, False, "random", 24, zeros="full"), "gptqmodel", False)
        self.gptq_case("gptqmodel-v2-8bit-sym-descact-g32-random",
                       Problem(K, N, 8, 32, True, "random", 25, desc_act=True), "gptqmodel", False)
        self.gptq_case("gptqmodel-v2-2bit-asym-gall-random",
                       Problem(K, N, 2, -1, False, "random", 26, zeros="full"), "gptqmodel", False)
        self.gptq_case("gptqmodel-v1-4bit-sym-g32-random", Problem(K, N, 4, 32, True, "random", 27), "gptqmodel", True)
        self.gptq_case("gptqmodel-v1-3bit-asym-g32-random", Problem(K, N, 3, 32, False, "random", 28), "gptqmodel", True)
        self.gptq_case("gptqmodel-v1-2bit-sym-g16-patterned", Problem(K, N, 2, 16, True, "patterned", 29), "gptqmodel", True)

    def gptq_dynamic(self):
        """GPTQModel mixed precision: QuantizeConfig.dynamic overrides bits and group size per module, and
        "-:" leaves a module unquantized. Each module's scheme is resolved with GPTQModel's dynamic_get."""
        up.gptqmodel()
        from gptqmodel.quantization.config import QuantizeConfig, dynamic_get
        dynamic = {r"-:.*lm_head": {}, r"+:.*\.o_proj$": {"bits": 8, "group_size": 16}, r"+:.*\.q_proj": {"bits": 3}}
        qc = QuantizeConfig(bits=4, group_size=32, desc_act=False, sym=False, format="gptq_v2", dynamic=dynamic,
                            offload_to_disk=False)
        cfg = _plain(qc.to_dict())
        cfg.get("meta", {}).pop("offload_to_disk_path", None)
        cfg.setdefault("meta", {})["quantizer"] = ["gptqmodel:" + up.gptqmodel().__version__]
        tensors, mods = {}, {}
        for i, prefix in enumerate((PREFIX, PREFIX2, "model.layers.0.mlp.up_proj")):
            assert dynamic_get(dynamic, prefix) is not False
            bits = dynamic_get(dynamic, prefix, "bits", 4)
            gs = dynamic_get(dynamic, prefix, "group_size", 32)
            P = Problem(64, 64, bits, gs, False, "random", 81 + i, zeros="full")
            t = gptqmodel_pack(P, v1=False)
            codes, w = gptq_pin(t, P, False, dict(cfg, bits=bits, group_size=gs), prefix=prefix)
            assert np.array_equal(w, P.weight_f32())
            tensors[prefix], mods[prefix] = t, pin(codes, w, bits)
        assert dynamic_get(dynamic, "lm_head") is False
        tensors["lm_head"] = {"weight": torch.ones(8, 64, dtype=torch.float16)}
        self.out.case("gptq", "gptqmodel-v2-dynamic-mixed-bits", verdict="pass", layout="gptq-v2",
                      files={"model.safetensors": st_bytes(tensors), "config.json": config_json(cfg)},
                      rules=sorted(set(GPTQ_BASE_RULES + ["GPTQ-008", "GPTQ-015"])), modules=mods,
                      source=f"GPTQModel {self.gmv} TorchLinear.pack_original (v2) per module, bits/group_size from "
                             f"QuantizeConfig.dynamic via dynamic_get (q_proj 3-bit, o_proj 8-bit g16, up_proj the base "
                             f"4-bit g32, lm_head excluded); pins: convert_gptq_file per module")

    def gptq_zero0(self):
        """A zero of 0 in a v1 asymmetric file, from each library (FORMATS.md 5.3): rejected under strict
        (GPTQ-013), decoded with the wrap policy under compat."""
        for lib in ("autogptq", "gptqmodel"):
            P = Problem(64, 64, 4, 32, False, "random", 31, zeros="zero0")
            self.gptq_case(f"{lib}-v1-4bit-asym-zero0", P, lib, True, extra_check=False,
                           verdict="reject", reject_rule="GPTQ-013")
            self.gptq_case(f"{lib}-v1-4bit-asym-zero0-compat", P, lib, True, extra_check=False, profile="compat")
        P = Problem(64, 64, 3, 32, False, "random", 32, zeros="zero0")
        for lib in ("autogptq", "gptqmodel"):   # GPTQModel wraps 3-bit zeros per field (#2763), no borrow
            self.gptq_case(f"{lib}-v1-3bit-asym-zero0", P, lib, True, extra_check=False,
                           verdict="reject", reject_rule="GPTQ-013")

    # GPTQ negatives --------------------------------------------------------------------------
    def gptq_neg(self, name, rule, tensors, cfg, cfg_name="quantize_config.json", note="", layout="gptq-v1", family=False):
        files = {"model.safetensors": st_bytes({PREFIX: tensors})}
        if cfg is not None:
            files[cfg_name] = cfg if cfg_name == "quantize_config.json" else config_json(cfg)
        self.out.case("gptq", name, verdict="reject", reject_rule=None if family else rule,
                      reject_family=rule if family else None, layout=layout, files=files, rules=[] if family else [rule],
                      source=f"AutoGPTQ {self.agv} / GPTQModel {self.gmv} packed file, then one change: {note}")

    def gptq_negatives(self):
        P = Problem(64, 64, 4, 32, True, "random", 41)
        t = autogptq_pack(P)
        cfg = autogptq_config(P)
        self.gptq_neg("neg-bits-5", "GPTQ-001", t, autogptq_config(P, bits=5), note="config bits 5")
        self.gptq_neg("neg-format-marlin", "GPTQ-002", t, autogptq_config(P, fmt="marlin"),
                      note="checkpoint_format marlin (another layout)")
        self.gptq_neg("neg-group-size-0", "GPTQ-003", t, autogptq_config(P, group_size=0), note="group_size 0")
        self.gptq_neg("neg-qzeros-i64", "GPTQ-004", dict(t, qzeros=t["qzeros"].to(torch.int64)), cfg,
                      note="qzeros saved as int64")
        self.gptq_neg("neg-missing-g-idx", "GPTQ-004", {k: v for k, v in t.items() if k != "g_idx"}, cfg,
                      note="g_idx left out (the config still says gptq)")
        self.gptq_neg("neg-scales-extra-group", "GPTQ-005",
                      dict(t, scales=torch.cat([t["scales"], t["scales"][:1]])), cfg, note="scales has G+1 rows")
        self.gptq_neg("neg-k-not-multiple-of-32", "GPTQ-006",
                      dict(t, qweight=t["qweight"][:5].clone(), g_idx=t["g_idx"][:40].clone()), cfg,
                      note="K cut to 40 (qweight 5 rows, g_idx 40): the tail of a word row is lost")
        g = t["g_idx"].clone()
        g[5] = P.G
        self.gptq_neg("neg-g-idx-out-of-range", "GPTQ-007", dict(t, g_idx=g), cfg, note="g_idx[5] = G")
        g = t["g_idx"].clone()
        g[0], g[40] = g[40].item(), g[0].item()
        self.gptq_neg("neg-g-idx-not-k-div-gs", "GPTQ-008", dict(t, g_idx=g), cfg,
                      note="desc_act false, g_idx[0] and g_idx[40] swapped (histogram kept)")
        Pd = Problem(64, 64, 4, 16, False, "random", 42, desc_act=True)
        td = autogptq_pack(Pd)
        g = td["g_idx"].clone()
        g[int(np.flatnonzero(Pd.g_idx == 0)[0])] = 1
        self.gptq_neg("neg-descact-histogram", "GPTQ-009", dict(td, g_idx=g), autogptq_config(Pd),
                      note="desc_act true, one row of group 0 moved to group 1 (group 0 used 15 times, group 1 17)")
        s = t["scales"].clone()
        s[1, 7] = float("nan")
        self.gptq_neg("neg-scales-nan", "GPTQ-010", dict(t, scales=s), cfg, note="scales[1, 7] = NaN")
        # The mislabelling of vLLM PR #38966: GPTQModel v2 bytes under checkpoint_format gptq.
        for bits in (4, 3, 8):
            Pm = Problem(64, 64, bits, 32, True, "random", 43 + bits)
            tm = gptqmodel_pack(Pm, v1=False)
            self.gptq_neg(f"neg-mislabelled-v2-as-gptq-{bits}bit", "GPTQ-012", tm, gptqmodel_config(Pm, v1=True),
                          cfg_name="config.json", note=f"GPTQModel v2 {bits}-bit symmetric zeros, config says checkpoint_format gptq")
        self.gptq_neg("neg-mislabelled-v1-as-v2", "GPTQ-012", t, autogptq_config(P, fmt="gptq_v2"),
                      layout="gptq-v2", note="AutoGPTQ v1 symmetric zeros, config says gptq_v2")
        self.gptq_neg("neg-no-config", "CFG-002", t, None, note="no quantization config at all")
        # SHOULD: a zero scale is legal but suspicious: the file passes with a warning.
        s = t["scales"].clone()
        s[0, 5] = 0.0
        tz = dict(t, scales=s)
        codes, w = gptq_pin(tz, P, True, cfg)
        self.out.case("gptq", "warn-zero-scale", verdict="pass", layout="gptq-v1", files=gptq_files(tz, cfg, "quantize_config.json"),
                      rules=["GPTQ-011"], modules={PREFIX: pin(codes, w, P.bits)},
                      source=f"AutoGPTQ {self.agv} packed file, then scales[0, 5] = 0 (warns, GPTQ-011); pins: GPTQModel "
                             f"{self.gmv} convert_gptq_file")

    # AWQ -------------------------------------------------------------------------------------
    def awq_case(self, name, P, legacy=False, version="gemm", two_modules=False):
        t = autoawq_pack(P)
        codes, w = awq_pin(t, P)
        assert np.array_equal(codes, P.q.T.astype(np.uint8)), name
        assert np.array_equal(w, P.weight_f32()), name
        _, pu, _, _ = up.autoawq()   # AutoAWQ's own fp16 dequantizer agrees (exact here)
        assert np.array_equal(pu.dequantize_gemm(t["qweight"], t["qzeros"], t["scales"], 4, P.gs).float().numpy(), w.T), name
        mods = {PREFIX: pin(codes, w, 4)}
        tensors = {PREFIX: t}
        if two_modules:
            P2 = Problem(P.N, P.K, 4, P.group_size, False, "random", 99, zeros="full")
            t2 = autoawq_pack(P2)
            t2["bias"] = torch.arange(P2.N, dtype=torch.float16) / 8
            c2, w2 = awq_pin(t2, P2)
            mods[PREFIX2] = pin(c2, w2, 4)
            tensors[PREFIX2] = t2
        cfg = awq_config(P, legacy, version)
        files = {"model.safetensors": st_bytes(tensors)}
        if legacy:
            files["quant_config.json"] = cfg
        else:
            files["config.json"] = config_json(cfg)
        self.out.case("awq", name, verdict="pass", layout="awq-gemm", files=files, rules=AWQ_RULES, modules=mods,
                      source=f"AutoAWQ {self.awv} WQLinear_GEMM.from_linear; config AwqConfig."
                             f"{'to_dict (quant_config.json)' if legacy else 'to_transformers_dict'}; K={P.K} N={P.N} "
                             f"group_size={P.group_size}; pins: AutoAWQ unpack_awq + reverse_awq_order in numpy f32")
        return t

    def awq_positives(self):
        self.awq_case("autoawq-gemm-g32-patterned", Problem(64, 64, 4, 32, False, "patterned", 51, zeros="full"))
        self.awq_case("autoawq-gemm-g32-random", Problem(64, 64, 4, 32, False, "random", 52, zeros="full"))
        P = Problem(64, 64, 4, 32, False, "allmax", 53, zeros="full")
        P.z[:] = 15          # codes and zeros all 15: every top slot carries the sign bit
        P.recompute()
        self.awq_case("autoawq-gemm-g32-allmax", P)
        self.awq_case("autoawq-gemm-g64-legacy-quant-config", Problem(128, 64, 4, 64, False, "random", 54, zeros="full"),
                      legacy=True, version="GEMM")
        self.awq_case("autoawq-gemm-gall-random", Problem(64, 32, 4, -1, False, "random", 55, zeros="full"))
        self.awq_case("autoawq-gemm-g32-two-modules-bias", Problem(64, 96, 4, 32, False, "random", 56, zeros="full"),
                      two_modules=True)

    def awq_neg(self, name, rule, tensors, cfg, legacy=False, note=""):
        files = {"model.safetensors": st_bytes({PREFIX: tensors})}
        if cfg is not None:
            files["quant_config.json" if legacy else "config.json"] = cfg if legacy else config_json(cfg)
        self.out.case("awq", name, verdict="reject", reject_rule=rule, layout="awq-gemm", files=files, rules=[rule],
                      source=f"AutoAWQ {self.awv} WQLinear_GEMM.from_linear file, then one change: {note}")

    def awq_negatives(self):
        P = Problem(64, 64, 4, 32, False, "random", 61, zeros="full")
        t = autoawq_pack(P)
        cfg = awq_config(P)
        self.awq_neg("neg-bits-8", "AWQ-001", t, dict(cfg, bits=8), note="bits 8")
        self.awq_neg("neg-version-gemv", "AWQ-002", t, dict(cfg, version="gemv"),
                     note="version gemv (a different layout; named unsupported)")
        self.awq_neg("neg-version-gemv-fast-legacy", "AWQ-002", t, dict(awq_config(P, legacy=True), version="gemv_fast"),
                     legacy=True, note="legacy quant_config.json with version gemv_fast")
        self.awq_neg("neg-group-size-0", "AWQ-004", t, dict(cfg, group_size=0), note="group_size 0")
        self.awq_neg("neg-g-idx-present", "AWQ-005", dict(t, g_idx=torch.arange(64, dtype=torch.int32) // 32), cfg,
                     note="a g_idx tensor added under an AWQ config")
        self.awq_neg("neg-qzeros-shape", "AWQ-006", dict(t, qzeros=t["qzeros"][:1].clone()), cfg,
                     note="qzeros keeps one group row of two")
        self.awq_neg("neg-k-not-multiple-of-group", "AWQ-007", t, dict(cfg, group_size=48),
                     note="config group_size 48 with K = 64")
        s = t["scales"].clone()
        s[0, 9] = float("inf")
        self.awq_neg("neg-scales-inf", "AWQ-008", dict(t, scales=s), cfg, note="scales[0, 9] = inf")
        self.awq_neg("neg-no-config", "CFG-002", t, None, note="no quantization config at all")
        s = t["scales"].clone()
        s[1, 3] = 0.0
        tz = dict(t, scales=s)
        codes, w = awq_pin(tz, P)
        self.out.case("awq", "warn-zero-scale", verdict="pass", layout="awq-gemm", rules=["AWQ-009"],
                      files={"model.safetensors": st_bytes({PREFIX: tz}), "config.json": config_json(cfg)},
                      modules={PREFIX: pin(codes, w, 4)},
                      source=f"AutoAWQ {self.awv} WQLinear_GEMM.from_linear file, then scales[1, 3] = 0 (warns, AWQ-009); "
                             f"pins: AutoAWQ unpack_awq + reverse_awq_order in numpy f32")

    def awq_zero_point_false(self):
        """zero_point false: AutoAWQ's and vLLM's loaders read qzeros whatever it says (AWQ-003)."""
        t, cfg = gptqmodel_awq_export(64, 64, 32, 62)
        assert cfg["zero_point"] is False and bool((t["qzeros"] == -0x77777778).all()), "GPTQModel: zeros all 8"
        codes, w = awq_pin(t, None)
        _, pu, _, _ = up.autoawq()   # AutoAWQ's own fp16 dequantizer agrees (it rounds (q - z) * s to fp16 once)
        dq = pu.dequantize_gemm(t["qweight"], t["qzeros"], t["scales"], 4, 32).float().numpy()
        assert np.array_equal(dq, w.T.astype(np.float16).astype(np.float32))
        self.out.case("awq", "gptqmodel-gemm-sym-zero-point-false", verdict="pass", layout="awq-gemm", rules=AWQ_RULES,
                      files={"model.safetensors": st_bytes({PREFIX: t}), "config.json": config_json(cfg)},
                      modules={PREFIX: pin(codes, w, 4)},
                      source=f"GPTQModel {self.gmv} AWQ GEMM export (AWQProcessor.pseudo_quantize_tensor, sym=True default, "
                             f"-> AwqTorchLinear.pack; config AWQConfig.to_dict: zero_point false, qzeros all 8); K=64 N=64 "
                             f"group_size=32; pins: AutoAWQ {self.awv} unpack_awq + reverse_awq_order in numpy f32")
        P = Problem(64, 64, 4, 32, False, "random", 61, zeros="full")
        ta = autoawq_pack(P)
        codes, w = awq_pin(ta, P)
        self.out.case("awq", "warn-zero-point-false-asym-zeros", verdict="pass", layout="awq-gemm", rules=["AWQ-003"],
                      files={"model.safetensors": st_bytes({PREFIX: ta}),
                             "config.json": config_json(dict(awq_config(P), zero_point=False))},
                      modules={PREFIX: pin(codes, w, 4)},
                      source=f"AutoAWQ {self.awv} WQLinear_GEMM.from_linear file (asymmetric zeros), then zero_point false "
                             f"(warns, AWQ-003: the label contradicts the stored zeros, which readers still subtract); "
                             f"pins: AutoAWQ unpack_awq + reverse_awq_order in numpy f32")

    # equiv pairs -----------------------------------------------------------------------------
    def equiv_case(self, name, a_files, a_layout, a_mods, b_files, b_mods, equal, bug, caught, note):
        same = a_mods == b_mods
        assert same == equal, f"{name}: the pinned logical views {'differ' if equal else 'agree'}"
        files = {f"source/{k}": v for k, v in a_files.items()}
        files.update({f"target/{k}": v for k, v in b_files.items()})
        self.out.case("equiv", name, verdict="pass", input="source", layout=a_layout, files=files, modules=a_mods,
                      rules=[], source=note,
                      extra={"equiv": {"source": "source", "target": "target",
                                       "verdict": "equal" if equal else "differ",
                                       "rule": None if equal else first_difference_rule(a_mods, b_mods),
                                       "bug_class": bug, "caught_by": caught, "target_modules": b_mods}})

    def equiv_pairs(self):
        K, N = 64, 64
        P = Problem(K, N, 4, 32, False, "random", 71, zeros="range")
        P.z = np.clip(P.z, 1, 14)   # zeros 1..14: valid as v1, v2 and AWQ, and as v2 bytes read as v1
        P.recompute()
        ta = autogptq_pack(P)
        cfa = autogptq_config(P)
        ca, wa = gptq_pin(ta, P, True, cfa)
        a_files = gptq_files(ta, cfa, "quantize_config.json")
        a_mods = {PREFIX: pin(ca, wa, 4)}
        tw = autoawq_pack(P)
        cw, ww = awq_pin(tw, P)
        awq_files = {"model.safetensors": st_bytes({PREFIX: tw}), "config.json": config_json(awq_config(P))}
        self.equiv_case("gptq-v1-vs-awq-same", a_files, "gptq-v1", a_mods, awq_files, {PREFIX: pin(cw, ww, 4)},
                        True, None, None, f"the same logical matrix packed by AutoGPTQ {self.agv} (v1) and AutoAWQ {self.awv}")
        t2 = gptqmodel_pack(P, v1=False)
        cf2 = gptqmodel_config(P, v1=False)
        c2, w2 = gptq_pin(t2, P, False, cf2)
        self.equiv_case("gptq-v2-vs-awq-same", gptq_files(t2, cf2, "config.json"), "gptq-v2", {PREFIX: pin(c2, w2, 4)},
                        awq_files, {PREFIX: pin(cw, ww, 4)}, True, None, None,
                        f"the same logical matrix packed by GPTQModel {self.gmv} (v2) and AutoAWQ {self.awv}")
        # Act order: v1 vs v2 of one desc_act model are equal; an AWQ repack that drops g_idx is not.
        Pd = Problem(K, N, 4, 32, False, "random", 72, desc_act=True, zeros="range")
        td1 = autogptq_pack(Pd)
        cd1 = autogptq_config(Pd)
        c, w = gptq_pin(td1, Pd, True, cd1)
        d_files, d_mods = gptq_files(td1, cd1, "quantize_config.json"), {PREFIX: pin(c, w, 4)}
        td2 = gptqmodel_pack(Pd, v1=False)
        cd2 = gptqmodel_config(Pd, v1=False)
        c, w = gptq_pin(td2, Pd, False, cd2)
        self.equiv_case("gptq-v1-vs-v2-descact-same", d_files, "gptq-v1", d_mods, gptq_files(td2, cd2, "config.json"),
                        {PREFIX: pin(c, w, 4)}, True, None, None,
                        f"one act-order model packed by AutoGPTQ {self.agv} (v1) and GPTQModel {self.gmv} (v2)")
        # Broken repack 1: act-order dropped. Codes and zeros carried over row for row, scales indexed k // gs.
        Pb = Problem(K, N, 4, 32, False, "random", 72, desc_act=True, zeros="range")
        Pb.g_idx = (np.arange(K) // Pb.gs).astype(np.int32)
        Pb.recompute()
        self.equiv_broken("broken-dropped-act-order", d_files, "gptq-v1", d_mods, Pb, "dropped act-order permutation",
                          "equiv (weights differ where g_idx[k] != k // gs; codes equal)",
                          "AWQ repack of the act-order GPTQ file that copies rows and groups but ignores g_idx")
        # Broken repack 2: zero-point convention mixed (v1 stored zeros copied into AWQ without adding one).
        Pz = Problem(K, N, 4, 32, False, "random", 71, zeros="range")
        Pz.z = np.clip(Pz.z, 1, 14) - 1
        Pz.recompute()
        self.equiv_broken("broken-zero-off-by-one", a_files, "gptq-v1", a_mods, Pz, "zero-point off by one",
                          "equiv (every weight one step off); no single-file rule can see it for an asymmetric file",
                          "AWQ repack of the v1 file that copies the stored zeros (z - 1) without adding one back")
        # Broken repack 3: v2 bytes relabelled gptq (asymmetric, so GPTQ-012 cannot see it).
        t3 = gptqmodel_pack(P, v1=False)
        cf3 = gptqmodel_config(P, v1=True)
        c3, w3 = gptq_pin(t3, P, True, cf3)
        self.equiv_case("broken-v2-relabelled-v1-asym", a_files, "gptq-v1", a_mods, gptq_files(t3, cf3, "config.json"),
                        {PREFIX: pin(c3, w3, 4)}, False, "zero-point off by one (v2 read as v1)",
                        "equiv (weights differ by one scale step); GPTQ-012 catches the symmetric case in-file",
                        f"GPTQModel {self.gmv} v2 asymmetric bytes with checkpoint_format gptq")
        # Broken repacks 4-6: bit-level repacks from GPTQ words to AWQ words (numpy, deliberately wrong).
        q_kn = P.q.astype(np.uint32)
        def awq_words(codes_kn, order):
            c = codes_kn.reshape(codes_kn.shape[0], -1, 8)[:, :, order].astype(np.uint32)
            return np.bitwise_or.reduce(c << (np.arange(8, dtype=np.uint32) * 4), axis=2).view(np.int32)
        plain = list(range(8))
        awq_order = [0, 2, 4, 6, 1, 3, 5, 7]
        zq = awq_words(P.z.astype(np.uint32), awq_order)
        self.equiv_words("broken-slot-order", a_files, a_mods, P, awq_words(q_kn, plain), zq, tw["scales"],
                         "wrong slot order", "equiv (codes permuted within each group of 8 columns)",
                         "GPTQ -> AWQ repack that packs nibbles in plain order 0..7, without the 0,2,4,6,1,3,5,7 interleave")
        gq = ta["qweight"].numpy()                          # [K/8, N] words, reinterpreted as [K, N/8]
        self.equiv_words("broken-wrong-axis", a_files, a_mods, P, gq.reshape(K, N // 8).copy(), zq, tw["scales"],
                         "wrong pack axis", "equiv (codes scrambled: GPTQ words packed along K read along N)",
                         "GPTQ -> AWQ repack that reinterprets qweight words without unpacking ('never repack by reinterpreting words')")
        # Sign extension: GPTQ codes pulled with an int32 arithmetic shift and the top slot (rows 8r + 7) left
        # unmasked, then ORed into AWQ words: a code >= 8 arrives as -8..-1 and sets every higher AWQ slot.
        gw = ta["qweight"].numpy().astype(np.int64)
        codes = np.zeros((K, N), np.int64)
        for j in range(8):
            v = (ta["qweight"].numpy() >> (4 * j)).astype(np.int64)
            codes[j::8] = v if j == 7 else v & 15
        del gw
        c = codes.reshape(K, N // 8, 8)[:, :, awq_order]
        smeared = np.zeros((K, N // 8), np.int64)
        for i in range(8):
            smeared |= c[:, :, i] << (4 * i)
        smeared = (smeared & 0xFFFFFFFF).astype(np.uint32).view(np.int32)
        assert not np.array_equal(smeared, tw["qweight"].numpy())
        self.equiv_words("broken-sign-extension", a_files, a_mods, P, smeared, tw["qzeros"].numpy(), tw["scales"],
                         "sign extension", "equiv (codes differ: negative top-slot values set the higher AWQ slots)",
                         "GPTQ -> AWQ repack that unpacked the top slot with an arithmetic shift and no mask")
        # Missing slicing: out_features padded from 64 to 96 with zero weights and never sliced back.
        Pp = Problem(K, 96, 4, 32, False, "random", 71, zeros="range")
        Pp.q[:, :N], Pp.z[:, :N], Pp.s[:, :N] = P.q, P.z, P.s
        Pp.g_idx = P.g_idx
        Pp.q[:, N:], Pp.z[:, N:], Pp.s[:, N:] = 0, 0, np.float16(0.125)
        Pp.recompute()
        self.equiv_broken("broken-missing-slice", a_files, "gptq-v1", a_mods, Pp, "missing padding or slicing",
                          "equiv (shapes differ: [96, 64] against [64, 64])",
                          "AWQ repack that padded out_features to 96 for the packer and never sliced back")

    def equiv_broken(self, name, a_files, a_layout, a_mods, Pb, bug, caught, note):
        tb = autoawq_pack(Pb)
        cb, wb = awq_pin(tb, Pb)
        b_files = {"model.safetensors": st_bytes({PREFIX: tb}), "config.json": config_json(awq_config(Pb))}
        self.equiv_case(name, a_files, a_layout, a_mods, b_files, {PREFIX: pin(cb, wb, 4)}, False, bug, caught,
                        f"{note}; b written by AutoAWQ {self.awv} WQLinear_GEMM.from_linear")

    def equiv_words(self, name, a_files, a_mods, P, qweight, qzeros, scales, bug, caught, note):
        tb = {"qweight": torch.from_numpy(np.ascontiguousarray(qweight).astype(np.int32)),
              "qzeros": torch.from_numpy(np.ascontiguousarray(qzeros).astype(np.int32)), "scales": scales}
        cb, wb = awq_pin(tb, P)
        b_files = {"model.safetensors": st_bytes({PREFIX: tb}), "config.json": config_json(awq_config(P))}
        self.equiv_case(name, a_files, "gptq-v1", a_mods, b_files, {PREFIX: pin(cb, wb, 4)}, False, bug, caught,
                        f"{note}; b pinned with AutoAWQ {self.awv} unpack_awq + reverse_awq_order")


def generate(out):
    torch.manual_seed(0)
    g = Gen(out)
    g.gptq_positives()
    g.gptq_dynamic()
    g.gptq_zero0()
    g.gptq_negatives()
    g.awq_positives()
    g.awq_negatives()
    g.awq_zero_point_false()
    g.equiv_pairs()
