"""GGUF NVFP4 (type 40), Q1_0 (41) and Q2_0 (42): real llama-quantize files, probes and hand-built negatives
(families llama and gguf).

Venv gguf-new: numpy 2.4.6 and the gguf-py of the llama.cpp vendored in llama-cpp-python 0.3.36
(pip install --no-deps vendor/llama.cpp/gguf-py; it reports 0.19.0, but unlike PyPI's gguf 0.19.0 it knows
Q2_0 and dequantizes NVFP4), plus the cached llama.cpp build gen_gguf_llama uses (llama-quantize,
libggml-base.a; paths from PCGEN_LLAMA_BUILD / PCGEN_LLAMA_QUANTIZE / PCGEN_LLAMA_SRC). Without them:
NeedsVenv, so regen.py prints SKIPPED and leaves these cases alone.

The tiny model is gen_gguf_llama's shape (hidden 256, one layer, GQA 4/1 heads, vocab 288, its
SentencePiece-style vocabulary) with weights drawn by numpy default_rng(20261204) (normal, std 0.02; norms
1), written F32 by GGUFWriter. llama-quantize then writes Q1_0 and Q2_0 (its ftypes), and NVFP4: ggml 0.25.3's
llama-quantize has no NVFP4 ftype (llama.cpp PR #26869, open), so the NVFP4 file is ftype Q8_0 with every
attention and FFN matrix overridden by --tensor-type attn=nvfp4 --tensor-type ffn=nvfp4 (quantize_nvfp4, the
reference quantizer ggml registers for the type).

Pins: each quantized tensor's f32 is ggml's C reference dequantize (generators/llama/ggml_dequant.c against
libggml-base.a: dequantize_row_nvfp4 / _q1_0 / _q2_0), which must equal this module's literal numpy decoding of
the block layout bit for bit, and for NVFP4 also gguf-py's gguf.quants.dequantize (gguf-py has no
dequantize for Q1_0 and Q2_0). Codes: NVFP4 the E2M1 nibble, Q1_0 the bit, Q2_0 the 2-bit q.
"""
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from pcgen.venv import NeedsVenv  # noqa: E402

NVFP4, Q1_0, Q2_0 = 40, 41, 42
GEOM = {NVFP4: (64, 36), Q1_0: (128, 18), Q2_0: (64, 18)}
BITS = {NVFP4: 4, Q1_0: 1, Q2_0: 2}
NAMES = {NVFP4: "NVFP4", Q1_0: "Q1_0", Q2_0: "Q2_0"}
KV_FP4 = (0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12)  # ggml-common.h kvalues_fp4 (E2M1 doubled)


def _env():
    try:
        import gguf
        from gguf.quants import NVFP4 as _nv  # noqa: F401
        assert int(gguf.GGMLQuantizationType.Q2_0) == Q2_0
    except Exception as e:  # PyPI's gguf 0.19.0 lacks them
        raise NeedsVenv(f"gen_gguf_newtypes needs the vendored gguf-py (Q2_0, NVFP4 dequantize): {e}")
    import gen_gguf_llama as gl
    lib = os.path.join(gl.LLAMA_BUILD, "ggml", "src", "libggml-base.a")
    inc = os.path.join(gl.LLAMA_SRC, "ggml", "include")
    for p, what in ((gl.QUANTIZE, "llama-quantize"), (lib, "libggml-base.a"), (inc, "ggml headers")):
        if not os.path.exists(p):
            raise NeedsVenv(f"gen_gguf_newtypes needs a llama.cpp build ({what}): nothing at {p}")
    return gl, lib, inc


# ---------------------------------------------------------------------------------------------
# literal decoding of the three layouts (ggml-common.h block_nvfp4 / block_q1_0 / block_q2_0)

def ue4m3_half(x):
    """ggml-impl.h ggml_ue4m3_to_fp32: 0 and 0x7F are 0; bits 3-6 exponent (bias 7), 0-2 mantissa, bit 7 ignored;
    the value halved (kvalues_fp4 holds E2M1 doubled)."""
    if x in (0, 0x7F):
        return 0.0
    e, m = (x >> 3) & 0xF, x & 7
    raw = math.ldexp(m, -9) if e == 0 else math.ldexp(1.0 + m / 8.0, e - 7)
    return raw * 0.5


def view(raw, tid):
    """(codes u8, weights f32) of raw blocks of type tid, element order as ggml's dequantize_row_*."""
    import numpy as np
    blck, size = GEOM[tid]
    b = np.ascontiguousarray(raw, dtype=np.uint8).reshape(-1, size)
    n = b.shape[0]
    if tid == NVFP4:
        qs = b[:, 4:].reshape(n, 4, 8)
        codes = np.concatenate([qs & 0x0F, qs >> 4], axis=-1).reshape(n, 64)
        d = np.array([ue4m3_half(int(x)) for x in b[:, :4].ravel()], np.float32).reshape(n, 4, 1)
        w = (np.array(KV_FP4, np.float32)[codes].reshape(n, 4, 16) * d).reshape(n, 64)
        return codes.astype(np.uint8).ravel(), w.astype(np.float32).ravel()
    d = b[:, :2].copy().view(np.float16).astype(np.float32)  # (n, 1)
    qs = b[:, 2:]
    if tid == Q1_0:
        codes = np.unpackbits(qs, axis=1, bitorder="little")  # element j: bit j % 8 of qs[j / 8]
        w = np.where(codes == 1, d, -d)
    else:
        codes = np.stack([(qs >> (2 * k)) & 3 for k in range(4)], axis=-1).reshape(n, 64)  # j: bits 2(j%4) of qs[j/4]
        w = (codes.astype(np.float32) - np.float32(1)) * d
    return codes.astype(np.uint8).ravel(), w.astype(np.float32).ravel()


# ---------------------------------------------------------------------------------------------
# pins

def pins_checked(path, exe, work, gl):
    """Module pins of every NVFP4 / Q1_0 / Q2_0 tensor: the literal view's f32 == ggml's C dequantize (and,
    for NVFP4, gguf-py's) bit for bit. Other decoded types come from gen_gguf.pins (gguf-py) with the same
    check against C as gen_gguf_llama does."""
    import gguf
    import numpy as np
    from gen_gguf import logical_shape, pins
    from pcgen.corpus import module_pin, sha256_bytes
    data = open(path, "rb").read()
    mods = pins(data)
    ref = gl.reference_f32(exe, path, work)
    types, agree = {}, []
    for t in gguf.GGUFReader(path).tensors:
        typ, tname, ne, cref = ref[t.name]
        types[t.name] = tname.upper()
        if cref is None:
            continue
        prefix = t.name[:-len(".weight")] if t.name.endswith(".weight") and len(t.name) > 7 else t.name
        if typ in GEOM:
            codes, w = view(np.array(t.data), typ)
            assert w.astype("<f4").tobytes() == cref, f"{path}: {t.name} ({tname}): literal view != ggml dequantize_row"
            if typ == NVFP4:
                py = gguf.quants.dequantize(np.array(t.data), t.tensor_type).astype("<f4").tobytes()
                assert py == cref, f"{path}: {t.name}: gguf-py != ggml dequantize_row_nvfp4"
            mods[prefix] = module_pin(logical_shape(t.shape), BITS[typ], codes.tobytes(), cref)
        else:
            py = gguf.quants.dequantize(np.array(t.data), t.tensor_type).astype("<f4").tobytes()
            assert py == cref and mods[prefix]["weight_f32_sha256"] == sha256_bytes(cref), t.name
        agree.append(t.name)
    return mods, types, agree


# ---------------------------------------------------------------------------------------------
# the tiny model (numpy weights), as gen_gguf_llama writes its F32 source

def write_tiny_f32(path, gl):
    import gguf
    import numpy as np
    rng = np.random.default_rng(20261204)
    h, ff, nh, nkv, vocab_n = 256, 256, 4, 1, 288
    hd = h // nh

    def mat(rows, cols):
        return (rng.standard_normal((rows, cols)) * 0.02).astype(np.float32)
    w = gguf.GGUFWriter(path, "llama")
    w.add_name("packcheck-tiny-llama-newtypes")
    w.add_context_length(128)
    w.add_embedding_length(h)
    w.add_block_count(1)
    w.add_feed_forward_length(ff)
    w.add_rope_dimension_count(hd)
    w.add_head_count(nh)
    w.add_head_count_kv(nkv)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_vocab_size(vocab_n)
    w.add_file_type(gguf.LlamaFileType.ALL_F32)
    toks, scores, types = gl.vocab()
    w.add_tokenizer_model("llama")
    w.add_tokenizer_pre("default")
    w.add_token_list(toks)
    w.add_token_scores(scores)
    w.add_token_types(types)
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    w.add_unk_token_id(0)
    ones = np.ones(h, np.float32)
    for name, v in (("token_embd.weight", mat(vocab_n, h)), ("blk.0.attn_norm.weight", ones),
                    ("blk.0.attn_q.weight", gl.permute(mat(h, h), nh)), ("blk.0.attn_k.weight", gl.permute(mat(hd * nkv, h), nkv)),
                    ("blk.0.attn_v.weight", mat(hd * nkv, h)), ("blk.0.attn_output.weight", mat(h, h)),
                    ("blk.0.ffn_norm.weight", ones), ("blk.0.ffn_gate.weight", mat(ff, h)), ("blk.0.ffn_up.weight", mat(ff, h)),
                    ("blk.0.ffn_down.weight", mat(h, ff)), ("output_norm.weight", ones), ("output.weight", mat(vocab_n, h))):
        w.add_tensor(name, np.ascontiguousarray(v))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def quantize(gl, src, dst, ftype, extra=()):
    r = subprocess.run(["nice", gl.QUANTIZE, *extra, src, dst, ftype, "1"], capture_output=True, text=True)
    if r.returncode:
        sys.stderr.write(r.stdout + r.stderr)
        raise RuntimeError(f"llama-quantize {ftype} {' '.join(extra)} failed")


# ---------------------------------------------------------------------------------------------
# probes: every UE4M3 scale byte with every E2M1 code; Q1_0 / Q2_0 bits under special d values

def nvfp4_probe_blocks(rng, scales):
    """One sub-block per scale byte, each holding all 16 E2M1 codes in a random order."""
    import numpy as np
    scales = list(scales)
    while len(scales) % 4:
        scales.append(0x38)  # 1.0 (x 0.5)
    n = len(scales) // 4
    b = np.zeros((n, 36), np.uint8)
    b[:, :4] = np.array(scales, np.uint8).reshape(n, 4)
    for i in range(n):
        for s in range(4):
            c = rng.permutation(16).astype(np.uint8)
            b[i, 4 + 8 * s:4 + 8 * s + 8] = c[:8] | (c[8:] << 4)
    return b


F16_SPECIAL = (0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x0400, 0x3C00, 0xBC00, 0x7BFF, 0xFBFF, 0x3555, 0xC0F0)


def scalar_probe_blocks(rng, tid, n):
    """n random blocks of Q1_0 / Q2_0 whose fp16 d runs through F16_SPECIAL (zeros, subnormals, the
    largest finite, negatives) and then random finite values."""
    import numpy as np
    blck, size = GEOM[tid]
    b = rng.integers(0, 256, (n, size), dtype=np.uint8)
    d = np.array([F16_SPECIAL[i] if i < len(F16_SPECIAL) else int(rng.integers(0, 0x7C00)) | (int(rng.integers(0, 2)) << 15)
                  for i in range(n)], np.uint16)
    b[:, :2] = d.view(np.uint8).reshape(n, 2)
    return b


# ---------------------------------------------------------------------------------------------

def generate(out):
    gl, lib, inc = _env()
    import gguf
    import numpy as np
    from gen_gguf import write_with_gguf
    from pcgen.ggufbytes import gguf_file, tensor
    from gen_gguf import base_kvs
    work = tempfile.mkdtemp(prefix="gen-gguf-newtypes-")
    try:
        exe = gl.build_dequant(work, lib, inc)
        src = os.path.join(work, "tiny-f32.gguf")
        write_tiny_f32(src, gl)
        runs = (("Q1_0", "llama-q1-0", (), "llama-quantize Q1_0"), ("Q2_0", "llama-q2-0", (), "llama-quantize Q2_0"),
                ("Q8_0", "llama-nvfp4", ("--tensor-type", "attn=nvfp4", "--tensor-type", "ffn=nvfp4"),
                 "llama-quantize Q8_0 --tensor-type attn=nvfp4 --tensor-type ffn=nvfp4 (no NVFP4 ftype in this llama-quantize)"))
        summary = {}
        for ftype, name, extra, how in runs:
            dst = os.path.join(work, name + ".gguf")
            quantize(gl, src, dst, ftype, extra)
            mods, types, agree = pins_checked(dst, exe, work, gl)
            summary[name] = types
            out.case("llama", name, verdict="pass", layout="gguf", files={"model.gguf": open(dst, "rb").read()}, input="model.gguf",
                     source=f"{gl.LLAMA_VERSION}: {how} of a tiny llama (numpy default_rng(20261204) weights, "
                            f"gen_gguf_newtypes.write_tiny_f32) written F32 by GGUFWriter (gguf-py of the same llama.cpp)",
                     rules=["GGUF-027", "GQ-001", "GQ-002"], modules=mods,
                     notes=f"f32 pins: ggml-base dequantize_row_<type> (ggml_get_type_traits()->to_float) == the literal "
                           f"block decoding (and gguf-py for NVFP4 and the other types) bit for bit on all {len(agree)} quantized tensors",
                     extra={"tensor_types": types})

        rng = np.random.default_rng(20261205)
        nv = nvfp4_probe_blocks(rng, range(0x7F))          # every UE4M3 byte 0x00..0x7E, each with all 16 codes
        q1 = scalar_probe_blocks(rng, Q1_0, 16)
        q2 = scalar_probe_blocks(rng, Q2_0, 32)
        ts = [("probe.nvfp4.weight", nv.reshape(2, -1), gguf.GGMLQuantizationType.NVFP4),
              ("probe.q1_0.weight", q1.reshape(2, -1), gguf.GGMLQuantizationType.Q1_0),
              ("probe.q2_0.weight", q2.reshape(2, -1), gguf.GGMLQuantizationType.Q2_0)]
        data = write_with_gguf(ts)
        path = os.path.join(work, "probes.gguf")
        open(path, "wb").write(data)
        mods, types, agree = pins_checked(path, exe, work, gl)
        out.case("llama", "newtype-probes", verdict="pass", layout="gguf", files={"model.gguf": data}, input="model.gguf",
                 source="GGUFWriter: NVFP4 [2, 1024] whose 128 sub-blocks take the UE4M3 scale bytes 0x00..0x7E (and one 0x38 "
                        "filler), each sub-block holding all 16 E2M1 codes in a random order; Q1_0 [2, 1024] and Q2_0 [2, 1024] "
                        "of random code bytes whose fp16 d runs through +-0, subnormals, 65504, negatives, then random finite "
                        "values (numpy default_rng(20261205))",
                 rules=["GQ-001", "GQ-002", "GQ-004"], modules=mods,
                 notes=f"f32 pins: ggml-base dequantize_row_<type> == the literal block decoding bit for bit on all {len(agree)} "
                       f"tensors (NVFP4 also == gguf-py)",
                 extra={"tensor_types": types})

        # NVFP4 with llama.cpp's per-tensor `.scale` companion (conversion/base.py _write_scale_tensor: F32, shape [1],
        # llama-model.cpp loads it as {1}, or {n_expert} for an expert tensor): the module is the block decode alone
        k = base_kvs()
        nvb = nvfp4_probe_blocks(np.random.default_rng(20261206), [0x38, 0x30, 0x40, 0x3A] * 4)  # 4 blocks
        w3 = nvfp4_probe_blocks(np.random.default_rng(20261207), [0x38] * 16)
        tw = tensor("blk.0.attn_q.weight", [128, 2], "F32", type_id=NVFP4, nbytes=nvb.size, data=nvb.tobytes())
        te = tensor("blk.0.ffn_up_exps.weight", [64, 2, 2], "F32", type_id=NVFP4, nbytes=w3.size, data=w3.tobytes())

        def scale_t(name, vals, gtype="F32", ne=None):
            arr = np.asarray(vals, np.float32 if gtype == "F32" else np.float16)
            return tensor(name, ne or [arr.size], gtype, data=arr.tobytes())
        good = gguf_file(k, [tw, scale_t("blk.0.attn_q.scale", [0.25]), te, scale_t("blk.0.ffn_up_exps.scale", [0.5, 2.0])])[0]
        path = os.path.join(work, "scale.gguf")
        open(path, "wb").write(good)
        mods, types, agree = pins_checked(path, exe, work, gl)
        out.case("gguf", "nvfp4-scale-companion", verdict="pass", layout="gguf", files={"model.gguf": good}, input="model.gguf",
                 source="hand-built bytes (generators/pcgen/ggufbytes.py): NVFP4 blk.0.attn_q.weight [2, 128] with F32 "
                        "blk.0.attn_q.scale [1] = 0.25, and a 3-D NVFP4 blk.0.ffn_up_exps.weight [2, 2, 64] with F32 "
                        "blk.0.ffn_up_exps.scale [2] (one per expert), as llama.cpp's converter writes them (PR #22897)",
                 rules=["GQ-001", "GQ-006"], modules=mods,
                 notes="the modules are ggml's dequantize_row_nvfp4 alone: llama.cpp multiplies the matmul output by the "
                       ".scale (ggml_mul), the weights are never scaled")
        bad = {
            "nvfp4-scale-companion-shape": ([tw, scale_t("blk.0.attn_q.scale", [0.25, 0.25])], "GQ-006",
                                            "an NVFP4 tensor's .scale of shape [2] (llama.cpp loads {1})"),
            "nvfp4-scale-companion-experts": ([te, scale_t("blk.0.ffn_up_exps.scale", [0.5])], "GQ-006",
                                              "a 2-expert NVFP4 tensor's .scale of shape [1] (llama.cpp loads {n_expert})"),
            "nvfp4-scale-companion-f16": ([tw, scale_t("blk.0.attn_q.scale", [0.25], "F16")], "GQ-006",
                                          "an NVFP4 tensor's .scale stored F16 (the converter writes F32)"),
            "nvfp4-scale-companion-inf": ([tw, scale_t("blk.0.attn_q.scale", [np.inf])], "GQ-006",
                                          "an NVFP4 tensor's .scale of +inf"),
        }
        for name, (ts_, rule, why) in bad.items():
            out.case("gguf", name, verdict="reject", reject_rule=rule, files={"bad.gguf": gguf_file(k, ts_)[0]}, input="bad.gguf",
                     source=f"hand-built bytes (generators/pcgen/ggufbytes.py): {why}", rules=[rule])
        # UE4M3 scale bytes outside the unsigned range, and the NaN pattern
        b7 = nvb.copy()
        b7[2, 1] = 0xB8
        out.case("gguf", "nvfp4-scale-sign-bit", verdict="reject", reject_rule="GQ-004",
                 files={"bad.gguf": gguf_file(k, [dict(tw, data=b7.tobytes())])[0]}, input="bad.gguf",
                 source="hand-built bytes: NVFP4 block 2's sub-block 1 scale byte 0xB8 (bit 7 set: ggml's CPU decode ignores "
                        "it, CUDA's FP8 path reads a negative scale)", rules=["GQ-004"])
        data = gguf_file(k, [dict(tw, data=b7.tobytes())])[0]
        path = os.path.join(work, "b7.gguf")
        open(path, "wb").write(data)
        mods, _, _ = pins_checked(path, exe, work, gl)
        out.case("gguf", "nvfp4-scale-sign-bit-compat", verdict="pass", layout="gguf", files={"model.gguf": data}, input="model.gguf",
                 profile="compat", source="hand-built bytes: the same file under compat, where GQ-004 is SHOULD (ggml's row "
                                          "validation accepts every byte): pinned as ggml's CPU reference decodes it (bit 7 ignored)",
                 rules=["GQ-004"], modules=mods)
        nan = nvb.copy()
        nan[1, 3] = 0x7F
        data = gguf_file(k, [dict(tw, data=nan.tobytes())])[0]
        path = os.path.join(work, "nan.gguf")
        open(path, "wb").write(data)
        mods, _, _ = pins_checked(path, exe, work, gl)
        out.case("gguf", "nvfp4-scale-nan", verdict="pass", layout="gguf", files={"model.gguf": data}, input="model.gguf",
                 source="hand-built bytes: NVFP4 block 1's sub-block 3 scale byte 0x7F (E4M3's NaN pattern; ggml decodes it "
                        "as 0 on CPU, CUDA and Vulkan): GQ-005 warns, the sub-block decodes to zeros",
                 rules=["GQ-005"], modules=mods)
        for tid, nm, ne in ((Q1_0, "q1_0", [128, 2]), (Q2_0, "q2_0", [64, 2])):
            blocks = scalar_probe_blocks(np.random.default_rng(20261208), tid, 2)
            blocks[1, :2] = (0x00, 0x7C)  # +inf
            out.case("gguf", f"{nm}-d-inf", verdict="reject", reject_rule="GQ-002",
                     files={"bad.gguf": gguf_file(k, [tensor(f"blk.0.{nm}.weight", ne, "F32", type_id=tid, nbytes=blocks.size,
                                                             data=blocks.tobytes())])[0]}, input="bad.gguf",
                     source=f"hand-built bytes: {NAMES[tid]} block 1 with fp16 d = +inf (ggml_validate_row_data refuses it)",
                     rules=["GQ-002"])
        return summary
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    from pcgen.corpus import Corpus
    c = Corpus(sys.argv[1])
    print(json.dumps(generate(c), indent=1))
