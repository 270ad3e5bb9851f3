'use strict';
// A tiny GGUF reader for Q8_0 (and plain F32/F16) tensors: the sample reader that tests the harness.
// Layout from the GGUF spec (docs/gguf.md) with ggml's loader checks; Q8_0 is ggml's block_q8_0:
// fp16 d, then 32 int8 qs, w = f32(q) * f32(d).
const { Refused } = require('..');

const F32 = 0, F16 = 1, Q8_0 = 8;
const UNSUPPORTED = 'tensor type not read here:';
const MAX_LEN = 2n ** 30n;
const BLOCK = { [F32]: [1n, 4n], [F16]: [1n, 2n], [Q8_0]: [32n, 34n] };

function parse(b) {
  let at = 0;
  const need = (n) => {
    if (BigInt(at) + BigInt(n) > BigInt(b.length)) throw new Refused(`truncated at byte ${at}`);
  };
  const u32 = () => { need(4); const v = b.readUInt32LE(at); at += 4; return v; };
  const u64 = () => { need(8); const v = b.readBigUInt64LE(at); at += 8; return v; };
  const str = () => {
    const n = u64();
    if (n > MAX_LEN) throw new Refused(`string of ${n} bytes`);
    need(n);
    const s = b.subarray(at, at + Number(n)); at += Number(n); return s;
  };
  const skip = (ty, inArray) => {
    const size = { 0: 1, 1: 1, 7: 1, 2: 2, 3: 2, 5: 4, 6: 4, 10: 8, 11: 8, 12: 8 }[ty];
    if (ty === 4) return u32();
    if (ty === 8) { str(); return null; }
    if (ty === 9 && !inArray) {
      const ety = u32(), n = u64();
      if (n > MAX_LEN) throw new Refused(`array of ${n} elements`);
      for (let i = 0n; i < n; i++) skip(ety, true);
      return null;
    }
    if (!size) throw new Refused(`value type ${ty} at byte ${at}`);
    need(size); at += size; return null;
  };
  need(4);
  if (b.toString('latin1', 0, 4) !== 'GGUF') throw new Refused('not GGUF (magic)');
  at = 4;
  const version = u32();
  if (version !== 2 && version !== 3) throw new Refused(`GGUF version ${version}`);
  const nTensors = u64(), nKv = u64();
  if (nTensors > BigInt(b.length) || nKv > BigInt(b.length)) throw new Refused('counts larger than the file');
  let align = 32n;
  const keys = new Set();
  for (let i = 0n; i < nKv; i++) {
    const key = str().toString('latin1');
    if (!key || keys.has(key)) throw new Refused('empty or duplicate key');
    keys.add(key);
    const v = skip(u32(), false);
    if (key === 'general.alignment') {
      if (v === null || v === 0 || (v & (v - 1)) !== 0) throw new Refused('general.alignment is not a u32 power of two');
      align = BigInt(v);
    }
  }
  const tensors = [], names = new Set();
  for (let i = 0n; i < nTensors; i++) {
    const raw = str();
    let name;
    try {
      name = new TextDecoder('utf-8', { fatal: true }).decode(raw);
    } catch {
      throw new Refused('tensor name not UTF-8');
    }
    if (raw.length >= 64 || name.includes('\0') || names.has(name)) throw new Refused(`tensor name ${JSON.stringify(name)}: too long, NUL or duplicate`);
    names.add(name);
    const nDims = u32();
    if (nDims > 4) throw new Refused(`${name}: ${nDims} dims`);
    const ne = [];
    for (let d = 0; d < nDims; d++) ne.push(u64());
    tensors.push({ name, ne, type: u32(), offset: u64() });
  }
  const pad = (x) => ((x + align - 1n) / align) * align;
  const dataStart = nTensors > 0n ? pad(BigInt(at)) : BigInt(at);
  let running = 0n;
  for (const t of tensors) {
    const blk = BLOCK[t.type];
    if (!blk) throw new Refused(`${t.name}: ${UNSUPPORTED} ${t.type}`);
    const n = t.ne.reduce((a, d) => a * d, 1n);
    if (n > 2n ** 63n - 1n) throw new Refused(`${t.name}: element count overflows`);
    if ((t.ne[0] ?? 1n) % blk[0] !== 0n) throw new Refused(`${t.name}: ne0 not a multiple of ${blk[0]}`);
    const nbytes = (n / blk[0]) * blk[1];
    if (t.offset !== running) throw new Refused(`${t.name}: offset ${t.offset}, expected ${running}`);
    if (dataStart + t.offset + nbytes > BigInt(b.length)) throw new Refused(`${t.name}: data past the end of the file`);
    running += pad(nbytes);
  }
  return { tensors, dataStart };
}

function f16(h) {
  const sign = h & 0x8000 ? -1 : 1, exp = (h >> 10) & 0x1f, frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 0x1f) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

const moduleName = (n) => (n.endsWith('.weight') && n !== '.weight' ? n.slice(0, -7) : n);

function view(b, g) {
  const out = {};
  for (const t of g.tensors.filter((x) => x.type === Q8_0)) {
    const n = Number(t.ne.reduce((a, d) => a * d, 1n));
    const codes = new Uint8Array(n), weight = new Float32Array(n);
    const start = Number(g.dataStart + t.offset);
    for (let blk = 0; blk < n / 32; blk++) {
      const p = start + blk * 34, d = f16(b.readUInt16LE(p));
      if (!Number.isFinite(d)) throw new Refused(`${t.name}: block ${blk} scale d is ${d}`);
      for (let i = 0; i < 32; i++) {
        codes[blk * 32 + i] = b[p + 2 + i];
        weight[blk * 32 + i] = Math.fround(b.readInt8(p + 2 + i) * d); // exact product, one rounding
      }
    }
    const shape = t.ne.map(Number).reverse();
    if (shape.length < 2) shape.unshift(1);
    const m = moduleName(t.name);
    if (out[m]) throw new Refused(`two tensors for the module ${m}`);
    out[m] = { shape, codes, weight };
  }
  if (g.tensors.some((t) => t.type !== Q8_0 && out[moduleName(t.name)])) throw new Refused("a plain tensor shares a quantized module's prefix");
  return out;
}

/** Claims GGUF files whose tensors are all F32, F16 or Q8_0 (one Q8_0 at least), and every GGUF file
 *  whose header is malformed (it must refuse those). */
const q8Reader = {
  scope(c, input) {
    if (!input.main.endsWith('.gguf')) return 'not a GGUF file';
    try {
      return parse(input.readMain()).tensors.some((t) => t.type === Q8_0) ? true : 'no Q8_0 tensor';
    } catch (e) {
      return e instanceof Refused && e.message.includes(UNSUPPORTED) ? e.message : true;
    }
  },
  decode(c, input) {
    const b = input.readMain();
    return view(b, parse(b));
  },
};

module.exports = { q8Reader, parse, view };
