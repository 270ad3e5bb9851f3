//! The harness: runs a reader over the cases and judges each answer the way `packcheck certify`
//! does (the contract's section 5), in process.

use crate::corpus::{cases, Case, Input, Verdict, SEVERITIES};
use crate::sha256;
use crate::view::{squeeze, weight_bytes, LogicalView};
use std::collections::BTreeSet;
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// A reader's refusal of its input, with its reason.
#[derive(Clone, Debug, PartialEq)]
pub struct Refused(pub String);

/// Whether a reader takes part in a case.
#[derive(Clone, Debug, PartialEq)]
pub enum Scope {
    In,
    /// Declared unsupported (a format, layout or block type the reader does not claim): neither a pass
    /// nor a failure, shown as coverage.
    Out(String),
}

/// A reader under test: decode a checkpoint into the logical view, or refuse it.
pub trait Reader {
    /// Accept the input and return its logical view, or refuse it. A panic is a crash.
    fn decode(&self, case: &Case, input: &Input) -> Result<LogicalView, Refused>;
    /// Which cases the reader claims (default: all). May look at the input (e.g. GGUF block types).
    fn scope(&self, _case: &Case, _input: &Input) -> Scope {
        Scope::In
    }
}

/// Per case, what happened.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Pass,
    WrongOutput(String),
    AcceptedInvalid(String),
    RejectedValid(String),
    Crash(String),
    /// Out of the reader's declared scope.
    Unsupported(String),
    /// Not run in this profile (a compat case in a strict run, or the reverse).
    OtherProfile(String),
}

impl Outcome {
    pub fn name(&self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::WrongOutput(_) => "wrong-output",
            Outcome::AcceptedInvalid(_) => "accepted-invalid",
            Outcome::RejectedValid(_) => "rejected-valid",
            Outcome::Crash(_) => "crash",
            Outcome::Unsupported(_) => "unsupported",
            Outcome::OtherProfile(_) => "other-profile",
        }
    }
    fn detail(&self) -> &str {
        match self {
            Outcome::Pass => "",
            Outcome::WrongOutput(d)
            | Outcome::AcceptedInvalid(d)
            | Outcome::RejectedValid(d)
            | Outcome::Crash(d)
            | Outcome::Unsupported(d)
            | Outcome::OtherProfile(d) => d,
        }
    }
    fn ran(&self) -> bool {
        !matches!(self, Outcome::Unsupported(_) | Outcome::OtherProfile(_))
    }
}

/// One case's line of the report. `status`: "ok", "expected-fail" (failed, on the ignore list),
/// "stale" (passed, but on the ignore list), "FAIL", or "skip" (not run).
#[derive(Clone, Debug)]
pub struct CaseResult {
    pub id: &'static str,
    pub verdict: Verdict,
    pub outcome: Outcome,
    pub status: &'static str,
}

/// What a run found.
#[derive(Clone, Debug, Default)]
pub struct Report {
    pub results: Vec<CaseResult>,
}

impl Report {
    pub fn count(&self, status: &str) -> usize {
        self.results.iter().filter(|r| r.status == status).count()
    }
    /// Valid cases (verdict pass) the reader passed.
    pub fn valid_passed(&self) -> usize {
        self.results.iter().filter(|r| r.verdict == Verdict::Pass && r.outcome == Outcome::Pass).count()
    }
    /// Held: nothing failed, no ignore entry is stale, and at least one valid case passed.
    pub fn ok(&self) -> bool {
        self.count("FAIL") == 0 && self.count("stale") == 0 && self.valid_passed() > 0
    }
    pub fn get(&self, id: &str) -> Option<&CaseResult> {
        self.results.iter().find(|r| r.id == id)
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for r in self.results.iter().filter(|r| r.status != "skip") {
            let d = r.outcome.detail();
            writeln!(f, "{:<13} {:<16} {}{}{}", r.status, r.outcome.name(), r.id, if d.is_empty() { "" } else { ": " }, d)?;
        }
        write!(
            f,
            "packcheck-corpus {}: {} ok ({} valid cases passed), {} FAIL, {} expected-fail, {} stale, {} not run (scope or profile); corpus {} manifest {}",
            if self.ok() { "HELD" } else { "NOT HELD" },
            self.count("ok"),
            self.valid_passed(),
            self.count("FAIL"),
            self.count("expected-fail"),
            self.count("stale"),
            self.count("skip"),
            crate::version(),
            crate::manifest_sha256()
        )
    }
}

/// Runs a reader over the corpus: `Harness::new(r).ignore([...]).test()`.
pub struct Harness<R: Reader> {
    reader: R,
    ignore: BTreeSet<String>,
    only: Vec<String>,
    profile: String,
}

impl<R: Reader> Harness<R> {
    pub fn new(reader: R) -> Self {
        Harness { reader, ignore: BTreeSet::new(), only: Vec::new(), profile: "strict".into() }
    }
    /// Cases expected to fail (known bugs). Each still runs: a listed case that passes is `stale`.
    pub fn ignore<I: IntoIterator<Item = S>, S: Into<String>>(mut self, ids: I) -> Self {
        self.ignore.extend(ids.into_iter().map(Into::into));
        self
    }
    /// Run only cases whose id contains one of these (`"gguf/"`, `"llama/llama-q8-0"`).
    pub fn only<I: IntoIterator<Item = S>, S: Into<String>>(mut self, parts: I) -> Self {
        self.only.extend(parts.into_iter().map(Into::into));
        self
    }
    /// The profile judged: "strict" (default) or "compat" (what ggml / the safetensors crate accept).
    pub fn profile(mut self, p: &str) -> Self {
        self.profile = p.into();
        self
    }

    /// Runs every selected case and returns the report.
    pub fn run(&self) -> Report {
        let mut rep = Report::default();
        for case in cases().iter().filter(|c| self.only.is_empty() || self.only.iter().any(|p| c.id.contains(p.as_str()))) {
            let outcome = self.judge(case);
            let listed = self.ignore.contains(case.id);
            let status = match (outcome.ran(), outcome == Outcome::Pass, listed) {
                (false, _, _) => "skip",
                (true, true, false) => "ok",
                (true, true, true) => "stale",
                (true, false, true) => "expected-fail",
                (true, false, false) => "FAIL",
            };
            rep.results.push(CaseResult { id: case.id, verdict: case.verdict, outcome, status });
        }
        rep
    }

    /// Runs and prints the report; panics (failing the calling test) unless it holds.
    pub fn test(&self) -> Report {
        let rep = self.run();
        println!("{rep}");
        assert!(rep.ok(), "the reader does not hold to the corpus:\n{rep}");
        rep
    }

    fn judge(&self, case: &Case) -> Outcome {
        if let Some(why) = profile_skip(case, &self.profile) {
            return Outcome::OtherProfile(why);
        }
        let input = case.input();
        let answer = catch_unwind(AssertUnwindSafe(|| match self.reader.scope(case, &input) {
            Scope::Out(why) => Err(Outcome::Unsupported(why)),
            Scope::In => Ok(self.reader.decode(case, &input)),
        }));
        match answer {
            Err(p) => Outcome::Crash(format!("panicked: {}", panic_text(&p))),
            Ok(Err(o)) => o,
            Ok(Ok(Err(Refused(why)))) => judge_refusal(case, &why),
            Ok(Ok(Ok(view))) => judge_view(case, &view, &self.profile),
        }
    }
}

fn panic_text(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| p.downcast_ref::<String>().cloned()).unwrap_or_default()
}

fn severity(rule: &str, profile: &str) -> Option<&'static str> {
    SEVERITIES.iter().find(|(id, _, _)| *id == rule).map(|(_, s, c)| if profile == "compat" { *c } else { *s })
}

/// As certify: a case for the other profile is not run; under compat, a case with a `-compat` twin
/// defers to it, and a reject by a rule compat does not enforce is not a reject there.
fn profile_skip(case: &Case, profile: &str) -> Option<String> {
    let declared = case.expect.get("profile").as_str().unwrap_or("");
    if !declared.is_empty() && declared != profile {
        return Some(format!("a {declared}-profile case"));
    }
    if declared.is_empty() && profile == "compat" {
        let twin = format!("{}-compat", case.id);
        if cases().iter().any(|c| c.id == twin) {
            return Some("its -compat twin carries the compat expectation".into());
        }
        if case.verdict == Verdict::Reject {
            let sev = case.reject_rule.as_deref().and_then(|r| severity(r, "compat")).unwrap_or("MUST");
            if sev != "MUST" && sev != "LIMIT" {
                return Some("its reject rule is not enforced under compat".into());
            }
        }
    }
    None
}

fn judge_refusal(case: &Case, why: &str) -> Outcome {
    match case.verdict {
        Verdict::Pass => Outcome::RejectedValid(format!("refused a valid input: {why}")),
        _ => Outcome::Pass,
    }
}

fn judge_view(case: &Case, view: &LogicalView, profile: &str) -> Outcome {
    if case.verdict == Verdict::Reject {
        let rule = case.reject_rule.as_deref();
        if rule.and_then(|r| severity(r, profile)) == Some("LIMIT") {
            return Outcome::Pass; // packcheck's own resource bound, not the format's: either answer
        }
        let what = rule.or(case.reject_family.as_deref()).unwrap_or("?");
        return Outcome::AcceptedInvalid(format!("accepted an input that breaks {what}"));
    }
    match compare(case, view) {
        Ok(()) => Outcome::Pass,
        Err(why) => Outcome::WrongOutput(why),
    }
}

/// The view against the pins: the same modules, shapes (leading 1s dropped) and SHA-256s.
fn compare(case: &Case, view: &LogicalView) -> Result<(), String> {
    if let Some(extra) = view.keys().find(|k| !case.modules.contains_key(*k)) {
        return Err(format!("module {extra}: not a module of the case"));
    }
    for (name, pin) in &case.modules {
        let m = view.get(name).ok_or_else(|| format!("module {name}: missing"))?;
        let (want, got) = (squeeze(&pin.shape), squeeze(&m.shape));
        if want != got {
            let mut t = want.to_vec();
            t.reverse();
            let hint = if want.len() == 2 && t == got { " (transposed)" } else { "" };
            return Err(format!("module {name}: shape {got:?}, the case's is {want:?}{hint}"));
        }
        if m.codes.is_none() && m.weight.is_none() {
            return Err(format!("module {name}: neither codes nor weight"));
        }
        let n: u64 = pin.shape.iter().product();
        if let (Some(c), Some(want)) = (&m.codes, &pin.codes_sha256) {
            check_one(name, "codes", c.len() as u64, n, &sha256::hex(c), want)?;
        }
        if let (Some(w), Some(want)) = (&m.weight, &pin.weight_f32_sha256) {
            check_one(name, "weight", w.len() as u64, n, &sha256::hex(&weight_bytes(w)), want)?;
        }
    }
    Ok(())
}

fn check_one(name: &str, what: &str, len: u64, n: u64, got: &str, want: &str) -> Result<(), String> {
    if len != n {
        return Err(format!("module {name}: {len} {what} elements for a shape of {n}"));
    }
    if got != want {
        return Err(format!("module {name}.{what}: sha256 {got}, pinned {want}"));
    }
    Ok(())
}
