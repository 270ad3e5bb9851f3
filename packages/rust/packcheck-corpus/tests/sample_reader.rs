//! The harness against a tiny GGUF Q8_0 reader: it holds on its declared cases, and the harness
//! catches a reader with a planted bug, a reader that accepts everything, a stale ignore entry and a panic.

mod sample;

use packcheck_corpus::{Case, Harness, Input, LogicalView, Outcome, Reader, Refused, Scope};
use sample::gguf_q8_0::Q8Reader;

/// The GGUF families where Q8_0 cases live; the reader's scope() picks its cases among them.
const FAMILIES: [&str; 4] = ["gguf/", "gq/", "llama/", "q40/"];

#[test]
fn q8_0_reader_holds_on_its_declared_cases() {
    // The reader applies ggml's loader checks (alignment a power of two, names under 64 bytes), so it
    // is held to the compat profile: what ggml accepts.
    // Its known gap, on the ignore list: it refuses a NUL in a tensor name, which ggml accepts
    // (truncating the name there).
    let rep = Harness::new(Q8Reader).only(FAMILIES).profile("compat").ignore(["gguf/name-with-nul-compat"]).test();
    assert_eq!(rep.get("gguf/name-with-nul-compat").unwrap().status, "expected-fail");
    assert!(rep.count("ok") > 50, "{} cases held", rep.count("ok"));
    assert_eq!(rep.get("llama/llama-q8-0").unwrap().outcome, Outcome::Pass);
    assert_eq!(rep.get("gq/q8_0-d-inf").unwrap().outcome, Outcome::Pass);
    assert_eq!(rep.get("llama/llama-q4-0").unwrap().status, "skip"); // Q4_0: out of scope
}

/// Swaps each Q8_0 code's sign: the weights and codes no longer match the pins.
struct Negated;
impl Reader for Negated {
    fn scope(&self, case: &Case, input: &Input) -> Scope {
        Q8Reader.scope(case, input)
    }
    fn decode(&self, case: &Case, input: &Input) -> Result<LogicalView, Refused> {
        let mut v = Q8Reader.decode(case, input)?;
        for m in v.values_mut() {
            m.weight.iter_mut().flatten().for_each(|w| *w = -*w);
        }
        Ok(v)
    }
}

#[test]
fn a_planted_bug_is_wrong_output() {
    let rep = Harness::new(Negated).only(["llama/llama-q8-0"]).run();
    let r = rep.get("llama/llama-q8-0").unwrap();
    assert!(matches!(&r.outcome, Outcome::WrongOutput(d) if d.contains("weight")), "{:?}", r.outcome);
    assert!(!rep.ok());
    // the same failure on the ignore list is expected, and the run holds
    let rep = Harness::new(Negated).only(["llama/llama-q8-0"]).ignore(["llama/llama-q8-0"]).run();
    assert_eq!(rep.get("llama/llama-q8-0").unwrap().status, "expected-fail");
}

/// Accepts anything with an empty view.
struct AcceptsAll;
impl Reader for AcceptsAll {
    fn decode(&self, _: &Case, _: &Input) -> Result<LogicalView, Refused> {
        Ok(LogicalView::new())
    }
}

#[test]
fn accepting_invalid_input_fails_and_limits_are_either() {
    let rep = Harness::new(AcceptsAll).only(["gguf/alignment-0", "llama/llama-q8-0"]).run();
    assert!(matches!(&rep.get("gguf/alignment-0").unwrap().outcome, Outcome::AcceptedInvalid(d) if d.contains("GGUF-012")));
    assert!(matches!(&rep.get("llama/llama-q8-0").unwrap().outcome, Outcome::WrongOutput(d) if d.contains("missing")));
    // GGUF-013 is packcheck's own LIMIT: accepting such a case is conforming
    let limit = packcheck_corpus::cases().iter().find(|c| c.reject_rule.as_deref() == Some("GGUF-013")).expect("a GGUF-013 case");
    let rep = Harness::new(AcceptsAll).only([limit.id]).run();
    assert_eq!(rep.get(limit.id).unwrap().outcome, Outcome::Pass);
}

#[test]
fn a_stale_ignore_entry_fails_the_run() {
    let rep = Harness::new(Q8Reader).only(["llama/llama-q8-0"]).ignore(["llama/llama-q8-0"]).run();
    assert_eq!(rep.get("llama/llama-q8-0").unwrap().status, "stale");
    assert!(!rep.ok());
}

struct Panics;
impl Reader for Panics {
    fn decode(&self, _: &Case, _: &Input) -> Result<LogicalView, Refused> {
        panic!("index out of bounds")
    }
}

#[test]
fn a_panic_is_a_crash() {
    let rep = Harness::new(Panics).only(["gguf/alignment-0"]).run();
    assert!(matches!(&rep.get("gguf/alignment-0").unwrap().outcome, Outcome::Crash(d) if d.contains("index out of bounds")));
}

#[test]
fn declared_scope_is_coverage_not_failure() {
    let rep = Harness::new(Q8Reader).only(["ct/"]).run();
    assert!(rep.results.iter().all(|r| matches!(r.outcome, Outcome::Unsupported(_))));
    assert!(!rep.ok()); // no valid case passed: a reader that claims nothing is not held
}
