//! Containers kept in a database, whole at every frame boundary: a SQLite
//! file for one server (feature `persist`), or PostgreSQL shared by several
//! servers (feature `postgres`, the guide's
//! [several servers](crate::guide::servers)).
//!
//! The module's parts: `frame` (one frame's rows, the writer thread, what
//! a store is to it; it knows no backend), `sqlite` and `postgres` (the
//! stores), `servers` (several servers: ownership, hand-over, claims,
//! mail) and `world` (the ids entities carry, what a frame hands over,
//! what a database spawns at start, the plugin).
//!
//! A server's containers live in its memory; when the process dies, every
//! change since the last save is gone, and a save that writes containers
//! one at a time can keep a trade's source without its target. Here the
//! database always holds the state of one frame boundary, whole:
//!
//! - **One transaction per frame.** At the end of every frame that changed
//!   anything (right after [`Last`](bevy::app::Last)), the game thread hands every changed container and
//!   loose pickup (and the ones that left the world) to a writer thread,
//!   with the frame's number. The writer writes them in one transaction,
//!   frame number included. A process killed at any moment leaves the file
//!   at the end of some frame: never half a transfer.
//! - **Off the game thread.** The game thread copies what changed (a
//!   container's stacks and a few words, not its text) and moves on; the
//!   writer turns it into rows. The queue between them is bounded
//!   ([`ContainerDatabase::queue`]): when the writer falls behind, the
//!   frames waiting are merged into one transaction (still a frame
//!   boundary). Past a whole queue the game thread does not wait: its
//!   frame joins the newest waiting one, which keeps one entry for each
//!   persisted entity, so a database away for seconds (a failover, a
//!   commit waiting for a standby) neither stops the game nor grows its
//!   memory without end. Nothing is dropped. An idle writer sleeps until a
//!   frame is handed over: one wake-up per frame that changed anything,
//!   none while nothing does. On Linux the writer runs under
//!   `SCHED_BATCH` ([`WriterScheduling`]), so waking it never takes the
//!   game thread's core.
//! - **Keyed by the game's ids.** A container is persisted when it has a
//!   [`PersistentId`], a name the game gives that is the same on every run
//!   (`backpack-of-ilsa`), unlike an `Entity`. Loose pickups get one by
//!   themselves (`pickup-17`). A container's store link is kept as its
//!   store's id.
//! - **Loaded on start.** [`ContainerDatabase::open`] reads and checks every
//!   row before anything touches the world: a row that does not read is an
//!   error naming its table and key, and nothing half-loads. The plugin then
//!   spawns every persisted container (its adoption loaded by the asset
//!   server from the path in its save), store link and pickup. Each
//!   container's contents are loaded under its adoption as it is now, as a
//!   save is: a changed adoption migrates, and what no longer fits is
//!   forced out with cause `loaded` ([`ItemsForcedOut`](crate::plugin::ItemsForcedOut));
//!   a save that does not load stays in the database, unchanged, and is
//!   reported ([`ContainerSaveRefused`](crate::plugin::ContainerSaveRefused)).
//!   Find a loaded container by its id with [`PersistentEntities`].
//!
//! ```no_run
//! use bevy::prelude::*;
//! use bevy_container::persist::{ContainerDatabase, ContainerDatabasePlugin, PersistentId};
//! use bevy_container::plugin::{Container, ContainerPlugin};
//!
//! // open (and check) the file before the app runs: a bad file is an error here
//! let db = match ContainerDatabase::open("server.db") {
//!     Ok(db) => db,
//!     Err(e) => {
//!         eprintln!("{e}");
//!         std::process::exit(1);
//!     }
//! };
//! App::new()
//!     .add_plugins((MinimalPlugins, AssetPlugin::default(), ContainerPlugin::default()))
//!     .add_plugins(ContainerDatabasePlugin::new(db))
//!     .add_systems(Startup, |ids: Res<bevy_container::persist::PersistentEntities>,
//!                            server: Res<AssetServer>, mut commands: Commands| {
//!         // the chest of the last run comes back by itself; a new world spawns one
//!         if ids.get("camp-chest").is_none() {
//!             commands.spawn((
//!                 PersistentId::new("camp-chest"),
//!                 Container::new(server.load("backpack.adoption.json")),
//!             ));
//!         }
//!     })
//!     .run();
//! ```
//!
//! What survives what, with the default [`Synchronous::Normal`]: a crash, a
//! panic or a kill of the process loses nothing committed; the file holds
//! the last frame the writer committed (at most the frames still in the
//! queue are lost, whole). A power loss or an operating-system crash may
//! also lose the last few committed frames, never part of one. With
//! [`Synchronous::Full`] every committed frame survives a power loss too,
//! at the cost of a disk flush per transaction.
//!
//! The guide's [persistence chapter](crate::guide::persistence) has the
//! schema, its versions, and the errors.

mod database;
mod frame;
#[cfg(feature = "postgres")]
mod postgres;
mod servers;
mod sqlite;
mod world;

pub use database::ContainerDatabase;
pub use frame::error::DatabaseError;
pub use frame::rows::{ContainerRow, PickupRow};
pub use frame::scheduling::WriterScheduling;
pub use frame::writer::HandOverStages;
pub use frame::writer::WriterStats;
#[cfg(feature = "postgres")]
pub use postgres::operator;
#[cfg(feature = "postgres")]
pub use postgres::{POSTGRES_SCHEMA_VERSION, Replication, ThrowawayOptions, ThrowawayPostgres};
pub use servers::mail::{MailAnswered, MailNotSent, MailReceived, MailRefused, MailSent, SendMail};
pub use servers::{
    ClaimFrom, ClaimRefused, ContainerArrived, ContainerHandedOver, ContainerLost, HandOver,
    HandOverRefused, Lost, ServerClaimed, ServerId, ThisServer,
};
pub use sqlite::{SCHEMA_VERSION, Synchronous};
pub use world::database_writer::DatabaseWriter;
pub use world::entities::PersistentEntities;
pub use world::id::PersistentId;
pub use world::plugin::ContainerDatabasePlugin;
pub use world::stopped::{PersistenceStopped, ServerReplaced};
