//! The contract's tests (the guide's [`guide::adoption`](crate::guide::adoption)): audit an adoption against the
//! real engine, with the adoption's own seeds and scopes.
//!
//! The audit lists the catalog's tests ([`ContractTest::ALL`]) in order, a
//! per-row test once per row, each with its [`Verdict`]: passed (with what
//! was checked), failed (with the seed, the sequence and a shrunk scenario
//! file that replays it), not applicable (with the reason) or cannot run
//! (with what the adoption's `verification` lacks). Every test compares the
//! engine with an independent statement of the rule (a plain reference model
//! or a property stated from the spec), never with the engine itself.
//!
//! A game audits its adoption files from its own `cargo test`:
//!
//! ```
//! use bevy_container::audit::{self, AuditOptions};
//!
//! let options = AuditOptions::default().prose("assets/design");
//! let report = audit::audit_file("assets/backpack.adoption.json", &options).unwrap();
//! assert_eq!(report.entries.len(), 14);
//! assert!(report.passed(), "{report}");
//! ```

mod model;
mod run;
mod seed;
mod verdict;

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Value, json};

pub use crate::adoption::contract_tests::ContractTest;
pub use seed::seed_of;

use crate::adoption::{self, Adoption, Context, Format, Report, Tuning};
use crate::contents::{Contents, Delivered, ForcedOut, SlotRules, Taken};
use crate::decimal::Decimal;
use crate::rules::Rules;
use run::{Op, Setup};
use verdict::Bench;

/// The container the audit drives: the engine, or a game's wrapper around
/// it. Implemented for [`Contents`]; tests of the audit itself plant wrong
/// behaviour through it.
pub trait Subject {
    /// Delivers `amount` of `item` ([`Contents::deliver`]).
    fn deliver(&mut self, item: &str, amount: u32) -> Delivered;
    /// Takes `amount` of `item`, from `slot` when given ([`Contents::take_inner`]).
    fn take(&mut self, item: &str, amount: u32, slot: Option<u32>) -> Taken;
    /// Changes the capacity ([`Contents::resize`]).
    fn resize(&mut self, slot_count: Option<u32>, size_budget: Option<Decimal>) -> ForcedOut;
    /// Empties it for an owner that is gone ([`Contents::owner_gone`]).
    fn owner_gone(&mut self) -> ForcedOut;
    /// The contents, observed after each step.
    fn contents(&self) -> &Contents;
}

impl Subject for Contents {
    fn deliver(&mut self, item: &str, amount: u32) -> Delivered {
        Contents::deliver(self, item, amount)
    }
    fn take(&mut self, item: &str, amount: u32, slot: Option<u32>) -> Taken {
        self.take_inner(item, amount, slot)
    }
    fn resize(&mut self, slot_count: Option<u32>, size_budget: Option<Decimal>) -> ForcedOut {
        Contents::resize(self, slot_count, size_budget)
    }
    fn owner_gone(&mut self) -> ForcedOut {
        Contents::owner_gone(self)
    }
    fn contents(&self) -> &Contents {
        self
    }
}

/// Builds the subject for one sequence from a fresh, empty container.
pub type SubjectFactory = dyn Fn(Contents) -> Box<dyn Subject> + Send + Sync;

/// What the audit needs besides the adoption.
#[derive(Clone)]
pub struct AuditOptions {
    /// The game's tuning, for values that name a tuning key.
    pub tuning: Tuning,
    /// The slot rules, for `by-slot` containers.
    pub slot_rules: Option<SlotRules>,
    /// The game's prose folder, where scope citations resolve.
    pub prose: Option<PathBuf>,
    /// Random sequences per seed (per test for tests without seeds).
    pub sequences: u32,
    /// Requests per sequence.
    pub steps: u32,
    subject: Arc<SubjectFactory>,
}

impl Default for AuditOptions {
    fn default() -> AuditOptions {
        AuditOptions {
            tuning: Tuning::default(),
            slot_rules: None,
            prose: None,
            sequences: 100,
            steps: 40,
            subject: Arc::new(|c: Contents| Box::new(c) as Box<dyn Subject>),
        }
    }
}

impl fmt::Debug for AuditOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AuditOptions")
            .field("tuning", &self.tuning)
            .field("slot_rules", &self.slot_rules)
            .field("prose", &self.prose)
            .field("sequences", &self.sequences)
            .field("steps", &self.steps)
            .finish_non_exhaustive()
    }
}

impl AuditOptions {
    /// Sets the prose folder, builder style.
    pub fn prose(mut self, dir: impl Into<PathBuf>) -> AuditOptions {
        self.prose = Some(dir.into());
        self
    }

    /// Sets the tuning, builder style.
    pub fn tuning(mut self, tuning: Tuning) -> AuditOptions {
        self.tuning = tuning;
        self
    }

    /// Sets the slot rules, builder style.
    pub fn slot_rules(mut self, slot_rules: SlotRules) -> AuditOptions {
        self.slot_rules = Some(slot_rules);
        self
    }

    /// Sets how many sequences and steps each test runs, builder style.
    pub fn effort(mut self, sequences: u32, steps: u32) -> AuditOptions {
        self.sequences = sequences.max(1);
        self.steps = steps.max(1);
        self
    }

    /// Audits another implementation than the bare engine: `wrap` receives
    /// each fresh container and returns the subject to drive.
    pub fn subject(
        mut self,
        wrap: impl Fn(Contents) -> Box<dyn Subject> + Send + Sync + 'static,
    ) -> AuditOptions {
        self.subject = Arc::new(wrap);
        self
    }
}

/// One test's result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// It ran and every check held.
    Passed {
        /// What was checked (`seed backpack-audit-a: 100 sequences, ...`).
        checked: String,
    },
    /// A check failed.
    Failed(Failure),
    /// The test does not apply to these answers.
    NotApplicable {
        /// Why.
        reason: String,
    },
    /// The adoption's `verification` (or the audit's options) lack what it needs.
    CannotRun {
        /// What it needs.
        needs: String,
    },
}

/// A failed test: enough to reproduce it anywhere.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The seed name the sequence came from.
    pub seed: String,
    /// The sequence number within the seed (0-based).
    pub sequence: u32,
    /// The step of the shrunk sequence that failed (1-based).
    pub step: usize,
    /// What was wrong.
    pub message: String,
    /// The shrunk sequence as a scenario file (`cargo run --example scenario --all-features -- FILE`).
    pub replay: String,
}

/// One listed test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The test's name ([`ContractTest::name`]: `capacity-holds`).
    pub test: &'static str,
    /// The row, for per-row tests.
    pub row: Option<String>,
    /// Its result.
    pub verdict: Verdict,
}

/// The audit of one adoption.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuditReport {
    /// The adoption's name (its path).
    pub source: String,
    /// The tests in the catalog's order.
    pub entries: Vec<Entry>,
}

impl AuditReport {
    /// Whether no test failed.
    pub fn passed(&self) -> bool {
        self.failures().next().is_none()
    }

    /// The failed tests.
    pub fn failures(&self) -> impl Iterator<Item = (&Entry, &Failure)> {
        self.entries.iter().filter_map(|e| match &e.verdict {
            Verdict::Failed(f) => Some((e, f)),
            _ => None,
        })
    }

    /// The entry for `test` (and `row`, for per-row tests).
    pub fn entry(&self, test: &str, row: Option<&str>) -> Option<&Entry> {
        self.entries
            .iter()
            .find(|e| e.test == test && e.row.as_deref() == row)
    }

    /// `Ok` when nothing failed, else the report as the error, for a game's
    /// tests: `audit_file(path, &options)?.into_result()?`.
    pub fn into_result(self) -> Result<AuditReport, AuditError> {
        if self.passed() {
            Ok(self)
        } else {
            Err(AuditError::Failed(self))
        }
    }

    /// `"13 passed, 0 failed, 1 not applicable, 0 cannot run"`.
    pub fn summary(&self) -> String {
        let mut n = [0; 4];
        for e in &self.entries {
            n[match e.verdict {
                Verdict::Passed { .. } => 0,
                Verdict::Failed(_) => 1,
                Verdict::NotApplicable { .. } => 2,
                Verdict::CannotRun { .. } => 3,
            }] += 1;
        }
        format!(
            "{} passed, {} failed, {} not applicable, {} cannot run",
            n[0], n[1], n[2], n[3]
        )
    }
}

impl fmt::Display for AuditReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}: {} tests", self.source, self.entries.len())?;
        for (i, e) in self.entries.iter().enumerate() {
            let name = match &e.row {
                Some(r) => format!("{} ({r})", e.test),
                None => e.test.to_string(),
            };
            match &e.verdict {
                Verdict::Passed { checked } => {
                    writeln!(f, "{:>3}. {name:<36} passed: {checked}", i + 1)?
                }
                Verdict::NotApplicable { reason } => {
                    writeln!(f, "{:>3}. {name:<36} not applicable: {reason}", i + 1)?
                }
                Verdict::CannotRun { needs } => {
                    writeln!(f, "{:>3}. {name:<36} cannot run: {needs}", i + 1)?
                }
                Verdict::Failed(x) if x.replay.is_empty() => {
                    writeln!(f, "{:>3}. {name:<36} FAILED: {}", i + 1, x.message)?
                }
                Verdict::Failed(x) => {
                    writeln!(
                        f,
                        "{:>3}. {name:<36} FAILED: seed {}, sequence {}, step {}: {}",
                        i + 1,
                        x.seed,
                        x.sequence,
                        x.step,
                        x.message
                    )?;
                    writeln!(
                        f,
                        "     replay (save as a .json file, run with `cargo run --example scenario --all-features -- FILE`):"
                    )?;
                    for line in x.replay.lines() {
                        writeln!(f, "       {line}")?;
                    }
                }
            }
        }
        write!(f, "{}: {}", self.source, self.summary())
    }
}

/// Why an audit could not be made, or what it found.
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    /// The adoption file could not be read.
    #[error("{file}: cannot read: {source}")]
    Unreadable {
        /// The file.
        file: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The adoption (or its tuning) has errors: the validation report.
    #[error("{}{file}: {}", report.render(file), report.summary())]
    Invalid {
        /// The file.
        file: String,
        /// Every problem.
        report: Report,
    },
    /// The audit ran and a test failed.
    #[error("{0}")]
    Failed(AuditReport),
}

/// Reads, validates and audits an adoption file (JSON or RON by its name).
pub fn audit_file(
    path: impl AsRef<Path>,
    options: &AuditOptions,
) -> Result<AuditReport, AuditError> {
    let path = path.as_ref();
    let file = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|source| AuditError::Unreadable {
        file: file.clone(),
        source,
    })?;
    let cx = Context {
        tuning: Some(&options.tuning),
        prose: options.prose.as_deref(),
    };
    let adoption = adoption::read(&bytes, Format::of_path(path), cx).map_err(|report| {
        AuditError::Invalid {
            file: file.clone(),
            report,
        }
    })?;
    // a replay names the adoption by a path that works from anywhere
    let source = std::fs::canonicalize(path).map_or(file.clone(), |p| p.display().to_string());
    let mut report = audit(&adoption, &source, options).map_err(|report| AuditError::Invalid {
        file: file.clone(),
        report,
    })?;
    report.source = file;
    Ok(report)
}

/// Audits an adoption already read. `source` names it in the report and in
/// replays (`"adoption"` of the scenario file).
pub fn audit(
    adoption: &Adoption,
    source: &str,
    options: &AuditOptions,
) -> Result<AuditReport, Report> {
    let rules = Arc::new(Rules::compile(adoption, &options.tuning)?);
    let bench = Bench {
        adoption,
        setup: Setup {
            rules: rules.clone(),
            slot_rules: options.slot_rules.clone(),
            subject: &*options.subject,
        },
        options,
        head: ReplayHead {
            adoption: source.to_string(),
            tuning: options.tuning.clone(),
            slot_rules: options.slot_rules.clone(),
        },
    };
    let mut entries = Vec::new();
    for test in ContractTest::ALL {
        let rows: Vec<Option<String>> = if test.per_row() {
            rules.rows.iter().map(|r| Some(r.id.clone())).collect()
        } else {
            vec![None]
        };
        for row in rows {
            let verdict = verdict::of(test, row.as_deref(), &bench);
            entries.push(Entry {
                test: test.name(),
                row,
                verdict,
            });
        }
    }
    Ok(AuditReport {
        source: source.to_string(),
        entries,
    })
}

/// What every replay file starts with.
struct ReplayHead {
    adoption: String,
    tuning: Tuning,
    slot_rules: Option<SlotRules>,
}

impl ReplayHead {
    fn render(&self, test: &str, seed: &str, sequence: u32, ops: &[Op]) -> String {
        let about = format!(
            "audit: {test} failed on seed {seed}, sequence {sequence}, shrunk to {} steps",
            ops.len()
        );
        let mut out = String::from("{\n");
        out.push_str(&format!("  \"about\": {},\n", json!(about)));
        out.push_str(&format!("  \"adoption\": {},\n", json!(self.adoption)));
        let tuning = serde_json::to_string(&self.tuning).unwrap_or_else(|_| "{}".into());
        out.push_str(&format!("  \"tuning\": {tuning},\n"));
        if let Some(sr) = &self.slot_rules {
            let lists: Vec<Value> = sr
                .accepts
                .iter()
                .map(|s| json!(s.iter().collect::<Vec<_>>()))
                .collect();
            out.push_str(&format!("  \"slot-rules\": {},\n", Value::Array(lists)));
        }
        out.push_str("  \"steps\": [\n");
        let steps: Vec<String> = ops
            .iter()
            .map(|op| format!("    {}", run::to_step(op)))
            .collect();
        out.push_str(&steps.join(",\n"));
        out.push_str("\n  ]\n}\n");
        out
    }
}
