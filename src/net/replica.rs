//! What a client sees of a container: [`ContainerReplica`], replicated as
//! diffs (one changed slot of a 10,000-slot bank sends that slot), and
//! turned back into a [`ContainerContents`] on the client so that
//! everything reading contents (the UI, game code) works unchanged.

use bevy::prelude::*;
use bevy_replicon::prelude::*;
use serde::{Deserialize, Serialize};

use super::access::ContainerAccess;
use crate::contents::Contents;
use crate::plugin::{
    AdoptionAsset, CompiledRules, Container, ContainerContents, ContainerSlotRules,
    ContainerTuning, DespawnPolicy,
};
use crate::save::{AdoptionId, SavedContents, SavedStack};

/// A container's contents as its clients see them: its save (the
/// adoption, the capacity in force, the draw-order counter, every slot or
/// holding), kept by the server from the engine after every change and sent
/// as diffs; a client loads its [`ContainerContents`] from it. The save's
/// `rows` stay empty: a client loads under the same adoption, so no type
/// leaves by an old rule.
#[derive(Component, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContainerReplica(pub SavedContents);

/// One change of a [`ContainerReplica`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ReplicaChange {
    /// Slot `0` now holds `1`.
    Slot(u32, Option<SavedStack>),
    /// The slot list is now this long (a resize, or a no-limit container
    /// growing or shrinking).
    SlotLen(u32),
    /// The holdings are now these.
    Holdings(Vec<SavedStack>),
    /// The capacity in force.
    Capacity {
        /// The container's own capacity?
        resized: bool,
        /// Slots.
        slot_count: u32,
        /// Size budget.
        size_budget: String,
    },
    /// The draw-order counter.
    Counter(u64),
}

impl Diffable for ContainerReplica {
    /// The changes of one server tick, in order.
    type Diff = Vec<ReplicaChange>;

    fn apply_diff(&mut self, diff: &Self::Diff) -> Result<()> {
        let save = &mut self.0;
        for change in diff {
            match change {
                ReplicaChange::Slot(i, stack) => {
                    let slot = save
                        .slots
                        .get_mut(*i as usize)
                        .ok_or_else(|| format!("replica has no slot {i}"))?;
                    *slot = stack.clone();
                }
                ReplicaChange::SlotLen(n) => {
                    let n = (*n).min(crate::limits::MAX_SLOTS) as usize;
                    save.slots.resize(n, None);
                }
                ReplicaChange::Holdings(h) => save.holdings = h.clone(),
                ReplicaChange::Capacity {
                    resized,
                    slot_count,
                    size_budget,
                } => {
                    save.resized = *resized;
                    save.slot_count = *slot_count;
                    save.size_budget = size_budget.clone();
                }
                ReplicaChange::Counter(c) => save.counter = *c,
            }
        }
        Ok(())
    }
}

impl ContainerReplica {
    /// The replica of `engine`, whose rules come from `adoption`.
    pub(crate) fn of(engine: &Contents, adoption: &AdoptionId) -> ContainerReplica {
        let mut save = engine.save(adoption);
        save.rows.clear();
        ContainerReplica(save)
    }

    /// What changed from `self` to `engine` (empty when nothing did).
    fn changes_to(&self, engine: &Contents) -> Vec<ReplicaChange> {
        let was = &self.0;
        let mut out = Vec::new();
        let (resized, slot_count, size_budget) = engine.saved_capacity();
        if (resized, slot_count, &size_budget) != (was.resized, was.slot_count, &was.size_budget) {
            out.push(ReplicaChange::Capacity {
                resized,
                slot_count,
                size_budget,
            });
        }
        let len = engine.saved_slot_len();
        if len != was.slots.len() {
            out.push(ReplicaChange::SlotLen(
                u32::try_from(len).unwrap_or(u32::MAX),
            ));
        }
        for i in 0..len {
            if !engine.slot_is(i, was.slots.get(i).and_then(Option::as_ref)) {
                out.push(ReplicaChange::Slot(i as u32, engine.saved_slot(i)));
            }
        }
        if !engine.holdings_are(&was.holdings) {
            out.push(ReplicaChange::Holdings(engine.saved_holdings()));
        }
        if engine.counter() != was.counter {
            out.push(ReplicaChange::Counter(engine.counter()));
        }
        out
    }
}

/// The server's containers whose contents or access changed.
type Published<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        &'static ContainerContents,
        Option<&'static ContainerReplica>,
    ),
    (
        With<ContainerAccess>,
        Or<(Changed<ContainerContents>, Changed<ContainerAccess>)>,
    ),
>;

/// Server: writes every changed container's replica, as diffs once it has
/// one (so a one-slot change sends one slot).
pub(crate) fn publish_replicas(containers: Published, mut commands: Commands) {
    for (entity, contents, replica) in &containers {
        let (Some(engine), Some(adoption)) = (contents.engine(), contents.adoption()) else {
            continue;
        };
        match replica {
            Some(r) if r.0.adoption == *adoption => {
                let changes = r.changes_to(engine);
                if !changes.is_empty() {
                    // the container may be despawned by the game's commands
                    // of this frame before these apply
                    commands.queue(move |world: &mut World| {
                        if let Ok(mut e) = world.get_entity_mut(entity) {
                            let _ = e.apply_diff::<ContainerReplica>(changes);
                        }
                    });
                }
            }
            _ => {
                commands
                    .entity(entity)
                    .try_insert((Replicated, ContainerReplica::of(engine, adoption)));
            }
        }
    }
}

/// The client's replicated containers whose replica changed.
type Adopted<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        &'static ContainerReplica,
        Option<&'static Container>,
        Option<&'static ContainerSlotRules>,
        Option<&'static mut ContainerContents>,
    ),
    (With<Remote>, Changed<ContainerReplica>),
>;

/// Client: gives every replicated container its [`Container`] (the same
/// adoption, found among the loaded ones by its hash, or loaded by its
/// path) and rebuilds its engine from the replica whenever that changes.
pub(crate) fn adopt_replicas(
    mut replicas: Adopted,
    mut assets: ResMut<Assets<AdoptionAsset>>,
    server: Res<AssetServer>,
    tuning: Res<ContainerTuning>,
    mut compiled: ResMut<CompiledRules>,
    mut commands: Commands,
) {
    for (entity, replica, container, slot_rules, contents) in &mut replicas {
        // the save is cloned only where a container keeps it waiting
        let save = &replica.0;
        let (Some(container), Some(mut contents)) = (container, contents) else {
            let loaded = assets
                .iter()
                .find(|(_, a)| a.id == save.adoption)
                .map(|(id, _)| id);
            let handle = loaded
                .and_then(|id| match id {
                    // an asset added under a fixed id keeps that id
                    AssetId::Uuid { uuid } => Some(Handle::from(uuid)),
                    AssetId::Index { .. } => assets.get_strong_handle(id),
                })
                .unwrap_or_else(|| server.load(save.adoption.path.clone()));
            commands.entity(entity).try_insert((
                Container::new(handle),
                ContainerContents::with_pending(save.clone()),
                // the server settles what a container holds when it goes;
                // a client's copy just leaves
                DespawnPolicy::LeaveWithContents,
            ));
            continue;
        };
        let Some(asset) = assets.get(container.adoption.id()) else {
            contents.set_pending(save.clone());
            continue;
        };
        if asset.id != save.adoption {
            warn!(
                "container {entity}: the server's adoption {} ({}) differs from this client's ({}); the client's copy may not match",
                save.adoption.path, save.adoption.hash, asset.id.hash
            );
        }
        match compiled.get(container.adoption.id(), asset, &tuning.0) {
            Ok(rules) => contents.replace_engine(rules, slot_rules, save, &asset.id),
            Err(_) => contents.set_pending(save.clone()),
        }
    }
}
