# rules/RULES.md is `packcheck rules --md`: docs and code cannot drift apart.
PC=$1 SRC=$2 TMP=$(mktemp -d)
. "$SRC/validator/tests/cli/lib.inc"
expect_rc 0 "rules --md" -- "$PC" rules --md
checks=$((checks + 1))
if ! cmp -s "$TMP/out" "$SRC/rules/RULES.md"; then
    echo "FAIL: rules/RULES.md is stale; regenerate: build/packcheck rules --md > rules/RULES.md"
    diff "$TMP/out" "$SRC/rules/RULES.md" | head -20
    fails=$((fails + 1))
fi
expect_rc 0 "rules --json" -- "$PC" rules --json
cmp -s "$TMP/out" "$SRC/rules/rules.json" || { echo "FAIL: rules --json differs from rules.json"; fails=$((fails + 1)); }
expect_rc 2 "rules with an unknown option" -- "$PC" rules --bogus
finish
