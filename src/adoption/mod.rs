//! The adoption file: its model, reading JSON and RON, and validation.
//!
//! A game designer exports an adoption of the container-1 contract from the
//! authoring tool. [`read`] parses it, reports every mistake at once in a
//! [`Report`], and returns the [`Adoption`]; [`crate::rules::Rules::compile`]
//! turns it into the rules the engine runs.
//!
//! ```
//! use bevy_container::adoption::{self, Format, ProblemKind};
//!
//! let broken = br#"{"contract": "container", "version": 1,
//!   "answers": {"capacity-limit": "slot-count", "partial-acceptance": "fill-what-fits",
//!               "leftover-destination": "left-where-it-is", "fill-order": "top-up-then-first-empty",
//!               "draw-order": "first-in-order", "type-restriction": "any-item"},
//!   "values": {"slot-count": 4, "size-budget": 0},
//!   "rows": {"items": [{"id": "berries", "stack-limit": 0, "when-forced-out": "never"}]}}"#;
//! let report = adoption::read(broken, Format::Json, Default::default()).unwrap_err();
//! let problem = report.at("/rows/items/0/stack-limit").unwrap();
//! assert_eq!(problem.kind, ProblemKind::OutOfRange);
//! ```

pub mod citation;
pub mod contract;
pub mod contract_tests;
pub mod expr;
mod model;
mod report;
pub mod source;
mod tuning;
pub(crate) mod validate;

pub use crate::limits::MAX_SLOTS;
pub use model::{Adoption, ItemRow, ValueSource, Verification};
pub use report::{Problem, ProblemKind, Report, Severity};
pub use source::Format;
pub use tuning::Tuning;
pub use validate::{Context, TEST_NAMES, looks_like_citation, validate};

/// Reads an adoption file's bytes: parses, validates everything, and returns
/// the adoption, or the report when it has errors. Warnings are dropped; use
/// [`check`] to see them.
pub fn read(bytes: &[u8], format: Format, cx: Context<'_>) -> Result<Adoption, Report> {
    let (report, adoption) = check(bytes, format, cx);
    adoption.ok_or(report)
}

/// Reads and validates an adoption file's bytes, returning the whole report
/// (errors and warnings) and the adoption when there are no errors.
pub fn check(bytes: &[u8], format: Format, cx: Context<'_>) -> (Report, Option<Adoption>) {
    match source::parse(bytes, format) {
        Ok(value) => validate::validate_owned(value, cx),
        Err(report) => (report, None),
    }
}

impl Adoption {
    /// Reads an adoption from JSON bytes (see [`read`]).
    pub fn read_json(bytes: &[u8]) -> Result<Adoption, Report> {
        read(bytes, Format::Json, Context::default())
    }

    /// Reads an adoption from RON bytes (see [`read`]).
    pub fn read_ron(bytes: &[u8]) -> Result<Adoption, Report> {
        read(bytes, Format::Ron, Context::default())
    }
}
