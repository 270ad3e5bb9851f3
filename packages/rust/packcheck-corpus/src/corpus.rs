//! The cases: embedded index (build.rs), data files embedded or read from the corpus folder.

use crate::json::{self, Json};
use crate::sha256;
use std::collections::BTreeMap;
use std::io;
use std::path::PathBuf;
use std::sync::Once;

pub(crate) struct RawFile {
    path: &'static str,
    sha256: &'static str,
    data: Option<&'static [u8]>,
}

pub(crate) struct RawCase {
    id: &'static str,
    expect: &'static str,
    files: &'static [RawFile],
}

mod data {
    use super::{RawCase, RawFile};
    include!(concat!(env!("OUT_DIR"), "/corpus_data.rs"));
}
pub(crate) use data::SEVERITIES;

/// The corpus version (its VERSION file, MAJOR.MINOR.PATCH), "" when unversioned.
pub fn version() -> &'static str {
    data::VERSION.trim()
}

/// SHA-256 of MANIFEST.sha256, which pins every file: the corpus's exact identity (what
/// `packcheck certify` prints at the end of its verdict line).
pub fn manifest_sha256() -> String {
    sha256::hex(data::MANIFEST.as_bytes())
}

/// The folder data files are read from: $PACKCHECK_CORPUS at run time, else the one the crate was
/// built against. Unused with the `embed` feature.
pub fn corpus_dir() -> PathBuf {
    std::env::var_os("PACKCHECK_CORPUS").map(PathBuf::from).unwrap_or_else(|| PathBuf::from(data::CORPUS_DIR))
}

/// What a reader must answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Valid: accept it and decode the pinned view.
    Pass,
    /// Invalid: refuse it (it breaks `reject_rule`, or a rule of `reject_family`).
    Reject,
    /// Valid, with tensors packcheck does not decode: accept or refuse; what is decoded must match.
    Unchecked,
    /// Implementation-defined: both answers conform; an accepted view must match the pins.
    Either,
}

/// The pinned view of one module: SHA-256 of its codes (U8) and of its f32 weights (little-endian).
#[derive(Clone, Debug, PartialEq)]
pub struct ModulePin {
    pub shape: Vec<u64>,
    pub bits: u32,
    pub codes_sha256: Option<String>,
    pub weight_f32_sha256: Option<String>,
}

/// One corpus case: `family/name`, its expected verdict and rule, the pinned view.
pub struct Case {
    pub id: &'static str,
    pub verdict: Verdict,
    pub reject_rule: Option<String>,
    pub reject_family: Option<String>,
    /// The layout packcheck reports (`gguf`, `ct-dense`, `gptq-v1`, ...); None for most rejects.
    pub layout: Option<String>,
    /// The profile the verdict holds in: "strict" unless the case says "compat".
    pub profile: String,
    pub rules: Vec<String>,
    pub modules: BTreeMap<String, ModulePin>,
    /// GGUF cases: tensor name -> GGUF type name (`Q8_0`, `F32`, ...), when the case lists them.
    pub tensor_types: BTreeMap<String, String>,
    /// The whole expect.json, for keys this API does not lift out.
    pub expect: Json,
    raw: &'static RawCase,
}

impl Case {
    pub fn family(&self) -> &str {
        self.id.split_once('/').map_or(self.id, |(f, _)| f)
    }
    pub fn name(&self) -> &str {
        self.id.split_once('/').map_or(self.id, |(_, n)| n)
    }
    /// The expect.json text as shipped.
    pub fn expect_json(&self) -> &'static str {
        self.raw.expect
    }
    /// The case's input: its files (without expect.json), read through their MANIFEST pins.
    pub fn input(&self) -> Input {
        let main = self.expect.get("input").as_str().unwrap_or(".").to_string();
        Input { case_id: self.raw.id, main, files: self.raw.files }
    }
}

/// A case's input files. `main()` is the `input` of expect.json: a file name, or "." for the
/// folder itself (a safetensors checkpoint folder with config.json and shards).
pub struct Input {
    case_id: &'static str,
    main: String,
    files: &'static [RawFile],
}

impl Input {
    /// The `input` path relative to the case folder ("." = the folder).
    pub fn main(&self) -> &str {
        &self.main
    }
    /// Every file of the case, relative to its folder (subfolders for equivalence pairs).
    pub fn files(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.files.iter().map(|f| f.path)
    }
    /// The case folder on disk (None with the `embed` feature, where nothing is read from disk).
    pub fn dir(&self) -> Option<PathBuf> {
        (!data::EMBEDDED).then(|| corpus_dir().join(self.case_id))
    }
    /// The bytes of `path` (relative to the case folder), checked against its MANIFEST pin: a
    /// changed or missing corpus file is an error, never a silently different case.
    pub fn read(&self, path: &str) -> io::Result<Vec<u8>> {
        let f = self.files.iter().find(|f| f.path == path).ok_or_else(|| {
            io::Error::new(io::ErrorKind::NotFound, format!("{}: no file {path} in the case", self.case_id))
        })?;
        let bytes = match f.data {
            Some(d) => d.to_vec(),
            None => {
                let at = corpus_dir().join(self.case_id).join(path);
                std::fs::read(&at).map_err(|e| {
                    io::Error::new(
                        e.kind(),
                        format!(
                            "{}: {e}; set PACKCHECK_CORPUS to a packcheck fixtures/ folder of corpus version {} \
                             (a published crate carries the index, not the data)",
                            at.display(),
                            version()
                        ),
                    )
                })?
            }
        };
        let got = sha256::hex(&bytes);
        if got != f.sha256 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{}/{path}: sha256 {got}, MANIFEST pins {}", self.case_id, f.sha256),
            ));
        }
        Ok(bytes)
    }
    /// The bytes of the main input when it is one file (a .gguf, a .safetensors).
    pub fn read_main(&self) -> io::Result<Vec<u8>> {
        if self.main == "." {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("{}: the input is a folder", self.case_id)));
        }
        self.read(&self.main)
    }
}

fn opt_str(v: &Json) -> Option<String> {
    v.as_str().map(str::to_string)
}

fn parse_pin(v: &Json) -> ModulePin {
    ModulePin {
        shape: v.get("shape").as_arr().iter().filter_map(Json::as_u64).collect(),
        bits: v.get("bits").as_u64().unwrap_or(0) as u32,
        codes_sha256: opt_str(v.get("codes_sha256")),
        weight_f32_sha256: opt_str(v.get("weight_f32_sha256")),
    }
}

fn parse_case(raw: &'static RawCase) -> Case {
    let e = json::parse(raw.expect).unwrap_or_else(|err| panic!("{}/expect.json: {err}", raw.id));
    let verdict = match e.get("verdict").as_str() {
        Some("pass") => Verdict::Pass,
        Some("reject") => Verdict::Reject,
        Some("unchecked") => Verdict::Unchecked,
        Some("either") => Verdict::Either,
        other => panic!("{}/expect.json: unknown verdict {other:?}", raw.id),
    };
    let map = |k: &str| e.get(k).as_obj().cloned().unwrap_or_default();
    Case {
        id: raw.id,
        verdict,
        reject_rule: opt_str(e.get("reject_rule")),
        reject_family: opt_str(e.get("reject_family")),
        layout: opt_str(e.get("layout")),
        profile: opt_str(e.get("profile")).unwrap_or_else(|| "strict".into()),
        rules: e.get("rules").as_arr().iter().filter_map(opt_str).collect(),
        modules: map("modules").iter().map(|(k, v)| (k.clone(), parse_pin(v))).collect(),
        tensor_types: map("tensor_types").iter().filter_map(|(k, v)| Some((k.clone(), opt_str(v)?))).collect(),
        expect: e,
        raw,
    }
}


/// Every case, sorted by id (parsed once).
pub fn cases() -> &'static [Case] {
    // std::sync::Once rather than OnceLock (Rust 1.70): the crate builds with Debian's rustc 1.63.
    static INIT: Once = Once::new();
    static mut ALL: Option<&'static [Case]> = None;
    // SAFETY: ALL is written once, inside call_once, before any read; call_once orders the write
    // before every return from it.
    unsafe {
        INIT.call_once(|| ALL = Some(Box::leak(data::CASES.iter().map(parse_case).collect::<Vec<_>>().into_boxed_slice())));
        *std::ptr::addr_of!(ALL)
    }
    .expect("initialised")
}

/// One case by id (`gguf/alignment-0`).
pub fn find(id: &str) -> Option<&'static Case> {
    cases().iter().find(|c| c.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_matches_the_corpus() {
        assert!(!version().is_empty());
        assert_eq!(manifest_sha256().len(), 64);
        assert!(cases().len() > 600, "{} cases", cases().len());
        let c = find("gguf/alignment-0").expect("a known case");
        assert_eq!(c.verdict, Verdict::Reject);
        assert_eq!(c.reject_rule.as_deref(), Some("GGUF-012"));
        assert_eq!(c.input().main(), "bad.gguf");
        assert!(c.expect_json().contains("GGUF-012"));
        let q8 = find("llama/llama-q8-0").unwrap();
        assert_eq!(q8.modules["blk.0.attn_q"].shape, vec![256, 256]);
        assert_eq!(q8.tensor_types["blk.0.attn_q.weight"], "Q8_0");
    }

    #[test]
    fn reads_are_checked_against_the_pins() {
        let c = find("gguf/alignment-0").unwrap();
        let bytes = c.input().read_main().unwrap();
        assert_eq!(&bytes[..4], b"GGUF");
        assert!(c.input().read("nope").is_err());
    }
}
