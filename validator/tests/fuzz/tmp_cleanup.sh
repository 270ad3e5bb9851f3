# Every fuzz harness leaves no temporary folder behind (issue 30 item 13: fuzz_ct left
# /tmp/pc-fuzz-ct-* after every run). Each replays its seeds with TMPDIR set to an empty folder,
# which must be empty again afterwards, and no new pc-fuzz-* folder may remain in /tmp (a harness
# ignoring TMPDIR). Runs under a CTest resource lock with the seed replays, which use /tmp.
BIN=$1 SEEDS=$2
fails=0
t=$(mktemp -d)
before=$(ls -d /tmp/pc-fuzz-* 2>/dev/null | sort)
for fz in "$BIN"/fuzz_*; do
    [ -x "$fz" ] || continue
    name=$(basename "$fz")
    TMPDIR=$t "$fz" -runs=0 "$SEEDS/${name#fuzz_}" >/dev/null 2>&1 || { echo "FAIL: $name did not replay its seeds"; fails=$((fails + 1)); }
    if [ -n "$(ls -A "$t")" ]; then echo "FAIL: $name left in TMPDIR:"; ls -A "$t"; fails=$((fails + 1)); rm -rf "${t:?}"/*; fi
done
after=$(ls -d /tmp/pc-fuzz-* 2>/dev/null | sort)
new=$(printf '%s\n' "$after" | grep -vxF -e "$before" | grep . || true)
[ -z "$before" ] && new=$after
if [ -n "$new" ]; then echo "FAIL: left in /tmp: $new"; fails=$((fails + 1)); fi
rmdir "$t"
echo "fuzz temporaries: $fails failures"
[ "$fails" = 0 ]
