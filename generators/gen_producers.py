"""Producer releases (issue 28): one tiny pack-quantized checkpoint per compressed-tensors release, each
written by that release's own compressor and config writer, so the corpus carries the writer's version
axis: releases up to 0.17.x pack 32//b whole fields per int32 word (ct-legacy), 0.18.0 on pack a dense
bit stream (ct-dense), and config.json's quantization_config.version names the release that wrote it.

Each case is 5-bit channel symmetric (5 does not divide 32: the two layouts differ), one 4x40 module.
Venvs: the reader matrix's per-release venvs (PCGEN_MATRIX_VENVS, default /work/venvs/matrix, folder
ct-<release>); a missing one skips this generator (NeedsVenv). 0.13 and 0.14 are not here: their
compressor is an instance over a whole state dict (compressors/quantized_compressors), not the
per-module PackedQuantizationCompressor.compress that pcgen.ct_common calls.
"""
import os

from pcgen.venv import run_in_venv, venv_main

F = "producers"
RELEASES = ("0.15.0.1", "0.16.0", "0.17.1", "0.18.0", "0.19.0", "0.20.1")
VENVS = os.environ.get("PCGEN_MATRIX_VENVS", "/work/venvs/matrix")
BITS = 5


def generate(out):
    for v in RELEASES:
        run_in_venv(__file__, os.path.join(VENVS, f"ct-{v}"), out, f"compressed-tensors {v}")


def layout_of(version):
    """The layout a release writes: dense from 0.18.0 (compressed-tensors' pack_to_int32 rewrite)."""
    major, minor = (int(x) for x in version.split(".")[:2])
    return "ct-dense" if (major, minor) >= (0, 18) else "ct-legacy"


def _generate(out):
    from pcgen.ct_cases import L0, Module, make_scheme, positive
    import compressed_tensors
    v = compressed_tensors.__version__
    positive(out, F, f"ct-{v}-b{BITS}", layout_of(v), [(Module(f"{L0}.mlp.down_proj", (4, 40), "random", 50), "group_0")],
             {"group_0": make_scheme(BITS, "channel")},
             what=f"{BITS}-bit channel symmetric 4x40 written by compressed-tensors {v} ({layout_of(v)})")


if __name__ == "__main__":
    venv_main(_generate)
