# packcheck certify: a reader cannot learn or change the answers (issue 30 items 1-5). One CTest per
# part: answers | cross-run | repin | leftovers | workdir. Readers run as nobody under root; every
# reader script lives in validator/tests/readers (world-readable), every certify run is bounded.
PC=$1 SRC=$2 BIN=$3 PART=$4 TMP=$(mktemp -d)
. "$SRC/validator/tests/cli/lib.inc"
R=$SRC/validator/tests/readers
chmod 755 "$TMP"
trap 'rm -rf "$TMP"' EXIT
ROOT=0; [ "$(id -u)" = 0 ] && ROOT=1

# A small corpus: one reject case (st/short), one valid case with modules (ct/dense-b3-group16), one
# config reject case (a ct/neg case).
C=$TMP/corpus
mkdir -p "$C/st/short" "$C/ct"
cp -r "$SRC/fixtures/ct/dense-b3-group16" "$SRC/fixtures/ct/neg-cfg021-unknown-key" "$C/ct/"
printf 'abc' >"$C/st/short/short.safetensors"
cat >"$C/st/short/expect.json" <<'J'
{"case": "st/short", "source": "hand-written", "input": "short.safetensors", "verdict": "reject",
 "reject_rule": "ST-001", "reject_family": null, "layout": null, "rules": ["ST-001"], "modules": {}}
J
pin() { (cd "$C" && find . -type f ! -name MANIFEST.sha256 | sed 's|^\./||' | sort | xargs sha256sum) >"$C/MANIFEST.sha256"; }
pin
chmod -R go+rX "$C"
outcome_of() { # CASE REPORT -> the case's outcome
    tr -d '\n\t ' <"$2" | grep -o "\"case\":\"$1\",\"expected\":\"[a-z]*\"[^}]*\"outcome\":\"[a-z-]*\"" | sed 's/.*"outcome":"//; s/"$//'
}
expect_outcome() { # CASE REPORT WANT
    checks=$((checks + 1)); got=$(outcome_of "$1" "$2")
    [ "$got" = "$3" ] || { echo "FAIL: $1 in $2: outcome '$got', expected '$3'"; fails=$((fails + 1)); }
}
refute_grep() { # PATTERN FILE DESCRIPTION
    checks=$((checks + 1))
    if grep -q -- "$1" "$2"; then echo "FAIL: $3: /$1/ found in $2"; grep -- "$1" "$2" | head -3 | sed 's/^/  | /'; fails=$((fails + 1)); fi
}
# wait_for COMMAND-PATTERN: until a process running it shows (bounded; not a timing assertion).
wait_for() { i=0; while ! ps -eo args | grep -v grep | grep -q -- "$1" && [ "$i" -lt 300 ]; do sleep 0.1; i=$((i + 1)); done; }
certify() { timeout 120 "$PC" certify --corpus "$C" "$@"; }

case $PART in
answers) # (a) item 1: the reader looks for the corpus (certify's command line, a known path), hashes its
    # input, finds it in MANIFEST.sha256 and reads expect.json. It must learn nothing: it then accepts
    # the reject cases (accepted-invalid), where it refused exactly them when it could read the answers.
    for iso in auto namespace; do
        [ "$iso" = namespace ] && [ "$ROOT" = 0 ] && continue
        if [ "$iso" = auto ]; then ISO=""; else ISO="--isolation $iso"; fi
        PC_SECRET=answers-are-here expect_rc 1 "answer peeker ($iso) is not certified" -- certify $ISO --only st/short --only ct/neg \
            --reader "sh $R/answer_peeker.sh $C {input} {output}" --report json:"$TMP/peek-$iso.json"
        expect_outcome st/short "$TMP/peek-$iso.json" accepted-invalid
        expect_outcome ct/neg-cfg021-unknown-key "$TMP/peek-$iso.json" accepted-invalid
        refute_grep 'ANSWER-READ' "$TMP/peek-$iso.json" "the reader read an answer ($iso)"
        refute_grep 'names the corpus' "$TMP/peek-$iso.json" "certify's command line showed the corpus ($iso)"
        refute_grep 'PC_SECRET' "$TMP/peek-$iso.json" "certify's environment reached the reader ($iso)"
        expect_grep 'environment: HOME LANG PATH PWD TMPDIR \\n' "$TMP/peek-$iso.json" "the reader gets PATH, HOME, TMPDIR, LANG ($iso)"
    done
    # --reader-env passes one more variable, by name.
    PC_GIVEN=1 expect_rc 1 "--reader-env" -- certify --only st/short --reader-env PC_GIVEN --reader "sh $R/answer_peeker.sh $C {input} {output}" --report json:"$TMP/env.json"
    expect_grep 'environment: HOME LANG PATH PC_GIVEN PWD TMPDIR' "$TMP/env.json" "--reader-env NAME is passed"
    # A reader path that holds the corpus would open it: refused before anything runs.
    expect_rc 2 "--reader-path over the corpus is refused" -- certify --only st/short --reader-path "$TMP" --reader "sh $R/answer_peeker.sh $C {input} {output}"
    expect_grep 'a reader could read the answers' "$TMP/out" "the overlap is named"
    ;;
cross-run) # (b) item 2: run B's reader writes run A's output (found in /proc); A's reader writes nothing.
    # A must not pass: B cannot reach A's folders, and A takes only its own reader's file.
    MARK=pc-iso-waiter-$$
    certify --case ct/dense-b3-group16 --reader "sh $R/waiter.sh $MARK {input} {output}" --report json:"$TMP/a.json" >"$TMP/a.log" 2>&1 &
    apid=$!
    # the reader itself (its output path is on its command line), not the `timeout` wrapper naming MARK
    wait_for "$MARK.*/out/view\.safetensors"
    # Told A's output path too (the test sees every process), B still cannot write there.
    AOUT=$(ps -eo args | grep -v grep | grep "$MARK" | grep -o '/[^ ]*/out/view\.safetensors' | head -1)
    GO=$(dirname "$AOUT")/go
    expect_rc 1 "run B (the cross-run writer refuses its own case)" -- certify --case ct/dense-b3-group16 --reader "sh $R/cross_writer.sh $PC {input} {output} $AOUT" --report json:"$TMP/b.json"
    expect_grep "cross: could not write $AOUT" "$TMP/b.json" "B tried A's output"
    touch "$GO"
    wait "$apid"; arc=$?
    checks=$((checks + 1)); [ "$arc" = 1 ] || { echo "FAIL: run A exited $arc, expected 1 (not certified)"; sed 's/^/  | /' "$TMP/a.log" | tail -5; fails=$((fails + 1)); }
    expect_outcome ct/dense-b3-group16 "$TMP/a.json" wrong-output
    refute_grep 'cross: WROTE' "$TMP/b.json" "run B wrote another run's output"
    # Provenance: an output that is a link to something else is not the reader's view.
    expect_rc 1 "a symlink as the output" -- certify --case ct/dense-b3-group16 --reader 'ln -s /etc/hostname {output}; : {input}' --report json:"$TMP/ln.json"
    expect_outcome ct/dense-b3-group16 "$TMP/ln.json" wrong-output
    expect_grep 'symbolic link' "$TMP/ln.json" "the link is named"
    ;;
repin) # (c) item 3: while the reader runs, the corpus is rewritten and MANIFEST.sha256 re-pinned to
    # match (what a reader of certify's own user could do). The run must say corpus_changed.
    MARK=pc-iso-repin-$$
    certify --case st/short --reader "sh $R/waiter.sh $MARK {input} {output}" --report json:"$TMP/r.json" >"$TMP/r.log" 2>&1 &
    rpid=$!
    wait_for "$MARK.*/out/view\.safetensors" # the reader itself runs: certify has read and pinned the corpus
    GO=$(dirname "$(ps -eo args | grep -v grep | grep "$MARK" | grep -o '/[^ ]*/out/view\.safetensors' | head -1)")/go
    sed 's/"verdict": "reject"/"verdict": "pass"/' "$C/st/short/expect.json" >"$TMP/e" && cat "$TMP/e" >"$C/st/short/expect.json"
    pin
    touch "$GO"
    wait "$rpid"; rrc=$?
    checks=$((checks + 1)); [ "$rrc" = 1 ] || { echo "FAIL: the re-pinned run exited $rrc, expected 1"; fails=$((fails + 1)); }
    expect_grep 'MANIFEST.sha256: sha256 .*re-pinned' "$TMP/r.json" "corpus_changed names the re-pinned manifest"
    expect_grep 'the corpus changed while the readers ran' "$TMP/r.json" "the verdict says why"
    # --corpus-digest pins the corpus for the next run.
    D=$(sha256sum "$C/MANIFEST.sha256" | cut -c1-64)
    expect_rc 2 "--corpus-digest with the old digest refuses the re-pinned corpus" -- certify --corpus-digest "$(echo "$D" | tr 0-9a-f 1-9a-f0)" --reader "sh $R/correct.sh $PC {input} {output}"
    ;;
leftovers) # (d) item 4 and 5: files in /tmp and /dev/shm, folders nested past PATH_MAX; limits.
    MARK=pc-iso-left-$$
    mkdir "$TMP/tmp"; chmod 1777 "$TMP/tmp"
    for iso in auto none; do
        [ "$iso" = none ] && [ "$ROOT" = 0 ] && continue # only a reader user of its own can be swept
        if [ "$iso" = auto ]; then ISO=""; else ISO="--isolation none"; fi
        TMPDIR=$TMP/tmp expect_rc 1 "the litterer ($iso) is not certified" -- certify $ISO --only st/short --reader "sh $R/litterer.sh $MARK-$iso {input} {output}" --report json:"$TMP/l-$iso.json"
        expect_grep 'litter: nested 1[0-9][0-9] deep in /' "$TMP/l-$iso.json" "the reader nested its folders past PATH_MAX: 100 x 41 bytes ($iso)"
        checks=$((checks + 1))
        for f in "/tmp/$MARK-$iso" "/dev/shm/$MARK-$iso"; do
            [ -e "$f" ] && { echo "FAIL: $f outlived certify ($iso)"; fails=$((fails + 1)); rm -f "$f"; }
        done
        checks=$((checks + 1))
        left=$(ls -A "$TMP/tmp")
        [ -z "$left" ] || { echo "FAIL: certify's work folder was left behind ($iso): $left"; fails=$((fails + 1)); chmod -R u+rwx "$TMP/tmp" 2>/dev/null; rm -rf "${TMP:?}/tmp/"*; }
        refute_grep 'could not remove' "$TMP/out" "certify reports nothing left ($iso)"
    done
    # A reader writing past --fsize-limit is stopped (SIGXFSZ): a crash, not a full disk.
    expect_rc 1 "past --fsize-limit" -- certify --only st/short --fsize-limit 1 --reader ': {input}; head -c 3000000 /dev/zero >{output}' --report json:"$TMP/fs.json"
    expect_outcome st/short "$TMP/fs.json" crash
    expect_grep '"fsize_limit_mb":	1,' "$TMP/fs.json" "the limit is stated in the report"
    expect_grep '"mem_limit_mb":' "$TMP/fs.json" "the memory limit is stated in the report"
    ;;
workdir) # (e) item 5: --workdir on a shared 1777 folder: a fresh subfolder, the folder keeps its mode.
    mkdir "$TMP/shared"; chmod 1777 "$TMP/shared"
    expect_rc 0 "certify --workdir" -- certify --workdir "$TMP/shared" --reader "sh $R/correct.sh $PC {input} {output}"
    checks=$((checks + 1))
    mode=$(stat -c %a "$TMP/shared")
    [ "$mode" = 1777 ] || { echo "FAIL: --workdir changed the folder's mode to $mode"; fails=$((fails + 1)); }
    expect_grep "readers' folders are kept in $TMP/shared/packcheck-certify-" "$TMP/out" "the kept subfolder is named"
    checks=$((checks + 1))
    [ "$(find "$TMP/shared" -maxdepth 1 -name 'packcheck-certify-*' | wc -l)" = 1 ] || { echo "FAIL: no fresh subfolder in --workdir"; fails=$((fails + 1)); }
    ;;
*) echo "usage: certify_iso.sh PC SRC BIN answers|cross-run|repin|leftovers|workdir"; exit 2 ;;
esac
finish
