'use strict';
// The harness: runs a reader over the cases and judges each answer as `packcheck certify` does.
const { cases, severity, sha256, version, manifestSha256 } = require('./corpus');

/** Thrown (or returned) by a reader that refuses its input. */
class Refused extends Error {}

const squeeze = (shape) => {
  let n = 0;
  while (n < shape.length - 1 && shape[n] === 1) n++;
  return shape.slice(n);
};
const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
const bytesOf = (a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

/** As certify: a case of the other profile is not run; under compat a case with a -compat twin
 *  defers to it, and a reject by a rule compat does not enforce is not a reject there. */
function profileSkip(c, profile, ids) {
  const declared = c.expect.profile || '';
  if (declared && declared !== profile) return `a ${declared}-profile case`;
  if (!declared && profile === 'compat') {
    if (ids.has(`${c.id}-compat`)) return 'its -compat twin carries the compat expectation';
    if (c.verdict === 'reject') {
      const sev = severity(c.rejectRule, 'compat') || 'MUST';
      if (sev !== 'MUST' && sev !== 'LIMIT') return 'its reject rule is not enforced under compat';
    }
  }
  return null;
}

/** The view ({module: {shape, codes?: Uint8Array, weight?: Float32Array}}) against the pins. */
function compare(c, view) {
  for (const name of Object.keys(view)) if (!(name in c.modules)) return `module ${name}: not a module of the case`;
  for (const [name, pin] of Object.entries(c.modules)) {
    const m = view[name];
    if (!m) return `module ${name}: missing`;
    const want = squeeze(pin.shape), got = squeeze((m.shape || []).map(Number));
    if (!same(want, got)) {
      const t = want.length === 2 && same([...want].reverse(), got) ? ' (transposed)' : '';
      return `module ${name}: shape [${got}], the case's is [${want}]${t}`;
    }
    if (!m.codes && !m.weight) return `module ${name}: neither codes nor weight`;
    const n = pin.shape.reduce((a, b) => a * b, 1);
    for (const [what, arr, key] of [['codes', m.codes, 'codes_sha256'], ['weight', m.weight, 'weight_f32_sha256']]) {
      if (!arr || !pin[key]) continue;
      if (arr.length !== n) return `module ${name}: ${arr.length} ${what} elements for a shape of ${n}`;
      const h = sha256(bytesOf(arr));
      if (h !== pin[key]) return `module ${name}.${what}: sha256 ${h}, pinned ${pin[key]}`;
    }
  }
  return null;
}

async function judge(reader, c, profile, ids) {
  const skip = profileSkip(c, profile, ids);
  if (skip) return { outcome: 'other-profile', detail: skip };
  const input = c.input();
  let view;
  try {
    const scope = reader.scope ? await reader.scope(c, input) : true;
    if (scope !== true) return { outcome: 'unsupported', detail: String(scope || 'out of scope') };
    view = await reader.decode(c, input);
  } catch (err) {
    if (!(err instanceof Refused)) return { outcome: 'crash', detail: `threw ${err && err.stack ? err.stack.split('\n')[0] : err}` };
    return c.verdict === 'pass' ? { outcome: 'rejected-valid', detail: `refused a valid input: ${err.message}` } : { outcome: 'pass', detail: '' };
  }
  if (c.verdict === 'reject') {
    if (c.rejectRule && severity(c.rejectRule, profile) === 'LIMIT') return { outcome: 'pass', detail: `${c.rejectRule} is packcheck's own LIMIT: either answer` };
    return { outcome: 'accepted-invalid', detail: `accepted an input that breaks ${c.rejectRule || c.rejectFamily}` };
  }
  const why = compare(c, view || {});
  return why ? { outcome: 'wrong-output', detail: why } : { outcome: 'pass', detail: '' };
}

class Report {
  constructor(results) {
    this.results = results;
  }
  count(status) {
    return this.results.filter((r) => r.status === status).length;
  }
  get(id) {
    return this.results.find((r) => r.id === id);
  }
  validPassed() {
    return this.results.filter((r) => r.verdict === 'pass' && r.outcome === 'pass').length;
  }
  /** Held: nothing failed, no ignore entry is stale, at least one valid case passed. */
  ok() {
    return this.count('FAIL') === 0 && this.count('stale') === 0 && this.validPassed() > 0;
  }
  toString() {
    const lines = this.results.filter((r) => r.status !== 'skip').map((r) => `${r.status.padEnd(13)} ${r.outcome.padEnd(16)} ${r.id}${r.detail ? ': ' + r.detail : ''}`);
    lines.push(`packcheck-corpus ${this.ok() ? 'HELD' : 'NOT HELD'}: ${this.count('ok')} ok (${this.validPassed()} valid cases passed), ${this.count('FAIL')} FAIL, ` +
      `${this.count('expected-fail')} expected-fail, ${this.count('stale')} stale, ${this.count('skip')} not run (scope or profile); corpus ${version()} manifest ${manifestSha256()}`);
    return lines.join('\n');
  }
}

/** new Harness(reader, {ignore: [ids], only: [id parts], profile: 'strict' | 'compat'}).
 *  reader: {decode(case, input) -> view (or a Promise of one; throw Refused to refuse), scope?(case, input) -> true | reason}. */
class Harness {
  constructor(reader, { ignore = [], only = [], profile = 'strict' } = {}) {
    this.reader = reader;
    this.ignore = new Set(ignore);
    this.only = only;
    this.profile = profile;
  }
  selected() {
    return cases().filter((c) => !this.only.length || this.only.some((p) => c.id.includes(p)));
  }
  async runCase(c, ids = new Set(cases().map((k) => k.id))) {
    const { outcome, detail } = await judge(this.reader, c, this.profile, ids);
    const ran = outcome !== 'unsupported' && outcome !== 'other-profile';
    const listed = this.ignore.has(c.id), passed = outcome === 'pass';
    const status = !ran ? 'skip' : passed ? (listed ? 'stale' : 'ok') : listed ? 'expected-fail' : 'FAIL';
    return { id: c.id, verdict: c.verdict, outcome, detail, status };
  }
  async run() {
    const ids = new Set(cases().map((k) => k.id));
    const results = [];
    for (const c of this.selected()) results.push(await this.runCase(c, ids));
    return new Report(results);
  }
  /** Registers one node:test subtest per case under `t` (node --test reports per case), then the verdict. */
  async test(t) {
    const ids = new Set(cases().map((k) => k.id));
    const results = [];
    for (const c of this.selected()) {
      const r = await this.runCase(c, ids);
      results.push(r);
      if (!t) continue;
      await t.test(c.id, { skip: r.status === 'skip' ? r.detail : false, todo: r.status === 'expected-fail' ? r.detail : false }, () => {
        if (r.status === 'FAIL' || r.status === 'stale') throw new Error(`${r.outcome}: ${r.detail || 'passes, but is on the ignore list'}`);
      });
    }
    const rep = new Report(results);
    if (!rep.ok()) throw new Error(`the reader does not hold to the corpus:\n${rep}`);
    return rep;
  }
}

module.exports = { Harness, Report, Refused, compare };
