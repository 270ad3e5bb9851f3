# Hostile inputs (issue 12, items 1-5): nothing blocks, nothing is skipped silently, nothing leaks.
# Every command runs under `timeout 20`: a hang is exit 124, never a stuck CTest.
PC=$1 SRC=$2 TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
. "$SRC/validator/tests/cli/lib.inc"
SMALL=$SRC/fixtures/st/small-ct/small-ct.safetensors
PLAIN=$SRC/fixtures/st/sharded-valid/model-00001-of-00002.safetensors # F32/F16 only: accepted, nothing unchecked
T="timeout 20"

# 1. FIFOs: a container, config.json, the index, a corpus case input. O_NONBLOCK + fstat: refused at once.
mkdir "$TMP/fifo"
cp "$PLAIN" "$TMP/fifo/a.safetensors"
mkfifo "$TMP/fifo/b.safetensors"
expect_rc 2 "a FIFO shard is refused, not waited on" -- $T "$PC" validate "$TMP/fifo"
# said once, in the summary's error line on stdout (issue 32 item 8: not repeated on stderr)
expect_grep 'b.safetensors: cannot open: not a regular file (a FIFO)' "$TMP/out" "the FIFO shard is named"
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
mkfifo "$TMP/cfg.fifo"
expect_rc 1 "a FIFO given as --config is CFG-001" -- $T "$PC" validate "$TMP/fifo" --config "$TMP/cfg.fifo"
expect_grep 'is not a regular file (a FIFO)' "$TMP/out" "the FIFO --config is named"
mkdir -p "$TMP/corpus/st/fifo"
cp "$SRC/fixtures/st/small-ct/expect.json" "$SMALL" "$TMP/corpus/st/fifo/"
(cd "$TMP/corpus" && sha256sum st/fifo/expect.json st/fifo/small-ct.safetensors >MANIFEST.sha256)
rm "$TMP/corpus/st/fifo/small-ct.safetensors"
mkfifo "$TMP/corpus/st/fifo/small-ct.safetensors"
expect_rc 1 "corpus with a FIFO case input ends" -- $T "$PC" corpus "$TMP/corpus"

# 3. More than 4,096 shards: ST-036 (LIMIT), the first 4,096 in name order read, never a silent skip.
# An empty safetensors file: header length 8, "{}" and six spaces.
empty_st() { printf '\010\0\0\0\0\0\0\0{}      ' >"$1"; }
mkdir "$TMP/many"
i=0; while [ $i -lt 4097 ]; do empty_st "$TMP/many/s$(printf %04d $i).safetensors"; i=$((i + 1)); done
expect_rc 1 "4,097 shards are a LIMIT finding" -- $T "$PC" validate "$TMP/many"
expect_grep 'ST-036   fail  s4096.safetensors: 4097 container files, more than the limit of 4096' "$TMP/out" "ST-036 names the first unread shard"
rm "$TMP/many/s4096.safetensors"
expect_rc 0 "4,096 shards are within the limit" -- $T "$PC" validate "$TMP/many"
# A 1M-entry index naming 5,000 shards: one hash probe per entry (on main: 12 s, quadratic).
i=4096; while [ $i -lt 5000 ]; do empty_st "$TMP/many/s$(printf %04d $i).safetensors"; i=$((i + 1)); done
awk 'BEGIN { printf "{\"weight_map\": {"; for (i = 0; i < 1000000; i++) printf "%s\"t%d\": \"s%04d.safetensors\"", (i ? ", " : ""), i, i % 5000; print "}}" }' \
    >"$TMP/many/model.safetensors.index.json"
# (0.8 s in a release build, 10 s under ASan; 120 s allows for a loaded machine.)
expect_rc 1 "a 1M-entry index over 5,000 shards finishes" -- timeout 120 "$PC" validate "$TMP/many"
expect_grep 'ST-036   fail  s4096.safetensors: 5000 container files' "$TMP/out" "the index's shards are capped too"
# Issue 30 item 13: a file-level failure among 5,000 files names the file (its header length is 2^64-1).
rm "$TMP/many/model.safetensors.index.json"
printf '\377\377\377\377\377\377\377\377{}      ' >"$TMP/many/s2500.safetensors"
expect_rc 1 "a bad header length among 5,000 files" -- $T "$PC" validate "$TMP/many"
expect_grep 'ST-002 .*s2500.safetensors: header length exceeds' "$TMP/out" "ST-002 names the file"
rm -rf "$TMP/many"
# ... and a dtype holding U+0000 is printed whole, escaped, not cut to "F32".
printf '\075\0\0\0\0\0\0\0{"a":{"dtype":"F32\\u0000x","shape":[1],"data_offsets":[0,4]}}   \0\0\0\0' >"$TMP/nul-dtype.safetensors"
expect_rc 1 "a dtype with U+0000" -- $T "$PC" validate "$TMP/nul-dtype.safetensors"
expect_grep 'ST-012 .*dtype "F32\\u0000x" is not one of' "$TMP/out" "the dtype is shown whole"

# 4. Symbolic links: followed inside the checkpoint root (the folder, or a Hugging Face cache repo for
# a snapshot), refused (ST-037, not opened) outside it; no message quotes a file's bytes.
mkdir -p "$TMP/outside" "$TMP/links"
printf 'root:x:0:0:root:/root:/bin/sh\n' >"$TMP/outside/passwd"
cp "$PLAIN" "$TMP/outside/real.safetensors"
ln -s ../outside/passwd "$TMP/links/a.safetensors"
expect_rc 1 "a shard linked outside the folder is ST-037" -- $T "$PC" validate "$TMP/links"
expect_grep 'ST-037   fail  a.safetensors: a.safetensors is a symbolic link resolving outside the checkpoint folder' "$TMP/out" "ST-037 names the link"
checks=$((checks + 1)); if grep -q '3475222254926655346\|root:x' "$TMP/out" "$TMP/err"; then echo "FAIL: the link target's bytes leak"; fails=$((fails + 1)); fi
rm "$TMP/links/a.safetensors"
cp "$PLAIN" "$TMP/links/a.safetensors"
ln -s ../outside/passwd "$TMP/links/config.json"
expect_rc 1 "a config.json linked outside is ST-037" -- $T "$PC" validate "$TMP/links"
expect_grep 'ST-037   fail  config.json' "$TMP/out" "ST-037 names config.json"
rm "$TMP/links/config.json"
ln -s ../outside/passwd "$TMP/links/model.safetensors.index.json"
expect_rc 1 "an index linked outside is ST-037" -- $T "$PC" validate "$TMP/links"
expect_grep 'ST-037   fail  model.safetensors.index.json' "$TMP/out" "ST-037 names the index"
rm "$TMP/links/model.safetensors.index.json"
mkdir "$TMP/links/sub"; mv "$TMP/links/a.safetensors" "$TMP/links/sub/"; ln -s sub/a.safetensors "$TMP/links/a.safetensors"
expect_rc 0 "a link inside the folder is followed" -- $T "$PC" validate "$TMP/links"
expect_rc 0 "a file INPUT the user names is followed wherever it leads" -- $T "$PC" validate "$TMP/links/sub/../../outside/real.safetensors"
HF="$TMP/hub/models--org--name"
mkdir -p "$HF/blobs" "$HF/snapshots/0123abc" "$HF/refs"
cp "$PLAIN" "$HF/blobs/9f86d081884c7d659a2feaa0c55ad015"
ln -s ../../blobs/9f86d081884c7d659a2feaa0c55ad015 "$HF/snapshots/0123abc/model.safetensors"
expect_rc 0 "an HF cache snapshot's links into blobs/ are followed" -- $T "$PC" validate "$HF/snapshots/0123abc"
ln -s ../../../../outside/passwd "$HF/snapshots/0123abc/config.json"
expect_rc 1 "but not out of the cache repo" -- $T "$PC" validate "$HF/snapshots/0123abc"
expect_grep 'ST-037   fail  config.json' "$TMP/out" "ST-037 in the HF snapshot"
# A foreign file read as safetensors: its first 8 bytes are not printed as a header length.
expect_rc 1 "/etc/passwd-like bytes as a shard" -- $T "$PC" validate "$TMP/outside/passwd" --report json:"$TMP/leak.json"
expect_grep 'ST-002' "$TMP/out" "the header length is over the limit"
checks=$((checks + 1)); if grep -q '3475222254926655346' "$TMP/out" "$TMP/leak.json"; then echo "FAIL: the first 8 bytes leak as a number"; fails=$((fails + 1)); fi

finish
