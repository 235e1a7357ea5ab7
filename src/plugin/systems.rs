//! The plugin's systems: compiling rules onto containers, reacting to
//! reloads and tuning, answering requests, and spilling despawned
//! containers.

use std::collections::BTreeSet;
use std::sync::Arc;

use bevy::asset::AssetLoadFailedEvent;
use bevy::ecs::entity::EntityHashMap;
use bevy::ecs::schedule::ScheduleConfigs;
use bevy::ecs::system::{ScheduleSystem, SystemParam};
use bevy::prelude::*;
use bevy::transform::helper::TransformHelper;

use super::ContainerTuning;
use super::asset::AdoptionAsset;
use super::components::{Container, ContainerContents, ContainerSlotRules, DespawnPolicy};
use super::containers::Containers;
use super::frame::{ContainerFrameStats, ContainerParallelism, FrameScratch, answer_frame};
use super::guard;
use super::messages::*;
use super::placement::{PickupPlacement, spawn_pickup};
use super::watch::{self, OutcomeKind, Watched};
use crate::adoption::{Report, Tuning};
use crate::contents::{Contents, ForcedOut};
use crate::hash::FxHashMap;
use crate::rules::Rules;

/// The systems of [`super::ContainerSystems::Rules`], in order. Each has a
/// run condition that says when it has work, so a frame in which nothing
/// happens to containers runs none of them (the multi-threaded executor
/// checks a condition on its own thread; running a system wakes another).
pub(crate) fn rules_systems() -> ScheduleConfigs<ScheduleSystem> {
    (
        watch::watch_observers.run_if(watch::observers_changed),
        guard::undo_foreign_edits.run_if(guard::edited_elsewhere),
        forget_stale_rules.run_if(
            on_message::<AssetEvent<AdoptionAsset>>.or_eager(resource_changed::<ContainerTuning>),
        ),
        attach_engines.run_if(engines_to_attach),
        settle_loaded_saves.run_if(saves_to_settle),
        apply_adoption_changes.run_if(
            on_message::<AssetEvent<AdoptionAsset>>
                .or_eager(on_message::<AssetLoadFailedEvent<AdoptionAsset>>),
        ),
        apply_tuning_changes.run_if(resource_changed::<ContainerTuning>),
        apply_slot_rules_changes.run_if(any_match_filter::<Changed<ContainerSlotRules>>),
    )
        .chain()
}

/// The systems of [`super::ContainerSystems::Requests`], in order, with
/// their run conditions.
pub(crate) fn request_systems() -> ScheduleConfigs<ScheduleSystem> {
    (
        watch::watch_observers.run_if(watch::observers_changed),
        handle_requests.run_if(on_message::<ContainerRequest>.or_eager(stats_to_reset)),
        // with no container changed, there is no write of the plugin's to
        // set apart from others, and the note may stay where it is
        guard::note_written.run_if(any_match_filter::<Changed<ContainerContents>>),
    )
        .chain()
}

/// Rules compiled for each adoption asset under the current tuning, shared
/// by every container that uses it and by every system that needs them:
/// one compile and one copy in memory for ten thousand backpacks.
#[derive(Resource, Default)]
pub(crate) struct CompiledRules(FxHashMap<AssetId<AdoptionAsset>, Arc<Rules>>);

impl CompiledRules {
    /// The rules of the adoption `id` (the asset `asset`) under `tuning`:
    /// compiled on first use, then shared until the file or the tuning
    /// changes ([`forget_stale_rules`]).
    pub(crate) fn get(
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

/// Present while a networked client is connected: its requests go to the
/// server, and the plugin does not answer them locally.
#[derive(Resource)]
pub(crate) struct AnsweredByServer;

/// Saves read back with a world (a `DynamicWorld`) whose migration to the
/// current rules forced items out: settled by [`settle_loaded_saves`].
#[derive(Resource, Default)]
pub(crate) struct LoadedSaves(Vec<(Entity, ForcedOut)>);

/// Whether [`attach_engines`] left a container without its engine last
/// time (its file not loaded yet, or its save refused under the rules in
/// force): it looks again every frame until none is left.
#[derive(Resource, Default, PartialEq)]
pub(crate) struct AttachWaiting(bool);

/// The run condition of [`attach_engines`]: a container is still waiting,
/// or one changed since this condition last looked has no engine (new, or
/// a save written onto it by a scene or a server).
pub(crate) fn engines_to_attach(
    changed: Query<&ContainerContents, Changed<ContainerContents>>,
    waiting: Res<AttachWaiting>,
) -> bool {
    waiting.0 || changed.iter().any(|c| !c.is_ready())
}

/// What attaching rules reports.
#[derive(SystemParam)]
pub(crate) struct Attached<'w, 's> {
    waiting: ResMut<'w, AttachWaiting>,
    ready: MessageWriter<'w, ContainerReady>,
    refused: MessageWriter<'w, ContainerSaveRefused>,
    loaded: ResMut<'w, LoadedSaves>,
    watched: Res<'w, Watched>,
    commands: Commands<'w, 's>,
}

/// Gives each new container its engine once its adoption is loaded; a
/// container read back with a world gets its saved contents under the
/// current rules.
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
    mut refused_under: Local<EntityHashMap<Arc<Rules>>>,
    mut out: Attached,
) {
    let mut waiting = false;
    for (entity, container, mut contents, slot_rules) in &mut containers {
        if contents.is_ready() {
            continue;
        }
        let id = container.adoption.id();
        let Some(asset) = assets.get(id) else {
            waiting = true;
            continue;
        };
        let rules = match compiled.get(id, asset, &tuning.0) {
            Ok(rules) => rules,
            Err(report) => {
                if reported.insert(entity) {
                    error!(
                        "container {entity}: its adoption does not compile with the game's tuning; fix the tuning or the file:\n{report}"
                    );
                }
                waiting = true;
                continue;
            }
        };
        // a save refused under these very rules is not tried again
        if refused_under
            .get(&entity)
            .is_some_and(|r| Arc::ptr_eq(r, &rules))
        {
            waiting = true;
            continue;
        }
        let slot_rules = slot_rules.map(ContainerSlotRules::to_rules);
        let engine = match &contents.state.pending {
            None => {
                let mut engine = Contents::new(rules);
                engine.set_slot_rules(slot_rules);
                engine
            }
            Some(save) => match Contents::load(rules.clone(), slot_rules, save, &asset.id) {
                Ok(l) => {
                    refused_under.remove(&entity);
                    if !l.migrated.portions.is_empty() {
                        out.loaded.0.push((entity, l.migrated));
                    }
                    l.contents
                }
                Err(error) => {
                    // kept attached, never dropped: saved again as it was
                    refused_under.insert(entity, rules);
                    if reported.insert(entity) {
                        error!(
                            "container {entity}: its saved contents do not load under the current rules ({error}); they stay attached and unchanged"
                        );
                        let msg = ContainerSaveRefused {
                            container: entity,
                            error,
                        };
                        if out.watched.has(OutcomeKind::SaveRefused) {
                            out.commands.trigger(msg.clone());
                        }
                        out.refused.write(msg);
                    }
                    waiting = true;
                    continue;
                }
            },
        };
        contents.state.pending = None;
        contents.state.engine = Some(engine);
        contents.state.set_adoption(asset.id.clone());
        contents.refresh();
        reported.remove(&entity);
        out.ready.write(ContainerReady { container: entity });
        if out.watched.has(OutcomeKind::Ready) {
            out.commands.trigger(ContainerReady { container: entity });
        }
    }
    out.waiting.set_if_neq(AttachWaiting(waiting));
}

/// The run condition of [`settle_loaded_saves`].
pub(crate) fn saves_to_settle(loaded: Res<LoadedSaves>) -> bool {
    !loaded.0.is_empty()
}

/// Settles what the migration of a save read back with a world forced out
/// ([`ItemsForcedOut`] with cause `loaded`).
pub(crate) fn settle_loaded_saves(mut loaded: ResMut<LoadedSaves>, mut ops: Containers) {
    for (container, migrated) in std::mem::take(&mut loaded.0) {
        ops.report_forced(container, &migrated);
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
                reject(&mut rejected, id, Some(asset.id.path.clone()), report);
                continue;
            }
        };
        for entity in users {
            if ops.contents(entity).is_some_and(|e| **e.rules() != *rules) {
                match ops.change_rules(entity, rules.clone()) {
                    Ok(out) if out.refused.is_none() => ops.set_adoption(entity, asset.id.clone()),
                    _ => {}
                }
            } else if ops.contents(entity).is_some() {
                ops.set_adoption(entity, asset.id.clone());
            }
        }
    }
}

fn reject(
    rejected: &mut MessageWriter<AdoptionRejected>,
    id: AssetId<AdoptionAsset>,
    path: Option<String>,
    report: Report,
) {
    let name = path.clone().unwrap_or_else(|| format!("{id:?}"));
    let message = format!(
        "adoption {name} does not compile with the game's tuning; containers using it keep their previous rules:\n{report}"
    );
    warn!("{message}");
    rejected.write(AdoptionRejected {
        path: path.unwrap_or_else(|| format!("{id:?}")),
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
                reject(&mut rejected, id, Some(asset.id.path.clone()), report);
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

/// Answers the request messages in the order they were written, whatever
/// their kind (the guide's [`guide::world`](crate::guide::world)).
/// Requests to independent containers have their engine work spread over
/// threads by [`ContainerParallelism`]; the outcomes are the same.
pub(crate) fn handle_requests(
    mut requests: MessageReader<ContainerRequest>,
    mut ops: Containers,
    parallelism: Res<ContainerParallelism>,
    mut scratch: ResMut<FrameScratch>,
    mut stats: ResMut<ContainerFrameStats>,
    elsewhere: Option<Res<AnsweredByServer>>,
) {
    // a networked client's requests are the server's to answer; they are
    // read here all the same, so none is answered late once it is not
    if elsewhere.is_some() {
        requests.clear();
        return;
    }
    *stats = answer_frame(&mut requests, &mut ops, *parallelism, &mut scratch);
}

/// With no request to answer, [`handle_requests`] still runs once to set
/// [`ContainerFrameStats`] back to an empty frame.
pub(crate) fn stats_to_reset(stats: Res<ContainerFrameStats>) -> bool {
    *stats != ContainerFrameStats::default()
}

/// What the despawn observer reads of a container.
type Despawning = (
    &'static ContainerContents,
    Option<&'static DespawnPolicy>,
    Option<&'static GlobalTransform>,
    Option<&'static Transform>,
);

/// A container despawned holding items: by its [`DespawnPolicy`], they fall
/// out as loose pickups where it was, or leave the world with it, listed in
/// [`ContainerLeftWorld`]. Despawning cannot be refused, so nothing may
/// vanish unreported.
pub(crate) fn spill_on_despawn(
    removed: On<Remove, ContainerContents>,
    containers: Query<Despawning>,
    transforms: TransformHelper,
    mut placement: ResMut<PickupPlacement>,
    mut spilled: MessageWriter<ContainerSpilled>,
    mut left: MessageWriter<ContainerLeftWorld>,
    mut commands: Commands,
) {
    let entity = removed.entity;
    let Ok((contents, policy, global, local)) = containers.get(entity) else {
        return;
    };
    let Some(engine) = contents.engine() else {
        return;
    };
    if engine.is_empty() {
        return;
    }
    let stacks: Vec<(crate::props::Kind, u32)> = engine
        .slots()
        .flatten()
        .map(|s| {
            (
                crate::props::Kind::new(s.item.clone(), s.props.clone()),
                s.amount,
            )
        })
        .chain(engine.holdings().map(|(k, v)| (k.clone(), v)))
        .collect();
    if policy == Some(&DespawnPolicy::LeaveWithContents) {
        info!(
            "container {entity} left the world with {} stacks (DespawnPolicy::LeaveWithContents)",
            stacks.len()
        );
        left.write(ContainerLeftWorld {
            container: entity,
            contents: stacks,
        });
        return;
    }
    // the ancestors may be going too: fall back to the last propagated
    // world position, then the local one
    let base = transforms
        .compute_global_transform(entity)
        .map(|g| g.translation())
        .ok()
        .or(global.map(GlobalTransform::translation))
        .or(local.map(|t| t.translation))
        .unwrap_or(Vec3::ZERO);
    let mut settled = Vec::new();
    for (kind, amount) in stacks {
        let pickup = spawn_pickup(
            &mut commands,
            &mut placement,
            base,
            kind.item.as_str(),
            &kind.props,
            amount,
        );
        settled.push(Settled::Pickup {
            pickup,
            item: kind.item,
            props: kind.props,
            amount,
        });
    }
    warn!(
        "container {entity} was despawned holding items; they lie where it was as {} loose pickups. Send EmptyForGoneOwner first to settle them by the rules, or give it DespawnPolicy::LeaveWithContents",
        settled.len()
    );
    spilled.write(ContainerSpilled {
        container: entity,
        settled,
    });
}
