# certify compares shapes after dropping leading 1s from both (CONTRACT 3, GGUF logical shape): a
# ggml-based reader cannot see a declared n_dims (ggml pads ne with 1s), so its [4, 256] for the case's
# [1, 4, 256] (and [96] for a 1-D [1, 96]) is conforming; a wrong column count still is not.
PC=$1 SRC=$2 BIN=$3 TMP=$(mktemp -d)
. "$SRC/validator/tests/cli/lib.inc"
R=$SRC/validator/tests/readers
MUT=$BIN/pc_mutate
C=$TMP/corpus
mkdir -p "$C/gguf" "$C/gq"
cp -r "$SRC/fixtures/gguf/q4_0-3d-leading-1" "$C/gguf/"
cp -r "$SRC/fixtures/gq/quantized" "$C/gq/"
(cd "$C" && find . -type f ! -name MANIFEST.sha256 | sed 's|^\./||' | sort | xargs sha256sum) >"$C/MANIFEST.sha256"
chmod -R go+rX "$TMP"
outcome_of() { # CASE REPORT -> the case's outcome
    tr -d '\n\t ' <"$2" | grep -o "\"case\":\"$1\",\"expected\":\"[a-z]*\"[^}]*\"outcome\":\"[a-z-]*\"" | sed 's/.*"outcome":"//; s/"$//'
}
expect_outcome() { # CASE REPORT WANT
    checks=$((checks + 1)); got=$(outcome_of "$1" "$2")
    [ "$got" = "$3" ] || { echo "FAIL: $1 in $2: outcome '$got', expected '$3'"; fails=$((fails + 1)); }
}
certify() { "$PC" certify --corpus "$C" "$@"; }

expect_rc 0 "the correct reader (declared shapes)" -- certify --reader "sh $R/correct.sh $PC {input} {output}" --report json:"$TMP/ok.json"
expect_outcome gguf/q4_0-3d-leading-1 "$TMP/ok.json" pass
expect_rc 0 "a reader dropping leading 1s ([4, 256] for [1, 4, 256]) certifies" -- certify --reader "sh $R/mutant.sh squeeze $PC $MUT {input} {output}" --report json:"$TMP/sq.json"
expect_outcome gguf/q4_0-3d-leading-1 "$TMP/sq.json" pass
expect_outcome gq/quantized "$TMP/sq.json" pass
expect_rc 1 "[4, 255] for [1, 4, 256] is wrong" -- certify --reader "sh $R/mutant.sh squeeze-cut $PC $MUT {input} {output}" --report json:"$TMP/cut.json"
expect_outcome gguf/q4_0-3d-leading-1 "$TMP/cut.json" wrong-output
expect_grep '255 columns, the pinned shape has 256' "$TMP/cut.json" "names the column count"
finish
