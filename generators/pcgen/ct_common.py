"""Shared by gen_ct_dense.py (compressed-tensors newest, ct-dense) and gen_ct_legacy.py (0.17.1,
ct-legacy): build pack-quantized checkpoints with the library's own compressor and config writer,
and pin each module's logical view from the library's own unpacker.

Nothing here packs or unpacks bits: codes come from compressed-tensors' quantize + pack_to_int32
(through PackedQuantizationCompressor.compress) and go back through its unpack_from_int32. The f32
weight of the contract, f32(q - zp) * f32(scale), is computed in numpy float32 from the
library-unpacked codes and zero points and the stored scales converted to f32.
"""
import io

import numpy as np
import torch
import compressed_tensors
from compressed_tensors.compressors.pack_quantized.base import PackedQuantizationCompressor
from compressed_tensors.compressors.pack_quantized.helpers import pack_to_int32, unpack_from_int32
from compressed_tensors.quantization import QuantizationArgs, QuantizationScheme
from safetensors.torch import save as st_save

from pcgen.corpus import module_pin
from pcgen.ct_config import config_json  # noqa: F401  (re-exported: the generators import it from here)

CT_VERSION = compressed_tensors.__version__
TORCH_VERSION = torch.__version__.split("+")[0]


def probe_u(kind, shape, b, seed):
    """The seed's three probes as unsigned codes: patterned ((r*7 + c*3) mod 2^b over the last two
    dims), seeded random, and all-max (2^b - 1: the sign-bit trap)."""
    top = 1 << b
    if kind == "pattern":
        r = np.arange(shape[-2])[:, None]
        c = np.arange(shape[-1])[None, :]
        u = (r * 7 + c * 3) % top
        return np.broadcast_to(u, shape).copy() if len(shape) == 3 else u
    if kind == "random":
        return np.random.default_rng(seed).integers(0, top, size=shape)
    if kind == "allmax":
        return np.full(shape, top - 1)
    raise ValueError(kind)


def scale_shape(strategy, shape, group_size=None, block=None):
    lead, (n, k) = tuple(shape[:-2]), shape[-2:]
    if strategy == "tensor":
        return lead + (1,)
    if strategy == "channel":
        return lead + (n, 1)
    if strategy == "group":
        return lead + (n, -(-k // group_size))
    if strategy == "block":
        return lead + (-(-n // block[0]), -(-k // block[1]))
    raise ValueError(strategy)


def expand(t, strategy, shape, group_size=None, block=None, g_idx=None):
    """Per-element view [.., N, K] of a scale-shaped array (the contract's indexing)."""
    n, k = shape[-2:]
    if strategy == "tensor":
        return np.broadcast_to(t.reshape(t.shape[:-1] + (1, 1)), shape)
    if strategy == "channel":
        return np.broadcast_to(t, shape)
    if strategy == "group":
        gi = g_idx if g_idx is not None else np.arange(k) // group_size
        return t[..., gi]
    if strategy == "block":
        return t[..., np.arange(n) // block[0], :][..., np.arange(k) // block[1]]
    raise ValueError(strategy)


class Module:
    """One Linear (or a 3-D MoE weight) to quantize and pack."""

    def __init__(self, name, shape, probe="random", seed=0, scale_dtype=torch.bfloat16):
        self.name, self.shape, self.probe, self.seed, self.scale_dtype = name, tuple(shape), probe, seed, scale_dtype


def make_scheme(b, strategy, symmetric=True, group_size=None, block=None, actorder=None, targets=("Linear",)):
    kw = dict(num_bits=b, type="int", symmetric=symmetric, strategy=strategy)
    if group_size is not None:
        kw["group_size"] = group_size
    if block is not None:
        kw["block_structure"] = list(block)
    if actorder is not None:
        kw["actorder"] = actorder
    return QuantizationScheme(targets=list(targets), weights=QuantizationArgs(**kw))


def quantize_module(mod, scheme):
    """Returns (state dict as the library's compressor leaves it, pin for expect.json)."""
    a = scheme.weights
    b, strategy = a.num_bits, str(getattr(a.strategy, "value", a.strategy))
    gs = a.group_size
    block = a.block_structure
    half = 1 << (b - 1)
    shape = mod.shape
    rng = np.random.default_rng(1000 + mod.seed)
    u = probe_u(mod.probe, shape, b, mod.seed)
    q = (u - half).astype(np.int64)
    sshape = scale_shape(strategy, shape, gs, block)
    scale = torch.tensor(rng.uniform(0.002, 0.05, size=sshape), dtype=torch.float32).to(mod.scale_dtype)
    sd = {"weight_scale": scale}
    zp = np.zeros(sshape, dtype=np.int64)
    if not a.symmetric:
        zp = rng.integers(-half, half, size=sshape)
        sd["weight_zero_point"] = torch.tensor(zp, dtype=torch.int8)
    g_idx = None
    actorder = getattr(a.actorder, "value", a.actorder)
    if actorder == "group":
        k = shape[-1]
        g_idx = rng.permutation(np.arange(k) // gs).astype(np.int64)  # scrambled, every group used
        sd["weight_g_idx"] = torch.tensor(g_idx, dtype=torch.int32)
    # A float weight that the library's quantizer maps back to exactly q: x = (q - zp) * scale.
    zp_full = expand(zp, strategy, shape, gs, block, g_idx)
    s_full = expand(scale.float().numpy(), strategy, shape, gs, block, g_idx)
    x = ((q - zp_full).astype(np.float32) * s_full).astype(np.float32)
    sd["weight"] = torch.tensor(x, dtype=torch.float32)
    out = PackedQuantizationCompressor.compress(sd, scheme)
    out = {k: v.contiguous() for k, v in out.items()}
    pin = library_pin(out, b, strategy, gs, block)
    got_q = unpack_from_int32(out["weight_packed"], b, torch.Size(shape)).numpy().astype(np.int64)
    assert np.array_equal(got_q, q), f"{mod.name}: the library's quantizer did not reproduce the probe"
    return out, pin


def unpack_zero_point(out, b, strategy, shape):
    """Signed zero points in the scale's shape, as the library's decompress unpacks them."""
    zp = out.get("weight_zero_point")
    if zp is None:
        return None
    if strategy not in ("group", "channel"):
        return zp.numpy().astype(np.int64)
    g = out["weight_scale"].shape[-1]
    if len(shape) == 3:
        return np.stack([unpack_from_int32(zp[e], b, torch.Size((shape[1], g)), packed_dim=0).numpy()
                         for e in range(shape[0])]).astype(np.int64)
    return unpack_from_int32(zp, b, torch.Size((shape[0], g)), packed_dim=0).numpy().astype(np.int64)


def library_pin(out, b, strategy, gs, block):
    shape = tuple(int(v) for v in out["weight_shape"].tolist())
    q = unpack_from_int32(out["weight_packed"], b, torch.Size(shape)).numpy().astype(np.int64)
    zp = unpack_zero_point(out, b, strategy, shape)
    g_idx = out["weight_g_idx"].numpy().astype(np.int64) if "weight_g_idx" in out else None
    scale = out["weight_scale"].float().numpy()
    s_full = expand(scale, strategy, shape, gs, block, g_idx).astype(np.float32)
    z_full = 0 if zp is None else expand(zp, strategy, shape, gs, block, g_idx)
    codes = (q + (1 << (b - 1))).astype(np.uint8)
    w = (q - z_full).astype(np.float32) * s_full
    assert w.dtype == np.float32
    return module_pin(shape, b, codes.tobytes(), np.ascontiguousarray(w).astype("<f4").tobytes())




def safetensors_bytes(tensors):
    return st_save({k: v.contiguous() for k, v in tensors.items()}, metadata={"format": "pt"})


def checkpoint(mods, schemes, *, ignore=("lm_head",)):
    """mods: list of (Module, group name); schemes: {group name: scheme}. Returns tensors, pins,
    config dict."""
    tensors, pins = {}, {}
    for mod, gname in mods:
        out, pin = quantize_module(mod, schemes[gname])
        for k, v in out.items():
            tensors[f"{mod.name}.{k}"] = v
        pins[mod.name] = pin
    return tensors, pins, config_json(schemes, ignore=ignore)


def source_line(what):
    return (f"compressed-tensors {CT_VERSION} (torch {TORCH_VERSION}): PackedQuantizationCompressor.compress "
            f"(quantize + pack_to_int32) and ModelCompressor.update_config; pins from unpack_from_int32 and "
            f"numpy float32 f32(q - zp) * f32(scale). {what}")
