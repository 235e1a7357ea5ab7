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

mod load;
mod rows;
mod scheduling;
mod schema;
mod track;
mod writer;

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use bevy::prelude::*;

pub use load::PersistentEntities;
pub use rows::{ContainerRow, PickupRow};
pub use scheduling::WriterScheduling;
pub use schema::SCHEMA_VERSION;
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
#[component(immutable, on_insert = track::id_inserted)]
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

/// How hard SQLite works to keep a committed frame through a power loss
/// (its `synchronous` setting; the file is always in WAL mode).
///
/// ```
/// use bevy_container::persist::Synchronous;
/// assert_eq!(Synchronous::default(), Synchronous::Normal);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Synchronous {
    /// No flush at all: a killed process loses nothing committed, but a
    /// power loss may damage the file. For tests and throwaway worlds.
    Off,
    /// Flush at checkpoints only: a killed process loses nothing committed;
    /// a power loss may lose the last committed frames (whole), never the
    /// file.
    #[default]
    Normal,
    /// Flush every transaction: a committed frame survives a power loss.
    Full,
}

impl Synchronous {
    fn pragma(self) -> &'static str {
        match self {
            Synchronous::Off => "OFF",
            Synchronous::Normal => "NORMAL",
            Synchronous::Full => "FULL",
        }
    }
}

/// Why a database could not be opened, read or written. Each names the
/// file, the table and key where there is one, and what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DatabaseError {
    /// The file could not be opened or created.
    #[error(
        "{path}: cannot open the container database ({message}); check the path and its folder"
    )]
    Open {
        /// The file.
        path: String,
        /// What SQLite said.
        message: String,
    },
    /// Another process (another server?) holds the file.
    #[error(
        "{path}: the container database is in use by another process; stop the other server or use another file"
    )]
    Locked {
        /// The file.
        path: String,
    },
    /// The file or its folder cannot be written.
    #[error(
        "{path}: the container database cannot be written ({message}); make the file and its folder writable"
    )]
    ReadOnly {
        /// The file.
        path: String,
        /// What SQLite said.
        message: String,
    },
    /// The file is not a SQLite database, or is damaged (truncated,
    /// overwritten).
    #[error(
        "{path}: not a container database, or a damaged one ({message}); restore it from a backup or move it away to start a new world"
    )]
    Damaged {
        /// The file.
        path: String,
        /// What SQLite said.
        message: String,
    },
    /// The file was written by a newer version of this crate.
    #[error(
        "{path}: the container database has schema version {found}, newer than this build reads ({supported}); use a newer bevy_container"
    )]
    Newer {
        /// The file.
        path: String,
        /// The file's schema version.
        found: i64,
        /// The newest this build reads.
        supported: i64,
    },
    /// A row does not read; nothing was loaded.
    #[error(
        "{path}: table {table}, row \"{key}\": {message}; fix or delete the row, or restore the file from a backup"
    )]
    Row {
        /// The file.
        path: String,
        /// The table.
        table: &'static str,
        /// The row's key (a persistent id).
        key: String,
        /// What is wrong, with the column.
        message: String,
    },
    /// Writing a frame failed; the file holds the frame before.
    #[error(
        "{path}: writing frame {frame} failed ({message}); the file holds the last frame written, and no later frame is written: free disk space or fix the file's permissions, then restart the server to go on from that frame"
    )]
    Write {
        /// The file.
        path: String,
        /// The frame that was not written.
        frame: u64,
        /// What SQLite said.
        message: String,
    },
}

/// An open container database: every row read and checked, ready to hand
/// to [`ContainerDatabasePlugin`]. Opening takes the file for this process
/// alone (a second server on the same file is refused with
/// [`DatabaseError::Locked`]).
pub struct ContainerDatabase {
    path: PathBuf,
    connection: rusqlite::Connection,
    frame: u64,
    next_pickup: u64,
    containers: Vec<ContainerRow>,
    pickups: Vec<PickupRow>,
    synchronous: Synchronous,
    queue: usize,
    scheduling: WriterScheduling,
}

impl ContainerDatabase {
    /// Opens `path` (creating it, with the current schema, when missing),
    /// migrates an older schema, and reads every row. Any row that does not
    /// read makes the whole open fail: nothing half-loads.
    pub fn open(path: impl AsRef<Path>) -> Result<ContainerDatabase, DatabaseError> {
        let path = path.as_ref().to_path_buf();
        let connection = schema::open(&path)?;
        let name = path.display().to_string();
        let (frame, next_pickup) = rows::read_frame(&connection, &name)?;
        let containers = rows::read_containers(&connection, &name)?;
        let pickups = rows::read_pickups(&connection, &name, &containers)?;
        Ok(ContainerDatabase {
            path,
            connection,
            frame,
            next_pickup,
            containers,
            pickups,
            synchronous: Synchronous::default(),
            queue: 8,
            scheduling: WriterScheduling::default(),
        })
    }

    /// The durability setting ([`Synchronous::Normal`] unless set).
    pub fn synchronous(mut self, synchronous: Synchronous) -> ContainerDatabase {
        self.synchronous = synchronous;
        self
    }

    /// How many frames may wait for the writer before the game thread
    /// waits (8 unless set; at least 1). Waiting frames are written merged.
    pub fn queue(mut self, frames: usize) -> ContainerDatabase {
        self.queue = frames.max(1);
        self
    }

    /// How the system schedules the writer thread beside the game's
    /// threads ([`WriterScheduling::Batch`] unless set).
    pub fn scheduling(mut self, scheduling: WriterScheduling) -> ContainerDatabase {
        self.scheduling = scheduling;
        self
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The number of the last frame written to the file (0 for a new file).
    pub fn frame(&self) -> u64 {
        self.frame
    }

    /// The containers in the file, sorted by id.
    pub fn containers(&self) -> &[ContainerRow] {
        &self.containers
    }

    /// The loose pickups in the file, sorted by id.
    pub fn pickups(&self) -> &[PickupRow] {
        &self.pickups
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
        let (loaded, writer) = writer::start(database);
        app.register_type::<PersistentId>()
            .insert_resource(writer)
            .insert_resource(loaded)
            .init_resource::<PersistentEntities>()
            .init_resource::<track::Tracked>()
            .add_systems(PreStartup, load::spawn_persisted)
            .add_systems(Last, track::hand_over);
    }
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
