# certify's terminal lines say why (issue 32 item 3): a diagnosed wrong output prints
# "diagnosis: <bug>", an accepted invalid input names the tensor, block and value that break its
# rule, a crash carries the reader's last stderr line, and exit 126/127 say what to do.
PC=$1 SRC=$2 BIN=$3 TMP=$(mktemp -d)
. "$SRC/validator/tests/cli/lib.inc"
R=$SRC/validator/tests/readers MUT=$BIN/pc_mutate
chmod 755 "$TMP" # readers may run as nobody (certify as root)

expect_rc 1 "nibble-swap mutant" -- "$PC" certify --reader "sh $R/mutant.sh nibble-swap $PC $MUT {input} {output}" --case awq/autoawq-gemm-g32-random
expect_grep '^wrong-output     awq/autoawq-gemm-g32-random: .*; diagnosis: nibble-swap (nibbles swapped' "$TMP/out" "wrong-output line carries the diagnosis"

expect_rc 1 "accept-all on a GQ-002 case" -- "$PC" certify --reader "sh $R/accept_all.sh $MUT {input} {output}" --case gq/iq4_nl-d-inf --report json:"$TMP/acc.json"
expect_grep '^accepted-invalid gq/iq4_nl-d-inf: accepted an input that breaks GQ-002; the input breaks it at x.weight @146: block 1 has d = 0x7c00 (inf)' "$TMP/out" "accepted-invalid names tensor, block and value"
expect_grep '"breach":' "$TMP/acc.json" "the JSON report carries the breach too"

printf 'echo "my_reader: cannot parse the header" >&2\nexit 126\n' >"$TMP/r126.sh"
chmod 644 "$TMP/r126.sh"
expect_rc 1 "a reader exiting 126" -- "$PC" certify --reader "sh $TMP/r126.sh {input} {output}" --case gq/iq4_nl-d-inf
expect_grep '^crash            gq/iq4_nl-d-inf: exit 126 .*; reader.s last line: "my_reader: cannot parse the header"; what to do: the shell found the reader but could not run it' "$TMP/out" "exit 126: last stderr line and what to do"
if [ "$(id -u)" = 0 ]; then expect_grep 'as root certify runs readers as nobody, who cannot enter a 0700 home' "$TMP/out" "as root: the 0700 home is named"; fi
expect_rc 1 "a reader that does not exist" -- "$PC" certify --reader "$TMP/no-such-reader {input} {output}" --case gq/iq4_nl-d-inf
expect_grep '^crash            gq/iq4_nl-d-inf: exit 127 .*no-such-reader: not found"; what to do: the shell did not find the reader' "$TMP/out" "exit 127: not found and what to do"
rm -rf "$TMP"
finish
