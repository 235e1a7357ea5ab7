//! The validation report: every problem in an adoption file, at once.

use std::fmt;

use serde::Serialize;

/// How bad a problem is. Errors stop the adoption from being used; warnings
/// never do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Severity {
    /// The adoption cannot be used until this is fixed.
    Error,
    /// Worth fixing; the adoption still works and the part is ignored.
    Warning,
}

/// What kind of mistake a [`Problem`] is, so tools and tests can tell them
/// apart without reading the message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum ProblemKind {
    /// The file is not well-formed JSON or RON.
    Syntax,
    /// The file is larger or deeper than the crate reads.
    TooLarge,
    /// A value has the wrong type (a string where a number belongs, ...).
    WrongType,
    /// A required field is missing.
    Missing,
    /// A field the contract does not know.
    Unknown,
    /// `contract` or `version` is not container 1.
    WrongContract,
    /// The embedded contract text differs from container-1.
    ContractTextDiffers,
    /// The `pack` names another contract pack.
    PackDiffers,
    /// An answer or field value is not one of the options.
    NotAnOption,
    /// An answer or field given where its `when` does not hold: ignored.
    NotApplicable,
    /// A kebab-case pattern is broken.
    Pattern,
    /// A value that must be unique appears twice.
    Duplicate,
    /// A number is out of the range the contract allows.
    OutOfRange,
    /// A number is not exact (finer than a millionth, NaN, too large).
    Inexact,
    /// A tuning key the game's tuning table does not have.
    UnknownTuningKey,
    /// A rule expression does not parse.
    RuleSyntax,
    /// A rule between the numbers fails.
    RuleFailed,
    /// A citation is malformed or does not resolve in the prose folder.
    Citation,
    /// A value that has no effect under these answers (zero expected).
    Unused,
}

/// One problem found in an adoption file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// Error or warning.
    pub severity: Severity,
    /// What kind of mistake.
    pub kind: ProblemKind,
    /// A JSON pointer into the file: `/rows/items/1/stack-limit`; empty for
    /// the whole file.
    pub path: String,
    /// What is wrong and how to fix it, in a designer's words.
    pub message: String,
    /// Line and column (1-based) for syntax errors.
    pub position: Option<(usize, usize)>,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let severity = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        match self.position {
            Some((line, column)) => write!(
                f,
                "{severity} at line {line}, column {column}: {}",
                self.message
            ),
            None if self.path.is_empty() => write!(f, "{severity}: {}", self.message),
            None => write!(f, "{severity} at {}: {}", self.path, self.message),
        }
    }
}

/// Every problem found in one adoption file, in the order found.
///
/// ```
/// use bevy_container::adoption::{Report, ProblemKind};
///
/// let mut report = Report::default();
/// report.error(ProblemKind::Missing, "/answers/fill-order", "answer fill-order");
/// report.warning(ProblemKind::Unused, "/values/size-budget", "use 0");
/// assert_eq!(report.errors().count(), 1);
/// assert!(report.has_errors());
/// assert_eq!(report.summary(), "1 error, 1 warning");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Report {
    /// The problems, in the order found.
    pub problems: Vec<Problem>,
}

impl Report {
    /// Adds an error.
    pub fn error(
        &mut self,
        kind: ProblemKind,
        path: impl Into<String>,
        message: impl Into<String>,
    ) {
        self.push(Severity::Error, kind, path.into(), message.into());
    }

    /// Adds a warning.
    pub fn warning(
        &mut self,
        kind: ProblemKind,
        path: impl Into<String>,
        message: impl Into<String>,
    ) {
        self.push(Severity::Warning, kind, path.into(), message.into());
    }

    /// Adds a syntax error at a line and column.
    pub fn syntax(&mut self, line: usize, column: usize, message: impl Into<String>) {
        self.problems.push(Problem {
            severity: Severity::Error,
            kind: ProblemKind::Syntax,
            path: String::new(),
            message: message.into(),
            position: Some((line, column)),
        });
    }

    fn push(&mut self, severity: Severity, kind: ProblemKind, path: String, message: String) {
        self.problems.push(Problem {
            severity,
            kind,
            path,
            message,
            position: None,
        });
    }

    /// The errors.
    pub fn errors(&self) -> impl Iterator<Item = &Problem> {
        self.problems
            .iter()
            .filter(|p| p.severity == Severity::Error)
    }

    /// The warnings.
    pub fn warnings(&self) -> impl Iterator<Item = &Problem> {
        self.problems
            .iter()
            .filter(|p| p.severity == Severity::Warning)
    }

    /// Whether any problem is an error.
    pub fn has_errors(&self) -> bool {
        self.errors().next().is_some()
    }

    /// The first problem at `path`, if any.
    pub fn at(&self, path: &str) -> Option<&Problem> {
        self.problems.iter().find(|p| p.path == path)
    }

    /// `"2 errors, 1 warning"`.
    pub fn summary(&self) -> String {
        let e = self.errors().count();
        let w = self.warnings().count();
        format!(
            "{e} error{}, {w} warning{}",
            if e == 1 { "" } else { "s" },
            if w == 1 { "" } else { "s" }
        )
    }

    /// The report as a compiler prints it, one `FILE: problem` line each.
    pub fn render(&self, file: &str) -> String {
        let mut out = String::new();
        for p in &self.problems {
            out.push_str(&format!("{file}: {p}\n"));
        }
        out
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for p in &self.problems {
            writeln!(f, "{p}")?;
        }
        write!(f, "{}", self.summary())
    }
}

impl std::error::Error for Report {}

/// Escapes one JSON-pointer segment (`~` and `/`).
pub(crate) fn segment(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}
