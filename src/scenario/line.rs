//! The JSON lines a scenario prints (the guide's [`guide::scenarios`](crate::guide::scenarios) chapter, "Output").

use serde_json::{Map, Value, json};

use super::StepOutcome;
use crate::contents::{Contents, Landing, Props};
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

/// `[type, amount]` for the plain kind, `[type, amount, props]` otherwise.
fn entry(item: &str, amount: u32, props: &Props) -> Value {
    if props.is_empty() {
        json!([item, amount])
    } else {
        json!([item, amount, props.to_json()])
    }
}

/// A container's state: `slots` or `holdings`, and `size-used` where
/// there is a budget.
pub(super) fn state(contents: &Contents) -> Map<String, Value> {
    let mut m = Map::new();
    let rules = contents.rules();
    if rules.has_slots() {
        let slots: Vec<Value> = contents
            .slots()
            .map(|s| s.map_or(Value::Null, |s| entry(s.item.as_str(), s.amount, &s.props)))
            .collect();
        m.insert("slots".into(), Value::Array(slots));
    } else {
        // keys sorted by their bytes (kind order is not byte order)
        let sorted: std::collections::BTreeMap<String, u32> = contents
            .holdings()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        let holdings: Map<String, Value> = sorted.into_iter().map(|(k, v)| (k, json!(v))).collect();
        m.insert("holdings".into(), Value::Object(holdings));
    }
    if rules.has_budget() {
        m.insert("size-used".into(), decimal_json(contents.size_used()));
    }
    m
}

/// Adds an outcome's fields, in the order the guide's [`guide::scenarios`](crate::guide::scenarios) chapter gives.
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
            let kinds: Vec<Value> = t
                .kinds()
                .iter()
                .map(|(p, n)| entry(t.item.as_str(), *n, p))
                .collect();
            put("kinds", Value::Array(kinds));
        }
        StepOutcome::PropsSet(p) => {
            put("changed", json!(p.changed));
            put("landed", pairs(&p.landed));
            put(
                "refused",
                p.refused
                    .map_or(Value::Null, |r| json!({"reason": r.as_str()})),
            );
        }
        StepOutcome::ForcedOut(f) => {
            put("forced-out", portions(f));
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
            let item = t.item.as_ref().map_or("", |i| i.as_str());
            let kinds: Vec<Value> = t
                .from
                .iter()
                .map(|l| entry(item, l.amount, &t.props))
                .collect();
            let kinds = if t.from.is_empty() && t.moved > 0 {
                vec![entry(item, t.moved, &t.props)]
            } else {
                kinds
            };
            put("kinds", Value::Array(kinds));
        }
    }
}

/// A forced removal's portions, each with its props when it has any.
fn portions(f: &crate::contents::ForcedOut) -> Value {
    let portions = f
        .portions
        .iter()
        .map(|p| {
            let mut v = json!({"item": p.item.as_str(), "amount": p.amount, "slot": p.slot, "to": p.to.as_str()});
            if !p.props.is_empty()
                && let Some(o) = v.as_object_mut()
            {
                o.insert("props".into(), p.props.to_json());
            }
            v
        })
        .collect();
    Value::Array(portions)
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
