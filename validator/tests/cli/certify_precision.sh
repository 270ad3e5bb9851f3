# certify compares at the reader's precision (CONTRACT 5): a BF16/F16 M.weight against the logical view
# rounded once to that dtype (to nearest, ties to even); a bf16 answer made by truncation is wrong and
# carries its ULP distance; at --depth compute a +0.0 answers a -0.0; --tolerance is honoured and
# stated. gq/quantized holds weights that are not bf16 values and -0.0 weights (q5_0).
PC=$1 SRC=$2 BIN=$3 TMP=$(mktemp -d)
. "$SRC/validator/tests/cli/lib.inc"
R=$SRC/validator/tests/readers
MUT=$BIN/pc_mutate
C=$TMP/corpus
mkdir -p "$C/gq"
cp -r "$SRC/fixtures/gq/quantized" "$C/gq/"
(cd "$C" && find . -type f ! -name MANIFEST.sha256 | sed 's|^\./||' | sort | xargs sha256sum) >"$C/MANIFEST.sha256"
chmod -R go+rX "$TMP"
certify() { "$PC" certify --corpus "$C" "$@"; }
field() { tr -d '\n\t ' <"$2" | grep -o "\"$1\":[^,}]*" | head -1; }
expect_field() { # KEY REPORT WANT
    checks=$((checks + 1)); got=$(field "$1" "$2")
    [ "$got" = "$3" ] || { echo "FAIL: $2: $1 is '$got', expected '$3'"; fails=$((fails + 1)); }
}
mutant() { echo "sh $R/mutant.sh $1 $PC $MUT {input} {output}"; }

expect_rc 0 "bf16 rounded to nearest even certifies" -- certify --reader "$(mutant bf16)" --report json:"$TMP/bf16.json"
expect_field precision "$TMP/bf16.json" '"precision":"bf16"'
expect_rc 0 "f16 rounded to nearest even certifies" -- certify --reader "$(mutant f16)" --report json:"$TMP/f16.json"
expect_field precision "$TMP/f16.json" '"precision":"f16"'
expect_rc 1 "bf16 by truncation is wrong" -- certify --reader "$(mutant bf16-trunc)" --report json:"$TMP/trunc.json"
expect_field outcome "$TMP/trunc.json" '"outcome":"wrong-output"'
expect_grep '"max_ulp":' "$TMP/trunc.json" "truncation: the ULP distance is reported"
expect_rc 0 "truncation is within a stated 1-bf16-ulp tolerance" -- certify --reader "$(mutant bf16-trunc)" --tolerance ulp:65536 --report json:"$TMP/tol.json"
expect_field tolerance "$TMP/tol.json" '"tolerance":"ulp:65536"'
expect_rc 1 "+0.0 for -0.0 is wrong at helper depth" -- certify --reader "$(mutant unsigned-zero)" --report json:"$TMP/z.json"
expect_field depth "$TMP/z.json" '"depth":"helper"'
expect_rc 0 "+0.0 for -0.0 at compute depth" -- certify --reader "$(mutant unsigned-zero)" --depth compute --report json:"$TMP/zc.json"
expect_field depth "$TMP/zc.json" '"depth":"compute"'
expect_field zero_sign_compared "$TMP/zc.json" '"zero_sign_compared":false'
expect_rc 0 "the f32 reader answers in f32" -- certify --reader "sh $R/correct.sh $PC {input} {output}" --report json:"$TMP/ok.json"
expect_field precision "$TMP/ok.json" '"precision":"f32"'
expect_rc 2 "--depth wants a known depth" -- certify --reader "$(mutant bf16)" --depth deep
expect_rc 2 "--tolerance wants a known form" -- certify --reader "$(mutant bf16)" --tolerance ulp:-1
finish
