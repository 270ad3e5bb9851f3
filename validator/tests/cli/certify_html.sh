# The certify HTML report in a real browser (headless Chromium): the page loads without console
# errors, shows the verdict and the rule x case matrix, and its expected-vs-got pictures decode.
# Chromium missing is a failure (CI installs it: scripts/install-deps.sh); PACKCHECK_BROWSER_TESTS=0
# turns the test into a skip (exit 77).
PC=$1 SRC=$2 BIN=$3 TMP=$(mktemp -d)
. "$SRC/validator/tests/cli/lib.inc"
R=$SRC/validator/tests/readers
. "$SRC/validator/tests/cli/browser.inc"

# A live run: reject-all over the bundled corpus, so the matrix has coloured cells.
"$PC" certify --reader "sh $R/reject_all.sh {input} {output}" --report html:"$TMP/live.html" >/dev/null
browse "$TMP/live.html" "$TMP/live"
expect_grep 'id="matrix"' "$TMP/live.dom" "live page shows the matrix"
expect_grep 'id="verdict"' "$TMP/live.dom" "live page shows the verdict"
expect_grep 'class="m rejected-valid"' "$TMP/live.dom" "matrix cells coloured by outcome"

# A saved report with a wrong output on a patterned probe: the pictures must be there and decode.
"$PC" certify --render "$SRC/validator/tests/data/certify/sample-report.json" --report html:"$TMP/sample.html"
browse "$TMP/sample.html" "$TMP/sample"
expect_grep 'id="matrix"' "$TMP/sample.dom" "sample page shows the matrix"
expect_grep 'id="pictures"' "$TMP/sample.dom" "sample page shows expected vs got"
checks=$((checks + 1))
n=$(grep -o '<img class="pic"' "$TMP/sample.dom" | wc -l)
[ "$n" = 3 ] || { echo "FAIL: $n pictures, expected 3 (expected, got, differs)"; fails=$((fails + 1)); }
expect_grep 'awq-order' "$TMP/sample.dom" "the diagnosis is on the page"
# The cross-reader matrix page (results table, kill matrix, pruned case x reader matrix).
"$PC" certify --reader "sh $SRC/validator/tests/readers/correct.sh $PC {input} {output}" --name correct --report json:"$TMP/ok.json" >/dev/null
"$PC" certify --reader "sh $R/reject_all.sh {input} {output}" --name reject-all --report json:"$TMP/rej.json" >/dev/null
"$PC" certify --combine "$TMP/ok.json" "$TMP/rej.json" "$SRC/validator/tests/data/certify/sample-report.json" --report html:"$TMP/matrix.html"
browse "$TMP/matrix.html" "$TMP/matrix"
expect_grep 'id="results"' "$TMP/matrix.dom" "matrix page shows the results table"
expect_grep 'id="kills"' "$TMP/matrix.dom" "matrix page shows the kill matrix"
expect_grep 'id="matrix"' "$TMP/matrix.dom" "matrix page shows the case x reader matrix"
# The committed public matrix (reports/upstream.html): one row per reader with version, language, mode and
# claims; family cells link to the non-passing cases, which link into each reader's certificate page.
browse "$SRC/reports/upstream.html" "$TMP/upstream"
expect_grep 'id="results"' "$TMP/upstream.dom" "public matrix shows the results table"
expect_grep '<th>language</th>' "$TMP/upstream.dom" "public matrix has a language column"
expect_grep 'class="mode">container-only<' "$TMP/upstream.dom" "container-only readers say so"
expect_grep 'id="failing"' "$TMP/upstream.dom" "non-passing cases listed"
expect_grep 'href="#fail-' "$TMP/upstream.dom" "family cells link to their non-passing cases"
for href in $(grep -o 'href="upstream/[^"#]*' "$TMP/upstream.dom" | sed 's/^href="//' | sort -u); do
    checks=$((checks + 1))
    [ -e "$SRC/reports/$href" ] || { echo "FAIL: the matrix links to $href, which is not committed"; fails=$((fails + 1)); }
done
for id in $(grep -o 'href="#fail-[^"]*' "$TMP/upstream.dom" | sed 's/^href="#//' | sort -u); do
    checks=$((checks + 1))
    grep -q "id=\"$id\"" "$TMP/upstream.dom" || { echo "FAIL: the matrix links to #$id, which is not on the page"; fails=$((fails + 1)); }
done
echo "screenshots: $TMP/live.png $TMP/sample.png $TMP/matrix.png $TMP/upstream.png"
finish
