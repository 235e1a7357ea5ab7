//! Handing over: at the end of every frame, what changed among the
//! persisted containers and pickups goes to the writer as one batch. The
//! game thread only copies what a save needs (a few words and the occupied
//! stacks, into one list for the whole frame); the writer makes the saves.

use std::num::NonZeroU64;
use std::sync::Arc;
use std::time::Instant;

use bevy::ecs::system::{NonSendMarker, SystemParam};
use bevy::prelude::*;

use crate::persist::frame::error::DatabaseError;
use crate::persist::frame::rows::{LONGEST_ID, PickupRow, id_fits};
use crate::persist::frame::writer::HandOverStages;
use crate::persist::frame::writer::{AdoptionRef, Batch, ContainerWrite};
use crate::persist::servers::mail::Mailbox;
use crate::persist::servers::ownership::Arrivals;
use crate::persist::servers::{
    ContainerHandedOver, ContainerLost, HandOver, HandOverRefused, ServerId, ThisServer,
};
use crate::persist::world::database_writer::DatabaseWriter;
use crate::persist::world::entities::PersistentEntities;
use crate::persist::world::id::PersistentId;
use crate::persist::world::stopped::{
    PersistenceStopped, ServerReplaced, is_replaced, let_go_of_everything,
};
use crate::persist::world::tracked::{Entry, Table, Tracked, Written};
use crate::plugin::{
    AdoptionAsset, Container, ContainerContents, DespawnPolicy, LoosePickup, OverflowStore,
};

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

/// The world as the frame's hand-over reads it.
#[derive(SystemParam)]
pub(crate) struct FrameWorld<'w, 's> {
    writer: ResMut<'w, DatabaseWriter>,
    tracked: ResMut<'w, Tracked>,
    entities: ResMut<'w, PersistentEntities>,
    changed:
        Query<'w, 's, ContainerItem<'static>, (Changed<ContainerContents>, With<PersistentId>)>,
    containers: Query<'w, 's, ContainerItem<'static>, With<PersistentId>>,
    store_changed: Query<'w, 's, Entity, StoreChanged>,
    pickups: Query<'w, 's, PickupItem<'static>>,
    ids: Query<'w, 's, Ids<'static>>,
    links: Query<'w, 's, (Entity, &'static OverflowStore), Persisted>,
    gone_ids: RemovedComponents<'w, 's, PersistentId>,
    gone_contents: RemovedComponents<'w, 's, ContainerContents>,
    gone_pickups: RemovedComponents<'w, 's, LoosePickup>,
    gone_stores: RemovedComponents<'w, 's, OverflowStore>,
    hand_overs: MessageReader<'w, 's, HandOver>,
    mailbox: ResMut<'w, Mailbox>,
    handed: MessageWriter<'w, ContainerHandedOver>,
    commands: Commands<'w, 's>,
    told: Told<'w>,
}

/// What the hand-over tells the game besides what it wrote.
#[derive(SystemParam)]
pub(crate) struct Told<'w> {
    refused: MessageWriter<'w, HandOverRefused>,
    stopped: MessageWriter<'w, PersistenceStopped>,
    replaced: MessageWriter<'w, ServerReplaced>,
    lost: MessageWriter<'w, ContainerLost>,
    arrivals: Res<'w, Arrivals>,
    server: Res<'w, ThisServer>,
}

/// Collects the frame's changes and hands them to the writer (the game
/// thread never waits for the writer: a frame past a whole queue joins
/// the newest waiting one). It runs last in the frame, in the plugin's
/// schedule after `Last`, on the thread that runs the frame; the
/// `NonSendMarker` keeps it there should a game give that schedule Bevy's
/// multi-threaded executor: a last system handed to a pool thread adds
/// that thread's wake-up to the frame (in eight alternating runs of
/// `examples/perf`, the ratio of the fastest frames, now printed as
/// `persist-frame-vs-frame-fastest`, was 1.15-1.30 that way and 1.01-1.26
/// this way).
///
/// When the store refused an earlier frame (another server owns one of
/// its rows now), this frame is not written either, until the game puts
/// back what the unwritten frames touched (`persist::world::fence`).
pub(crate) fn send_frame(mut w: FrameWorld, _on_the_schedules_thread: NonSendMarker) {
    let started = Instant::now();
    if let Some(e) = w.writer.inner.newly_stopped() {
        w.stopped(e);
    }
    w.writer.inner.frame += 1;
    let mut batch = w.writer.inner.batch(w.writer.inner.frame);
    batch.names.append(&mut w.tracked.unsent);
    let mut named = w.named();
    let mut relink = w.forget_gone(&mut batch, &named);
    let mut also = w.name_new(&mut batch, &named, &mut relink);
    // its room kept for the next frame's ids
    named.clear();
    w.tracked.named = named;
    w.free_warned();
    w.write_containers(&mut batch, &mut also, relink);
    w.write_pickups(&mut batch);
    w.hand_over(&mut batch);
    batch.mail.append(&mut w.mailbox.outgoing);
    batch.mail_done.append(&mut w.mailbox.done);
    batch.next_pickup = w.tracked.next_pickup;
    let copied = started.elapsed();
    if !batch.is_empty() {
        w.writer.inner.send(batch);
    } else {
        w.writer.inner.give_back(batch);
    }
    w.writer.inner.last_stages = HandOverStages {
        copy: copied,
        send: started.elapsed().saturating_sub(copied),
    };
}

impl FrameWorld<'_, '_> {
    /// The writer stopped: the game hears why; a replaced process lets go
    /// of everything it held.
    fn stopped(&mut self, error: DatabaseError) {
        if is_replaced(&error) {
            let server = self.told.server.0.clone();
            let let_go = let_go_of_everything(
                &mut self.commands,
                &mut self.tracked,
                &mut self.entities,
                &server,
                &mut self.told.lost,
            );
            self.told.replaced.write(ServerReplaced { server, let_go });
        }
        self.told.stopped.write(PersistenceStopped { error });
    }

    /// The entities a [`PersistentId`] was inserted on since the last
    /// hand-over (on the first, every id), sorted.
    fn named(&mut self) -> Vec<Entity> {
        let mut named = std::mem::take(&mut self.tracked.named);
        if !self.tracked.scanned {
            self.tracked.scanned = true;
            named.extend(self.ids.iter().map(|(e, ..)| e));
        }
        named.sort();
        named.dedup();
        named
    }

    /// Deletes the rows of the entities that left the world (or lost their
    /// id), unless another entity took the id this frame (its write comes
    /// later in the batch); returns them, for the containers they were the
    /// store of.
    fn forget_gone(&mut self, batch: &mut Batch, named: &[Entity]) -> Vec<Entity> {
        let mut gone: Vec<Entity> = self
            .gone_ids
            .read()
            .chain(self.gone_contents.read())
            .chain(self.gone_pickups.read())
            .collect();
        gone.sort();
        gone.dedup();
        let mut relink: Vec<Entity> = Vec::new();
        for e in gone {
            let renamed = named.binary_search(&e).is_ok() && self.ids.contains(e);
            if renamed || self.containers.contains(e) || self.pickups.contains(e) {
                continue;
            }
            if let Some(entry) = self.tracked.ids.remove(&e) {
                if self.entities.by_id.get(&*entry.id) == Some(&e) {
                    self.entities.by_id.remove(&*entry.id);
                }
                forget(batch, entry.key, entry.table);
                relink.push(e);
            }
        }
        relink
    }

    /// Names the new ids first, so a store named in this frame is known
    /// below; returns the containers to write even if their contents did
    /// not change (a new id).
    fn name_new(
        &mut self,
        batch: &mut Batch,
        named: &[Entity],
        relink: &mut Vec<Entity>,
    ) -> Vec<Entity> {
        let mut also = Vec::new();
        for &e in named {
            // inserted, then removed (or despawned) in the same frame
            let Ok((_, id, is_container)) = self.ids.get(e) else {
                continue;
            };
            let table = if is_container {
                also.push(e);
                relink.push(e);
                Table::Containers
            } else {
                Table::Pickups
            };
            claim(
                &mut self.tracked,
                &mut self.entities,
                batch,
                e,
                &id.0,
                table,
            );
        }
        also
    }

    /// An entity left unpersisted because another held its id is named
    /// again once the id is free (inserting the id again lists it, and
    /// marks it changed, for the next hand-over).
    fn free_warned(&mut self) {
        if self.tracked.warned.is_empty() {
            return;
        }
        let (tracked, entities, ids) = (&mut *self.tracked, &self.entities, &self.ids);
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
            self.commands.entity(w).insert(PersistentId(id));
        }
    }

    /// Writes the containers that changed, and those with a new id, a
    /// changed store link or a store that left (`also`, `relink`).
    fn write_containers(
        &mut self,
        batch: &mut Batch,
        also: &mut Vec<Entity>,
        mut relink: Vec<Entity>,
    ) {
        also.extend(self.store_changed.iter().chain(self.gone_stores.read()));
        if !relink.is_empty() {
            relink.sort();
            also.extend(
                self.links
                    .iter()
                    .filter(|(_, store)| relink.binary_search(&store.0).is_ok())
                    .map(|(e, _)| e),
            );
        }
        also.sort();
        also.dedup();
        let tracked = &mut *self.tracked;
        let also = self
            .containers
            .iter_many(&*also)
            .filter(|(_, contents, ..)| !contents.is_changed());
        // `for_each`, not a `for` loop: a query's `fold` runs over its tables
        // directly, where `next` keeps a cursor (of the 10,000 containers of
        // `examples/perf`, the loop looks at every one for the 1,000 changed)
        self.changed
            .iter()
            .chain(also)
            .for_each(|(e, contents, container, store)| {
                write_container(tracked, batch, e, &contents, container, store);
            });
    }

    /// Writes the pickups that changed; a pickup with no id gets the next
    /// number not taken.
    fn write_pickups(&mut self, batch: &mut Batch) {
        let (tracked, entities, commands) =
            (&mut *self.tracked, &mut *self.entities, &mut self.commands);
        // every pickup is looked at: through the fold too
        self.pickups.iter().for_each(|(e, id, pickup, transform)| {
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
                let id = next_pickup_id(tracked, entities);
                commands.entity(e).insert(PersistentId(id.clone()));
                claim(tracked, entities, batch, e, &id, Table::Pickups);
            }
            write_pickup(tracked, batch, e, &pickup, transform.translation);
        });
    }

    /// Hands the containers of this frame's [`HandOver`] requests to their
    /// servers: each is written as of this frame, its hand-over goes in the
    /// same transaction, and it leaves this world without its items (they
    /// are the new owner's now).
    fn hand_over(&mut self, batch: &mut Batch) {
        // most frames hand nothing over: no lock of the known servers then
        if self.hand_overs.is_empty() && self.tracked.waiting_hand_overs.is_empty() {
            return;
        }
        let reads = self.told.arrivals.known_servers().map_or(0, |(_, r)| r);
        let mut requests = std::mem::take(&mut self.tracked.waiting_hand_overs);
        requests.extend(self.hand_overs.read().map(|h| (h.clone(), reads)));
        // a fenced writer writes none of this frame: the hand-overs wait
        // for the put-back, which may bring their containers' rows back
        if self.writer.inner.fenced() {
            self.tracked.waiting_hand_overs = requests;
            return;
        }
        for (request, asked_at) in requests {
            let HandOver { container: e, to } = request;
            let entry = match self.judge_hand_over(e, &to, asked_at) {
                Verdict::Go(entry) => entry,
                Verdict::Wait => {
                    let waiting = HandOver { container: e, to };
                    self.tracked.waiting_hand_overs.push((waiting, asked_at));
                    continue;
                }
                Verdict::Refuse(why) => {
                    let r = HandOverRefused {
                        container: e,
                        to,
                        why,
                    };
                    warn!("{r}");
                    self.told.refused.write(r);
                    continue;
                }
            };
            let key = entry.key;
            if !batch.containers.iter().any(|(k, _)| *k == key)
                && let Ok((e, contents, container, store)) = self.containers.get(e)
            {
                write_container(&mut self.tracked, batch, e, &contents, container, store);
            }
            let Some(entry) = self.tracked.ids.remove(&e) else {
                continue;
            };
            if self.entities.by_id.get(&*entry.id) == Some(&e) {
                self.entities.by_id.remove(&*entry.id);
            }
            batch.handovers.push((entry.key, to.clone()));
            self.commands
                .entity(e)
                .insert(DespawnPolicy::LeaveWithContents)
                .despawn();
            self.handed.write(ContainerHandedOver {
                id: entry.id.to_string(),
                to,
            });
        }
    }
}

impl FrameWorld<'_, '_> {
    /// Whether the container `e` may be handed to `to` now (its tracked
    /// entry), must wait for the listener's next read of the servers (`to`
    /// is not among those last read, and no read was made since it was
    /// asked at `asked_at`), or is refused (why, and the fix).
    fn judge_hand_over(&self, e: Entity, to: &ServerId, asked_at: u64) -> Verdict<'_> {
        let Some(entry) = self.tracked.ids.get(&e) else {
            return Verdict::Refuse("it is not a persisted container of this world: give it a PersistentId (and let one frame pass) before handing it over".into());
        };
        if !self.tracked.shared {
            return Verdict::Refuse(format!(
                "\"{}\" is kept in a SQLite file, which has one server; hand-overs need a shared database (PostgreSQL)",
                entry.id
            ));
        }
        if entry.table != Table::Containers {
            return Verdict::Refuse(format!(
                "\"{}\" is a loose pickup, not a container",
                entry.id
            ));
        }
        if *to == self.told.server.0 {
            return Verdict::Refuse(format!("\"{}\" is already this server's", entry.id));
        }
        // a container whose rules never attached may have no row to hand
        // over: its items would arrive nowhere
        let ready = self
            .containers
            .get(e)
            .is_ok_and(|(_, contents, ..)| contents.engine().is_some());
        if !ready {
            return Verdict::Refuse(format!(
                "\"{}\" is not ready (its adoption has not loaded, or was refused): hand it over after its ContainerReady",
                entry.id
            ));
        }
        match self.told.arrivals.known_servers() {
            Some((known, _)) if known.iter().any(|s| s == to.as_str()) => Verdict::Go(entry),
            // a read begun after the request has not come yet: a server
            // that opened the database a moment ago is not refused
            Some((_, reads)) if reads < asked_at + 2 => Verdict::Wait,
            Some((known, _)) => Verdict::Refuse(format!(
                "no server \"{to}\" has ever opened this database (it knows {}); check the id, or register it ahead with `bevy-container db register URL {to}`",
                known.join(", ")
            )),
            None => Verdict::Refuse(
                "the database's listener has not read the servers it knows; try again".into(),
            ),
        }
    }
}

/// What becomes of a hand-over this frame.
enum Verdict<'a> {
    Go(&'a Entry),
    Wait,
    Refuse(String),
}

/// The next generated pickup id that no entity holds.
fn next_pickup_id(tracked: &mut Tracked, entities: &PersistentEntities) -> String {
    let mut id = format!("{}{}", tracked.pickup_prefix, tracked.next_pickup);
    while entities.by_id.contains_key(&id) {
        tracked.next_pickup += 1;
        id = format!("{}{}", tracked.pickup_prefix, tracked.next_pickup);
    }
    tracked.next_pickup += 1;
    id
}

/// Puts a pickup's row into the batch, or deletes it when the pickup holds
/// nothing the store can hold.
fn write_pickup(
    tracked: &mut Tracked,
    batch: &mut Batch,
    e: Entity,
    pickup: &LoosePickup,
    translation: Vec3,
) {
    let Tracked {
        ids,
        next_key,
        warned,
        ..
    } = tracked;
    let Some(entry) = ids.get_mut(&e) else {
        return;
    };
    // a container under this id until now: its row goes
    if entry.table != Table::Pickups {
        rekey(batch, next_key, entry, Table::Pickups);
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
        rekey(batch, next_key, entry, Table::Pickups);
        return;
    }
    let mut translation = translation;
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
            if w.stamp == stamp
                && same_asset(w.handle, handle)
                && Arc::ptr_eq(&w.adoption.rules, engine.rules()) =>
        {
            batch.adoption(&w.adoption)
        }
        _ => {
            let Some(adoption) = name_adoption(tracked, e, contents, container, stamp) else {
                return;
            };
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
    trace!(
        "frame {}: {e} (key {key}) written as {:?}",
        batch.frame,
        contents.slots()
    );
}

/// The adoption `e` is written under from now on (its first write, or its
/// adoption changed), kept in its entry; out of [`write_container`]'s line,
/// which most frames need only for containers written before.
#[inline(never)]
fn name_adoption(
    tracked: &mut Tracked,
    e: Entity,
    contents: &ContainerContents,
    container: &Container,
    stamp: NonZeroU64,
) -> Option<Arc<AdoptionRef>> {
    let id = contents.adoption()?;
    let rules = contents.engine()?.rules();
    let path = container
        .adoption
        .path()
        .map_or_else(|| id.path.clone(), |p| p.to_string());
    let adoption = tracked.adoption(path, id, rules);
    let entry = tracked.ids.get_mut(&e)?;
    entry.adoption = Some(Written {
        handle: container.adoption.id(),
        stamp,
        adoption: adoption.clone(),
    });
    Some(adoption)
}

/// Whether two ids name one asset: `AssetId`'s own `==` goes through a
/// conversion of each side, a tenth of a container's hand-over.
#[inline]
fn same_asset(a: AssetId<AdoptionAsset>, b: AssetId<AdoptionAsset>) -> bool {
    match (a, b) {
        (AssetId::Index { index: a, .. }, AssetId::Index { index: b, .. }) => {
            a.to_bits() == b.to_bits()
        }
        (AssetId::Uuid { uuid: a }, AssetId::Uuid { uuid: b }) => a == b,
        _ => false,
    }
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
    fn same_asset_tells_ids_apart_as_their_own_equality_does() {
        use bevy::asset::AssetIndex;
        let index = |bits: u64| AssetId::<AdoptionAsset>::Index {
            index: AssetIndex::from_bits(bits),
            marker: std::marker::PhantomData,
        };
        let uuid = |n: u128| AssetId::<AdoptionAsset>::Uuid {
            uuid: bevy::asset::uuid::Uuid::from_u128(n),
        };
        // another generation of one index is another asset
        let ids = [index(7), index(7 | 1 << 32), index(8), uuid(7), uuid(8)];
        for a in ids {
            for b in ids {
                assert_eq!(same_asset(a, b), a == b, "{a:?} and {b:?}");
            }
        }
    }

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
