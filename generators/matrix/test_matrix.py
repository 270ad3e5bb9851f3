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
        import importlib.util
        spec = importlib.util.spec_from_file_location("matrix_cli", os.path.join(os.path.dirname(
            os.path.dirname(os.path.abspath(__file__))), "matrix.py"))
        cli = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(cli)
        reader = dict(READER, adapter="toy.py", timeout=30, install={"base": "torch", "packages": ["toy=={v}"]},
                      scope=["--format", "gguf", "--layout", "q8_0"], only=["ct/a"])
        paths = {"root": "/r", "cert": "/c/x.json", "venvs": "/v", "packcheck": "pc"}
        cmd = cli.certify_command(reader, "1.9.0", "cpu-library", None, paths)
        self.assertIn("--format gguf --layout q8_0", " ".join(cmd))
        self.assertEqual(cmd[cmd.index("--reader-path") + 1], "/v")  # the .pth's torch venv is readable


if __name__ == "__main__":
    unittest.main()
