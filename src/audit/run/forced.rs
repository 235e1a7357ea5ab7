//! The checks of a forced removal (a resize or a gone owner), one function
//! per check. forced-out-holds states the guide's [`guide::requests`](crate::guide::requests) independently: who
//! leaves, to where, in which order, where the kept stacks end up, and that
//! no more leaves than needed.

use std::collections::BTreeMap;

use crate::audit::model::show_slots;
use crate::contents::{Contents, ForcedOut, Stack};
use crate::rules::{FillOrder, Rules, TypeRestriction, TypeRule, WhenForcedOut};

use super::{At, Check, Ledger, Op, Setup, Snapshot, Violation, snapshot, to_step};

/// Slots as (type, amount), to compare and show.
type Shown = Vec<Option<(String, u32)>>;

/// What a removal's portions leave behind.
struct Stays {
    /// The slots as they were, less what left them.
    slots: Vec<Option<Stack>>,
    /// The holdings as they were, less what left them (no zeros).
    holdings: BTreeMap<String, u32>,
}

/// Books what left, then runs the test's checks of a forced removal's
/// outcome `f`: every test checks that a refusal changes nothing. Returns
/// how many checks ran.
pub(super) fn checks(
    at: &At<'_, '_>,
    c: &Contents,
    ledger: &mut Ledger,
    f: &ForcedOut,
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
        refusal_changes_nothing(at, c, f, &what)?;
        if let Check::ForcedOut(_) = at.check {
            refused_only_when_nothing_movable_would_fit(at, op, &what)?;
        }
        return Ok(1);
    }
    match at.check {
        Check::Capacity => accepted_removal_takes_effect(at, c, op, &what).map(|()| 1),
        Check::ForcedOut(_) => forced_out_holds(at, c, f, op, &what).map(|()| 1),
        _ => Ok(0),
    }
}

/// Every test: a refused removal moves nothing out and leaves the contents
/// as they were.
fn refusal_changes_nothing(
    at: &At<'_, '_>,
    c: &Contents,
    f: &ForcedOut,
    what: &str,
) -> Result<(), Violation> {
    if !f.portions.is_empty() || snapshot(c) != *at.before {
        return at.fail(format!(
            "{what}: refused, yet items left or the contents changed"
        ));
    }
    Ok(())
}

/// forced-out-holds: a removal is refused (too few can leave) only when
/// the contents would not fit even with every movable type gone.
fn refused_only_when_nothing_movable_would_fit(
    at: &At<'_, '_>,
    op: &Op,
    what: &str,
) -> Result<(), Violation> {
    if fits_without_movable(at.setup, at.before, op) {
        return at.fail(format!(
            "{what}: refused as too few can leave, yet removing every movable type would fit"
        ));
    }
    Ok(())
}

/// capacity-holds: an accepted resize sets the limits it asked for, and an
/// accepted owner-gone empties the container.
fn accepted_removal_takes_effect(
    at: &At<'_, '_>,
    c: &Contents,
    op: &Op,
    what: &str,
) -> Result<(), Violation> {
    if let Op::Resize {
        slot_count,
        size_budget,
    } = op
    {
        let l = c.limits();
        if slot_count.is_some_and(|n| n != l.slot_count)
            || size_budget.is_some_and(|b| b != l.size_budget)
        {
            return at.fail(format!("{what}: accepted, but the limits are now {l:?}"));
        }
    }
    if *op == Op::OwnerGone && !c.is_empty() {
        return at.fail(format!("{what}: accepted, but items stayed"));
    }
    Ok(())
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
    let size = |item: &str| row_of(rules, item).map_or(0, |r| r.size.micros());
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

/// The row of `item`, by a plain scan (the audit does not use the
/// engine's index).
fn row_of<'r>(rules: &'r Rules, item: &str) -> Option<&'r TypeRule> {
    rules.rows.iter().find(|r| r.id == item)
}

/// forced-out-holds, every check in turn.
fn forced_out_holds(
    at: &At<'_, '_>,
    c: &Contents,
    f: &ForcedOut,
    op: &Op,
    what: &str,
) -> Result<(), Violation> {
    portions_leave_as_their_rows_say(at, f, what)?;
    portions_leave_in_forced_out_order(at, f, what)?;
    let stays = what_stays(at, f, what)?;
    kept_stacks_are_where_they_belong(at, c, &stays.slots, what)?;
    holdings_are_what_stays(at, c, &stays.holdings, what)?;
    if *op != Op::OwnerGone {
        no_more_leaves_than_needed(at, c, f, what)?;
    }
    Ok(())
}

/// Only listed, movable types leave, each to where its row says.
fn portions_leave_as_their_rows_say(
    at: &At<'_, '_>,
    f: &ForcedOut,
    what: &str,
) -> Result<(), Violation> {
    for p in &f.portions {
        let Some(r) = row_of(&at.setup.rules, p.item.as_str()) else {
            return at.fail(format!(
                "{what}: {} left, but unlisted types never leave",
                p.item
            ));
        };
        if r.when_forced_out == WhenForcedOut::Never {
            return at.fail(format!("{what}: {} left, but its row says never", p.item));
        }
        if p.to != r.when_forced_out {
            return at.fail(format!(
                "{what}: {} went {}, its row says {}",
                p.item, p.to, r.when_forced_out
            ));
        }
    }
    Ok(())
}

/// Types leave by forced-out-order (then row order), and within a type the
/// last slot goes first.
fn portions_leave_in_forced_out_order(
    at: &At<'_, '_>,
    f: &ForcedOut,
    what: &str,
) -> Result<(), Violation> {
    let key = |item: &str| {
        row_of(&at.setup.rules, item).map_or((i64::MAX, usize::MAX), |r| {
            (r.forced_out_order.unwrap_or(i64::MAX), r.row)
        })
    };
    for w in f.portions.windows(2) {
        let (a, b) = (&w[0], &w[1]);
        if key(a.item.as_str()) > key(b.item.as_str()) {
            return at.fail(format!(
                "{what}: {} left before {}, against forced-out-order",
                a.item, b.item
            ));
        }
        if a.item == b.item
            && let (Some(x), Some(y)) = (a.slot, b.slot)
            && x <= y
        {
            return at.fail(format!(
                "{what}: {} left slot {x} before slot {y}; the last slot goes first",
                a.item
            ));
        }
    }
    Ok(())
}

/// The slots and holdings the portions leave behind, each portion checked
/// against what it left from.
fn what_stays(at: &At<'_, '_>, f: &ForcedOut, what: &str) -> Result<Stays, Violation> {
    let mut kept = at.before.slots.clone();
    let mut holdings: BTreeMap<String, u32> = at.before.holdings.iter().cloned().collect();
    for p in &f.portions {
        match p.slot {
            Some(s) => {
                let Some(Some(st)) = kept.get_mut(s as usize) else {
                    return at.fail(format!("{what}: {} left slot {s}, which was empty", p.item));
                };
                if st.item != p.item || st.amount < p.amount {
                    return at.fail(format!(
                        "{what}: {} {} left slot {s}, which held {} {}",
                        p.amount, p.item, st.amount, st.item
                    ));
                }
                st.amount -= p.amount;
                if st.amount == 0 {
                    kept[s as usize] = None;
                }
            }
            None => {
                let held = holdings.entry(p.item.as_str().to_string()).or_insert(0);
                if *held < p.amount {
                    return at.fail(format!(
                        "{what}: {} {} left, but only {held} were held",
                        p.amount, p.item
                    ));
                }
                *held -= p.amount;
            }
        }
    }
    holdings.retain(|_, n| *n > 0);
    Ok(Stays {
        slots: kept,
        holdings,
    })
}

/// The slots after the removal hold the kept stacks where they belong.
fn kept_stacks_are_where_they_belong(
    at: &At<'_, '_>,
    c: &Contents,
    kept: &[Option<Stack>],
    what: &str,
) -> Result<(), Violation> {
    let expected = where_kept_stacks_belong(at, c, kept, what)?;
    let actual: Shown = c
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
        return at.fail(format!(
            "{what}: the slots are {} where the kept stacks belong at {}",
            show(&actual),
            show(&expected)
        ));
    }
    Ok(())
}

/// Where the kept stacks belong. With a slot limit: in place where the
/// slot remains and accepts them, else moved, in slot order, to the first
/// free slot that does (a violation when there is none). Without one: in
/// place, trailing empty slots dropped.
fn where_kept_stacks_belong(
    at: &At<'_, '_>,
    c: &Contents,
    kept: &[Option<Stack>],
    what: &str,
) -> Result<Shown, Violation> {
    let setup = at.setup;
    if !setup.rules.has_slot_limit() {
        let mut out: Shown = kept
            .iter()
            .map(|s| s.as_ref().map(|s| (s.item.as_str().to_string(), s.amount)))
            .collect();
        while out.last().is_some_and(Option::is_none) {
            out.pop();
        }
        return Ok(out);
    }
    let new_len = c.limits().slot_count as usize;
    let mut out: Shown = vec![None; new_len];
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
                return at.fail(format!(
                    "{what}: accepted, but {amount} {item} kept has no free slot left"
                ));
            }
        }
    }
    Ok(out)
}

/// The holdings after the removal are what the portions left.
fn holdings_are_what_stays(
    at: &At<'_, '_>,
    c: &Contents,
    holdings: &BTreeMap<String, u32>,
    what: &str,
) -> Result<(), Violation> {
    let actual_h: BTreeMap<String, u32> = c.holdings().map(|(k, n)| (k.to_string(), n)).collect();
    if actual_h != *holdings {
        return at.fail(format!(
            "{what}: holdings are {actual_h:?} where {holdings:?} are kept"
        ));
    }
    Ok(())
}

/// Only what is needed leaves (resizes): one item fewer out of the last
/// portion would not fit.
fn no_more_leaves_than_needed(
    at: &At<'_, '_>,
    c: &Contents,
    f: &ForcedOut,
    what: &str,
) -> Result<(), Violation> {
    let Some(last) = f.portions.last() else {
        return Ok(());
    };
    let (setup, rules) = (at.setup, &at.setup.rules);
    let size = row_of(rules, last.item.as_str()).map_or(0, |r| r.size.micros());
    let whole = last.slot.is_some_and(|s| {
        at.before
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
        return at.fail(format!(
            "{what}: {} {} left{from}, but one fewer would still fit: more left than needed",
            last.amount, last.item
        ));
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
