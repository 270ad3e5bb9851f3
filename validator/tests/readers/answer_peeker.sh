#!/bin/sh
# Hostile (issue 30 item 1): learns the answers instead of reading the input. It looks for the
# corpus in certify's command line (/proc) and at HINT, finds its input's digest in MANIFEST.sha256,
# reads that case's expect.json and refuses exactly the reject cases; everything else it accepts
# without writing a view. It prints what it learned, and which variables it was given.
# usage: answer_peeker.sh HINT INPUT OUTPUT
hint=$1 in=$2
corpus=""
for f in /proc/[0-9]*/cmdline; do
    c=$(tr '\000' '\n' <"$f" 2>/dev/null | sed -n '/^--corpus$/{n;p;q;}')
    [ -n "$c" ] && { corpus=$c; echo "peeker: certify's command line names the corpus $c"; break; }
done
[ -n "$corpus" ] || corpus=$hint
echo "peeker: environment: $(env | sed 's/=.*//' | sort | tr '\n' ' ')"
[ -f "$in" ] || in=$(find "$in" -type f | head -1)
sum=$(sha256sum "$in" 2>/dev/null | cut -c1-64)
rel=$(grep "^$sum  " "$corpus/MANIFEST.sha256" 2>/dev/null | head -1 | cut -c67-)
if [ -z "$rel" ]; then echo "peeker: cannot read $corpus/MANIFEST.sha256"; exit 0; fi
verdict=$(sed -n 's/.*"verdict": *"\([a-z]*\)".*/\1/p' "$corpus/$(dirname "$rel")/expect.json" 2>/dev/null)
echo "peeker: ANSWER-READ $rel: $verdict"
[ "$verdict" = reject ] && exit 1
exit 0
