#!/bin/sh
# A reader with one known bug: packcheck unpack, then the output rewritten as the bug would have it.
# usage: mutant.sh BUG PACKCHECK PC_MUTATE INPUT OUTPUT
bug=$1 pc=$2 mutate=$3 in=$4 out=$5
"$pc" unpack "$in" --out "$out" --allow-unchecked >/dev/null
rc=$?
[ "$rc" = 3 ] && exit 1 # nothing decodable: refuse, like correct.sh
[ "$rc" = 0 ] || exit "$rc"
exec "$mutate" "$bug" "$in" "$out"
