# Remote inputs against a loopback server (tests/tools/pc_httpd.c, 127.0.0.1 only, stops by itself):
# the tiers and what they cost, the Hub's URL form, and every fault a server can commit: each is exit 2
# naming the URL and what went wrong, within a bound (never a hang). Built without libcurl: a URL is
# exit 2 saying so. Keep it fast (CI): the fault runs use a 1 s stall timeout and one retry.
PC=$1 SRC=$2 BIN=$3 TMP=$(mktemp -d)
. "$SRC/validator/tests/cli/lib.inc"
trap '[ -n "${srv:-}" ] && kill "$srv" 2>/dev/null; rm -rf "$TMP"' EXIT
export PACKCHECK_HTTP_RETRIES=1 PACKCHECK_HTTP_BACKOFF_MS=10 PACKCHECK_HTTP_TIMEOUT=1

if PACKCHECK_HTTP_RETRIES=0 "$PC" validate http://127.0.0.1:9/model.safetensors 2>&1 | grep -q "built without libcurl"; then
    expect_rc 2 "a URL without libcurl" -- "$PC" validate http://127.0.0.1:9/model.safetensors
    cat "$TMP/out" "$TMP/err" >"$TMP/said" # errors are said once, on stdout (cli/validate.c)
    expect_grep "install libcurl4-openssl-dev" "$TMP/said" "the message says what to install"
    finish
    exit
fi

# What is served: a generated 2-shard ct-dense checkpoint (larger than one 64 KiB read) and a fixture.
mkdir -p "$TMP/root/org"
"$BIN/../../packcheck-gen-ckpt" "$TMP/root/org/ck" --size 3M --shard 2M --hidden 256 --inter 512 --legacy >/dev/null || { echo "FAIL: gen-ckpt"; exit 1; }
cp -r "$SRC/fixtures/ct/dense-b1-probes" "$TMP/root/org/fx"
"$BIN/pc_httpd" "$TMP/root" "$TMP/port" 20 &
srv=$!
for _ in $(seq 100); do [ -s "$TMP/port" ] && break; sleep 0.1; done
U="http://127.0.0.1:$(cat "$TMP/port")"

# num KEY FILE: the first numeric value of "KEY" in a JSON report.
num() { sed -n "s/.*\"$1\":[[:space:]]*\([0-9][0-9]*\).*/\1/p" "$2" | head -1; }

expect_rc 0 "full tier over HTTP" -- "$PC" validate "$U/ok/org/ck/" --report json:"$TMP/full.json"
expect_grep '"tier":[[:space:]]*"full"' "$TMP/full.json" "the report states the tier"
expect_grep '"remote":[[:space:]]*true' "$TMP/full.json" "the report says the input is remote"
full_bytes=$(num bytes_fetched "$TMP/full.json")

expect_rc 3 "header tier: nothing failed, nothing decoded" -- "$PC" validate "$U/ok/org/ck/" --tier header --report json:"$TMP/head.json"
expect_grep '"tier":[[:space:]]*"header"' "$TMP/head.json" "header tier stated"
expect_grep 'not evaluated at --tier header' "$TMP/head.json" "data rules are not evaluated, not passed"
hb=$(num bytes_fetched "$TMP/head.json") hr=$(num requests "$TMP/head.json")
checks=$((checks + 1))
# 2 shards: at most 2 requests each, plus the index and 4 config names.
if [ -z "$hb" ] || [ "$hb" -ge 1048576 ] || [ "$hb" -ge "$full_bytes" ] || [ "$hr" -gt 9 ]; then
    echo "FAIL: header tier fetched $hb bytes in $hr requests (full: $full_bytes)"; fails=$((fails + 1))
fi
grep -q '"rule":[[:space:]]*"CT-003",[[:space:]]*"status":[[:space:]]*"pass"' "$TMP/head.json" && { echo "FAIL: CT-003 passed at --tier header"; fails=$((fails + 1)); }
checks=$((checks + 1))

expect_rc 0 "sample tier" -- "$PC" validate "$U/ok/org/ck/" --tier sample --sample-blocks 3 --seed 7 --report json:"$TMP/smp.json"
expect_grep '"blocks":[[:space:]]*3' "$TMP/smp.json" "the sample size is stated"
expect_grep '"seed":[[:space:]]*7' "$TMP/smp.json" "the seed is stated"
sb=$(num bytes_fetched "$TMP/smp.json")
checks=$((checks + 1))
[ -n "$sb" ] && [ "$sb" -lt "$full_bytes" ] || { echo "FAIL: sample tier fetched $sb bytes, full $full_bytes"; fails=$((fails + 1)); }
expect_rc 0 "tiers on a local folder too" -- "$PC" validate "$TMP/root/org/ck" --tier sample
expect_rc 2 "--hash needs --tier full" -- "$PC" validate "$TMP/root/org/ck" --tier header --hash

expect_rc 0 "hf://ORG/REPO@REV through HF_ENDPOINT (redirected like the Hub)" -- env HF_ENDPOINT="$U/hub" "$PC" validate hf://org/ck@v1
expect_rc 0 "hf://ORG/REPO/FILE" -- env HF_ENDPOINT="$U/hub/" "$PC" validate hf://org/fx/model.safetensors
expect_rc 2 "a malformed hf:// name" -- "$PC" validate hf://org
expect_rc 0 "a single file URL" -- "$PC" validate "$U/ok/org/fx/model.safetensors"
expect_rc 2 "a file the server does not have" -- "$PC" validate "$U/ok/org/fx/nothing.safetensors"
cat "$TMP/out" "$TMP/err" >"$TMP/said" # errors are said once, on stdout (cli/validate.c)
expect_grep "nothing.safetensors: error" "$TMP/said" "the missing file is named"
expect_grep "not found (HTTP 404)" "$TMP/said" "404 is said"

# The verdict cache: a second run over unchanged files reads no tensor data, a changed file misses,
# and a failed read is never stored.
if "$PC" validate "$TMP/root/org/fx" --cache "$TMP/probe.db" 2>&1 | grep -q "built without SQLite"; then
    expect_rc 2 "--cache without SQLite" -- "$PC" validate "$TMP/root/org/fx" --cache "$TMP/c.db"
else
    expect_rc 0 "cache: first run" -- "$PC" validate "$U/ok/org/ck/" --cache "$TMP/c.db" --report json:"$TMP/c1.json"
    expect_rc 0 "cache: second run" -- "$PC" validate "$U/ok/org/ck/" --cache "$TMP/c.db" --report json:"$TMP/c2.json"
    expect_grep '"cached":[[:space:]]*true' "$TMP/c2.json" "cache: the second run is answered from the cache"
    cb=$(num bytes_fetched "$TMP/c2.json") cr=$(num requests "$TMP/c2.json")
    checks=$((checks + 1))
    # One request per shard (its header: what gives the ETag), the index and the config names.
    [ -n "$cb" ] && [ "$cb" -lt 1048576 ] && [ "$cr" -le 7 ] || { echo "FAIL: cached run fetched $cb bytes in $cr requests"; fails=$((fails + 1)); }
    expect_rc 0 "cache: another tier is another key" -- "$PC" validate "$U/ok/org/ck/" --cache "$TMP/c.db" --tier sample --report json:"$TMP/c3.json"
    grep -q '"cached":[[:space:]]*true' "$TMP/c3.json" && { echo "FAIL: --tier sample answered from a full-tier entry"; fails=$((fails + 1)); }
    checks=$((checks + 1))
    for k in 1 2; do
        expect_rc 2 "cache: a failed read ($k)" -- timeout 30 "$PC" validate "$U/late-drop/org/ck/" --cache "$TMP/c.db" --report json:"$TMP/d$k.json"
    done
    grep -q '"cached":[[:space:]]*true' "$TMP/d2.json" && { echo "FAIL: a failed read was cached"; fails=$((fails + 1)); }
    checks=$((checks + 1))
    expect_rc 0 "cache: local, first" -- "$PC" validate "$TMP/root/org/fx" --cache "$TMP/c.db"
    expect_rc 0 "cache: local, second" -- "$PC" validate "$TMP/root/org/fx" --cache "$TMP/c.db" --report json:"$TMP/l2.json"
    expect_grep '"cached":[[:space:]]*true' "$TMP/l2.json" "cache: an unchanged local input hits"
    printf '\0' | dd of="$TMP/root/org/fx/model.safetensors" bs=1 seek=200 conv=notrunc 2>/dev/null
    "$PC" validate "$TMP/root/org/fx" --cache "$TMP/c.db" --report json:"$TMP/l3.json" >/dev/null 2>&1
    grep -q '"cached":[[:space:]]*true' "$TMP/l3.json" && { echo "FAIL: a changed file was answered from the cache"; fails=$((fails + 1)); }
    checks=$((checks + 1))
fi

# fault MODE PATTERN: exit 2 within the bound, the message names the URL and PATTERN.
fault() {
    expect_rc 2 "fault $1" -- timeout 30 "$PC" validate "$U/$1/org/ck/" --report json:"$TMP/$1.json"
    cat "$TMP/out" "$TMP/err" >"$TMP/said" # errors are said once, on stdout (cli/validate.c)
    expect_grep "$U/$1/org/ck/" "$TMP/said" "fault $1: the URL is named"
    expect_grep "$2" "$TMP/said" "fault $1: what went wrong"
    expect_grep '"verdict":[[:space:]]*"error"' "$TMP/$1.json" "fault $1: verdict error"
}
fault no206 "not 206: the server ignored the Range request"
fault late-no206 "not 206: the server ignored the Range request"
fault norange "without a usable Content-Range"
fault late-norange "without a usable Content-Range"
fault badrange "Content-Range names bytes from 1, not the 0"
fault late-badrange "Content-Range names bytes from"
fault short "connection closed after"
fault late-short "connection closed after"
fault drop "model-0000"
fault late-drop "model-0000"
fault stall "the server stalled"
fault late-stall "the server stalled"
fault loop "redirect loop"
fault etag "file changed between requests (ETag"
finish
