"""packcheck.scale.scan over URLs: corpus cases served by a loopback HTTP server (127.0.0.1 only,
range requests, stopped at the end) give the same JSONL records from a local process pool of 2 as
from one process; a rerun resumes (nothing redone); a fresh output with the shared verdict cache is
answered from it; and, when Ray is installed, Ray tasks give exactly the same records."""
import json
import os
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest

from packcheck import corpus, scale

try:
    import ray  # noqa: F401
    HAVE_RAY = True
except ImportError:
    HAVE_RAY = False


class _RangeHandler(SimpleHTTPRequestHandler):
    """Serves files with single-range requests (206 + Content-Range) and an ETag."""

    def log_message(self, *a):  # quiet
        pass

    def do_GET(self):
        path = self.translate_path(self.path)
        if not os.path.isfile(path):
            self.send_error(404)
            return
        size = os.path.getsize(path)
        st = os.stat(path)
        etag = '"%x-%x"' % (size, int(st.st_mtime))
        rng = self.headers.get("Range")
        with open(path, "rb") as f:
            if rng and rng.startswith("bytes="):
                a, _, b = rng[6:].partition("-")
                a, b = int(a), min(int(b), size - 1)
                if a >= size:
                    self.send_response(416)
                    self.send_header("Content-Range", "bytes */%d" % size)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                f.seek(a)
                body = f.read(b - a + 1)
                self.send_response(206)
                self.send_header("Content-Range", "bytes %d-%d/%d" % (a, b, size))
            else:
                body = f.read()
                self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("ETag", etag)
            self.end_headers()
            self.wfile.write(body)


@pytest.fixture(scope="module")
def served():
    root = str(corpus.root())
    handler = lambda *a, **k: _RangeHandler(*a, directory=root, **k)  # noqa: E731
    srv = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    base = "http://127.0.0.1:%d/" % srv.server_address[1]
    # Folder cases with a model.safetensors (nameable by a base URL), a few families.
    urls = []
    for c in corpus.cases():
        if c.family in ("ct", "gptq", "awq", "st") and c.input.is_dir() and (c.input / "model.safetensors").is_file():
            urls.append(base + str(c.input.relative_to(corpus.root())) + "/")
    probe = scale.validate_records([urls[0]], hash=False, env={"PACKCHECK_HTTP_RETRIES": "0"})[0]
    if "built without libcurl" in (probe.get("error") or ""):
        srv.shutdown()
        pytest.skip("this packcheck was built without libcurl: URLs cannot be read")
    yield urls[:20]
    srv.shutdown()


def _records(path):
    with open(path) as f:
        lines = [json.loads(x) for x in f]
    res = sorted((j["digest"], j["tensor"], j["rule"], j["status"], j["input"]) for j in lines if j["kind"] == "result")
    ins = sorted((j["input"], j["verdict"], j["format"]) for j in lines if j["kind"] == "input")
    return res, ins


def test_pool_matches_one_process_resumes_and_caches(served, tmp_path):
    one, pool, again = tmp_path / "one.jsonl", tmp_path / "pool.jsonl", tmp_path / "again.jsonl"
    db = str(tmp_path / "cache.db")
    s1 = scale.scan(served, str(one), backend="local", workers=1, per_host=1)
    s2 = scale.scan(served, str(pool), backend="local", workers=2, per_host=2, cache=db)
    assert s1["done"] == s2["done"] == len(served)
    assert _records(one) == _records(pool)
    assert {"pass", "reject"} <= set(s2["verdicts"])
    # resumable: a rerun over the same output does nothing
    s3 = scale.scan(served, str(pool), backend="local", workers=2, cache=db)
    assert s3["done"] == 0 and s3["skipped"] == len(served)
    # the shared cache answers a fresh run: every input cached, same records
    s4 = scale.scan(served, str(again), backend="local", workers=2, cache=db)
    assert _records(again) == _records(one)
    with open(again) as f:
        assert all(j["cached"] for j in map(json.loads, f) if j["kind"] == "input" and j["verdict"] != "error")
    assert scale.load_results(str(again)).keys() == scale.load_results(str(one)).keys()


def test_header_tier_costs_little(served, tmp_path):
    out = tmp_path / "h.jsonl"
    scale.scan(served[:10], str(out), backend="local", tier="header")
    with open(out) as f:
        ins = [j for j in map(json.loads, f) if j["kind"] == "input"]
    assert len(ins) == 10 and all(j["tier"] == "header" and j["verdict"] != "pass" for j in ins)


def test_host_of():
    assert scale.host_of("https://h.example:8443/a/b.gguf") == "h.example:8443"
    assert scale.host_of("/tmp/x") == "local"


@pytest.mark.skipif(not HAVE_RAY, reason="Ray is not installed (pip install 'packcheck[ray]')")
def test_ray_matches_one_process(served, tmp_path):
    one, on_ray = tmp_path / "one.jsonl", tmp_path / "ray.jsonl"
    scale.scan(served, str(one), backend="local", workers=1)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        s = scale.scan(served, str(on_ray), backend="ray", workers=2, cache=str(tmp_path / "c.db"))
    finally:
        ray.shutdown()
    assert s["backend"] == "ray"
    assert _records(on_ray) == _records(one)
