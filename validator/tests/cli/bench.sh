# packcheck bench (CONTRACT 6): the report's keys and exit codes. A smoke run with tiny samples:
# no figure is asserted (the machine is shared; timing belongs to people reading bench output).
PC=$1 SRC=$2 TMP=$(mktemp -d)
. "$SRC/validator/tests/cli/lib.inc"

expect_rc 0 "bench --json (smoke)" -- "$PC" bench --json --samples 1 --sample-ms 0.2 --warmup-ms 0 --size 4096
cp "$TMP/out" "$TMP/bench.json"
for k in '"kernels"' '"name"' '"fast_gbps"' '"ref_gbps"' '"memcpy_gbps"' '"fast_vs_memcpy"' '"fast_vs_ref"' \
         '"sha256"' '"gbps"' '"openssl_speed_gbps"' '"machine"' '"compiler"'; do
    expect_grep "$k" "$TMP/bench.json" "bench key $k"
done
for n in ct-dense-1 ct-dense-3 ct-dense-4 ct-dense-8 ct-legacy-3 ct-legacy-7 nvfp4; do
    expect_grep "\"name\":	\"$n\"" "$TMP/bench.json" "bench entry $n"
done
checks=$((checks + 1))
if grep -q '"error"' "$TMP/bench.json"; then echo "FAIL: a kernel reported an error"; fails=$((fails + 1)); fi
expect_rc 0 "bench text, one entry" -- "$PC" bench --only ct-dense-3 --samples 1 --sample-ms 0.2 --warmup-ms 0
expect_grep "ct-dense-3" "$TMP/out" "text output names the entry"
expect_rc 0 "bench on the scalar fallback" -- env PACKCHECK_KERNELS=scalar "$PC" bench --json --only ct- --samples 1 --sample-ms 0.2 --warmup-ms 0 --size 1000
expect_grep '"kernels":	"scalar"' "$TMP/out" "PACKCHECK_KERNELS=scalar selects the fallback"
expect_rc 2 "bench unknown option" -- "$PC" bench --frob
expect_rc 2 "bench bad samples" -- "$PC" bench --samples 0
expect_rc 2 "bench bad size" -- "$PC" bench --size 1
finish
