#!/bin/sh
# Hostile (issue 30 item 2): answers for another certify run. It finds the other runs' output paths
# in their readers' command lines (/proc), or is told one (TARGET), and writes its own correct view
# of the same case there. usage: cross_writer.sh PACKCHECK INPUT OUTPUT [TARGET]
pc=$1 in=$2 out=$3 target=${4:-}
# (its own command line holds OUTPUT and TARGET: those are not counted as found)
found=$(for f in /proc/[0-9]*/cmdline; do tr '\000' '\n' <"$f" 2>/dev/null | grep -o '/[^ ]*/out/view\.safetensors'; done | sort -u | grep -v -x -F "$out" | grep -v -x -F "${target:-/}")
echo "cross: other runs' outputs seen in /proc: $(printf '%s' "$found" | grep -c .)"
for o in $found $target; do
    [ "$o" = "$out" ] && continue
    if "$pc" unpack "$in" --out "$o" --allow-unchecked >/dev/null 2>&1; then echo "cross: WROTE $o"; else echo "cross: could not write $o"; fi
done
exit 1
