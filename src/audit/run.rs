//! Sequences of requests: generated from a seed, run against a subject with
//! one test's checks after every step, shrunk when they fail, and written
//! out as a scenario file that replays them.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Value, json};

use super::Subject;
use super::model::{Model, show_slots};
use super::seed::Rng;
use crate::contents::{Contents, ForcedOut, SlotRules, Stack};
use crate::decimal::Decimal;
use crate::rules::{FillOrder, Rules, TypeRestriction, WhenForcedOut};

/// One request of a sequence: a scenario step (sequences use deliveries,
/// takes, resizes and owner-gone).
pub(crate) use crate::scenario::Step as Op;

/// A request as the step of a scenario file, for replays.
pub(crate) fn to_step(op: &Op) -> Value {
    match op {
        Op::Deliver { item, amount } => {
            json!({"op": "deliver", "item": item, "amount": amount})
        }
        Op::Take {
            item,
            amount,
            slot: None,
        } => {
            json!({"op": "take", "item": item, "amount": amount})
        }
        Op::Take {
            item,
            amount,
            slot: Some(s),
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
            Op::Deliver { item, amount }
        } else if roll < p.weights[0] + p.weights[1] {
            let slot = (rules.has_slots() && rng.chance(p.take_slot)).then(|| {
                if rules.has_slot_limit() {
                    rng.range(0, slots)
                } else {
                    rng.range(0, 3)
                }
            });
            Op::Take { item, amount, slot }
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

fn snapshot(c: &Contents) -> Snapshot {
    Snapshot {
        slots: c.slots().map(|s| s.cloned()).collect(),
        holdings: c
            .holdings()
            .map(|(k, n)| (k.as_str().to_string(), n))
            .collect(),
        size_used: c.size_used(),
        limits: c.limits(),
    }
}

fn totals(c: &Contents) -> BTreeMap<String, u64> {
    c.totals()
        .into_iter()
        .map(|(k, n)| (k.as_str().to_string(), n))
        .collect()
}

fn fail<T>(step: usize, message: String) -> Result<T, Violation> {
    Err(Violation { step, message })
}

/// Runs `ops` on a fresh subject with `check` after every step.
pub(crate) fn run(setup: &Setup<'_>, ops: &[Op], check: &Check) -> Result<Tally, Violation> {
    let mut subject = setup.fresh();
    let mut model = Model::new(setup.rules.clone(), setup.slot_rules.clone());
    let mut ledger: BTreeMap<String, u64> = BTreeMap::new();
    let mut tally = Tally::default();
    for (i, op) in ops.iter().enumerate() {
        let step = i + 1;
        let before = snapshot(subject.contents());
        let checks = step_checks(
            setup,
            &mut *subject,
            &mut model,
            &mut ledger,
            op,
            check,
            &before,
            step,
        )?;
        tally.steps += 1;
        tally.checks += checks;
        match check {
            Check::Capacity => invariants(setup, subject.contents(), None, step)?,
            Check::StackOrSize(row) => invariants(setup, subject.contents(), Some(row), step)?,
            _ => {}
        }
        if *check == Check::Capacity {
            let held = totals(subject.contents());
            if held != ledger {
                return Err(Violation {
                    step,
                    message: format!(
                        "the container holds {held:?} but its outcomes account for {ledger:?}: items were lost or made"
                    ),
                });
            }
        }
        model.adopt(subject.contents());
    }
    Ok(tally)
}

#[allow(clippy::too_many_arguments)]
fn step_checks(
    setup: &Setup<'_>,
    subject: &mut dyn Subject,
    model: &mut Model,
    ledger: &mut BTreeMap<String, u64>,
    op: &Op,
    check: &Check,
    before: &Snapshot,
    step: usize,
) -> Result<u64, Violation> {
    let rules = &setup.rules;
    let mut checks = 0;
    match op {
        Op::Deliver { item, amount } => {
            let d = subject.deliver(item, *amount);
            let m = model.deliver(item, *amount);
            let landed: Vec<(u32, u32)> = d.landed.iter().map(|l| (l.slot, l.amount)).collect();
            let refused = d.refused.as_ref().map(|r| (r.amount, r.reason));
            let leftover = d.leftover.as_ref().map(|l| (l.amount, l.to));
            let what = format!("deliver {amount} {item}");
            *ledger.entry(item.clone()).or_insert(0) += u64::from(d.accepted);
            ledger.retain(|_, n| *n > 0);
            match check {
                Check::Capacity => {
                    let parts = u64::from(d.accepted)
                        + refused.map_or(0, |r| u64::from(r.0))
                        + leftover.map_or(0, |l| u64::from(l.0));
                    if parts != u64::from(*amount) {
                        return fail(
                            step,
                            format!(
                                "{what}: accepted {} + refused {:?} + leftover {:?} is not the {amount} offered",
                                d.accepted, refused, leftover
                            ),
                        );
                    }
                    if rules.has_slots()
                        && landed.iter().map(|l| u64::from(l.1)).sum::<u64>()
                            != u64::from(d.accepted)
                    {
                        return fail(
                            step,
                            format!(
                                "{what}: landed {landed:?} does not add up to the {} accepted",
                                d.accepted
                            ),
                        );
                    }
                    checks += 1;
                }
                Check::FillOrder if m.accepted > 0 || d.accepted > 0 => {
                    if landed != m.landed {
                        return fail(
                            step,
                            format!(
                                "{what}: landed {landed:?} but fill-order {} puts it at {:?}",
                                rules.fill, m.landed
                            ),
                        );
                    }
                    checks += 1;
                }
                Check::Partial if m.accepted < *amount || d.accepted < *amount => {
                    if (d.accepted, refused, leftover.map(|l| l.0))
                        != (m.accepted, m.refused, m.leftover.map(|l| l.0))
                    {
                        return fail(
                            step,
                            format!(
                                "{what} (not all fits): accepted {}, refused {refused:?}, leftover {:?}; partial-acceptance {} says accepted {}, refused {:?}, leftover {:?}",
                                d.accepted,
                                leftover.map(|l| l.0),
                                rules.partial,
                                m.accepted,
                                m.refused,
                                m.leftover.map(|l| l.0)
                            ),
                        );
                    }
                    if d.refused.is_some()
                        && refused.is_some_and(|r| r.0 == *amount)
                        && snapshot(subject.contents()) != *before
                    {
                        return fail(
                            step,
                            format!("{what}: refused intact, yet the contents changed"),
                        );
                    }
                    checks += 1;
                }
                Check::Leftover => {
                    if leftover != m.leftover {
                        let to = rules.leftover.map_or("none".to_string(), |l| l.to_string());
                        return fail(
                            step,
                            format!(
                                "{what}: leftover {leftover:?}; leftover-destination {to} says {:?}",
                                m.leftover
                            ),
                        );
                    }
                    if m.leftover.is_some() {
                        checks += 1;
                    }
                }
                Check::Entry => {
                    let entry = |r: Option<(u32, crate::contents::Reason)>| {
                        r.filter(|r| is_entry_reason(r.1))
                    };
                    if entry(refused) != entry(m.refused) {
                        return fail(
                            step,
                            format!(
                                "{what}: refused {refused:?}; type-restriction {} says {:?}",
                                rules.restriction,
                                entry(m.refused)
                            ),
                        );
                    }
                    if entry(refused).is_some() && snapshot(subject.contents()) != *before {
                        return fail(
                            step,
                            format!("{what}: refused at entry, yet the contents changed"),
                        );
                    }
                    if rules.restriction == TypeRestriction::BySlot {
                        for &(slot, _) in &landed {
                            if !setup
                                .slot_rules
                                .as_ref()
                                .is_some_and(|sr| sr.accepts(slot, item))
                            {
                                return fail(
                                    step,
                                    format!(
                                        "{what}: landed in slot {slot}, whose slot rule does not accept {item}"
                                    ),
                                );
                            }
                        }
                    }
                    checks += 1;
                }
                Check::StackOrSize(row) if row == item => {
                    if (d.accepted, landed.clone()) != (m.accepted, m.landed.clone()) {
                        return fail(
                            step,
                            format!(
                                "{what}: accepted {} at {landed:?}; the stack limit and sizes allow {} at {:?}",
                                d.accepted, m.accepted, m.landed
                            ),
                        );
                    }
                    checks += 1;
                }
                _ => {}
            }
        }
        Op::Take { item, amount, slot } => {
            let t = subject.take(item, *amount, *slot);
            let m = model.take(item, *amount, *slot);
            let from: Vec<(u32, u32)> = t.from.iter().map(|l| (l.slot, l.amount)).collect();
            let what = match slot {
                Some(s) => format!("take {amount} {item} from slot {s}"),
                None => format!("take {amount} {item}"),
            };
            if let Some(n) = ledger.get_mut(item.as_str()) {
                *n = n.saturating_sub(u64::from(t.taken));
            }
            ledger.retain(|_, n| *n > 0);
            match check {
                Check::Capacity => {
                    if u64::from(t.taken) + u64::from(t.shortfall) != u64::from(*amount)
                        || from.iter().map(|f| u64::from(f.1)).sum::<u64>() != u64::from(t.taken)
                            && rules.has_slots()
                    {
                        return fail(
                            step,
                            format!(
                                "{what}: taken {} + shortfall {} from {from:?} does not add up",
                                t.taken, t.shortfall
                            ),
                        );
                    }
                    checks += 1;
                }
                Check::Draw
                    if slot.is_none() && (m.taken > 0 || t.taken > 0 || m.refused.is_some()) =>
                {
                    if (from.clone(), t.refused) != (m.from.clone(), m.refused) {
                        return fail(
                            step,
                            format!(
                                "{what}: drew {from:?} (refused {:?}); draw-order {} draws {:?} (refused {:?})",
                                t.refused, rules.draw, m.from, m.refused
                            ),
                        );
                    }
                    checks += 1;
                }
                Check::Shortfall => {
                    if (t.taken, t.shortfall, t.refused) != (m.taken, m.shortfall, m.refused)
                        || u64::from(t.taken) + u64::from(t.shortfall) != u64::from(*amount)
                    {
                        return fail(
                            step,
                            format!(
                                "{what}: taken {}, shortfall {} (refused {:?}); the contents give taken {}, shortfall {} (refused {:?})",
                                t.taken, t.shortfall, t.refused, m.taken, m.shortfall, m.refused
                            ),
                        );
                    }
                    if let Some(s) = slot
                        && from.iter().any(|f| f.0 != *s)
                    {
                        return fail(
                            step,
                            format!("{what}: drew from {from:?}, not only slot {s}"),
                        );
                    }
                    checks += 1;
                }
                _ => {}
            }
        }
        Op::Resize { .. } | Op::OwnerGone => {
            let f = match op {
                Op::Resize {
                    slot_count,
                    size_budget,
                } => subject.resize(*slot_count, *size_budget),
                _ => subject.owner_gone(),
            };
            checks += forced(
                setup,
                subject.contents(),
                ledger,
                &f,
                check,
                before,
                step,
                op,
            )?;
        }
        // sequences never sort or move
        Op::Sort { .. } | Op::Move { .. } => {}
    }
    Ok(checks)
}

fn is_entry_reason(r: crate::contents::Reason) -> bool {
    use crate::contents::Reason::*;
    matches!(
        r,
        TypeRestriction | NoSize | SlotRules | NoReservedSlot | NoSlotRules
    )
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
            .find(|r| r.id == k.as_str())
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

/// Checks after a forced removal (resize or owner gone).
#[allow(clippy::too_many_arguments)]
fn forced(
    setup: &Setup<'_>,
    c: &Contents,
    ledger: &mut BTreeMap<String, u64>,
    f: &ForcedOut,
    check: &Check,
    before: &Snapshot,
    step: usize,
    op: &Op,
) -> Result<u64, Violation> {
    let what = match op {
        Op::OwnerGone => "owner gone".to_string(),
        _ => format!("{}", to_step(op)),
    };
    for p in &f.portions {
        if let Some(n) = ledger.get_mut(p.item.as_str()) {
            *n = n.saturating_sub(u64::from(p.amount));
        }
    }
    ledger.retain(|_, n| *n > 0);
    if f.refused.is_some() {
        if !f.portions.is_empty() || snapshot(c) != *before {
            return fail(
                step,
                format!("{what}: refused, yet items left or the contents changed"),
            );
        }
        if let Check::ForcedOut(_) = check
            && fits_without_movable(setup, before, op)
        {
            return fail(
                step,
                format!(
                    "{what}: refused as too few can leave, yet removing every movable type would fit"
                ),
            );
        }
        return Ok(1);
    }
    match check {
        Check::Capacity => {
            if let Op::Resize {
                slot_count,
                size_budget,
            } = op
            {
                let l = c.limits();
                if slot_count.is_some_and(|n| n != l.slot_count)
                    || size_budget.is_some_and(|b| b != l.size_budget)
                {
                    return fail(
                        step,
                        format!("{what}: accepted, but the limits are now {l:?}"),
                    );
                }
            }
            if *op == Op::OwnerGone && !c.is_empty() {
                return fail(step, format!("{what}: accepted, but items stayed"));
            }
            Ok(1)
        }
        Check::ForcedOut(_) => forced_out_holds(setup, c, f, before, step, op, &what).map(|_| 1),
        _ => Ok(0),
    }
}

/// Whether the contents before `op` would fit its new limits with every
/// movable type gone.
fn fits_without_movable(setup: &Setup<'_>, before: &Snapshot, op: &Op) -> bool {
    let rules = &setup.rules;
    let movable = |item: &str| {
        rules
            .rows
            .iter()
            .any(|r| r.id == item && r.when_forced_out != WhenForcedOut::Never)
    };
    let (slots, budget) = match op {
        Op::Resize {
            slot_count,
            size_budget,
        } => (
            slot_count.unwrap_or(before.limits.slot_count),
            size_budget.unwrap_or(before.limits.size_budget).micros(),
        ),
        _ => (0, 0),
    };
    let stays: Vec<(&str, u32)> = before
        .slots
        .iter()
        .enumerate()
        .filter_map(|(k, s)| s.as_ref().map(|s| (s.item.as_str(), k as u32)))
        .filter(|(item, _)| !movable(item))
        .collect();
    let size = |item: &str| {
        rules
            .rows
            .iter()
            .find(|r| r.id == item)
            .map_or(0, |r| r.size.micros())
    };
    let mut used: u128 = before
        .slots
        .iter()
        .flatten()
        .filter(|s| !movable(s.item.as_str()))
        .map(|s| u128::from(s.amount) * size(s.item.as_str()))
        .sum();
    used += before
        .holdings
        .iter()
        .filter(|(k, _)| !movable(k))
        .map(|(k, n)| u128::from(*n) * size(k))
        .sum::<u128>();
    let slot_ok = !rules.has_slot_limit() || placeable(setup, &stays, slots);
    let budget_ok = !rules.has_budget() || used <= budget;
    let gone_ok = *op != Op::OwnerGone
        || (stays.is_empty() && before.holdings.iter().all(|(k, _)| movable(k)));
    slot_ok && budget_ok && gone_ok
}

/// Section 6, stated independently: who leaves, in which order, to where,
/// only what is needed, and where the kept stacks end up.
fn forced_out_holds(
    setup: &Setup<'_>,
    c: &Contents,
    f: &ForcedOut,
    before: &Snapshot,
    step: usize,
    op: &Op,
    what: &str,
) -> Result<(), Violation> {
    let rules = &setup.rules;
    let row = |item: &str| rules.rows.iter().find(|r| r.id == item);
    // destinations and movability
    for p in &f.portions {
        let Some(r) = row(p.item.as_str()) else {
            return fail(
                step,
                format!("{what}: {} left, but unlisted types never leave", p.item),
            );
        };
        if r.when_forced_out == WhenForcedOut::Never {
            return fail(
                step,
                format!("{what}: {} left, but its row says never", p.item),
            );
        }
        if p.to != r.when_forced_out {
            return fail(
                step,
                format!(
                    "{what}: {} went {}, its row says {}",
                    p.item, p.to, r.when_forced_out
                ),
            );
        }
    }
    // order: types by forced-out-order (then row), within a type last slot first
    let key = |item: &str| {
        row(item).map_or((i64::MAX, usize::MAX), |r| {
            (r.forced_out_order.unwrap_or(i64::MAX), r.row)
        })
    };
    for w in f.portions.windows(2) {
        let (a, b) = (&w[0], &w[1]);
        if key(a.item.as_str()) > key(b.item.as_str()) {
            return fail(
                step,
                format!(
                    "{what}: {} left before {}, against forced-out-order",
                    a.item, b.item
                ),
            );
        }
        if a.item == b.item
            && let (Some(x), Some(y)) = (a.slot, b.slot)
            && x <= y
        {
            return fail(
                step,
                format!(
                    "{what}: {} left slot {x} before slot {y}; the last slot goes first",
                    a.item
                ),
            );
        }
    }
    // the state the portions leave, kept stacks in place or moved in order
    let mut kept = before.slots.clone();
    let mut holdings: BTreeMap<String, u32> = before.holdings.iter().cloned().collect();
    for p in &f.portions {
        match p.slot {
            Some(s) => {
                let Some(Some(st)) = kept.get_mut(s as usize) else {
                    return fail(
                        step,
                        format!("{what}: {} left slot {s}, which was empty", p.item),
                    );
                };
                if st.item != p.item || st.amount < p.amount {
                    return fail(
                        step,
                        format!(
                            "{what}: {} {} left slot {s}, which held {} {}",
                            p.amount, p.item, st.amount, st.item
                        ),
                    );
                }
                st.amount -= p.amount;
                if st.amount == 0 {
                    kept[s as usize] = None;
                }
            }
            None => {
                let held = holdings.entry(p.item.as_str().to_string()).or_insert(0);
                if *held < p.amount {
                    return fail(
                        step,
                        format!(
                            "{what}: {} {} left, but only {held} were held",
                            p.amount, p.item
                        ),
                    );
                }
                *held -= p.amount;
            }
        }
    }
    holdings.retain(|_, n| *n > 0);
    let new_len = c.limits().slot_count as usize;
    let expected: Vec<Option<(String, u32)>> = if rules.has_slot_limit() {
        let mut out: Vec<Option<(String, u32)>> = vec![None; new_len];
        let mut movers = Vec::new();
        for (i, s) in kept.iter().enumerate() {
            if let Some(s) = s {
                if i < new_len && accepts(setup, i as u32, s.item.as_str()) {
                    out[i] = Some((s.item.as_str().to_string(), s.amount));
                } else {
                    movers.push((s.item.as_str().to_string(), s.amount));
                }
            }
        }
        for (item, amount) in movers {
            let free = (0..new_len).find(|&k| out[k].is_none() && accepts(setup, k as u32, &item));
            match free {
                Some(k) => out[k] = Some((item, amount)),
                None => {
                    return fail(
                        step,
                        format!("{what}: accepted, but {amount} {item} kept has no free slot left"),
                    );
                }
            }
        }
        out
    } else {
        let mut out: Vec<Option<(String, u32)>> = kept
            .iter()
            .map(|s| s.as_ref().map(|s| (s.item.as_str().to_string(), s.amount)))
            .collect();
        while out.last().is_some_and(Option::is_none) {
            out.pop();
        }
        out
    };
    let actual: Vec<Option<(String, u32)>> = c
        .slots()
        .map(|s| s.map(|s| (s.item.as_str().to_string(), s.amount)))
        .collect();
    if actual != expected {
        let show = |v: &[Option<(String, u32)>]| {
            show_slots(
                &v.iter()
                    .map(|s| s.as_ref().map(|(a, n)| (a.as_str(), *n)))
                    .collect::<Vec<_>>(),
            )
        };
        return fail(
            step,
            format!(
                "{what}: the slots are {} where the kept stacks belong at {}",
                show(&actual),
                show(&expected)
            ),
        );
    }
    let actual_h: BTreeMap<String, u32> = c
        .holdings()
        .map(|(k, n)| (k.as_str().to_string(), n))
        .collect();
    if actual_h != holdings {
        return fail(
            step,
            format!("{what}: holdings are {actual_h:?} where {holdings:?} are kept"),
        );
    }
    // only what is needed: one item fewer out of the last portion would not fit
    if *op != Op::OwnerGone
        && let Some(last) = f.portions.last()
    {
        let size = row(last.item.as_str()).map_or(0, |r| r.size.micros());
        let whole = last.slot.is_some_and(|s| {
            before
                .slots
                .get(s as usize)
                .and_then(Option::as_ref)
                .is_some_and(|st| {
                    let out_of_slot: u32 = f
                        .portions
                        .iter()
                        .filter(|p| p.slot == Some(s))
                        .map(|p| p.amount)
                        .sum();
                    st.amount == out_of_slot
                })
        });
        let used = c.size_used().micros() + size;
        let over_budget = rules.has_budget() && used > c.limits().size_budget.micros();
        let over_slots =
            rules.has_slot_limit() && whole && !has_room(setup, c, last.item.as_str(), last.slot);
        if !over_slots && !over_budget {
            let from = last
                .slot
                .map_or(String::new(), |s| format!(" from slot {s}"));
            return fail(
                step,
                format!(
                    "{what}: {} {} left{from}, but one fewer would still fit: more left than needed",
                    last.amount, last.item
                ),
            );
        }
    }
    Ok(())
}

/// Whether slot `k` accepts `item`: its reserved slot under fill-order
/// `not-applicable`, the slot rules under `by-slot`, any slot otherwise.
fn accepts(setup: &Setup<'_>, k: u32, item: &str) -> bool {
    let rules = &setup.rules;
    if rules.fill == FillOrder::NotApplicable
        && rules.rows.iter().position(|r| r.id == item) != Some(k as usize)
    {
        return false;
    }
    rules.restriction != TypeRestriction::BySlot
        || setup
            .slot_rules
            .as_ref()
            .is_some_and(|sr| sr.accepts(k, item))
}

/// Whether stacks (type, old slot), in old-slot order, can each sit in a
/// slot below `len`: kept in place where it accepts them, else the first
/// free slot that does.
fn placeable(setup: &Setup<'_>, stacks: &[(&str, u32)], len: u32) -> bool {
    let mut taken = vec![false; len as usize];
    let mut movers = Vec::new();
    for &(item, old) in stacks {
        if old < len && accepts(setup, old, item) {
            taken[old as usize] = true;
        } else {
            movers.push(item);
        }
    }
    movers.into_iter().all(|item| {
        match (0..len).find(|&k| !taken[k as usize] && accepts(setup, k, item)) {
            Some(k) => {
                taken[k as usize] = true;
                true
            }
            None => false,
        }
    })
}

/// Whether a stack of `item` could still sit in the contents after a
/// forced removal: in its old slot, or a free slot that accepts it.
fn has_room(setup: &Setup<'_>, c: &Contents, item: &str, old: Option<u32>) -> bool {
    let accepts = |k: u32| accepts(setup, k, item);
    let free: Vec<u32> = c
        .slots()
        .enumerate()
        .filter(|(_, s)| s.is_none())
        .map(|(k, _)| k as u32)
        .collect();
    old.is_some_and(|o| free.contains(&o) && accepts(o)) || free.iter().any(|&k| accepts(k))
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
