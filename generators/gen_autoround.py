"""AutoRound native model folders (family autoround/, rules AR and the GPTQ / AWQ rules they pack by).

Venv: autoround (generators/requirements-autoround.txt: auto-round 0.16.1 with --no-deps plus its
py-cpuinfo / accelerate / datasets; torch 2.15.0 and transformers 5.25.0 shared from the peers venv
through a .pth file). The path comes from PCGEN_VENV_AUTOROUND, default /work/venvs/autoround; from any
other interpreter this module re-runs itself there.

The model is a one-layer LlamaForCausalLM built from a config (no download; torch seed 0, bf16):
hidden 192, three heads of 64 with one KV head (q/o_proj 192 x 192, k/v_proj [64, 192]),
intermediate 320, vocab 128, untied lm_head; a 128-word WordLevel tokenizer built here. AutoRound
runs in RTN mode on the CPU (iters=0, disable_opt_rtn=True: no calibration data) and
quantize_and_save writes the folder (config.json, quantization_config.json, model.safetensors,
generation_config.json, tokenizer files) that is stored whole.

Pins (CONTRACT 3): codes = the stored fields as auto-round's own QuantLinear.forward extracts them
(auto_round_extension/torch/qlinear_torch(_zp).py: shifts of wf down qweight's rows, the 3-bit word
triples, qzeros along the row), transposed to [N, K]; weights w = f32(q - z) * f32(scale) with
z = stored + 1 for auto_round:auto_gptq (its forward's `zeros += 1`), z = stored otherwise; the
group of column k is k // group_size. AWQ GEMM (auto_round:auto_awq): AutoAWQ's order map
[0, 2, 4, 6, 1, 3, 5, 7] of its WQLinear_GEMM pack (export/export_to_awq/utils.py), w as above
with z = stored. `library_check` records what auto-round's own torch QuantLinear.forward gives
(its float16 weights, output of an identity input) against the pin rounded to float16.
"""
import json
import os
import shutil
import sys
import tempfile

from pcgen.corpus import folder_files, module_pin
from pcgen.venv import here_or_in_venv, venv_main

FAMILY = "autoround"
VENV = os.environ.get("PCGEN_VENV_AUTOROUND", "/work/venvs/autoround")
L0 = "model.layers.0"
GPTQ_RULES = ["AR-001", "AR-002", "AR-003", "AR-004", "GPTQ-004", "GPTQ-005", "GPTQ-006", "GPTQ-010", "GPTQ-012"]
AWQ_RULES = ["AR-001", "AR-002", "AR-003", "AR-004", "AWQ-001", "AWQ-005"]


def generate(out):
    return here_or_in_venv(__file__, VENV, out, "auto-round", ("auto_round",), _generate)


def tiny_llama():
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast
    torch.manual_seed(0)
    cfg = LlamaConfig(hidden_size=192, intermediate_size=320, num_hidden_layers=1, num_attention_heads=3,
                      num_key_value_heads=1, head_dim=64, vocab_size=128, tie_word_embeddings=False)
    model = LlamaForCausalLM(cfg).to(torch.bfloat16)
    vocab = {f"w{i}": i for i in range(126)}
    vocab.update({"<unk>": 126, "<s>": 127})
    tk = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tk.pre_tokenizer = pre_tokenizers.Whitespace()
    tok = PreTrainedTokenizerFast(tokenizer_object=tk, unk_token="<unk>", bos_token="<s>", eos_token="<s>", pad_token="<unk>")
    return model, tok


def quantize(outd, fmt, **kw):
    """AutoRound RTN on the CPU; returns the folder quantize_and_save wrote."""
    from auto_round import AutoRound
    model, tok = tiny_llama()
    ar = AutoRound(model, tok, iters=0, disable_opt_rtn=True, nsamples=1, seqlen=8, **kw)
    ar.quantize_and_save(outd, format=fmt)
    (sub,) = [os.path.join(outd, d) for d in os.listdir(outd)]
    return sub



# ---------------------------------------------------------------- unpacking (auto-round's own field order)

def stream_fields(words, bits, count):
    """Fields of LSB-first bit streams: words [W, C] uint32, each column one stream down the rows; [count, C]."""
    import numpy as np
    w = words.astype(np.uint64)
    out = np.zeros((count, words.shape[1]), dtype=np.int64)
    mask = (1 << bits) - 1
    for i in range(count):
        pos = i * bits
        q, r = divmod(pos, 32)
        v = w[q] >> np.uint64(r)
        if r + bits > 32:
            v = v | (w[q + 1] << np.uint64(32 - r))
        out[i] = (v & np.uint64(mask)).astype(np.int64)
    return out


def awq_fields(words, count):
    """AutoAWQ GEMM: 8 nibbles per int32 along the row, slot j holding element AWQ_ORDER[j]; [R, count]."""
    import numpy as np
    order = [0, 2, 4, 6, 1, 3, 5, 7]
    w = words.astype(np.uint64)
    out = np.zeros((words.shape[0], count), dtype=np.int64)
    for j, e in enumerate(order):
        out[:, e::8] = ((w >> np.uint64(4 * j)) & np.uint64(15)).astype(np.int64)
    return out


def layer_extra(ec, m, tensors):
    """The loader's pick (inference/utils.py _expand_regex_config): the exact name, else the first
    non-empty key, not itself a layer name, that re.search finds in the name."""
    import re
    if m in ec:
        return ec[m]
    for k, v in ec.items():
        if f"{k}.qweight" in tensors or f"{k}.weight" in tensors or not v:
            continue
        if re.search(k, m):
            return v
    return {}


def pins_of(folder, packing, qcfg):
    """Codes, weights and the library's own dequantization per quantized module of the folder."""
    import numpy as np
    import torch
    from safetensors.torch import load_file
    t = {k: (v.numpy() if v.dtype != torch.bfloat16 else None) for k, v in load_file(os.path.join(folder, "model.safetensors")).items()}
    pins, checks = {}, {}
    for name in sorted(k for k in t if k.endswith(".qweight")):
        m = name[:-len(".qweight")]
        extra = layer_extra(qcfg.get("extra_config", {}), m, t)
        bits, gs = extra.get("bits", qcfg["bits"]), extra.get("group_size", qcfg["group_size"])
        qw, qz, sc = t[m + ".qweight"].view(np.uint32), t[m + ".qzeros"].view(np.uint32), t[m + ".scales"]
        if packing == "auto_round:auto_awq":
            K, N = qw.shape[0], qw.shape[1] * 8
            q = awq_fields(qw, N)                      # [K, N]
            z = awq_fields(qz, N)                      # [G, N]
        else:
            N = qw.shape[1]
            K = qw.shape[0] * 32 // bits
            q = stream_fields(qw, bits, K)             # [K, N]
            z = stream_fields(qz.T.copy(), bits, N).T  # [G, N]
            if packing == "auto_round:auto_gptq":
                z = z + 1
        gs = K if gs == -1 else gs
        g = np.arange(K) // gs
        w = (q - z[g]).astype(np.float32) * sc[g].astype(np.float32)   # [K, N], one f32 rounding (exact here)
        codes = np.ascontiguousarray(q.T.astype(np.uint8))
        weight = np.ascontiguousarray(w.T).astype("<f4")
        pins[m] = module_pin([N, K], bits, codes.tobytes(), weight.tobytes())
        checks[m] = library_check(packing, bits, gs, K, N, t, m, torch.from_numpy(weight))
    return pins, checks


def library_check(packing, bits, gs, K, N, t, m, pin):
    """auto-round's torch QuantLinear.forward on an identity input: its float16 weights [K, N]."""
    import torch
    if packing == "auto_round:auto_awq":
        return {"library": "none on the CPU (auto_round:auto_awq loads through AutoAWQ / gptqmodel kernels)"}
    if packing == "auto_round:auto_gptq":
        from auto_round_extension.torch.qlinear_torch_zp import QuantLinear
    else:
        from auto_round_extension.torch.qlinear_torch import QuantLinear
    lay = QuantLinear(bits, gs, K, N, bias=False)
    for k in ("qweight", "qzeros", "scales"):
        setattr(lay, k, torch.from_numpy(t[f"{m}.{k}"].copy()))
    lib = QuantLinear.__module__ + ".QuantLinear.forward (float16)"
    try:
        with torch.no_grad():
            got = lay(torch.eye(K, dtype=torch.float16))
    except RuntimeError as e:
        return {"library": lib, "error": str(e).splitlines()[0][:200]}
    want = pin.T.half()
    return {"library": lib, "elements": int(want.numel()), "library_of_contract_differs": int((got != want).sum())}


def qconfig(folder):
    with open(os.path.join(folder, "quantization_config.json")) as f:
        return json.load(f)


# ---------------------------------------------------------------- cases

BASE_LAYERS = {f"{L0}.mlp.down_proj": {"bits": 8}, f"{L0}.self_attn.k_proj": {"bits": 2, "group_size": 32},
               f"{L0}.self_attn.o_proj": {"bits": 3}}
CASES = [
    ("ar-int4-sym-mixed", "auto_round", GPTQ_RULES,
     dict(bits=4, group_size=128, sym=True, layer_config=BASE_LAYERS),
     "W4 g128 sym (K = 192: the last group holds 64 columns); extra_config: down_proj 8-bit, k_proj 2-bit g32, "
     "o_proj 3-bit; packing_format auto_round:auto_gptq (export.py moves sym schemes there)"),
    ("ar-int4-asym-mixed", "auto_round", GPTQ_RULES,
     dict(bits=4, group_size=128, sym=False, layer_config=dict(BASE_LAYERS, **{f"{L0}.self_attn.v_proj": {"bits": 16},
                                                                              "mlp.up": {"bits": 8}})),
     "W4 g128 asym, packing_format auto_round (zero stored as is); extra_config: down_proj 8-bit, k_proj 2-bit g32, "
     "o_proj 3-bit, v_proj kept 16-bit, pattern mlp.up 8-bit"),
    ("ar-awq-w4g64", "auto_round:auto_awq", AWQ_RULES,
     dict(bits=4, group_size=64, sym=False, layer_config={f"{L0}.self_attn.k_proj": {"group_size": 32}}),
     "W4 g64 asym, packing_format auto_round:auto_awq (its AWQ packer refuses K not a multiple of the group: "
     "\"in_features (192) shape mismatch\" at g128); extra_config: k_proj g32"),
]


# What auto-round writes when layer_config names lm_head without quant_lm_head=True: extra_config says
# lm_head is 4-bit (export.py writes every out-of-block layer of <= 8 bits), the tensor stays bf16.
LM_HEAD_UNPACKED = ("ar-lm-head-in-config-not-packed", "auto_round",
                    dict(bits=4, group_size=128, sym=True, layer_config={"lm_head": {"bits": 4}}),
                    "layer_config lm_head 4-bit: extra_config pins lm_head to 4 bits, lm_head.weight is saved bf16 "
                    "(RTN mode leaves lm_head unquantized, quant_lm_head=True too; a loader builds a quantized lm_head "
                    "and finds no qweight)")


def _generate(out):
    import auto_round
    import torch
    import transformers
    ver = (f"auto-round {auto_round.__version__}, transformers {transformers.__version__}, torch "
           f"{torch.__version__.split('+')[0]}: AutoRound(iters=0, disable_opt_rtn=True) on the CPU, quantize_and_save")
    tmp = tempfile.mkdtemp(prefix="pcgen-autoround-")
    try:
        folders = {}
        for name, fmt, rules, kw, what in CASES:
            d = quantize(os.path.join(tmp, name), fmt, **kw)
            qc = qconfig(d)
            pins, checks = pins_of(d, qc["packing_format"], qc)
            layout = {"auto_round:auto_gptq": "autoround-gptq-v1", "auto_round": "autoround-gptq-v2",
                      "auto_round:auto_awq": "autoround-awq"}[qc["packing_format"]]
            out.case(FAMILY, name, verdict="pass", layout=layout, rules=rules, modules=pins, files=folder_files(d),
                     source=f"{ver}(format=\"{fmt}\"). {what}", extra={"library_check": checks})
            folders[name] = folder_files(d)
        name, fmt, kw, what = LM_HEAD_UNPACKED
        d = quantize(os.path.join(tmp, name), fmt, **kw)
        out.case(FAMILY, name, verdict="reject", reject_rule="AR-004", files=folder_files(d),
                 source=f"{ver}(format=\"{fmt}\"). {what}")
        negatives(out, folders, ver)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def negatives(out, folders, ver):
    base = "ar-int4-sym-mixed"

    def case(name, rule, edit, what, src=base):
        files = dict(folders[src])
        for fn in ("config.json", "quantization_config.json"):
            c = json.loads(files[fn])
            q = c.get("quantization_config", c) if fn == "config.json" else c
            edit(q)
            files[fn] = (json.dumps(c, indent=2, sort_keys=True) + "\n").encode()
        out.case(FAMILY, name, verdict="reject", reject_rule=rule, files=files,
                 source=f"{ver}: the {src} folder with one edit in config.json and quantization_config.json: {what}")

    def setk(k, v):
        return lambda q: q.__setitem__(k, v)

    def extra(layer, v):
        return lambda q: q["extra_config"].__setitem__(layer, v)

    case("neg-ar001-packing-not-string", "AR-001", setk("packing_format", 7), "packing_format 7")
    case("neg-ar001-data-type-float", "AR-001", setk("data_type", "fp"), "data_type \"fp\" under the GPTQ packing")
    case("neg-ar002-bits-string", "AR-002", setk("bits", "4"), "bits \"4\" (a string)")
    case("neg-ar003-packed-layer-kept-16", "AR-003", extra(f"{L0}.self_attn.q_proj", {"bits": 16}),
         "extra_config keeps q_proj at 16 bits, but q_proj is stored packed")
    case("neg-gptq012-ar-sym-labelled-auto-round", "GPTQ-012", setk("packing_format", "auto_round"),
         "packing_format auto_round (zero stored as is) on the auto_round:auto_gptq bytes (zero - 1): every weight one step off")


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    venv_main(_generate)
