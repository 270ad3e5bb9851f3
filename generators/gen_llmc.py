"""llm-compressor model folders (family fp8/, cases llmc-*): what a user of llm-compressor's oneshot
gets on disk, saved whole (config.json, generation_config.json, recipe.yaml, model.safetensors).

Venv: llmc (generators/requirements-llmc.txt: llmcompressor 0.14.0.1 with the compressed-tensors
0.19.0 and transformers 5.17.0 it pins; torch and accelerate come from the ct venv through a .pth
file, so torch is 2.15.0, one minor above llmcompressor's declared `torch<=2.14.0`). The generator
re-runs itself there (PCGEN_VENV_LLMC, default /work/venvs/llmc).

The model is a one-layer LlamaForCausalLM built from a config (no download; random weights, torch
seed 0), hidden 130, two heads of 64 (q_proj [128, 130], k/v [64, 130], o_proj [130, 128]), with
odd intermediate sizes (260, 300) so the 128-blocks have partial edges. Saved, reloaded with
from_pretrained (oneshot reads the model's config from disk), then oneshot with:
  FP8 (static tensor input scales; calibration), FP8_DYNAMIC, FP8_BLOCK: QuantizationModifier;
  W8A8 (int8): SmoothQuantModifier(0.8) + GPTQModifier, as llm-compressor's W8A8-int8 example.
Calibration: 8 synthetic sequences of 16 random token ids (torch Generator seed 1) through a
64-word WordLevel tokenizer built here (oneshot requires a processor when a dataset is given).

Pins: codes = the stored bytes (int8: q + 128); f32 weights from compressed-tensors' own
decompress of the saved tensors with the scale cast to float32 (then its output is float32:
one multiply f32(x) * f32(s), CONTRACT 3). `library_check` records how its decompress with the
stored (bfloat16) scale compares to the f32 pin rounded to bfloat16.
"""
import json
import os
import shutil
import sys
import tempfile

from pcgen.corpus import module_pin
from pcgen.venv import here_or_in_venv

FAMILY = "fp8"
VENV = os.environ.get("PCGEN_VENV_LLMC", "/work/venvs/llmc")
FP8_RULES = ["FP8-001", "FP8-002", "FP8-003", "FP8-004", "FP8-005", "FP8-006", "FP8-008"]
PRESETS = [("llmc-fp8-static", "FP8", 260), ("llmc-fp8-dynamic", "FP8_DYNAMIC", 260),
           ("llmc-w8a8-int8", "W8A8", 260), ("llmc-fp8-block", "FP8_BLOCK", 300)]


def generate(out):
    return here_or_in_venv(__file__, VENV, out, "llmcompressor", ("llmcompressor",), _generate)


def tiny_llama(base, inter):
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast
    torch.manual_seed(0)
    cfg = LlamaConfig(vocab_size=64, hidden_size=130, intermediate_size=inter, num_hidden_layers=1,
                      num_attention_heads=2, num_key_value_heads=1, head_dim=64, max_position_embeddings=64,
                      tie_word_embeddings=False)
    LlamaForCausalLM(cfg).to(torch.bfloat16).save_pretrained(base)
    tk = Tokenizer(models.WordLevel({f"t{i}": i for i in range(64)}, unk_token="t0"))
    tk.pre_tokenizer = pre_tokenizers.Whitespace()
    tok = PreTrainedTokenizerFast(tokenizer_object=tk, unk_token="t0", pad_token="t1", eos_token="t2", bos_token="t3")
    tok.save_pretrained(base)
    return LlamaForCausalLM.from_pretrained(base, dtype=torch.bfloat16), tok


def run_oneshot(preset, inter, outd):
    import torch
    from datasets import Dataset
    from llmcompressor import oneshot
    from llmcompressor.modifiers.quantization import GPTQModifier, QuantizationModifier
    from llmcompressor.modifiers.smoothquant import SmoothQuantModifier
    m, tok = tiny_llama(outd + "-base", inter)
    g = torch.Generator().manual_seed(1)
    ids = [torch.randint(0, 64, (16,), generator=g).tolist() for _ in range(8)]
    ds = Dataset.from_dict({"input_ids": ids, "attention_mask": [[1] * 16] * 8})
    if preset == "W8A8":
        recipe = [SmoothQuantModifier(smoothing_strength=0.8), GPTQModifier(targets="Linear", scheme="W8A8", ignore=["lm_head"])]
    else:
        recipe = QuantizationModifier(targets="Linear", scheme=preset, ignore=["lm_head"])
    kw = dict(dataset=ds, num_calibration_samples=8, max_seq_length=16) if preset in ("FP8", "W8A8") else {}
    oneshot(model=m, recipe=recipe, processor=tok, **kw)
    m.save_pretrained(outd, save_compressed=True)


def pins_of(folder):
    """Pins of every quantized module of the saved folder, from the library's decompress."""
    import numpy as np
    import torch
    from compressed_tensors.compressors.naive_quantized import base as nq
    from compressed_tensors.quantization import QuantizationScheme
    from safetensors.torch import load_file
    cfg = json.load(open(os.path.join(folder, "config.json")))["quantization_config"]
    group = next(iter(cfg["config_groups"].values()))
    scheme = QuantizationScheme(**{k: v for k, v in group.items() if k != "format"})
    comp = {"float-quantized": nq.FloatQuantizationCompressor, "int-quantized": nq.IntQuantizationCompressor,
            "naive-quantized": nq.NaiveQuantizationCompressor}[group.get("format") or cfg["format"]]
    sd = load_file(os.path.join(folder, "model.safetensors"))
    pins, checks = {}, {}
    for k in sorted(sd):
        if not k.endswith(".weight_scale"):
            continue
        name = k[: -len(".weight_scale")]
        local = {n[len(name) + 1:]: v for n, v in sd.items() if n.startswith(name + ".")}
        w = local["weight"]
        f32 = dict(local, weight_scale=local["weight_scale"].float())
        lib32 = comp.decompress(f32, scheme)["weight"]
        lib = comp.decompress(dict(local), scheme)["weight"]
        assert lib32.dtype == torch.float32
        codes = (w.to(torch.int32) + 128).to(torch.uint8) if w.dtype == torch.int8 else w.view(torch.uint8)
        pins[name] = module_pin(tuple(w.shape), 8, np.ascontiguousarray(codes.numpy()).tobytes(),
                                np.ascontiguousarray(lib32.numpy()).astype("<f4").tobytes())
        checks[name] = {"library": f"compressed-tensors {comp.__name__}.decompress ({str(lib.dtype).replace('torch.', '')})",
                        "elements": int(lib.numel()),
                        "library_of_contract_differs": int((lib != lib32.to(lib.dtype)).sum())}
    return pins, checks


def _generate(out):
    import compressed_tensors
    import llmcompressor
    import torch
    import transformers
    ver = (f"llmcompressor {llmcompressor.__version__}, compressed-tensors {compressed_tensors.__version__}, "
           f"transformers {transformers.__version__}, torch {torch.__version__.split('+')[0]}")
    tmp = tempfile.mkdtemp(prefix="pcgen-llmc-")
    try:
        for name, preset, inter in PRESETS:
            d = os.path.join(tmp, name)
            run_oneshot(preset, inter, d)
            pins, checks = pins_of(d)
            files = {}
            for fn in sorted(os.listdir(d)):
                with open(os.path.join(d, fn), "rb") as f:
                    files[fn] = f.read()
            layout = "ct-int8" if preset == "W8A8" else "ct-fp8"
            rules = FP8_RULES + (["FP8-009"] if layout == "ct-int8" else [])
            recipe = "SmoothQuantModifier(0.8) + GPTQModifier" if preset == "W8A8" else "QuantizationModifier"
            out.case(FAMILY, name, verdict="pass", layout=layout, files=files, modules=pins, rules=rules,
                     source=f"{ver}: oneshot({recipe}, scheme {preset}) on a random-weight one-layer llama "
                            f"(hidden 130, intermediate {inter}), saved with save_pretrained(save_compressed=True); "
                            f"pins from compressed-tensors' decompress with float32 scales",
                     extra={"library_check": checks})
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from pcgen.venv import venv_main
    venv_main(_generate)
