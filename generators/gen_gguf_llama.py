"""Real llama-quantize files (family llama). Venv: requirements-ct.txt (torch, transformers, gguf 0.19.0)
plus a cached llama.cpp build (never in CI).

A tiny llama model (transformers LlamaForCausalLM, random weights under torch.manual_seed(0): hidden 256,
so every K-quant's 256-element super-block fits a row; one layer; GQA 4/1 heads; vocab 288) and a tiny
Mixtral-style MoE of the same size (MixtralForCausalLM, 2 experts: MXFP4_MOE only quantizes expert
tensors) are written as F32 GGUF with gguf-py's GGUFWriter under llama.cpp's own tensor names
(gguf.get_tensor_name_map) and key names (GGUFWriter.add_*), q/k permuted as convert_hf_to_gguf.py's
LlamaModel.permute does (the layout docs/gguf.md gives for llama), and a SentencePiece-style vocabulary
(<unk> <s> </s>, the 256 byte tokens <0xXX>, 29 word pieces) so llama.cpp can load and generate.
llama-quantize (the llama.cpp vendored in llama-cpp-python 0.3.36; path from PCGEN_LLAMA_QUANTIZE,
default /work/cache/llama/build/bin/llama-quantize) then writes each of Q4_0, Q4_1, Q5_K_M, Q4_K_M,
Q6_K, Q8_0, IQ4_XS (no importance matrix: llama-quantize needs one only for IQ1/IQ2 types) and
MXFP4_MOE, with its own per-tensor type choices (output.weight Q6_K, attn_v / ffn_down bumped, norms
F32, ...), one thread (-t 1 is not needed for determinism: every row is quantized independently).

Pins: each quantized tensor's f32 is ggml's C reference dequantize (ggml_get_type_traits(type)->to_float,
ggml-base's dequantize_row_<type>, compiled without -march: generators/llama/ggml_dequant.c, built here
against the cached libggml-base.a) and must equal gguf-py's gguf.quants.dequantize bit for bit (asserted,
NaN payloads included); codes come from gen_gguf's views (gguf-py with neutral scales).

Without the binary (CI): NeedsVenv, so regen.py prints SKIPPED and leaves fixtures/llama/ alone.
"""
import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from pcgen.venv import NeedsVenv  # noqa: E402

LLAMA_BUILD = os.environ.get("PCGEN_LLAMA_BUILD", "/work/cache/llama/build")
QUANTIZE = os.environ.get("PCGEN_LLAMA_QUANTIZE", os.path.join(LLAMA_BUILD, "bin", "llama-quantize"))
LLAMA_SRC = os.environ.get("PCGEN_LLAMA_SRC", "/work/cache/llama/llama_cpp_python-0.3.36/vendor/llama.cpp")
LLAMA_VERSION = "llama.cpp vendored in llama-cpp-python 0.3.36 (ggml 0.25.3)"

# llama-quantize type names, and the case each becomes
FTYPES = ("Q4_0", "Q4_1", "Q5_K_M", "Q4_K_M", "Q6_K", "Q8_0", "IQ4_XS")
MOE_FTYPES = ("MXFP4_MOE",)
# Grid i-quant ftypes: llama-quantize refuses the IQ1/IQ2 ones without an importance matrix (IQ2_M is
# the ftype whose default tensor type is IQ2_S; the IQ2_S ftype writes IQ2_XS), and IQ3_XXS too (on this
# model it puts IQ2_S on some tensors); IQ3_S needs none.
IMATRIX_FTYPES = ("IQ2_XXS", "IQ2_XS", "IQ2_M", "IQ1_S", "IQ1_M", "IQ3_XXS")
GRID_FTYPES = IMATRIX_FTYPES + ("IQ3_S",)
IMATRIX = os.environ.get("PCGEN_LLAMA_IMATRIX", os.path.join(LLAMA_BUILD, "bin", "llama-imatrix"))


def _tools():
    lib = os.path.join(LLAMA_BUILD, "ggml", "src", "libggml-base.a")
    inc = os.path.join(LLAMA_SRC, "ggml", "include")
    for p, what in ((QUANTIZE, "llama-quantize"), (IMATRIX, "llama-imatrix"), (lib, "libggml-base.a"), (inc, "ggml headers")):
        if not os.path.exists(p):
            raise NeedsVenv(f"gen_gguf_llama needs a llama.cpp build ({what}): nothing at {p} "
                            f"(set PCGEN_LLAMA_BUILD / PCGEN_LLAMA_QUANTIZE / PCGEN_LLAMA_SRC)")
    return lib, inc


def build_dequant(work, lib, inc):
    exe = os.path.join(work, "ggml_dequant")
    subprocess.run(["cc", "-O1", "-I", inc, os.path.join(HERE, "llama", "ggml_dequant.c"), lib,
                    "-lm", "-lstdc++", "-lpthread", "-fopenmp", "-o", exe], check=True)
    return exe


# ---------------------------------------------------------------------------------------------
# the tiny models

VOCAB_WORDS = ["\u2581" + w for w in ("the", "a", "is", "of", "and", "to", "in", "it", "on", "at", "be",
                                      "we", "he", "my", "no", "so", "do", "go", "up", "an", "or", "as",
                                      "by", "if", "me", "us", "hi", "ok", "model")]


def vocab():
    toks = ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)] + VOCAB_WORDS
    assert len(toks) == 288
    scores = [0.0] * 259 + [-float(i) for i in range(len(VOCAB_WORDS))]
    types = [2, 3, 3] + [6] * 256 + [1] * len(VOCAB_WORDS)  # UNKNOWN, CONTROL, BYTE, NORMAL (llama_vocab)
    return toks, scores, types


def permute(w, n_head):
    """convert_hf_to_gguf.py LlamaModel.permute (docs/gguf.md, llama tensor_data_layout): rope's
    interleaved halves as llama.cpp's rope expects them."""
    return w.reshape(n_head, 2, w.shape[0] // n_head // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def hf_models():
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM, MixtralConfig, MixtralForCausalLM
    common = dict(vocab_size=288, hidden_size=256, intermediate_size=256, num_hidden_layers=1,
                  num_attention_heads=4, num_key_value_heads=1, max_position_embeddings=128, rms_norm_eps=1e-5)
    torch.manual_seed(0)
    dense = LlamaForCausalLM(LlamaConfig(tie_word_embeddings=False, **common))
    torch.manual_seed(1)
    moe = MixtralForCausalLM(MixtralConfig(num_local_experts=2, num_experts_per_tok=1, **common))
    return dense, moe, common


def write_f32_gguf(path, model, cfg, moe):
    import gguf
    import numpy as np
    sd = {k: v.detach().float().numpy() for k, v in model.state_dict().items()}
    tm = gguf.get_tensor_name_map(gguf.MODEL_ARCH.LLAMA, cfg["num_hidden_layers"])
    w = gguf.GGUFWriter(path, "llama")
    w.add_name("packcheck-tiny-moe" if moe else "packcheck-tiny-llama")
    w.add_context_length(cfg["max_position_embeddings"])
    w.add_embedding_length(cfg["hidden_size"])
    w.add_block_count(cfg["num_hidden_layers"])
    w.add_feed_forward_length(cfg["intermediate_size"])
    w.add_rope_dimension_count(cfg["hidden_size"] // cfg["num_attention_heads"])
    w.add_head_count(cfg["num_attention_heads"])
    w.add_head_count_kv(cfg["num_key_value_heads"])
    w.add_layer_norm_rms_eps(cfg["rms_norm_eps"])
    w.add_vocab_size(cfg["vocab_size"])
    if moe:
        w.add_expert_count(2)
        w.add_expert_used_count(1)
    w.add_file_type(gguf.LlamaFileType.ALL_F32)
    toks, scores, types = vocab()
    w.add_tokenizer_model("llama")
    w.add_tokenizer_pre("default")
    w.add_token_list(toks)
    w.add_token_scores(scores)
    w.add_token_types(types)
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    w.add_unk_token_id(0)
    nh, nkv = cfg["num_attention_heads"], cfg["num_key_value_heads"]
    for k, v in sd.items():
        if k.endswith("experts.gate_up_proj"):  # transformers 5 fuses [E, 2*ff, hidden]: gate first
            ff = v.shape[1] // 2
            base = k.replace("mlp.experts.gate_up_proj", "")
            layer = base.split(".")[2]
            w.add_tensor(f"blk.{layer}.ffn_gate_exps.weight", np.ascontiguousarray(v[:, :ff]))
            w.add_tensor(f"blk.{layer}.ffn_up_exps.weight", np.ascontiguousarray(v[:, ff:]))
            continue
        if k.endswith("experts.down_proj"):
            w.add_tensor(f"blk.{k.split('.')[2]}.ffn_down_exps.weight", np.ascontiguousarray(v))
            continue
        if k.endswith("mlp.gate.weight"):  # the router
            w.add_tensor(f"blk.{k.split('.')[2]}.ffn_gate_inp.weight", v)
            continue
        name = tm.get_name(k, try_suffixes=(".weight", ".bias"))
        assert name, k
        if k.endswith("q_proj.weight"):
            v = permute(v, nh)
        elif k.endswith("k_proj.weight"):
            v = permute(v, nkv)
        w.add_tensor(name, np.ascontiguousarray(v))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def tiny_text():
    """The importance matrix's calibration text: 600 words drawn by random.Random(0) from one sentence."""
    import random
    words = "the quick brown fox jumps over a lazy dog and runs far away into the green wood where birds sing".split()
    rnd = random.Random(0)
    return " ".join(rnd.choice(words) for _ in range(600)) + "\n"


def make_imatrix(model, work):
    """llama-imatrix over tiny_text() on the F32 model, 64-token chunks, one thread, no perplexity."""
    txt, dst = os.path.join(work, "calib.txt"), os.path.join(work, "imatrix.gguf")
    with open(txt, "w") as f:
        f.write(tiny_text())
    # relative names, run in work: the imatrix (and the quantized files' quantize.imatrix.* keys) record
    # the paths they were given, and work is a fresh temporary folder each run
    r = subprocess.run(["nice", IMATRIX, "-m", model, "-f", "calib.txt", "-o", "imatrix.gguf", "-c", "64", "-t", "1", "--no-ppl"],
                       capture_output=True, text=True, cwd=work)
    if r.returncode or not os.path.exists(dst):
        sys.stderr.write(r.stdout + r.stderr)
        raise RuntimeError("llama-imatrix failed")
    return dst


def quantize(src, dst, ftype, imatrix=None):
    r = subprocess.run(["nice", QUANTIZE] + (["--imatrix", os.path.basename(imatrix)] if imatrix else []) + [src, dst, ftype, "1"],
                       capture_output=True, text=True, cwd=os.path.dirname(imatrix) if imatrix else None)
    if r.returncode:
        sys.stderr.write(r.stdout + r.stderr)
        raise RuntimeError(f"llama-quantize {ftype} failed")
    return r.stdout + r.stderr


# ---------------------------------------------------------------------------------------------
# pins: ggml's C reference against gguf-py

def reference_f32(exe, path, work):
    out = os.path.join(work, "deq")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    r = subprocess.run([exe, path, out], capture_output=True, text=True, check=True)
    rows = {}
    for line in r.stdout.splitlines():
        i, typ, tname, n0, n1, n2, n3, name = line.split(" ", 7)
        f = os.path.join(out, f"{i}.f32")
        data = open(f, "rb").read() if os.path.exists(f) else None
        rows[name] = (int(typ), tname, [int(n0), int(n1), int(n2), int(n3)], data)
    return rows


def pins_checked(path, exe, work):
    """gen_gguf.pins (gguf-py) for every decoded type, with each weight hash checked against ggml's
    C reference; returns (modules, per-tensor type table, comparison notes)."""
    import gguf
    import numpy as np
    from gen_gguf import pins
    from pcgen.corpus import sha256_bytes
    data = open(path, "rb").read()
    mods = pins(data)
    ref = reference_f32(exe, path, work)
    r = gguf.GGUFReader(path)
    types, agree = {}, []
    for t in r.tensors:
        typ, tname, ne, cref = ref[t.name]
        assert typ == int(t.tensor_type), t.name
        types[t.name] = tname.upper() if tname.startswith(("q", "iq", "mxfp", "tq")) else tname.upper()
        if cref is None:
            continue
        py = gguf.quants.dequantize(np.array(t.data), t.tensor_type).astype("<f4").tobytes()
        same = py == cref
        agree.append((t.name, tname, same))
        assert same, f"{path}: {t.name} ({tname}): gguf-py dequantize != ggml dequantize_row"
        prefix = t.name[:-len(".weight")] if t.name.endswith(".weight") and len(t.name) > 7 else t.name
        assert prefix in mods, f"{t.name} ({tname}) has no view in gen_gguf.pins"
        assert mods[prefix]["weight_f32_sha256"] == sha256_bytes(cref)
    return mods, types, agree


# ---------------------------------------------------------------------------------------------

# ggml 0.25.3's answer on the files behind the corrected GGUF rules (rules.json cites these cases). Each:
# (case, packcheck verdict, rule, ggml accepts?, why, bytes[, profile]): the strict verdict unless the case names
# its profile; a "-compat" twin carries the compat verdict where the profiles differ (GGUF-036/037: strict = the
# spec warns, compat = ggml refuses). The files are hand-built (pcgen.ggufbytes) or gguf-py's; the answer is
# llama-gguf's, asserted here so a different ggml shows up as a generator failure.
LLAMA_GGUF = os.environ.get("PCGEN_LLAMA_GGUF", os.path.join(LLAMA_BUILD, "bin", "llama-gguf"))


def ggml_answer(path):
    """llama-gguf FILE r n: gguf_init_from_file twice (metadata, then with data), GGML_ASSERT on failure."""
    r = subprocess.run([LLAMA_GGUF, path, "r", "n"], capture_output=True, text=True, timeout=60)
    lines = (r.stdout + r.stderr).splitlines()
    msg = [l.split(": ", 1)[1] for l in lines if l.startswith("gguf_init_from_reader: ")]
    names = [l.split("name = ", 1)[1].split(", size")[0] for l in lines if l.startswith("gguf_ex_read_0: tensor[")]
    return {"tool": f"llama-gguf FILE r n ({LLAMA_VERSION})", "accepts": r.returncode == 0,
            "exit": r.returncode, "message": msg[0] if msg else None, "tensor_names": names}


def gen_ggml_evidence(out, work):
    import numpy as np
    from gen_gguf import base_kvs, base_tensors, pins, write_with_gguf, q4
    from pcgen.ggufbytes import BOOL, U32, gguf_file, kv, tensor
    from gguf import GGMLQuantizationType as QT
    k, (q, f) = base_kvs(), base_tensors()
    k4 = [kv("general.alignment", U32, 4)] + [x for x in k if x[0] != "general.alignment"]
    k24 = [kv("general.alignment", U32, 24)] + [x for x in k if x[0] != "general.alignment"]
    be = write_with_gguf([("blk.0.attn_q.weight", q4(np.linspace(-1, 1, 64, dtype=np.float32).reshape(2, 32)), QT.Q4_0)],
                         big_endian=True)
    n64 = gguf_file(k, [dict(q, name="n" * 64), f])[0]
    a24 = gguf_file(k24, [q, f], align=24)[0]
    cases = [
        ("ggml-name-64", "pass", "GGUF-036", False, "a 64-byte tensor name (spec: at most 64, strict warns; ggml: at most 63)", n64),
        ("ggml-name-64-compat", "reject", "GGUF-036", False, "a 64-byte tensor name under compat (ggml: at most 63)", n64, "compat"),
        ("ggml-nul-alias", "reject", "GGUF-018", True,
         "tensors blk.0.attn_q.weight and blk.0.attn_q.weight NUL b: ggml keeps both, both named blk.0.attn_q.weight",
         gguf_file(k, [q, dict(q, name=q["name"] + "\0b")])[0]),
        ("ggml-name-empty", "pass", None, True, "an empty tensor name (the spec does not forbid it)",
         gguf_file(k, [q, dict(f, name="")])[0]),
        ("ggml-alignment-24", "pass", "GGUF-037", False,
         "alignment 24: a multiple of 8 (spec, strict warns) but not a power of two (ggml)", a24),
        ("ggml-alignment-24-compat", "reject", "GGUF-037", False, "alignment 24 under compat (ggml: not a power of two)", a24, "compat"),
        ("ggml-alignment-4", "reject", "GGUF-034", True, "alignment 4: a power of two (ggml) but not a multiple of 8 (spec)",
         gguf_file(k4, [q, f], align=4)[0]),
        ("ggml-bool-2", "reject", "GGUF-031", True, "a BOOL value of 2 (spec: invalid; ggml: true)",
         gguf_file(k + [kv("x.flag", BOOL, 2)], [q, f])[0]),
        ("ggml-big-endian", "reject", "GGUF-038", False,
         "gguf-py GGUFWriter endianess=BIG (spec: legal since v3; packcheck's LIMIT in strict, MUST in compat)", be),
        ("ggml-pad-wrap", "reject", "GGUF-024", False, "F32 [4, 2^30-1, 2^30+1, 1]: PAD(nbytes) wraps (d99724f accepted it)",
         gguf_file(k, [tensor("x", [4, (1 << 30) - 1, (1 << 30) + 1, 1], "F32", nbytes=(1 << 64) - 16, offset=0)])[0]),
        ("ggml-ne-product-wraps", "reject", "GGUF-021", False, "F32 ne = [2^32, 2^32] (d99724f accepted it)",
         gguf_file(k, [tensor("x", [1 << 32, 1 << 32], "F32", nbytes=0), f])[0]),
    ]
    # gguf-py refuses alignment 24: its pins are those of the same tensors at alignment 32 (same bytes).
    pin_from = {"ggml-alignment-24": gguf_file(k, [q, f])[0]}
    for name, verdict, rule, accepts, why, data, *prof in cases:
        path = os.path.join(work, name + ".gguf")
        with open(path, "wb") as fh:
            fh.write(data)
        ans = ggml_answer(path)
        assert ans["accepts"] == accepts, (name, ans)
        if name == "ggml-nul-alias":
            assert ans["tensor_names"] == [q["name"], q["name"]], ans
        kw = dict(reject_rule=rule) if verdict == "reject" else dict(modules=pins(pin_from.get(name, data)))
        out.case("llama", name, verdict=verdict, layout="gguf", files={"model.gguf": data}, input="model.gguf",
                 profile=prof[0] if prof else None,
                 source=f"{'gguf-py GGUFWriter' if name == 'ggml-big-endian' else 'hand-built bytes (pcgen.ggufbytes)'}: {why}",
                 rules=[rule or "GGUF-016"], extra={"ggml": ans}, **kw)


def gen_grid_probes(out, exe, work):
    """Random blocks of every grid i-quant (random bytes, sane fp16 d: gen_gguf.grid_probe_blocks), written
    by GGUFWriter and pinned by ggml's C dequantize, which gguf-py's dequantize must equal bit for bit."""
    import numpy as np
    from gen_gguf import GRID, grid_probe_blocks, write_with_gguf
    rng = np.random.default_rng(20261203)
    ts = [(f"probe.{qt.name.lower()}.weight", grid_probe_blocks(qt, 16, rng).reshape(2, 8 * GRID[qt][0]), qt) for qt in GRID]
    data = write_with_gguf(ts)
    path = os.path.join(work, "grid-probes.gguf")
    with open(path, "wb") as f:
        f.write(data)
    mods, types, agree = pins_checked(path, exe, work)
    out.case("llama", "grid-probes", verdict="pass", layout="gguf", files={"model.gguf": data}, input="model.gguf",
             source="gguf-py GGUFWriter: per grid type (IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S, IQ1_S, IQ1_M) a [2, 2048] tensor of "
                    "16 random blocks (numpy default_rng(20261203)) with fp16 d uniform in +-[0.25, 2) (IQ1_M: spread over its "
                    "scale words' top nibbles)",
             rules=["GQ-001", "GQ-002"], modules=mods,
             notes=f"f32 pins: ggml-base dequantize_row_<type> == gguf-py gguf.quants.dequantize bit for bit on all {len(agree)} tensors",
             extra={"tensor_types": types})


def generate(out):
    lib, inc = _tools()
    import gguf
    import torch
    work = tempfile.mkdtemp(prefix="gen-gguf-llama-")
    try:
        exe = build_dequant(work, lib, inc)
        gen_ggml_evidence(out, work)
        dense, moe, cfg = hf_models()
        srcs = {False: os.path.join(work, "tiny-f32.gguf"), True: os.path.join(work, "tiny-moe-f32.gguf")}
        write_f32_gguf(srcs[False], dense, cfg, False)
        write_f32_gguf(srcs[True], moe, cfg, True)
        summary = {}
        for ftype in FTYPES + MOE_FTYPES:
            is_moe = ftype in MOE_FTYPES
            dst = os.path.join(work, f"{ftype}.gguf")
            quantize(srcs[is_moe], dst, ftype)
            mods, types, agree = pins_checked(dst, exe, work)
            summary[ftype] = types
            name = ("moe-" if is_moe else "llama-") + ftype.lower().replace("_", "-")
            out.case("llama", name, verdict="pass", layout="gguf", files={"model.gguf": open(dst, "rb").read()},
                     input="model.gguf",
                     source=f"{LLAMA_VERSION}: llama-quantize {ftype} (no imatrix) of a tiny "
                            f"{'Mixtral-style MoE (MixtralForCausalLM, 2 experts, torch.manual_seed(1))' if is_moe else 'LlamaForCausalLM (torch.manual_seed(0))'} "
                            f"written F32 by gguf {importlib.metadata.version('gguf')} GGUFWriter (torch {torch.__version__})",
                     rules=["GGUF-001", "GGUF-027", "GQ-001", "GQ-002"], modules=mods,
                     notes=f"f32 pins: ggml-base dequantize_row_<type> (ggml_get_type_traits()->to_float) == gguf-py "
                           f"gguf.quants.dequantize bit for bit on all {len(agree)} quantized tensors",
                     extra={"tensor_types": types})
        imatrix = make_imatrix(srcs[False], work)
        for ftype in GRID_FTYPES:
            dst = os.path.join(work, f"{ftype}.gguf")
            im = imatrix if ftype in IMATRIX_FTYPES else None
            quantize(srcs[False], dst, ftype, im)
            mods, types, agree = pins_checked(dst, exe, work)
            summary[ftype] = types
            out.case("llama", "llama-" + ftype.lower().replace("_", "-"), verdict="pass", layout="gguf",
                     files={"model.gguf": open(dst, "rb").read()}, input="model.gguf",
                     source=f"{LLAMA_VERSION}: llama-quantize {ftype} "
                            f"{'--imatrix (llama-imatrix -c 64 -t 1 --no-ppl over gen_gguf_llama.tiny_text())' if im else '(no imatrix)'} "
                            f"of the tiny LlamaForCausalLM (torch.manual_seed(0)) written F32 by gguf "
                            f"{importlib.metadata.version('gguf')} GGUFWriter (torch {torch.__version__})",
                     rules=["GGUF-001", "GGUF-027", "GQ-001", "GQ-002"], modules=mods,
                     notes=f"f32 pins: ggml-base dequantize_row_<type> (ggml_get_type_traits()->to_float) == gguf-py "
                           f"gguf.quants.dequantize bit for bit on all {len(agree)} quantized tensors",
                     extra={"tensor_types": types})
        gen_grid_probes(out, exe, work)
        return summary
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    from pcgen.corpus import Corpus
    c = Corpus(sys.argv[1])
    print(json.dumps(generate(c), indent=1))
