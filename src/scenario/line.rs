//! The JSON lines a scenario prints (`scenario-format.md`, "Output").

use serde_json::{Map, Value, json};

use super::StepOutcome;
use crate::contents::{Contents, Landing};
use crate::decimal::Decimal;

fn decimal_json(d: Decimal) -> Value {
    if d.micros().is_multiple_of(1_000_000)
        && let Ok(n) = u64::try_from(d.micros() / 1_000_000)
    {
        return json!(n);
    }
    json!(d.to_f64())
}

fn pairs(l: &[Landing]) -> Value {
    json!(l.iter().map(|l| [l.slot, l.amount]).collect::<Vec<_>>())
}

/// A container's state: `slots` or `holdings`, and `size-used` where
/// there is a budget.
pub(super) fn state(contents: &Contents) -> Map<String, Value> {
    let mut m = Map::new();
    let rules = contents.rules();
    if rules.has_slots() {
        let slots: Vec<Value> = contents
            .slots()
            .map(|s| s.map_or(Value::Null, |s| json!([s.item.as_str(), s.amount])))
            .collect();
        m.insert("slots".into(), Value::Array(slots));
    } else {
        let holdings: Map<String, Value> = contents
            .holdings()
            .map(|(k, v)| (k.to_string(), json!(v)))
            .collect();
        m.insert("holdings".into(), Value::Object(holdings));
    }
    if rules.has_budget() {
        m.insert("size-used".into(), decimal_json(contents.size_used()));
    }
    m
}

/// Adds an outcome's fields, in the order `scenario-format.md` gives.
pub(super) fn outcome(m: &mut Map<String, Value>, outcome: &StepOutcome) {
    let mut put = |k: &str, v: Value| {
        m.insert(k.into(), v);
    };
    match outcome {
        StepOutcome::Delivered(d) => {
            put("offered", json!(d.offered));
            put("accepted", json!(d.accepted));
            put("landed", pairs(&d.landed));
            put(
                "refused",
                d.refused.as_ref().map_or(
                    Value::Null,
                    |r| json!({"amount": r.amount, "reason": r.reason.as_str()}),
                ),
            );
            put(
                "leftover",
                d.leftover.as_ref().map_or(
                    Value::Null,
                    |l| json!({"amount": l.amount, "to": l.to.as_str()}),
                ),
            );
        }
        StepOutcome::Taken(t) => {
            put("asked", json!(t.asked));
            put("taken", json!(t.taken));
            put("shortfall", json!(t.shortfall));
            put("from", pairs(&t.from));
            put(
                "refused",
                t.refused
                    .map_or(Value::Null, |r| json!({"reason": r.as_str()})),
            );
        }
        StepOutcome::ForcedOut(f) => {
            let portions = f
                .portions
                .iter()
                .map(|p| {
                    json!({"item": p.item.as_str(), "amount": p.amount, "slot": p.slot, "to": p.to.as_str()})
                })
                .collect();
            put("forced-out", Value::Array(portions));
            put(
                "refused",
                f.refused.as_ref().map_or(
                    Value::Null,
                    |s| json!({"reason": "too-few-can-leave", "short": s.to_string()}),
                ),
            );
        }
        StepOutcome::Rearranged(r) => put(
            "refused",
            r.refused
                .map_or(Value::Null, |r| json!({"reason": r.as_str()})),
        ),
        StepOutcome::Transferred(t) => {
            put("asked", json!(t.asked));
            put("moved", json!(t.moved));
            put("shortfall", json!(t.shortfall));
            put("from", pairs(&t.from));
            put("landed", pairs(&t.landed));
            put("swapped", json!(t.swapped.is_some()));
            put(
                "refused",
                t.refused
                    .map_or(Value::Null, |r| json!({"reason": r.as_str()})),
            );
        }
    }
}

/// The JSON line for one step of a one-container scenario: `step`, `op`,
/// the container's state, then the outcome's fields.
pub fn line(step_no: usize, op: &str, outcome: &StepOutcome, contents: &Contents) -> Value {
    let mut m = Map::new();
    m.insert("step".into(), json!(step_no));
    m.insert("op".into(), json!(op));
    m.extend(state(contents));
    self::outcome(&mut m, outcome);
    Value::Object(m)
}

/// The JSON line for one step of a world scenario: `step`, `op`, the
/// outcome's fields, then `world`.
pub(super) fn world_line(step_no: usize, op: &str, outcome: &StepOutcome, world: Value) -> Value {
    let mut m = Map::new();
    m.insert("step".into(), json!(step_no));
    m.insert("op".into(), json!(op));
    self::outcome(&mut m, outcome);
    m.insert("world".into(), world);
    Value::Object(m)
}
