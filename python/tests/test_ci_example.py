"""The README CI example's runner (ci_example/run_readme_ci.py, issue 32 item 1): the certify step's
per-case timeout is calibrated on the machine as it is (the reader on one case, slowest of three runs,
x20, never below certify's default) and said in the log; a failed certify step names its outcomes."""
import importlib.util
import json
import os
import sys
from pathlib import Path

import packcheck.corpus

_spec = importlib.util.spec_from_file_location("run_readme_ci", Path(__file__).parent / "ci_example" / "run_readme_ci.py")
rr = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rr)
CASE = str(packcheck.corpus.case(rr.CALIBRATION_CASE).input)


def test_reader_template_is_found():
    assert rr.reader_of("packcheck certify --reader 'python3 t.py {input} {output}' --report json:x") == "python3 t.py {input} {output}"
    assert rr.reader_of("packcheck certify --reader=r {input} {output}") == "r"
    assert rr.reader_of("packcheck corpus --version") is None


def test_a_fast_reader_keeps_the_default(tmp_path):
    limit, slowest = rr.calibrate("true {input} {output}", tmp_path, dict(os.environ), CASE)
    assert limit == rr.DEFAULT_TIMEOUT and slowest >= 0


def test_a_slow_machine_gets_a_longer_limit(tmp_path):
    # a reader that needs at least 0.7 s per case stands in for a busy machine: the limit scales with it
    reader = f"{sys.executable} -c 'import time; time.sleep(0.7)' {{input}} {{output}}"
    limit, slowest = rr.calibrate(reader, tmp_path, dict(os.environ), CASE, runs=1)
    assert slowest >= 0.7 and limit >= 0.7 * rr.SCALE > rr.DEFAULT_TIMEOUT


def test_failed_certify_step_names_its_outcomes(tmp_path):
    (tmp_path / "certify.json").write_text(json.dumps({"counts": {"pass": 300, "timeout": 46, "crash": 1, "unexpected": 47}}))
    assert rr.certify_failure(tmp_path) == "1 crash, 46 timeout"
    assert rr.certify_failure(tmp_path / "nowhere") == "no certify.json written"
