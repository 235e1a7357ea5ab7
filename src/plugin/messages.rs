//! Requests (imperative) and outcomes (past tense).
//!
//! Every request is one [`ContainerRequest`] message, so the requests of a
//! frame are answered in the order they were written, whatever their kind
//! (the guide's [`guide::world`](crate::guide::world)). Each is answered by exactly one outcome, carrying the
//! container, the engine's full outcome, and where every item that left
//! ended up. An outcome is both a message (read it with a `MessageReader`)
//! and an entity event triggered on its container (observe it on one
//! container with `commands.entity(chest).observe(...)`, or on all with
//! `app.add_observer(...)`).

use bevy::prelude::*;

use crate::adoption::Report;
use crate::contents::{
    Delivered, ForcedOut, ItemType, PropsAt, PropsSet, Rearranged, Reason, Taken, TransferRequest,
    Transferred,
};
use crate::decimal::Decimal;
use crate::props::Props;

/// One request to the plugin. Write it with a `MessageWriter`, from
/// `Commands` (`commands.write_message(...)`), or with
/// [`super::ContainerCommandsExt`]; the typed requests convert into it.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_container::plugin::{ContainerRequest, Deliver, Take};
///
/// fn craft(bag: Single<Entity, With<bevy_container::plugin::Container>>, mut requests: MessageWriter<ContainerRequest>) {
///     // answered in this order: the herbs leave before the sword arrives
///     requests.write(Take::new(*bag, "herb", 10).into());
///     requests.write(Deliver::new(*bag, "sword", 1).into());
/// }
/// # let _ = craft;
/// ```
#[derive(Message, Debug, Clone, PartialEq, Eq)]
pub enum ContainerRequest {
    /// A delivery.
    Deliver(Deliver),
    /// A loose pickup picked up.
    PickUp(PickUp),
    /// A take.
    Take(Take),
    /// A transfer between two containers.
    Transfer(Transfer),
    /// A move between two slots of one container.
    Move(MoveItems),
    /// A sort.
    Sort(Sort),
    /// A capacity change.
    Resize(Resize),
    /// The owner is gone.
    EmptyForGoneOwner(EmptyForGoneOwner),
    /// A change of items' properties.
    SetProps(SetProps),
}

impl ContainerRequest {
    /// The container the request is about (a transfer's source), where its
    /// refusal ([`RequestUnanswered`]) is reported.
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy_container::plugin::{ContainerRequest, Take};
    ///
    /// let pouch = Entity::from_bits(3);
    /// assert_eq!(ContainerRequest::from(Take::new(pouch, "herb", 2)).container(), pouch);
    /// ```
    pub fn container(&self) -> Entity {
        match self {
            ContainerRequest::Deliver(r) => r.container,
            ContainerRequest::PickUp(r) => r.container,
            ContainerRequest::Take(r) => r.container,
            ContainerRequest::Transfer(r) => r.from,
            ContainerRequest::Move(r) => r.container,
            ContainerRequest::Sort(r) => r.container,
            ContainerRequest::Resize(r) => r.container,
            ContainerRequest::EmptyForGoneOwner(r) => r.container,
            ContainerRequest::SetProps(r) => r.container,
        }
    }
}

macro_rules! into_request {
    ($($t:ident => $v:ident),* $(,)?) => {$(
        impl From<$t> for ContainerRequest {
            fn from(r: $t) -> ContainerRequest {
                ContainerRequest::$v(r)
            }
        }
    )*};
}

into_request!(
    Deliver => Deliver,
    PickUp => PickUp,
    Take => Take,
    Transfer => Transfer,
    MoveItems => Move,
    Sort => Sort,
    Resize => Resize,
    EmptyForGoneOwner => EmptyForGoneOwner,
    SetProps => SetProps,
);

/// Deliver `amount` of `item` to `container`. With a `sender`, leftovers
/// that go back to the sender return to it: a [`super::LoosePickup`] sender
/// gives up only what is accepted, a container sender gets the rest
/// re-delivered.
///
/// `item` is an [`ItemType`]: `"berries".into()` makes one, and a game that
/// keeps the ids of its items clones them into requests without allocating.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deliver {
    /// The container.
    pub container: Entity,
    /// The item type.
    pub item: ItemType,
    /// The items' properties (empty for plain items): their kind is
    /// `item` with these.
    pub props: Props,
    /// How many.
    pub amount: u32,
    /// Whatever offered the items.
    pub sender: Option<Entity>,
}

impl Deliver {
    /// A delivery with no sender.
    pub fn new(container: Entity, item: impl Into<ItemType>, amount: u32) -> Deliver {
        Deliver {
            container,
            item: item.into(),
            props: Props::EMPTY,
            amount,
            sender: None,
        }
    }

    /// Delivers items carrying `props` (a sword with its durability).
    pub fn with_props(mut self, props: Props) -> Deliver {
        self.props = props;
        self
    }

    /// Names the sender.
    pub fn from_sender(mut self, sender: Entity) -> Deliver {
        self.sender = Some(sender);
        self
    }
}

/// Pick up a loose pickup into `container`: a delivery of the pickup's
/// items whose sender is the pickup.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PickUp {
    /// The container.
    pub container: Entity,
    /// The [`super::LoosePickup`] entity.
    pub pickup: Entity,
}

/// Take up to `amount` of `item` from `container`, from `slot` when the
/// player chose one, else by the draw order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Take {
    /// The container.
    pub container: Entity,
    /// The item type.
    pub item: ItemType,
    /// Only items with exactly these properties; `None`: any kind of the
    /// type, in the draw order.
    pub props: Option<Props>,
    /// How many.
    pub amount: u32,
    /// The slot the player chose.
    pub slot: Option<u32>,
}

impl Take {
    /// A take by the draw order.
    pub fn new(container: Entity, item: impl Into<ItemType>, amount: u32) -> Take {
        Take {
            container,
            item: item.into(),
            props: None,
            amount,
            slot: None,
        }
    }

    /// Takes only items with exactly `props` (`Props::EMPTY`: plain ones).
    pub fn of_kind(mut self, props: Props) -> Take {
        self.props = Some(props);
        self
    }

    /// Takes from this slot only.
    pub fn from_slot(mut self, slot: u32) -> Take {
        self.slot = Some(slot);
        self
    }
}

/// Move items from one container to another as one request (spec section
/// 11): what the target cannot take stays in `from`; a refused transfer
/// changes neither. `from == to` is a move within one container.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transfer {
    /// The source container.
    pub from: Entity,
    /// The target container.
    pub to: Entity,
    /// What to move and where.
    pub request: TransferRequest,
}

/// Change a container's capacity (a torn strap): new slot count and/or size
/// budget. May force items out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resize {
    /// The container.
    pub container: Entity,
    /// New slot count.
    pub slot_count: Option<u32>,
    /// New size budget.
    pub size_budget: Option<Decimal>,
}

/// The container's owner is gone: everything must leave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EmptyForGoneOwner {
    /// The container.
    pub container: Entity,
}

/// Sort the container: the named types first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sort {
    /// The container.
    pub container: Entity,
    /// Types to put first, in order.
    pub order: Vec<ItemType>,
}

/// Give items new properties (a sword wears down, a letter is sealed):
/// the whole stack in `at` changes where it is, or `amount` of it moves to
/// where a delivery of the new kind would land, all or nothing. Answered
/// with [`PropsChanged`].
///
/// ```
/// use bevy::prelude::*;
/// use bevy_container::contents::PropsAt;
/// use bevy_container::plugin::{ContainerRequest, SetProps};
/// use bevy_container::props::Props;
///
/// fn wear(bag: Entity, slot: u32, durability: i32, mut requests: MessageWriter<ContainerRequest>) {
///     if let Ok(to) = Props::new([("durability", durability)]) {
///         requests.write(SetProps::new(bag, PropsAt::Slot(slot), to).into());
///     }
/// }
/// # let _ = wear;
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetProps {
    /// The container.
    pub container: Entity,
    /// The stack (or, slotless, the kind) to change.
    pub at: PropsAt,
    /// How many (the whole stack or holding when `None`).
    pub amount: Option<u32>,
    /// The new properties (a whole map; empty clears them).
    pub to: Props,
}

impl SetProps {
    /// Changes the whole stack or holding `at` to `to`.
    pub fn new(container: Entity, at: PropsAt, to: Props) -> SetProps {
        SetProps {
            container,
            at,
            amount: None,
            to,
        }
    }

    /// Changes only `amount` items.
    pub fn amount(mut self, amount: u32) -> SetProps {
        self.amount = Some(amount);
        self
    }
}

/// Move items between two slots of one container (rearranging by hand).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
