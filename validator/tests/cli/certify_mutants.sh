# The corpus can tell readers apart: the correct reader certifies; accept-all, reject-all, the
# crasher and the hanger are refused; every mutant reader (one known bug each, tests/readers/) is
# killed by some case and each killing case's diagnosis names its bug. A mutant nothing kills is a
# hole in the corpus: it must be listed in tests/readers/holes.txt, and a listed one that gets
# killed is stale. The kill matrix is written to the build tree (certify-kill-matrix.{md,html,json}).
PC=$1 SRC=$2 BIN=$3 TMP=$(mktemp -d)
. "$SRC/validator/tests/cli/lib.inc"
R=$SRC/validator/tests/readers
MUT=$BIN/pc_mutate
CORPUS=${PACKCHECK_CERTIFY_CORPUS:-$SRC/fixtures}
HOLES=$R/holes.txt
run() { # NAME READER-TEMPLATE [options]
    name=$1 tmpl=$2; shift 2
    "$PC" certify --corpus "$CORPUS" --name "$name" --reader "$tmpl" --report json:"$TMP/$name.json" "$@" >"$TMP/$name.log" 2>&1
}
listed() { grep -v '^#' "$HOLES" | awk '{print $1}' | grep -qx "$1"; }

checks=$((checks + 1))
run correct "sh $R/correct.sh $PC {input} {output}" || { echo "FAIL: the correct reader is not certified"; tail -20 "$TMP/correct.log"; fails=$((fails + 1)); }
for r in reject-all accept-all crasher hanger; do
    case $r in
        reject-all) t="sh $R/reject_all.sh {input} {output}" ;;
        accept-all) t="sh $R/accept_all.sh $MUT {input} {output}" ;;
        crasher) t="sh $R/crasher.sh {input} {output}" ;;
        hanger) t="sh $R/hanger.sh mut-$$ {input} {output}" ;;
    esac
    checks=$((checks + 1))
    if [ "$r" = hanger ]; then run "$r" "$t" --timeout 0.5 --only small-ct; else run "$r" "$t"; fi
    rc=$?
    if [ "$rc" = 0 ] && listed "$r"; then echo "hole (listed): $r is certified by the corpus"
    elif [ "$rc" = 0 ]; then echo "FAIL: $r is certified: the corpus cannot tell it apart (or list it in $HOLES)"; fails=$((fails + 1))
    elif [ "$rc" != 1 ]; then echo "FAIL: $r: harness error"; tail -5 "$TMP/$r.log"; fails=$((fails + 1))
    elif listed "$r"; then echo "FAIL: $r is refused now: remove the stale line from $HOLES"; fails=$((fails + 1))
    else echo "$r: refused"; fi
done

# Each mutant's certify run is independent (its own report and log): run them JOBS at a time (this is
# the suite's longest test, and under ASan it runs alone at the end), then judge them in list order.
JOBS=${PACKCHECK_TEST_JOBS:-$(nproc 2>/dev/null || echo 2)}
# PACKCHECK_MUTANT_LIMIT=N runs the first N mutants only: the sanitizer build sets it (CMakeLists),
# where what is under test is certify's memory safety, not the corpus's kill matrix (the same in
# every build, and run whole by the normal build). Said in the output, never counted as run.
MUTANTS=$("$MUT" --list)
if [ -n "${PACKCHECK_MUTANT_LIMIT:-}" ]; then
    total=$(echo "$MUTANTS" | wc -w)
    MUTANTS=$(echo "$MUTANTS" | head -n "$PACKCHECK_MUTANT_LIMIT")
    echo "note: $(echo "$MUTANTS" | wc -w) of $total mutants run (PACKCHECK_MUTANT_LIMIT); the others are not judged here"
fi
n=0
for bug in $MUTANTS; do
    { run "mutant-$bug" "sh $R/mutant.sh $bug $PC $MUT {input} {output}"; echo $? >"$TMP/rc-$bug"; } &
    n=$((n + 1))
    [ $((n % JOBS)) = 0 ] && wait
done
wait
for bug in $MUTANTS; do
    rc=$(cat "$TMP/rc-$bug" 2>/dev/null || echo 2)
    "$BIN/certify_check" "$TMP/mutant-$bug.json" "$bug" >"$TMP/check-$bug.txt"
    ck=$?
    checks=$((checks + 1))
    if [ "$rc" = 2 ]; then
        echo "FAIL: mutant $bug: harness error"; tail -5 "$TMP/mutant-$bug.log"; fails=$((fails + 1))
    elif [ "$ck" = 3 ]; then
        if listed "$bug"; then echo "hole (listed): mutant $bug survives the corpus"
        else echo "FAIL: mutant $bug survives: no case tells it apart; add one (or list it in $HOLES)"; fails=$((fails + 1)); fi
    elif listed "$bug"; then
        echo "FAIL: mutant $bug is killed now: remove the stale line from $HOLES"; fails=$((fails + 1))
    elif [ "$ck" != 0 ]; then
        echo "FAIL: mutant $bug killed but not diagnosed as $bug:"; cat "$TMP/check-$bug.txt"; fails=$((fails + 1))
    else
        echo "mutant $bug: $(head -1 "$TMP/check-$bug.txt")"
    fi
done
# Every listed hole must name a mutant that exists.
for h in $(grep -v '^#' "$HOLES" | awk '{print $1}'); do
    checks=$((checks + 1))
    { "$MUT" --list; echo accept-all; echo reject-all; echo crasher; echo hanger; } | grep -qx "$h" || { echo "FAIL: $HOLES lists unknown reader $h"; fails=$((fails + 1)); }
done

expect_rc 0 "kill matrix" -- "$PC" certify --combine "$TMP"/correct.json "$TMP"/reject-all.json "$TMP"/accept-all.json "$TMP"/crasher.json "$TMP"/hanger.json "$TMP"/mutant-*.json \
    --report md:"$BIN/certify-kill-matrix.md" --report html:"$BIN/certify-kill-matrix.html" --report json:"$BIN/certify-kill-matrix.json"
rm -rf "$TMP"
finish
