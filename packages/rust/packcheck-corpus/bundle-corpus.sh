#!/bin/sh
# Before `cargo package` / `cargo publish`: copies the corpus index (MANIFEST.sha256, VERSION,
# CHANGELOG.md, every expect.json, rules.json; about 0.7 MB) into corpus/, which build.rs prefers.
# The data files stay out: the whole corpus compresses to about 12 MB, over crates.io's 10 MB limit,
# so a published crate reads them from $PACKCHECK_CORPUS (a packcheck checkout's fixtures/ of the
# same corpus version; their MANIFEST pins are checked on every read). --full copies them too (a git
# or path dependency, a private registry, or --features embed).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
rm -rf "$here/corpus"
mkdir -p "$here/corpus"
cp "$repo/fixtures/MANIFEST.sha256" "$repo/fixtures/VERSION" "$repo/fixtures/CHANGELOG.md" "$repo/rules/rules.json" "$here/corpus/"
if [ "${1:-}" = --full ]; then
    cp -r "$repo/fixtures/." "$here/corpus/"
else
    (cd "$repo/fixtures" && find . -mindepth 3 -maxdepth 3 -name expect.json) | while read -r e; do
        mkdir -p "$here/corpus/$(dirname "$e")"
        cp "$repo/fixtures/$e" "$here/corpus/$e"
    done
fi
echo "bundle-corpus: $(find "$here/corpus" -type f | wc -l) files in $here/corpus"
