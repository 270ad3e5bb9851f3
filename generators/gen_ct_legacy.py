"""compressed-tensors pack-quantized, ct-legacy layout (compressed-tensors 0.5 .. 0.17.x: 32//b whole
fields per int32 word).

Venv: requirements-ct017.txt (compressed-tensors 0.17.1; the path comes from PCGEN_VENV_CT017,
default /work/venvs/ct017). regen.py runs every generator in one interpreter, normally the newest
library's venv; this module then re-runs itself in the 0.17.1 venv, writing into the same corpus
folder, so the legacy bytes always come from the legacy library.
"""
import os
import sys

from pcgen.venv import run_in_venv

F = "ct"
WANT = "0.17.1"
VENV = os.environ.get("PCGEN_VENV_CT017", "/work/venvs/ct017")


def generate(out):
    import compressed_tensors
    if compressed_tensors.__version__ == WANT:
        return _generate(out)
    run_in_venv(__file__, VENV, out, f"compressed-tensors {WANT}")


def _generate(out):
    import torch
    from pcgen.ct_cases import L0, Module, base_checkpoint, group0, make_scheme, negative, positive, probes, qc, set_word_bit

    down = f"{L0}.mlp.down_proj"
    for b in (3, 5, 6, 7):
        mods, schemes = probes(b)
        positive(out, F, f"legacy-b{b}-probes", "ct-legacy", mods, schemes,
                 what=f"{b}-bit channel symmetric, 8x100, probes patterned/random/all-max")
    positive(out, F, "legacy-b4-probes", "ct-legacy", *probes(4),
             what="4-bit channel symmetric, 8x100 (bit-identical to ct-dense; the version names the layout)")
    positive(out, F, "legacy-b3-group32-actorder", "ct-legacy", [(Module(down, (12, 128), "random", 21), "group_0")],
             {"group_0": make_scheme(3, "group", group_size=32, actorder="group")},
             what="3-bit group 32 with actorder group: weight_g_idx a scrambled permutation of k // 32")
    positive(out, F, "legacy-b5-group16-asym", "ct-legacy", [(Module(down, (11, 64), "pattern", 22), "group_0")],
             {"group_0": make_scheme(5, "group", symmetric=False, group_size=16)},
             what="5-bit group 16 asymmetric: packed zero point, N = 11 leaves a padding slot in each column's last word")
    positive(out, F, "legacy-b6-moe-asym", "ct-legacy", [(Module(f"{L0}.mlp.experts.up_proj", (2, 7, 30), "random", 23), "group_0")],
             {"group_0": make_scheme(6, "channel", symmetric=False)},
             what="3-D MoE [E=2, N=7, K=30], 6-bit channel asymmetric (packed zero point per expert)")
    positive(out, F, "legacy-b3-k12-no-version", "ct-legacy", [(Module(down, (4, 12), "pattern", 24), "group_0")],
             {"group_0": make_scheme(3, "channel")}, drop_version=True,
             what="3-bit channel 4x12 with version removed from config.json: both layouts give 2 words per row",
             notes="ambiguous layout: expect a CT-013 warning saying ct-legacy was assumed")
    positive(out, F, "legacy-b3-k200-no-version", "ct-legacy", [(Module(down, (4, 200), "random", 25), "group_0")],
             {"group_0": make_scheme(3, "channel")}, drop_version=True,
             what="3-bit channel 4x200 with version removed: width 20 (legacy) vs 19 (dense) decides")

    b5 = base_checkpoint(Module(down, (8, 100), "random", 26), make_scheme(5, "channel"))
    b3g = base_checkpoint(Module(down, (12, 64), "random", 27), make_scheme(3, "group", group_size=32, actorder="group"))
    negative(out, F, "neg-ct012-legacy-says-dense", "CT-012", b5, lambda t, c: qc(c).__setitem__("version", "0.20.1"),
             what="5-bit channel 8x100 (legacy width 17); version rewritten to 0.20.1 (dense would be 16 words)")
    negative(out, F, "neg-ct015-legacy-top-bit", "CT-015", b5,
             lambda t, c: t.__setitem__(f"{down}.weight_packed", set_word_bit(t[f"{down}.weight_packed"], 0, 31)),
             what="5-bit channel 8x100 legacy; bit 31 (above the 6 fields) of the first word set")
    negative(out, F, "neg-ct020-g-idx-range", "CT-020", b3g,
             lambda t, c: t[f"{down}.weight_g_idx"].__setitem__(5, 2),
             what="3-bit group 32 actorder, K = 64 (2 groups); weight_g_idx[5] set to 2")
    negative(out, F, "neg-ct020-g-idx-missing", "CT-020", b3g, lambda t, c: t.pop(f"{down}.weight_g_idx"),
             what="3-bit group 32 actorder; weight_g_idx removed")


if __name__ == "__main__":
    from pcgen.venv import venv_main
    venv_main(_generate)
