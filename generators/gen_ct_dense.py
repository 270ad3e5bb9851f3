"""compressed-tensors pack-quantized, ct-dense layout (compressed-tensors >= 0.18.0).

Venv: requirements-ct.txt (compressed-tensors 0.20.1, torch 2.15.0). Every checkpoint comes from
PackedQuantizationCompressor.compress (the library's quantize + pack_to_int32) and
ModelCompressor.update_config; every pin from unpack_from_int32 (pcgen/ct_common.py).
"""
import torch

from pcgen.ct_cases import L0, Module, base_checkpoint, group0, make_scheme, negative, positive, probes, qc, set_word_bit

F = "ct"
DOWN = f"{L0}.mlp.down_proj"


def generate(out):
    # The seed's three probes (patterned, random, all-max) for every width; K = 100 is not a
    # multiple of 32/b, and at 3 bits gives equal widths in both layouts (the version decides).
    for b in range(1, 9):
        mods, schemes = probes(b)
        positive(out, F, f"dense-b{b}-probes", "ct-dense", mods, schemes,
                 what=f"{b}-bit channel symmetric, 8x100, probes patterned/random/all-max")
    # Strategies.
    positive(out, F, "dense-b4-tensor", "ct-dense", [(Module(DOWN, (16, 64), "random", 1, torch.float16), "group_0")],
             {"group_0": make_scheme(4, "tensor")}, what="4-bit tensor strategy, symmetric, fp16 scale")
    positive(out, F, "dense-b3-group16", "ct-dense", [(Module(DOWN, (16, 96), "random", 2), "group_0")],
             {"group_0": make_scheme(3, "group", group_size=16)}, what="3-bit group 16 symmetric")
    positive(out, F, "dense-b3-group32-asym", "ct-dense", [(Module(DOWN, (11, 96), "pattern", 3), "group_0")],
             {"group_0": make_scheme(3, "group", symmetric=False, group_size=32)},
             what="3-bit group 32 asymmetric: packed zero point, N = 11 straddles a word down each column")
    positive(out, F, "dense-b6-channel-asym", "ct-dense", [(Module(DOWN, (13, 50), "random", 4), "group_0")],
             {"group_0": make_scheme(6, "channel", symmetric=False)}, what="6-bit channel asymmetric (packed zero point)")
    positive(out, F, "dense-b4-block-asym", "ct-dense", [(Module(DOWN, (20, 80), "random", 5), "group_0")],
             {"group_0": make_scheme(4, "block", symmetric=False, block=(8, 32))},
             what="4-bit block [8, 32] asymmetric (unpacked int8 zero point), N and K not multiples of the block")
    positive(out, F, "dense-b5-tensor-asym", "ct-dense", [(Module(DOWN, (8, 100), "random", 6, torch.float32), "group_0")],
             {"group_0": make_scheme(5, "tensor", symmetric=False)}, what="5-bit tensor asymmetric, f32 scale")
    positive(out, F, "dense-b3-moe", "ct-dense", [(Module(f"{L0}.mlp.experts.down_proj", (3, 8, 40), "random", 7), "group_0")],
             {"group_0": make_scheme(3, "channel")}, what="3-D mixture-of-experts weight [E=3, N=8, K=40], 3-bit channel, packed per expert")
    positive(out, F, "dense-mixed-groups", "ct-dense",
             [(Module(f"{L0}.self_attn.q_proj", (16, 64), "random", 8), "group_0"),
              (Module(DOWN, (16, 64), "pattern", 9), "group_1")],
             {"group_0": make_scheme(4, "group", group_size=32, targets=("re:.*self_attn.*",)),
              "group_1": make_scheme(7, "channel", targets=("Linear",))},
             what="two config groups: a re: target (4-bit group 32) wins over the class target (7-bit channel)")

    # No version, or a development version that may predate PR #732: the packed width decides.
    positive(out, F, "dense-b5-no-version", "ct-dense", [(Module(DOWN, (8, 100), "random", 12), "group_0")],
             {"group_0": make_scheme(5, "channel")}, drop_version=True,
             what="5-bit channel 8x100 with version removed from config.json: width 16 fits only ct-dense (legacy 17)")
    positive(out, F, "dense-b3-dev-version", "ct-dense", [(Module(DOWN, (4, 200), "random", 13), "group_0")],
             {"group_0": make_scheme(3, "channel")}, version="0.17.2.dev32+g46196ce",
             what="3-bit channel 4x200, version rewritten to the dev build 0.17.2.dev32+g46196ce (undecidable from the "
                  "string): width 19 fits only ct-dense (legacy 20)")

    positive(out, F, "dense-b5-k12-zp-decides", "ct-dense", [(Module(DOWN, (100, 12), "random", 14), "group_0")],
             {"group_0": make_scheme(5, "channel", symmetric=False)}, drop_version=True,
             what="5-bit channel asymmetric 100x12, version removed: K = 12 gives 2 words in both layouts, but the "
                  "packed zero point's column of N = 100 takes 16 words (dense) not 17 (legacy)")

    # Negatives: each breaks exactly one rule of a library-made checkpoint.
    base = base_checkpoint(Module(DOWN, (11, 48), "random", 10), make_scheme(3, "group", symmetric=False, group_size=16))
    b5 = base_checkpoint(Module(DOWN, (8, 100), "random", 11), make_scheme(5, "channel"))
    W = DOWN

    def neg(name, rule, mutate, what, from_=base):
        negative(out, F, name, rule, from_, mutate, what=what)

    neg("neg-cfg020-targets-string", "CFG-020", lambda t, c: group0(c).__setitem__("targets", "Linear"),
        "3-bit group 16 asymmetric; config_groups.group_0.targets is a string")
    neg("neg-cfg021-unknown-key", "CFG-021", lambda t, c: group0(c)["weights"].__setitem__("bits", 3),
        "3-bit group 16 asymmetric; weights has an unknown key 'bits'")
    neg("neg-cfg022-group-no-size", "CFG-022", lambda t, c: group0(c)["weights"].__setitem__("group_size", None),
        "3-bit group 16 asymmetric; strategy group with group_size null")
    neg("neg-cfg023-format", "CFG-023", lambda t, c: qc(c).__setitem__("format", "int-quantized"),
        "3-bit group 16 asymmetric; top-level format int-quantized over an int32 weight_packed")
    neg("neg-cfg024-version", "CFG-024", lambda t, c: qc(c).__setitem__("version", "latest"),
        "3-bit group 16 asymmetric; version 'latest'")
    neg("neg-cfg025-status", "CFG-025", lambda t, c: qc(c).__setitem__("quantization_status", "packed"),
        "3-bit group 16 asymmetric; quantization_status 'packed'")
    neg("neg-cfg027-ignored", "CFG-027", lambda t, c: qc(c)["ignore"].append("re:.*down_proj$"),
        "3-bit group 16 asymmetric; the packed module is in the ignore list")

    negative_no_config(out, base)
    warn_untranslatable_ignore(out)
    neg("neg-ct001-bits9", "CT-001", lambda t, c: group0(c)["weights"].__setitem__("num_bits", 9),
        "3-bit group 16 asymmetric; config num_bits 9")
    neg("neg-ct004-no-weight-shape", "CT-004", lambda t, c: t.pop(f"{W}.weight_shape"),
        "3-bit group 16 asymmetric; weight_shape removed")
    neg("neg-ct004-width", "CT-004", lambda t, c: t.__setitem__(f"{W}.weight_shape", torch.tensor([11, 80])),
        "3-bit group 16 asymmetric; weight_shape K = 80 does not fit the packed width 5 in either layout", )
    neg("neg-ct011-int64", "CT-011", lambda t, c: t.__setitem__(f"{W}.weight_packed", t[f"{W}.weight_packed"].to(torch.int64)),
        "3-bit group 16 asymmetric; weight_packed stored as int64")
    neg("neg-ct012-dense-says-legacy", "CT-012", lambda t, c: qc(c).__setitem__("version", "0.17.1"),
        "5-bit channel 8x100 (dense width 16); version rewritten to 0.17.1 (legacy would be 17 words)", from_=b5)
    neg("neg-ct014-row-tail", "CT-014", lambda t, c: t.__setitem__(f"{W}.weight_packed", set_word_bit(t[f"{W}.weight_packed"], 4, 31)),
        "3-bit group 16 asymmetric, K = 48 (144 bits in 5 words); bit 31 of row 0's last word set")
    neg("neg-ct016-scale-shape", "CT-016", lambda t, c: t.__setitem__(f"{W}.weight_scale", t[f"{W}.weight_scale"][:, :2].contiguous()),
        "3-bit group 16 asymmetric; weight_scale cut to 2 of 3 groups")
    neg("neg-ct018-no-zero-point", "CT-018", lambda t, c: t.pop(f"{W}.weight_zero_point"),
        "3-bit group 16 asymmetric; weight_zero_point removed")
    neg("neg-ct019-zp-unpacked", "CT-019", lambda t, c: t.__setitem__(f"{W}.weight_zero_point", torch.zeros((11, 3), dtype=torch.int8)),
        "3-bit group 16 asymmetric; packed zero point replaced by an unpacked int8 [11, 3]")
    neg("neg-ct021-dense-weight", "CT-021", lambda t, c: t.__setitem__(f"{W}.weight", torch.zeros((11, 48), dtype=torch.bfloat16)),
        "3-bit group 16 asymmetric; a dense bf16 weight next to weight_packed")
    neg("neg-cfg031-regex-over-cap", "CFG-031", lambda t, c: qc(c)["ignore"].append("re:(a{1,1000}){1,1000}"),
        "3-bit group 16 asymmetric; ignore holds re:(a{1,1000}){1,1000}: 28 bytes that expand to about 2 million "
        "automaton instructions (CPython's backtracking: 50 s, 8 GB)")


def negative_no_config(out, base):
    from pcgen.ct_cases import files_of
    from pcgen.ct_common import source_line
    out.case(F, "neg-cfg028-no-config", verdict="reject", reject_rule="CFG-028", files=files_of(base[0], None),
             rules=["CFG-028"], source=source_line("3-bit group 16 asymmetric; config.json left out"))


def warn_untranslatable_ignore(out):
    """CFG-029 warns: an ignore pattern with a lookbehind has no POSIX form; it matches nothing."""
    import copy
    from pcgen.ct_cases import files_of, qc
    from pcgen.ct_common import checkpoint, source_line
    tensors, pins, cfg = checkpoint([(Module(DOWN, (11, 48), "random", 10), "group_0")],
                                    {"group_0": make_scheme(3, "group", symmetric=False, group_size=16)})
    cfg = copy.deepcopy(cfg)
    qc(cfg)["ignore"].append("re:(?<=mlp)\\.gate_proj$")
    out.case(F, "warn-cfg029-ignore-lookbehind", verdict="pass", layout="ct-dense", files=files_of(tensors, cfg),
             rules=["CFG-029"], modules=pins,
             source=source_line("3-bit group 16 asymmetric; an ignore pattern with a lookbehind added by hand "
                                "(CFG-029 warns; it names no module here, so nothing changes)"))
