# Hostile inputs (issue 12, items 1-5): nothing blocks, nothing is skipped silently, nothing leaks.
# Every command runs under `timeout 20`: a hang is exit 124, never a stuck CTest.
PC=$1 SRC=$2 TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
. "$SRC/validator/tests/cli/lib.inc"
SMALL=$SRC/fixtures/st/small-ct/small-ct.safetensors
T="timeout 20"

# 1. FIFOs: a container, config.json, the index, a corpus case input. O_NONBLOCK + fstat: refused at once.
mkdir "$TMP/fifo"
cp "$SMALL" "$TMP/fifo/a.safetensors"
mkfifo "$TMP/fifo/b.safetensors"
expect_rc 2 "a FIFO shard is refused, not waited on" -- $T "$PC" validate "$TMP/fifo"
expect_grep 'b.safetensors: cannot open: not a regular file (a FIFO)' "$TMP/err" "the FIFO shard is named"
expect_rc 2 "a FIFO given as INPUT" -- $T "$PC" validate "$TMP/fifo/b.safetensors"
rm "$TMP/fifo/b.safetensors"
mkfifo "$TMP/fifo/config.json"
expect_rc 1 "a FIFO config.json is CFG-001, not skipped" -- $T "$PC" validate "$TMP/fifo"
expect_grep 'CFG-001  fail  config.json: config.json is not a regular file (a FIFO)' "$TMP/out" "CFG-001 names the FIFO"
rm "$TMP/fifo/config.json"
mkfifo "$TMP/fifo/model.safetensors.index.json"
expect_rc 1 "a FIFO index is ST-030, not skipped" -- $T "$PC" validate "$TMP/fifo"
expect_grep 'ST-030   fail  model.safetensors.index.json: not a regular file (a FIFO)' "$TMP/out" "ST-030 names the FIFO"
rm "$TMP/fifo/model.safetensors.index.json"
expect_rc 2 "unpack of a folder with a FIFO --config" -- $T "$PC" validate "$TMP/fifo" --config "$TMP/fifo/none.json"
mkdir -p "$TMP/corpus/st/fifo"
cp "$SRC/fixtures/st/small-ct/expect.json" "$SMALL" "$TMP/corpus/st/fifo/"
(cd "$TMP/corpus" && sha256sum st/fifo/expect.json st/fifo/small-ct.safetensors >MANIFEST.sha256)
rm "$TMP/corpus/st/fifo/small-ct.safetensors"
mkfifo "$TMP/corpus/st/fifo/small-ct.safetensors"
expect_rc 1 "corpus with a FIFO case input ends" -- $T "$PC" corpus "$TMP/corpus"

# 3. More than 4,096 shards: ST-035 (LIMIT), the first 4,096 in name order read, never a silent skip.
# An empty safetensors file: header length 8, "{}" and six spaces.
empty_st() { printf '\010\0\0\0\0\0\0\0{}      ' >"$1"; }
mkdir "$TMP/many"
i=0; while [ $i -lt 4097 ]; do empty_st "$TMP/many/s$(printf %04d $i).safetensors"; i=$((i + 1)); done
expect_rc 1 "4,097 shards are a LIMIT finding" -- $T "$PC" validate "$TMP/many"
expect_grep 'ST-035   fail  s4096.safetensors: 4097 container files, more than the limit of 4096' "$TMP/out" "ST-035 names the first unread shard"
rm "$TMP/many/s4096.safetensors"
expect_rc 0 "4,096 shards are within the limit" -- $T "$PC" validate "$TMP/many"
# A 1M-entry index naming 5,000 shards: one hash probe per entry (on main: 12 s, quadratic).
i=4096; while [ $i -lt 5000 ]; do empty_st "$TMP/many/s$(printf %04d $i).safetensors"; i=$((i + 1)); done
awk 'BEGIN { printf "{\"weight_map\": {"; for (i = 0; i < 1000000; i++) printf "%s\"t%d\": \"s%04d.safetensors\"", (i ? ", " : ""), i, i % 5000; print "}}" }' \
    >"$TMP/many/model.safetensors.index.json"
expect_rc 1 "a 1M-entry index over 5,000 shards finishes" -- $T "$PC" validate "$TMP/many"
expect_grep 'ST-035   fail  s4096.safetensors: 5000 container files' "$TMP/out" "the index's shards are capped too"
rm -rf "$TMP/many"

finish
