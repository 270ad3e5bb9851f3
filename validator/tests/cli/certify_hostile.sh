# packcheck certify against hostile readers (issue 12, items 9-14): a reader under test cannot change
# its verdict. Each block names the item it covers; every certify run is bounded by `timeout`.
PC=$1 SRC=$2 BIN=$3 TMP=$(mktemp -d)
. "$SRC/validator/tests/cli/lib.inc"
R=$SRC/validator/tests/readers
MUT=$BIN/pc_mutate
chmod 755 "$TMP"
# A shared scratch folder any reader user can write to (readers run as nobody under root).
W=$TMP/w; mkdir "$W"; chmod 1777 "$W"
# As root, readers run as nobody by default; "as self" is the weaker setting a non-root CI has.
if [ "$(id -u)" = 0 ]; then SELF="--reader-user root"; else SELF=""; fi

# Corpus: container-only cases (small-ct: unchecked, valid-metadata: pass), a reject case, an either case, two cases with modules.
C=$TMP/corpus
mkdir -p "$C/st/small-ct" "$C/st/valid-metadata" "$C/st/short" "$C/st/either-empty" "$C/ct"
cp "$SRC/fixtures/st/small-ct/"* "$C/st/small-ct/"
cp "$SRC/fixtures/st/valid-metadata/"* "$C/st/valid-metadata/"
cp -r "$SRC/fixtures/ct/dense-b3-group16" "$SRC/fixtures/ct/dense-b3-moe" "$C/ct/"
printf 'abc' >"$C/st/short/short.safetensors"
cat >"$C/st/short/expect.json" <<'J'
{"case": "st/short", "source": "hand-written", "input": "short.safetensors", "verdict": "reject",
 "reject_rule": "ST-001", "reject_family": null, "layout": null, "rules": ["ST-001"], "modules": {}}
J
printf '\010\000\000\000\000\000\000\000{}      ' >"$C/st/either-empty/e.safetensors"
cat >"$C/st/either-empty/expect.json" <<'J'
{"case": "st/either-empty", "source": "hand-written", "input": "e.safetensors", "verdict": "either",
 "reject_rule": null, "reject_family": null, "layout": null, "rules": ["ST-001"], "modules": {}}
J
(cd "$C" && find . -type f ! -name MANIFEST.sha256 | sed 's|^\./||' | sort | xargs sha256sum) >"$C/MANIFEST.sha256"
chmod -R go+rX "$C"
D=$(sha256sum "$C/MANIFEST.sha256" | cut -c1-64)

certify() { timeout 120 "$PC" certify --corpus "$C" "$@"; }
outcome_of() { # CASE REPORT -> the case's outcome
    tr -d '\n\t ' <"$2" | grep -o "\"case\":\"$1\",\"expected\":\"[a-z]*\"[^}]*\"outcome\":\"[a-z-]*\"" | sed 's/.*"outcome":"//; s/"$//'
}
expect_outcome() { # CASE REPORT WANT
    checks=$((checks + 1)); got=$(outcome_of "$1" "$2")
    [ "$got" = "$3" ] || { echo "FAIL: $1 in $2: outcome '$got', expected '$3'"; fails=$((fails + 1)); }
}
corpus_intact() { # WHAT
    checks=$((checks + 1))
    (cd "$C" && sha256sum --quiet -c MANIFEST.sha256 >/dev/null 2>&1) && [ "$(sha256sum "$C/MANIFEST.sha256" | cut -c1-64)" = "$D" ] ||
        { echo "FAIL: $1: the corpus was changed"; fails=$((fails + 1)); }
}
GOOD="sh $R/correct.sh $PC {input} {output}"

# Item 9: a private read-only copy per reader, verified after it ran; the corpus digest is printed
# and can be pinned.
expect_rc 0 "the correct reader certifies" -- certify --reader "$GOOD" --corpus-digest "$D"
expect_grep "CERTIFIED.*MANIFEST.sha256 $D" "$TMP/out" "the verdict line names the corpus digest"
expect_rc 2 "--corpus-digest pins the corpus" -- certify --reader "$GOOD" --corpus-digest "$(echo "$D" | tr 0-9a-f 1-9a-f0)"
expect_grep "refusing to certify against another corpus" "$TMP/out" "a wrong digest is named"
certify --reader "sh $R/tamperer.sh $PC {input} {output}" >"$TMP/out" 2>"$TMP/err"
corpus_intact "tamperer (default reader user)"
# Confined (the default where the system offers it), even a root reader cannot write its copy; the
# check after the run is the second line, exercised here without confinement.
expect_rc 1 "a confined tamperer changes nothing (its view is not written either)" -- certify $SELF --reader "sh $R/tamperer.sh $PC {input} {output}" --report json:"$TMP/tamper0.json"
checks=$((checks + 1))
if ! grep -q '"mode":	"none"' "$TMP/tamper0.json" && grep -q '"outcome":	"tampered"' "$TMP/tamper0.json"; then
    echo "FAIL: a confined tamperer changed its copy"; fails=$((fails + 1))
fi
corpus_intact "tamperer (confined)"
expect_rc 1 "a tamperer is not certified" -- certify $SELF --isolation none --reader "sh $R/tamperer.sh $PC {input} {output}" --report json:"$TMP/tamper.json" --report md:"$TMP/tamper.md"
expect_outcome st/small-ct "$TMP/tamper.json" tampered
expect_outcome ct/dense-b3-moe "$TMP/tamper.json" tampered
expect_grep 'small-ct.safetensors was modified' "$TMP/tamper.json" "tampered names the file"
corpus_intact "tamperer (as certify's user)"
printf 'st/small-ct tampered\n' >"$TMP/xf-t.txt"
expect_rc 2 "tampered cannot be an expected failure" -- certify --reader "$GOOD" --expect-fail "$TMP/xf-t.txt"
expect_rc 0 "the next run still certifies the correct reader against the pinned corpus" -- certify --reader "$GOOD" --corpus-digest "$D"

# Item 10: a detached (setsid) grandchild is killed before the next case and before the reports;
# it can no longer rewrite the report.
printf 'st/either-empty  # stale on purpose: this run is not certified\n' >"$TMP/xf-s.txt"
MARK=pc-hostile-$$
expect_rc 1 "survivor run (not certified: a stale entry)" -- certify $SELF --expect-fail "$TMP/xf-s.txt" --reader "sh $R/setsid_survivor.sh $MARK $W/surv.json $PC {input} {output}" --report json:"$W/surv.json"
sleep 1.5
checks=$((checks + 1))
if ps -eo args | grep -v grep | grep -q "survivor-$MARK"; then echo "FAIL: a setsid grandchild outlived certify"; fails=$((fails + 1)); pkill -f "survivor-$MARK"; fi
expect_grep '"certified":	false' "$W/surv.json" "the report is the one certify wrote"
expect_grep '"detached_killed"' "$W/surv.json" "the detached processes are reported"
if [ "$(id -u)" = 0 ]; then
    expect_rc 0 "as root, readers run as nobody by default" -- certify --reader 'test "$(id -u)" != 0 || exit 3; '"$GOOD" --report json:"$TMP/nobody.json"
    expect_grep '"reader_user":	"nobody"' "$TMP/nobody.json" "the reader user is reported"
    # $PPID of the reader's shell is certify itself: as nobody it can neither stop nor kill it.
    expect_rc 0 "a reader cannot stop or kill certify" -- timeout -k 5 60 "$PC" certify --corpus "$C" --reader 'kill -STOP $PPID; kill -KILL $PPID; '"$GOOD"
fi

# Item 11: a sanitizer report after 70 MiB of output is still a crash; only the tail is kept.
expect_rc 1 "log flooder with a late ASan line" -- certify --only st/small-ct --reader "sh $R/log_flooder.sh $PC {input} {output}" --report json:"$TMP/flood.json"
expect_outcome st/small-ct "$TMP/flood.json" crash
expect_grep 'sanitizer report (ERROR: AddressSanitizer)' "$TMP/flood.json" "the sanitizer line is found"
checks=$((checks + 1))
[ "$(wc -c <"$TMP/flood.json")" -lt 100000 ] || { echo "FAIL: the flood went into the report"; fails=$((fails + 1)); }

# Item 12: a header declaring a 1 GiB tensor is refused from the header, not read.
if [ -x /usr/bin/time ]; then TIME="/usr/bin/time -f %M -o $TMP/rss"; else TIME=""; fi
expect_rc 1 "big declared output" -- $TIME timeout 120 "$PC" certify --corpus "$C" --only ct/dense-b3-group16 --reader "sh $R/big_declared.sh $PC $MUT {input} {output}" --report json:"$TMP/big.json"
expect_outcome ct/dense-b3-group16 "$TMP/big.json" wrong-output
expect_grep 'shape \[16, 67108864\], the case.s is \[16, 96\] (not read)' "$TMP/big.json" "declared shape compared before reading"
if [ -n "$TIME" ]; then
    checks=$((checks + 1))
    [ "$(tail -1 "$TMP/rss")" -lt 400000 ] || { echo "FAIL: certify peaked at $(tail -1 "$TMP/rss") KiB on a 1 GiB declared tensor"; fails=$((fails + 1)); }
fi

# Item 13: a FIFO as the output, or in place of the input, does not hang the evaluation; a FIFO
# in the corpus is refused before anything runs.
expect_rc 1 "FIFO output" -- certify --reader "sh $R/fifo_writer.sh {input} {output}" --report json:"$TMP/fifo.json"
expect_outcome ct/dense-b3-group16 "$TMP/fifo.json" wrong-output
expect_grep 'the output is a FIFO' "$TMP/fifo.json" "the FIFO is named"
expect_rc 1 "FIFO in place of the input copy" -- certify $SELF --isolation none --reader "sh $R/fifo_writer.sh {input} {output}" --report json:"$TMP/fifo2.json"
expect_outcome st/short "$TMP/fifo2.json" tampered
expect_grep 'short.safetensors is a FIFO now' "$TMP/fifo2.json" "tampered names the FIFO"
cp -r "$C" "$TMP/cf" && mkfifo "$TMP/cf/st/short/trap.safetensors"
expect_rc 2 "a FIFO in the corpus is refused" -- timeout 60 "$PC" certify --corpus "$TMP/cf" --reader "$GOOD"
expect_grep 'trap.safetensors is a FIFO' "$TMP/out" "the corpus FIFO is named"

# Item 14: the loopholes.
printf 'st/valid-metadata\nct/dense-b3-group16\nct/dense-b3-moe\n' >"$TMP/xf-r.txt"
expect_rc 1 "a reader that always raises is never certified" -- certify --reader "sh $R/raise_always.sh {input} {output}" --expect-fail "$TMP/xf-r.txt"
expect_grep 'no valid case passed' "$TMP/out" "raise-always: why"
expect_grep 'valid cases passed per family: ct 0/2, st 0/1' "$TMP/out" "raise-always: valid cases per family"
expect_rc 1 "extra modules" -- certify --reader "sh $R/mutant.sh extra $PC $MUT {input} {output}" --report json:"$TMP/extra.json"
expect_outcome ct/dense-b3-group16 "$TMP/extra.json" wrong-output
expect_grep 'that the case does not have' "$TMP/extra.json" "extra module named"
expect_rc 1 "untransposed output" -- certify --reader "sh $R/mutant.sh transpose $PC $MUT {input} {output}" --report json:"$TMP/trans.json"
expect_outcome ct/dense-b3-group16 "$TMP/trans.json" wrong-output
expect_grep 'shape \[96, 16\] is the case.s \[16, 96\] transposed' "$TMP/trans.json" "both shapes named"
expect_grep 'shape \[3, 40, 8\] is the case.s \[3, 8, 40\] transposed' "$TMP/trans.json" "both shapes named (3-D)"
expect_rc 0 "every killed case diagnosed transposed" -- "$BIN/certify_check" "$TMP/trans.json" transposed
expect_rc 1 "first difference in words" -- certify --reader "sh $R/accept_all.sh $MUT {input} {output}" --report md:"$TMP/zeros.md"
expect_grep 'first difference: model.*codes\[0, 0\]: expected' "$TMP/out" "first difference on the terminal"
expect_grep 'first difference: model.*codes\[0, 0\]: expected' "$TMP/zeros.md" "first difference in Markdown"
expect_grep '^certify: \[1/6\] ' "$TMP/err" "progress on stderr as cases finish (not a terminal)"
expect_grep '^certify: \[6/6\] ' "$TMP/err" "progress reaches the last case"
rm -rf "$TMP"
finish
