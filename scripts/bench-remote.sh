#!/bin/sh
# What remote validation costs, measured (never asserted in a test): a generated checkpoint of SIZE
# (default 2G) served over loopback by the test server, validated at --tier header, sample and full,
# then again from the verdict cache; and, with PYTHON naming an interpreter that has Ray,
# packcheck.scale.scan over N (default 100) served small checkpoints on local Ray (2 CPUs) compared
# with one process, record for record. Loopback only: nothing leaves the machine.
#   scripts/bench-remote.sh [BUILD_DIR] [SIZE] [N]
set -eu
BUILD=${1:-build} SIZE=${2:-2G} N=${3:-100}
SRC=$(cd "$(dirname "$0")/.." && pwd)
PC=$BUILD/packcheck
TMP=$(mktemp -d)
trap '[ -n "${srv:-}" ] && kill "$srv" 2>/dev/null; rm -rf "$TMP"' EXIT
mkdir -p "$TMP/root"
"$BUILD/packcheck-gen-ckpt" "$TMP/root/big" --size "$SIZE" >/dev/null
# The word-aligned layout of compressed-tensors <= 0.17: its full tier must read every packed byte.
"$BUILD/packcheck-gen-ckpt" "$TMP/root/legacy" --size "$SIZE" --legacy >/dev/null
"$BUILD/validator/tests/pc_httpd" "$TMP/root" "$TMP/port" 120 &
srv=$!
for _ in $(seq 100); do [ -s "$TMP/port" ] && break; sleep 0.1; done
U="http://127.0.0.1:$(cat "$TMP/port")/ok"
num() { sed -n "s/.*\"$1\":[[:space:]]*\([0-9][0-9]*\).*/\1/p" "$2" | head -1; }
shards=$(ls "$TMP/root/big"/*.safetensors | wc -l)
bytes=$(cat "$TMP/root/big"/*.safetensors | wc -c)
echo "checkpoint: $SIZE requested, $bytes bytes in $shards shards (packcheck-gen-ckpt, ct-dense)"
CK=big
row() { # TIER LABEL EXTRA...
    t=$1 label=$2; shift 2
    s0=$(date +%s.%N)
    "$PC" validate "$U/$CK/" --tier "$t" "$@" --report json:"$TMP/r.json" >/dev/null 2>&1 || true
    s1=$(date +%s.%N)
    printf '%-28s verdict %-9s bytes_fetched %12s  requests %5s  %6.2f s\n' "$label" \
        "$(sed -n 's/.*"verdict":[[:space:]]*"\([a-z]*\)".*/\1/p' "$TMP/r.json" | head -1)" \
        "$(num bytes_fetched "$TMP/r.json")" "$(num requests "$TMP/r.json")" "$(echo "$s1 - $s0" | bc)"
}
row header "--tier header"
row sample "--tier sample (4 blocks)" --sample-blocks 4 --seed 1
row full "--tier full"
row header "--tier header, cached 1st" --cache "$TMP/c.db"
row header "--tier header, cached 2nd" --cache "$TMP/c.db"
row sample "--tier sample, cached 1st" --cache "$TMP/c.db"
row sample "--tier sample, cached 2nd" --cache "$TMP/c.db"
row full "--tier full, cached 1st" --cache "$TMP/c.db"
row full "--tier full, cached 2nd" --cache "$TMP/c.db"
echo "the same, ct-legacy (every packed byte is read at --tier full):"
CK=legacy
row header "--tier header"
row sample "--tier sample (4 blocks)" --sample-blocks 4 --seed 1
row full "--tier full"
row full "--tier full, cached 1st" --cache "$TMP/c.db"
row full "--tier full, cached 2nd" --cache "$TMP/c.db"
echo "configs/index requests per run: config.json, quantize_config.json, quant_config.json, hf_quant_config.json, model.safetensors.index.json"

PY=${PYTHON:-}
if [ -z "$PY" ] || ! "$PY" -c 'import ray' 2>/dev/null; then
    echo "Ray: not run (set PYTHON to an interpreter with ray installed)"
    exit 0
fi
for i in $(seq "$N"); do
    "$BUILD/packcheck-gen-ckpt" "$TMP/root/m$i" --size 2M --shard 1M --hidden 256 --inter 512 --seed "$i" >/dev/null
done
PYTHONPATH="$SRC/python" PACKCHECK_BINARY="$PC" "$PY" - "$U" "$N" "$TMP" <<'EOF'
import json, sys, time
import ray
from packcheck import scale
u, n, tmp = sys.argv[1], int(sys.argv[2]), sys.argv[3]
urls = [f"{u}/m{i}/" for i in range(1, n + 1)]
def records(path):
    with open(path) as f:
        lines = [json.loads(x) for x in f]
    return (sorted((j["digest"], j["tensor"], j["rule"], j["status"], j["input"]) for j in lines if j["kind"] == "result"),
            sorted((j["input"], j["verdict"]) for j in lines if j["kind"] == "input"))
t0 = time.time(); one = scale.scan(urls, f"{tmp}/one.jsonl", backend="local", workers=1); t1 = time.time()
ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
t2 = time.time(); on = scale.scan(urls, f"{tmp}/ray.jsonl", backend="ray", workers=2, cache=f"{tmp}/rc.db"); t3 = time.time()
again = scale.scan(urls, f"{tmp}/ray2.jsonl", backend="ray", workers=2, cache=f"{tmp}/rc.db")
ray.shutdown()
a, b = records(f"{tmp}/one.jsonl"), records(f"{tmp}/ray.jsonl")
print(f"Ray ({ray.__version__}, local, 2 CPUs) over {n} served checkpoints: {on['done']} done in {t3 - t2:.1f} s "
      f"(one process: {t1 - t0:.1f} s); {len(b[0])} result records, verdicts {dict(on['verdicts'])}")
print("Ray records == single-process records:", a == b)
print(f"second Ray run from the shared cache: {again['done']} done, {again['requests']} requests, {again['bytes_fetched']} bytes")
EOF
