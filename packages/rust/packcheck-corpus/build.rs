//! Embeds the corpus's index into the crate: VERSION, MANIFEST.sha256, every case's expect.json and
//! the rule severities (for LIMIT and compat judging). The data files (27 MB) are embedded only with
//! the `embed` feature; by default they are read at run time from the corpus folder found here and
//! checked against their MANIFEST pins as they are read.
//!
//! The corpus folder: $PACKCHECK_CORPUS, else `corpus/` inside the crate (a packaged crate), else the
//! repository's `fixtures/` (a checkout).

#[path = "src/json.rs"]
#[allow(dead_code)]
mod json;

use std::collections::BTreeMap;
use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

fn corpus_dir(manifest_dir: &Path) -> PathBuf {
    if let Some(p) = env::var_os("PACKCHECK_CORPUS") {
        return PathBuf::from(p);
    }
    let packaged = manifest_dir.join("corpus");
    if packaged.join("MANIFEST.sha256").is_file() {
        return packaged;
    }
    manifest_dir.join("../../../fixtures")
}

/// (id, strict severity, compat severity) for every rule of rules.json.
fn severities(rules: &Path) -> Vec<(String, String, String)> {
    let text = match fs::read_to_string(rules) {
        Ok(t) => t,
        Err(_) => return Vec::new(),
    };
    let doc = json::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", rules.display()));
    let mut out = Vec::new();
    for fam in doc.get("families").as_arr() {
        for r in fam.get("rules").as_arr() {
            let id = r.get("id").as_str().unwrap_or_default().to_string();
            let strict = r.get("severity").as_str().unwrap_or("MUST").to_string();
            let compat = r.get("compat").as_str().map(str::to_string).unwrap_or_else(|| strict.clone());
            out.push((id, strict, compat));
        }
    }
    out
}

/// MANIFEST lines grouped by case folder (`family/case`); expect.json files mark the cases.
fn cases(manifest: &str) -> BTreeMap<String, Vec<(String, String)>> {
    let mut files: Vec<(String, String)> = Vec::new();
    for line in manifest.lines().filter(|l| !l.trim().is_empty()) {
        let (hash, path) = line.split_once("  ").unwrap_or_else(|| panic!("bad MANIFEST line: {line}"));
        files.push((path.to_string(), hash.to_string()));
    }
    let mut out: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    for (path, _) in &files {
        let parts: Vec<&str> = path.split('/').collect();
        if parts.len() == 3 && parts[2] == "expect.json" {
            out.insert(format!("{}/{}", parts[0], parts[1]), Vec::new());
        }
    }
    for (path, hash) in files {
        let mut it = path.splitn(3, '/');
        let (fam, case, rest) = match (it.next(), it.next(), it.next()) {
            (Some(f), Some(c), Some(r)) => (f, c, r),
            _ => continue,
        };
        if let Some(v) = out.get_mut(&format!("{fam}/{case}")) {
            if rest != "expect.json" {
                v.push((rest.to_string(), hash));
            }
        }
    }
    out
}

fn main() {
    let manifest_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let dir = corpus_dir(&manifest_dir);
    let dir = dir.canonicalize().unwrap_or_else(|e| {
        panic!("packcheck-corpus: no corpus at {} ({e}); set PACKCHECK_CORPUS to its folder", dir.display())
    });
    let embed = env::var_os("CARGO_FEATURE_EMBED").is_some();
    let manifest_path = dir.join("MANIFEST.sha256");
    let manifest = fs::read_to_string(&manifest_path).expect("MANIFEST.sha256");
    let rules = [dir.join("rules.json"), dir.join("../rules/rules.json")].into_iter().find(|p| p.is_file());
    println!("cargo:rerun-if-env-changed=PACKCHECK_CORPUS");
    println!("cargo:rerun-if-changed={}", manifest_path.display());
    println!("cargo:rerun-if-changed=src/json.rs");

    let mut out = String::new();
    let q = |p: &Path| format!("{:?}", p.to_str().expect("UTF-8 corpus path"));
    writeln!(out, "pub(crate) const CORPUS_DIR: &str = {};", q(&dir)).unwrap();
    writeln!(out, "pub(crate) const EMBEDDED: bool = {embed};").unwrap();
    let version = dir.join("VERSION");
    if version.is_file() {
        writeln!(out, "pub(crate) const VERSION: &str = include_str!({});", q(&version)).unwrap();
    } else {
        writeln!(out, "pub(crate) const VERSION: &str = \"\";").unwrap();
    }
    writeln!(out, "pub(crate) const MANIFEST: &str = include_str!({});", q(&manifest_path)).unwrap();
    out.push_str("pub(crate) const SEVERITIES: &[(&str, &str, &str)] = &[\n");
    if let Some(r) = &rules {
        println!("cargo:rerun-if-changed={}", r.display());
        for (id, s, c) in severities(r) {
            writeln!(out, "    ({id:?}, {s:?}, {c:?}),").unwrap();
        }
    }
    out.push_str("];\npub(crate) static CASES: &[RawCase] = &[\n");
    for (id, files) in cases(&manifest) {
        let case_dir = dir.join(&id);
        writeln!(out, "  RawCase {{ id: {id:?}, expect: include_str!({}), files: &[", q(&case_dir.join("expect.json"))).unwrap();
        for (rel, hash) in files {
            let data = if embed { format!("Some(include_bytes!({}))", q(&case_dir.join(&rel))) } else { "None".into() };
            writeln!(out, "    RawFile {{ path: {rel:?}, sha256: {hash:?}, data: {data} }},").unwrap();
        }
        out.push_str("  ] },\n");
    }
    out.push_str("];\n");
    let dest = PathBuf::from(env::var("OUT_DIR").unwrap()).join("corpus_data.rs");
    fs::write(dest, out).expect("write corpus_data.rs");
}
