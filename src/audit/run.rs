//! Sequences of requests: generated from a seed, run against a subject with
//! one test's checks after every step, shrunk when they fail, and written
//! out as a scenario file that replays them.
//!
//! The checks of each request's outcome live in one module per request,
//! one function per check: `deliver`, `take` and `forced` (resizes and
//! owner-gone). The checks of the contents after every step are here
//! (`after_step_checks`).

mod deliver;
mod forced;
mod take;

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Value, json};

use super::Subject;
use super::model::Model;
use super::seed::Rng;
use crate::contents::{Contents, SlotRules, Stack};
use crate::decimal::Decimal;
use crate::rules::Rules;

/// One request of a sequence: a scenario step (sequences use deliveries,
/// takes, resizes and owner-gone).
pub(crate) use crate::scenario::Step as Op;

/// A request as the step of a scenario file, for replays.
pub(crate) fn to_step(op: &Op) -> Value {
    match op {
        Op::Deliver { item, amount, .. } => {
            json!({"op": "deliver", "item": item, "amount": amount})
        }
        Op::Take {
            item,
            amount,
            slot: None,
            ..
        } => {
            json!({"op": "take", "item": item, "amount": amount})
        }
        Op::Take {
            item,
            amount,
            slot: Some(s),
            ..
        } => {
            json!({"op": "take", "item": item, "amount": amount, "slot": s})
        }
        Op::Resize {
            slot_count,
            size_budget,
        } => {
            let mut m = serde_json::Map::new();
            m.insert("op".into(), json!("resize"));
            if let Some(n) = slot_count {
                m.insert("slot-count".into(), json!(n));
            }
            if let Some(b) = size_budget {
                let v = serde_json::to_value(b).unwrap_or(Value::Null);
                m.insert("size-budget".into(), v);
            }
            Value::Object(m)
        }
        other => json!({"op": other.op()}),
    }
}

/// Which test's checks run after each step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Check {
    Capacity,
    FillOrder,
    Partial,
    Leftover,
    Draw,
    Entry,
    Shortfall,
    StackOrSize(String),
    ForcedOut(String),
}

/// A failed check: the step (1-based) and what was wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Violation {
    pub step: usize,
    pub message: String,
}

/// What one passing sequence checked.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Tally {
    pub steps: u64,
    pub checks: u64,
}

/// The container under audit, and how to build a subject for it.
pub(crate) struct Setup<'a> {
    pub rules: Arc<Rules>,
    pub slot_rules: Option<SlotRules>,
    pub subject: &'a super::SubjectFactory,
}

impl Setup<'_> {
    pub(crate) fn fresh(&self) -> Box<dyn Subject> {
        let mut c = Contents::new(self.rules.clone());
        c.set_slot_rules(self.slot_rules.clone());
        (self.subject)(c)
    }
}

/// What each test's sequences are made of.
pub(crate) struct Profile {
    /// Percent weights: deliver, take, resize, owner gone.
    pub weights: [u64; 4],
    /// Percent of takes that name a slot.
    pub take_slot: u64,
    /// Percent of requests about the focus type (if any).
    pub focus: Option<(String, u64)>,
    /// Percent of requests about unlisted types.
    pub strangers: u64,
    /// Amounts large enough to overflow the container.
    pub big: bool,
}

/// Types no row lists, for entry checks.
pub(crate) const STRANGERS: [&str; 2] = ["audit-stranger-a", "audit-stranger-b"];

pub(crate) fn generate(
    rng: &mut Rng,
    rules: &Rules,
    slot_rules: Option<&SlotRules>,
    p: &Profile,
    len: usize,
) -> Vec<Op> {
    let listed: Vec<&str> = rules.rows.iter().map(|r| r.id.as_str()).collect();
    let mut strangers: Vec<String> = STRANGERS.iter().map(|s| s.to_string()).collect();
    if let Some(sr) = slot_rules {
        for s in sr.accepts.iter().flatten() {
            if rules.row(s).is_none() && !strangers.contains(s) {
                strangers.push(s.clone());
            }
        }
    }
    let slots = if rules.has_slot_limit() {
        rules.slot_count.max(1)
    } else {
        8
    };
    let mut ops = Vec::with_capacity(len);
    for _ in 0..len {
        let item: String = match &p.focus {
            Some((f, pct)) if rng.chance(*pct) => f.clone(),
            _ if listed.is_empty() || rng.chance(p.strangers) => {
                rng.pick(&strangers).cloned().unwrap_or_default()
            }
            _ => rng.pick(&listed).map(|s| s.to_string()).unwrap_or_default(),
        };
        let limit = rules.row(&item).map_or(1, |r| r.stack_limit).clamp(1, 50);
        let amount = if rng.chance(2) {
            0
        } else if p.big {
            rng.range(1, (limit * (slots.min(64) + 2)).min(100_000))
        } else {
            rng.range(1, 2 * limit)
        };
        let roll = rng.below(p.weights.iter().sum::<u64>().max(1));
        let op = if roll < p.weights[0] {
            Op::Deliver {
                item,
                amount,
                props: Default::default(),
            }
        } else if roll < p.weights[0] + p.weights[1] {
            let slot = (rules.has_slots() && rng.chance(p.take_slot)).then(|| {
                if rules.has_slot_limit() {
                    rng.range(0, slots)
                } else {
                    rng.range(0, 3)
                }
            });
            Op::Take {
                item,
                amount,
                slot,
                props: None,
            }
        } else if roll < p.weights[0] + p.weights[1] + p.weights[2] {
            let slot_count = (rules.has_slot_limit() && (!rules.has_budget() || rng.chance(50)))
                .then(|| rng.range(1, rules.slot_count + 1));
            let size_budget = (rules.has_budget() && (slot_count.is_none() || rng.chance(50)))
                .then(|| {
                    let eighths = u128::from(rng.range(0, 9));
                    Decimal::from_micros(rules.size_budget.micros() * eighths / 8)
                });
            if slot_count.is_none() && size_budget.is_none() {
                Op::OwnerGone
            } else {
                Op::Resize {
                    slot_count,
                    size_budget,
                }
            }
        } else {
            Op::OwnerGone
        };
        ops.push(op);
    }
    ops
}

/// A copy of what the container holds, to compare before and after.
#[derive(Clone, Debug, PartialEq)]
struct Snapshot {
    slots: Vec<Option<Stack>>,
    holdings: Vec<(String, u32)>,
    size_used: Decimal,
    limits: crate::contents::Limits,
}

/// What the container holds now.
fn snapshot(c: &Contents) -> Snapshot {
    Snapshot {
        slots: c.slots().map(|s| s.cloned()).collect(),
        holdings: c.holdings().map(|(k, n)| (k.to_string(), n)).collect(),
        size_used: c.size_used(),
        limits: c.limits(),
    }
}

/// How many of each type the container holds.
fn totals(c: &Contents) -> BTreeMap<String, u64> {
    c.totals()
        .into_iter()
        .map(|(k, n)| (k.to_string(), n))
        .collect()
}

/// A violation at `step`.
fn fail<T>(step: usize, message: String) -> Result<T, Violation> {
    Err(Violation { step, message })
}

/// How many of each type the outcomes so far say the container holds:
/// accepted deliveries in, takes and forced removals out. capacity-holds
/// compares it with the contents.
type Ledger = BTreeMap<String, u64>;

/// One step under check: the container's setup, the test's check, the
/// contents before the step and the step's number (1-based).
struct At<'a, 's> {
    setup: &'a Setup<'s>,
    check: &'a Check,
    before: &'a Snapshot,
    step: usize,
}

impl At<'_, '_> {
    /// A violation at this step.
    fn fail<T>(&self, message: String) -> Result<T, Violation> {
        fail(self.step, message)
    }
}

/// Runs `ops` on a fresh subject with `check` after every step.
pub(crate) fn run(setup: &Setup<'_>, ops: &[Op], check: &Check) -> Result<Tally, Violation> {
    let mut subject = setup.fresh();
    let mut model = Model::new(setup.rules.clone(), setup.slot_rules.clone());
    let mut ledger = Ledger::new();
    let mut tally = Tally::default();
    for (i, op) in ops.iter().enumerate() {
        let before = snapshot(subject.contents());
        let at = At {
            setup,
            check,
            before: &before,
            step: i + 1,
        };
        let checks = step_checks(&at, &mut *subject, &mut model, &mut ledger, op)?;
        tally.steps += 1;
        tally.checks += checks;
        after_step_checks(&at, subject.contents(), &ledger)?;
        model.adopt(subject.contents());
    }
    Ok(tally)
}

/// Makes one request of the subject (and the model), books its outcome in
/// the ledger, and runs the test's checks of the outcome. Returns how many
/// checks ran.
fn step_checks(
    at: &At<'_, '_>,
    subject: &mut dyn Subject,
    model: &mut Model,
    ledger: &mut Ledger,
    op: &Op,
) -> Result<u64, Violation> {
    match op {
        Op::Deliver { item, amount, .. } => {
            deliver::checks(at, subject, model, ledger, item, *amount)
        }
        Op::Take {
            item, amount, slot, ..
        } => take::checks(at, subject, model, ledger, item, *amount, *slot),
        Op::Resize {
            slot_count,
            size_budget,
        } => {
            let f = subject.resize(*slot_count, *size_budget);
            forced::checks(at, subject.contents(), ledger, &f, op)
        }
        Op::OwnerGone => {
            let f = subject.owner_gone();
            forced::checks(at, subject.contents(), ledger, &f, op)
        }
        // sequences never sort, move or change properties
        Op::Sort { .. } | Op::Move { .. } | Op::SetProps { .. } => Ok(0),
    }
}

/// The checks of the contents after every step: capacity-holds' invariants
/// and ledger, stack-or-size-holds' invariants for its row.
fn after_step_checks(at: &At<'_, '_>, c: &Contents, ledger: &Ledger) -> Result<(), Violation> {
    match at.check {
        Check::Capacity => {
            invariants(at.setup, c, None, at.step)?;
            nothing_lost_or_made(c, ledger, at.step)
        }
        Check::StackOrSize(row) => invariants(at.setup, c, Some(row), at.step),
        _ => Ok(()),
    }
}

/// capacity-holds: the container holds exactly what its outcomes account
/// for.
fn nothing_lost_or_made(c: &Contents, ledger: &Ledger, step: usize) -> Result<(), Violation> {
    let held = totals(c);
    if held != *ledger {
        return fail(
            step,
            format!(
                "the container holds {held:?} but its outcomes account for {ledger:?}: items were lost or made"
            ),
        );
    }
    Ok(())
}

/// The capacity invariants: stacks (of `only`, when given) within their
/// limits, the slot count, the exact size used within the budget.
fn invariants(
    setup: &Setup<'_>,
    c: &Contents,
    only: Option<&str>,
    step: usize,
) -> Result<(), Violation> {
    let rules = &setup.rules;
    let limits = c.limits();
    if rules.has_slot_limit() && c.slots().count() != limits.slot_count as usize {
        return fail(
            step,
            format!(
                "{} slots shown where the slot count is {}",
                c.slots().count(),
                limits.slot_count
            ),
        );
    }
    if !rules.has_slot_limit() && c.slots().count() > super::model::CEILING as usize {
        return fail(
            step,
            format!("{} slots, past the safety ceiling", c.slots().count()),
        );
    }
    let mut used: u128 = 0;
    for (i, s) in c.slots().enumerate() {
        let Some(s) = s else { continue };
        let row = rules.rows.iter().find(|r| r.id == s.item.as_str());
        let limit = row.map_or(1, |r| r.stack_limit);
        if only.is_none_or(|o| o == s.item.as_str()) && (s.amount == 0 || s.amount > limit) {
            return fail(
                step,
                format!(
                    "slot {i} holds {} {}; its stack limit is {limit}",
                    s.amount, s.item
                ),
            );
        }
        used += u128::from(s.amount) * row.map_or(0, |r| r.size.micros());
    }
    for (k, n) in c.holdings() {
        let size = rules
            .rows
            .iter()
            .find(|r| r.id == k.item.as_str())
            .map_or(0, |r| r.size.micros());
        used += u128::from(n) * size;
    }
    if rules.has_budget() {
        if c.size_used().micros() != used {
            return fail(
                step,
                format!(
                    "size used is {} but the items held add up to {}",
                    c.size_used(),
                    Decimal::from_micros(used)
                ),
            );
        }
        if used > limits.size_budget.micros() {
            return fail(
                step,
                format!(
                    "size used {} is over the budget {}",
                    Decimal::from_micros(used),
                    limits.size_budget
                ),
            );
        }
    }
    Ok(())
}

/// Shrinks a failing sequence: drops what the failure does not need and
/// lowers amounts, keeping a failure of the same test.
pub(crate) fn shrink(
    setup: &Setup<'_>,
    ops: Vec<Op>,
    check: &Check,
    v: Violation,
) -> (Vec<Op>, Violation) {
    let mut ops = ops;
    ops.truncate(v.step);
    let mut best = v;
    let mut budget = 3000u32;
    let attempt = |candidate: &[Op], budget: &mut u32| -> Option<Violation> {
        if *budget == 0 {
            return None;
        }
        *budget -= 1;
        run(setup, candidate, check).err()
    };
    loop {
        let mut progress = false;
        let mut i = ops.len();
        while i > 0 {
            i -= 1;
            let mut candidate = ops.clone();
            candidate.remove(i);
            if let Some(v) = attempt(&candidate, &mut budget) {
                candidate.truncate(v.step);
                ops = candidate;
                best = v;
                progress = true;
                i = i.min(ops.len());
            }
        }
        for i in 0..ops.len() {
            loop {
                let mut candidate = ops.clone();
                let smaller = match &mut candidate[i] {
                    Op::Deliver { amount, .. } | Op::Take { amount, .. } if *amount > 1 => {
                        *amount /= 2;
                        true
                    }
                    _ => false,
                };
                if !smaller {
                    break;
                }
                match attempt(&candidate, &mut budget) {
                    Some(v) => {
                        candidate.truncate(v.step);
                        ops = candidate;
                        best = v;
                        progress = true;
                    }
                    None => break,
                }
                if i >= ops.len() {
                    break;
                }
            }
            if i + 1 >= ops.len() {
                break;
            }
        }
        if !progress || budget == 0 {
            break;
        }
    }
    (ops, best)
}
