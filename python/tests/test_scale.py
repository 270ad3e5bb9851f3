"""packcheck.scale on Ray (a local Ray instance, 2 CPUs): every corpus input validated in Ray tasks
gives exactly the CLI's records (verdict and every rule's status, per input), and the keyed
findings merge. Skipped when Ray is not installed (pip install 'packcheck[ray]')."""
import pytest

import packcheck
from packcheck import corpus, scale

ray = pytest.importorskip("ray")


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def _statuses(rec):
    return rec["verdict"], sorted((r["rule"], r["status"], r.get("tensor", "")) for r in rec["results"])


def test_ray_matches_the_cli(local_ray):
    paths = [str(c.input) for c in corpus.cases() if c.family != "equiv"]
    cli = scale.validate_records(paths, hash=True)                   # one CLI run
    on_ray = scale.validate_many(paths, hash=True, batch=16)         # Ray tasks of 16 inputs
    assert [r["path"] for r in on_ray] == paths
    assert [_statuses(r) for r in on_ray] == [_statuses(r) for r in cli]
    assert {r["verdict"] for r in on_ray} >= {"pass", "reject"}
    assert scale.findings_by_key(on_ray) == scale.findings_by_key(cli)
    # the corpus's own (strict) expectations hold on Ray too
    want = {str(c.input): c.verdict for c in corpus.cases() if c.family != "equiv" and c.expect.get("profile") != "compat"}
    for r in on_ray:
        if want.get(r["path"]) in ("pass", "reject"):
            assert r["verdict"] in (want[r["path"]], "unchecked"), r["path"]


def test_records_merge_by_content(local_ray, tmp_path):
    c = corpus.case("awq/neg-bits-8")
    a = scale.validate_many([str(c.input)], hash=True)
    copy = tmp_path / "copy"
    copy.mkdir()
    for f in c.input.iterdir():
        (copy / f.name).write_bytes(f.read_bytes())
    b = scale.validate_many([str(copy)], hash=True)
    assert scale.findings_by_key(a) == scale.findings_by_key(b)      # same bytes, same keys
    assert any(k[2] == c.reject_rule for k in scale.findings_by_key(a))
