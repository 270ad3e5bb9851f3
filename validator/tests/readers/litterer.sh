#!/bin/sh
# Hostile (issue 30 items 4, 5): leaves files in /tmp and /dev/shm, folders nested past PATH_MAX in
# its output folder and its TMPDIR, then accepts without a view (so its log is reported). usage: litterer.sh MARK INPUT OUTPUT
mark=$1 out=$3
echo left >"/tmp/$mark" 2>/dev/null && echo "litter: /tmp/$mark"
echo left >"/dev/shm/$mark" 2>/dev/null && echo "litter: /dev/shm/$mark"
nest() {
    (cd "$1" 2>/dev/null || exit 0
     i=0
     while [ "$i" -lt 130 ] && mkdir a-folder-name-of-forty-bytes-0123456789 && cd a-folder-name-of-forty-bytes-0123456789; do i=$((i + 1)); done
     echo x >f; chmod 000 .; echo "litter: nested $i deep in $1")
}
nest "$(dirname "$out")"
nest "${TMPDIR:-/tmp}"
exit 0
