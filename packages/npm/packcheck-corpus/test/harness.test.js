'use strict';
// The harness against a tiny GGUF Q8_0 reader: it holds on its declared cases, and the harness
// catches a planted bug, a reader that accepts everything, a stale ignore entry and a thrown error.
const test = require('node:test');
const assert = require('node:assert');
const corpus = require('..');
const { Harness, Refused } = corpus;
const { q8Reader } = require('./gguf-q8_0-reader');

const FAMILIES = ['gguf/', 'gq/', 'llama/', 'q40/'];

test('the index matches the corpus', () => {
  assert.match(corpus.version(), /^\d+\.\d+\.\d+$/);
  assert.match(corpus.manifestSha256(), /^[0-9a-f]{64}$/);
  assert.ok(corpus.cases().length > 600);
  const c = corpus.find('gguf/alignment-0');
  assert.strictEqual(c.verdict, 'reject');
  assert.strictEqual(c.rejectRule, 'GGUF-012');
  assert.strictEqual(c.input().readMain().toString('latin1', 0, 4), 'GGUF');
  assert.throws(() => c.input().read('expect.json'));
  assert.deepStrictEqual(corpus.find('llama/llama-q8-0').modules['blk.0.attn_q'].shape, [256, 256]);
});

// The reader applies ggml's loader checks, so it is held to the compat profile; its known gap (a NUL
// in a tensor name, which ggml accepts, truncating the name) is on the ignore list.
test('the Q8_0 reader holds on its declared cases', async (t) => {
  const rep = await new Harness(q8Reader, { only: FAMILIES, profile: 'compat', ignore: ['gguf/name-with-nul-compat'] }).test(t);
  assert.strictEqual(rep.get('llama/llama-q8-0').outcome, 'pass');
  assert.strictEqual(rep.get('gq/q8_0-d-inf').outcome, 'pass');
  assert.strictEqual(rep.get('gguf/name-with-nul-compat').status, 'expected-fail');
  assert.strictEqual(rep.get('llama/llama-q4-0').status, 'skip');
  assert.ok(rep.count('ok') > 50, `${rep.count('ok')} cases held`);
});

test('a planted bug is wrong-output', async () => {
  const negated = { scope: q8Reader.scope, decode: (c, i) => {
    const v = q8Reader.decode(c, i);
    for (const m of Object.values(v)) m.weight = m.weight.map((x) => -x);
    return v;
  } };
  const rep = await new Harness(negated, { only: ['llama/llama-q8-0'] }).run();
  assert.strictEqual(rep.get('llama/llama-q8-0').outcome, 'wrong-output');
  assert.match(rep.get('llama/llama-q8-0').detail, /weight/);
  assert.ok(!rep.ok());
  const listed = await new Harness(negated, { only: ['llama/llama-q8-0'], ignore: ['llama/llama-q8-0'] }).run();
  assert.strictEqual(listed.get('llama/llama-q8-0').status, 'expected-fail');
});

test('accepting invalid input fails; a LIMIT is either', async () => {
  const acceptsAll = { decode: () => ({}) };
  const rep = await new Harness(acceptsAll, { only: ['gguf/alignment-0', 'llama/llama-q8-0'] }).run();
  assert.strictEqual(rep.get('gguf/alignment-0').outcome, 'accepted-invalid');
  assert.match(rep.get('gguf/alignment-0').detail, /GGUF-012/);
  assert.match(rep.get('llama/llama-q8-0').detail, /missing/);
  const limit = corpus.cases().find((c) => c.rejectRule === 'GGUF-013');
  const lim = await new Harness(acceptsAll, { only: [limit.id] }).run();
  assert.strictEqual(lim.get(limit.id).outcome, 'pass');
});

test('a stale ignore entry fails the run; a thrown error is a crash, a Refused a refusal', async () => {
  const stale = await new Harness(q8Reader, { only: ['llama/llama-q8-0'], ignore: ['llama/llama-q8-0'] }).run();
  assert.strictEqual(stale.get('llama/llama-q8-0').status, 'stale');
  assert.ok(!stale.ok());
  const crash = await new Harness({ decode: () => { throw new RangeError('offset out of range'); } }, { only: ['gguf/alignment-0'] }).run();
  assert.strictEqual(crash.get('gguf/alignment-0').outcome, 'crash');
  const refuses = await new Harness({ decode: async () => { throw new Refused('no'); } }, { only: ['gguf/alignment-0', 'llama/llama-q8-0'] }).run();
  assert.strictEqual(refuses.get('gguf/alignment-0').outcome, 'pass');
  assert.strictEqual(refuses.get('llama/llama-q8-0').outcome, 'rejected-valid');
});
