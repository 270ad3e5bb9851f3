#!/bin/sh
# Hostile: a view of a few KiB on disk whose header declares the first module's codes 1 GiB wide
# (a sparse file). certify must compare the declared shape with the case before allocating.
# usage: big_declared.sh PACKCHECK PC_MUTATE INPUT OUTPUT
sh "$(dirname "$0")/correct.sh" "$1" "$3" "$4" >/dev/null || exit $?
exec "$2" bigdecl "$3" "$4"
