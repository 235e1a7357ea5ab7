//! Handing over: at the end of every frame, what changed among the
//! persisted containers and pickups goes to the writer as one batch. The
//! game thread only copies what a save needs (a few words and the occupied
//! stacks, into one list for the whole frame); the writer makes the saves.

use std::sync::Arc;

use bevy::ecs::entity::EntityHashMap;
use bevy::prelude::*;

use super::load::PersistentEntities;
use super::writer::{AdoptionRef, Batch, ContainerWrite};
use super::{DatabaseWriter, PersistentId, PickupRow};
use crate::plugin::{AdoptionAsset, Container, ContainerContents, LoosePickup, OverflowStore};

/// Which table a persisted entity's row is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Table {
    Containers,
    Pickups,
}

/// A persisted entity: its key (the writer's name for it), its id, its
/// table, and for a container the adoption it was last written under.
struct Entry {
    key: u64,
    id: Box<str>,
    table: Table,
    adoption: Option<(AssetId<AdoptionAsset>, Arc<AdoptionRef>)>,
}

/// The persisted entities, to find their ids and delete the rows of those
/// that leave.
#[derive(Resource, Default)]
pub(crate) struct Tracked {
    ids: EntityHashMap<Entry>,
    /// The next key.
    next_key: u64,
    pub(super) next_pickup: u64,
    /// Entities already warned about (two entities with one id).
    warned: Vec<Entity>,
}

/// Containers whose contents, id or store changed (the filter skips the
/// rest without reading them).
type ContainerChanged = Or<(
    Changed<ContainerContents>,
    Changed<PersistentId>,
    Changed<OverflowStore>,
)>;

type ContainerItem<'a> = (
    Entity,
    Ref<'a, PersistentId>,
    Ref<'a, ContainerContents>,
    &'a Container,
    Option<Ref<'a, OverflowStore>>,
);

type PickupItem<'a> = (
    Entity,
    Option<Ref<'a, PersistentId>>,
    Ref<'a, LoosePickup>,
    Ref<'a, Transform>,
);

/// The entities whose ids are new or changed this frame.
type NewIds<'a> = (Entity, &'a PersistentId, Has<Container>);

/// Collects the frame's changes and hands them to the writer (the game
/// thread waits only when the writer's queue is full).
#[allow(clippy::too_many_arguments)]
pub(super) fn hand_over(
    mut writer: ResMut<DatabaseWriter>,
    mut tracked: ResMut<Tracked>,
    mut entities: ResMut<PersistentEntities>,
    containers: Query<ContainerItem, ContainerChanged>,
    all_containers: Query<(), (With<ContainerContents>, With<PersistentId>)>,
    stores: Query<ContainerItem>,
    pickups: Query<PickupItem>,
    new_ids: Query<NewIds, Changed<PersistentId>>,
    mut gone_ids: RemovedComponents<PersistentId>,
    mut gone_contents: RemovedComponents<ContainerContents>,
    mut gone_pickups: RemovedComponents<LoosePickup>,
    mut gone_stores: RemovedComponents<OverflowStore>,
    mut commands: Commands,
) {
    let writer = &mut writer.inner;
    writer.report();
    writer.frame += 1;
    let tracked = &mut *tracked;
    let mut batch = writer.batch(writer.frame);
    // left the world (or lost their id): their rows go, unless another
    // entity took the id this frame (its write comes later in the batch)
    let mut gone: Vec<Entity> = gone_ids
        .read()
        .chain(gone_contents.read())
        .chain(gone_pickups.read())
        .collect();
    gone.sort();
    gone.dedup();
    for e in gone {
        let still = new_ids.contains(e) || all_containers.contains(e) || pickups.contains(e);
        if still {
            continue;
        }
        if let Some(entry) = tracked.ids.remove(&e) {
            if entities.by_id.get(&*entry.id) == Some(&e) {
                entities.by_id.remove(&*entry.id);
            }
            forget(&mut batch, entry.key, entry.table);
        }
    }
    // new ids first, so a store named in this frame is known below
    for (e, id, is_container) in &new_ids {
        let table = if is_container {
            Table::Containers
        } else {
            Table::Pickups
        };
        claim(tracked, &mut entities, &mut batch, e, &id.0, table);
    }
    // a store link removed (or its store despawned) changes the row too
    let mut store_gone: Vec<Entity> = gone_stores.read().collect();
    store_gone.sort();
    store_gone.dedup();
    store_gone.retain(|&e| !containers.contains(e));
    for (e, _, contents, container, store) in containers.iter().chain(stores.iter_many(&store_gone))
    {
        // not loaded yet (or its save refused): its row stays as it is
        let (Some(engine), Some(adoption)) = (contents.engine(), contents.adoption()) else {
            continue;
        };
        let store = store.and_then(|s| tracked.ids.get(&s.0)).map(|s| s.key);
        // an entity whose id another holds is not persisted
        let Some(entry) = tracked.ids.get_mut(&e) else {
            continue;
        };
        let handle = container.adoption.id();
        let adoption = match &entry.adoption {
            Some((h, a)) if *h == handle && a.id == *adoption => a.clone(),
            _ => {
                let path = container
                    .adoption
                    .path()
                    .map_or_else(|| adoption.path.clone(), |p| p.to_string());
                let a = Arc::new(AdoptionRef {
                    path,
                    id: adoption.clone(),
                });
                entry.adoption = Some((handle, a.clone()));
                a
            }
        };
        let head = engine.save_head(&mut batch.stacks);
        batch.containers.push((
            entry.key,
            Some(ContainerWrite {
                adoption,
                head,
                store,
            }),
        ));
    }
    for (e, id, pickup, transform) in &pickups {
        let changed = id.as_ref().is_none_or(|id| id.is_changed())
            || pickup.is_changed()
            || transform.is_changed();
        if !changed {
            continue;
        }
        if id.is_none() {
            // a pickup the plugin (or the game) spawned: it gets the next
            // number, kept in the same transaction
            let id = format!("pickup-{}", tracked.next_pickup);
            tracked.next_pickup += 1;
            commands.entity(e).insert(PersistentId(id.clone()));
            claim(tracked, &mut entities, &mut batch, e, &id, Table::Pickups);
        }
        let Some(entry) = tracked.ids.get(&e) else {
            continue;
        };
        batch.pickups.push((
            entry.key,
            Some(PickupRow {
                id: entry.id.to_string(),
                item: pickup.item.clone(),
                amount: pickup.amount,
                props: pickup.props.clone(),
                translation: transform.translation,
            }),
        ));
    }
    batch.next_pickup = tracked.next_pickup;
    if !batch.is_empty() {
        writer.send(batch);
    }
}

/// Deletes the row of `key` in `table`.
fn forget(batch: &mut Batch, key: u64, table: Table) {
    match table {
        Table::Containers => batch.containers.push((key, None)),
        Table::Pickups => batch.pickups.push((key, None)),
    }
}

/// Records that `e` holds `id` (the row of an id it held before goes);
/// when another entity holds it, warns once and leaves `e` unpersisted.
fn claim(
    tracked: &mut Tracked,
    entities: &mut PersistentEntities,
    batch: &mut Batch,
    e: Entity,
    id: &str,
    table: Table,
) {
    if let Some(&other) = entities.by_id.get(id)
        && other != e
        && tracked.ids.contains_key(&other)
    {
        if !tracked.warned.contains(&e) {
            tracked.warned.push(e);
            warn!(
                "{e} has the persistent id \"{id}\" of {other}; it is not persisted until the id is its own"
            );
        }
        return;
    }
    if let Some(old) = tracked.ids.remove(&e)
        && &*old.id != id
    {
        if entities.by_id.get(&*old.id) == Some(&e) {
            entities.by_id.remove(&*old.id);
        }
        forget(batch, old.key, old.table);
    }
    entities.by_id.insert(id.to_string(), e);
    let key = tracked.next_key;
    tracked.next_key += 1;
    batch.names.push((key, id.into()));
    tracked.ids.insert(
        e,
        Entry {
            key,
            id: id.into(),
            table,
            adoption: None,
        },
    );
}
