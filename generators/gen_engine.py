"""Engine-sized cases (family engine/): valid checkpoints whose shapes an inference engine's kernels
accept, so certify exercises the engine's loading and compute paths instead of its size refusals
(vLLM's CPU build refuses in/out sizes that are not multiples of 32, and FP8 block scales over partial
128x128 blocks; most modules of the other families are smaller or ragged on purpose).

Venv: ct (requirements-ct.txt: compressed-tensors 0.20.1, torch 2.15.0), as gen_fp8 and gen_ct_dense;
the generator re-runs itself there (PCGEN_VENV_CT, default /work/venvs/ct).

  * FP8 block 128x128, every E4M3 code: down_proj [128, 256] whose codes cycle over all 254 non-NaN
    E4M3 bytes (the 14 subnormal magnitudes 0x01..0x07 / 0x81..0x87 and both zeros included), each
    128x128 block holding 0x7E (448) so its scale is exactly the one chosen (blocks 2^-9 and 3 * 2^-11).
    Written twice: by compressed-tensors (FP8_BLOCK preset, calculate_qparams, FloatQuantizationCompressor:
    gen_fp8.ct_module) and in the DeepSeek-native layout (gen_fp8.ds_module); the library's quantizer
    must give back every chosen code (asserted).
  * FP8 channel with fused shards: q_proj [64, 128], k_proj and v_proj [32, 128], gate_proj and up_proj
    [64, 128] under FP8_DYNAMIC: an engine loads them into qkv_proj / gate_up_proj shard by shard.
  * INT8 W8A8 channel: down_proj [64, 128] under INT8_W8A8 (IntQuantizationCompressor).
  * W4A16 (pack-quantized 4-bit, group 128, symmetric): gate_proj and up_proj [64, 256]
    (PackedQuantizationCompressor: pcgen/ct_common.checkpoint).
Pins as in those generators: codes the stored bytes (int: q + 2^(b-1)), f32 weights one multiply.
"""
import os
import sys

from pcgen.venv import here_or_in_venv

FAMILY = "engine"
VENV = os.environ.get("PCGEN_VENV_CT", "/work/venvs/ct")
L0 = "model.layers.0"
BLOCK_SCALES = (2.0 ** -9, 3 * 2.0 ** -11)  # one per 128-column block; bf16- and f32-exact


def generate(out):
    return here_or_in_venv(__file__, VENV, out, "compressed-tensors", ("compressed_tensors", "torch"), _generate)


def e4m3_codes():
    """The 254 non-NaN E4M3 bytes (0x7F and 0xFF are NaN in float8_e4m3fn)."""
    return [c for c in range(256) if c & 0x7F != 0x7F]


def all_codes_weight(shape):
    """A float32 weight whose FP8 block quantization is a chosen code grid: every non-NaN code in
    each 128x128 block, the block's first element 0x7E so amax / 448 is exactly its scale."""
    import torch
    n, k = shape
    codes = torch.tensor(e4m3_codes(), dtype=torch.uint8)
    grid = codes[torch.arange(n * k) * 7 % len(codes)].reshape(n, k)  # 7 is coprime with 254
    for j in range(0, k, 128):
        grid[0, j] = 0x7E
    vals = grid.view(torch.float8_e4m3fn).float()
    s = torch.tensor(BLOCK_SCALES, dtype=torch.float32)[torch.arange(k) // 128]
    return grid, vals * s


def fp8_block_cases(out, src):
    import torch
    import gen_fp8
    from compressed_tensors.compressors.naive_quantized import base as nq
    from compressed_tensors.quantization import QuantizationScheme
    from compressed_tensors.quantization.quant_scheme import FP8_BLOCK
    import copy
    name, shape = f"{L0}.mlp.down_proj", (128, 256)
    grid, w = all_codes_weight(shape)
    scheme = QuantizationScheme(targets=["Linear"], **copy.deepcopy(FP8_BLOCK))
    t, pin, check = gen_fp8.ct_module(name, shape, 0, scheme, nq.FloatQuantizationCompressor, torch.bfloat16,
                                      w=w.to(torch.bfloat16))
    assert torch.equal(t[f"{name}.weight"].view(torch.uint8), grid), "compressed-tensors did not keep the chosen codes"
    t["lm_head.weight"] = gen_fp8.weights((16, shape[1]), 99)
    what = ("down_proj [128, 256], block 128x128 (grid [1, 2], scales 2^-9 and 3 * 2^-11): every non-NaN E4M3 code, "
            "subnormals included, in each block")
    out.case(FAMILY, "ct-fp8-block-all-codes", verdict="pass", layout="ct-fp8", rules=gen_fp8.FP8_RULES,
             modules={name: pin}, extra={"library_check": {name: check}},
             files={"model.safetensors": gen_fp8.st_bytes(t),
                    "config.json": gen_fp8.ct_config({"group_0": scheme}, "float-quantized")},
             source=src.format(preset="FP8_BLOCK", comp="FloatQuantizationCompressor") + ". " + what)
    d, dpin = gen_fp8.ds_module(name, shape, 0, w)
    assert torch.equal(d[f"{name}.weight"].view(torch.uint8), grid), "the DeepSeek layout did not keep the chosen codes"
    d["model.norm.weight"] = torch.ones(shape[1], dtype=torch.bfloat16)
    out.case(FAMILY, "deepseek-fp8-block-all-codes", verdict="pass", layout="fp8-deepseek", rules=gen_fp8.FP8_RULES,
             modules={name: dpin}, files={"model.safetensors": gen_fp8.st_bytes(d), "config.json": gen_fp8.DS_CONFIG},
             source=(f"torch {torch.__version__.split('+')[0]} float8_e4m3fn over the layout of deepseek-ai/DeepSeek-V3 "
                     "README_WEIGHTS.md (weight_scale_inv = amax / 448 per 128x128 block, F32); pins its weight_dequant "
                     "x.float() * s in torch float32. " + what))


def ct_preset_case(out, src, case, preset, pname, fmt, comp, mods, what):
    import torch
    import gen_fp8
    files, pins, checks, _ = gen_fp8.ct_checkpoint(mods, preset, fmt, comp, torch.bfloat16)
    layout = "ct-int8" if fmt == "int-quantized" else "ct-fp8"
    out.case(FAMILY, case, verdict="pass", layout=layout, files=files, modules=pins,
             rules=gen_fp8.FP8_RULES + (["FP8-009"] if layout == "ct-int8" else []),
             source=src.format(preset=pname, comp=comp) + ". " + what, extra={"library_check": checks})


def w4a16_case(out):
    from pcgen.ct_cases import positive
    from pcgen.ct_common import Module, make_scheme
    mods = [(Module(f"{L0}.mlp.gate_proj", (64, 256), "random", 61), "group_0"),
            (Module(f"{L0}.mlp.up_proj", (64, 256), "random", 62), "group_0")]
    positive(out, FAMILY, "ct-w4a16-group128-gate-up", "ct-dense", mods,
             {"group_0": make_scheme(4, "group", group_size=128)},
             what="W4A16 (4-bit group 128 symmetric): gate_proj and up_proj [64, 256], loaded fused by engines")


def _generate(out):
    import compressed_tensors
    import torch
    from compressed_tensors.quantization.quant_scheme import FP8_DYNAMIC, INT8_W8A8
    src = (f"compressed-tensors {compressed_tensors.__version__}, torch {torch.__version__.split('+')[0]}: the library's "
           "{preset} preset, scales from calculate_qparams, {comp}.compress, ModelCompressor.update_config; "
           "pins torch float32 x.float() * s")
    fp8_block_cases(out, src)
    fused = [(f"{L0}.self_attn.q_proj", (64, 128), 71), (f"{L0}.self_attn.k_proj", (32, 128), 72),
             (f"{L0}.self_attn.v_proj", (32, 128), 73), (f"{L0}.mlp.gate_proj", (64, 128), 74),
             (f"{L0}.mlp.up_proj", (64, 128), 75)]
    ct_preset_case(out, src, "ct-fp8-channel-qkv-gate-up", FP8_DYNAMIC, "FP8_DYNAMIC", "float-quantized",
                   "FloatQuantizationCompressor", fused,
                   "channel FP8, q/k/v [64|32|32, 128] and gate/up [64, 128] of one layer: engines load them fused "
                   "(qkv_proj, gate_up_proj) shard by shard, each shard with its own per-channel scales")
    ct_preset_case(out, src, "ct-int8-w8a8-channel", INT8_W8A8, "INT8_W8A8", "int-quantized",
                   "IntQuantizationCompressor", [(f"{L0}.mlp.down_proj", (64, 128), 76)],
                   "int8 channel symmetric, dynamic per-token int8 activations, down_proj [64, 128]")
    w4a16_case(out)


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from pcgen.venv import venv_main
    venv_main(_generate)
