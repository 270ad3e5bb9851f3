# The corpus HTML report (what scripts/main.sh writes first) in headless Chromium: it leads with the
# corpus verdict "N expected verdicts met", and a case rejected as expected is not painted like a
# failure (issue 32 item 2). The screenshot is checked by its pixels: the top of the page shows the
# verdict banner's green and none of the failure red. Chromium or zlib missing fails;
# PACKCHECK_BROWSER_TESTS=0 skips (77).
PC=$1 SRC=$2 BIN=$3 TMP=$(mktemp -d)
. "$SRC/validator/tests/cli/lib.inc"
. "$SRC/validator/tests/cli/browser.inc"
PNG=$BIN/pc_png_colours
[ -x "$PNG" ] || { echo "FAIL: $PNG not built (zlib missing: scripts/install-deps.sh --test)"; exit 1; }
GREEN=c8e6c9 RED=ef9a9a

"$PC" corpus "$SRC/fixtures" --report html:"$TMP/c.html" --report json:"$TMP/c.json" >/dev/null
n=$(grep -c '"outcome":	"pass"' "$TMP/c.json")
browse "$TMP/c.html" "$TMP/c"
expect_grep "class=\"banner corpus pass\" id=\"corpus-verdict\"><b>$n expected verdicts met</b>" "$TMP/c.dom" "the corpus verdict banner"
expect_grep 'class="banner expected" id="verdict"><b>rejected as expected</b>' "$TMP/c.dom" "an expected rejection is said to be expected"
checks=$((checks + 1))
if grep -q 'class="banner fail"' "$TMP/c.dom"; then echo "FAIL: a banner painted as a failure on a corpus that met every verdict"; fails=$((fails + 1)); fi
checks=$((checks + 1))
b=$(grep -bo 'id="corpus-verdict"' "$TMP/c.dom" | cut -d: -f1)
v=$(grep -bo 'id="verdict"' "$TMP/c.dom" | head -1 | cut -d: -f1)
[ -n "$b" ] && [ -n "$v" ] && [ "$b" -lt "$v" ] || { echo "FAIL: the corpus verdict does not lead the page ($b, first case banner $v)"; fails=$((fails + 1)); }
# Pixels of the first 400 rows of the screenshot (1400 px wide): the green banner, no red.
PNG_ROWS=400 "$PNG" "$TMP/c.png" $GREEN $RED >"$TMP/px" || { echo "FAIL: cannot read $TMP/c.png"; fails=$((fails + 1)); }
g=$(sed -n "s/^$GREEN //p" "$TMP/px") r=$(sed -n "s/^$RED //p" "$TMP/px")
checks=$((checks + 1))
[ "${g:-0}" -gt 10000 ] || { echo "FAIL: the verdict banner's green is not on screen ($g pixels)"; fails=$((fails + 1)); }
checks=$((checks + 1))
[ "${r:-1}" = 0 ] || { echo "FAIL: $r failure-red pixels at the top of a corpus page that met every verdict"; fails=$((fails + 1)); }

# A corpus with one verdict not met: "N of M", that case's banner red and listed before the rest.
mkdir -p "$TMP/k/st"
cp -r "$SRC/fixtures/st/$(ls "$SRC/fixtures/st" | head -1)" "$TMP/k/st/"
cp -r "$SRC/fixtures/awq/autoawq-gemm-g32-allmax" "$TMP/k/st/flip"
sed -i 's/"verdict": "pass"/"verdict": "reject"/; s|"case": "awq/autoawq-gemm-g32-allmax"|"case": "st/flip"|' "$TMP/k/st/flip/expect.json"
(cd "$TMP/k" && find st -type f | sort | xargs sha256sum >MANIFEST.sha256)
"$PC" corpus "$TMP/k" --report html:"$TMP/k.html" >/dev/null 2>&1
expect_grep '<b>1 of 2 expected verdicts met</b>' "$TMP/k.html" "N of M when a verdict is not met"
expect_grep 'class="banner fail" id="verdict"><b>pass</b> (expected reject) ' "$TMP/k.html" "the unmet case is red and says what was expected"
cp "$TMP/c.png" "${PACKCHECK_SCREENSHOT_DIR:-$TMP}/corpus-report.png" 2>/dev/null
echo "screenshot: $TMP/c.png"
finish
