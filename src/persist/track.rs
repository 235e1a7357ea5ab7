//! Handing over: at the end of every frame, what changed among the
//! persisted containers and pickups goes to the writer as one batch. The
//! game thread only copies what a save needs (a few words and the occupied
//! stacks, into one list for the whole frame); the writer makes the saves.

use std::num::NonZeroU64;
use std::sync::Arc;
use std::time::Instant;

use bevy::ecs::entity::EntityHashMap;
use bevy::ecs::lifecycle::HookContext;
use bevy::ecs::system::NonSendMarker;
use bevy::ecs::world::DeferredWorld;
use bevy::prelude::*;

use super::load::PersistentEntities;
use super::rows::{LONGEST_ID, id_fits};
use super::writer::{AdoptionRef, Batch, ContainerWrite};
use super::{DatabaseWriter, PersistentId, PickupRow};
use crate::plugin::{AdoptionAsset, Container, ContainerContents, LoosePickup, OverflowStore};
use crate::rules::Rules;
use crate::save::AdoptionId;

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
    adoption: Option<Written>,
}

/// The adoption a container was last written under, and how to tell it
/// unchanged without reading its text: the same handle, the same setting
/// of the container's adoption, the same rules.
struct Written {
    handle: AssetId<AdoptionAsset>,
    stamp: NonZeroU64,
    adoption: Arc<AdoptionRef>,
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
    /// The adoptions containers were written under, one shared copy each.
    adoptions: Vec<Arc<AdoptionRef>>,
    /// The entities a [`PersistentId`] was inserted on since the last
    /// hand-over (the component's insert hook lists them).
    named: Vec<Entity>,
    /// Whether the first hand-over has looked at every id (those inserted
    /// before the plugin was added were not listed).
    scanned: bool,
    /// The keys of the entities loaded from the file, named in the next
    /// batch: a loaded entity that leaves, or is renamed, before the first
    /// hand-over still has its row deleted.
    unsent: Vec<(u64, Box<str>)>,
}

impl Tracked {
    /// Records `e`, just loaded from the file under `id` in `table`: it has
    /// a row, so it is tracked from the start, not from the first
    /// hand-over.
    pub(super) fn loaded(&mut self, e: Entity, id: &str, table: Table) {
        let name = self.track(e, id, table);
        self.unsent.push(name);
    }

    /// Tracks `e` under `id` in `table` with the next key; returns the
    /// key's name, for the writer.
    fn track(&mut self, e: Entity, id: &str, table: Table) -> (u64, Box<str>) {
        let key = self.next_key;
        self.next_key += 1;
        self.ids.insert(
            e,
            Entry {
                key,
                id: id.into(),
                table,
                adoption: None,
            },
        );
        (key, id.into())
    }

    /// The shared copy of the adoption at `path` with id `id` and rules
    /// `rules`, made when there is none.
    fn adoption(&mut self, path: String, id: &AdoptionId, rules: &Arc<Rules>) -> Arc<AdoptionRef> {
        if let Some(a) = self
            .adoptions
            .iter()
            .find(|a| Arc::ptr_eq(&a.rules, rules) && a.id == *id && a.path == path)
        {
            return a.clone();
        }
        // the copies no container is written under any more go
        self.adoptions.retain(|a| Arc::strong_count(a) > 1);
        let a = Arc::new(AdoptionRef {
            path,
            id: id.clone(),
            rules: rules.clone(),
        });
        self.adoptions.push(a.clone());
        a
    }
}

/// [`PersistentId`]'s insert hook: the hand-over names the entity anew.
pub(super) fn id_inserted(mut world: DeferredWorld, context: HookContext) {
    if let Some(mut tracked) = world.get_resource_mut::<Tracked>() {
        tracked.named.push(context.entity);
    }
}

/// Persisted containers.
type Persisted = (With<ContainerContents>, With<PersistentId>);

/// Containers whose store link changed (only containers with a store are
/// looked at).
type StoreChanged = (Changed<OverflowStore>, Persisted);

type ContainerItem<'a> = (
    Entity,
    Ref<'a, ContainerContents>,
    &'a Container,
    Option<&'a OverflowStore>,
);

type PickupItem<'a> = (
    Entity,
    Option<Ref<'a, PersistentId>>,
    Ref<'a, LoosePickup>,
    Ref<'a, Transform>,
);

/// An entity's id, and whether it is a container.
type Ids<'a> = (Entity, &'a PersistentId, Has<Container>);

/// Collects the frame's changes and hands them to the writer (the game
/// thread waits only when the writer's queue is full). It runs on the
/// thread that runs the schedule (`NonSendMarker`): under Bevy's
/// multi-threaded executor, a last system handed to a pool thread adds
/// that thread's wake-up to the frame (in eight alternating runs of
/// `examples/perf`, the ratio of the fastest frames, now printed as
/// `persist-frame-vs-frame-fastest`, was 1.15-1.30 that way and 1.01-1.26
/// this way).
#[allow(clippy::too_many_arguments)]
pub(super) fn hand_over(
    mut writer: ResMut<DatabaseWriter>,
    mut tracked: ResMut<Tracked>,
    mut entities: ResMut<PersistentEntities>,
    changed: Query<ContainerItem, (Changed<ContainerContents>, With<PersistentId>)>,
    containers: Query<ContainerItem, With<PersistentId>>,
    store_changed: Query<Entity, StoreChanged>,
    pickups: Query<PickupItem>,
    ids: Query<Ids>,
    links: Query<(Entity, &OverflowStore), Persisted>,
    mut gone_ids: RemovedComponents<PersistentId>,
    mut gone_contents: RemovedComponents<ContainerContents>,
    mut gone_pickups: RemovedComponents<LoosePickup>,
    mut gone_stores: RemovedComponents<OverflowStore>,
    mut commands: Commands,
    _on_the_schedules_thread: NonSendMarker,
) {
    let started = Instant::now();
    let writer = &mut writer.inner;
    writer.report();
    writer.frame += 1;
    let tracked = &mut *tracked;
    let mut batch = writer.batch(writer.frame);
    batch.names.append(&mut tracked.unsent);
    // the ids inserted since the last hand-over (on the first, every id)
    let mut named = std::mem::take(&mut tracked.named);
    if !tracked.scanned {
        tracked.scanned = true;
        named.extend(ids.iter().map(|(e, ..)| e));
    }
    named.sort();
    named.dedup();
    // left the world (or lost their id): their rows go, unless another
    // entity took the id this frame (its write comes later in the batch)
    let mut gone: Vec<Entity> = gone_ids
        .read()
        .chain(gone_contents.read())
        .chain(gone_pickups.read())
        .collect();
    gone.sort();
    gone.dedup();
    // containers whose rows went or were named this frame: the rows of
    // the containers they are the store of name them (or no longer can)
    let mut relink: Vec<Entity> = Vec::new();
    for e in gone {
        let renamed = named.binary_search(&e).is_ok() && ids.contains(e);
        if renamed || containers.contains(e) || pickups.contains(e) {
            continue;
        }
        if let Some(entry) = tracked.ids.remove(&e) {
            if entities.by_id.get(&*entry.id) == Some(&e) {
                entities.by_id.remove(&*entry.id);
            }
            forget(&mut batch, entry.key, entry.table);
            relink.push(e);
        }
    }
    // new ids first, so a store named in this frame is known below; a
    // container with a new id, or whose store link changed (or its store
    // left), is written even if its contents did not change
    let mut also: Vec<Entity> = Vec::new();
    for &e in &named {
        // inserted, then removed (or despawned) in the same frame
        let Ok((_, id, is_container)) = ids.get(e) else {
            continue;
        };
        let table = if is_container {
            also.push(e);
            relink.push(e);
            Table::Containers
        } else {
            Table::Pickups
        };
        claim(tracked, &mut entities, &mut batch, e, &id.0, table);
    }
    named.clear();
    tracked.named = named;
    // an entity left unpersisted because another held its id is named
    // again once the id is free (inserting the id again lists it, and
    // marks it changed, for the next hand-over)
    if !tracked.warned.is_empty() {
        // those that left, or lost their id, are not looked at again
        tracked.warned.retain(|&w| ids.contains(w));
        let free: Vec<(Entity, String)> = tracked
            .warned
            .iter()
            .filter_map(|&w| ids.get(w).ok())
            .filter(|(w, id, _)| {
                // not (yet) persisted under the id it has now
                tracked.ids.get(w).is_none_or(|entry| *entry.id != *id.0)
                    && id_fits(&id.0)
                    && entities
                        .by_id
                        .get(&id.0)
                        .is_none_or(|holder| !tracked.ids.contains_key(holder))
            })
            .map(|(w, id, _)| (w, id.0.clone()))
            .collect();
        tracked.warned.retain(|x| !free.iter().any(|(w, _)| w == x));
        for (w, id) in free {
            commands.entity(w).insert(PersistentId(id));
        }
    }
    also.extend(store_changed.iter().chain(gone_stores.read()));
    if !relink.is_empty() {
        relink.sort();
        also.extend(
            links
                .iter()
                .filter(|(_, store)| relink.binary_search(&store.0).is_ok())
                .map(|(e, _)| e),
        );
    }
    also.sort();
    also.dedup();
    let also = containers
        .iter_many(&also)
        .filter(|(_, contents, ..)| !contents.is_changed());
    // `for_each`, not a `for` loop: a query's `fold` runs over its tables
    // directly, where `next` keeps a cursor (of the 10,000 containers of
    // `examples/perf`, the loop looks at every one for the 1,000 changed)
    changed
        .iter()
        .chain(also)
        .for_each(|(e, contents, container, store)| {
            write_container(tracked, &mut batch, e, &contents, container, store);
        });
    // every pickup is looked at: through the fold too
    pickups.iter().for_each(|(e, id, pickup, transform)| {
        let changed = id.as_ref().is_none_or(|id| id.is_changed())
            || pickup.is_changed()
            || transform.is_changed();
        if !changed {
            return;
        }
        if id.is_none() {
            // a pickup the plugin (or the game) spawned: it gets the next
            // number not taken (a game may have named one `pickup-7`),
            // kept in the same transaction
            let mut id = format!("pickup-{}", tracked.next_pickup);
            while entities.by_id.contains_key(&id) {
                tracked.next_pickup += 1;
                id = format!("pickup-{}", tracked.next_pickup);
            }
            tracked.next_pickup += 1;
            commands.entity(e).insert(PersistentId(id.clone()));
            claim(tracked, &mut entities, &mut batch, e, &id, Table::Pickups);
        }
        let Tracked {
            ids,
            next_key,
            warned,
            ..
        } = &mut *tracked;
        let Some(entry) = ids.get_mut(&e) else {
            return;
        };
        // a container under this id until now: its row goes
        if entry.table != Table::Pickups {
            rekey(&mut batch, next_key, entry, Table::Pickups);
        }
        let kebab = crate::adoption::source::fields::is_kebab(&pickup.item);
        if pickup.amount == 0 || !kebab {
            // it holds nothing the file can hold (no items, or a type the
            // file would refuse to read): its row goes, and a new key
            // names it should it hold items again
            if !kebab && !warned.contains(&e) {
                warned.push(e);
                warn!(
                    "the pickup {e} (\"{}\") is not written to the database: its item \"{}\" is not a kebab-case type (container-1 names types in kebab-case)",
                    entry.id, pickup.item
                );
            }
            rekey(&mut batch, next_key, entry, Table::Pickups);
            return;
        }
        let mut translation = transform.translation;
        if !translation.is_finite() {
            // the file holds finite positions: the items are kept, at the
            // origin, rather than lost or left at an older count
            if !warned.contains(&e) {
                warned.push(e);
                warn!(
                    "the pickup {e} (\"{}\") is at {translation}, not a finite position: it is written at the origin",
                    entry.id
                );
            }
            translation = Vec3::ZERO;
        }
        batch.pickups.push((
            entry.key,
            Some(PickupRow {
                id: entry.id.to_string(),
                item: pickup.item.clone(),
                amount: pickup.amount,
                props: pickup.props.clone(),
                translation,
            }),
        ));
    });
    batch.next_pickup = tracked.next_pickup;
    if !batch.is_empty() {
        writer.send(batch);
    }
    writer.last_hand_over = started.elapsed();
}

/// Puts what `e`'s save needs into the batch: its stacks, a few words,
/// its adoption (named once in the batch) and its store's key.
fn write_container(
    tracked: &mut Tracked,
    batch: &mut Batch,
    e: Entity,
    contents: &ContainerContents,
    container: &Container,
    store: Option<&OverflowStore>,
) {
    let store = store.and_then(|s| tracked.ids.get(&s.0)).map(|s| s.key);
    // an entity whose id another holds is not persisted
    let Some(entry) = tracked.ids.get_mut(&e) else {
        return;
    };
    // a pickup under this id until now: its row goes, at once
    if entry.table != Table::Containers {
        rekey(batch, &mut tracked.next_key, entry, Table::Containers);
    }
    // not loaded yet (or its save refused): its row stays as it is; the
    // adoption's stamp is read, not its text: the stamp lies beside the
    // engine's head, the text further into the component
    let (Some(engine), Some(stamp)) = (contents.engine(), contents.state.adoption_stamp()) else {
        return;
    };
    let key = entry.key;
    let handle = container.adoption.id();
    let adoption = match &entry.adoption {
        Some(w)
            if w.handle == handle
                && w.stamp == stamp
                && Arc::ptr_eq(&w.adoption.rules, engine.rules()) =>
        {
            batch.adoption(&w.adoption)
        }
        _ => {
            let Some(id) = contents.adoption() else {
                return;
            };
            let path = container
                .adoption
                .path()
                .map_or_else(|| id.path.clone(), |p| p.to_string());
            let adoption = tracked.adoption(path, id, engine.rules());
            if let Some(entry) = tracked.ids.get_mut(&e) {
                entry.adoption = Some(Written {
                    handle,
                    stamp,
                    adoption: adoption.clone(),
                });
            }
            batch.adoption(&adoption)
        }
    };
    let head = engine.save_head(&mut batch.stacks);
    batch.containers.push((
        key,
        Some(ContainerWrite {
            adoption,
            head,
            store,
        }),
    ));
}

/// Deletes `entry`'s row and names the entity under a new key in `table`:
/// the next row written for it starts afresh (a deleted key is never used
/// again).
fn rekey(batch: &mut Batch, next_key: &mut u64, entry: &mut Entry, table: Table) {
    forget(batch, entry.key, entry.table);
    entry.key = *next_key;
    *next_key += 1;
    entry.table = table;
    entry.adoption = None;
    batch.names.push((entry.key, entry.id.clone()));
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
    // the file could not read it back: the whole file would be refused
    if !id_fits(id) {
        if !tracked.warned.contains(&e) {
            tracked.warned.push(e);
            warn!(
                "{e} has a persistent id of {} bytes; an id is 1 to {LONGEST_ID} bytes, so it is not persisted under it (the rows of an id it held before stay)",
                id.len()
            );
        }
        return;
    }
    if let Some(&other) = entities.by_id.get(id)
        && other != e
        && tracked.ids.contains_key(&other)
    {
        if !tracked.warned.contains(&e) {
            tracked.warned.push(e);
            warn!(
                "{e} has the persistent id \"{id}\" of {other}; it is not persisted under it until the id is its own (its row under an earlier id, if any, is kept up to date meanwhile)"
            );
        }
        return;
    }
    // the id it already holds (inserted again): nothing to name anew
    if tracked.ids.get(&e).is_some_and(|old| &*old.id == id) {
        return;
    }
    if let Some(old) = tracked.ids.remove(&e) {
        if entities.by_id.get(&*old.id) == Some(&e) {
            entities.by_id.remove(&*old.id);
        }
        forget(batch, old.key, old.table);
    }
    entities.by_id.insert(id.to_string(), e);
    batch.names.push(tracked.track(e, id, table));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_container_written_takes_one_cache_line_of_the_batch() {
        // the hand-over writes one of these per changed container, into
        // memory the writer thread reads: each line costs the game thread
        assert!(std::mem::size_of::<(u64, Option<ContainerWrite>)>() <= 64);
    }

    #[test]
    fn an_id_inserted_again_keeps_its_key_and_is_named_once() {
        let (mut tracked, mut entities) = (Tracked::default(), PersistentEntities::default());
        let mut batch = Batch::default();
        let e = Entity::from_raw_u32(7).expect("an entity");
        for _ in 0..3 {
            claim(
                &mut tracked,
                &mut entities,
                &mut batch,
                e,
                "bag",
                Table::Containers,
            );
        }
        assert_eq!(batch.names.len(), 1, "named once");
        assert!(batch.containers.is_empty(), "no row deleted");
        // a new id: the old row goes, the new id is named
        claim(
            &mut tracked,
            &mut entities,
            &mut batch,
            e,
            "sack",
            Table::Containers,
        );
        assert_eq!(batch.names.len(), 2);
        assert_eq!(batch.containers.len(), 1, "the old row deleted");
        assert!(batch.containers[0].1.is_none());
        assert_eq!(entities.get("sack"), Some(e));
        assert_eq!(entities.get("bag"), None);
    }
}
