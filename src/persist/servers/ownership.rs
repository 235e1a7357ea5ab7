//! Ownership in the world: containers that arrive from another server,
//! and what a fence puts back.

use std::sync::Mutex;
use std::sync::mpsc::{Receiver, Sender};

use bevy::prelude::*;

use crate::persist::frame::rows::{ContainerRow, PickupRow};
use crate::persist::frame::store::Reread;
use crate::persist::servers::{ClaimFrom, ClaimRefused, Lost, ServerClaimed, ServerId};
use crate::persist::servers::{ContainerArrived, ContainerLost};
use crate::persist::world::load::{Spawner, Spawning};
use crate::plugin::{
    ContainerContents, ContainerSlotRules, DespawnPolicy, LoosePickup, OverflowStore,
};

/// Containers handed (or claimed) to this server, as the store's listener
/// reads them, waiting for the next frame. A resource.
#[derive(Resource, Default)]
pub(crate) struct Arrivals {
    pub(crate) receiver: Option<Mutex<Receiver<ContainerRow>>>,
    /// The mail waiting for this server, each read whole (taken by the
    /// plugin into its mailbox).
    pub(crate) letters: Option<Mutex<Receiver<Vec<crate::persist::frame::rows::Letter>>>>,
    /// Claims for the listener to make ([`ClaimFrom`]).
    pub(crate) claims: Option<Mutex<Sender<ServerId>>>,
    /// Claims made (or not), as the listener answers them.
    pub(crate) claimed: Option<Mutex<Receiver<Claimed>>>,
    /// The server ids the database knows, as the listener last read them
    /// (`None` on SQLite).
    pub(crate) known_servers: Option<KnownServers>,
    /// The listener found this process's server id opened again
    /// elsewhere.
    pub(crate) replaced: Option<Mutex<Receiver<crate::persist::frame::error::DatabaseError>>>,
    /// Raised by the listener after each thing it sent ([`listener_sent`]).
    pub(crate) heard: std::sync::Arc<std::sync::atomic::AtomicU64>,
    /// Keeps the listener running; it stops when dropped.
    pub(crate) _listener: Option<Box<dyn std::any::Any + Send + Sync>>,
}

/// The server ids a shared database knows, sorted, as the listener last
/// read them, and how many reads it made.
#[derive(Debug, Default)]
pub(crate) struct Known {
    pub(crate) ids: Vec<String>,
    pub(crate) reads: u64,
}

/// [`Known`], shared with the listener.
pub(crate) type KnownServers = std::sync::Arc<Mutex<Known>>;

impl Arrivals {
    /// The server ids the database knows, as last read, and the number of
    /// reads so far (`None` on SQLite).
    pub(crate) fn known_servers(&self) -> Option<(Vec<String>, u64)> {
        let known = self
            .known_servers
            .as_ref()?
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        Some((known.ids.clone(), known.reads))
    }
}

/// A claim the listener made: the rows taken from `from`, or why not.
pub(crate) struct Claimed {
    pub(crate) from: ServerId,
    pub(crate) rows: Result<(Vec<ContainerRow>, Vec<PickupRow>), String>,
}

/// Passes this frame's [`ClaimFrom`] requests to the listener; on a
/// SQLite file (no listener) each is refused.
pub(crate) fn send_claims(
    mut requests: MessageReader<ClaimFrom>,
    arrivals: Res<Arrivals>,
    mut refused: MessageWriter<ClaimRefused>,
) {
    for ClaimFrom { from } in requests.read() {
        let sent = arrivals
            .claims
            .as_ref()
            .and_then(|c| c.lock().ok())
            .is_some_and(|c| c.send(from.clone()).is_ok());
        if !sent {
            let why = if arrivals.claims.is_some() {
                "the database's listener has stopped; restart the server with ContainerDatabase::claim_from".to_string()
            } else {
                format!(
                    "a SQLite file has one server: there is nothing to claim from \"{from}\"; use PostgreSQL for several servers"
                )
            };
            let r = ClaimRefused {
                from: from.clone(),
                why,
            };
            warn!("{r}");
            refused.write(r);
        }
    }
}

/// Spawns what the claims made since the last frame took: every container
/// ([`ContainerArrived`]) and pickup, then [`ServerClaimed`]; a claim not
/// made is reported ([`ClaimRefused`]).
pub(crate) fn spawn_claimed(
    mut arriving: Arriving,
    mut claimed: MessageWriter<ServerClaimed>,
    mut refused: MessageWriter<ClaimRefused>,
) {
    for Claimed { from, rows } in drain(&arriving.arrivals.claimed) {
        let (containers, pickups) = match rows {
            Ok(rows) => rows,
            Err(why) => {
                let r = ClaimRefused { from, why };
                error!("{r}");
                refused.write(r);
                continue;
            }
        };
        let containers = arriving.containers(containers);
        let pickups = arriving.pickups(pickups);
        info!(
            "took over {} containers and {} pickups of {from}",
            containers.len(),
            pickups.len()
        );
        claimed.write(ServerClaimed {
            from,
            containers,
            pickups,
        });
    }
}

/// Stops the writer when the listener found this server id opened again
/// by another process: an idle server hears it too, not only at its next
/// write (the next frame's hand-over then lets go of everything).
pub(crate) fn hear_replaced(
    arrivals: Res<Arrivals>,
    writer: Res<crate::persist::world::database_writer::DatabaseWriter>,
) {
    if let Some(e) = drain(&arrivals.replaced).into_iter().next() {
        writer.inner.fail(e);
    }
}

/// Whether the listener sent anything since this condition last ran: the
/// systems that take what it sends run only then (most frames, nothing
/// came, and no task is started for them).
pub(crate) fn listener_sent(arrivals: Res<Arrivals>, mut seen: Local<u64>) -> bool {
    let now = arrivals.heard.load(std::sync::atomic::Ordering::Acquire);
    let sent = now != *seen;
    *seen = now;
    sent
}

/// Spawns the containers handed to this server since the last frame,
/// each once ([`ContainerArrived`]).
pub(crate) fn spawn_arrivals(mut arriving: Arriving) {
    let rows = drain(&arriving.arrivals.receiver);
    arriving.containers(rows);
}

/// Everything the listener's channel `from` holds now (nothing when there
/// is no listener).
fn drain<T>(from: &Option<Mutex<Receiver<T>>>) -> Vec<T> {
    from.as_ref()
        .and_then(|r| r.lock().ok())
        .map(|r| r.try_iter().collect())
        .unwrap_or_default()
}

/// What spawning rows the listener read (hand-overs, claims) needs.
#[derive(bevy::ecs::system::SystemParam)]
pub(crate) struct Arriving<'w, 's> {
    spawning: Spawning<'w, 's>,
    arrivals: Res<'w, Arrivals>,
    arrived: MessageWriter<'w, ContainerArrived>,
}

impl<'w, 's> Arriving<'w, 's> {
    fn spawner(&mut self) -> Spawner<'_, 'w, 's> {
        self.spawning.spawner()
    }

    /// Spawns the containers of `rows` not in this world yet (one heard
    /// of twice is spawned once), each with a [`ContainerArrived`].
    fn containers(&mut self, rows: Vec<ContainerRow>) -> Vec<Entity> {
        // one heard of twice in one drain (a take and a reconcile after a
        // reconnect) is spawned once too
        let mut once = std::collections::BTreeSet::new();
        let rows: Vec<ContainerRow> = rows
            .into_iter()
            .filter(|row| self.spawning.ids.get(&row.id).is_none() && once.insert(row.id.clone()))
            .collect();
        if rows.is_empty() {
            return Vec::new();
        }
        let spawned = self.spawner().containers(rows);
        spawned
            .into_iter()
            .map(|(id, container)| {
                self.arrived.write(ContainerArrived { container, id });
                container
            })
            .collect()
    }

    /// Spawns the pickups of `rows` not in this world yet.
    fn pickups(&mut self, rows: Vec<PickupRow>) -> Vec<Entity> {
        let mut once = std::collections::BTreeSet::new();
        let rows: Vec<PickupRow> = rows
            .into_iter()
            .filter(|row| self.spawning.ids.get(&row.id).is_none() && once.insert(row.id.clone()))
            .collect();
        let mut spawner = self.spawner();
        rows.into_iter().map(|row| spawner.pickup(row)).collect()
    }
}

/// After a fence: every id the unwritten frames touched goes back to what
/// the database holds. A container or pickup this server still owns gets
/// its row's contents (spawned again if it had left the world); one owned
/// by another server, or whose row is gone, leaves this world without its
/// items and is reported ([`ContainerLost`]).
pub(crate) fn put_back(
    spawner: &mut Spawner,
    reread: Reread,
    lost: &mut MessageWriter<ContainerLost>,
) {
    let Reread {
        containers,
        pickups,
        others,
        missing,
    } = reread;
    let mut spawn = Vec::new();
    for row in containers {
        match spawner.ids.get(&row.id) {
            Some(e) => restore_container(spawner, e, row),
            None => spawn.push(row),
        }
    }
    spawner.containers(spawn);
    for row in pickups {
        match spawner.ids.get(&row.id) {
            Some(e) => {
                spawner.commands.entity(e).insert((
                    LoosePickup {
                        item: row.item,
                        amount: row.amount,
                        props: row.props,
                    },
                    Transform::from_translation(row.translation),
                ));
            }
            None => {
                spawner.pickup(row);
            }
        }
    }
    let gone = missing.into_iter().map(|id| Lost { id, owner: None });
    for l in others.into_iter().chain(gone) {
        let Some(e) = spawner.ids.by_id.remove(&l.id) else {
            continue;
        };
        spawner.tracked.ids.remove(&e);
        spawner
            .commands
            .entity(e)
            .insert(DespawnPolicy::LeaveWithContents)
            .despawn();
        warn!("{e} (\"{}\") left this world: {l}", l.id);
        lost.write(ContainerLost { entity: e, lost: l });
    }
}

/// Gives the container `e` its row's contents and store link, in place.
fn restore_container(spawner: &mut Spawner, e: Entity, row: ContainerRow) {
    let store = row.store.as_ref().and_then(|s| spawner.ids.get(s));
    match store {
        Some(store) => spawner.commands.entity(e).insert(OverflowStore(store)),
        None => spawner.commands.entity(e).remove::<OverflowStore>(),
    };
    spawner.commands.queue(move |world: &mut World| {
        let slot_rules = world.get::<ContainerSlotRules>(e).cloned();
        let Some(mut contents) = world.get_mut::<ContainerContents>(e) else {
            return;
        };
        let ready = contents
            .engine()
            .map(|engine| engine.rules().clone())
            .zip(contents.adoption().cloned());
        match ready {
            Some((rules, id)) => {
                contents.replace_engine(rules, slot_rules.as_ref(), &row.contents, &id)
            }
            // not loaded yet: its save is the row's, loaded when it is
            None => contents.set_pending(row.contents),
        }
    });
}
