# The committed public matrix (reports/upstream.json) agrees with the committed certificates it names
# (sha256 of each certificate, corpus digest, verdicts, counts, families), without re-running any
# reader (that is generators/certify_upstream.sh, never in CI); and a tampered certificate is caught.
PC=$1 SRC=$2 BIN=$3 TMP=$(mktemp -d)
. "$SRC/validator/tests/cli/lib.inc"
cd "$SRC" || exit 1
expect_rc 0 "committed matrix consistent with its certificates" -- "$PC" certify --check-matrix reports/upstream.json
expect_grep ' 0 disagreements' "$TMP/err" "no disagreement reported"
# Every reader row says what it is (issue 16: name, version, language, claims, certificate).
for k in '"version"' '"language"' '"claims"' '"certificate"' '"certificate_sha256"' '"mode"'; do
    expect_grep "$k" reports/upstream.json "matrix rows carry $k"
done
# Issue 16's bar: at least eight readers in at least three languages, some on the committed corpus.
n=$(grep -c '"certificate_sha256"' reports/upstream.json)
langs=$(sed -n 's/.*"language":[[:space:]]*"\([^"]*\)".*/\1/p' reports/upstream.json | sort -u | wc -l)
checks=$((checks + 1))
[ "$n" -ge 8 ] && [ "$langs" -ge 3 ] || { echo "FAIL: $n readers in $langs languages (want >= 8 in >= 3)"; fails=$((fails + 1)); }
want=$(sha256sum fixtures/MANIFEST.sha256 | cut -d' ' -f1)
expect_grep "\"manifest_sha256\":	\"$want\"" reports/upstream.json "some readers certified against the committed corpus"
# A certificate edited after the matrix was built: caught by digest.
mkdir -p "$TMP/w/reports/upstream"
cp reports/upstream.json "$TMP/w/reports/"
cp reports/upstream/*.json "$TMP/w/reports/upstream/"
first=$(sed -n 's/.*"certificate":[[:space:]]*"\([^"]*\)".*/\1/p' reports/upstream.json | head -1)
printf ' ' >>"$TMP/w/$first"
(cd "$TMP/w" && "$PC" certify --check-matrix reports/upstream.json) >"$TMP/out" 2>"$TMP/err"
rc=$?
checks=$((checks + 1))
[ "$rc" = 1 ] || { echo "FAIL: tampered certificate: exit $rc, expected 1"; fails=$((fails + 1)); }
checks=$((checks + 1))
grep -q "regenerate the matrix" "$TMP/err" || { echo "FAIL: a tampered certificate is not caught"; cat "$TMP/err"; fails=$((fails + 1)); }
rm -rf "$TMP"
finish
