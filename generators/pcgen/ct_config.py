"""config.json as compressed-tensors' ModelCompressor.update_config writes it.

Kept apart from ct_common, which imports compressors that compressed-tensors 0.13.0 lacks
(compressors.pack_quantized): the MXFP4 generator also runs in the 0.13.0 venv."""
import json
import os
import tempfile


def config_json(groups, *, ignore=("lm_head",), fmt="pack-quantized"):
    """config.json as the library's ModelCompressor.update_config writes it."""
    from compressed_tensors.compressors.model_compressors.model_compressor import ModelCompressor
    from compressed_tensors.quantization import QuantizationConfig
    qc = QuantizationConfig(config_groups=groups, format=fmt, quantization_status="compressed", ignore=list(ignore))
    d = tempfile.mkdtemp(prefix="pcgen-ct-")
    try:
        with open(os.path.join(d, "config.json"), "w") as f:
            json.dump({"architectures": ["PackcheckFixture"], "model_type": "llama"}, f)
        ModelCompressor(quantization_config=qc).update_config(d)
        with open(os.path.join(d, "config.json")) as f:
            return json.load(f)
    finally:
        for n in os.listdir(d):
            os.unlink(os.path.join(d, n))
        os.rmdir(d)
