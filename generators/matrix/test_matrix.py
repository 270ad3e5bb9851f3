"""Unit tests of the matrix's history logic and page builder on a made-up history (standard library
only, no venv, no reader): bisection targets, first bad / last good, fixes, the environment axis,
and the index.json interface. Run: python3 generators/matrix/test_matrix.py"""
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import history  # noqa: E402
import pages  # noqa: E402
from plan import version_key  # noqa: E402

READER = {"name": "toy", "slug": "toy", "language": "Python", "mode": "decode", "claims": ["CT"],
          "versions": ["1.9.0", "1.10.0", "1.10.1", "1.11.0", "1.12.0"], "anchors": ["1.9.0", "1.12.0"],
          "environments": ["cpu-library", "cuda-library"]}


def line(version, results, env="cpu-library", cases=None, failures=None):
    return {"reader": "toy", "slug": "toy", "language": "Python", "version": version, "environment": env,
            "corpus_digest": "d" * 64, "packcheck_version": "0.1.0", "adapter_sha256": "a" * 64, "date": "2026-12-04",
            "partial": bool(cases), "cases_key": history.cases_key(cases), "cases_requested": cases,
            "run": len(results), "exercised": len(results), "passed": sum(v == "pass" for v in results.values()),
            "families": {"CT": [sum(v == "pass" for v in results.values()), len(results)]},
            "certificate": "sha256:" + "c" * 64, "results": results, "failures": failures or {}}


class Bisect(unittest.TestCase):
    def test_release_order_is_numeric(self):
        self.assertEqual(sorted(["1.10.0", "1.9.0", "1.10.1", "0.14.0.1", "0.15.0"], key=version_key),
                         ["0.14.0.1", "0.15.0", "1.9.0", "1.10.0", "1.10.1"])

    def test_walks_to_adjacent_releases(self):
        recs = [line("1.9.0", {"ct/a": "pass", "ct/b": "pass"}), line("1.12.0", {"ct/a": "wrong-output", "ct/b": "pass"})]
        self.assertEqual(history.bisect_targets(READER, "cpu-library", recs), [("1.10.1", ["ct/a"])])
        recs.append(line("1.10.1", {"ct/a": "wrong-output"}, cases=["ct/a"]))
        self.assertEqual(history.bisect_targets(READER, "cpu-library", recs), [("1.10.0", ["ct/a"])])
        recs.append(line("1.10.0", {"ct/a": "pass"}, cases=["ct/a"]))
        self.assertEqual(history.bisect_targets(READER, "cpu-library", recs), [])
        regs, fixes, _ = pages.changes(READER, recs, {"ct/a": "reports/findings/toy-1.12.0-1.md"})
        self.assertEqual(len(regs), 1)
        r = regs[0]
        self.assertEqual((r["case"], r["last_good"], r["first_bad"], r["bisected"]), ("ct/a", "1.10.0", "1.10.1", True))
        self.assertEqual(r["finding"], "reports/findings/toy-1.12.0-1.md")
        self.assertEqual(fixes, [])

    def test_unbisected_change_says_so_and_a_fix_is_not_a_regression(self):
        recs = [line("1.9.0", {"ct/a": "pass", "ct/b": "rejected-valid"}),
                line("1.12.0", {"ct/a": "crash", "ct/b": "pass"})]
        regs, fixes, _ = pages.changes(READER, recs, {})
        self.assertEqual([(r["case"], r["first_bad"], r["bisected"]) for r in regs], [("ct/a", "1.12.0", False)])
        self.assertEqual([(f["case"], f["after"]) for f in fixes], [("ct/b", "1.12.0")])

    def test_out_of_scope_in_a_partial_run_is_not_a_failure(self):
        recs = [line("1.9.0", {"ct/a": "pass"}), line("1.12.0", {"ct/a": "pass"}),
                line("1.10.1", {}, cases=["ct/a"])]
        regs, fixes, other = pages.changes(READER, recs, {})
        self.assertEqual(regs, [])
        self.assertEqual([(o["from"], o["to"]) for o in other], [("pass", "out-of-scope"), ("out-of-scope", "pass")])

    def test_environment_axis(self):
        recs = [line("1.12.0", {"ct/a": "pass", "ct/b": "pass"}, env="cpu-library"),
                line("1.12.0", {"ct/a": "wrong-output", "ct/b": "pass"}, env="cuda-library")]
        d = pages.env_differences(READER, recs)
        self.assertEqual(d, [{"version": "1.12.0", "case": "ct/a",
                              "statuses": {"cpu-library": "pass", "cuda-library": "wrong-output"}}])


LOGURU = ("Traceback (most recent call last):\n  File \"/work/venvs/x/lib/python3.11/site-packages/compressed_tensors/logger.py\","
          " line 13, in <module>\n    from loguru import logger\nModuleNotFoundError: No module named 'loguru'\n")


def certificate(tmp, outcomes, tails):
    """A certify JSON report of CT cases with the given outcomes and reader log tails."""
    import tempfile
    cases = [{"case": c, "outcome": o, "rules": ["CT-010"], "log_tail": tails.get(c, ""),
              "detail": "refused a valid input" if o != "pass" else None} for c, o in outcomes.items()]
    fd, path = tempfile.mkstemp(suffix=".json", dir=tmp)
    with os.fdopen(fd, "w") as f:
        json.dump({"cases": cases, "manifest_sha256": "d" * 64, "packcheck_version": "0.1.0",
                   "counts": {"run": len(cases)}}, f)
    return path


class EnvironmentFailure(unittest.TestCase):
    """A venv that cannot import the reader is not a reader result (issue 28: two compressed-tensors
    runs recorded '0 passed of 29', every case 'No module named loguru')."""

    def setUp(self):
        import tempfile
        self.tmp = tempfile.mkdtemp()
        self.reader = dict(READER, adapter="ct_reader.py")

    def record(self, outcomes, tails):
        from unittest import mock
        with mock.patch.object(history, "adapter_digest", return_value="a" * 64):
            return history.record_from_certificate(certificate(self.tmp, outcomes, tails), self.reader, "1.9.0", "cpu-library", None)

    def test_every_case_one_import_error_is_an_environment_failure(self):
        rec = self.record({"ct/a": "rejected-valid", "ct/b": "rejected-valid"}, {"ct/a": LOGURU, "ct/b": LOGURU})
        self.assertEqual(rec["environment_failure"], "ModuleNotFoundError: No module named 'loguru'")
        self.assertFalse(history.is_result(rec))

    def test_a_pass_or_another_failure_makes_it_a_result(self):
        rec = self.record({"ct/a": "pass", "ct/b": "rejected-valid"}, {"ct/b": LOGURU})
        self.assertNotIn("environment_failure", rec)
        rec = self.record({"ct/a": "wrong-output", "ct/b": "rejected-valid"}, {"ct/b": LOGURU})
        self.assertNotIn("environment_failure", rec)
        rec = self.record({"ct/a": "rejected-valid", "ct/b": "rejected-valid"},
                          {"ct/a": LOGURU, "ct/b": "ImportError: cannot import name 'unpack_from_int32'"})
        self.assertNotIn("environment_failure", rec)

    def test_runner_records_it_marked_sets_the_report_aside_and_reruns_its_key(self):
        cli = load_cli()
        path = os.path.join(self.tmp, "history.jsonl")
        cert = certificate(self.tmp, {"ct/a": "rejected-valid"}, {"ct/a": LOGURU})
        rec = self.record({"ct/a": "rejected-valid"}, {"ct/a": LOGURU})
        import contextlib
        import io
        from unittest import mock
        append = history.append
        with mock.patch.object(history, "append", lambda r: append(r, path)), contextlib.redirect_stderr(io.StringIO()):
            self.assertTrue(cli.environment_failed(rec, cert))
            self.assertFalse(cli.environment_failed(dict(rec, environment_failure=None), cert))
        self.assertFalse(os.path.exists(cert))
        self.assertTrue(os.path.exists(cert + ".environment-failure"))
        recs = history.load(path)
        self.assertEqual(len(recs), 1)
        self.assertEqual(history.keys(recs, "d" * 64, "0.1.0"), set())  # the next run repeats it
        self.assertEqual(history.current(recs), [])

    def test_pages_list_it_apart_and_it_hides_no_regression(self):
        regressed = {"ct/a": "wrong-output"}
        recs = [line("1.9.0", {"ct/a": "pass"}, cases=["ct/a"]), line("1.12.0", regressed, cases=["ct/a"])]
        broken = []
        for v in ("1.9.0", "1.12.0"):  # full runs on a newer corpus, every case dead on loguru
            b = line(v, {"ct/a": "rejected-valid", "ct/b": "rejected-valid"})
            b.update(corpus_digest="e" * 64, environment_failure="ModuleNotFoundError: No module named 'loguru'")
            broken.append(b)
        idx = json.loads(pages.build([READER], recs + broken)["index.json"])
        rd = idx["readers"][0]
        self.assertEqual([(r["case"], r["last_good"], r["first_bad"]) for r in rd["regressions"]], [("ct/a", "1.9.0", "1.12.0")])
        self.assertEqual([r["corpus_digest"] for r in rd["runs"]], ["d" * 64, "d" * 64])  # no "0 passed of 2"
        self.assertEqual([(x["version"], x["cases"]) for x in rd["environment_failures"]], [("1.9.0", 2), ("1.12.0", 2)])


class CorpusDigests(unittest.TestCase):
    def test_a_regression_on_an_older_corpus_stays_until_a_newer_one_answers_it(self):
        old = [line("1.9.0", {"ct/a": "pass", "ct/b": "pass"}, cases=["ct/a", "ct/b"]),
               line("1.10.0", {"ct/a": "wrong-output", "ct/b": "wrong-output"}, cases=["ct/a", "ct/b"])]
        new = [dict(line("1.9.0", {"ct/a": "pass"}, cases=["ct/a"]), corpus_digest="e" * 64),
               dict(line("1.10.0", {"ct/a": "pass"}, cases=["ct/a"]), corpus_digest="e" * 64)]
        regs, _, _ = pages.changes(READER, old + new, {})
        # ct/a: the newer corpus measured both releases and found no change; ct/b: only the older knows
        self.assertEqual([(r["case"], r["last_good"], r["first_bad"], r["corpus_digest"][0]) for r in regs],
                         [("ct/b", "1.9.0", "1.10.0", "d")])


def load_cli():
    import importlib.util
    spec = importlib.util.spec_from_file_location("matrix_cli", os.path.join(os.path.dirname(
        os.path.dirname(os.path.abspath(__file__))), "matrix.py"))
    cli = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cli)
    return cli


class Install(unittest.TestCase):
    def test_deps_modes_are_part_of_the_spec(self):
        import venvs
        r = {"install": {"base": "torch", "packages": ["compressed-tensors=={v}"], "deps": "missing",
                         "import": ["compressed_tensors"]}}
        self.assertEqual(venvs.spec(r, "0.17.1"), "torch missing-deps compressed-tensors==0.17.1 import:compressed_tensors")
        self.assertEqual(venvs.spec({"install": {"base": "torch", "packages": ["x=={v}"], "deps": False}}, "1"), "torch no-deps x==1")
        with self.assertRaises(SystemExit):
            venvs.spec({"install": {"base": "torch", "packages": [], "deps": "some"}}, "1")

    def test_the_plan_makes_compressed_tensors_complete(self):
        import plan
        ct = plan.readers(history.ROOT, ["ct"])[0]["install"]
        self.assertEqual(ct.get("deps"), "missing")  # loguru/psutil: not installed by --no-deps
        self.assertIn("compressed_tensors", ct.get("import", []))


class Interface(unittest.TestCase):
    def test_index_json_has_the_acceptance_fields(self):
        recs = [line("1.9.0", {"ct/a": "pass"}), line("1.12.0", {"ct/a": "wrong-output"},
                                                          failures={"ct/a": {"diagnosis": "ct-layout", "families": ["CT"]}})]
        files = pages.build([READER], recs)
        idx = json.loads(files["index.json"])
        rd = idx["readers"][0]
        for k in ("name", "language", "runs", "regressions"):
            self.assertIn(k, rd)
        for k in ("version", "environment", "corpus_digest", "passed", "exercised", "certificate"):
            self.assertIn(k, rd["runs"][0])
        self.assertEqual([(r["case"], r["first_bad"], r["last_good"]) for r in rd["regressions"]], [("ct/a", "1.12.0", "1.9.0")])
        self.assertIn(b"ct-layout", files["index.html"])
        self.assertEqual(files, pages.build([READER], recs))  # byte-for-byte reproducible


class Command(unittest.TestCase):
    def test_declared_scope_and_the_shared_venv_reach_certify(self):
        cli = load_cli()
        reader = dict(READER, adapter="toy.py", timeout=30, install={"base": "torch", "packages": ["toy=={v}"]},
                      scope=["--format", "gguf", "--layout", "q8_0"], only=["ct/a"])
        paths = {"root": "/r", "cert": "/c/x.json", "venvs": "/v", "packcheck": "pc"}
        cmd = cli.certify_command(reader, "1.9.0", "cpu-library", None, paths)
        self.assertIn("--format gguf --layout q8_0", " ".join(cmd))
        self.assertEqual(cmd[cmd.index("--reader-path") + 1], "/v")  # the .pth's torch venv is readable


if __name__ == "__main__":
    unittest.main()
