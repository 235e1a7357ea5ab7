//! The plugin's systems: compiling rules onto containers, reacting to
//! reloads and tuning, answering requests, and spilling despawned
//! containers.

use std::collections::BTreeSet;
use std::sync::Arc;

use bevy::asset::AssetLoadFailedEvent;
use bevy::prelude::*;

use super::ContainerTuning;
use super::asset::AdoptionAsset;
use super::components::{Container, ContainerContents, ContainerSlotRules};
use super::messages::*;
use super::settle::{Containers, PickupPlacement, spawn_pickup};
use crate::adoption::{Report, Tuning};
use crate::contents::Contents;
use crate::hash::FxHashMap;
use crate::rules::Rules;

/// Rules compiled for each adoption asset under the current tuning, shared
/// by every container that uses it and by every system that needs them:
/// one compile and one copy in memory for ten thousand backpacks.
#[derive(Resource, Default)]
pub(crate) struct CompiledRules(FxHashMap<AssetId<AdoptionAsset>, Arc<Rules>>);

impl CompiledRules {
    /// The rules of the adoption `id` (the asset `asset`) under `tuning`:
    /// compiled on first use, then shared until the file or the tuning
    /// changes ([`forget_stale_rules`]).
    fn get(
        &mut self,
        id: AssetId<AdoptionAsset>,
        asset: &AdoptionAsset,
        tuning: &Tuning,
    ) -> Result<Arc<Rules>, Report> {
        if let Some(rules) = self.0.get(&id) {
            return Ok(rules.clone());
        }
        let rules = Arc::new(Rules::compile(&asset.adoption, tuning)?);
        self.0.insert(id, rules.clone());
        Ok(rules)
    }
}

/// Drops the shared rules a changed, removed or unused file or a tuning
/// change has made stale; runs before the systems that use them.
pub(crate) fn forget_stale_rules(
    mut events: MessageReader<AssetEvent<AdoptionAsset>>,
    tuning: Res<ContainerTuning>,
    mut compiled: ResMut<CompiledRules>,
) {
    if tuning.is_changed() {
        compiled.0.clear();
    }
    for event in events.read() {
        if let AssetEvent::Modified { id }
        | AssetEvent::Removed { id }
        | AssetEvent::Unused { id } = event
        {
            compiled.0.remove(id);
        }
    }
}

/// Gives each new container its engine once its adoption is loaded.
pub(crate) fn attach_engines(
    mut containers: Query<(
        Entity,
        &Container,
        &mut ContainerContents,
        Option<&ContainerSlotRules>,
    )>,
    assets: Res<Assets<AdoptionAsset>>,
    tuning: Res<ContainerTuning>,
    mut compiled: ResMut<CompiledRules>,
    mut reported: Local<BTreeSet<Entity>>,
) {
    for (entity, container, mut contents, slot_rules) in &mut containers {
        if contents.engine.is_some() {
            continue;
        }
        let id = container.adoption.id();
        let Some(asset) = assets.get(id) else {
            continue;
        };
        match compiled.get(id, asset, &tuning.0) {
            Ok(rules) => {
                let mut engine = Contents::new(rules);
                if let Some(sr) = slot_rules {
                    engine.set_slot_rules(Some(sr.to_rules()));
                }
                contents.engine = Some(engine);
                contents.adoption = Some(asset.id.clone());
                contents.refresh();
                reported.remove(&entity);
            }
            Err(report) => {
                if reported.insert(entity) {
                    error!(
                        "container {entity}: its adoption does not compile with the game's tuning; fix the tuning or the file:\n{report}"
                    );
                }
            }
        }
    }
}

/// Recompiles the rules of every container whose adoption was reloaded, and
/// reports adoptions that failed to (re)load.
#[allow(clippy::too_many_arguments)]
pub(crate) fn apply_adoption_changes(
    mut events: MessageReader<AssetEvent<AdoptionAsset>>,
    mut failures: MessageReader<AssetLoadFailedEvent<AdoptionAsset>>,
    mut rejected: MessageWriter<AdoptionRejected>,
    assets: Res<Assets<AdoptionAsset>>,
    tuning: Res<ContainerTuning>,
    mut compiled: ResMut<CompiledRules>,
    containers: Query<(Entity, &Container)>,
    mut ops: Containers,
) {
    for failure in failures.read() {
        let message = failure.error.to_string();
        warn!("{message}; containers using it keep their previous rules");
        rejected.write(AdoptionRejected {
            path: failure.path.to_string(),
            message,
            report: None,
        });
    }
    let mut modified: Vec<AssetId<AdoptionAsset>> = Vec::new();
    for event in events.read() {
        if let AssetEvent::Modified { id } = event
            && !modified.contains(id)
        {
            modified.push(*id);
        }
    }
    for id in modified {
        let Some(asset) = assets.get(id) else {
            continue;
        };
        let mut users: Vec<Entity> = containers
            .iter()
            .filter(|(_, c)| c.adoption.id() == id)
            .map(|(e, _)| e)
            .collect();
        users.sort();
        let rules = match compiled.get(id, asset, &tuning.0) {
            Ok(r) => r,
            Err(report) => {
                reject(&mut rejected, id, report);
                continue;
            }
        };
        for entity in users {
            if ops.contents(entity).is_some_and(|e| **e.rules() != *rules) {
                match ops.change_rules(entity, rules.clone()) {
                    Ok(out) if out.refused.is_none() => ops.set_adoption(entity, asset.id.clone()),
                    _ => {}
                }
            } else {
                ops.set_adoption(entity, asset.id.clone());
            }
        }
    }
}

fn reject(
    rejected: &mut MessageWriter<AdoptionRejected>,
    id: AssetId<AdoptionAsset>,
    report: Report,
) {
    let message = format!(
        "adoption {id:?} does not compile with the game's tuning; containers using it keep their previous rules:\n{report}"
    );
    warn!("{message}");
    rejected.write(AdoptionRejected {
        path: format!("{id:?}"),
        message,
        report: Some(report),
    });
}

/// Re-resolves every container's values when the game's tuning changes.
pub(crate) fn apply_tuning_changes(
    tuning: Res<ContainerTuning>,
    assets: Res<Assets<AdoptionAsset>>,
    mut compiled: ResMut<CompiledRules>,
    containers: Query<(Entity, &Container)>,
    mut rejected: MessageWriter<AdoptionRejected>,
    mut ops: Containers,
) {
    if !tuning.is_changed() || tuning.is_added() {
        return;
    }
    let mut users: Vec<(Entity, AssetId<AdoptionAsset>)> = containers
        .iter()
        .map(|(e, c)| (e, c.adoption.id()))
        .collect();
    users.sort_by_key(|(e, _)| *e);
    // an adoption that does not compile is reported once
    let mut failed: Vec<AssetId<AdoptionAsset>> = Vec::new();
    for (entity, id) in users {
        let Some(asset) = assets.get(id) else {
            continue;
        };
        if failed.contains(&id) {
            continue;
        }
        let rules = match compiled.get(id, asset, &tuning.0) {
            Ok(rules) => rules,
            Err(report) => {
                reject(&mut rejected, id, report);
                failed.push(id);
                continue;
            }
        };
        if ops.contents(entity).is_some_and(|e| **e.rules() != *rules) {
            let _ = ops.change_rules(entity, rules);
        }
    }
}

/// Puts changed slot rules in force.
pub(crate) fn apply_slot_rules_changes(
    changed: Query<(Entity, &ContainerSlotRules), Changed<ContainerSlotRules>>,
    mut ops: Containers,
) {
    let mut list: Vec<(Entity, &ContainerSlotRules)> = changed.iter().collect();
    list.sort_by_key(|(e, _)| *e);
    for (entity, sr) in list {
        let rules = sr.to_rules();
        if ops
            .contents(entity)
            .is_some_and(|e| e.slot_rules() != Some(&rules))
        {
            let _ = ops.change_slot_rules(entity, rules);
        }
    }
}

/// Answers the request messages, in this order each frame: pickups and
/// deliveries, takes, moves, sorts, resizes, owners gone.
#[allow(clippy::too_many_arguments)]
pub(crate) fn handle_requests(
    mut pick_ups: MessageReader<PickUp>,
    mut delivers: MessageReader<Deliver>,
    mut takes: MessageReader<Take>,
    mut moves: MessageReader<MoveItems>,
    mut sorts: MessageReader<Sort>,
    mut resizes: MessageReader<Resize>,
    mut gone: MessageReader<EmptyForGoneOwner>,
    mut ops: Containers,
) {
    for r in pick_ups.read() {
        let _ = ops.pick_up(r.container, r.pickup);
    }
    for r in delivers.read() {
        ops.answer_deliver(r);
    }
    for r in takes.read() {
        ops.answer_take(r);
    }
    for r in moves.read() {
        let _ = ops.move_items(r.container, r.from, r.to, r.amount);
    }
    for r in sorts.read() {
        let order: Vec<&str> = r.order.iter().map(String::as_str).collect();
        let _ = ops.sort(r.container, &order);
    }
    for r in resizes.read() {
        let _ = ops.resize(r.container, r.slot_count, r.size_budget);
    }
    for r in gone.read() {
        let _ = ops.owner_gone(r.container);
    }
}

/// A container despawned holding items drops them as loose pickups:
/// despawning cannot be refused, so nothing may vanish with it.
pub(crate) fn spill_on_despawn(
    removed: On<Remove, ContainerContents>,
    containers: Query<(&ContainerContents, Option<&Transform>)>,
    mut placement: ResMut<PickupPlacement>,
    mut spilled: MessageWriter<ContainerSpilled>,
    mut commands: Commands,
) {
    let entity = removed.entity;
    let Ok((contents, transform)) = containers.get(entity) else {
        return;
    };
    let Some(engine) = contents.engine() else {
        return;
    };
    if engine.is_empty() {
        return;
    }
    let base = transform.map_or(Vec3::ZERO, |t| t.translation);
    let mut settled = Vec::new();
    let stacks: Vec<(String, u32)> = engine
        .slots()
        .flatten()
        .map(|s| (s.item.to_string(), s.amount))
        .chain(engine.holdings().map(|(k, v)| (k.to_string(), v)))
        .collect();
    for (item, amount) in stacks {
        let pickup = spawn_pickup(&mut commands, &mut placement, base, &item, amount);
        settled.push(Settled::Pickup {
            pickup,
            item,
            amount,
        });
    }
    warn!(
        "container {entity} was despawned holding items; they lie where it was as {} loose pickups. Send EmptyForGoneOwner first to settle them by the rules",
        settled.len()
    );
    spilled.write(ContainerSpilled {
        container: entity,
        settled,
    });
}
