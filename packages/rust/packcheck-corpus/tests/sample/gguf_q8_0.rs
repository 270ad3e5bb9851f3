//! A tiny GGUF reader for Q8_0 (and plain F32/F16) tensors: the sample reader that tests the harness.
//! Layout from the GGUF spec (docs/gguf.md) and ggml's loader checks (gguf.cpp, as FORMATS.md 7.3
//! lists them); Q8_0 blocks are ggml's `block_q8_0`: fp16 `d`, then 32 int8 `qs`, w = f32(q) * f32(d).

use packcheck_corpus::{Case, Input, LogicalView, ModuleView, Reader, Refused, Scope};
use std::collections::BTreeSet;

const F32: u32 = 0;
const F16: u32 = 1;
const Q8_0: u32 = 8;
const UNSUPPORTED: &str = "tensor type not read here:";
const MAX_LEN: u64 = 1 << 30; // ggml's GGUF_MAX_STRING_LENGTH / GGUF_MAX_ARRAY_ELEMENTS

pub struct Tensor {
    name: String,
    ne: Vec<u64>,
    ty: u32,
    offset: u64,
}

pub struct Gguf {
    tensors: Vec<Tensor>,
    data_start: u64,
}

struct Cursor<'a> {
    b: &'a [u8],
    at: usize,
}

fn refuse<T>(why: impl Into<String>) -> Result<T, Refused> {
    Err(Refused(why.into()))
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: u64) -> Result<&'a [u8], Refused> {
        let end = (self.at as u64).checked_add(n).filter(|&e| e <= self.b.len() as u64);
        let end = match end {
            Some(e) => e,
            None => return refuse(format!("truncated at byte {}", self.at)),
        };
        let s = &self.b[self.at..end as usize];
        self.at = end as usize;
        Ok(s)
    }
    fn u32(&mut self) -> Result<u32, Refused> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().unwrap()))
    }
    fn u64(&mut self) -> Result<u64, Refused> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().unwrap()))
    }
    fn string(&mut self) -> Result<&'a [u8], Refused> {
        let n = self.u64()?;
        if n > MAX_LEN {
            return refuse(format!("string of {n} bytes at byte {}", self.at));
        }
        self.take(n)
    }
    /// Skips one KV value of type `ty`; returns the u32 when it is one (for general.alignment).
    fn skip_value(&mut self, ty: u32, in_array: bool) -> Result<Option<u32>, Refused> {
        let size = match ty {
            0 | 1 | 7 => 1,
            2 | 3 => 2,
            4 => return self.u32().map(Some),
            5 | 6 => 4,
            10..=12 => 8,
            8 => return self.string().map(|_| None),
            9 if !in_array => {
                let ety = self.u32()?;
                let n = self.u64()?;
                if n > MAX_LEN {
                    return refuse(format!("array of {n} elements"));
                }
                for _ in 0..n {
                    self.skip_value(ety, true)?;
                }
                return Ok(None);
            }
            _ => return refuse(format!("value type {ty} at byte {}", self.at)),
        };
        self.take(size).map(|_| None)
    }
}

/// x rounded up to a multiple of align (align a power of two, x far below u64::MAX: both checked).
fn pad(x: u64, align: u64) -> u64 {
    (x + align - 1) / align * align
}

fn block_of(ty: u32) -> Option<(u64, u64)> {
    match ty {
        F32 => Some((1, 4)),
        F16 => Some((1, 2)),
        Q8_0 => Some((32, 34)),
        _ => None,
    }
}

/// Parses the header and tensor infos with ggml's checks; types other than F32/F16/Q8_0 are refused.
pub fn parse(b: &[u8]) -> Result<Gguf, Refused> {
    let mut c = Cursor { b, at: 0 };
    if c.take(4)? != b"GGUF" {
        return refuse("not GGUF (magic)");
    }
    let version = c.u32()?;
    if version != 2 && version != 3 {
        return refuse(format!("GGUF version {version}"));
    }
    let (n_tensors, n_kv) = (c.u64()?, c.u64()?);
    if n_tensors > (b.len() as u64) || n_kv > (b.len() as u64) {
        return refuse("counts larger than the file");
    }
    let mut align = 32u64;
    let mut keys = BTreeSet::new();
    for _ in 0..n_kv {
        let key = c.string()?.to_vec();
        if key.is_empty() || !keys.insert(key.clone()) {
            return refuse("empty or duplicate key");
        }
        let ty = c.u32()?;
        let v = c.skip_value(ty, false)?;
        if key == b"general.alignment" {
            match v {
                Some(a) if a != 0 && a.is_power_of_two() => align = a as u64,
                _ => return refuse("general.alignment is not a u32 power of two"),
            }
        }
    }
    let mut tensors = Vec::new();
    let mut names = BTreeSet::new();
    for _ in 0..n_tensors {
        let name = c.string()?;
        let name = std::str::from_utf8(name).map_err(|_| Refused("tensor name not UTF-8".into()))?.to_string();
        if name.len() >= 64 || name.contains('\0') || !names.insert(name.clone()) {
            return refuse(format!("tensor name {name:?}: too long, NUL or duplicate"));
        }
        let n_dims = c.u32()?;
        if n_dims > 4 {
            return refuse(format!("{name}: {n_dims} dims"));
        }
        let ne = (0..n_dims).map(|_| c.u64()).collect::<Result<Vec<_>, _>>()?;
        let ty = c.u32()?;
        let offset = c.u64()?;
        tensors.push(Tensor { name, ne, ty, offset });
    }
    let data_start = if n_tensors > 0 { pad(c.at as u64, align) } else { c.at as u64 };
    let mut running = 0u64;
    for t in &tensors {
        let (blk, bytes) = block_of(t.ty).ok_or_else(|| Refused(format!("{}: {UNSUPPORTED} {}", t.name, t.ty)))?;
        let n = t.ne.iter().try_fold(1u64, |a, &d| a.checked_mul(d).filter(|&x| x <= i64::MAX as u64));
        let n = n.ok_or_else(|| Refused(format!("{}: element count overflows", t.name)))?;
        if t.ne.first().copied().unwrap_or(1) % blk != 0 {
            return refuse(format!("{}: ne0 not a multiple of {blk}", t.name));
        }
        let nbytes = (n / blk).checked_mul(bytes).ok_or_else(|| Refused("size overflows".into()))?;
        if t.offset != running {
            return refuse(format!("{}: offset {}, expected {running}", t.name, t.offset));
        }
        let end = data_start.checked_add(t.offset).and_then(|s| s.checked_add(nbytes));
        if end.map_or(true, |e| e > b.len() as u64) {
            return refuse(format!("{}: data past the end of the file", t.name));
        }
        running = running.checked_add(pad(nbytes, align)).ok_or_else(|| Refused("size overflows".into()))?;
    }
    Ok(Gguf { tensors, data_start })
}

fn f16_to_f32(h: u16) -> f32 {
    let (sign, exp, frac) = ((h as u32 >> 15) << 31, (h >> 10) & 0x1f, (h & 0x3ff) as u32);
    let bits = match exp {
        0 if frac == 0 => sign,
        0 => {
            // subnormal: frac * 2^-24, exact in f32
            let v = frac as f32 * f32::from_bits(0x3380_0000);
            return if sign != 0 { -v } else { v };
        }
        0x1f => sign | 0x7f80_0000 | (frac << 13),
        _ => sign | ((exp as u32 + 112) << 23) | (frac << 13),
    };
    f32::from_bits(bits)
}

/// The module prefix: the name without a trailing `.weight` (a tensor named exactly `.weight` keeps it).
fn module_name(name: &str) -> &str {
    match name.strip_suffix(".weight") {
        Some(p) if !p.is_empty() => p,
        _ => name,
    }
}

/// Decodes every Q8_0 tensor into its codes (the int8 byte as u8) and f32 weights.
pub fn view(b: &[u8], g: &Gguf) -> Result<LogicalView, Refused> {
    let mut out = LogicalView::new();
    for t in g.tensors.iter().filter(|t| t.ty == Q8_0) {
        let n: u64 = t.ne.iter().product();
        let start = (g.data_start + t.offset) as usize;
        let data = &b[start..start + (n / 32 * 34) as usize];
        let mut codes = Vec::with_capacity(n as usize);
        let mut weight = Vec::with_capacity(n as usize);
        for (i, blk) in data.chunks_exact(34).enumerate() {
            let d = f16_to_f32(u16::from_le_bytes([blk[0], blk[1]]));
            if !d.is_finite() {
                return refuse(format!("{}: block {i} scale d is {d}", t.name));
            }
            for &q in &blk[2..] {
                codes.push(q);
                weight.push((q as i8) as f32 * d);
            }
        }
        let mut shape: Vec<u64> = t.ne.iter().rev().copied().collect();
        if shape.len() < 2 {
            shape.insert(0, 1);
        }
        let m = module_name(&t.name).to_string();
        if out.insert(m.clone(), ModuleView { shape, codes: Some(codes), weight: Some(weight) }).is_some() {
            return refuse(format!("two tensors for the module {m}"));
        }
    }
    if g.tensors.iter().any(|t| t.ty != Q8_0 && out.contains_key(module_name(&t.name))) {
        return refuse("a plain tensor shares a quantized module's prefix");
    }
    Ok(out)
}

/// The sample reader: claims GGUF files whose tensors are all F32, F16 or Q8_0, with one Q8_0 at least,
/// and every GGUF file whose header is malformed (it must refuse those).
pub struct Q8Reader;

impl Reader for Q8Reader {
    fn scope(&self, _case: &Case, input: &Input) -> Scope {
        if !input.main().ends_with(".gguf") {
            return Scope::Out("not a GGUF file".into());
        }
        let bytes = match input.read_main() {
            Ok(b) => b,
            Err(_) => return Scope::Out("unreadable".into()),
        };
        match parse(&bytes) {
            Ok(g) if g.tensors.iter().any(|t| t.ty == Q8_0) => Scope::In,
            Ok(_) => Scope::Out("no Q8_0 tensor".into()),
            Err(Refused(why)) if why.contains(UNSUPPORTED) => Scope::Out(why),
            Err(_) => Scope::In,
        }
    }

    fn decode(&self, _case: &Case, input: &Input) -> Result<LogicalView, Refused> {
        let bytes = input.read_main().map_err(|e| Refused(e.to_string()))?;
        let g = parse(&bytes)?;
        view(&bytes, &g)
    }
}
