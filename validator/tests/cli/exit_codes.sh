# Exit codes and report keys of the commands (CONTRACT 1 and 2).
PC=$1 SRC=$2 TMP=$(mktemp -d)
. "$SRC/validator/tests/cli/lib.inc"
SMALL=$SRC/fixtures/st/small-ct/small-ct.safetensors

for c in validate unpack rules corpus certify equiv bench; do
    expect_rc 0 "$c --help" -- "$PC" "$c" --help
done
expect_rc 2 "no command" -- "$PC"
expect_rc 2 "unknown command" -- "$PC" frobnicate
expect_rc 2 "validate unknown option" -- "$PC" validate --frob "$SMALL"
expect_rc 2 "validate without input" -- "$PC" validate
expect_rc 2 "validate missing path" -- "$PC" validate "$TMP/does-not-exist"
expect_rc 2 "validate bad profile" -- "$PC" validate --profile lax "$SMALL"
expect_rc 2 "validate bad report spec" -- "$PC" validate --report xml:"$TMP/r" "$SMALL"
# small-ct holds one I32 tensor and no config: nothing fails, nothing quantized was checked.
expect_rc 3 "validate small-ct: unchecked" -- "$PC" validate "$SMALL" --report json:"$TMP/r.json" --report junit:"$TMP/r.xml" --report md:"$TMP/r.md" --report html:"$TMP/r.html"
expect_grep 'unchecked (safetensors), tensors: 0 checked, 0 plain, 1 unchecked' "$TMP/out" "verdict line with the accounting"
expect_grep 'unchecked ct.weight_packed (I32)' "$TMP/out" "stdout names the unchecked tensor"
expect_rc 0 "validate small-ct --allow-unchecked" -- "$PC" validate --allow-unchecked "$SMALL"
expect_rc 3 "validate --quiet still exits 3" -- "$PC" validate --quiet "$SMALL"
expect_grep 'unchecked (safetensors)' "$TMP/out" "--quiet prints the verdict line"
expect_rc 3 "validate --report json:- writes the report to stdout" -- "$PC" validate "$SMALL" --report json:-
expect_grep '"verdict":	"unchecked"' "$TMP/out" "json on stdout"
for k in '"packcheck_version"' '"inputs"' '"path"' '"format"' '"verdict"' '"results"' '"rule"' '"status"' '"tensor"' '"message"' '"tensors"' '"checked"' '"plain"' '"unchecked"' '"scheme"' '"reason"'; do
    expect_grep "$k" "$TMP/r.json" "json report key $k"
done
expect_grep '"format":	"safetensors"' "$TMP/r.json" "small-ct is a plain container"
expect_grep '<testcase' "$TMP/r.xml" "junit testcases"
expect_grep 'name="unchecked ct.weight_packed"><skipped message="unchecked: ' "$TMP/r.xml" "junit: an unchecked tensor is skipped, never a pass"
expect_grep 'Not checked' "$TMP/r.md" "markdown lists what was not checked"
expect_grep 'class="banner unchecked"' "$TMP/r.html" "html opens with the verdict banner"
expect_grep 'id="unchecked"' "$TMP/r.html" "html lists what was not checked"
expect_grep '| ST-001 | pass' "$TMP/r.md" "markdown rule table"
expect_grep 'id="matrix"' "$TMP/r.html" "html matrix"
printf 'abc' >"$TMP/short.safetensors"
expect_rc 1 "validate 3-byte file" -- "$PC" validate "$TMP/short.safetensors"
expect_grep 'ST-001' "$TMP/out" "3-byte file names ST-001"
expect_rc 2 "unpack without --out" -- "$PC" unpack "$SMALL"
: >"$TMP/stale.safetensors"
expect_rc 1 "unpack a rejected input" -- "$PC" unpack "$TMP/short.safetensors" --out "$TMP/stale.safetensors"
checks=$((checks + 1)); [ -e "$TMP/stale.safetensors" ] && { echo "FAIL: unpack left an output behind"; fails=$((fails + 1)); }
expect_rc 3 "unpack with nothing decodable" -- "$PC" unpack "$SMALL" --out "$TMP/none.safetensors"
checks=$((checks + 1)); [ -e "$TMP/none.safetensors" ] && { echo "FAIL: unpack wrote a file with nothing decodable"; fails=$((fails + 1)); }
PLAIN=$SRC/fixtures/st/valid-metadata/valid-metadata.safetensors
expect_rc 0 "unpack a plain container" -- "$PC" unpack "$PLAIN" --out "$TMP/view.safetensors"
expect_rc 0 "the logical view validates" -- "$PC" validate "$TMP/view.safetensors"

# Both profiles, on fixtures where the spec text and the crate disagree (rules.json "compat").
ST=$SRC/fixtures/st
LEAD=$ST/st008-leading-space/st008-leading-space.safetensors
DUP=$ST/st022-duplicate-u8-then-i8/st022-duplicate-u8-then-i8.safetensors
NULPAD=$ST/st006-nul-padding/st006-nul-padding.safetensors
expect_rc 1 "strict rejects a leading space (ST-008)" -- "$PC" validate "$LEAD" --report json:"$TMP/s.json" --report junit:"$TMP/s.xml" --report md:"$TMP/s.md"
expect_grep '"profile":	"strict"' "$TMP/s.json" "strict profile named in the report"
expect_grep '"verdict":	"reject"' "$TMP/s.json" "reject verdict in the report"
expect_grep '"rule":	"ST-008"' "$TMP/s.json" "ST-008 in the report"
expect_grep '"status":	"fail"' "$TMP/s.json" "a fail status"
expect_grep '"offset":	8' "$TMP/s.json" "the finding's byte offset"
expect_grep '<failure' "$TMP/s.xml" "junit failure element"
expect_grep '| ST-008 | fail' "$TMP/s.md" "markdown fail row"
expect_rc 0 "compat accepts a leading space" -- "$PC" validate --allow-unchecked --profile compat "$LEAD" --report json:"$TMP/c.json"
expect_grep '"profile":	"compat"' "$TMP/c.json" "compat profile named in the report"
expect_grep '"verdict":	"unchecked"' "$TMP/c.json" "compat verdict: accepted, its U8/I8 tensors unchecked"
expect_rc 1 "strict rejects a duplicate name (ST-022)" -- "$PC" validate "$DUP"
expect_rc 0 "compat warns on a duplicate name" -- "$PC" validate --allow-unchecked --profile compat "$DUP" --report json:"$TMP/w.json"
expect_grep '"status":	"warn"' "$TMP/w.json" "a warn status under compat"
expect_grep '"severity":	"SHOULD"' "$TMP/w.json" "ST-022 is SHOULD under compat"
expect_rc 1 "NUL padding is rejected under both profiles" -- "$PC" validate --profile compat "$NULPAD"
expect_grep 'ST-006' "$TMP/out" "NUL padding names ST-006"
# Several inputs: any reject gives 1, any error gives 2; the report still covers every input.
expect_rc 1 "a pass and a reject" -- "$PC" validate "$SMALL" "$LEAD"
expect_rc 2 "a reject and a missing input" -- "$PC" validate "$LEAD" "$TMP/missing.safetensors" --report json:"$TMP/e.json"
expect_grep '"verdict":	"error"' "$TMP/e.json" "error verdict in the report"
expect_grep '"verdict":	"reject"' "$TMP/e.json" "the other input's verdict is kept"
mkdir -p "$TMP/empty-dir"
expect_rc 2 "a folder without containers" -- "$PC" validate "$TMP/empty-dir"
# Folders: sharded checkpoints and their index.
expect_rc 0 "a sharded folder" -- "$PC" validate "$ST/sharded-valid"
expect_rc 1 "an index naming a missing shard" -- "$PC" validate "$ST/st031-missing-shard"
expect_grep 'ST-031' "$TMP/out" "missing shard names ST-031"
expect_rc 1 "an index with path traversal" -- "$PC" validate --profile compat "$ST/st031-path-traversal"
expect_rc 1 "unpack refuses a strict-rejected file" -- "$PC" unpack "$LEAD" --out "$TMP/lead.safetensors"
expect_rc 0 "rules --json" -- "$PC" rules --json
expect_grep '"ST-034"' "$TMP/out" "the catalogue lists the shard rules"
expect_rc 0 "bundled corpus" -- "$PC" corpus --report json:"$TMP/corpus.json"
expect_grep '"st/st022-duplicate-u8-then-i8-compat"' "$TMP/corpus.json" "the corpus report names the cases"
expect_rc 2 "corpus of a non-corpus" -- "$PC" corpus "$TMP"
finish
