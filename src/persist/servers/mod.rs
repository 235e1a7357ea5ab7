//! Several servers on one database: who a server is, the request that
//! hands a container to another, and the facts a server learns about
//! ownership (a container arrived, was handed over, was lost).

use bevy::prelude::*;

pub(crate) mod mail;
pub(crate) mod ownership;

pub use crate::persist::frame::server_id::{Lost, ServerId};

/// This server's id, as the database was opened with it. A resource.
#[derive(Resource, Debug, Clone, PartialEq, Eq, Deref)]
pub struct ThisServer(pub ServerId);

/// Request: give `container` (a persisted container of this world) to the
/// server `to`. In this frame's transaction its row is written as of this
/// frame and gets its new owner and the next epoch; the container leaves
/// this world at the end of the frame (its items with it, as
/// [`DespawnPolicy::LeaveWithContents`](crate::plugin::DespawnPolicy)
/// says), and `to` spawns it ([`ContainerArrived`]) as soon as it hears
/// of it, or when it next starts. `to` must be a server id the database
/// knows (servers register when they first open it; an operator can
/// register one ahead): one the listener has not read yet waits for its
/// next reads of the servers (about half a second), and one still unknown
/// then is refused ([`HandOverRefused`]), the container staying here; so is
/// a container whose rules have not attached yet (before its
/// [`ContainerReady`](crate::plugin::ContainerReady)). PostgreSQL only: a SQLite file has one
/// server, and the request is refused with a warning there.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_container::persist::{HandOver, ServerId};
///
/// // the player crossed the border: its backpack goes with it
/// fn cross(backpack: Entity, mut hand_over: MessageWriter<HandOver>) {
///     hand_over.write(HandOver { container: backpack, to: ServerId::new("zone-south") });
/// }
/// # let _ = cross;
/// ```
#[derive(Message, Debug, Clone, PartialEq, Eq)]
pub struct HandOver {
    /// The container.
    pub container: Entity,
    /// The server that owns it next.
    pub to: ServerId,
}

impl HandOver {
    /// Give `container` to the server `to`.
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy_container::persist::{HandOver, ServerId};
    /// let h = HandOver::new(Entity::PLACEHOLDER, "zone-south");
    /// assert_eq!(h.to, ServerId::new("zone-south"));
    /// ```
    pub fn new(container: Entity, to: impl Into<String>) -> HandOver {
        HandOver {
            container,
            to: ServerId::new(to),
        }
    }
}

/// Fact: a [`HandOver`] was refused; the container stays in this world,
/// and in the database as this server's, untouched. `why` says what was
/// wrong and the fix: the container is not persisted (no
/// [`PersistentId`](crate::persist::PersistentId)), is a pickup, the database is a
/// SQLite file (one server), or `to` is a server id the database has
/// never seen (a misspelled id would own the container for ever: servers
/// register when they first open the database, and an operator can
/// register one ahead with `bevy-container db register URL ID`).
///
/// ```
/// use bevy::prelude::*;
/// use bevy_container::persist::HandOverRefused;
///
/// fn report(mut refused: MessageReader<HandOverRefused>) {
///     for r in refused.read() {
///         warn!("{r}");
///     }
/// }
/// # let _ = report;
/// ```
#[derive(Message, Debug, Clone, PartialEq, Eq)]
pub struct HandOverRefused {
    /// The container (still in this world).
    pub container: Entity,
    /// The server it was to go to.
    pub to: ServerId,
    /// Why, and the fix.
    pub why: String,
}

impl std::fmt::Display for HandOverRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the hand-over of {} to {} was refused: {}",
            self.container, self.to, self.why
        )
    }
}

/// Fact: a container was handed to this server (or claimed by it) and is
/// now in this world, under its id. Its contents load when its adoption
/// does ([`ContainerReady`](crate::plugin::ContainerReady)).
#[derive(Message, Debug, Clone, PartialEq, Eq)]
pub struct ContainerArrived {
    /// The container's entity in this world.
    pub container: Entity,
    /// Its persistent id.
    pub id: String,
}

/// Fact: a container left this world for another server; its row names
/// that server as its owner, committed with the frame it left in.
#[derive(Message, Debug, Clone, PartialEq, Eq)]
pub struct ContainerHandedOver {
    /// Its persistent id.
    pub id: String,
    /// Its new owner.
    pub to: ServerId,
}

/// Fact: the database refused a write of this server because another
/// server owns the container (or pickup) now, or owns it at a later epoch
/// (it was claimed while this server was away). The entity left this
/// world without its items (they are the other server's), and every other
/// entity the unwritten frames touched was put back as the database holds
/// it, so nothing this server did since its last write reaches the
/// database. At the same fence the server also lets go of every other
/// container and pickup another server has taken (a claim takes them all,
/// not only those this server was writing), each reported.
#[derive(Message, Debug, Clone, PartialEq, Eq)]
pub struct ContainerLost {
    /// The entity it was in this world.
    pub entity: Entity,
    /// Its id, and who owns it now.
    pub lost: Lost,
}

/// Request: take over every container and loose pickup the server `from`
/// owns, while this server runs: the operator's or the game's decision
/// that `from` is gone (the crate never decides it on a timer). In one
/// transaction each row gets this server as its owner and the next epoch,
/// so a paused `from` that comes back can no longer write them (its writes
/// are refused and it reports [`ContainerLost`]). The claimed containers
/// and pickups are spawned here ([`ContainerArrived`] for each container,
/// then [`ServerClaimed`]); mail to them is applied here from then on.
/// The claim is made by the listener's connection, within a quarter of a
/// second. At start, [`ContainerDatabase::claim_from`](crate::persist::ContainerDatabase::claim_from)
/// does the same before anything loads. PostgreSQL only: on a SQLite file
/// the request is refused ([`ClaimRefused`]).
///
/// ```
/// use bevy::prelude::*;
/// use bevy_container::persist::{ClaimFrom, ServerId};
///
/// // the operator says zone-east is gone for good: its chests are ours now
/// fn take_over(mut claim: MessageWriter<ClaimFrom>) {
///     claim.write(ClaimFrom { from: ServerId::new("zone-east") });
/// }
/// # let _ = take_over;
/// ```
#[derive(Message, Debug, Clone, PartialEq, Eq)]
pub struct ClaimFrom {
    /// The server that is gone.
    pub from: ServerId,
}

impl ClaimFrom {
    /// Take over what `from` owns.
    ///
    /// ```
    /// use bevy_container::persist::{ClaimFrom, ServerId};
    /// assert_eq!(ClaimFrom::new("zone-east").from, ServerId::new("zone-east"));
    /// ```
    pub fn new(from: impl Into<String>) -> ClaimFrom {
        ClaimFrom {
            from: ServerId::new(from),
        }
    }
}

/// Fact: this server took over what `from` owned ([`ClaimFrom`]), and the
/// claimed containers and pickups are in this world (the containers'
/// contents load when their adoptions do). Both lists are empty when
/// `from` owned nothing.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_container::persist::ServerClaimed;
///
/// fn report(mut claimed: MessageReader<ServerClaimed>) {
///     for c in claimed.read() {
///         info!("took over {} containers and {} pickups of {}", c.containers.len(), c.pickups.len(), c.from);
///     }
/// }
/// # let _ = report;
/// ```
#[derive(Message, Debug, Clone, PartialEq, Eq)]
pub struct ServerClaimed {
    /// The server whose rows were claimed.
    pub from: ServerId,
    /// The claimed containers, in this world, by id.
    pub containers: Vec<Entity>,
    /// The claimed loose pickups, in this world, by id.
    pub pickups: Vec<Entity>,
}

/// Fact: a [`ClaimFrom`] was not made: the store is a SQLite file (one
/// server, nothing to claim), or the database refused or lost the
/// transaction (`why` says which and what to do). Nothing was claimed,
/// except when the connection broke during the commit itself: then what
/// was claimed loads at this server's next start, and claiming again
/// finds nothing more.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_container::persist::ClaimRefused;
///
/// fn report(mut refused: MessageReader<ClaimRefused>) {
///     for r in refused.read() {
///         error!("{r}");
///     }
/// }
/// # let _ = report;
/// ```
#[derive(Message, Debug, Clone, PartialEq, Eq)]
pub struct ClaimRefused {
    /// The server the claim named.
    pub from: ServerId,
    /// Why, and the fix.
    pub why: String,
}

impl std::fmt::Display for ClaimRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the claim of {}'s containers was not made: {}",
            self.from, self.why
        )
    }
}
