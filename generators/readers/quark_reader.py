"""Reader adapter: AMD Quark (amd-quark 0.13) on `quant_method: quark` checkpoint folders, through Quark's own
reload: a model built from the folder's config.json (transformers, on CPU, bf16 as Quark's exports are),
quark.torch.import_model_from_safetensors(model, folder), then each QParamsLinear's _get_qweight(weight)
(StaticScaledRealQuantizer.forward: unpack, then dequantize) gives M.weight in f32. Quark offers no
code-level unpack of its own for every scheme, so the adapter writes weights only. Anything else is out of scope.
"""
import sys

import _common


def decode(inp):
    files, folder = _common.container_files(inp)
    if not files or any(f.endswith(".gguf") for f in files):
        raise _common.Refuse("not a safetensors checkpoint: out of scope")
    if str(_common.quant_config(folder).get("quant_method", "")).lower() != "quark":
        raise _common.Refuse("no quant_method quark: out of scope")
    import torch
    import transformers
    import quark
    from quark.torch import import_model_from_safetensors
    print(f"amd-quark {getattr(quark, '__version__', '?')}", file=sys.stderr)
    cfg = transformers.AutoConfig.from_pretrained(folder)
    model = transformers.AutoModelForCausalLM.from_config(cfg).to(torch.bfloat16)
    model = import_model_from_safetensors(model, folder)
    out = {}
    for name, m in model.named_modules():
        if type(m).__name__ == "QParamsLinear":
            out[name] = (None, m._get_qweight(m.weight).float().contiguous().numpy())
    return out


if __name__ == "__main__":
    _common.main(decode)
