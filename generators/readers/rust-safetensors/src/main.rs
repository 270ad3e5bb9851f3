//! packcheck certify adapter (CONTRACT 5, container-only mode): the `safetensors` crate.
//!
//!     pc-reader-safetensors INPUT OUTPUT
//!
//! INPUT is a .safetensors file or a checkpoint folder; every `*.safetensors` file in it is parsed
//! with `safetensors::SafeTensors::deserialize` (the crate's header, dtype, shape and offset checks)
//! and every tensor's view is taken (`SafeTensors::tensors`). Exit 0 = the crate accepts every file,
//! 1 = it refuses one (its error printed), or the input holds no safetensors file (GGUF inputs are
//! out of scope). The crate decodes no quantization, so no logical view is written: certify runs it
//! with --container-only (verdicts compared, views not asked for). OUTPUT is unused.
use std::path::{Path, PathBuf};
use std::process::exit;

fn shards(input: &Path) -> Vec<PathBuf> {
    if input.is_dir() {
        let mut v: Vec<PathBuf> = std::fs::read_dir(input)
            .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        v.retain(|p| p.extension().map_or(false, |e| e == "safetensors"));
        v.sort();
        v
    } else if input.extension().map_or(false, |e| e == "safetensors") {
        vec![input.to_path_buf()]
    } else {
        Vec::new()
    }
}

fn check(path: &Path) -> Result<usize, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let st = safetensors::SafeTensors::deserialize(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut n = 0;
    for (_name, view) in st.tensors() {
        n += view.data().len();
    }
    Ok(n)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 3 {
        eprintln!("usage: {} INPUT OUTPUT", args[0]);
        exit(2);
    }
    let files = shards(Path::new(&args[1]));
    if files.is_empty() {
        eprintln!("refused: no .safetensors file in the input: out of scope");
        exit(1);
    }
    for f in &files {
        if let Err(e) = check(f) {
            eprintln!("refused: {e}");
            exit(1);
        }
    }
    eprintln!("safetensors crate: accepted {} file(s)", files.len());
}
