'use strict';
// The cases: expect.json, MANIFEST pins, and the data files read through them.
const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');

const sha256 = (buf) => crypto.createHash('sha256').update(buf).digest('hex');

/** The corpus folder: $PACKCHECK_CORPUS, else corpus/ inside the package (a packed package),
 *  else the repository's fixtures/ (a checkout). */
function corpusDir() {
  if (process.env.PACKCHECK_CORPUS) return path.resolve(process.env.PACKCHECK_CORPUS);
  const packed = path.join(__dirname, '..', 'corpus');
  if (fs.existsSync(path.join(packed, 'MANIFEST.sha256'))) return packed;
  return path.resolve(__dirname, '..', '..', '..', '..', 'fixtures');
}

let cache = null;
function load() {
  const dir = corpusDir();
  if (cache && cache.dir === dir) return cache;
  const manifestText = fs.readFileSync(path.join(dir, 'MANIFEST.sha256'));
  const pins = new Map();
  for (const line of manifestText.toString('utf8').split('\n')) {
    if (!line.trim()) continue;
    const at = line.indexOf('  ');
    if (at < 0) throw new Error(`bad MANIFEST line: ${line}`);
    pins.set(line.slice(at + 2), line.slice(0, at));
  }
  const ids = [...pins.keys()].filter((p) => /^[^/]+\/[^/]+\/expect\.json$/.test(p)).map((p) => p.slice(0, -'/expect.json'.length)).sort();
  const cases = ids.map((id) => new Case(id, dir, pins));
  cache = { dir, manifestText, pins, cases, severities: loadSeverities(dir) };
  return cache;
}

/** id -> [strict severity, compat severity], from rules.json beside or above the corpus. */
function loadSeverities(dir) {
  const out = new Map();
  const file = [path.join(dir, 'rules.json'), path.join(dir, '..', 'rules', 'rules.json')].find((p) => fs.existsSync(p));
  if (!file) return out;
  for (const fam of JSON.parse(fs.readFileSync(file, 'utf8')).families || []) {
    for (const r of fam.rules || []) out.set(r.id, [r.severity, r.compat || r.severity]);
  }
  return out;
}

/** A case's input files, read through their MANIFEST pins (expect.json is not one of them). */
class Input {
  constructor(c) {
    this.caseId = c.id;
    this.main = c.expect.input || '.';
    this.dir = c.dir;
    this.files = c.files;
    this._pins = c._pins;
  }
  /** The bytes of `rel` (relative to the case folder); a changed corpus file throws. */
  read(rel) {
    const want = this._pins.get(`${this.caseId}/${rel}`);
    if (!want || rel === 'expect.json') throw new Error(`${this.caseId}: no file ${rel} in the case`);
    const buf = fs.readFileSync(path.join(this.dir, rel));
    const got = sha256(buf);
    if (got !== want) throw new Error(`${this.caseId}/${rel}: sha256 ${got}, MANIFEST pins ${want}`);
    return buf;
  }
  /** The main input when it is one file (a .gguf, a .safetensors). */
  readMain() {
    if (this.main === '.') throw new Error(`${this.caseId}: the input is a folder`);
    return this.read(this.main);
  }
}

class Case {
  constructor(id, dir, pins) {
    this.id = id;
    [this.family, this.name] = id.split('/');
    this.dir = path.join(dir, id);
    const text = fs.readFileSync(path.join(this.dir, 'expect.json'), 'utf8');
    const want = pins.get(`${id}/expect.json`);
    if (sha256(Buffer.from(text, 'utf8')) !== want) throw new Error(`${id}/expect.json does not match its MANIFEST pin`);
    const e = JSON.parse(text);
    this.expect = e;
    this.verdict = e.verdict;
    this.rejectRule = e.reject_rule ?? null;
    this.rejectFamily = e.reject_family ?? null;
    this.layout = e.layout ?? null;
    this.profile = e.profile || 'strict';
    this.rules = e.rules || [];
    this.modules = e.modules || {};
    this.tensorTypes = e.tensor_types || {};
    this.files = [...pins.keys()].filter((p) => p.startsWith(`${id}/`) && p !== `${id}/expect.json`).map((p) => p.slice(id.length + 1));
    Object.defineProperty(this, '_pins', { value: pins, enumerable: false });
  }
  input() {
    return new Input(this);
  }
}

/** The corpus version (VERSION, MAJOR.MINOR.PATCH), "" when unversioned. */
function version() {
  const p = path.join(corpusDir(), 'VERSION');
  return fs.existsSync(p) ? fs.readFileSync(p, 'utf8').trim() : '';
}

/** SHA-256 of MANIFEST.sha256: the corpus's exact identity. */
const manifestSha256 = () => sha256(load().manifestText);
const cases = () => load().cases;
const find = (id) => cases().find((c) => c.id === id);
const severity = (rule, profile) => {
  const s = load().severities.get(rule);
  return s ? s[profile === 'compat' ? 1 : 0] : undefined;
};

module.exports = { corpusDir, version, manifestSha256, cases, find, severity, sha256, Case, Input };
