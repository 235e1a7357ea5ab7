//! Outcomes (past tense) of the requests in [`super::requests`].
//!
//! Each request is answered by exactly one outcome, carrying the
//! container, the engine's full outcome, and where every item that left
//! ended up. An outcome is both a message (read it with a `MessageReader`)
//! and an entity event triggered on its container (observe it on one
//! container with `commands.entity(chest).observe(...)`, or on all with
//! `app.add_observer(...)`).

use bevy::prelude::*;

pub use super::requests::*;
use crate::adoption::Report;
use crate::contents::{
    Delivered, ForcedOut, ItemType, PropsSet, Rearranged, Reason, Taken, Transferred,
};
use crate::props::Props;

/// Where items that left a container ended up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Settled {
    /// In a loose pickup (spawned beside the container, or the pickup that
    /// sent them).
    Pickup {
        /// The pickup entity.
        pickup: Entity,
        /// The item type.
        item: ItemType,
        /// Their properties (one kind per settlement).
        props: Props,
        /// How many.
        amount: u32,
    },
    /// Delivered to another container (a store, or the sending container).
    Container {
        /// The container.
        container: Entity,
        /// The item type.
        item: ItemType,
        /// Their properties (one kind per settlement).
        props: Props,
        /// How many.
        amount: u32,
    },
    /// With the caller (refused intact, or back to a sender that is not a
    /// pickup or container).
    Caller {
        /// The sender, if one was named.
        sender: Option<Entity>,
        /// The item type.
        item: ItemType,
        /// Their properties (one kind per settlement).
        props: Props,
        /// How many.
        amount: u32,
    },
    /// Destroyed by an explicit `destroyed` rule.
    Destroyed {
        /// The item type.
        item: ItemType,
        /// Their properties (one kind per settlement).
        props: Props,
        /// How many.
        amount: u32,
    },
}

/// A fallback settlement took: the rules named a destination that could
/// not take the items, so they lie in a loose pickup instead (spec section
/// 8). `Display` says what happened and the fix.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Fallback {
    /// The container sends items to another store but names none.
    NoStore {
        /// The container.
        container: Entity,
        /// The item type.
        item: ItemType,
        /// How many.
        amount: u32,
    },
    /// The named store is not a container that can take requests.
    StoreUnavailable {
        /// The store.
        store: Entity,
        /// The container that sent to it.
        container: Entity,
        /// The item type.
        item: ItemType,
        /// How many.
        amount: u32,
        /// Why.
        why: NotAnswered,
    },
    /// The store refused the items intact.
    StoreRefused {
        /// The store.
        store: Entity,
        /// The container that sent to it.
        container: Entity,
        /// The item type.
        item: ItemType,
        /// How many.
        amount: u32,
        /// Why.
        reason: Reason,
    },
    /// The chain of stores came back to a container already in it.
    StoreLoop {
        /// The store met twice.
        store: Entity,
        /// The first container of the chain.
        origin: Entity,
        /// The item type.
        item: ItemType,
        /// How many.
        amount: u32,
    },
    /// A store's leftover goes back to the sender, but the sender is the
    /// container that overflowed.
    StoreSendsBack {
        /// The store.
        store: Entity,
        /// The container that overflowed.
        container: Entity,
        /// The item type.
        item: ItemType,
        /// How many.
        amount: u32,
    },
    /// A container sender could not take its items back.
    SenderFull {
        /// The sender.
        sender: Entity,
        /// The item type.
        item: ItemType,
        /// How many.
        amount: u32,
    },
    /// The sender no longer exists.
    SenderGone {
        /// The sender.
        sender: Entity,
        /// The container the items were offered to.
        container: Entity,
        /// The item type.
        item: ItemType,
        /// How many.
        amount: u32,
    },
    /// Items marked `never` left (the engine never does this).
    NeverLeft {
        /// The container.
        container: Entity,
        /// The item type.
        item: ItemType,
        /// How many.
        amount: u32,
    },
}

impl std::fmt::Display for Fallback {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fallback::NoStore {
                container,
                item,
                amount,
            } => write!(
                f,
                "container {container} sends {amount} {item} to another store but names none; add OverflowStore(entity) to it. They lie beside it as a loose pickup"
            ),
            Fallback::StoreUnavailable {
                store,
                container,
                item,
                amount,
                why,
            } => write!(
                f,
                "store {store} cannot take {amount} {item} ({why}); they lie beside container {container} as a loose pickup"
            ),
            Fallback::StoreRefused {
                store,
                container,
                item,
                amount,
                reason,
            } => write!(
                f,
                "store {store} refused {amount} {item} ({reason}); they lie beside container {container} as a loose pickup"
            ),
            Fallback::StoreLoop {
                store,
                origin,
                item,
                amount,
            } => write!(
                f,
                "stores loop back to {store} while settling {amount} {item}; break the OverflowStore chain. They lie beside container {origin} as a loose pickup"
            ),
            Fallback::StoreSendsBack {
                store,
                container,
                item,
                amount,
            } => write!(
                f,
                "store {store} sends {amount} {item} back, but container {container} is what overflowed; they lie beside the store as a loose pickup"
            ),
            Fallback::SenderFull {
                sender,
                item,
                amount,
            } => write!(
                f,
                "sending container {sender} could not take back {amount} {item}; they lie beside it as a loose pickup"
            ),
            Fallback::SenderGone {
                sender,
                container,
                item,
                amount,
            } => write!(
                f,
                "the sender {sender} of {amount} {item} is gone; they lie beside container {container} as a loose pickup"
            ),
            Fallback::NeverLeft {
                container,
                item,
                amount,
            } => write!(
                f,
                "{amount} {item} marked never left container {container}; dropped beside it"
            ),
        }
    }
}

/// A delivery was settled.
#[derive(Message, EntityEvent, Debug, Clone, PartialEq, Eq)]
pub struct ItemsDelivered {
    /// The container.
    #[event_target]
    pub container: Entity,
    /// Whatever offered the items.
    pub sender: Option<Entity>,
    /// The engine's outcome.
    pub outcome: Delivered,
    /// Where the items that did not enter ended up.
    pub settled: Vec<Settled>,
    /// Fallbacks taken (a store that refused, a sender gone).
    pub warnings: Vec<Fallback>,
}

impl ItemsDelivered {
    /// The message of a delivery's `outcome` with empty `settled` and
    /// `warnings`: before the plugin settles what the delivery leaves, or
    /// on a client, which is sent the outcome only.
    #[inline]
    pub(crate) fn unsettled(
        container: Entity,
        sender: Option<Entity>,
        outcome: Delivered,
    ) -> ItemsDelivered {
        ItemsDelivered {
            container,
            sender,
            outcome,
            settled: Vec::new(),
            warnings: Vec::new(),
        }
    }
}

/// A take was settled: the taken items are now the caller's.
#[derive(Message, EntityEvent, Debug, Clone, PartialEq, Eq)]
pub struct ItemsTaken {
    /// The container.
    #[event_target]
    pub container: Entity,
    /// The engine's outcome.
    pub outcome: Taken,
}

/// A transfer was done or refused. The message is written once; the event
/// is triggered on the source and then on the target (`container` says
/// which), so each container's observers see it. A global observer sees it
/// once per container: compare `container` with `from`.
#[derive(Message, EntityEvent, Debug, Clone, PartialEq, Eq)]
pub struct ItemsTransferred {
    /// The container this event is triggered on (`from` for the message).
    #[event_target]
    pub container: Entity,
    /// The source container.
    pub from: Entity,
    /// The target container.
    pub to: Entity,
    /// The engine's outcome.
    pub outcome: Transferred,
}

/// A forced removal (resize, owner gone, new rules or tuning) was settled or
/// refused.
#[derive(Message, EntityEvent, Debug, Clone, PartialEq, Eq)]
pub struct ItemsForcedOut {
    /// The container.
    #[event_target]
    pub container: Entity,
    /// The engine's outcome.
    pub outcome: ForcedOut,
    /// Where the portions ended up.
    pub settled: Vec<Settled>,
    /// Fallbacks taken.
    pub warnings: Vec<Fallback>,
}

impl ItemsForcedOut {
    /// The message of a forced removal's `outcome`, before its portions
    /// are settled.
    pub(crate) fn unsettled(container: Entity, outcome: ForcedOut) -> ItemsForcedOut {
        ItemsForcedOut {
            container,
            outcome,
            settled: Vec::new(),
            warnings: Vec::new(),
        }
    }
}

/// A sort or a move was done or refused.
#[derive(Message, EntityEvent, Debug, Clone, PartialEq, Eq)]
pub struct ContainerRearranged {
    /// The container.
    #[event_target]
    pub container: Entity,
    /// The outcome.
    pub outcome: Rearranged,
}

/// Items' properties changed (or why not): the outcome of [`SetProps`],
/// a message and an event on the container.
#[derive(Message, EntityEvent, Debug, Clone, PartialEq, Eq)]
pub struct PropsChanged {
    /// The container.
    #[event_target]
    pub container: Entity,
    /// What changed and where the items lie.
    pub outcome: PropsSet,
}

/// A container's rules attached: it answers requests from now on.
#[derive(Message, EntityEvent, Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContainerReady {
    /// The container.
    #[event_target]
    pub container: Entity,
}

/// A container read back with a world holds a save that does not load under
/// the current rules (its migration would have to move items that never
/// leave). The save stays attached, unchanged, and is saved again as it was;
/// the container answers no requests until its rules change so that it
/// loads.
#[derive(Message, EntityEvent, Debug, Clone, PartialEq, Eq)]
pub struct ContainerSaveRefused {
    /// The container.
    #[event_target]
    pub container: Entity,
    /// Why, with how much could not leave.
    pub error: crate::contents::LoadRefused,
}

/// A save was applied by reflection onto a container that already held
/// items (a scene written onto a live entity rather than spawned): the
/// items stayed, and the save was not applied. It is handed over here, so
/// the game can load it somewhere else or tell the player; nothing of it
/// is in the world.
#[derive(Message, EntityEvent, Debug, Clone, PartialEq, Eq)]
pub struct ContainerSaveSetAside {
    /// The container that kept its items.
    #[event_target]
    pub container: Entity,
    /// The save that was not applied.
    pub save: crate::save::SavedContents,
}

/// A container was despawned holding items under [`super::DespawnPolicy::Spill`]:
/// they became loose pickups. Written as a message (the entity is gone, so
/// there is no entity event).
#[derive(Message, Debug, Clone, PartialEq, Eq)]
pub struct ContainerSpilled {
    /// The despawned container.
    pub container: Entity,
    /// The pickups spawned.
    pub settled: Vec<Settled>,
}

/// A container was despawned under [`super::DespawnPolicy::LeaveWithContents`]
/// (a level unloading): its items left the world with it, listed here.
#[derive(Message, Debug, Clone, PartialEq, Eq)]
pub struct ContainerLeftWorld {
    /// The despawned container.
    pub container: Entity,
    /// Every stack it held, with its kind (slot order; slotless: in kind
    /// order).
    pub contents: Vec<(crate::props::Kind, u32)>,
}

/// A request could not reach its container (no such entity, or no
/// contents yet); nothing moved and the items stay with the caller.
#[derive(Message, EntityEvent, Debug, Clone, PartialEq, Eq)]
pub struct RequestUnanswered {
    /// The container named.
    #[event_target]
    pub container: Entity,
    /// Why.
    pub reason: NotAnswered,
}

/// An adoption file (re)loaded with errors: containers using it keep their
/// previous rules.
#[derive(Message, Debug, Clone)]
pub struct AdoptionRejected {
    /// The asset path, when the asset has one.
    pub path: String,
    /// Every problem, rendered.
    pub message: String,
    /// The report, when the file was read but invalid.
    pub report: Option<Report>,
}

/// Registers every request and outcome message.
pub(crate) fn register(app: &mut App) {
    app.add_message::<ContainerRequest>()
        .add_message::<ItemsDelivered>()
        .add_message::<ItemsTaken>()
        .add_message::<ItemsTransferred>()
        .add_message::<ItemsForcedOut>()
        .add_message::<ContainerRearranged>()
        .add_message::<PropsChanged>()
        .add_message::<ContainerReady>()
        .add_message::<ContainerSaveRefused>()
        .add_message::<ContainerSaveSetAside>()
        .add_message::<ContainerSpilled>()
        .add_message::<ContainerLeftWorld>()
        .add_message::<RequestUnanswered>()
        .add_message::<AdoptionRejected>();
}

/// Why a request did not reach a container's engine.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NotAnswered {
    /// The entity has no container.
    #[error("entity {0} is not a container; add Container to it")]
    NotAContainer(Entity),
    /// The adoption is not loaded (or did not compile) yet.
    #[error(
        "container {0} has no contents yet: its adoption is still loading or has errors (wait for ContainerReady)"
    )]
    NotReady(Entity),
    /// The entity named as a pickup is not a loose pickup.
    #[error("entity {0} is not a loose pickup")]
    NotAPickup(Entity),
    /// The pickup holds another type than the one delivered.
    #[error("pickup {pickup} holds {holds}, not {item}; deliver its own item")]
    OtherPickupItem {
        /// The pickup.
        pickup: Entity,
        /// What it holds.
        holds: String,
        /// What the delivery named.
        item: String,
    },
    /// A networked client may not do this with the container (its
    /// `ContainerAccess` does not give the permission).
    #[error("this client may not {needs} container {container}")]
    NotAllowed {
        /// The container.
        container: Entity,
        /// The permission that was missing.
        needs: Permission,
    },
    /// A networked client named an entity the server never sent it: a
    /// container it may not view, or no container at all.
    #[error(
        "entity {0} is nothing the server sent this client: a container it may not view, or no container"
    )]
    NotSeen(Entity),
    /// A networked client lost its connection before the server answered;
    /// whether the server settled the request shows in the contents when
    /// the client connects again.
    #[error("the connection to the server was lost before it answered (container {0})")]
    ConnectionLost(Entity),
    /// A networked client asked for what only the server does (a delivery,
    /// a capacity change, an owner gone, a change of properties).
    #[error(
        "container {0} belongs to the server: deliveries, capacity changes, owner-gone and changes of properties are written on the server"
    )]
    ServerOnly(Entity),
    /// A networked client sent more requests in one server tick than the
    /// server answers; the rest are refused.
    #[error("too many requests from one client in one tick; send fewer (container {0})")]
    TooManyRequests(Entity),
}

/// What a client asks to do with a container (checked against a
/// `ContainerAccess` on a server, feature `replicon`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, Reflect)]
pub enum Permission {
    /// See its contents (they replicate to that client).
    View,
    /// Take items out of it (a take, the source of a transfer, a move or
    /// a sort within it).
    Take,
    /// Put items into it (the target of a transfer, a pick-up, a move or a
    /// sort within it).
    Put,
}

impl std::fmt::Display for Permission {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Permission::View => "view",
            Permission::Take => "take from",
            Permission::Put => "put into",
        })
    }
}
