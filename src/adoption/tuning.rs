//! The game's tuning table: named numbers that adoption values may refer to.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::report::{ProblemKind, Report};
use super::source::{self, Format};

/// Tuning keys to numbers. An adoption value written `{"tuning": KEY}` takes
/// its number from here.
///
/// ```
/// use bevy_container::adoption::Tuning;
///
/// let tuning = Tuning::default().with("backpack-slots", 8.0);
/// assert_eq!(tuning.get("backpack-slots"), Some(8.0));
/// assert_eq!(tuning.get("chest-slots"), None);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Tuning {
    /// Key to number.
    pub values: BTreeMap<String, f64>,
}

impl Tuning {
    /// The number for `key`.
    pub fn get(&self, key: &str) -> Option<f64> {
        self.values.get(key).copied()
    }

    /// Sets `key`, builder style.
    pub fn with(mut self, key: &str, value: f64) -> Tuning {
        self.values.insert(key.to_string(), value);
        self
    }

    /// Sets `key`.
    pub fn set(&mut self, key: &str, value: f64) {
        self.values.insert(key.to_string(), value);
    }

    /// Reads a tuning file: a JSON or RON object of key to number. Problems
    /// are reported with paths like adoption problems.
    pub fn read(bytes: &[u8], format: Format) -> Result<Tuning, Report> {
        Tuning::from_value(&source::parse(bytes, format)?)
    }

    /// Reads a tuning table already parsed (a scenario's `tuning`), with the
    /// checks of [`Tuning::read`]; paths in the report start at the table.
    pub fn from_value(value: &serde_json::Value) -> Result<Tuning, Report> {
        let mut report = Report::default();
        let mut tuning = Tuning::default();
        match value.as_object() {
            None => report.error(
                ProblemKind::WrongType,
                "",
                "a tuning file is an object of key to number, like {\"backpack-slots\": 12}",
            ),
            Some(map) => {
                for (k, v) in map {
                    match v.as_f64().filter(|f| f.is_finite()) {
                        Some(f) if f.abs() > crate::decimal::MAX_UNITS as f64 => report.error(
                            ProblemKind::OutOfRange,
                            format!("/{}", super::report::segment(k)),
                            format!(
                                "tuning key \"{k}\" is {f}, past the largest value any setting takes (10^15)"
                            ),
                        ),
                        Some(f) => tuning.set(k, f),
                        None => report.error(
                            ProblemKind::WrongType,
                            format!("/{}", super::report::segment(k)),
                            format!("tuning key \"{k}\" must be a number"),
                        ),
                    }
                }
            }
        }
        if report.has_errors() {
            Err(report)
        } else {
            Ok(tuning)
        }
    }
}
