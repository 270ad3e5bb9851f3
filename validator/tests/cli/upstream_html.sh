# reports/upstream.html (issue 32 item 10): certificates made against an older corpus than the one
# this build carries are marked stale (a note above the table, each row), a certificate on the current
# corpus is not; and the page fits a narrow window: in headless Chromium at 800 px the document is no
# wider than the window (wide tables scroll inside the page). Chromium missing fails;
# PACKCHECK_BROWSER_TESTS=0 skips (77).
PC=$1 SRC=$2 BIN=$3 TMP=$(mktemp -d)
. "$SRC/validator/tests/cli/lib.inc"
. "$SRC/validator/tests/cli/browser.inc"
# The committed page: rows certified against another corpus than the one the matrix names as current
# (the corpus of the build that rendered it; generators/certify_upstream.sh re-renders it) say stale.
cur=$(sed -n 's/.*"current_manifest_sha256":[[:space:]]*"\([0-9a-f]*\)".*/\1/p' "$SRC/reports/upstream.json")
checks=$((checks + 1))
[ -n "$cur" ] || { echo "FAIL: reports/upstream.json names no current corpus"; fails=$((fails + 1)); }
stale_rows=$(grep -c '"stale":	true' "$SRC/reports/upstream.json")
old=$(grep -o '"manifest_sha256":	"[0-9a-f]*"' "$SRC/reports/upstream.json" | grep -vc "\"$cur")
checks=$((checks + 1))
[ "$stale_rows" = "$old" ] || { echo "FAIL: $stale_rows stale rows for $old certificates on another corpus"; fails=$((fails + 1)); }
if [ "$stale_rows" -gt 0 ]; then
    short=$(echo "$cur" | cut -c1-8)
    expect_grep "certificates are stale</b>: made against an older corpus than the current one (<code>$short</code>)" "$SRC/reports/upstream.html" "the committed page says its certificates are stale"
    expect_grep '<br><b>stale</b></td>' "$SRC/reports/upstream.html" "stale rows marked"
fi

# A fresh matrix: one certificate on the current corpus, one copied with an older digest.
chmod 755 "$TMP"
mkdir -p "$TMP/reports/upstream"
"$PC" certify --reader "sh $SRC/validator/tests/readers/correct.sh $PC {input} {output}" --only awq/ --name fresh --report json:"$TMP/reports/upstream/fresh.json" >/dev/null 2>&1
sed 's/"manifest_sha256":	"[0-9a-f]*"/"manifest_sha256":	"00000000aaaaaaaa00000000aaaaaaaa00000000aaaaaaaa00000000aaaaaaaa"/' "$TMP/reports/upstream/fresh.json" >"$TMP/reports/upstream/old.json"
printf '{"readers": [{"certificate": "reports/upstream/fresh.json", "version": "1", "language": "sh", "claims": ["AWQ"], "findings": ""},\n {"certificate": "reports/upstream/old.json", "version": "0", "language": "sh", "claims": ["AWQ"], "findings": ""}]}\n' >"$TMP/reports/upstream/readers.json"
(cd "$TMP" && "$PC" certify --combine reports/upstream/fresh.json reports/upstream/old.json --readers reports/upstream/readers.json \
    --report html:"$TMP/m.html" --report json:"$TMP/m.json") >/dev/null 2>&1
expect_grep '<b>1 of 2 certificates are stale</b>' "$TMP/m.html" "one of two stale"
expect_grep '"current_manifest_sha256":' "$TMP/m.json" "the matrix names the current corpus"
checks=$((checks + 1))
n=$(grep -c '"stale":	false' "$TMP/m.json")
[ "$n" = 1 ] || { echo "FAIL: $n certificates on the current corpus not stale (want 1)"; fails=$((fails + 1)); }

# Narrow window: the document is no wider than the window.
probe() { # HTML WIDTH OUT: the page with a script writing its scroll width into the DOM
    sed 's|</body></html>|<script>document.title="w="+document.documentElement.scrollWidth+" of "+window.innerWidth;</script></body></html>|' "$1" >"$TMP/probe.html"
    prof=$(mktemp -d)
    timeout 180 "$CHROME" --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update \
        --disable-sync --no-first-run --disable-extensions --user-data-dir="$prof" --hide-scrollbars --window-size="$2,900" \
        --dump-dom "file://$TMP/probe.html" >"$3" 2>/dev/null
    rm -rf "$prof"
}
for page in "$SRC/reports/upstream.html" "$TMP/m.html"; do
    probe "$page" 800 "$TMP/w.dom"
    w=$(sed -n 's/.*<title>w=\([0-9]*\) of \([0-9]*\)<.*/\1 \2/p' "$TMP/w.dom")
    checks=$((checks + 1))
    set -- $w
    [ -n "$1" ] && [ "$1" -le "$2" ] || { echo "FAIL: $page is $1 px wide in a $2 px window"; fails=$((fails + 1)); }
done
browse "$SRC/reports/upstream.html" "$TMP/upstream"
rm -rf "$TMP"
finish
