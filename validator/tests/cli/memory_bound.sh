# Memory bound of the streaming pass (issue 18, scaling rows), checked without timing anything:
# peak resident memory of `validate --hash` (which reads and hashes every byte) on sparse
# checkpoints of 64 MiB and 1 GiB stays under 64 MiB, and grows by less than 8 MiB between them
# (windows per worker, not the file size). The files are holes: nothing is written to disk.
PC=$1 SRC=$2 BIN=$3 TMP=$(mktemp -d)
. "$SRC/validator/tests/cli/lib.inc"
RSS=$BIN/pc_peak_rss

# DIR NSHARDS BYTES_PER_TENSOR: shards holding one F16 tensor each, data left as a hole.
sparse_ckpt() {
    mkdir -p "$1"
    for s in $(seq 1 "$2"); do
        f="$1/model-0000$s-of-0000$2.safetensors"
        hdr=$(printf '{"w%d":{"dtype":"F16","shape":[%d],"data_offsets":[0,%d]}}' "$s" $(($3 / 2)) "$3")
        while [ $((${#hdr} % 8)) != 0 ]; do hdr="$hdr "; done
        n=${#hdr}
        # 8-byte little-endian header length, then the header, then a hole
        printf "$(printf '\\%03o\\%03o\\%03o\\000\\000\\000\\000\\000' $((n % 256)) $((n / 256 % 256)) $((n / 65536)))" > "$f"
        printf '%s' "$hdr" >> "$f"
        truncate -s $((8 + n + $3)) "$f"
    done
}
sparse_ckpt "$TMP/small" 2 $((32 << 20))
sparse_ckpt "$TMP/big" 2 $((512 << 20))
for d in small big; do
    expect_rc 0 "validate --hash, $d sparse checkpoint" -- env PACKCHECK_THREADS=2 "$RSS" "$PC" validate --hash --quiet "$TMP/$d"
    eval "kb_$d=\$(tail -1 \"\$TMP/out\")"
    expect_rc 0 "validate, $d sparse checkpoint" -- env PACKCHECK_THREADS=2 "$RSS" "$PC" validate --quiet "$TMP/$d"
done
# the digests match sha256sum's (every byte of the holes was read)
expect_rc 0 "validate --hash prints digests" -- "$PC" validate --hash "$TMP/small"
for f in "$TMP"/small/*.safetensors; do
    expect_grep "sha256 $(sha256sum "$f" | cut -d' ' -f1)  $f" "$TMP/out" "digest of $(basename "$f")"
done
checks=$((checks + 2))
# unpack (issue 29): modules are decoded in row slices into two reused slots, so its peak RSS is
# validate's on the same checkpoint plus the slots (2 x 256 Ki elements x 5 bytes = 2.5 MiB), not a
# module's view: the 1024 x 4096 modules here would add 20 MiB as a whole-module buffer.
GEN=$(dirname "$PC")/packcheck-gen-ckpt
"$GEN" "$TMP/ct" --size 1M --hidden 1024 --inter 4096 --bits 4 >/dev/null || { echo "FAIL: gen-ckpt"; exit 1; }
# unpack_within NAME: unpack's peak RSS on $TMP/NAME within 8 MiB of validate's on the same folder.
unpack_within() {
    expect_rc 0 "validate, $1 checkpoint" -- "$RSS" "$PC" validate --quiet "$TMP/$1"
    kb_val=$(tail -1 "$TMP/out")
    expect_rc 0 "unpack, $1 checkpoint" -- "$RSS" "$PC" unpack "$TMP/$1" --out "$TMP/$1-view.safetensors"
    kb_unpack=$(tail -1 "$TMP/out")
    checks=$((checks + 1))
    echo "peak RSS: validate ${kb_val} KiB, unpack ${kb_unpack} KiB ($1: largest module 4 Mi elements, 20 MiB as codes + f32)"
    if [ $((${kb_unpack:-999999} - ${kb_val:-0})) -gt $((8 * 1024)) ]; then
        echo "FAIL: $1 unpack peak RSS ${kb_unpack} KiB exceeds validate's ${kb_val} KiB by more than 8 MiB"; fails=$((fails + 1))
    fi
}
unpack_within ct
# The same bound for a format decoded through its own row decoder (fp8: DeepSeek 128 x 128 blocks,
# whose slices cut blocks): one 4096 x 1024 F8_E4M3 weight (a hole: every byte 0 is E4M3 zero)
# beside its 32 x 8 F32 scales of 1.0. Decoded whole it would add 20 MiB (codes + f32) plus 4 MiB read.
mkdir -p "$TMP/fp8"
printf '{"quantization_config":{"quant_method":"fp8","fmt":"e4m3","activation_scheme":"dynamic","weight_block_size":[128,128]}}' > "$TMP/fp8/config.json"
hdr='{"m.weight_scale_inv":{"dtype":"F32","shape":[32,8],"data_offsets":[0,1024]},"m.weight":{"dtype":"F8_E4M3","shape":[4096,1024],"data_offsets":[1024,4195328]}}'
while [ $((${#hdr} % 8)) != 0 ]; do hdr="$hdr "; done
n=${#hdr}
printf "$(printf '\\%03o\\%03o\\000\\000\\000\\000\\000\\000' $((n % 256)) $((n / 256)))" > "$TMP/fp8/model.safetensors"
printf '%s' "$hdr" >> "$TMP/fp8/model.safetensors"
for i in $(seq 256); do printf '\000\000\200\077'; done >> "$TMP/fp8/model.safetensors"
truncate -s $((8 + n + 1024 + 4194304)) "$TMP/fp8/model.safetensors"
unpack_within fp8
echo "peak RSS: 64 MiB checkpoint ${kb_small} KiB, 1 GiB checkpoint ${kb_big} KiB"
if [ "${kb_big:-999999}" -gt $((64 * 1024)) ]; then echo "FAIL: peak RSS ${kb_big} KiB over 64 MiB"; fails=$((fails + 1)); fi
if [ $((${kb_big:-999999} - ${kb_small:-0})) -gt $((8 * 1024)) ]; then echo "FAIL: peak RSS grew with the file: ${kb_small} -> ${kb_big} KiB"; fails=$((fails + 1)); fi
rm -rf "$TMP"
finish
