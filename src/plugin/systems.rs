//! The plugin's systems: compiling rules onto containers, reacting to
//! reloads and tuning, answering requests, and spilling despawned
//! containers.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use bevy::asset::{AssetLoadError, AssetLoadFailedEvent, LoadState};
use bevy::ecs::change_detection::Tick;
use bevy::ecs::entity::EntityHashMap;
use bevy::ecs::schedule::ScheduleConfigs;
use bevy::ecs::system::{ScheduleSystem, SystemChangeTick, SystemParam};
use bevy::prelude::*;
use bevy::transform::helper::TransformHelper;

use super::ContainerTuning;
use super::asset::{AdoptionAsset, AdoptionLoadError, errors_at, invalid_headline};
use super::components::{Container, ContainerContents, ContainerSlotRules, DespawnPolicy};
use super::containers::Containers;
use super::frame::{ContainerFrameStats, ContainerParallelism, FrameScratch, answer_frame};
use super::guard;
use super::messages::*;
use super::notice::{self, Level};
use super::placement::{PickupPlacement, spawn_pickup};
use super::status::ContainerStatus;
use super::watch::{self, OutcomeKind, Watched};
use crate::adoption::{Report, Tuning};
use crate::contents::{Contents, ForcedOut, LoadRefused, SlotRules};
use crate::hash::FxHashMap;
use crate::rules::Rules;
use crate::save::{AdoptionId, SavedContents};

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
        report_adoption_loads.run_if(
            on_message::<AssetEvent<AdoptionAsset>>
                .or_eager(on_message::<AssetLoadFailedEvent<AdoptionAsset>>),
        ),
        attach_engines.run_if(engines_to_attach),
        settle_loaded_saves.run_if(saves_to_settle),
        apply_adoption_changes.run_if(on_message::<AssetEvent<AdoptionAsset>>),
        apply_adoption_swaps.run_if(
            any_match_filter::<Changed<Container>>
                .or_eager(on_message::<AssetEvent<AdoptionAsset>>)
                .or_eager(refused_adoptions_changed),
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
    /// Absent in an app without an asset server: nothing then fails to load.
    server: Option<Res<'w, AssetServer>>,
    rejected: MessageWriter<'w, AdoptionRejected>,
    /// The files reported as not compiling with the tuning, each once
    /// until it compiles.
    rejected_files: Local<'s, Vec<AssetId<AdoptionAsset>>>,
    commands: Commands<'w, 's>,
}

impl Attached<'_, '_> {
    /// Reports (once per refusal) that `entity`'s save does not load under
    /// the rules in force.
    fn save_refused(&mut self, entity: Entity, error: LoadRefused, first: bool) {
        if !first {
            return;
        }
        error!(
            "container {entity}: its saved contents do not load under the current rules ({error}); they stay attached and unchanged"
        );
        let msg = ContainerSaveRefused {
            container: entity,
            error,
        };
        if self.watched.has(OutcomeKind::SaveRefused) {
            self.commands.trigger(msg.clone());
        }
        self.refused.write(msg);
    }

    /// Reports (once per file until it compiles) that the adoption `id` at
    /// `path` does not compile with the game's tuning.
    fn compile_refused(&mut self, id: AssetId<AdoptionAsset>, path: &str, report: Report) {
        if !self.rejected_files.contains(&id) {
            self.rejected_files.push(id);
            reject(&mut self.rejected, id, Some(path.to_string()), report);
        }
    }

    /// Reports that `entity`'s rules attached (from the adoption `id`).
    fn report_ready(&mut self, entity: Entity, id: AssetId<AdoptionAsset>) {
        if !self.rejected_files.is_empty() {
            self.rejected_files.retain(|f| *f != id);
        }
        self.ready.write(ContainerReady { container: entity });
        if self.watched.has(OutcomeKind::Ready) {
            self.commands.trigger(ContainerReady { container: entity });
        }
    }

    /// Why the asset server could not load `id`, when it failed.
    fn load_failure(&self, id: AssetId<AdoptionAsset>) -> Option<String> {
        match self.server.as_ref()?.get_load_state(id)? {
            LoadState::Failed(error) => Some(load_error_text(&error)),
            _ => None,
        }
    }
}

/// Records why `contents`' rules did not attach (`None`: they wait for
/// the file), marking the component changed only when that changed.
fn note_refusal(contents: &mut Mut<ContainerContents>, refusal: Option<ContainerStatus>) {
    if contents.state.refusal.as_deref() != refusal.as_ref() {
        contents.state.refusal = refusal.map(Box::new);
    }
}

/// A container's engine under `rules`: empty, or holding its `pending`
/// save loaded under them, with what the load forced out when anything
/// had to leave.
fn build_engine(
    rules: Arc<Rules>,
    slot_rules: Option<SlotRules>,
    pending: Option<&SavedContents>,
    id: &AdoptionId,
) -> Result<(Contents, Option<ForcedOut>), LoadRefused> {
    let Some(save) = pending else {
        let mut engine = Contents::new(rules);
        engine.set_slot_rules(slot_rules);
        return Ok((engine, None));
    };
    let loaded = Contents::load(rules, slot_rules, save, id)?;
    let migrated = (!loaded.migrated.portions.is_empty()).then_some(loaded.migrated);
    Ok((loaded.contents, migrated))
}

/// Gives each new container its engine once its adoption is loaded; a
/// container read back with a world, or spawned with a save, gets its
/// saved contents under the current rules. A container whose adoption or
/// save is refused records why ([`ContainerContents::status`]).
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
    // asked of the asset server once per file and run
    let mut failed: FxHashMap<AssetId<AdoptionAsset>, Option<String>> = FxHashMap::default();
    for (entity, container, mut contents, slot_rules) in &mut containers {
        if contents.is_ready() {
            continue;
        }
        let id = container.adoption.id();
        let Some(asset) = assets.get(id) else {
            let refusal = failed
                .entry(id)
                .or_insert_with(|| out.load_failure(id))
                .clone();
            note_refusal(
                &mut contents,
                refusal.map(|reason| ContainerStatus::AdoptionRefused { reason }),
            );
            waiting = true;
            continue;
        };
        let rules = match compiled.get(id, asset, &tuning.0) {
            Ok(rules) => rules,
            Err(report) => {
                let reason = format!(
                    "{}; fix the tuning or the file:\n{report}",
                    compile_headline(&asset.id.path, &report)
                );
                out.compile_refused(id, &asset.id.path, report);
                note_refusal(
                    &mut contents,
                    Some(ContainerStatus::AdoptionRefused { reason }),
                );
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
        let pending = contents.state.pending.as_deref();
        let engine = match build_engine(rules.clone(), slot_rules, pending, &asset.id) {
            Ok((engine, migrated)) => {
                refused_under.remove(&entity);
                out.loaded.0.extend(migrated.map(|m| (entity, m)));
                engine
            }
            Err(error) => {
                // kept attached, never dropped: saved again as it was
                refused_under.insert(entity, rules);
                let reason = error.to_string();
                note_refusal(&mut contents, Some(ContainerStatus::SaveRefused { reason }));
                out.save_refused(entity, error, reported.insert(entity));
                waiting = true;
                continue;
            }
        };
        contents.state.pending = None;
        contents.state.refusal = None;
        contents.state.engine = Some(engine);
        contents.state.set_adoption(asset.id.clone());
        contents.refresh();
        reported.remove(&entity);
        out.report_ready(entity, id);
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

/// The loader's own error when it refused an adoption file as invalid.
fn invalid_file(error: &AssetLoadError) -> Option<&AdoptionLoadError> {
    let AssetLoadError::AssetLoaderError(e) = error else {
        return None;
    };
    e.error()
        .downcast_ref::<AdoptionLoadError>()
        .filter(|e| matches!(e, AdoptionLoadError::Invalid { .. }))
}

/// An adoption's load error as a designer reads it: for a file refused as
/// invalid, a headline naming the file and where its errors are, then
/// each problem and its fix, one `FILE: problem` line each; else the asset
/// server's error (which names the path).
fn load_error_text(error: &AssetLoadError) -> String {
    let text = match invalid_file(error) {
        Some(AdoptionLoadError::Invalid { path, report }) => format!(
            "{}:\n{}",
            invalid_headline(path, report),
            report.render(path)
        ),
        _ => error.to_string(),
    };
    text.trim_end().to_string()
}

/// The first line of a refusal for not compiling with the game's tuning:
/// the file and where its errors are.
fn compile_headline(path: &str, report: &Report) -> String {
    format!(
        "{path}: the adoption does not compile with the game's tuning ({})",
        errors_at(report)
    )
}

/// What a failed load of an adoption file means for the containers using
/// it, and the text the plugin reports for it: the error (for an invalid
/// file, the headline and each problem with its fix), then what it means
/// for the containers. The loader's own error names only where the errors
/// are (`AdoptionLoadError`), so this report is where each problem is
/// written, once: logged, or on stderr without a log.
fn failure_text(message: &str, reload: bool) -> String {
    let consequence = if reload {
        "The containers using it keep the rules of its last version that loaded."
    } else {
        "The containers using it have no rules and answer no requests (their status is ContainerStatus::AdoptionRefused) until the file loads; fix it and hot reload, or call AssetServer::reload."
    };
    format!("{message}\n{consequence}")
}

/// Reports each load of an adoption file: a failure as [`AdoptionRejected`]
/// (reported with what it means for the containers using the file: on a
/// first load they have no rules, on a reload they keep theirs), and a
/// file loaded with warnings as [`AdoptionWarned`] (reported once per
/// load). Reported means logged, or written to stderr when no log is
/// installed (`notice::report`), so a broken file is never silent.
pub(crate) fn report_adoption_loads(
    mut events: MessageReader<AssetEvent<AdoptionAsset>>,
    mut failures: MessageReader<AssetLoadFailedEvent<AdoptionAsset>>,
    assets: Res<Assets<AdoptionAsset>>,
    mut rejected: MessageWriter<AdoptionRejected>,
    mut warned: MessageWriter<AdoptionWarned>,
) {
    for failure in failures.read() {
        let message = load_error_text(&failure.error);
        let report = invalid_file(&failure.error).and_then(|e| match e {
            AdoptionLoadError::Invalid { report, .. } => Some(report.clone()),
            _ => None,
        });
        let reload = assets.contains(failure.id);
        let path = failure.path.to_string();
        let text = failure_text(&message, reload);
        notice::report(if reload { Level::Warn } else { Level::Error }, &text);
        rejected.write(AdoptionRejected {
            path,
            message,
            report,
        });
    }
    for event in events.read() {
        let AssetEvent::LoadedWithDependencies { id } = event else {
            continue;
        };
        let Some(asset) = assets.get(*id) else {
            continue;
        };
        if asset.warnings.warnings().next().is_none() {
            continue;
        }
        let path = asset.id.path.clone();
        notice::report(
            Level::Warn,
            &format!(
                "{path}: the adoption loaded with warnings; its containers work, and these parts of the file have no effect:\n{}",
                asset.warnings.render(&path).trim_end()
            ),
        );
        warned.write(AdoptionWarned {
            adoption: *id,
            path,
            warnings: asset.warnings.clone(),
        });
    }
}

/// Recompiles the rules of every container whose adoption was reloaded.
/// A container whose forced removal the new rules refused keeps the old
/// ones and is tried again as a refused swap is ([`apply_adoption_swaps`]).
pub(crate) fn apply_adoption_changes(
    mut events: MessageReader<AssetEvent<AdoptionAsset>>,
    mut rejected: MessageWriter<AdoptionRejected>,
    (assets, tuning, mut compiled): (
        Res<Assets<AdoptionAsset>>,
        Res<ContainerTuning>,
        ResMut<CompiledRules>,
    ),
    containers: Query<(Entity, &Container)>,
    (mut pending, ticks): (ResMut<AdoptionsPending>, SystemChangeTick),
    mut ops: Containers,
) {
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
            if !ops.adopt(entity, rules.clone(), asset.id.clone()) && ops.contents(entity).is_some()
            {
                pending.refused.insert(entity, ticks.this_run());
            }
        }
    }
}

/// The containers whose adoption (swapped in [`Container::adoption`], or
/// reloaded) is not in force yet: those waiting for a swapped-in file to
/// load, and those whose forced removal the new rules refused (an item
/// that never leaves has no room), each with the tick of that refusal.
#[derive(Resource, Default)]
pub(crate) struct AdoptionsPending {
    waiting: BTreeSet<Entity>,
    refused: BTreeMap<Entity, Tick>,
}

/// Run condition of [`apply_adoption_swaps`]: a container whose adoption
/// was refused has had its contents changed since (the player may have taken
/// out what could not leave). Looks only at those containers.
pub(crate) fn refused_adoptions_changed(
    pending: Res<AdoptionsPending>,
    contents: Query<Ref<ContainerContents>>,
    ticks: SystemChangeTick,
) -> bool {
    pending.refused.iter().any(|(&e, &at)| {
        contents
            .get(e)
            .is_ok_and(|c| c.last_changed().is_newer_than(at, ticks.this_run()))
    })
}

/// Puts the rules of a container's new adoption in force when the game
/// swaps its [`Container::adoption`] handle, as a reload of its file
/// would: what the new rules no longer hold leaves by their forced-removal
/// rules (an [`ItemsForcedOut`]). A swap to an adoption not loaded yet
/// waits for it. A swap (or a reload) whose forced removal is refused
/// keeps the old rules (the refusal is the [`ItemsForcedOut`]'s) and is
/// tried again each time the container's contents change, until it goes
/// through or the handle changes again. Without this the running
/// container kept its old rules while a restart, which loads the
/// handle's file, applied the new ones.
pub(crate) fn apply_adoption_swaps(
    swapped: Query<Entity, Changed<Container>>,
    containers: Query<&Container>,
    (assets, tuning, mut compiled): (
        Res<Assets<AdoptionAsset>>,
        Res<ContainerTuning>,
        ResMut<CompiledRules>,
    ),
    mut rejected: MessageWriter<AdoptionRejected>,
    (mut pending, ticks): (ResMut<AdoptionsPending>, SystemChangeTick),
    mut ops: Containers,
) {
    let pending = &mut *pending;
    let mut entities = std::mem::take(&mut pending.waiting);
    entities.extend(swapped.iter());
    // a refused reload runs under its old file's id: tried whatever it is
    let mut retried = BTreeSet::new();
    pending.refused.retain(|&e, &mut at| {
        let Some(changed) = ops.contents_changed_at(e) else {
            return false;
        };
        if changed.is_newer_than(at, ticks.this_run()) {
            retried.insert(e);
        }
        true
    });
    entities.extend(&retried);
    for entity in entities {
        pending.refused.remove(&entity);
        let Ok(container) = containers.get(entity) else {
            continue;
        };
        let id = container.adoption.id();
        if ops.contents(entity).is_none() {
            // not attached yet: it attaches under the handle it has then
            continue;
        }
        let Some(asset) = assets.get(id) else {
            pending.waiting.insert(entity);
            continue;
        };
        if !retried.contains(&entity) && ops.adoption(entity) == Some(&asset.id) {
            continue;
        }
        let rules = match compiled.get(id, asset, &tuning.0) {
            Ok(rules) => rules,
            Err(report) => {
                reject(&mut rejected, id, Some(asset.id.path.clone()), report);
                continue;
            }
        };
        if ops.adopt(entity, rules, asset.id.clone()) {
            ops.mark_changed(entity);
        } else {
            // a change made by this run has its tick: only later ones count
            pending.refused.insert(entity, ticks.this_run());
        }
    }
}

fn reject(
    rejected: &mut MessageWriter<AdoptionRejected>,
    id: AssetId<AdoptionAsset>,
    path: Option<String>,
    report: Report,
) {
    let name = path.unwrap_or_else(|| format!("{id:?}"));
    let message = format!(
        "{}; the containers that had its rules keep them, the others have none until it compiles:\n{report}",
        compile_headline(&name, &report)
    );
    notice::report(Level::Warn, &message);
    rejected.write(AdoptionRejected {
        path: name,
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
