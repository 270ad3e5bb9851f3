# Tensor accounting (the accounting issue): every tensor is checked, plain or unchecked, and an input
# holding quantized tensors that were not checked is never `pass`. The situations users met:
# compressed-tensors tensors under a wrong or empty quantization config (rejected by CFG-028, naming
# the packed tensors), and schemes this version does not decode (unchecked, exit 3, scheme named).
PC=$1 SRC=$2 TMP=$(mktemp -d)
. "$SRC/validator/tests/cli/lib.inc"

# mkst FILE HEADER_JSON DATA_BYTES: a safetensors file with that header and DATA_BYTES zero bytes.
mkst() {
    n=$(printf '%s' "$2" | wc -c)
    printf "$(printf '\\%03o\\%03o\\%03o\\%03o' $((n & 255)) $((n >> 8 & 255)) $((n >> 16 & 255)) $((n >> 24 & 255)))"'\000\000\000\000' >"$1"
    printf '%s' "$2" >>"$1"
    head -c "$3" /dev/zero >>"$1"
}

# 1. A real compressed-tensors W4A16 folder (fixtures/ct/dense-b4-probes) with the three config mistakes.
for m in misspelt gptq empty; do
    mkdir -p "$TMP/$m"
    cp "$SRC/fixtures/ct/dense-b4-probes/model.safetensors" "$TMP/$m/"
    case $m in
    misspelt) q='{"quant_method": "compressed_tensors", "format": "pack-quantized"}' ;;
    gptq) q='{"quant_method": "gptq", "bits": 4, "group_size": 32}' ;;
    empty) q='{}' ;;
    esac
    printf '{"architectures": ["LlamaForCausalLM"], "quantization_config": %s}\n' "$q" >"$TMP/$m/config.json"
    expect_rc 1 "W4A16 folder, config $m: rejected" -- "$PC" validate "$TMP/$m" --report json:"$TMP/$m.json"
    expect_grep 'CFG-028  fail  model.layers.0.mlp.down_proj.weight_packed @' "$TMP/out" "config $m: CFG-028 names the first packed tensor and its offset"
    expect_grep '3 compressed-tensors packed weight(s)' "$TMP/out" "config $m: the count of unclaimed packed weights"
done
expect_grep 'quant_method \\"compressed_tensors\\", not \\"compressed-tensors\\"' "$TMP/misspelt.json" "the misspelling is quoted"
expect_grep 'names no quant_method' "$TMP/empty.json" "the empty config is said to name no method"

# 2. Schemes not decoded by this version: unchecked, exit 3, the scheme named; --allow-unchecked -> 0.
# check_unchecked CASE CONFIG HEADER BYTES SCHEME
check_unchecked() {
    mkdir -p "$TMP/$1"
    [ -n "$2" ] && printf '%s\n' "$2" >"$TMP/$1/config.json"
    mkst "$TMP/$1/model.safetensors" "$3" "$4"
    expect_rc 3 "$1: unchecked" -- "$PC" validate "$TMP/$1" --report json:"$TMP/$1.json" --report junit:"$TMP/$1.xml"
    expect_grep "unchecked (safetensors)" "$TMP/out" "$1: verdict line"
    expect_grep "\"scheme\":	\"$5" "$TMP/$1.json" "$1: scheme named"
    expect_grep '<skipped message="unchecked: ' "$TMP/$1.xml" "$1: junit skipped, not passed"
    expect_rc 0 "$1: --allow-unchecked" -- "$PC" validate --allow-unchecked "$TMP/$1"
    expect_rc 3 "$1: unpack with nothing decodable" -- "$PC" unpack "$TMP/$1" --out "$TMP/$1.view.safetensors"
    checks=$((checks + 1)); [ -e "$TMP/$1.view.safetensors" ] && { echo "FAIL: $1: unpack left a file"; fails=$((fails + 1)); }
}
# An HQQ W_q and scale without hqq's metadata tensors (nbits, shape, ...): recognised by the declared
# parts of formats/hqq, not decodable.
check_unchecked hqq '{"quantization_config": {"quant_method": "hqq"}}' \
    '{"m.W_q":{"dtype":"U8","shape":[2,4],"data_offsets":[0,8]},"m.scale":{"dtype":"F16","shape":[2],"data_offsets":[8,12]}}' 12 \
    'hqq module (.W_q beside .scale)'
check_unchecked no-config '' '{"m.qdata":{"dtype":"I32","shape":[2,4],"data_offsets":[0,32]}}' 32 'unknown'
# ModelOpt FP8 is decoded now (formats/modelopt); W8A16 (int8 weight-only) is written by ModelOpt
# but not decoded: named, unchecked.
check_unchecked modelopt-w8a16 '{"quantization_config": {"quant_method": "modelopt", "quant_algo": "W8A16"}}' \
    '{"m.weight":{"dtype":"I8","shape":[2,4],"data_offsets":[0,8]},"m.weight_scale":{"dtype":"F32","shape":[2],"data_offsets":[8,16]},"norm.weight":{"dtype":"F16","shape":[4],"data_offsets":[16,24]}}' 24 \
    'ModelOpt W8A16'
expect_grep '"checked":	0' "$TMP/modelopt-w8a16.json" "modelopt-w8a16: nothing checked"
expect_grep '"plain":	1' "$TMP/modelopt-w8a16.json" "modelopt-w8a16: the F16 norm is plain"
expect_grep '"unchecked":	2' "$TMP/modelopt-w8a16.json" "modelopt-w8a16: weight and its F32 scale unchecked"
# bitsandbytes LLM.int8 is decoded (formats/bnb_int8.c): weight and SCB checked, the norm plain.
mkdir -p "$TMP/llm-int8"
printf '%s\n' '{"quantization_config": {"quant_method": "bitsandbytes", "load_in_8bit": true}}' >"$TMP/llm-int8/config.json"
mkst "$TMP/llm-int8/model.safetensors" '{"m.weight":{"dtype":"I8","shape":[2,4],"data_offsets":[0,8]},"m.SCB":{"dtype":"F32","shape":[2],"data_offsets":[8,16]},"norm.weight":{"dtype":"F16","shape":[4],"data_offsets":[16,24]}}' 24
expect_rc 0 "llm-int8: decoded and checked" -- "$PC" validate "$TMP/llm-int8"
expect_grep 'tensors: 2 checked, 1 plain, 0 unchecked' "$TMP/out" "llm-int8: weight and SCB checked"

# 3. The logical view's own format: M.codes and M.weight of different shapes break LV-001.
mkst "$TMP/lv.safetensors" '{"m.codes":{"dtype":"U8","shape":[2,4],"data_offsets":[0,8]},"m.weight":{"dtype":"F32","shape":[4,2],"data_offsets":[8,40]}}' 40
expect_rc 1 "logical view with mismatched shapes" -- "$PC" validate "$TMP/lv.safetensors"
expect_grep 'LV-001 *fail *m.codes' "$TMP/out" "LV-001 names the codes tensor"
mkst "$TMP/lv-ok.safetensors" '{"m.codes":{"dtype":"U8","shape":[2,4],"data_offsets":[0,8]},"m.weight":{"dtype":"F32","shape":[2,4],"data_offsets":[8,40]}}' 40
expect_rc 0 "logical view validates as checked" -- "$PC" validate "$TMP/lv-ok.safetensors"
expect_grep 'tensors: 2 checked, 0 plain, 0 unchecked' "$TMP/out" "both view tensors checked"

# 3b. Recognition by structure, not dtype: a GPTQ-shaped module whose codes are stored as F16 (as a
#     writer with float-typed codes would: HQQ's view_as_float) and no config naming a method is a
#     quantized module nobody decoded, never plain (before the formats declared their parts: 3 plain).
mkst "$TMP/f16codes.safetensors" '{"m.qweight":{"dtype":"F16","shape":[4,8],"data_offsets":[0,64]},"m.scales":{"dtype":"F16","shape":[1,8],"data_offsets":[64,80]},"n.weight":{"dtype":"F16","shape":[2,2],"data_offsets":[80,88]}}' 88
expect_rc 1 "float-typed codes beside their scales: rejected (CFG-002), not pass" -- "$PC" validate "$TMP/f16codes.safetensors" --report json:"$TMP/f16codes.json"
expect_grep 'tensors: 0 checked, 2 plain, 1 unchecked' "$TMP/out" "m.qweight unchecked; its scales and a dense weight plain"
expect_grep 'gptq module (.qweight beside .scales)' "$TMP/f16codes.json" "the scheme is named from the declared parts"

# 4. Messages for common mistakes: a PyTorch checkpoint, a config.json syntax error.
printf 'PK\003\004not-a-safetensors-file' >"$TMP/model.bin"
expect_rc 2 "a PyTorch zip checkpoint" -- "$PC" validate "$TMP/model.bin"
expect_grep 'is a PyTorch checkpoint (zip or pickle), not safetensors' "$TMP/out" "says what the file is"
mkdir -p "$TMP/torch" && cp "$TMP/model.bin" "$TMP/torch/pytorch_model.bin"
expect_rc 2 "a folder holding only pytorch_model.bin" -- "$PC" validate "$TMP/torch"
expect_grep 'it holds pytorch_model.bin' "$TMP/out" "names the PyTorch file"
mkdir -p "$TMP/badcfg" && cp "$SRC/fixtures/st/valid-metadata/valid-metadata.safetensors" "$TMP/badcfg/"
printf '{\n "a": 1,\n "b": [1, 2,,]\n}\n' >"$TMP/badcfg/config.json"
expect_rc 1 "config.json with a syntax error" -- "$PC" validate "$TMP/badcfg"
expect_grep 'CFG-001 *fail *config.json @23: config.json is not valid JSON: syntax error at line 3, column 13' "$TMP/out" "line and column"
finish
