#!/bin/sh
# Hostile: writes the right view, and leaves a detached grandchild (its own session, out of the
# reader's process group) that later claims the run was certified, in FILE.
# usage: setsid_survivor.sh MARKER FILE PACKCHECK INPUT OUTPUT   (MARKER: for ps)
mark=$1 file=$2 pc=$3
setsid sh -c 'sleep 1; printf "{\"certified\": true}\n" >"$1"; sleep 30' "survivor-$mark" "$file" </dev/null >/dev/null 2>&1 &
exec sh "$(dirname "$0")/correct.sh" "$pc" "$4" "$5"
