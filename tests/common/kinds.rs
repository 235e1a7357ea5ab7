//! Adoptions of several kinds, shared by the tests that build worlds of
//! different containers.

use bevy_container::adoption::Adoption;
use serde_json::json;

use super::{adoption_json, read, slot_answers};

/// A chest whose takes go oldest-first.
pub fn oldest_first_chest() -> Adoption {
    let mut answers = slot_answers("left-where-it-is");
    answers["draw-order"] = json!("oldest-first");
    read(&adoption_json(
        answers,
        6,
        0.0,
        json!([
            {"id": "potion", "stack-limit": 5, "when-forced-out": "dropped-nearby", "forced-out-order": 2},
            {"id": "arrow", "stack-limit": 20, "when-forced-out": "destroyed", "forced-out-order": 1},
        ]),
    ))
}

/// A slotless deck with a thirty-point budget.
pub fn point_deck() -> Adoption {
    read(&adoption_json(
        json!({"capacity-limit": "size-budget", "partial-acceptance": "all-or-nothing",
               "draw-order": "not-applicable", "type-restriction": "any-item"}),
        0,
        30.0,
        json!([
            {"id": "fireball", "size": 4, "when-forced-out": "moved-to-another-store", "forced-out-order": 2},
            {"id": "shield", "size": 3, "when-forced-out": "destroyed", "forced-out-order": 1},
            {"id": "token", "size": 0, "when-forced-out": "dropped-nearby", "forced-out-order": 3},
        ]),
    ))
}

/// An equipment rack: each slot accepts its own types.
pub fn armory() -> Adoption {
    let mut answers = slot_answers("left-where-it-is");
    answers["fill-order"] = json!("first-slot-that-fits");
    answers["type-restriction"] = json!("by-slot");
    read(&adoption_json(
        answers,
        3,
        0.0,
        json!([
            {"id": "helmet", "slot-rules-declared-in": "02-mechanics.md#equipment", "stack-limit": 1,
             "when-forced-out": "dropped-nearby", "forced-out-order": 1},
            {"id": "potion", "slot-rules-declared-in": "02-mechanics.md#equipment", "stack-limit": 5,
             "when-forced-out": "never"},
        ]),
    ))
}
