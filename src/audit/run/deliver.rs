//! The checks of a delivery's outcome, one per test that looks at
//! deliveries. Each compares the subject's outcome with what the rules say
//! (the reference model's outcome) or with a property stated from the spec.

use crate::audit::Subject;
use crate::audit::model::{Delivery, Model};
use crate::contents::{Contents, Delivered, Reason};
use crate::rules::{LeftoverDestination, TypeRestriction};

use super::{At, Check, Ledger, Violation, snapshot};

/// A delivery as the subject and the model settled it.
struct Settled<'a> {
    /// The type delivered.
    item: &'a str,
    /// How many were offered.
    amount: u32,
    /// The request, for messages (`deliver 5 berries`).
    what: String,
    /// The subject's outcome.
    d: Delivered,
    /// What the rules say: the model's outcome.
    m: Delivery,
    /// The subject's landings, as (slot, amount).
    landed: Vec<(u32, u32)>,
    /// The subject's refusal, as (amount, reason).
    refused: Option<(u32, Reason)>,
    /// The subject's leftover, as (amount, destination).
    leftover: Option<(u32, LeftoverDestination)>,
}

/// Delivers `amount` of `item` to the subject and the model, books what
/// was accepted, and runs the test's check of the outcome. Returns how many
/// checks ran.
pub(super) fn checks(
    at: &At<'_, '_>,
    subject: &mut dyn Subject,
    model: &mut Model,
    ledger: &mut Ledger,
    item: &str,
    amount: u32,
) -> Result<u64, Violation> {
    let d = subject.deliver(item, amount);
    let m = model.deliver(item, amount);
    *ledger.entry(item.to_string()).or_insert(0) += u64::from(d.accepted);
    ledger.retain(|_, n| *n > 0);
    let s = Settled {
        item,
        amount,
        what: format!("deliver {amount} {item}"),
        landed: d.landed.iter().map(|l| (l.slot, l.amount)).collect(),
        refused: d.refused.as_ref().map(|r| (r.amount, r.reason)),
        leftover: d.leftover.as_ref().map(|l| (l.amount, l.to)),
        d,
        m,
    };
    let after = subject.contents();
    match at.check {
        Check::Capacity => delivery_adds_up(at, &s),
        Check::FillOrder if s.m.accepted > 0 || s.d.accepted > 0 => lands_in_fill_order(at, &s),
        Check::Partial if s.m.accepted < amount || s.d.accepted < amount => {
            settles_as_partial_acceptance_says(at, &s, after)
        }
        Check::Leftover => leftover_goes_where_destination_says(at, &s),
        Check::Entry => enters_as_type_restriction_says(at, &s, after),
        Check::StackOrSize(row) if row == item => stays_within_stack_limit_and_size(at, &s),
        _ => Ok(0),
    }
}

/// capacity-holds: accepted, refused and leftover add up to the amount
/// offered, and (with slots) the landings to the amount accepted.
fn delivery_adds_up(at: &At<'_, '_>, s: &Settled<'_>) -> Result<u64, Violation> {
    let Settled {
        amount,
        what,
        d,
        landed,
        refused,
        leftover,
        ..
    } = s;
    let parts = u64::from(d.accepted)
        + refused.map_or(0, |r| u64::from(r.0))
        + leftover.map_or(0, |l| u64::from(l.0));
    if parts != u64::from(*amount) {
        return at.fail(format!(
            "{what}: accepted {} + refused {:?} + leftover {:?} is not the {amount} offered",
            d.accepted, refused, leftover
        ));
    }
    if at.setup.rules.has_slots()
        && landed.iter().map(|l| u64::from(l.1)).sum::<u64>() != u64::from(d.accepted)
    {
        return at.fail(format!(
            "{what}: landed {landed:?} does not add up to the {} accepted",
            d.accepted
        ));
    }
    Ok(1)
}

/// fill-order-holds (when anything is accepted): the delivery lands where
/// the fill order puts it.
fn lands_in_fill_order(at: &At<'_, '_>, s: &Settled<'_>) -> Result<u64, Violation> {
    if s.landed != s.m.landed {
        return at.fail(format!(
            "{}: landed {:?} but fill-order {} puts it at {:?}",
            s.what, s.landed, at.setup.rules.fill, s.m.landed
        ));
    }
    Ok(1)
}

/// partial-acceptance-holds (when not all fits): accepted, refused and
/// leftover are as the partial-acceptance answer says, and a delivery
/// refused intact changes nothing.
fn settles_as_partial_acceptance_says(
    at: &At<'_, '_>,
    s: &Settled<'_>,
    after: &Contents,
) -> Result<u64, Violation> {
    let Settled {
        amount,
        what,
        d,
        m,
        refused,
        leftover,
        ..
    } = s;
    if (d.accepted, *refused, leftover.map(|l| l.0))
        != (m.accepted, m.refused, m.leftover.map(|l| l.0))
    {
        return at.fail(format!(
            "{what} (not all fits): accepted {}, refused {refused:?}, leftover {:?}; partial-acceptance {} says accepted {}, refused {:?}, leftover {:?}",
            d.accepted,
            leftover.map(|l| l.0),
            at.setup.rules.partial,
            m.accepted,
            m.refused,
            m.leftover.map(|l| l.0)
        ));
    }
    if d.refused.is_some()
        && refused.is_some_and(|r| r.0 == *amount)
        && snapshot(after) != *at.before
    {
        return at.fail(format!("{what}: refused intact, yet the contents changed"));
    }
    Ok(1)
}

/// leftover-destination-holds: a leftover goes where the
/// leftover-destination answer says (counted when there is one).
fn leftover_goes_where_destination_says(
    at: &At<'_, '_>,
    s: &Settled<'_>,
) -> Result<u64, Violation> {
    if s.leftover != s.m.leftover {
        let to = at
            .setup
            .rules
            .leftover
            .map_or("none".to_string(), |l| l.to_string());
        return at.fail(format!(
            "{}: leftover {:?}; leftover-destination {to} says {:?}",
            s.what, s.leftover, s.m.leftover
        ));
    }
    Ok(u64::from(s.m.leftover.is_some()))
}

/// type-restriction-holds: the delivery is refused at entry exactly when
/// the restriction says, a refusal at entry changes nothing, and under
/// `by-slot` every landing is in a slot whose rule accepts the type.
fn enters_as_type_restriction_says(
    at: &At<'_, '_>,
    s: &Settled<'_>,
    after: &Contents,
) -> Result<u64, Violation> {
    let rules = &at.setup.rules;
    let Settled {
        item,
        what,
        m,
        landed,
        refused,
        ..
    } = s;
    let entry = |r: Option<(u32, Reason)>| r.filter(|r| is_entry_reason(r.1));
    if entry(*refused) != entry(m.refused) {
        return at.fail(format!(
            "{what}: refused {refused:?}; type-restriction {} says {:?}",
            rules.restriction,
            entry(m.refused)
        ));
    }
    if entry(*refused).is_some() && snapshot(after) != *at.before {
        return at.fail(format!(
            "{what}: refused at entry, yet the contents changed"
        ));
    }
    if rules.restriction == TypeRestriction::BySlot {
        for &(slot, _) in landed {
            if !at
                .setup
                .slot_rules
                .as_ref()
                .is_some_and(|sr| sr.accepts(slot, item))
            {
                return at.fail(format!(
                    "{what}: landed in slot {slot}, whose slot rule does not accept {item}"
                ));
            }
        }
    }
    Ok(1)
}

/// Whether a refusal is at entry: the type may not enter at all (as
/// opposed to not fitting).
fn is_entry_reason(r: Reason) -> bool {
    use crate::contents::Reason::*;
    matches!(
        r,
        TypeRestriction | NoSize | SlotRules | NoReservedSlot | NoSlotRules
    )
}

/// stack-or-size-holds (deliveries of its row): the stack limit and sizes
/// allow exactly what was accepted, where it landed.
fn stays_within_stack_limit_and_size(at: &At<'_, '_>, s: &Settled<'_>) -> Result<u64, Violation> {
    if (s.d.accepted, &s.landed) != (s.m.accepted, &s.m.landed) {
        return at.fail(format!(
            "{}: accepted {} at {:?}; the stack limit and sizes allow {} at {:?}",
            s.what, s.d.accepted, s.landed, s.m.accepted, s.m.landed
        ));
    }
    Ok(1)
}
