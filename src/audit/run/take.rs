//! The checks of a take's outcome, one per test that looks at takes. Each
//! compares the subject's outcome with what the rules say (the reference
//! model's outcome) or with a property stated from the spec.

use crate::audit::Subject;
use crate::audit::model::{Draw, Model};
use crate::contents::Taken;

use super::{At, Check, Ledger, Violation};

/// A take as the subject and the model settled it.
struct Settled {
    /// How many were asked for.
    amount: u32,
    /// The slot the take named, if any.
    slot: Option<u32>,
    /// The request, for messages (`take 5 berries from slot 2`).
    what: String,
    /// The subject's outcome.
    t: Taken,
    /// What the rules say: the model's outcome.
    m: Draw,
    /// Where the subject drew from, as (slot, amount).
    from: Vec<(u32, u32)>,
}

/// Takes `amount` of `item` (from `slot`, when given) from the subject and
/// the model, books what was taken, and runs the test's check of the
/// outcome. Returns how many checks ran.
pub(super) fn checks(
    at: &At<'_, '_>,
    subject: &mut dyn Subject,
    model: &mut Model,
    ledger: &mut Ledger,
    item: &str,
    amount: u32,
    slot: Option<u32>,
) -> Result<u64, Violation> {
    let t = subject.take(item, amount, slot);
    let m = model.take(item, amount, slot);
    if let Some(n) = ledger.get_mut(item) {
        *n = n.saturating_sub(u64::from(t.taken));
    }
    ledger.retain(|_, n| *n > 0);
    let s = Settled {
        amount,
        slot,
        what: match slot {
            Some(s) => format!("take {amount} {item} from slot {s}"),
            None => format!("take {amount} {item}"),
        },
        from: t.from.iter().map(|l| (l.slot, l.amount)).collect(),
        t,
        m,
    };
    match at.check {
        Check::Capacity => take_adds_up(at, &s),
        Check::Draw
            if slot.is_none() && (s.m.taken > 0 || s.t.taken > 0 || s.m.refused.is_some()) =>
        {
            draws_in_draw_order(at, &s)
        }
        Check::Shortfall => gives_what_the_contents_hold(at, &s),
        _ => Ok(0),
    }
}

/// capacity-holds: taken and shortfall add up to the amount asked, and
/// (with slots) what was drawn from the slots to the amount taken.
fn take_adds_up(at: &At<'_, '_>, s: &Settled) -> Result<u64, Violation> {
    let Settled {
        amount,
        what,
        t,
        from,
        ..
    } = s;
    if u64::from(t.taken) + u64::from(t.shortfall) != u64::from(*amount)
        || (from.iter().map(|f| u64::from(f.1)).sum::<u64>() != u64::from(t.taken)
            && at.setup.rules.has_slots())
    {
        return at.fail(format!(
            "{what}: taken {} + shortfall {} from {from:?} does not add up",
            t.taken, t.shortfall
        ));
    }
    Ok(1)
}

/// draw-order-holds (takes that name no slot, when anything is or should
/// be drawn or refused): the take draws from the slots, and is refused,
/// as the draw order says.
fn draws_in_draw_order(at: &At<'_, '_>, s: &Settled) -> Result<u64, Violation> {
    let Settled {
        what, t, m, from, ..
    } = s;
    if (from, t.refused) != (&m.from, m.refused) {
        return at.fail(format!(
            "{what}: drew {from:?} (refused {:?}); draw-order {} draws {:?} (refused {:?})",
            t.refused, at.setup.rules.draw, m.from, m.refused
        ));
    }
    Ok(1)
}

/// take-shortfall-holds: taken, shortfall and refusal are what the
/// contents give, they add up to the amount asked, and a take that names
/// a slot draws from that slot only.
fn gives_what_the_contents_hold(at: &At<'_, '_>, s: &Settled) -> Result<u64, Violation> {
    let Settled {
        amount,
        slot,
        what,
        t,
        m,
        from,
    } = s;
    if (t.taken, t.shortfall, t.refused) != (m.taken, m.shortfall, m.refused)
        || u64::from(t.taken) + u64::from(t.shortfall) != u64::from(*amount)
    {
        return at.fail(format!(
            "{what}: taken {}, shortfall {} (refused {:?}); the contents give taken {}, shortfall {} (refused {:?})",
            t.taken, t.shortfall, t.refused, m.taken, m.shortfall, m.refused
        ));
    }
    if let Some(s) = slot
        && from.iter().any(|f| f.0 != *s)
    {
        return at.fail(format!("{what}: drew from {from:?}, not only slot {s}"));
    }
    Ok(1)
}
