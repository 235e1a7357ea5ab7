//! The adoption file's data model, for JSON and RON.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// One adoption of the container-1 contract: the designer's answers, values
/// and item rows for one container.
///
/// Build one by hand, or read a file with [`crate::adoption::read`], which
/// reports every mistake at once.
///
/// ```
/// use bevy_container::adoption::{Adoption, ValueSource};
///
/// let adoption = Adoption::read_json(br#"{
///   "contract": "container", "version": 1,
///   "answers": {"capacity-limit": "no-limit", "fill-order": "append",
///               "draw-order": "first-in-order", "type-restriction": "any-item"},
///   "values": {"slot-count": 0, "size-budget": 0},
///   "rows": {"items": []}
/// }"#).unwrap();
/// assert_eq!(adoption.answers["fill-order"], "append");
/// assert_eq!(adoption.values["slot-count"], ValueSource::Number(0.0));
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Adoption {
    /// Always `"container"`.
    pub contract: String,
    /// Always `1`.
    pub version: u32,
    /// The embedded contract text, when the file carries it (the authoring
    /// tool's export does; hand-written files may leave it out).
    #[serde(flatten, default, skip_serializing_if = "BTreeMap::is_empty")]
    pub contract_text: BTreeMap<String, serde_json::Value>,
    /// Question key to chosen option.
    pub answers: BTreeMap<String, String>,
    /// Value name to a number or a tuning reference.
    pub values: BTreeMap<String, ValueSource>,
    /// Row list name (`items`) to its rows.
    pub rows: BTreeMap<String, Vec<ItemRow>>,
    /// The adoption's verification: per contract test, its scope and seeds.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub verification: BTreeMap<String, Verification>,
}

/// A value: a number set in the file, or a reference to a tuning key.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ValueSource {
    /// A number set in the adoption file.
    Number(f64),
    /// `{"tuning": "backpack-slots"}`: resolved against the game's tuning.
    Tuning {
        /// The tuning key.
        tuning: String,
    },
}

/// One row of `items`: the rules for one item type.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct ItemRow {
    /// The item type, kebab-case.
    pub id: String,
    /// Under `by-slot`: where the game's prose lists the slots' rules.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slot_rules_declared_in: Option<String>,
    /// How many fit in one slot (containers with slots).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stack_limit: Option<u32>,
    /// How much of the budget one item uses (containers with a budget).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<f64>,
    /// What happens to this type in a forced removal.
    pub when_forced_out: String,
    /// The order types leave in, lowest first (movable types).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forced_out_order: Option<i64>,
}

/// What one contract test needs from the adoption.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Verification {
    /// What the test covers: prose, or a citation into the game's prose.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// Seed names for seeded random tests.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seeds: Vec<String>,
}
