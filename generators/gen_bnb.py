"""bitsandbytes 4-bit and LLM.int8 fixtures (family bnb/; the int8 part is described at LAYOUT8 below). Venv: bnb (generators/requirements-bnb.txt: bitsandbytes
0.50.2 and accelerate installed --no-deps over the ct venv's torch 2.15.0 / transformers 5.24.0, which a
.pth file puts on the path; PCGEN_VENV_BNB, default /work/venvs/bnb). From any other venv this module
re-runs itself there.

Every byte comes from bitsandbytes on its CPU backend:
  * probes: bitsandbytes.functional.quantize_4bit of seeded bf16 tensors, NF4 and FP4, with and without
    double quantization (compress_statistics), blocksizes 32/64/128, an odd element count (padding) and
    300 blocks (nested blocks 256 + a partial 44), and 2-D weights whose row length is not a multiple of
    the blocksize with as many per-row as flattened blocks (row-tail cases: a reader counting blocks per
    row stays inside absmax and takes the wrong block, certify's bnb-row-blocks); serialized as Linear4bit saves them: M.weight plus
    M.weight.<key> for QuantState.as_dict(packed=True);
  * models: transformers LlamaForCausalLM.from_pretrained(quantization_config=BitsAndBytesConfig(4-bit),
    device_map="cpu") of a tiny seeded llama, then save_pretrained (NF4 with double quantization, FP4
    without).
Negative cases change one thing of the NF4 double-quant probe (named in each case's source).

Pins: codes are the nibbles (high = even element) of the stored bytes; weights are bitsandbytes' default
backend _dequantize_4bit_compute in f32 (flattened blocks, table value times block scale) over the block
scales dequantize_blockwise + offset gives. FP4 code 8 is +0.0 there, in the saved quant_map and in the
vectorised CPU kernel; the scalar CPU kernel (small inputs) gives -0.0. The contract takes +0.0 (CONTRACT 3).
Surprise recorded in each case's notes: bitsandbytes 0.50.2's CPU C++ dequantize_4bit (used for an even
last dim) takes the wrong block's absmax for some rows when the row length is not a multiple of the
blocksize (probe.d, 120 x 160, blocksize 64), so dequantize_4bit itself is not the pin.
"""
import copy
import io
import json
import os
import sys

from pcgen.corpus import module_pin
from pcgen.venv import run_in_venv

FAMILY = "bnb"
LAYOUT = "bnb-4bit"
VENV = os.environ.get("PCGEN_VENV_BNB", "/work/venvs/bnb")
RULES = ["BNB-001", "BNB-002", "BNB-003", "BNB-004", "BNB-005", "BNB-006"]
SHAPES = (("a", (6, 70), 64), ("b", (5, 33), 128), ("c", (3, 300), 32), ("d", (120, 160), 64))


def generate(out):
    try:
        import bitsandbytes  # noqa: F401
    except ImportError:
        return run_in_venv(__file__, VENV, out, "bitsandbytes")
    return _generate(out)


def st_bytes(tensors):
    from safetensors.torch import save
    return save({k: v.contiguous() for k, v in sorted(tensors.items())})


def st_load(data):
    from safetensors.torch import load
    return dict(load(data))


def bnb_config(quant_type, dq):
    import torch
    from transformers import BitsAndBytesConfig
    return BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type=quant_type, bnb_4bit_use_double_quant=dq,
                              bnb_4bit_compute_dtype=torch.bfloat16).to_dict()


def pin_from_tensors(tensors, m, notes=None):
    """codes and f32 weights of module m from its saved tensors, through QuantState.from_dict: the block
    scales from dequantize_blockwise (+ offset), the weights from the default backend's
    _dequantize_4bit_compute in f32 (flattened blocks, the layout quantize_4bit wrote). `notes` collects
    how dequantize_4bit itself (the CPU C++ kernel for an even last dim) compares."""
    import numpy as np
    import torch
    import bitsandbytes.functional as F
    from bitsandbytes.backends.default.ops import _dequantize_4bit_compute
    from bitsandbytes.backends.utils import _get_4bit_code
    pre = f"{m}.weight."
    qs = F.QuantState.from_dict({k[len(pre):]: v for k, v in tensors.items() if k.startswith(pre)}, device=torch.device("cpu"))
    q = tensors[f"{m}.weight"]
    absmax = qs.absmax
    if qs.nested:
        absmax = F.dequantize_blockwise(qs.absmax, qs.state2)
        absmax += qs.offset
    w = _dequantize_4bit_compute(q.reshape(-1), absmax.float(), _get_4bit_code(qs.quant_type, q.device), qs.blocksize,
                                 qs.shape, torch.float32).numpy().astype("<f4").reshape(-1).copy()
    packed = q.numpy().reshape(-1)
    n = int(np.prod(qs.shape))
    codes = np.empty(packed.size * 2, np.uint8)
    codes[0::2], codes[1::2] = packed >> 4, packed & 15
    codes = codes[:n]
    if notes is not None:
        s32 = copy.deepcopy(qs)
        s32.dtype = torch.float32
        lib = F.dequantize_4bit(q, s32).numpy().astype("<f4").reshape(-1)
        diff = int((lib.view(np.uint32) != w.view(np.uint32)).sum())
        zero = int(((lib.view(np.uint32) != w.view(np.uint32)) & (lib == 0)).sum())
        if diff:
            notes.append(f"{m}: dequantize_4bit(f32) differs on {diff} of {n} weights ({zero} only in the sign of zero)")
    shape = list(qs.shape) if len(qs.shape) > 1 else [1, n]
    return module_pin(shape, 4, codes.tobytes(), w.tobytes())


def module_tensors(m, w, quant_type, dq, blocksize):
    import bitsandbytes.functional as F
    q, st = F.quantize_4bit(w, blocksize=blocksize, quant_type=quant_type, compress_statistics=dq)
    t = {f"{m}.weight": q}
    for k, v in st.as_dict(packed=True).items():
        t[f"{m}.weight.{k}"] = v
    return t


def probe_tensors(quant_type, dq, seed=None):
    import torch
    g = torch.Generator().manual_seed(5 + 2 * dq + (quant_type == "fp4") if seed is None else seed)
    tensors, mods = {}, {}
    for name, shape, bs in SHAPES:
        w = (torch.randn(*shape, generator=g) * 2).to(torch.bfloat16)
        w.view(-1)[3] = 0.0
        w.view(-1)[4] = -0.0
        tensors.update(module_tensors(f"probe.{name}", w, quant_type, dq, bs))
    notes = []
    for name, _, _ in SHAPES:
        mods[f"probe.{name}"] = pin_from_tensors(tensors, f"probe.{name}", notes)
    return tensors, mods, notes


def probes(out):
    import bitsandbytes
    made = {}
    for qt in ("nf4", "fp4"):
        for dq in (False, True):
            t, mods, notes = probe_tensors(qt, dq)
            cfg = {"model_type": "probe", "quantization_config": bnb_config(qt, dq)}
            name = f"probe-{qt}{'-dq' if dq else ''}"
            out.case(FAMILY, name, verdict="pass", layout=LAYOUT, rules=RULES, modules=mods, notes="; ".join(notes) or None,
                     files={"model.safetensors": st_bytes(t), "config.json": cfg},
                     source=f"bitsandbytes {bitsandbytes.__version__} quantize_4bit(quant_type={qt}, compress_statistics={dq}) "
                            f"of bf16 {', '.join(f'{s} bs{b}' for _, s, b in SHAPES)}; QuantState.as_dict(packed=True); "
                            f"pins: dequantize_4bit (f32)")
            made[name] = (t, cfg)
    return made


# 2-D weights whose row length is not a multiple of the blocksize, with as many per-row blocks as
# flattened ones (N * ceil(K / bs) == ceil(N * K / bs)): a reader that counts blocks per row indexes
# inside the absmax tensor but takes the wrong block for the tail of every row after the first.
ROW_TAIL = (("r", (2, 100), 64), ("s", (3, 120), 64), ("t", (4, 250), 128))


def row_tail(out):
    import torch
    import bitsandbytes
    for qt, dq in (("nf4", False), ("fp4", True)):
        g = torch.Generator().manual_seed(31 + dq)
        tensors, notes = {}, []
        for name, shape, bs in ROW_TAIL:
            w = (torch.randn(*shape, generator=g) * 2).to(torch.bfloat16)
            tensors.update(module_tensors(f"tail.{name}", w, qt, dq, bs))
        mods = {f"tail.{n}": pin_from_tensors(tensors, f"tail.{n}", notes) for n, _, _ in ROW_TAIL}
        cfg = {"model_type": "probe", "quantization_config": bnb_config(qt, dq)}
        out.case(FAMILY, f"probe-{qt}{'-dq' if dq else ''}-row-tail", verdict="pass", layout=LAYOUT, rules=RULES, modules=mods,
                 notes="; ".join(notes) or None, files={"model.safetensors": st_bytes(tensors), "config.json": cfg},
                 source=f"bitsandbytes {bitsandbytes.__version__} quantize_4bit(quant_type={qt}, compress_statistics={dq}) "
                        f"of bf16 {', '.join(f'{s} bs{b}' for _, s, b in ROW_TAIL)} (K % blocksize != 0, blocks run "
                        f"across rows); QuantState.as_dict(packed=True); pins: dequantize_4bit (f32)")


def models(out):
    import tempfile
    import shutil
    import torch
    import bitsandbytes
    import transformers
    from transformers import BitsAndBytesConfig, LlamaConfig, LlamaForCausalLM
    for qt, dq in (("nf4", True), ("fp4", False)):
        torch.manual_seed(3)
        cfg = LlamaConfig(vocab_size=64, hidden_size=64, intermediate_size=128, num_hidden_layers=1, num_attention_heads=2,
                          num_key_value_heads=2, max_position_embeddings=16, tie_word_embeddings=False)
        d = tempfile.mkdtemp(prefix="pcgen-bnb-")
        try:
            LlamaForCausalLM(cfg).to(torch.bfloat16).save_pretrained(d + "/src")
            bc = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type=qt, bnb_4bit_use_double_quant=dq,
                                    bnb_4bit_compute_dtype=torch.bfloat16)
            qm = LlamaForCausalLM.from_pretrained(d + "/src", quantization_config=bc, device_map="cpu", dtype=torch.bfloat16)
            qm.save_pretrained(d + "/q")
            files = {}
            for n in ("config.json", "model.safetensors"):
                with open(os.path.join(d, "q", n), "rb") as f:
                    files[n] = f.read()
        finally:
            shutil.rmtree(d)
        t = st_load(files["model.safetensors"])
        mods = {k[:-len(".weight.absmax")]: None for k in t if k.endswith(".weight.absmax")}
        notes = []
        mods = {m: pin_from_tensors(t, m, notes) for m in sorted(mods)}
        out.case(FAMILY, f"model-{qt}{'-dq' if dq else ''}", verdict="pass", layout=LAYOUT, rules=RULES, modules=mods,
                 notes="; ".join(notes) or None,
                 files=files, source=f"transformers {transformers.__version__} + bitsandbytes {bitsandbytes.__version__} (CPU): "
                                     f"a tiny bf16 llama from_pretrained with BitsAndBytesConfig(load_in_4bit, {qt}, "
                                     f"double_quant={dq}), save_pretrained; pins: dequantize_4bit (f32)")


def edited_case(out, base, name, rule, layout, origin, what, t_edit=None, cfg_edit=None):
    """A negative case: the base probe's tensors and config with one change, rejected by `rule`."""
    tensors0, cfg0 = base
    t = {k: v.clone() for k, v in tensors0.items()}
    cfg = copy.deepcopy(cfg0)
    if t_edit:
        t_edit(t)
    if cfg_edit:
        cfg_edit(cfg)
    out.case(FAMILY, name, verdict="reject", reject_rule=rule, rules=[rule], layout=layout,
             files={"model.safetensors": st_bytes(t), "config.json": cfg},
             source=f"{origin}, then one change: {what}")


def negatives(out, base):
    import torch
    import bitsandbytes
    tensors0, cfg0 = base
    A = "probe.a"

    def neg(name, rule, what, t_edit=None, cfg_edit=None):
        edited_case(out, base, name, rule, LAYOUT, f"bitsandbytes {bitsandbytes.__version__} probe-nf4-dq "
                    f"(quantize_4bit, as_dict)", what, t_edit, cfg_edit)

    QS = f"{A}.weight.quant_state.bitsandbytes__nf4"

    def set_state(t, edit):
        d = json.loads(bytes(t[QS].numpy()).decode())
        edit(d)
        t[QS] = torch.frombuffer(bytearray(json.dumps(d).encode()), dtype=torch.uint8)

    neg("neg-bnb001-no-config", "BNB-001", "config.json without quantization_config", cfg_edit=lambda c: c.pop("quantization_config"))
    neg("neg-bnb001-not-4bit", "BNB-001", "quantization_config load_in_4bit false",
        cfg_edit=lambda c: c["quantization_config"].update(load_in_4bit=False))
    neg("neg-bnb002-not-json", "BNB-002", f"{QS} replaced by the bytes of 'not json'",
        t_edit=lambda t: t.update({QS: torch.frombuffer(bytearray(b"not json"), dtype=torch.uint8)}))
    neg("neg-bnb002-type-mismatch", "BNB-002", "quant state JSON quant_type fp4 under the bitsandbytes__nf4 key",
        t_edit=lambda t: set_state(t, lambda d: d.update(quant_type="fp4")))
    neg("neg-bnb002-blocksize-100", "BNB-002", "quant state JSON blocksize 100",
        t_edit=lambda t: set_state(t, lambda d: d.update(blocksize=100)))
    neg("neg-bnb002-two-states", "BNB-002", f"a copy of {QS} also stored as bitsandbytes__fp4",
        t_edit=lambda t: t.update({QS.replace("nf4", "fp4"): t[QS].clone()}))
    neg("neg-bnb002-offset-missing", "BNB-002", "quant state JSON nested_offset set to null",
        t_edit=lambda t: set_state(t, lambda d: d.update(nested_offset=None)))
    neg("neg-bnb003-absmax-short", "BNB-003", f"{A}.weight.absmax without its last element",
        t_edit=lambda t: t.update({f"{A}.weight.absmax": t[f"{A}.weight.absmax"][:-1].clone()}))
    neg("neg-bnb003-nested-missing", "BNB-003", f"{A}.weight.nested_absmax removed",
        t_edit=lambda t: t.pop(f"{A}.weight.nested_absmax"))
    neg("neg-bnb003-per-row-shape", "BNB-003", "quant state JSON shape [6, 72] (the packed weight holds 6 x 70)",
        t_edit=lambda t: set_state(t, lambda d: d.update(shape=[6, 72])))

    def map_edit(t):
        t[f"{A}.weight.quant_map"][3] += 0.01
    neg("neg-bnb004-quant-map", "BNB-004", f"{A}.weight.quant_map[3] + 0.01", t_edit=map_edit)

    def nan_nested(t):
        t[f"{A}.weight.nested_absmax"][0] = float("nan")
    neg("neg-bnb005-nested-nan", "BNB-005", f"{A}.weight.nested_absmax[0] = NaN", t_edit=nan_nested)

    def nan_map(t):
        t[f"{A}.weight.nested_quant_map"][7] = float("inf")
    neg("neg-bnb005-nested-map-inf", "BNB-005", f"{A}.weight.nested_quant_map[7] = inf", t_edit=nan_map)


def equiv_dq(out):
    """The same bf16 weights quantized with and without double quantization: the codes agree (both
    come from the exact absmax), the weights do not (the block scales are 8-bit quantized)."""
    import bitsandbytes
    cfgs = {dq: {"model_type": "probe", "quantization_config": bnb_config("nf4", dq)} for dq in (False, True)}
    (ta, ma, _), (tb, mb, _) = probe_tensors("nf4", False, seed=21), probe_tensors("nf4", True, seed=21)
    files = {"source/model.safetensors": st_bytes(ta), "source/config.json": cfgs[False],
             "target/model.safetensors": st_bytes(tb), "target/config.json": cfgs[True]}
    out.case(FAMILY, "equiv-dq-vs-plain-differ", verdict="pass", input="source", layout=LAYOUT, rules=RULES, modules=ma,
             files=files, extra={"equiv": {"source": "source", "target": "target", "verdict": "differ", "rule": "EQ-003",
                                           "bug_class": None, "caught_by": "equiv (codes equal, block scales differ)",
                                           "target_modules": mb}},
             source=f"bitsandbytes {bitsandbytes.__version__} quantize_4bit(nf4) of the same bf16 tensors without (source) "
                    f"and with (target) compress_statistics")


def equiv_int4(out):
    """The seed's rule: NF4 cannot be converted to an integer format without requantizing. The same
    bf16 weights quantized by bitsandbytes (NF4, blocksize 64) and by compressed-tensors (int4
    symmetric, group 64: calculate_qparams of each group's min/max, PackedQuantizationCompressor);
    packcheck equiv reports BNB-007 (and then differing codes and weights)."""
    import torch
    import bitsandbytes
    import compressed_tensors
    from compressed_tensors.compressors.pack_quantized.base import PackedQuantizationCompressor
    from compressed_tensors.quantization.utils import calculate_qparams
    from pcgen.ct_common import config_json, library_pin, make_scheme, safetensors_bytes
    g = torch.Generator().manual_seed(41)
    w = (torch.randn(8, 128, generator=g) * 0.05).to(torch.bfloat16)
    m = "model.layers.0.mlp.down_proj"
    ta = module_tensors(m, w, "nf4", False, 64)
    ma = {m: pin_from_tensors(ta, m)}
    scheme = make_scheme(4, "group", group_size=64)
    grp = w.float().reshape(8, 2, 64)
    scale, _ = calculate_qparams(grp.amin(dim=-1).clamp(max=0), grp.amax(dim=-1).clamp(min=0), scheme.weights)
    tb = PackedQuantizationCompressor.compress({"weight": w.float(), "weight_scale": scale.to(torch.bfloat16)}, scheme)
    tb = {f"{m}.{k}": v.contiguous() for k, v in tb.items()}
    mb = {m: library_pin({k[len(m) + 1:]: v for k, v in tb.items()}, 4, "group", 64, None)}
    files = {"source/model.safetensors": st_bytes(ta),
             "source/config.json": {"model_type": "probe", "quantization_config": bnb_config("nf4", False)},
             "target/model.safetensors": safetensors_bytes(tb), "target/config.json": config_json({"group_0": scheme})}
    out.case(FAMILY, "equiv-nf4-vs-int4-differ", verdict="pass", input="source", layout=LAYOUT, rules=RULES, modules=ma,
             files=files, extra={"equiv": {"source": "source", "target": "target", "verdict": "differ", "rule": "BNB-007",
                                           "bug_class": None, "caught_by": "equiv (BNB-007: NF4 -> integer is a requantization)",
                                           "target_modules": mb}},
             source=f"the same bf16 [8, 128] weights: bitsandbytes {bitsandbytes.__version__} quantize_4bit(nf4, blocksize 64) "
                    f"(source) and compressed-tensors {compressed_tensors.__version__} int4 symmetric group 64 "
                    f"(calculate_qparams, PackedQuantizationCompressor.compress; target)")


# ---- LLM.int8 (8-bit) --------------------------------------------------------------------------
# Every byte from bitsandbytes on CPU: probes of bitsandbytes.functional.int8_vectorwise_quant (the
# default backend, threshold 0) saved as Linear8bitLt saves them, with and without weight_format, and a
# tiny llama through transformers BitsAndBytesConfig(load_in_8bit=True) + save_pretrained. Pins:
# int8_vectorwise_dequant (f32). Observed: an all-zero row gets SCB 0 and int8 codes 0
# (round(0 * 127 / 0) is NaN, which the int8 cast turns into 0 on this CPU), weights +0.0.
# Negatives change one thing of probe-int8 (named in each case's source), one per MUST rule.
LAYOUT8 = "bnb-int8"
RULES8 = ["BNB-008", "BNB-009", "BNB-010", "BNB-011", "BNB-012"]
SHAPES8 = (("a", (6, 70)), ("b", (5, 33)), ("c", (3, 300)), ("d", (120, 160)))


def int8_bnb_config():
    from transformers import BitsAndBytesConfig
    return BitsAndBytesConfig(load_in_8bit=True)


def int8_config():
    return int8_bnb_config().to_dict()


def int8_pin(tensors, m):
    """codes = the stored int8 + 128 (CONTRACT 3, the ct-int8 view); weights = bitsandbytes'
    int8_vectorwise_dequant (the "default" kernel in _ops.py: A * SCB.view(-1, 1) * 7.874015718698502e-3;
    the CPU backend registers none of its own), f32."""
    import numpy as np
    import bitsandbytes.functional as F
    q, scb = tensors[f"{m}.weight"], tensors[f"{m}.SCB"]
    w = F.int8_vectorwise_dequant(q, scb).numpy().astype("<f4").reshape(-1)
    codes = (q.numpy().astype(np.int16).reshape(-1) + 128).astype(np.uint8)
    return module_pin(list(q.shape), 8, codes.tobytes(), w.tobytes())


def int8_probe_tensors(fmt=True):
    """int8_vectorwise_quant (threshold 0: no outliers held back) of seeded fp16 weights, serialized
    as Linear8bitLt's _save_to_state_dict writes them: M.weight I8, M.SCB F32, M.weight_format U8 0.
    Row 1 of probe.a is all zero (SCB 0) and probe.b's rows mix signs and a -0.0."""
    import torch
    import bitsandbytes.functional as F
    g = torch.Generator().manual_seed(51)
    t = {}
    for name, shape in SHAPES8:
        w = (torch.randn(*shape, generator=g) * 3).to(torch.float16)
        if name == "a":
            w[1] = 0.0
        if name == "b":
            w[0, 3] = -0.0
        q, scb, _ = F.int8_vectorwise_quant(w.clone())
        m = f"probe.{name}"
        t[f"{m}.weight"], t[f"{m}.SCB"] = q, scb
        if fmt:
            t[f"{m}.weight_format"] = torch.tensor(0, dtype=torch.uint8)
    return t


def int8_probes(out):
    import bitsandbytes
    made = None
    for fmt in (True, False):
        t = int8_probe_tensors(fmt)
        cfg = {"model_type": "probe", "quantization_config": int8_config()}
        mods = {f"probe.{n}": int8_pin(t, f"probe.{n}") for n, _ in SHAPES8}
        out.case(FAMILY, "probe-int8" if fmt else "probe-int8-no-weight-format", verdict="pass", layout=LAYOUT8, rules=RULES8,
                 modules=mods, files={"model.safetensors": st_bytes(t), "config.json": cfg},
                 source=f"bitsandbytes {bitsandbytes.__version__} int8_vectorwise_quant of fp16 "
                        f"{', '.join(str(s) for _, s in SHAPES8)} (probe.a row 1 all zero)"
                        f"{', with' if fmt else ', without'} weight_format; pins: int8_vectorwise_dequant (default kernel, f32)")
        if fmt:
            made = (t, cfg)
    return made


def int8_model(out):
    import tempfile
    import shutil
    import torch
    import bitsandbytes
    import transformers
    from transformers import LlamaConfig, LlamaForCausalLM
    torch.manual_seed(3)
    cfg = LlamaConfig(vocab_size=64, hidden_size=64, intermediate_size=128, num_hidden_layers=1, num_attention_heads=2,
                      num_key_value_heads=2, max_position_embeddings=16, tie_word_embeddings=False)
    d = tempfile.mkdtemp(prefix="pcgen-bnb8-")
    try:
        LlamaForCausalLM(cfg).to(torch.bfloat16).save_pretrained(d + "/src")
        qm = LlamaForCausalLM.from_pretrained(d + "/src", quantization_config=int8_bnb_config(), device_map="cpu",
                                              dtype=torch.bfloat16)
        qm.save_pretrained(d + "/q")
        files = {}
        for n in ("config.json", "model.safetensors"):
            with open(os.path.join(d, "q", n), "rb") as f:
                files[n] = f.read()
    finally:
        shutil.rmtree(d)
    t = st_load(files["model.safetensors"])
    mods = {k[:-len(".SCB")]: None for k in t if k.endswith(".SCB")}
    mods = {m: int8_pin(t, m) for m in sorted(mods)}
    out.case(FAMILY, "model-int8", verdict="pass", layout=LAYOUT8, rules=RULES8, modules=mods, files=files,
             source=f"transformers {transformers.__version__} + bitsandbytes {bitsandbytes.__version__} (CPU): a tiny bf16 "
                    f"llama from_pretrained with BitsAndBytesConfig(load_in_8bit=True), save_pretrained; "
                    f"pins: int8_vectorwise_dequant (default kernel, f32)")


def int8_negatives(out, base):
    import torch
    import bitsandbytes
    tensors0, cfg0 = base
    A = "probe.a"

    def neg(name, rule, what, t_edit=None, cfg_edit=None):
        edited_case(out, base, name, rule, LAYOUT8, f"bitsandbytes {bitsandbytes.__version__} probe-int8 "
                    f"(int8_vectorwise_quant)", what, t_edit, cfg_edit)

    def setv(key, idx, v):
        def f(t):
            t[key][idx] = v
        return f

    neg("neg-bnb008-no-config", "BNB-008", "config.json without quantization_config", cfg_edit=lambda c: c.pop("quantization_config"))
    neg("neg-bnb008-not-8bit", "BNB-008", "quantization_config load_in_8bit false",
        cfg_edit=lambda c: c["quantization_config"].update(load_in_8bit=False))
    neg("neg-bnb009-weight-u8", "BNB-009", f"{A}.weight stored as U8 (the same bytes)",
        t_edit=lambda t: t.update({f"{A}.weight": t[f"{A}.weight"].view(torch.uint8).clone()}))
    neg("neg-bnb009-weight-missing", "BNB-009", f"{A}.weight removed", t_edit=lambda t: t.pop(f"{A}.weight"))
    neg("neg-bnb010-scb-short", "BNB-010", f"{A}.SCB without its last element",
        t_edit=lambda t: t.update({f"{A}.SCB": t[f"{A}.SCB"][:-1].clone()}))
    neg("neg-bnb010-scb-f16", "BNB-010", f"{A}.SCB stored as F16",
        t_edit=lambda t: t.update({f"{A}.SCB": t[f"{A}.SCB"].to(torch.float16)}))
    neg("neg-bnb011-scb-nan", "BNB-011", f"{A}.SCB[2] = NaN", t_edit=setv(f"{A}.SCB", 2, float("nan")))
    neg("neg-bnb011-scb-negative", "BNB-011", f"{A}.SCB[0] negated",
        t_edit=lambda t: t[f"{A}.SCB"].__setitem__(0, -t[f"{A}.SCB"][0]))
    neg("neg-bnb012-col32", "BNB-012", f"{A}.weight_format = 1 (col32)",
        t_edit=lambda t: t.update({f"{A}.weight_format": torch.tensor(1, dtype=torch.uint8)}))


def _generate(out):
    made = probes(out)
    row_tail(out)
    models(out)
    negatives(out, made["probe-nf4-dq"])
    equiv_dq(out)
    equiv_int4(out)
    base8 = int8_probes(out)
    int8_model(out)
    int8_negatives(out, base8)


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from pcgen.venv import venv_main
    venv_main(_generate)
