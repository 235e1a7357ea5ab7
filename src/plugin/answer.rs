//! Answering one request on its container's engine: the outcome message
//! it builds ([`Answered`]) and what the outcome changed, to refresh the
//! container's mirror ([`Touches`]). Runs on whatever thread answers the
//! container; reporting and settling the outcome is the caller's.

use bevy::prelude::*;

use super::components::Mirror;
use super::messages::*;
use crate::contents::{Contents, Delivered, ForcedOut, Rearranged, Taken, Transferred};

/// A request of one container, answered: its outcome message, built on
/// whatever thread answered it. What it leaves to settle in the world (a
/// delivery's refusal or leftover, a forced removal's portions) is settled
/// when it is reported ([`Containers::report`]), in the order written. A
/// serial frame reports a delivery or a take without this wrapper.
#[derive(Debug)]
pub(super) enum Answered {
    Delivered(ItemsDelivered),
    Taken(ItemsTaken),
    Transferred(ItemsTransferred),
    Rearranged(ContainerRearranged),
    /// Boxed: rare, and larger than the others.
    ForcedOut(Box<ItemsForcedOut>),
    PropsChanged(PropsChanged),
}

/// A delivery answered on its container's engine `e`: its message, with
/// nothing settled yet, built in place. A frame answers the two common
/// requests with this and [`take_answered`] directly, keeping their
/// messages out of [`Answered`] (a copy each) where it can.
/// Plain items take the engine's plain delivery, which compares and
/// copies no properties.
#[inline]
pub(super) fn delivery_answered(d: &Deliver, e: &mut Contents) -> ItemsDelivered {
    let outcome = if d.props.is_empty() {
        e.deliver(d.item.as_str(), d.amount)
    } else {
        e.deliver_kind(d.item.as_str(), &d.props, d.amount)
    };
    ItemsDelivered::unsettled(d.container, d.sender, outcome)
}

/// A take answered on its container's engine `e`: its message.
#[inline]
pub(super) fn take_answered(t: &Take, e: &mut Contents) -> ItemsTaken {
    ItemsTaken {
        container: t.container,
        outcome: e.take_kind(t.item.as_str(), t.props.as_ref(), t.amount, t.slot),
    }
}

/// The container a request of one container names (for a transfer, its
/// source).
pub(super) fn one_container(r: &ContainerRequest) -> Entity {
    match r {
        ContainerRequest::Deliver(d) => d.container,
        ContainerRequest::PickUp(p) => p.container,
        ContainerRequest::Take(t) => t.container,
        ContainerRequest::Transfer(t) => t.from,
        ContainerRequest::Move(m) => m.container,
        ContainerRequest::Sort(s) => s.container,
        ContainerRequest::Resize(r) => r.container,
        ContainerRequest::EmptyForGoneOwner(o) => o.container,
        ContainerRequest::SetProps(p) => p.container,
    }
}

/// Runs `r` on its container's engine `e` and builds its outcome message:
/// the part of answering a request that touches only that container, so
/// requests to different containers can run it side by side. Deliveries
/// and takes are answered as [`delivery_answered`] and [`take_answered`]
/// do (the frame calls those directly). A transfer is answered as one
/// within its source, and a pickup as a take of nothing: neither is a
/// request of one container, and the plugin never sends them here.
pub(super) fn engine_step(r: &ContainerRequest, e: &mut Contents) -> Answered {
    let container = one_container(r);
    match r {
        ContainerRequest::Deliver(d) => Answered::Delivered(delivery_answered(d, e)),
        ContainerRequest::Take(t) => Answered::Taken(take_answered(t, e)),
        ContainerRequest::Transfer(t) => Answered::Transferred(ItemsTransferred {
            container,
            from: container,
            to: container,
            outcome: e.transfer_within(&t.request),
        }),
        ContainerRequest::Move(m) => Answered::Rearranged(ContainerRearranged {
            container,
            outcome: e.move_items(m.from, m.to, m.amount),
        }),
        ContainerRequest::Sort(s) => {
            let order: Vec<&str> = s.order.iter().map(|t| t.as_str()).collect();
            Answered::Rearranged(ContainerRearranged {
                container,
                outcome: e.sort(&order),
            })
        }
        ContainerRequest::Resize(r) => Answered::ForcedOut(Box::new(ItemsForcedOut::unsettled(
            container,
            e.resize(r.slot_count, r.size_budget),
        ))),
        ContainerRequest::EmptyForGoneOwner(_) => Answered::ForcedOut(Box::new(
            ItemsForcedOut::unsettled(container, e.owner_gone()),
        )),
        ContainerRequest::PickUp(_) => Answered::Taken(ItemsTaken {
            container,
            outcome: e.take_inner("", 0, None),
        }),
        ContainerRequest::SetProps(p) => Answered::PropsChanged(PropsChanged {
            container,
            outcome: e.set_props(p.at.clone(), p.amount, p.to.clone()),
        }),
    }
}

impl Touches for Answered {
    fn changed(&self) -> bool {
        match self {
            Answered::Delivered(m) => m.changed(),
            Answered::Taken(m) => m.changed(),
            Answered::Transferred(m) => m.changed(),
            Answered::Rearranged(m) => m.changed(),
            Answered::ForcedOut(m) => m.changed(),
            Answered::PropsChanged(m) => m.changed(),
        }
    }
    fn refresh(&self, mirror: &mut Mirror, e: &Contents) {
        match self {
            Answered::Delivered(m) => m.refresh(mirror, e),
            Answered::Taken(m) => m.refresh(mirror, e),
            Answered::Transferred(m) => m.refresh(mirror, e),
            Answered::Rearranged(m) => m.refresh(mirror, e),
            Answered::ForcedOut(m) => m.refresh(mirror, e),
            Answered::PropsChanged(m) => m.refresh(mirror, e),
        }
    }
}

/// What an outcome changed, and how to refresh a container's mirror after
/// it: only the slots it names when it knows them, all of it otherwise.
pub(super) trait Touches {
    /// Whether the contents or the capacity changed.
    fn changed(&self) -> bool;
    /// Brings the mirror `m` of the engine `e` up to date.
    fn refresh(&self, m: &mut Mirror, e: &Contents);
    /// Refreshes the mirror `m` when anything changed; whether it did.
    #[inline]
    fn refresh_if_changed(&self, m: &mut Mirror, e: &Contents) -> bool {
        let changed = self.changed();
        if changed {
            self.refresh(m, e);
        }
        changed
    }
}

/// An outcome message touches what its engine outcome touches.
macro_rules! touches_as_its_outcome {
    ($($message:ty),*) => {$(
        impl Touches for $message {
            #[inline]
            fn changed(&self) -> bool {
                self.outcome.changed()
            }
            #[inline]
            fn refresh(&self, m: &mut Mirror, e: &Contents) {
                self.outcome.refresh(m, e);
            }
        }
    )*};
}

touches_as_its_outcome!(
    ItemsDelivered,
    ItemsTaken,
    ItemsTransferred,
    ContainerRearranged,
    ItemsForcedOut,
    PropsChanged
);

impl Touches for Delivered {
    fn changed(&self) -> bool {
        self.accepted > 0
    }
    #[inline]
    fn refresh(&self, m: &mut Mirror, e: &Contents) {
        m.refresh_slots(e, self.item.as_str(), self.landed.iter().map(|l| l.slot));
    }
}

impl Touches for Taken {
    fn changed(&self) -> bool {
        self.taken > 0
    }
    #[inline]
    fn refresh(&self, m: &mut Mirror, e: &Contents) {
        m.refresh_slots(e, self.item.as_str(), self.from.iter().map(|l| l.slot));
    }
}

impl Touches for ForcedOut {
    fn changed(&self) -> bool {
        // a forced removal that was not refused put new capacity or rules
        // in force, even when nothing had to leave
        self.refused.is_none()
    }
    fn refresh(&self, m: &mut Mirror, e: &Contents) {
        m.refresh(e);
    }
}

impl Touches for crate::contents::PropsSet {
    fn changed(&self) -> bool {
        self.changed > 0
    }
    /// A stack that changed kind in place: its entry is rewritten whole.
    fn refresh(&self, m: &mut Mirror, e: &Contents) {
        m.refresh(e);
    }
}

impl Touches for Rearranged {
    fn changed(&self) -> bool {
        self.refused.is_none()
    }
    fn refresh(&self, m: &mut Mirror, e: &Contents) {
        m.refresh(e);
    }
}

impl Touches for Transferred {
    fn changed(&self) -> bool {
        self.moved > 0
    }
    /// Within one container: the two slots of the move.
    fn refresh(&self, m: &mut Mirror, e: &Contents) {
        let both: Vec<_> = self
            .from
            .iter()
            .chain(self.landed.iter())
            .copied()
            .collect();
        self.refresh_side(m, e, &both);
    }
}

impl Transferred {
    /// One side of a transfer: only the slots it names (a 10,000-slot bank
    /// does not rebuild its mirror for a drag); a swap changes the types in
    /// its slots, so that side is rebuilt whole.
    pub(super) fn refresh_side(
        &self,
        m: &mut Mirror,
        e: &Contents,
        touched: &[crate::contents::Landing],
    ) {
        match (&self.item, &self.swapped) {
            (Some(item), None) => m.refresh_slots(e, item.as_str(), touched.iter().map(|l| l.slot)),
            _ => m.refresh(e),
        }
    }
}
