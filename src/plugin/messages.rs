//! Requests (imperative) and outcomes (past tense), as Bevy messages.
//!
//! Each request names its container; each is answered by exactly one
//! outcome message carrying the container, the engine's full outcome, and
//! where every item that left ended up.

use bevy::prelude::*;

use crate::adoption::Report;
use crate::contents::{Delivered, ForcedOut, ItemType, Rearranged, Taken};
use crate::decimal::Decimal;

/// Deliver `amount` of `item` to `container`. With a `sender`, leftovers
/// that go back to the sender return to it: a [`super::LoosePickup`] sender
/// gives up only what is accepted, a container sender gets the rest
/// re-delivered.
///
/// `item` is an [`ItemType`]: `"berries".into()` makes one, and a game that
/// keeps the ids of its items clones them into requests without allocating.
#[derive(Message, Debug, Clone, PartialEq, Eq)]
pub struct Deliver {
    /// The container.
    pub container: Entity,
    /// The item type.
    pub item: ItemType,
    /// How many.
    pub amount: u32,
    /// Whatever offered the items.
    pub sender: Option<Entity>,
}

/// Pick up a loose pickup into `container`: a delivery of the pickup's
/// items whose sender is the pickup.
#[derive(Message, Debug, Clone, Copy, PartialEq, Eq)]
pub struct PickUp {
    /// The container.
    pub container: Entity,
    /// The [`super::LoosePickup`] entity.
    pub pickup: Entity,
}

/// Take up to `amount` of `item` from `container`, from `slot` when the
/// player chose one, else by the draw order.
#[derive(Message, Debug, Clone, PartialEq, Eq)]
pub struct Take {
    /// The container.
    pub container: Entity,
    /// The item type.
    pub item: ItemType,
    /// How many.
    pub amount: u32,
    /// The slot the player chose.
    pub slot: Option<u32>,
}

/// Change a container's capacity (a torn strap): new slot count and/or size
/// budget. May force items out.
#[derive(Message, Debug, Clone, PartialEq, Eq)]
pub struct Resize {
    /// The container.
    pub container: Entity,
    /// New slot count.
    pub slot_count: Option<u32>,
    /// New size budget.
    pub size_budget: Option<Decimal>,
}

/// The container's owner is gone: everything must leave.
#[derive(Message, Debug, Clone, Copy, PartialEq, Eq)]
pub struct EmptyForGoneOwner {
    /// The container.
    pub container: Entity,
}

/// Sort the container: the named types first.
#[derive(Message, Debug, Clone, PartialEq, Eq)]
pub struct Sort {
    /// The container.
    pub container: Entity,
    /// Types to put first, in order.
    pub order: Vec<String>,
}

/// Move items between two slots of one container (rearranging by hand).
#[derive(Message, Debug, Clone, Copy, PartialEq, Eq)]
pub struct MoveItems {
    /// The container.
    pub container: Entity,
    /// From this slot.
    pub from: u32,
    /// To this slot.
    pub to: u32,
    /// How many (the whole stack when `None`).
    pub amount: Option<u32>,
}

/// Where items that left a container ended up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Settled {
    /// In a loose pickup (spawned beside the container, or the pickup that
    /// sent them).
    Pickup {
        /// The pickup entity.
        pickup: Entity,
        /// The item type.
        item: String,
        /// How many.
        amount: u32,
    },
    /// Delivered to another container (a store, or the sending container).
    Container {
        /// The container.
        container: Entity,
        /// The item type.
        item: String,
        /// How many.
        amount: u32,
    },
    /// With the caller (refused intact, or back to a sender that is not a
    /// pickup or container).
    Caller {
        /// The sender, if one was named.
        sender: Option<Entity>,
        /// The item type.
        item: String,
        /// How many.
        amount: u32,
    },
    /// Destroyed by an explicit `destroyed` rule.
    Destroyed {
        /// The item type.
        item: String,
        /// How many.
        amount: u32,
    },
}

/// A delivery was settled.
#[derive(Message, Debug, Clone, PartialEq, Eq)]
pub struct ItemsDelivered {
    /// The container.
    pub container: Entity,
    /// Whatever offered the items.
    pub sender: Option<Entity>,
    /// The engine's outcome.
    pub outcome: Delivered,
    /// Where the items that did not enter ended up.
    pub settled: Vec<Settled>,
    /// Fallbacks taken (a store that refused, a sender gone), in words.
    pub warnings: Vec<String>,
}

/// A take was settled: the taken items are now the caller's.
#[derive(Message, Debug, Clone, PartialEq, Eq)]
pub struct ItemsTaken {
    /// The container.
    pub container: Entity,
    /// The engine's outcome.
    pub outcome: Taken,
}

/// A forced removal (resize, owner gone, new rules or tuning) was settled or
/// refused.
#[derive(Message, Debug, Clone, PartialEq, Eq)]
pub struct ItemsForcedOut {
    /// The container.
    pub container: Entity,
    /// The engine's outcome.
    pub outcome: ForcedOut,
    /// Where the portions ended up.
    pub settled: Vec<Settled>,
    /// Fallbacks taken, in words.
    pub warnings: Vec<String>,
}

/// A sort or a move was done or refused.
#[derive(Message, Debug, Clone, PartialEq, Eq)]
pub struct ContainerRearranged {
    /// The container.
    pub container: Entity,
    /// The outcome.
    pub outcome: Rearranged,
}

/// A container was despawned holding items: they became loose pickups.
#[derive(Message, Debug, Clone, PartialEq, Eq)]
pub struct ContainerSpilled {
    /// The despawned container.
    pub container: Entity,
    /// The pickups spawned.
    pub settled: Vec<Settled>,
}

/// A request could not reach its container (no such entity, or no
/// contents yet); nothing moved and the items stay with the caller.
#[derive(Message, Debug, Clone, PartialEq, Eq)]
pub struct RequestUnanswered {
    /// The container named.
    pub container: Entity,
    /// Why.
    pub reason: String,
}

/// An adoption file (re)loaded with errors: containers using it keep their
/// previous rules.
#[derive(Message, Debug, Clone)]
pub struct AdoptionRejected {
    /// The asset path.
    pub path: String,
    /// Every problem, rendered.
    pub message: String,
    /// The report, when the file was read but invalid.
    pub report: Option<Report>,
}

/// Registers every request and outcome message.
pub(crate) fn register(app: &mut App) {
    app.add_message::<Deliver>()
        .add_message::<PickUp>()
        .add_message::<Take>()
        .add_message::<Resize>()
        .add_message::<EmptyForGoneOwner>()
        .add_message::<Sort>()
        .add_message::<MoveItems>()
        .add_message::<ItemsDelivered>()
        .add_message::<ItemsTaken>()
        .add_message::<ItemsForcedOut>()
        .add_message::<ContainerRearranged>()
        .add_message::<ContainerSpilled>()
        .add_message::<RequestUnanswered>()
        .add_message::<AdoptionRejected>();
}
