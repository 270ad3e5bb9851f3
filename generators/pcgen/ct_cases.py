"""Case builders shared by gen_ct_dense.py and gen_ct_legacy.py: positive checkpoints and the
one-fault negatives derived from them. Runs inside whichever compressed-tensors venv the caller
uses; the layout follows from that library version."""
import copy

import torch

from pcgen.ct_common import CT_VERSION, Module, checkpoint, make_scheme, safetensors_bytes, source_line

L0 = "model.layers.0"
BASE_RULES = ["CFG-020", "CFG-021", "CFG-022", "CFG-023", "CFG-024", "CFG-025", "CFG-026", "CFG-027",
              "CT-001", "CT-002", "CT-004", "CT-011", "CT-012", "CT-013", "CT-014", "CT-016", "CT-017",
              "CT-018", "CT-020", "CT-021"]


def layout_rules(layout, b):
    r = ["CT-003"] if layout == "ct-dense" or 32 % b == 0 else ["CT-010", "CT-015"]
    return r


def files_of(tensors, config):
    f = {"model.safetensors": safetensors_bytes(tensors)}
    if config is not None:
        f["config.json"] = config
    return f


def positive(out, family, name, layout, mods, schemes, *, what, extra_rules=(), drop_version=False, version=None,
             notes=None):
    tensors, pins, cfg = checkpoint(mods, schemes)
    if drop_version:
        del cfg["quantization_config"]["version"]
    if version is not None:
        cfg["quantization_config"]["version"] = version
    b = max(s.weights.num_bits for s in schemes.values())
    asym = any(not s.weights.symmetric for s in schemes.values())
    rules = sorted(set(BASE_RULES + layout_rules(layout, b) + (["CT-019"] if asym else []) + list(extra_rules)))
    out.case(family, name, verdict="pass", layout=layout, files=files_of(tensors, cfg), rules=rules,
             modules=pins, source=source_line(what), notes=notes)


def probes(b, shape=(8, 100)):
    """The seed's three probes in one checkpoint, one module each."""
    mods = [(Module(f"{L0}.mlp.up_proj", shape, "pattern", b), "group_0"),
            (Module(f"{L0}.mlp.gate_proj", shape, "random", 100 + b), "group_0"),
            (Module(f"{L0}.mlp.down_proj", shape, "allmax", b), "group_0")]
    return mods, {"group_0": make_scheme(b, "channel")}


def negative(out, family, name, rule, base, mutate, *, what):
    """base = (tensors, config); mutate(tensors, config) breaks exactly one thing."""
    tensors, cfg = copy.copy(base[0]), copy.deepcopy(base[1])
    mutate(tensors, cfg)
    fam = rule.split("-")[0]
    out.case(family, name, verdict="reject", reject_rule=rule, files=files_of(tensors, cfg), rules=[rule],
             source=source_line(what + f"; then broken by hand to violate {rule} only"),
             notes=f"one fault: {what}" if fam else None)


def base_checkpoint(mod, scheme):
    tensors, _, cfg = checkpoint([(mod, "group_0")], {"group_0": scheme})
    return tensors, cfg


def set_word_bit(t, index, bit):
    """Set one bit of one int32 word of a packed tensor (flat index), keeping the dtype."""
    flat = t.clone().reshape(-1)
    v = int(flat[index]) & 0xFFFFFFFF
    v |= 1 << bit
    flat[index] = v - (1 << 32) if v >= 1 << 31 else v
    return flat.reshape(t.shape)


def qc(cfg):
    return cfg["quantization_config"]


def group0(cfg):
    return qc(cfg)["config_groups"]["group_0"]


def torch_dtype(name):
    return getattr(torch, name)


__all__ = ["CT_VERSION", "L0", "Module", "make_scheme", "positive", "probes", "negative", "base_checkpoint",
           "set_word_bit", "qc", "group0"]
