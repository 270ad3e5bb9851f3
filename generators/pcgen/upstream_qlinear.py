"""Import the GPTQ/AWQ packers of the real upstream libraries on a CPU-only machine.

AutoGPTQ 0.7.1 and AutoAWQ 0.2.9 are installed with `pip install --no-deps` (their CUDA kernels and
their pins of torch/transformers cannot be met here). Their top-level packages import model code
that no longer loads with transformers 5 (AutoGPTQ: `no_init_weights`; AutoAWQ: `datasets`), so
the package objects are registered without running their `__init__.py`, and only the modules that
pack and unpack are imported, unchanged, from the installed files:

  auto_gptq/nn_modules/qlinear/qlinear_cuda.py   QuantLinear.pack      (v1 writer, honours g_idx)
  awq/modules/linear/gemm.py                     WQLinear_GEMM.from_linear (GEMM writer)
  awq/utils/packing_utils.py                     unpack_awq, reverse_awq_order (AutoAWQ's reader)
  awq/models/_config.py                          AwqConfig (config writer)

GPTQModel 7.7.0 imports whole (its CUDA extensions are optional); its banner goes to stdout and is
swallowed here.
"""
import contextlib
import importlib.util
import io
import logging
import os
import sys
import types
import warnings


def _stub_package(name):
    """Register package `name` without executing its __init__.py, so that its submodules can be
    imported one by one. The package's files are those of the installed distribution."""
    if name in sys.modules:
        return sys.modules[name]
    parent, _, leaf = name.rpartition(".")
    if parent:
        path = [os.path.join(_stub_package(parent).__path__[0], leaf)]
    else:
        spec = importlib.util.find_spec(name)
        path = list(spec.submodule_search_locations)
    m = types.ModuleType(name)
    m.__path__ = path
    m.__package__ = name
    sys.modules[name] = m
    return m


def autogptq():
    """(qlinear_cuda module, version string)."""
    from importlib.metadata import version
    _stub_package("auto_gptq")
    logging.getLogger("auto_gptq").setLevel(logging.ERROR)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from auto_gptq.nn_modules.qlinear import qlinear_cuda
    return qlinear_cuda, version("auto-gptq")


def autoawq():
    """(gemm module, packing_utils module, _config module, version string)."""
    from importlib.metadata import version
    _stub_package("awq")
    _stub_package("awq.models")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from awq.models import _config
        from awq.modules.linear import gemm
        from awq.utils import packing_utils
    return gemm, packing_utils, _config, version("autoawq")


def gptqmodel():
    """The gptqmodel package (fully imported), with its logs and banner silenced."""
    os.environ.setdefault("GPTQMODEL_NO_BANNER", "1")
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import gptqmodel as g
        from gptqmodel.nn_modules.qlinear.torch import TorchLinear  # noqa: F401
        from gptqmodel.quantization.config import QuantizeConfig  # noqa: F401
        from gptqmodel.utils import model as _model  # noqa: F401
        from gptqmodel.utils import model_dequant as _dq  # noqa: F401
    return g
