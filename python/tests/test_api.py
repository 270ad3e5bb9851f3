"""The installed package's API against its own binary and corpus (run by scripts/test-python.sh
from outside the source tree, so `import packcheck` is the installed wheel)."""
import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import packcheck
from packcheck import corpus
from packcheck.testing import assert_view, check_view

pytest_plugins = ["pytester"]


def test_binary_and_version_match_the_package():
    exe = packcheck.binary_path()
    assert exe.is_file() and exe.parent.name == "bin"
    out = subprocess.run([str(exe), "--version"], capture_output=True, text=True, check=True).stdout
    assert out.split()[-1] == packcheck.__version__
    # the console script is the same binary
    cli = Path(sys.executable).parent / "packcheck"
    assert subprocess.run([str(cli), "--version"], capture_output=True, text=True, check=True).stdout == out


def test_corpus_version_and_digest_are_the_binarys():
    out = packcheck._binary.run(["corpus", "--version"]).stdout
    fields = dict(line.split(": ", 1) for line in out.strip().splitlines())
    assert fields["corpus-version"] == corpus.version()
    assert re.fullmatch(r"\d+\.\d+\.\d+", corpus.version())
    assert fields["manifest-sha256"] == corpus.manifest_sha256()
    assert Path(fields["path"]) == corpus.root().resolve()
    assert int(fields["cases"]) == len(corpus.cases())


def test_every_pinned_file_is_in_the_wheel():
    root = corpus.root()
    for line in (root / "MANIFEST.sha256").read_text().splitlines()[:50]:
        digest, rel = line.split("  ", 1)
        assert hashlib.sha256((root / rel).read_bytes()).hexdigest() == digest, rel


def test_validate_report_dataclasses():
    ok = packcheck.validate(corpus.case("awq/autoawq-gemm-g32-random").input)
    assert ok.accepted and ok.verdict == "pass" and ok.inputs[0].format == "awq-gemm"
    assert ok.inputs[0].status_of("AWQ-001") == "pass"
    assert ok.inputs[0].tensors.get("checked", 0) >= 1 and ok.inputs[0].unchecked == ()
    bad_case = corpus.case("awq/neg-bits-8")
    bad = packcheck.validate(bad_case.input)
    assert not bad.accepted and bad.exit_code == 1 and bad.verdict == "reject"
    assert bad_case.reject_rule in {r.rule for r in bad.inputs[0].failures}
    assert packcheck.validate("/nonexistent/x.safetensors").inputs[0].verdict == "error"


def test_a_path_is_never_an_option(tmp_path, monkeypatch):
    """Issue 30 item 10: a checkpoint folder named like an option stays an input ("--" before paths)."""
    import shutil
    from packcheck import scale
    monkeypatch.chdir(tmp_path)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep\n")
    src = corpus.case("awq/autoawq-gemm-g32-random").input
    evil = tmp_path / "--report=json:victim.txt"
    shutil.copytree(src, evil)
    rel = "--report=json:victim.txt"  # relative, exactly as an attacker-named folder arrives
    assert packcheck.validate(rel).verdict == "pass"
    recs = scale.validate_records([rel], hash=False)  # what each Ray task runs
    assert len(recs) == 1 and recs[0]["verdict"] == "pass"
    assert victim.read_text() == "keep\n"


def _mini_corpus(tmp_path, case_id):
    """A corpus of one case copied from the packaged one, with its MANIFEST lines."""
    import shutil
    root = corpus.root()
    dst = tmp_path / "corpus"
    shutil.copytree(root / case_id, dst / case_id)
    lines = [l for l in (root / "MANIFEST.sha256").read_text().splitlines() if l.split("  ", 1)[1].startswith(case_id + "/")]
    (dst / "MANIFEST.sha256").write_text("\n".join(lines) + "\n")
    return dst


def test_case_ids_stay_inside_the_corpus(tmp_path):
    """Issue 30 item 12: "ct//abs/path" and friends name no case outside the corpus."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "expect.json").write_text('{"verdict": "pass"}')
    for cid in ("ct/" + str(outside), "ct//" + str(outside).lstrip("/"), "../outside", "ct/..", "ct/../../outside"):
        with pytest.raises((ValueError, KeyError)):
            corpus.case(cid)
    mini = _mini_corpus(tmp_path, "awq/autoawq-gemm-g32-random")
    (mini / "awq" / "escape").symlink_to(outside)
    with pytest.raises(ValueError):
        corpus.case("awq/escape", corpus=mini)


def test_expected_view_is_held_to_the_manifest(tmp_path):
    """Issue 30 item 12: an edited expect.json or input is never served as the expected view."""
    cid = "awq/autoawq-gemm-g32-random"
    mini = _mini_corpus(tmp_path, cid)
    assert corpus.case(cid, corpus=mini).expected_view()
    ep = mini / cid / "expect.json"
    e = json.loads(ep.read_text())
    e["source"] += " (edited)"
    ep.write_text(json.dumps(e))
    with pytest.raises(corpus.PinMismatch):
        corpus.case(cid, corpus=mini).expected_view()
    mini2 = _mini_corpus(tmp_path / "2", cid)
    c = corpus.case(cid, corpus=mini2)
    (mini2 / cid / "stray.txt").write_text("not pinned")
    with pytest.raises(corpus.PinMismatch):
        c.expected_view()


def test_cases_filters():
    awq = corpus.cases(family="awq")
    assert awq and all(c.family == "awq" for c in awq)
    rej = corpus.cases(family="awq", verdict="reject")
    assert rej and all(c.verdict == "reject" and (c.reject_rule or c.reject_family) for c in rej)
    assert set(c.id for c in rej) < set(c.id for c in awq)
    assert all(c.reject_rule == "AWQ-001" for c in corpus.cases(rule="AWQ-001"))
    with pytest.raises(ValueError):
        corpus.cases(family="no-such-family")


@pytest.mark.parametrize("family", ["awq", "ct", "gptq", "nvfp4", "gguf", "equiv"])
def test_expected_view_matches_the_pins(family):
    c = next((c for c in corpus.cases(family=family) if c.pins and c.verdict != "reject"), None)
    if c is None:
        pytest.skip(f"no {family} case pins a view")
    views = c.expected_view()
    assert set(views) == set(c.pins)
    for prefix, v in views.items():
        pin = c.pins[prefix]
        if v.codes is not None:
            assert v.codes.dtype == np.uint8 and list(v.codes.shape) == pin["shape"]
            assert hashlib.sha256(v.codes.tobytes()).hexdigest() == pin["codes_sha256"]
        if v.weight is not None:
            assert v.weight.dtype == np.float32
            assert hashlib.sha256(v.weight.tobytes()).hexdigest() == pin["weight_f32_sha256"]


def test_check_view_reuses_certify_diagnosis():
    c = corpus.case("awq/autoawq-gemm-g32-random")
    views = c.expected_view()
    assert assert_view(c, views).passed                       # the pinned view itself passes
    (prefix, v), = views.items()
    # the AWQ interleave left in place: nibble i (true column 8c + ORDER[i]) read as column 8c + i
    order = np.array([0, 2, 4, 6, 1, 3, 5, 7])
    bad = v.codes.reshape(-1, 8, v.codes.shape[1])[:, order, :]   # [N/8, 8, K]
    oc = check_view(c, {f"{prefix}.codes": bad.reshape(v.codes.shape)})
    assert oc.outcome == "wrong-output" and oc.diagnosis and oc.diagnosis.bug == "awq-order"
    assert oc.first_diff is not None and oc.first_diff.tensor == "codes"
    with pytest.raises(AssertionError, match="awq-order"):
        assert_view(c, {f"{prefix}.codes": bad.reshape(v.codes.shape)})


def test_refusal_is_the_right_answer_for_a_reject_case():
    c = corpus.case("awq/neg-bits-8")
    assert check_view(c, None).passed
    assert check_view(corpus.case("awq/autoawq-gemm-g32-random"), None).outcome == "rejected-valid"


def test_certify_the_packaged_correct_reader():
    exe = packcheck.binary_path()
    rep = packcheck.certify(f"'{exe}' unpack {{input}} --out {{output}}", only=["awq/"])
    assert rep.certified and rep.corpus_version == corpus.version()
    assert rep.manifest_sha256 == corpus.manifest_sha256()
    assert all(c.passed for c in rep.cases) and len(rep.cases) == len(corpus.cases(family="awq"))


def test_plugin_parametrises_over_the_marker(pytester):
    pytester.makepyfile("""
        import pytest
        @pytest.mark.packcheck(family="q40")
        def test_one(packcheck_case):
            assert packcheck_case.family == "q40"
        @pytest.mark.packcheck(case="awq/neg-bits-8")
        def test_refuse(packcheck_case):
            packcheck_case.check(None)
    """)
    res = pytester.runpytest_subprocess("-q")
    res.assert_outcomes(passed=len(corpus.cases(family="q40")) + 1)
    res2 = pytester.runpytest_subprocess("--co")
    assert any("packcheck corpus " in line for line in res2.outlines)


def test_missing_path_carries_the_reason():
    # issue 32 item 8: an unreadable input says why, not only "error"
    rep = packcheck.validate("/nonexistent/x.safetensors")
    assert rep.inputs[0].verdict == "error" and rep.exit_code == 2
    assert "no such file" in rep.inputs[0].error


def test_gguf_cases_have_their_layout_and_scope():
    # issue 32 item 6: a GGUF case's layout is its block type; a reader selects its scope
    c = corpus.case("gq/q8_0-d-inf")
    assert c.format == "gguf" and c.layout == "q8_0" and c.layouts == ("q8_0",)
    mixed = corpus.case("gq/mixed-q4_0-q4_1-q8_0")
    assert set(mixed.layouts) == {"q4_0", "q4_1", "q8_0"}
    q8 = corpus.cases(layout="q8_0", format="gguf")
    ids = {x.id for x in q8}
    assert "gq/q8_0-d-inf" in ids and "llama/llama-q8-0" in ids and mixed.id not in ids
    assert all(x.format == "gguf" and set(x.layouts) <= {"q8_0"} for x in q8)
    assert not any(x.id.startswith("gq/iq") for x in q8)
    assert corpus.case("awq/neg-bits-8").format == "safetensors"


def test_plugin_marker_takes_a_declared_scope_and_case_lists(pytester):
    pytester.makepyfile("""
        import pytest
        @pytest.mark.packcheck(layout="q8_0", format="gguf")
        def test_q8(packcheck_case):
            assert packcheck_case.format == "gguf" and set(packcheck_case.layouts) <= {"q8_0"}
        @pytest.mark.packcheck(case=["awq/neg-bits-8", "awq/neg-no-config"])
        def test_two(packcheck_case):
            packcheck_case.check(None)
    """)
    res = pytester.runpytest_subprocess("-q")
    res.assert_outcomes(passed=len(corpus.cases(layout="q8_0", format="gguf")) + 2)
