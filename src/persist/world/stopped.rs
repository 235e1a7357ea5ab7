//! The writer stopped for good: the facts the game hears, and what a
//! replaced process lets go of.

use bevy::prelude::*;

use crate::persist::frame::error::DatabaseError;
use crate::persist::servers::{ContainerLost, Lost, ServerId};
use crate::persist::world::entities::PersistentEntities;
use crate::persist::world::tracked::Tracked;
use crate::plugin::DespawnPolicy;

/// Fact: the database writer stopped, and no later frame of this server
/// is written (sent once). `error` says why and what to do: a write that
/// failed ([`DatabaseError::Write`]), a database that forgot frames this
/// server saw committed ([`DatabaseError::Behind`]: restart the server so
/// it loads what the database holds), or the server id opened again by
/// another process ([`DatabaseError::Replaced`], with [`ServerReplaced`]).
/// The game goes on in memory; what it does from here is not persisted.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_container::persist::PersistenceStopped;
///
/// fn alert(mut stopped: MessageReader<PersistenceStopped>) {
///     for s in stopped.read() {
///         error!("{}: take this server out of rotation", s.error);
///     }
/// }
/// # let _ = alert;
/// ```
#[derive(Message, Debug, Clone, PartialEq, Eq)]
pub struct PersistenceStopped {
    /// Why, and the fix.
    pub error: DatabaseError,
}

/// Fact: this server's id was opened again by another process (an
/// orchestrator started it anew while this one was paused or cut off from
/// the database). This process wrote nothing after that, and never will:
/// every container and pickup it held has left its world (without its
/// items: they are the newer process's), each reported with
/// [`ContainerLost`]. Stop this process.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_container::persist::ServerReplaced;
///
/// fn quit(mut replaced: MessageReader<ServerReplaced>, mut exit: MessageWriter<AppExit>) {
///     if let Some(r) = replaced.read().next() {
///         error!("{r}");
///         exit.write(AppExit::from_code(3));
///     }
/// }
/// # let _ = quit;
/// ```
#[derive(Message, Debug, Clone, PartialEq, Eq)]
pub struct ServerReplaced {
    /// This server's id.
    pub server: ServerId,
    /// How many containers and pickups it let go of.
    pub let_go: usize,
}

impl std::fmt::Display for ServerReplaced {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "server {} was opened again by another process: this one let go of {} containers and pickups and writes nothing more; stop it",
            self.server, self.let_go
        )
    }
}

/// Everything a replaced process held leaves its world without its items,
/// each reported; returns how many.
pub(crate) fn let_go_of_everything(
    commands: &mut Commands,
    tracked: &mut Tracked,
    entities: &mut PersistentEntities,
    server: &ServerId,
    lost: &mut MessageWriter<ContainerLost>,
) -> usize {
    let mut held: Vec<(Entity, String)> = tracked
        .ids
        .drain()
        .map(|(e, entry)| (e, entry.id.to_string()))
        .collect();
    // reported in id order, whatever the map's
    held.sort_by(|a, b| a.1.cmp(&b.1));
    for (e, id) in &held {
        entities.by_id.remove(id);
        if let Ok(mut entity) = commands.get_entity(*e) {
            entity.insert(DespawnPolicy::LeaveWithContents).despawn();
        }
        lost.write(ContainerLost {
            entity: *e,
            lost: Lost {
                id: id.clone(),
                owner: Some(server.clone()),
            },
        });
    }
    held.len()
}

/// Whether `e` is the replaced-process error.
pub(crate) fn is_replaced(e: &DatabaseError) -> bool {
    matches!(e, DatabaseError::Replaced { .. })
}
