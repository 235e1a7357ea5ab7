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
use crate::props::{KindLabel, Props};

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

/// Reads like a log line, entities by their ids: `8 potion into container
/// 12v1`, `391 berries on the ground as pickup 40v1`, `2 axe destroyed`.
/// [`Settled::describe`] names them by their `Name` instead.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_container::plugin::Settled;
///
/// let stash = Entity::from_raw_u32(7).unwrap();
/// let settled = Settled::Container { container: stash, item: "potion".into(), props: Default::default(), amount: 8 };
/// assert_eq!(settled.to_string(), format!("8 potion into container {stash}"));
/// ```
impl std::fmt::Display for Settled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.write_line(f, None)
    }
}

impl Settled {
    /// The line [`Display`](std::fmt::Display) writes, with each entity
    /// named by its `Name` where it has one (`8 potion into stash`), else
    /// by its id. A pickup is `on the ground`: its name only repeats the
    /// items.
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy::ecs::system::RunSystemOnce;
    /// use bevy_container::plugin::Settled;
    ///
    /// let mut world = World::new();
    /// let stash = world.spawn(Name::new("stash")).id();
    /// let settled = Settled::Container { container: stash, item: "potion".into(), props: Default::default(), amount: 8 };
    /// let line = world.run_system_once(move |names: Query<&Name>| settled.describe(&names)).unwrap();
    /// assert_eq!(line, "8 potion into stash");
    /// ```
    pub fn describe(&self, names: &Query<&Name>) -> String {
        let mut line = String::new();
        // writing into a String does not fail
        let _ = self.write_line(&mut line, Some(names));
        line
    }

    /// How many items this entry settled, wherever they went.
    ///
    /// ```
    /// use bevy_container::plugin::Settled;
    /// let gone = Settled::Destroyed { item: "axe".into(), props: Default::default(), amount: 2 };
    /// assert_eq!(gone.amount(), 2);
    /// ```
    pub fn amount(&self) -> u32 {
        self.items().2
    }

    /// The items, whatever became of them: type, properties, amount.
    fn items(&self) -> (&ItemType, &Props, u32) {
        match self {
            Settled::Pickup {
                item,
                props,
                amount,
                ..
            }
            | Settled::Container {
                item,
                props,
                amount,
                ..
            }
            | Settled::Caller {
                item,
                props,
                amount,
                ..
            }
            | Settled::Destroyed {
                item,
                props,
                amount,
            } => (item, props, *amount),
        }
    }

    /// Writes the line, naming entities from `names` when given.
    fn write_line(
        &self,
        f: &mut impl std::fmt::Write,
        names: Option<&Query<&Name>>,
    ) -> std::fmt::Result {
        let (item, props, amount) = self.items();
        write!(f, "{amount} {}", KindLabel(item.as_str(), props))?;
        match self {
            Settled::Pickup { pickup, .. } => match names {
                Some(_) => write!(f, " on the ground"),
                None => write!(f, " on the ground as pickup {pickup}"),
            },
            Settled::Container { container, .. } => {
                write!(f, " into {}", label(*container, "container", names))
            }
            Settled::Caller {
                sender: Some(s), ..
            } => write!(f, " back with {}", label(*s, "entity", names)),
            Settled::Caller { sender: None, .. } => write!(f, " with the caller"),
            Settled::Destroyed { .. } => write!(f, " destroyed"),
        }
    }
}

/// An entity as a log line names it: its `Name` when `names` has one, else
/// `what` and its id (`container 12v1`).
fn label(e: Entity, what: &str, names: Option<&Query<&Name>>) -> String {
    match names.and_then(|n| n.get(e).ok()) {
        Some(name) => name.as_str().to_string(),
        None => format!("{what} {e}"),
    }
}

/// The container, its `outcome`, then where the items ended up in
/// parentheses when anything was settled: `stash: 10 potion: 2 to slot 1;
/// 8 another store (8 potion into cellar)`.
fn outcome_line(
    container: Entity,
    outcome: &dyn std::fmt::Display,
    settled: &[Settled],
    names: Option<&Query<&Name>>,
) -> String {
    let mut line = format!("{}: {outcome}", label(container, "container", names));
    for (i, s) in settled.iter().enumerate() {
        line.push_str(if i == 0 { " (" } else { ", " });
        // writing into a String does not fail
        let _ = s.write_line(&mut line, names);
    }
    if !settled.is_empty() {
        line.push(')');
    }
    line
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

/// Reads like a log line: the container, the delivery (with what limited
/// it, when not everything entered), then where what did not enter ended
/// up: `container 3v1: 8 herb: 5 to slot 1; 3 another store: no room:
/// every slot it may use is taken (3 herb into container 4v1)`.
/// [`ItemsDelivered::describe`] names the entities by their `Name`.
impl std::fmt::Display for ItemsDelivered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&outcome_line(
            self.container,
            &self.outcome,
            &self.settled,
            None,
        ))
    }
}

impl ItemsDelivered {
    /// The line [`Display`](std::fmt::Display) writes, with the container,
    /// its store and the sender named by their `Name` where they have one:
    /// `pouch: 8 herb: 5 to slot 1; 3 another store: no room: every slot it
    /// may use is taken (3 herb into stash)`.
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy::ecs::system::RunSystemOnce;
    /// use bevy_container::adoption::{self, Format};
    /// use bevy_container::plugin::*;
    ///
    /// // a pouch of one slot of five herbs; what does not fit goes to its store
    /// let pouch_file = br#"{"contract": "container", "version": 1,
    ///   "answers": {"capacity-limit": "slot-count", "partial-acceptance": "fill-what-fits",
    ///     "leftover-destination": "another-store", "fill-order": "top-up-then-first-empty",
    ///     "draw-order": "first-in-order", "type-restriction": "any-item"},
    ///   "values": {"slot-count": 1, "size-budget": 0},
    ///   "rows": {"items": [{"id": "herb", "stack-limit": 5, "when-forced-out": "never"}]}}"#;
    /// let stash_file = String::from_utf8(pouch_file.to_vec())?
    ///     .replace("another-store", "left-where-it-is")
    ///     .replace("\"slot-count\": 1", "\"slot-count\": 4");
    /// let read = |bytes: &[u8]| adoption::read(bytes, Format::Json, Default::default());
    ///
    /// let mut app = App::new();
    /// app.add_plugins((MinimalPlugins, AssetPlugin::default(), ContainerPlugin::default()));
    /// let mut assets = app.world_mut().resource_mut::<Assets<AdoptionAsset>>();
    /// let pouch_rules = assets.add(AdoptionAsset::new(read(&pouch_file[..])?));
    /// let stash_rules = assets.add(AdoptionAsset::new(read(stash_file.as_bytes())?));
    /// let stash = app.world_mut().spawn((Name::new("stash"), Container::new(stash_rules))).id();
    /// let pouch = app
    ///     .world_mut()
    ///     .spawn((Name::new("pouch"), Container::new(pouch_rules), OverflowStore(stash)))
    ///     .id();
    /// app.update(); // the rules attach
    /// app.world_mut().write_message(ContainerRequest::from(Deliver::new(pouch, "herb", 8)));
    /// app.update();
    ///
    /// let lines = app.world_mut().run_system_once(
    ///     |mut delivered: MessageReader<ItemsDelivered>, names: Query<&Name>| {
    ///         delivered.read().map(|d| d.describe(&names)).collect::<Vec<_>>()
    ///     },
    /// ).unwrap();
    /// assert!(lines[0].starts_with("pouch: 8 herb: 5 to slot 1"), "{}", lines[0]);
    /// // why 3 did not enter, in a player's words
    /// assert!(lines[0].contains("; 3 another store: no room: every slot it may use is taken"), "{}", lines[0]);
    /// assert!(lines[0].ends_with("(3 herb into stash)"), "{}", lines[0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn describe(&self, names: &Query<&Name>) -> String {
        outcome_line(self.container, &self.outcome, &self.settled, Some(names))
    }
}

/// A take was settled: the taken items are now the caller's (so it has
/// nothing to settle in the world, and no `settled` list).
#[derive(Message, EntityEvent, Debug, Clone, PartialEq, Eq)]
pub struct ItemsTaken {
    /// The container.
    #[event_target]
    pub container: Entity,
    /// The engine's outcome.
    pub outcome: Taken,
}

/// Reads like a log line: the container, then the take: `container 3v1:
/// took 4 berries from slot 2`. [`ItemsTaken::describe`] names the
/// container by its `Name`.
impl std::fmt::Display for ItemsTaken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&outcome_line(self.container, &self.outcome, &[], None))
    }
}

impl ItemsTaken {
    /// The line [`Display`](std::fmt::Display) writes, with the container
    /// named by its `Name` where it has one: `backpack: took 4 berries
    /// from slot 2`.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use bevy::ecs::system::RunSystemOnce;
    /// use bevy::prelude::*;
    /// use bevy_container::prelude::*;
    ///
    /// let bytes = std::fs::read("assets/backpack.adoption.json")?;
    /// let rules = Rules::compile(&Adoption::read_json(&bytes)?, &Tuning::default())?;
    /// let mut engine = Contents::new(Arc::new(rules));
    /// engine.deliver("berries", 25); // 20 in slot 0, 5 in slot 1
    ///
    /// let mut world = World::new();
    /// let bag = world.spawn(Name::new("backpack")).id();
    /// let taken = ItemsTaken { container: bag, outcome: engine.take_from("berries", 4, 1) };
    /// assert_eq!(taken.to_string(), format!("container {bag}: took 4 berries from slot 2"));
    /// let line = world.run_system_once(move |names: Query<&Name>| taken.describe(&names)).unwrap();
    /// assert_eq!(line, "backpack: took 4 berries from slot 2");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn describe(&self, names: &Query<&Name>) -> String {
        outcome_line(self.container, &self.outcome, &[], Some(names))
    }
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

/// A transfer's line: the source, the target when it is another
/// container, then the outcome (`chest to bag: moved 5 of 5 arrow`).
fn transfer_line(
    from: Entity,
    to: Entity,
    outcome: &Transferred,
    names: Option<&Query<&Name>>,
) -> String {
    let mut line = label(from, "container", names);
    if to != from {
        line.push_str(" to ");
        line.push_str(&label(to, "container", names));
    }
    line.push_str(&format!(": {outcome}"));
    line
}

/// Reads like a log line: the source, the target (when it is another
/// container), then the transfer with what limited it, when the target
/// did not take everything: `container 3v1 to container 4v1: moved 2 of 5
/// berries: the stack is full: it is at its stack limit`. The same line
/// whichever container the event is triggered on.
/// [`ItemsTransferred::describe`] names the containers by their `Name`.
impl std::fmt::Display for ItemsTransferred {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&transfer_line(self.from, self.to, &self.outcome, None))
    }
}

impl ItemsTransferred {
    /// The line [`Display`](std::fmt::Display) writes, with the containers
    /// named by their `Name` where they have one: `chest to backpack: moved
    /// 5 of 5 berries`.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use bevy::ecs::system::RunSystemOnce;
    /// use bevy::prelude::*;
    /// use bevy_container::prelude::*;
    ///
    /// let bytes = std::fs::read("assets/backpack.adoption.json")?;
    /// let rules = Arc::new(Rules::compile(&Adoption::read_json(&bytes)?, &Tuning::default())?);
    /// let (mut chest, mut backpack) = (Contents::new(rules.clone()), Contents::new(rules));
    /// chest.deliver("berries", 5);
    /// backpack.deliver("berries", 18); // room for 2 on its stack
    /// let outcome = chest.transfer(&mut backpack, &TransferRequest::from_slot(0, 5).to_slot(0));
    ///
    /// let mut world = World::new();
    /// let from = world.spawn(Name::new("chest")).id();
    /// let to = world.spawn(Name::new("backpack")).id();
    /// let moved = ItemsTransferred { container: from, from, to, outcome };
    /// let line = world.run_system_once(move |names: Query<&Name>| moved.describe(&names)).unwrap();
    /// assert_eq!(line, "chest to backpack: moved 2 of 5 berries: the stack is full: it is at its stack limit");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn describe(&self, names: &Query<&Name>) -> String {
        transfer_line(self.from, self.to, &self.outcome, Some(names))
    }
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

/// Reads like a log line: the container, what left, then where it ended
/// up: `container 3v1: 5 herb from slot 2 moved to another store (5 herb
/// into container 4v1)`. [`ItemsForcedOut::describe`] names the entities
/// by their `Name`.
impl std::fmt::Display for ItemsForcedOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&outcome_line(
            self.container,
            &self.outcome,
            &self.settled,
            None,
        ))
    }
}

impl ItemsForcedOut {
    /// The line [`Display`](std::fmt::Display) writes, with the container
    /// and its store named by their `Name` where they have one.
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy::ecs::system::RunSystemOnce;
    /// use bevy_container::contents::{Cause, ForcedOut, Portion};
    /// use bevy_container::plugin::{ItemsForcedOut, Settled};
    /// use bevy_container::rules::WhenForcedOut;
    ///
    /// let mut world = World::new();
    /// let stash = world.spawn(Name::new("stash")).id();
    /// let bag = world.spawn(Name::new("bag")).id();
    /// let herbs = Portion { item: "herb".into(), props: Default::default(), amount: 5, slot: Some(1),
    ///     to: WhenForcedOut::MovedToAnotherStore };
    /// let forced = ItemsForcedOut {
    ///     container: bag,
    ///     outcome: ForcedOut { cause: Cause::Shrink, portions: vec![herbs], refused: None },
    ///     settled: vec![Settled::Container { container: stash, item: "herb".into(), props: Default::default(), amount: 5 }],
    ///     warnings: Vec::new(),
    /// };
    /// let line = world.run_system_once(move |names: Query<&Name>| forced.describe(&names)).unwrap();
    /// assert_eq!(line, "bag: 5 herb from slot 2 moved to another store (5 herb into stash)");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn describe(&self, names: &Query<&Name>) -> String {
        outcome_line(self.container, &self.outcome, &self.settled, Some(names))
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

/// Reads like a log line: the container, then `rearranged` or the
/// refusal with the limit its reason names: `container 3v1: refused
/// (stack-full): the stack is full: it is at its stack limit`.
/// [`ContainerRearranged::describe`] names the container by its `Name`.
impl std::fmt::Display for ContainerRearranged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&outcome_line(self.container, &self.outcome, &[], None))
    }
}

impl ContainerRearranged {
    /// The line [`Display`](std::fmt::Display) writes, with the container
    /// named by its `Name` where it has one.
    ///
    /// ```
    /// use bevy::ecs::system::RunSystemOnce;
    /// use bevy::prelude::*;
    /// use bevy_container::contents::Rearranged;
    /// use bevy_container::prelude::*;
    ///
    /// let mut world = World::new();
    /// let bag = world.spawn(Name::new("bag")).id();
    /// let moved = ContainerRearranged { container: bag, outcome: Rearranged { refused: Some(Reason::StackFull) } };
    /// let line = world.run_system_once(move |names: Query<&Name>| moved.describe(&names)).unwrap();
    /// assert_eq!(line, "bag: refused (stack-full): the stack is full: it is at its stack limit");
    /// ```
    pub fn describe(&self, names: &Query<&Name>) -> String {
        outcome_line(self.container, &self.outcome, &[], Some(names))
    }
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

/// Reads like a log line: the container, then the change: `container
/// 3v1: 3 axe now {"durability":36} in slot 2`.
/// [`PropsChanged::describe`] names the container by its `Name`.
impl std::fmt::Display for PropsChanged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&outcome_line(self.container, &self.outcome, &[], None))
    }
}

impl PropsChanged {
    /// The line [`Display`](std::fmt::Display) writes, with the container
    /// named by its `Name` where it has one.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use bevy::ecs::system::RunSystemOnce;
    /// use bevy::prelude::*;
    /// use bevy_container::prelude::*;
    ///
    /// let bytes = std::fs::read("assets/backpack.adoption.json")?;
    /// let rules = Rules::compile(&Adoption::read_json(&bytes)?, &Tuning::default())?;
    /// let mut engine = Contents::new(Arc::new(rules));
    /// engine.deliver_kind("axe", &Props::new([("durability", 40)])?, 1); // slot 0
    /// let outcome = engine.set_props(PropsAt::Slot(0), None, Props::new([("durability", 39)])?);
    ///
    /// let mut world = World::new();
    /// let bag = world.spawn(Name::new("backpack")).id();
    /// let changed = PropsChanged { container: bag, outcome };
    /// let line = world.run_system_once(move |names: Query<&Name>| changed.describe(&names)).unwrap();
    /// assert_eq!(line, r#"backpack: 1 axe now {"durability":39} in slot 1"#);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn describe(&self, names: &Query<&Name>) -> String {
        outcome_line(self.container, &self.outcome, &[], Some(names))
    }
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

/// Reads like a log line: the container, then why the request did not
/// reach it, with the fix: `container 3v1: not answered: container 3v1
/// has no contents yet: ...`. [`RequestUnanswered::describe`] names the
/// container by its `Name`.
impl std::fmt::Display for RequestUnanswered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let container = label(self.container, "container", None);
        write!(f, "{container}: not answered: {}", self.reason)
    }
}

impl RequestUnanswered {
    /// The line [`Display`](std::fmt::Display) writes, with the container
    /// named by its `Name` where it has one.
    ///
    /// ```
    /// use bevy::ecs::system::RunSystemOnce;
    /// use bevy::prelude::*;
    /// use bevy_container::prelude::*;
    ///
    /// let mut world = World::new();
    /// let rock = world.spawn(Name::new("rock")).id();
    /// let unanswered = RequestUnanswered { container: rock, reason: NotAnswered::NotAContainer(rock) };
    /// assert_eq!(
    ///     unanswered.to_string(),
    ///     format!("container {rock}: not answered: entity {rock} is not a container; add Container to it")
    /// );
    /// let line = world.run_system_once(move |names: Query<&Name>| unanswered.describe(&names)).unwrap();
    /// assert!(line.starts_with("rock: not answered: "), "{line}");
    /// ```
    pub fn describe(&self, names: &Query<&Name>) -> String {
        let container = label(self.container, "container", Some(names));
        format!("{container}: not answered: {}", self.reason)
    }
}

/// An adoption file failed to load, validate or compile with the game's
/// tuning. Also reported once with every problem and its fix: logged (an
/// error on a first load, a warning on a reload), or, when the game has no
/// log (`MinimalPlugins` without Bevy's `LogPlugin`), written to stderr.
///
/// On a **first load** the containers using the file get no rules: their
/// [`ContainerContents::status`](super::ContainerContents::status) is
/// [`ContainerStatus::AdoptionRefused`](super::ContainerStatus::AdoptionRefused)
/// and their requests are answered [`NotAnswered::AdoptionRefused`] until
/// a fixed file loads (a hot reload, or `AssetServer::reload`). On a
/// **reload** the containers keep the rules they had.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_container::plugin::AdoptionRejected;
///
/// // show the designer what to fix, even without a log
/// fn report(mut rejected: MessageReader<AdoptionRejected>) {
///     for r in rejected.read() {
///         eprintln!("{}", r.message); // the path, each problem and its fix
///     }
/// }
/// # let _ = report;
/// ```
#[derive(Message, Debug, Clone)]
pub struct AdoptionRejected {
    /// The asset path, when the asset has one.
    pub path: String,
    /// Every problem, rendered.
    pub message: String,
    /// The report, when the file was read but invalid.
    pub report: Option<Report>,
}

/// An adoption file loaded with warnings (answers or values its container
/// ignores, unknown fields): sent once per load, and logged as a warning
/// (on stderr when the game has no log).
/// The containers using it work; the warnings say what in the file has no
/// effect.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_container::plugin::AdoptionWarned;
///
/// fn report(mut warned: MessageReader<AdoptionWarned>) {
///     for w in warned.read() {
///         eprint!("{}", w.warnings.render(&w.path)); // one `path: warning at ...` line each
///     }
/// }
/// # let _ = report;
/// ```
#[derive(Message, Debug, Clone, PartialEq, Eq)]
pub struct AdoptionWarned {
    /// The adoption asset.
    pub adoption: AssetId<super::AdoptionAsset>,
    /// The file's asset path.
    pub path: String,
    /// The warnings (no errors: a file with errors is rejected).
    pub warnings: Report,
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
        .add_message::<AdoptionRejected>()
        .add_message::<AdoptionWarned>();
}

/// Why a request did not reach a container's engine.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NotAnswered {
    /// The entity has no container.
    #[error("entity {0} is not a container; add Container to it")]
    NotAContainer(Entity),
    /// The adoption is not loaded yet (or the container's save waits for
    /// rules it loads under).
    #[error(
        "container {0} has no contents yet: its adoption is still loading, or its save does not load under it (ContainerSaveRefused); wait for ContainerReady"
    )]
    NotReady(Entity),
    /// The container's adoption file was refused (it failed to load,
    /// validate or compile), so the container has no rules; it answers
    /// once a fixed file loads.
    #[error(
        "container {container} answers no requests: its adoption was refused. {reason}\nFix the file; the container gets its rules when it loads (hot reload, or AssetServer::reload)"
    )]
    AdoptionRefused {
        /// The container.
        container: Entity,
        /// Why: the file and where its problems are (the first line of
        /// the container's status reason, which holds each problem).
        reason: String,
    },
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
