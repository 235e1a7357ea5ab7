//! Containers kept in a SQLite file, whole at every frame boundary
//! (feature `persist`).
//!
//! A server's containers live in its memory; when the process dies, every
//! change since the last save is gone, and a save that writes containers
//! one at a time can keep a trade's source without its target. Here the
//! database always holds the state of one frame boundary, whole:
//!
//! - **One transaction per frame.** At the end of every frame that changed
//!   anything ([`Last`]), the game thread hands every changed container and
//!   loose pickup (and the ones that left the world) to a writer thread,
//!   with the frame's number. The writer writes them in one transaction,
//!   frame number included. A process killed at any moment leaves the file
//!   at the end of some frame: never half a transfer.
//! - **Off the game thread.** The game thread copies what changed (a
//!   container's stacks and a few words, not its text) and moves on; the
//!   writer turns it into rows. The queue between them is bounded
//!   ([`ContainerDatabase::queue`]): when the writer falls behind, the
//!   frames waiting are merged into one transaction (still a frame
//!   boundary), and when the queue is full the game thread waits for room
//!   (back-pressure). Nothing is dropped. An idle writer sleeps until a
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
mod entities;
mod error;
mod load;
mod mail;
mod ownership;
#[cfg(feature = "postgres")]
mod postgres;
mod rows;
mod scheduling;
mod servers;
mod sqlite;
mod stopped;
mod store;
mod track;
mod tracked;
mod writer;

use std::sync::Mutex;

use bevy::prelude::*;

pub use database::{ContainerDatabase, Synchronous};
pub use entities::PersistentEntities;
pub use error::DatabaseError;
pub use mail::{MailAnswered, MailNotSent, MailReceived, MailRefused, MailSent, SendMail};
#[cfg(feature = "postgres")]
pub use postgres::operator;
#[cfg(feature = "postgres")]
pub use postgres::{POSTGRES_SCHEMA_VERSION, Replication, ThrowawayOptions, ThrowawayPostgres};
pub use rows::{ContainerRow, PickupRow};
pub use scheduling::WriterScheduling;
pub use servers::{
    ClaimFrom, ClaimRefused, ContainerArrived, ContainerHandedOver, ContainerLost, HandOver,
    HandOverRefused, Lost, ServerClaimed, ServerId, ThisServer,
};
pub use sqlite::SCHEMA_VERSION;
pub use stopped::{PersistenceStopped, ServerReplaced};
pub use writer::WriterStats;

/// The name of a container (or loose pickup) in the database: given by the
/// game and the same on every run, unlike an `Entity`. At most 256 bytes.
///
/// The component is immutable: to rename an entity, insert a new id (the
/// row under the old name goes in the same frame). The persistence learns
/// of new ids as they are inserted, so it never scans every persisted
/// entity for them.
///
/// ```
/// use bevy_container::persist::PersistentId;
/// let id = PersistentId::new("backpack-of-ilsa");
/// assert_eq!(id.as_str(), "backpack-of-ilsa");
/// ```
#[derive(Component, Reflect, Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[component(immutable, on_insert = tracked::id_inserted)]
#[reflect(Component)]
pub struct PersistentId(pub String);

impl PersistentId {
    /// The id `id`.
    pub fn new(id: impl Into<String>) -> PersistentId {
        PersistentId(id.into())
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Keeps the world's containers and loose pickups in a
/// [`ContainerDatabase`]; see the [module](self). Add it after
/// [`ContainerPlugin`](crate::plugin::ContainerPlugin).
pub struct ContainerDatabasePlugin {
    database: Mutex<Option<ContainerDatabase>>,
}

impl ContainerDatabasePlugin {
    /// The plugin for an opened database.
    pub fn new(database: ContainerDatabase) -> ContainerDatabasePlugin {
        ContainerDatabasePlugin {
            database: Mutex::new(Some(database)),
        }
    }
}

impl Plugin for ContainerDatabasePlugin {
    fn build(&self, app: &mut App) {
        let taken = self.database.lock().ok().and_then(|mut d| d.take());
        let Some(database) = taken else {
            error!("ContainerDatabasePlugin was added twice; the second is ignored");
            return;
        };
        let (start, loaded, server, mut arrivals) = database.into_parts();
        let mailbox = mail::Mailbox::new(arrivals.letters.take());
        app.register_type::<PersistentId>()
            .insert_resource(DatabaseWriter {
                inner: writer::start(start),
            })
            .insert_resource(loaded)
            .insert_resource(ThisServer(server))
            .insert_resource(arrivals)
            .insert_resource(mailbox)
            .init_resource::<PersistentEntities>()
            .init_resource::<tracked::Tracked>();
        add_messages(app);
        app.add_systems(PreStartup, load::spawn_persisted)
            .add_systems(
                First,
                (
                    ownership::spawn_arrivals,
                    ownership::send_claims.run_if(on_message::<ClaimFrom>),
                    ownership::spawn_claimed,
                )
                    .chain(),
            )
            .add_systems(
                PreUpdate,
                (mail::read_mail, mail::apply_mail.run_if(mail::mail_waiting)).chain(),
            )
            .add_systems(PostUpdate, mail::send_mail.run_if(on_message::<SendMail>))
            .add_systems(Last, track::send_frame);
    }
}

/// The requests and facts of ownership and mail.
fn add_messages(app: &mut App) {
    app.add_message::<HandOver>()
        .add_message::<ContainerArrived>()
        .add_message::<ContainerHandedOver>()
        .add_message::<ContainerLost>()
        .add_message::<HandOverRefused>()
        .add_message::<PersistenceStopped>()
        .add_message::<ServerReplaced>()
        .add_message::<ClaimFrom>()
        .add_message::<ServerClaimed>()
        .add_message::<ClaimRefused>()
        .add_message::<SendMail>()
        .add_message::<MailSent>()
        .add_message::<MailNotSent>()
        .add_message::<MailReceived>()
        .add_message::<MailAnswered>();
}

/// The database's writer, as the game sees it: the last frame handed over
/// and written, what it has written, and the first error. A resource.
#[derive(Resource)]
pub struct DatabaseWriter {
    inner: writer::Handle,
}

impl DatabaseWriter {
    /// The frame the game thread is at (handed over or not).
    pub fn frame(&self) -> u64 {
        self.inner.frame
    }

    /// The last frame committed to the file.
    pub fn written(&self) -> u64 {
        self.inner.stats().written_frame
    }

    /// How many times the game thread waited for room in the writer's
    /// queue (the writer had fallen a whole queue behind).
    pub fn waits(&self) -> u64 {
        self.inner.waits
    }

    /// How long the game thread spent in the last frame's hand-over:
    /// finding what changed and copying it for the writer (and, when the
    /// writer had fallen a whole queue behind, waiting for room). What
    /// persistence costs a frame, to watch in a game's diagnostics.
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy_container::persist::{ContainerDatabase, ContainerDatabasePlugin, DatabaseWriter};
    /// use bevy_container::plugin::ContainerPlugin;
    ///
    /// let dir = std::env::temp_dir().join(format!("last-hand-over-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir)?;
    /// let database = ContainerDatabase::open(dir.join("world.db"))?;
    /// let mut app = App::new();
    /// app.add_plugins((MinimalPlugins, AssetPlugin::default(), ContainerPlugin::default()))
    ///     .add_plugins(ContainerDatabasePlugin::new(database));
    /// let writer = app.world().resource::<DatabaseWriter>();
    /// assert!(writer.last_hand_over().is_zero(), "no frame yet");
    /// app.update();
    /// let took = app.world().resource::<DatabaseWriter>().last_hand_over();
    /// assert!(!took.is_zero() && took < std::time::Duration::from_secs(1));
    /// # drop(app);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn last_hand_over(&self) -> std::time::Duration {
        self.inner.last_hand_over
    }

    /// What the writer thread runs under, as the system tells it: the
    /// [`ContainerDatabase::scheduling`] asked for, or
    /// [`WriterScheduling::Normal`] on a system without these policies
    /// (every one but Linux) or where Linux refused it (a warning then
    /// says why).
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy_container::persist::{
    ///     ContainerDatabase, ContainerDatabasePlugin, DatabaseWriter, WriterScheduling,
    /// };
    /// use bevy_container::plugin::ContainerPlugin;
    ///
    /// let dir = std::env::temp_dir().join(format!("scheduling-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir)?;
    /// let database = ContainerDatabase::open(dir.join("world.db"))?
    ///     .scheduling(WriterScheduling::Idle);
    /// let mut app = App::new();
    /// app.add_plugins((MinimalPlugins, AssetPlugin::default(), ContainerPlugin::default()))
    ///     .add_plugins(ContainerDatabasePlugin::new(database));
    /// let writer = app.world().resource::<DatabaseWriter>();
    /// if cfg!(target_os = "linux") {
    ///     assert_eq!(writer.scheduling(), WriterScheduling::Idle);
    /// }
    /// # drop(app);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn scheduling(&self) -> WriterScheduling {
        self.inner.scheduling
    }

    /// What the writer has done so far.
    pub fn stats(&self) -> WriterStats {
        self.inner.stats()
    }

    /// The error that stopped the writer, if any: frames after it are not
    /// written, and the file holds the last frame before it.
    pub fn error(&self) -> Option<DatabaseError> {
        self.inner.error()
    }

    /// Waits until every frame handed over is committed (or the writer
    /// stopped on an error, which it returns).
    pub fn flush(&self) -> Result<(), DatabaseError> {
        self.inner.flush()
    }
}
