//! packcheck certify adapter (CONTRACT 5): candle-core's GGUF reader and dequantizers.
//!
//!     pc-reader-candle INPUT OUTPUT
//!
//! INPUT is a .gguf file: `candle_core::quantized::gguf_file::Content::read` parses it (refusal =
//! exit 1), every tensor is loaded with `Content::tensor` and every quantized one dequantized with
//! `QTensor::dequantize` on the CPU, and the f32 results are written to OUTPUT with candle's own
//! `candle_core::safetensors::save` as M.weight (shape [ne1, ne0]; M = the name without a trailing
//! ".weight"; candle offers no code-level unpack, so no M.codes). Non-GGUF inputs are out of scope
//! (exit 1). A panic inside candle is a crash (exit 101), as it is for its users.
use candle_core::quantized::{gguf_file, GgmlDType};
use candle_core::{Device, Tensor};
use std::collections::HashMap;
use std::process::exit;

fn decode(input: &str) -> candle_core::Result<HashMap<String, Tensor>> {
    let mut file = std::fs::File::open(input)?;
    let content = gguf_file::Content::read(&mut file)?;
    let mut names: Vec<String> = content.tensor_infos.keys().cloned().collect();
    names.sort();
    let mut out = HashMap::new();
    for name in names {
        let qt = content.tensor(&mut file, &name, &Device::Cpu)?;
        if matches!(qt.dtype(), GgmlDType::F32 | GgmlDType::F16 | GgmlDType::BF16) {
            continue;
        }
        let mut t = qt.dequantize(&Device::Cpu)?;
        if t.rank() < 2 {
            t = t.reshape((1, t.elem_count()))?;
        }
        let m = name.strip_suffix(".weight").unwrap_or(&name);
        out.insert(format!("{m}.weight"), t);
    }
    Ok(out)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 3 {
        eprintln!("usage: {} INPUT OUTPUT", args[0]);
        exit(2);
    }
    if !args[1].ends_with(".gguf") {
        eprintln!("refused: not a GGUF file: out of scope");
        exit(1);
    }
    match decode(&args[1]) {
        Ok(map) => {
            eprintln!("candle-core: {} quantized tensors", map.len());
            if let Err(e) = candle_core::safetensors::save(&map, &args[2]) {
                eprintln!("cannot write {}: {e}", args[2]);
                exit(2);
            }
        }
        Err(e) => {
            eprintln!("refused: {e}");
            exit(1);
        }
    }
}
