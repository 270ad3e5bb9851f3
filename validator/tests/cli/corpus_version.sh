# The versioned corpus (issue 17): `corpus --version`, the version in corpus and certify reports,
# a malformed VERSION, and certify --case (one case by exact id).
PC=$1 SRC=$2 BIN=$3 TMP=$(mktemp -d)
. "$SRC/validator/tests/cli/lib.inc"
V=$(cat "$SRC/fixtures/VERSION")
D=$(sha256sum "$SRC/fixtures/MANIFEST.sha256" | cut -c1-64)

expect_rc 0 "corpus --version" -- "$PC" corpus --version
expect_grep "^corpus-version: $V\$" "$TMP/out" "the version of fixtures/VERSION"
expect_grep "^manifest-sha256: $D\$" "$TMP/out" "the MANIFEST digest"
expect_grep "^cases: [1-9]" "$TMP/out" "the case count"
expect_grep "^## $V " "$SRC/fixtures/CHANGELOG.md" "CHANGELOG has an entry for the current version"
expect_grep "  VERSION\$" "$SRC/fixtures/MANIFEST.sha256" "VERSION is pinned"
expect_grep "  CHANGELOG.md\$" "$SRC/fixtures/MANIFEST.sha256" "CHANGELOG.md is pinned"

# A small corpus: one case, then a malformed VERSION.
C=$TMP/corpus
mkdir -p "$C/st/small-ct"
cp "$SRC/fixtures/st/small-ct/"* "$C/st/small-ct/"
pin() { (cd "$C" && find . -type f ! -name MANIFEST.sha256 | sed 's|^\./||' | sort | xargs sha256sum) >"$C/MANIFEST.sha256"; }
pin
expect_rc 0 "unversioned corpus" -- "$PC" corpus --version "$C"
expect_grep "^corpus-version: unversioned" "$TMP/out" "no VERSION file"
echo "1.2" >"$C/VERSION"; pin
expect_rc 0 "malformed VERSION" -- "$PC" corpus --version "$C"
expect_grep "^corpus-version: unversioned" "$TMP/out" "a malformed version is not reported"
expect_grep "VERSION is not MAJOR.MINOR.PATCH" "$TMP/err" "and is named"
printf '3.14.159\n' >"$C/VERSION"; pin
expect_rc 0 "corpus run records the version" -- "$PC" corpus "$C" --report json:"$TMP/c.json"
expect_grep '"corpus_version":[[:space:]]*"3.14.159"' "$TMP/c.json" "corpus JSON report"

# certify --case: exactly one case (a prefix of other ids must not select them), version recorded.
expect_rc 0 "certify --case" -- "$PC" certify --reader "'$PC' unpack {input} --out {output}" \
    --case awq/autoawq-gemm-g32-random --report json:"$TMP/cert.json"
expect_grep '"corpus_version":[[:space:]]*"'"$V"'"' "$TMP/cert.json" "certify JSON records the corpus version"
expect_grep '"version":[[:space:]]*"'"$V"'"' "$TMP/cert.json" "and in its corpus block"
n=$(grep -o '"case":[[:space:]]*"[^"]*"' "$TMP/cert.json" | sort -u | wc -l)
checks=$((checks + 1)); [ "$n" = 1 ] || { echo "FAIL: --case ran $n cases"; fails=$((fails + 1)); }
# --update-expect records the corpus in the expected-failure file, replacing an old "# corpus:" line.
R=$SRC/validator/tests/readers
printf '# my reader\n# corpus: 0.0.1 (MANIFEST sha256 old)\n' >"$TMP/xf.txt"
expect_rc 1 "--update-expect from a full run (reject-all is still not certified)" -- "$PC" certify --reader "sh $R/reject_all.sh {input} {output}" \
    --corpus "$C" --expect-fail "$TMP/xf.txt" --update-expect
expect_grep "^# corpus: 3.14.159 (MANIFEST sha256 [0-9a-f]\{64\})\$" "$TMP/xf.txt" "the expected-failure file names the corpus"
expect_grep "^# my reader" "$TMP/xf.txt" "the rest of the header is kept"
checks=$((checks + 1)); [ "$(grep -c '^# corpus:' "$TMP/xf.txt")" = 1 ] || { echo "FAIL: the old corpus line is kept"; fails=$((fails + 1)); }
expect_rc 2 "certify --case without a value" -- "$PC" certify --reader "x {input} {output}" --case
rm -rf "$TMP"
finish
