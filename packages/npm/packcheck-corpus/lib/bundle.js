'use strict';
// `npm pack` / `npm publish` (prepack): copies the repository's fixtures/ and rules/rules.json into
// corpus/, so the packed package carries the corpus it was built from.
const fs = require('node:fs');
const path = require('node:path');

const repo = path.resolve(__dirname, '..', '..', '..', '..');
const dest = path.resolve(__dirname, '..', 'corpus');
fs.rmSync(dest, { recursive: true, force: true });
fs.cpSync(path.join(repo, 'fixtures'), dest, { recursive: true });
fs.copyFileSync(path.join(repo, 'rules', 'rules.json'), path.join(dest, 'rules.json'));
console.log(`packcheck-corpus: bundled ${path.join(repo, 'fixtures')} into ${dest}`);
