"""`--report sarif:PATH` against the published SARIF 2.1.0 schema (sarif-2.1.0-rtm.5.json, shipped
in the npm package @microsoft/jest-sarif; scripts/test-python.sh fetches it with `npm pack`, checks
its pinned SHA-256 and passes its path in PACKCHECK_SARIF_SCHEMA). The whole corpus goes through
validate once, so every rule family's findings and offsets are in the log."""
import json
import os
import subprocess
from pathlib import Path

import pytest

import packcheck
from packcheck import corpus

SCHEMA = os.environ.get("PACKCHECK_SARIF_SCHEMA")


@pytest.mark.skipif(not SCHEMA, reason="no SARIF schema (PACKCHECK_SARIF_SCHEMA): validator/tests/test_sarif.c checks the structure")
def test_sarif_validates_against_the_2_1_0_schema(tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(Path(SCHEMA).read_text())
    inputs = [str(c.input) for c in corpus.cases() if c.family != "equiv"]
    out = tmp_path / "corpus.sarif"
    proc = subprocess.run([str(packcheck.binary_path()), "validate", *inputs, "--quiet", "--report", f"sarif:{out}"],
                          capture_output=True, text=True)
    assert proc.returncode in (0, 1, 2, 3), proc.stderr
    log = json.loads(out.read_text())
    errors = sorted(jsonschema.Draft4Validator(schema).iter_errors(log), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:10])
    results = log["runs"][0]["results"]
    assert len(results) > 100 and {r["level"] for r in results} == {"error", "warning"}
    assert any("region" in r["locations"][0]["physicalLocation"] for r in results)
