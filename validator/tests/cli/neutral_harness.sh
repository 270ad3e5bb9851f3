# Issue 11: the harness's generic machinery (diagnosis, equivalence, bench) holds no knowledge of a
# format: every layout name and format-specific identifier lives in the format's own files and
# reaches the harness through pc_format's hooks (diag_params, pair_*, bench); the bug catalogue
# (ids such as "awq-order", titles) is data in harness/diagnose_bugs.c, not machinery. A format name in one
# of these files, even in a comment, fails: a comment naming a format is where the next special
# case goes. bench.c is covered too; it passes once its entries move to pc_format.bench.
PC=$1 SRC=$2 TMP=$(mktemp -d)
. "$SRC/validator/tests/cli/lib.inc"
# int8 only outside uint8_t; element number formats (e2m1, e4m3) are kernels' words, not layouts.
words='gptq|awq|nvfp4|modelopt|q4_0|gguf|mlx|bnb|bitsandbytes|fp8|(^|[^u])int8|mxfp4|e8m0|deepseek|ct-dense|ct-legacy|ct-int|compressed.tensors|g_idx|qzeros'
for f in diagnose.c equiv.c bench.c; do
    checks=$((checks + 1))
    file="$SRC/validator/src/harness/$f"
    if grep -niE "$words" "$file" >"$TMP/hits"; then
        echo "FAIL: harness/$f names formats ($(wc -l <"$TMP/hits") lines):"; sed 's/^/  | /' "$TMP/hits" | head -8
        fails=$((fails + 1))
    fi
done
finish
