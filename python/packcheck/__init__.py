"""packcheck: a conformance validator and hash-pinned corpus for quantized LLM checkpoints.

    import packcheck
    rep = packcheck.validate("ckpt/")                      # Report (dataclasses over the JSON report)
    rep.verdict, rep.inputs[0].failures
    for case in packcheck.corpus.cases(family="awq", verdict="pass"):
        view = case.expected_view()                        # {prefix: ModuleView(codes, weight)} numpy
    packcheck.certify("python my_reader.py {input} {output}")
    packcheck.testing.assert_view(case, my_view)           # certify's outcome and diagnosis, as an assert

Everything runs the packaged C binary (packcheck.binary_path()); nothing is reimplemented here."""
from __future__ import annotations

from . import corpus, testing  # packcheck.scale (Ray) is imported on demand
from ._binary import PackcheckError, binary_path
from .certify import CaseOutcome, CertifyReport, Diagnosis, FirstDiff, certify
from .report import InputReport, Report, RuleResult, validate

__version__ = "0.1.0"

__all__ = ["validate", "certify", "corpus", "testing", "binary_path", "PackcheckError", "Report", "InputReport",
           "RuleResult", "CertifyReport", "CaseOutcome", "FirstDiff", "Diagnosis", "__version__"]
