//! Ownership in the world: containers that arrive from another server,
//! and what a fence puts back.

use std::sync::Mutex;
use std::sync::mpsc::Receiver;

use bevy::prelude::*;

use super::entities::PersistentEntities;
use super::load::Spawner;
use super::rows::ContainerRow;
use super::servers::Lost;
use super::servers::{ContainerArrived, ContainerLost};
use super::store::Reread;
use super::tracked::Tracked;
use crate::plugin::{
    ContainerContents, ContainerSlotRules, DespawnPolicy, LoosePickup, OverflowStore,
};

/// Containers handed (or claimed) to this server, as the store's listener
/// reads them, waiting for the next frame. A resource.
#[derive(Resource, Default)]
pub(crate) struct Arrivals {
    pub(super) receiver: Option<Mutex<Receiver<ContainerRow>>>,
    /// The mail waiting for this server, each read whole (taken by the
    /// plugin into its mailbox).
    pub(super) letters: Option<Mutex<Receiver<Vec<super::rows::Letter>>>>,
    /// Keeps the listener running; it stops when dropped.
    pub(super) _listener: Option<Box<dyn std::any::Any + Send + Sync>>,
}

/// Spawns the containers that arrived since the last frame, each once
/// ([`ContainerArrived`]).
pub(super) fn spawn_arrivals(
    mut commands: Commands,
    server: Res<AssetServer>,
    mut ids: ResMut<PersistentEntities>,
    mut tracked: ResMut<Tracked>,
    arrivals: Res<Arrivals>,
    mut arrived: MessageWriter<ContainerArrived>,
) {
    let Some(receiver) = &arrivals.receiver else {
        return;
    };
    let rows: Vec<ContainerRow> = match receiver.lock() {
        Ok(r) => r.try_iter().collect(),
        Err(_) => return,
    };
    // one already in this world (heard of twice) is not spawned again
    let rows: Vec<ContainerRow> = rows
        .into_iter()
        .filter(|row| ids.get(&row.id).is_none())
        .collect();
    if rows.is_empty() {
        return;
    }
    let mut spawner = Spawner {
        commands: &mut commands,
        server: &server,
        ids: &mut ids,
        tracked: &mut tracked,
    };
    for (id, container) in spawner.containers(rows) {
        arrived.write(ContainerArrived { container, id });
    }
}

/// After a fence: every id the unwritten frames touched goes back to what
/// the database holds. A container or pickup this server still owns gets
/// its row's contents (spawned again if it had left the world); one owned
/// by another server, or whose row is gone, leaves this world without its
/// items and is reported ([`ContainerLost`]).
pub(super) fn put_back(
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
