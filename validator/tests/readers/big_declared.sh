#!/bin/sh
# Hostile: a view of a few KiB on disk whose header declares the first module's codes 1 GiB wide
# (a sparse file). certify must compare the declared shape with the case before allocating.
# usage: big_declared.sh PACKCHECK PC_MUTATE INPUT OUTPUT
"$1" unpack "$3" --out "$4" >/dev/null || exit $?
exec "$2" bigdecl "$3" "$4"
