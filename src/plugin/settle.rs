//! Settling in the world: the [`Containers`] system parameter runs engine
//! operations on container entities and puts every item that leaves where
//! the rules say (spec sections 4, 6 and 8). Every fallback ends in a loose
//! pickup and a warning, never a lost item.

use std::sync::Arc;

use bevy::ecs::entity::Entities;
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;

use super::components::{ContainerContents, LoosePickup, OverflowStore};
use super::messages::{
    ContainerRearranged, ItemsDelivered, ItemsForcedOut, ItemsTaken, RequestUnanswered, Settled,
};
use crate::contents::{Contents, Delivered, ForcedOut, Rearranged, Reason, Taken};
use crate::decimal::Decimal;
use crate::rules::{LeftoverDestination, Rules, WhenForcedOut};
use crate::save::{AdoptionId, LoadRefused, SavedContents};

/// Where the next loose pickup goes around its container, so pickups dropped
/// together do not hide each other.
#[derive(Resource, Default, Debug)]
pub struct PickupPlacement(u32);

impl PickupPlacement {
    fn next_offset(&mut self) -> Vec3 {
        let k = self.0 % 8;
        self.0 = self.0.wrapping_add(1);
        let angle = k as f32 * std::f32::consts::TAU / 8.0;
        Vec3::new(60.0 * angle.cos(), 60.0 * angle.sin() - 8.0, 0.0)
    }
}

/// Runs container operations right away and settles their items: for game
/// code that needs the answer now ("take 3 wood: did I get them?"). The
/// request messages go through the same code, so both paths obey the same
/// rules. Every operation also writes its outcome message.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_container::plugin::Containers;
///
/// #[derive(Component)]
/// struct Workbench { bag: Entity }
///
/// fn craft_plank(mut containers: Containers, bench: Single<&Workbench>) {
///     if containers.count(bench.bag, "wood") >= 3 {
///         let taken = containers.take(bench.bag, "wood", 3, None).unwrap();
///         if taken.taken == 3 {
///             containers.deliver(bench.bag, "plank", 1, None).unwrap();
///         }
///     }
/// }
/// # let _ = craft_plank;
/// ```
#[derive(SystemParam)]
pub struct Containers<'w, 's> {
    contents: Query<
        'w,
        's,
        (
            &'static mut ContainerContents,
            &'static Transform,
            Option<&'static OverflowStore>,
        ),
    >,
    pickups: Query<'w, 's, &'static mut LoosePickup, Without<ContainerContents>>,
    entities: &'w Entities,
    placement: ResMut<'w, PickupPlacement>,
    commands: Commands<'w, 's>,
    delivered: MessageWriter<'w, ItemsDelivered>,
    taken: MessageWriter<'w, ItemsTaken>,
    forced: MessageWriter<'w, ItemsForcedOut>,
    rearranged: MessageWriter<'w, ContainerRearranged>,
    unanswered: MessageWriter<'w, RequestUnanswered>,
}

/// Why a request did not reach a container's engine.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NotAnswered {
    /// The entity has no container.
    #[error("entity {0} is not a container; add Container to it")]
    NotAContainer(Entity),
    /// The adoption is not loaded (or did not compile) yet.
    #[error("container {0} has no contents yet: its adoption is still loading or has errors")]
    NotReady(Entity),
    /// The pickup named is not a loose pickup, or holds another type.
    #[error("{0}")]
    BadPickup(String),
}

/// Why a save did not load into a container.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// The container cannot take requests.
    #[error(transparent)]
    NotAnswered(#[from] NotAnswered),
    /// The container holds items; a load would replace them.
    #[error(
        "container {0} holds items and a load would replace them; load into an empty container"
    )]
    NotEmpty(Entity),
    /// The migration to the current rules was refused; nothing was loaded.
    #[error(transparent)]
    Refused(#[from] LoadRefused),
}

struct Ledger {
    settled: Vec<Settled>,
    warnings: Vec<String>,
}

impl Ledger {
    fn new() -> Ledger {
        Ledger {
            settled: Vec::new(),
            warnings: Vec::new(),
        }
    }
}

impl Containers<'_, '_> {
    /// How many of `item` `container` holds (0 when it is not a container).
    pub fn count(&self, container: Entity, item: &str) -> u64 {
        self.contents
            .get(container)
            .map_or(0, |(c, _, _)| c.count(item))
    }

    /// The engine of `container`, once loaded.
    pub fn contents(&self, container: Entity) -> Option<&Contents> {
        self.contents
            .get(container)
            .ok()
            .and_then(|(c, _, _)| c.engine())
    }

    /// Runs `op` on `container`'s engine and refreshes its mirror: only the
    /// slots the outcome names, or all of it when `touched` gives none.
    fn with_engine<R: Touches>(
        &mut self,
        container: Entity,
        op: impl FnOnce(&mut Contents) -> R,
    ) -> Result<R, NotAnswered> {
        let (mut c, _, _) = self
            .contents
            .get_mut(container)
            .map_err(|_| NotAnswered::NotAContainer(container))?;
        let c = &mut *c;
        let engine = c.engine.as_mut().ok_or(NotAnswered::NotReady(container))?;
        let r = op(engine);
        r.refresh(c);
        Ok(r)
    }

    fn unanswered(&mut self, container: Entity, why: &NotAnswered) {
        warn!("{why}");
        self.unanswered.write(RequestUnanswered {
            container,
            reason: why.to_string(),
        });
    }

    /// Delivers `amount` of `item` to `container` and settles what does not
    /// enter. See [`super::Deliver`].
    pub fn deliver(
        &mut self,
        container: Entity,
        item: &str,
        amount: u32,
        sender: Option<Entity>,
    ) -> Result<ItemsDelivered, NotAnswered> {
        let msg = self.settle_delivery(container, item, amount, sender)?;
        self.delivered.write(msg.clone());
        Ok(msg)
    }

    /// [`Self::deliver`] for the request system: the outcome goes to the
    /// message only, without a copy for the caller.
    pub(crate) fn answer_deliver(&mut self, r: &super::Deliver) {
        if let Ok(msg) = self.settle_delivery(r.container, r.item.as_str(), r.amount, r.sender) {
            self.delivered.write(msg);
        }
    }

    fn settle_delivery(
        &mut self,
        container: Entity,
        item: &str,
        amount: u32,
        sender: Option<Entity>,
    ) -> Result<ItemsDelivered, NotAnswered> {
        // Items offered by a pickup leave it now; what is not accepted goes
        // back into it below.
        let mut offered = amount;
        let pickup = sender.filter(|s| self.pickups.contains(*s));
        if let Some(p) = pickup {
            let Ok(mut pk) = self.pickups.get_mut(p) else {
                unreachable!("checked above")
            };
            if pk.item != item {
                let why = NotAnswered::BadPickup(format!(
                    "pickup {p} holds {}, not {item}; deliver its own item",
                    pk.item
                ));
                self.unanswered(container, &why);
                return Err(why);
            }
            offered = offered.min(pk.amount);
            pk.amount -= offered;
        }
        let outcome = match self.with_engine(container, |e| e.deliver(item, offered)) {
            Ok(o) => o,
            Err(why) => {
                if let Some(p) = pickup
                    && let Ok(mut pk) = self.pickups.get_mut(p)
                {
                    pk.amount += offered;
                }
                self.unanswered(container, &why);
                return Err(why);
            }
        };
        let mut ledger = Ledger::new();
        if let Some(r) = &outcome.refused {
            self.back_to_sender(container, sender, item, r.amount, &mut ledger);
        }
        if let Some(l) = &outcome.leftover {
            self.settle_leftover(container, sender, item, l.amount, l.to, &mut ledger);
        }
        if let Some(p) = pickup
            && self.pickups.get(p).is_ok_and(|pk| pk.amount == 0)
        {
            self.commands.entity(p).despawn();
        }
        Ok(ItemsDelivered {
            container,
            sender,
            outcome,
            settled: ledger.settled,
            warnings: ledger.warnings,
        })
    }

    /// Picks up a loose pickup into `container`.
    pub fn pick_up(
        &mut self,
        container: Entity,
        pickup: Entity,
    ) -> Result<ItemsDelivered, NotAnswered> {
        let Ok(pk) = self.pickups.get(pickup) else {
            let why = NotAnswered::BadPickup(format!("entity {pickup} is not a loose pickup"));
            self.unanswered(container, &why);
            return Err(why);
        };
        let (item, amount) = (pk.item.clone(), pk.amount);
        self.deliver(container, &item, amount, Some(pickup))
    }

    /// Takes up to `amount` of `item` (from `slot` when given); the taken
    /// items are the caller's.
    pub fn take(
        &mut self,
        container: Entity,
        item: &str,
        amount: u32,
        slot: Option<u32>,
    ) -> Result<Taken, NotAnswered> {
        let outcome = self.settle_take(container, item, amount, slot)?;
        self.taken.write(ItemsTaken {
            container,
            outcome: outcome.clone(),
        });
        Ok(outcome)
    }

    /// [`Self::take`] for the request system, without a copy for the caller.
    pub(crate) fn answer_take(&mut self, r: &super::Take) {
        if let Ok(outcome) = self.settle_take(r.container, r.item.as_str(), r.amount, r.slot) {
            self.taken.write(ItemsTaken {
                container: r.container,
                outcome,
            });
        }
    }

    fn settle_take(
        &mut self,
        container: Entity,
        item: &str,
        amount: u32,
        slot: Option<u32>,
    ) -> Result<Taken, NotAnswered> {
        self.with_engine(container, |e| e.take_inner(item, amount, slot))
            .inspect_err(|why| self.unanswered(container, why))
    }

    /// Changes `container`'s capacity; forced-out items are settled.
    pub fn resize(
        &mut self,
        container: Entity,
        slot_count: Option<u32>,
        size_budget: Option<Decimal>,
    ) -> Result<ForcedOut, NotAnswered> {
        self.force(container, |e| e.resize(slot_count, size_budget))
    }

    /// Empties `container` because its owner is gone.
    pub fn owner_gone(&mut self, container: Entity) -> Result<ForcedOut, NotAnswered> {
        self.force(container, Contents::owner_gone)
    }

    /// Puts new rules in force on `container` (reload, tuning).
    pub fn change_rules(
        &mut self,
        container: Entity,
        rules: Arc<Rules>,
    ) -> Result<ForcedOut, NotAnswered> {
        self.force(container, |e| e.change_rules(rules))
    }

    /// Puts new slot rules in force on a `by-slot` container.
    pub fn change_slot_rules(
        &mut self,
        container: Entity,
        slot_rules: crate::contents::SlotRules,
    ) -> Result<ForcedOut, NotAnswered> {
        self.force(container, |e| e.change_slot_rules(slot_rules))
    }

    fn force(
        &mut self,
        container: Entity,
        op: impl FnOnce(&mut Contents) -> ForcedOut,
    ) -> Result<ForcedOut, NotAnswered> {
        let outcome = match self.with_engine(container, op) {
            Ok(o) => o,
            Err(why) => {
                self.unanswered(container, &why);
                return Err(why);
            }
        };
        self.settle_forced(container, &outcome);
        Ok(outcome)
    }

    /// Settles the portions of a forced removal and reports it.
    fn settle_forced(&mut self, container: Entity, outcome: &ForcedOut) {
        let mut ledger = Ledger::new();
        for p in &outcome.portions {
            let item = p.item.as_str();
            match p.to {
                WhenForcedOut::DroppedNearby => {
                    self.drop_beside(container, item, p.amount, &mut ledger)
                }
                WhenForcedOut::MovedToAnotherStore => {
                    self.send_to_store(container, item, p.amount, &mut vec![container], &mut ledger)
                }
                WhenForcedOut::Destroyed => ledger.settled.push(Settled::Destroyed {
                    item: item.to_string(),
                    amount: p.amount,
                }),
                WhenForcedOut::Never => {
                    // the engine never moves a `never` type; keep it anyway
                    ledger.warnings.push(format!(
                        "{} {item} marked never left container {container}; dropped beside it",
                        p.amount
                    ));
                    self.drop_beside(container, item, p.amount, &mut ledger)
                }
            }
        }
        if let Some(short) = &outcome.refused {
            info!("container {container}: forced removal refused, {short} cannot leave");
        }
        self.forced.write(ItemsForcedOut {
            container,
            outcome: outcome.clone(),
            settled: ledger.settled,
            warnings: ledger.warnings,
        });
    }

    /// Saves `container`'s contents with the adoption in force.
    pub fn save(&self, container: Entity) -> Result<SavedContents, NotAnswered> {
        let (c, _, _) = self
            .contents
            .get(container)
            .map_err(|_| NotAnswered::NotAContainer(container))?;
        match (c.engine(), c.adoption()) {
            (Some(e), Some(id)) => Ok(e.save(id)),
            _ => Err(NotAnswered::NotReady(container)),
        }
    }

    /// Loads a save into `container`, which must be empty (a load never
    /// replaces items). Under a changed adoption the items its rules no
    /// longer hold leave by their forced-out rules and are settled like any
    /// forced removal ([`ItemsForcedOut`] with cause `loaded`). A refused
    /// migration loads nothing.
    pub fn load(
        &mut self,
        container: Entity,
        save: &SavedContents,
    ) -> Result<ForcedOut, LoadError> {
        let (c, _, _) = self
            .contents
            .get(container)
            .map_err(|_| NotAnswered::NotAContainer(container))?;
        let (Some(engine), Some(id)) = (c.engine(), c.adoption()) else {
            return Err(NotAnswered::NotReady(container).into());
        };
        if !engine.is_empty() {
            return Err(LoadError::NotEmpty(container));
        }
        let loaded = Contents::load(
            engine.rules().clone(),
            engine.slot_rules().cloned(),
            save,
            id,
        )?;
        if let Ok((mut c, _, _)) = self.contents.get_mut(container) {
            c.engine = Some(loaded.contents);
            c.refresh();
        }
        self.settle_forced(container, &loaded.migrated);
        Ok(loaded.migrated)
    }

    /// Records which adoption `container`'s rules now come from.
    pub(crate) fn set_adoption(&mut self, container: Entity, id: AdoptionId) {
        if let Ok((mut c, _, _)) = self.contents.get_mut(container) {
            c.adoption = Some(id);
        }
    }

    /// Sorts `container`.
    pub fn sort(&mut self, container: Entity, order: &[&str]) -> Result<Rearranged, NotAnswered> {
        self.rearrange(container, |e| e.sort(order))
    }

    /// Moves items between two slots of `container`.
    pub fn move_items(
        &mut self,
        container: Entity,
        from: u32,
        to: u32,
        amount: Option<u32>,
    ) -> Result<Rearranged, NotAnswered> {
        self.rearrange(container, |e| e.move_items(from, to, amount))
    }

    fn rearrange(
        &mut self,
        container: Entity,
        op: impl FnOnce(&mut Contents) -> Rearranged,
    ) -> Result<Rearranged, NotAnswered> {
        let outcome = match self.with_engine(container, op) {
            Ok(o) => o,
            Err(why) => {
                self.unanswered(container, &why);
                return Err(why);
            }
        };
        self.rearranged.write(ContainerRearranged {
            container,
            outcome: outcome.clone(),
        });
        Ok(outcome)
    }

    // ---- settling ----

    fn settle_leftover(
        &mut self,
        container: Entity,
        sender: Option<Entity>,
        item: &str,
        amount: u32,
        to: LeftoverDestination,
        ledger: &mut Ledger,
    ) {
        match to {
            LeftoverDestination::BackToTheSender => {
                self.back_to_sender(container, sender, item, amount, ledger)
            }
            LeftoverDestination::LeftWhereItIs => self.drop_beside(container, item, amount, ledger),
            LeftoverDestination::AnotherStore => {
                self.send_to_store(container, item, amount, &mut vec![container], ledger)
            }
            LeftoverDestination::Destroyed => ledger.settled.push(Settled::Destroyed {
                item: item.to_string(),
                amount,
            }),
        }
    }

    /// Returns items to whatever offered them.
    fn back_to_sender(
        &mut self,
        container: Entity,
        sender: Option<Entity>,
        item: &str,
        amount: u32,
        ledger: &mut Ledger,
    ) {
        if amount == 0 {
            return;
        }
        let Some(s) = sender else {
            ledger.settled.push(Settled::Caller {
                sender: None,
                item: item.to_string(),
                amount,
            });
            return;
        };
        if let Ok(mut pk) = self.pickups.get_mut(s) {
            if pk.item == item {
                pk.amount = pk.amount.saturating_add(amount);
                ledger.settled.push(Settled::Pickup {
                    pickup: s,
                    item: item.to_string(),
                    amount,
                });
                return;
            }
        } else if self.contents.contains(s) && s != container {
            let outcome = self
                .with_engine(s, |e| e.deliver(item, amount))
                .unwrap_or_else(|_| Delivered::refused(item.into(), amount, Reason::NotReady));
            if outcome.accepted > 0 {
                ledger.settled.push(Settled::Container {
                    container: s,
                    item: item.to_string(),
                    amount: outcome.accepted,
                });
            }
            let rest = amount - outcome.accepted;
            if rest > 0 {
                ledger.warnings.push(format!(
                    "sending container {s} could not take back {rest} {item}; they lie beside it as a loose pickup"
                ));
                self.drop_beside(s, item, rest, ledger);
            }
            return;
        } else if self.entities.contains(s) {
            ledger.settled.push(Settled::Caller {
                sender: Some(s),
                item: item.to_string(),
                amount,
            });
            return;
        }
        ledger.warnings.push(format!(
            "the sender {s} of {amount} {item} is gone; they lie beside container {container} as a loose pickup"
        ));
        self.drop_beside(container, item, amount, ledger);
    }

    /// Delivers to the container's named store, under the store's rules.
    fn send_to_store(
        &mut self,
        container: Entity,
        item: &str,
        amount: u32,
        visited: &mut Vec<Entity>,
        ledger: &mut Ledger,
    ) {
        let store = self
            .contents
            .get(container)
            .ok()
            .and_then(|(_, _, s)| s.copied());
        let origin = visited[0];
        let Some(OverflowStore(store)) = store else {
            ledger.warnings.push(format!(
                "container {container} sends {amount} {item} to another store but names none; add OverflowStore(entity) to it. They lie beside it as a loose pickup"
            ));
            self.drop_beside(container, item, amount, ledger);
            return;
        };
        if visited.contains(&store) {
            ledger.warnings.push(format!(
                "stores loop back to {store} while settling {amount} {item}; break the OverflowStore chain. They lie beside container {origin} as a loose pickup"
            ));
            self.drop_beside(origin, item, amount, ledger);
            return;
        }
        let outcome = match self.with_engine(store, |e| e.deliver(item, amount)) {
            Ok(o) => o,
            Err(why) => {
                ledger.warnings.push(format!(
                    "store {store} cannot take {amount} {item} ({why}); they lie beside container {container} as a loose pickup"
                ));
                self.drop_beside(container, item, amount, ledger);
                return;
            }
        };
        visited.push(store);
        if outcome.accepted > 0 {
            ledger.settled.push(Settled::Container {
                container: store,
                item: item.to_string(),
                amount: outcome.accepted,
            });
        }
        if let Some(r) = &outcome.refused {
            ledger.warnings.push(format!(
                "store {store} refused {} {item} ({}); they lie beside container {container} as a loose pickup",
                r.amount, r.reason
            ));
            self.drop_beside(container, item, r.amount, ledger);
        }
        if let Some(l) = &outcome.leftover {
            match l.to {
                LeftoverDestination::AnotherStore => {
                    self.send_to_store(store, item, l.amount, visited, ledger)
                }
                LeftoverDestination::Destroyed => ledger.settled.push(Settled::Destroyed {
                    item: item.to_string(),
                    amount: l.amount,
                }),
                LeftoverDestination::LeftWhereItIs => {
                    self.drop_beside(store, item, l.amount, ledger)
                }
                LeftoverDestination::BackToTheSender => {
                    ledger.warnings.push(format!(
                        "store {store} sends {} {item} back, but container {container} is what overflowed; they lie beside the store as a loose pickup",
                        l.amount
                    ));
                    self.drop_beside(store, item, l.amount, ledger)
                }
            }
        }
    }

    /// Spawns a loose pickup beside `at`.
    fn drop_beside(&mut self, at: Entity, item: &str, amount: u32, ledger: &mut Ledger) {
        if amount == 0 {
            return;
        }
        let base = self
            .contents
            .get(at)
            .map_or(Vec3::ZERO, |(_, t, _)| t.translation);
        let pickup = spawn_pickup(&mut self.commands, &mut self.placement, base, item, amount);
        ledger.settled.push(Settled::Pickup {
            pickup,
            item: item.to_string(),
            amount,
        });
    }
}

/// Refreshes a container's mirror after an outcome: only the slots it
/// names when it knows them, all of it otherwise.
trait Touches {
    fn refresh(&self, c: &mut ContainerContents);
}

impl Touches for Delivered {
    fn refresh(&self, c: &mut ContainerContents) {
        c.refresh_slots(self.item.as_str(), self.landed.iter().map(|l| l.slot));
    }
}

impl Touches for Taken {
    fn refresh(&self, c: &mut ContainerContents) {
        c.refresh_slots(self.item.as_str(), self.from.iter().map(|l| l.slot));
    }
}

impl Touches for ForcedOut {
    fn refresh(&self, c: &mut ContainerContents) {
        c.refresh();
    }
}

impl Touches for Rearranged {
    fn refresh(&self, c: &mut ContainerContents) {
        if self.refused.is_none() {
            c.refresh();
        }
    }
}

/// Spawns a loose pickup near `base`.
pub(crate) fn spawn_pickup(
    commands: &mut Commands,
    placement: &mut PickupPlacement,
    base: Vec3,
    item: &str,
    amount: u32,
) -> Entity {
    let at = base + placement.next_offset();
    commands
        .spawn((
            Name::new(format!("{amount} {item}")),
            LoosePickup {
                item: item.to_string(),
                amount,
            },
            Transform::from_translation(at),
        ))
        .id()
}
