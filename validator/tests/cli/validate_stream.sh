# Streaming validation and --hash (performance issue): a small synthetic sharded checkpoint from
# packcheck-gen-ckpt validates; --hash reports each file's SHA-256 (checked against sha256sum) with
# one and with several worker threads; a flipped padding bit is found at its exact offset.
PC=$1 SRC=$2 TMP=$(mktemp -d)
. "$SRC/validator/tests/cli/lib.inc"
GEN=$(dirname "$PC")/packcheck-gen-ckpt

expect_rc 0 "generate a dense checkpoint" -- "$GEN" "$TMP/dense" --size 12M --shard 4M --bits 4 --hidden 256 --inter 512
expect_rc 0 "validate it" -- "$PC" validate "$TMP/dense"
expect_grep "pass (ct-dense)" "$TMP/out" "dense checkpoint is ct-dense"
for th in 1 2 3; do
    expect_rc 0 "validate --hash ($th threads)" -- env PACKCHECK_THREADS=$th "$PC" validate --hash "$TMP/dense" --report json:"$TMP/r$th.json"
    for f in "$TMP"/dense/*.safetensors; do
        h=$(sha256sum "$f" | cut -d' ' -f1)
        expect_grep "sha256 $h  $f" "$TMP/out" "stdout hash of $(basename "$f") ($th threads)"
        expect_grep "\"sha256\":	\"$h\"" "$TMP/r$th.json" "json hash of $(basename "$f") ($th threads)"
    done
done
checks=$((checks + 1))
if grep -q '"sha256"' "$TMP/r1.json" && ! "$PC" validate "$TMP/dense" --report json:"$TMP/nohash.json" >/dev/null; then
    echo "FAIL: validate without --hash"; fails=$((fails + 1))
fi
if grep -q '"sha256"' "$TMP/nohash.json"; then echo "FAIL: hashes without --hash"; fails=$((fails + 1)); fi

# Legacy 3-bit: every word has dead top bits, every packed byte is scanned; one set bit rejects.
expect_rc 0 "generate a legacy checkpoint" -- "$GEN" "$TMP/legacy" --size 12M --shard 4M --bits 3 --legacy --hidden 256 --inter 512
expect_rc 0 "validate legacy" -- env PACKCHECK_THREADS=2 "$PC" validate "$TMP/legacy"
expect_grep "pass (ct-legacy)" "$TMP/out" "legacy checkpoint is ct-legacy"
shard=$(ls "$TMP"/legacy/*.safetensors | head -1)
# byte 3 of the first word of the first tensor's data (the I64 shapes come first: 16 bytes each)
hlen=$(od -An -tu8 -N8 "$shard" | tr -d ' ')
nshape=$(grep -a -o "weight_shape" "$shard" | wc -l)
off=$((8 + hlen + 16 * nshape + 3))
printf '\200' | dd of="$shard" bs=1 seek=$off conv=notrunc 2>/dev/null
expect_rc 1 "a set top bit rejects" -- env PACKCHECK_THREADS=2 "$PC" validate "$TMP/legacy"
expect_grep "CT-015.*@$((off - 3))" "$TMP/out" "CT-015 at the word's offset"
rm -rf "$TMP"
finish
