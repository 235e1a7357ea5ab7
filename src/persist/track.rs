//! Handing over: at the end of every frame, what changed among the
//! persisted containers and pickups goes to the writer as one batch.

use bevy::ecs::entity::EntityHashMap;
use bevy::prelude::*;

use super::load::PersistentEntities;
use super::writer::{Batch, ContainerWrite};
use super::{DatabaseWriter, PersistentId, PickupRow};
use crate::plugin::{Container, ContainerContents, LoosePickup, OverflowStore};

/// Which table a persisted entity's row is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Table {
    Containers,
    Pickups,
}

/// The persisted entities' ids, to delete the rows of those that leave.
#[derive(Resource, Default)]
pub(crate) struct Tracked {
    ids: EntityHashMap<(String, Table)>,
    pub(super) next_pickup: u64,
    /// Ids already warned about (two entities with one id).
    warned: Vec<Entity>,
}

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

/// Collects the frame's changes and hands them to the writer (the game
/// thread waits only when the writer's queue is full).
#[allow(clippy::too_many_arguments)]
pub(super) fn hand_over(
    mut writer: ResMut<DatabaseWriter>,
    mut tracked: ResMut<Tracked>,
    mut entities: ResMut<PersistentEntities>,
    containers: Query<ContainerItem>,
    pickups: Query<PickupItem>,
    ids: Query<&PersistentId>,
    mut gone_ids: RemovedComponents<PersistentId>,
    mut gone_contents: RemovedComponents<ContainerContents>,
    mut gone_pickups: RemovedComponents<LoosePickup>,
    mut gone_stores: RemovedComponents<OverflowStore>,
    mut commands: Commands,
) {
    let writer = &mut writer.inner;
    writer.report();
    writer.frame += 1;
    let mut batch = Batch {
        frame: writer.frame,
        ..default()
    };
    // left the world (or lost their id): their rows go, unless another
    // entity took the id this frame (written below, so the write wins)
    let mut gone: Vec<Entity> = gone_ids
        .read()
        .chain(gone_contents.read())
        .chain(gone_pickups.read())
        .collect();
    gone.sort();
    gone.dedup();
    for e in gone {
        let still = ids.get(e).is_ok() && (containers.contains(e) || pickups.contains(e));
        if still {
            continue;
        }
        if let Some((id, table)) = tracked.ids.remove(&e) {
            if entities.by_id.get(&id) == Some(&e) {
                entities.by_id.remove(&id);
            }
            match table {
                Table::Containers => {
                    batch.containers.insert(id, None);
                }
                Table::Pickups => {
                    batch.pickups.insert(id, None);
                }
            }
        }
    }
    let store_changed: Vec<Entity> = gone_stores.read().collect();
    // containers: in entity order, so two entities with one id are settled
    // the same way on every run
    let mut changed: Vec<ContainerItem> = containers
        .iter()
        .filter(|(e, id, contents, _, store)| {
            id.is_changed()
                || contents.is_changed()
                || store.as_ref().is_some_and(|s| s.is_changed())
                || store_changed.contains(e)
        })
        .collect();
    changed.sort_by_key(|c| c.0);
    for (e, id, contents, container, store) in changed {
        if !claim(
            &mut tracked,
            &mut entities,
            &mut batch,
            e,
            &id.0,
            Table::Containers,
        ) {
            continue;
        }
        // not loaded yet (or its save refused): its row stays as it is
        let (Some(engine), Some(adoption)) = (contents.engine(), contents.adoption()) else {
            continue;
        };
        let path = container
            .adoption
            .path()
            .map_or_else(|| adoption.path.clone(), |p| p.to_string());
        let store = store.and_then(|s| ids.get(s.0).ok()).map(|s| s.0.clone());
        batch.containers.insert(
            id.0.clone(),
            Some(ContainerWrite {
                adoption: path,
                contents: engine.clone(),
                id: adoption.clone(),
                store,
            }),
        );
    }
    let mut changed: Vec<PickupItem> = pickups
        .iter()
        .filter(|(_, id, p, t)| {
            id.as_ref().is_none_or(|id| id.is_changed()) || p.is_changed() || t.is_changed()
        })
        .collect();
    changed.sort_by_key(|p| p.0);
    for (e, id, pickup, transform) in changed {
        let id = match id {
            Some(id) => id.0.clone(),
            None => {
                // a pickup the plugin (or the game) spawned: it gets the
                // next number, kept in the same transaction
                let id = format!("pickup-{}", tracked.next_pickup);
                tracked.next_pickup += 1;
                commands.entity(e).insert(PersistentId(id.clone()));
                id
            }
        };
        if !claim(
            &mut tracked,
            &mut entities,
            &mut batch,
            e,
            &id,
            Table::Pickups,
        ) {
            continue;
        }
        batch.pickups.insert(
            id.clone(),
            Some(PickupRow {
                id,
                item: pickup.item.clone(),
                amount: pickup.amount,
                props: pickup.props.clone(),
                translation: transform.translation,
            }),
        );
    }
    batch.next_pickup = tracked.next_pickup;
    if !batch.is_empty() {
        writer.send(batch);
    }
}

/// Records that `e` holds `id` (the row of an id it held before goes);
/// false (with a warning, once) when another entity holds it, whose row is
/// kept.
fn claim(
    tracked: &mut Tracked,
    entities: &mut PersistentEntities,
    batch: &mut Batch,
    e: Entity,
    id: &str,
    table: Table,
) -> bool {
    match entities.by_id.get(id) {
        Some(&other) if other != e && tracked.ids.contains_key(&other) => {
            if !tracked.warned.contains(&e) {
                tracked.warned.push(e);
                warn!(
                    "{e} has the persistent id \"{id}\" of {other}; it is not persisted until the id is its own"
                );
            }
            false
        }
        _ => {
            if let Some((old, old_table)) = tracked.ids.get(&e)
                && old != id
            {
                if entities.by_id.get(old) == Some(&e) {
                    entities.by_id.remove(old);
                }
                match old_table {
                    Table::Containers => {
                        batch.containers.entry(old.clone()).or_insert(None);
                    }
                    Table::Pickups => {
                        batch.pickups.entry(old.clone()).or_insert(None);
                    }
                }
            }
            entities.by_id.insert(id.to_string(), e);
            tracked.ids.insert(e, (id.to_string(), table));
            true
        }
    }
}
