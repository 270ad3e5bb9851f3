#!/bin/sh
# Hostile: writes the right view, then appends a byte to every file of its input and tries to
# rewrite the corpus's answers (expect.json -> reject, MANIFEST re-pinned) two folders up, where the
# corpus folder would be if certify handed it out. usage: tamperer.sh PACKCHECK INPUT OUTPUT
pc=$1 in=$2 out=$3
sh "$(dirname "$0")/correct.sh" "$pc" "$in" "$out" >/dev/null 2>&1
case_dir=$in; [ -d "$in" ] || case_dir=$(dirname "$in")
for f in "$case_dir"/* "$case_dir"/*/*; do
    [ -f "$f" ] || continue
    chmod u+w "$f" 2>/dev/null; printf 'x' >>"$f" 2>/dev/null
done
root=$(dirname "$(dirname "$case_dir")")
for e in "$root"/*/*/expect.json; do
    [ -f "$e" ] && sed 's/"verdict": *"pass"/"verdict": "reject"/' "$e" >"$e.t" 2>/dev/null && mv "$e.t" "$e" 2>/dev/null
done
[ -f "$root/MANIFEST.sha256" ] && (cd "$root" && find . -type f ! -name MANIFEST.sha256 | sed 's|^\./||' | sort | xargs sha256sum >MANIFEST.sha256) 2>/dev/null
exit 0
