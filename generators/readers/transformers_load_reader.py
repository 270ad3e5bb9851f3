"""Reader adapter, loader depth: transformers' own `from_pretrained` of the checkpoint folder.

transformers_reader.py calls transformers' dequantisation helpers on tensors it read itself; this
adapter runs the load path users run: `PreTrainedModel.from_pretrained(folder, quantization_config=...)`
picks the HfQuantizer from config.json, which rewrites the model's modules before loading
(`_process_model_before_weight_loading`), maps the checkpoint's tensors onto the parameters through its
weight conversions / load operations, and post-processes them. The adapter then reads every quantized
module's `weight` back as the loaded model holds it and writes it in that dtype (BF16/F16/F32: the
reader's precision, CONTRACT 5), as M.weight [out, in] (experts [E, out, in]). No codes.

  compressed-tensors: CompressedTensorsConfig(dequantize=True), the successor of run_compressed=False
                      (CompressedTensorsDequantize decompresses each module's serialized tensors at load).
  fp8:                FineGrainedFP8Config(dequantize=True) (the checkpoint's weight_scale_inv applied).
Anything else: out of scope (exit 1), with the reason.

The model: the fixtures are single modules or partial models with odd shapes, so no real architecture
fits them. The adapter builds a config-matched skeleton instead: a PreTrainedModel whose config is
AutoConfig.from_pretrained(folder) (the case's config.json; none: out of scope, 'no model config') and
whose modules are plain nn.Linear at the checkpoint's tensor names, their sizes taken from the stored
tensors (compressed-tensors `weight_shape` when stored, else the weight's own shape; NVFP4's packed
uint8 [out, in/2]). Every quantizer then sees the nn.Linear modules it targets, as in a real model.
"""
import json
import os
import sys

import _common

# The serialized names of a quantized linear, per method (transformers' quantizers list the same).
COMPANIONS = {
    "compressed-tensors": ("weight_packed", "weight_scale", "weight_zero_point", "weight_global_scale",
                           "weight_shape", "weight_g_idx", "input_scale", "input_global_scale"),
    "fp8": ("weight_scale_inv", "input_scale", "activation_scale"),
}
QUANTIZED_MARK = {"compressed-tensors": ("weight_scale", "weight_packed"), "fp8": ("weight_scale_inv",)}


def linear_shapes(tensors, method):
    """{module: (out, in)} for every module the checkpoint stores a quantized linear for."""
    import torch
    shapes = {}
    for name in tensors:
        mod, _, leaf = name.rpartition(".")
        # A stored FP8 `weight` marks a quantized linear even when its scale is missing (the file's
        # fault the loader must catch: a real model has the module, so the skeleton must have it too).
        fp8_weight = leaf == "weight" and tensors[name].dtype == torch.float8_e4m3fn
        if (leaf not in QUANTIZED_MARK[method] and not fp8_weight) or mod in shapes:
            continue
        t = lambda leaf: tensors.get(f"{mod}.{leaf}")
        if t("weight_shape") is not None:
            shapes[mod] = tuple(int(v) for v in t("weight_shape").tolist())
        elif t("weight") is not None:
            shapes[mod] = tuple(t("weight").shape)
        elif t("weight_packed") is not None and t("weight_packed").dtype == torch.uint8:
            out, half = t("weight_packed").shape  # two FP4 codes a byte
            shapes[mod] = (out, 2 * half)
        else:
            raise _common.Refuse(f"{mod}: cannot size the module from the checkpoint")
    return shapes


def skeleton_class(config_class):
    """A PreTrainedModel of plain nn.Linear modules at the given dotted names."""
    import torch
    from transformers import PreTrainedModel

    class Skeleton(PreTrainedModel):
        base_model_prefix = ""
        _no_split_modules = []

        def __init__(self, config, shapes=None):
            super().__init__(config)
            for mod, (out, inp) in sorted((shapes or {}).items()):
                parent = self
                *path, leaf = mod.split(".")
                for p in path:
                    if not hasattr(parent, p):
                        parent.add_module(p, torch.nn.Module())
                    parent = getattr(parent, p)
                parent.add_module(leaf, torch.nn.Linear(inp, out, bias=False))
            self.post_init()

        def _init_weights(self, module):
            pass

    Skeleton.config_class = config_class
    return Skeleton


def quantization_config(method, qcfg):
    from transformers import CompressedTensorsConfig, FineGrainedFP8Config
    if method == "compressed-tensors":
        return CompressedTensorsConfig.from_dict({**qcfg, "dequantize": True})
    # the checkpoint's own `dequantize` (transformers writes it, false) gives way to the adapter's
    args = {k: v for k, v in qcfg.items() if k not in ("quant_method", "dequantize")}
    return FineGrainedFP8Config(**args, dequantize=True)


def decode(inp):
    files, folder = _common.container_files(inp)
    if not files or any(f.endswith(".gguf") for f in files):
        raise _common.Refuse("not a safetensors checkpoint: out of scope")
    if not os.path.exists(os.path.join(folder, "config.json")):
        raise _common.Refuse("out of scope: no model config")
    qcfg = _common.quant_config(folder)
    method = qcfg.get("quant_method")
    if method not in COMPANIONS:
        raise _common.Refuse(f"quant_method {method!r}: out of scope")
    import torch
    import transformers
    from transformers import AutoConfig
    print(f"transformers {transformers.__version__}", file=sys.stderr)
    config = AutoConfig.from_pretrained(folder)
    shapes = linear_shapes(_common.read_safetensors(files), method)
    if not shapes:
        raise _common.Refuse(f"no {method} linear in the input")
    model = skeleton_class(type(config)).from_pretrained(
        folder, config=config, shapes=shapes, quantization_config=quantization_config(method, qcfg), dtype="auto")
    out = {}
    for mod in shapes:
        w = model.get_submodule(mod).weight.detach()
        out[mod] = (None, w.float().numpy() if w.dtype == torch.float32 else w)
    return out


if __name__ == "__main__":
    _common.main(decode)
