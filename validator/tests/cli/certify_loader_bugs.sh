# Engine loader bugs of the companion tensors (reports/LOADER-BUGS-COVERAGE.md): each mutant reader
# (pc_mutate --list-loader) reproduces one public bug; certify over the variants/ family must refuse
# it, the variant case that would have caught the bug must be among the killers with the bug named
# first in its diagnosis, and every other killing case must name it too (certify_check BUG CASE). The correct
# reader passes the family. Runs on variants/ only (about 20 small cases per reader), not the corpus.
PC=$1 SRC=$2 BIN=$3 TMP=$(mktemp -d)
. "$SRC/validator/tests/cli/lib.inc"
R=$SRC/validator/tests/readers
MUT=$BIN/pc_mutate
CORPUS=$SRC/fixtures
run() { # NAME READER-TEMPLATE
    "$PC" certify --corpus "$CORPUS" --only variants/ --name "$1" --reader "$2" --report json:"$TMP/$1.json" >"$TMP/$1.log" 2>&1
}
expect_rc 0 "the correct reader passes variants/" -- run correct "sh $R/correct.sh $PC {input} {output}"

# bug -> the variant case that catches it (the LOADER-BUGS.md row it reproduces)
while read -r bug case; do
    checks=$((checks + 1))
    run "mutant-$bug" "sh $R/mutant.sh $bug $PC $MUT {input} {output}"
    rc=$?
    if [ "$rc" != 1 ]; then echo "FAIL: mutant $bug: certify exit $rc, expected 1 (refused)"; tail -5 "$TMP/mutant-$bug.log"; fails=$((fails + 1)); continue; fi
    "$BIN/certify_check" "$TMP/mutant-$bug.json" "$bug" "$case" >"$TMP/check-$bug.txt"
    ck=$?
    checks=$((checks + 1))
    if [ "$ck" = 0 ]; then echo "mutant $bug: $(cat "$TMP/check-$bug.txt")"
    else echo "FAIL: mutant $bug (case $case):"; cat "$TMP/check-$bug.txt"; fails=$((fails + 1)); fi
done <<'TABLE'
scale-dropped variants/fp8-ct-tensor-far-from-448
global-scale-missing variants/nvfp4-ct-moe-per-expert-shard-scales-differ
shard-scale-reused variants/nvfp4-mo-moe-gate-up-scale2-differ
scale-slot0-only variants/nvfp4-mo-fused-qkv-gate-up
scale-zeroed variants/mxfp4-ct-moe-per-expert
TABLE
# Every loader mutant is in the table above.
for bug in $("$MUT" --list-loader); do
    checks=$((checks + 1))
    [ -f "$TMP/mutant-$bug.json" ] || { echo "FAIL: loader mutant $bug has no row in this test's table"; fails=$((fails + 1)); }
done
rm -rf "$TMP"
finish
