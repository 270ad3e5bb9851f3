# The validate HTML report in a real browser (headless Chromium): it opens with the verdict banner
# and the failures, lists what was not checked, and keeps the full rule matrix folded away (a
# <details> element that is closed). Chromium missing fails; PACKCHECK_BROWSER_TESTS=0 skips (77).
PC=$1 SRC=$2 TMP=$(mktemp -d)
. "$SRC/validator/tests/cli/lib.inc"
. "$SRC/validator/tests/cli/browser.inc"

# One rejected input (a legacy file that says dense), one unchecked (GGUF Q8_K: the grid i-quants are decoded now), one passing.
"$PC" validate "$SRC/fixtures/ct/neg-ct012-legacy-says-dense" "$SRC/fixtures/gguf/unchecked-q8_k/model.gguf" \
    "$SRC/fixtures/ct/dense-b4-probes" --report html:"$TMP/v.html" >/dev/null
browse "$TMP/v.html" "$TMP/v"
expect_grep 'class="banner fail" id="verdict"><b>reject</b>' "$TMP/v.dom" "reject banner"
expect_grep 'class="banner unchecked" id="verdict"><b>unchecked</b>' "$TMP/v.dom" "unchecked banner"
expect_grep 'class="banner pass" id="verdict"><b>pass</b>' "$TMP/v.dom" "pass banner"
expect_grep 'CT-012</td><td class="fail">fail' "$TMP/v.dom" "the failure is listed"
expect_grep 'id="unchecked"' "$TMP/v.dom" "what was not checked is listed"
expect_grep 'GGUF Q8_K' "$TMP/v.dom" "the unchecked scheme is named"
expect_grep '<details><summary>All rules' "$TMP/v.dom" "the rule matrix is folded away (closed details)"
# Order on the page: banners, then failures, then unchecked, then the matrix.
checks=$((checks + 1))
b=$(grep -bo 'id="verdict"' "$TMP/v.dom" | head -1 | cut -d: -f1)
f=$(grep -bo 'id="findings"' "$TMP/v.dom" | cut -d: -f1)
u=$(grep -bo 'id="unchecked"' "$TMP/v.dom" | cut -d: -f1)
m=$(grep -bo 'id="matrix"' "$TMP/v.dom" | cut -d: -f1)
{ [ "$b" -lt "$f" ] && [ "$f" -lt "$u" ] && [ "$u" -lt "$m" ]; } || { echo "FAIL: page order verdict $b, findings $f, unchecked $u, matrix $m"; fails=$((fails + 1)); }
cp "$TMP/v.png" "${PACKCHECK_SCREENSHOT_DIR:-$TMP}/validate-report.png" 2>/dev/null
finish
