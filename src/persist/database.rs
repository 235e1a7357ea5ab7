//! Opening a container database: a SQLite file, or a PostgreSQL database
//! shared by several servers. Every row is read and checked before the
//! plugin touches the world.

use std::path::Path;

use crate::persist::frame::error::DatabaseError;
use crate::persist::frame::rows::{ContainerRow, PickupRow};
use crate::persist::frame::scheduling::WriterScheduling;
use crate::persist::frame::store::Store;
use crate::persist::frame::writer::Start;
use crate::persist::servers::ServerId;
use crate::persist::servers::ownership::Arrivals;
use crate::persist::sqlite::{self, SqliteStore, Synchronous};
use crate::persist::world::load::Loaded;

/// The store behind a database.
enum Backend {
    Sqlite(SqliteStore),
    #[cfg(feature = "postgres")]
    Postgres(Box<crate::persist::postgres::PostgresStore>),
}

/// An open container database: every row read and checked, ready to hand
/// to [`ContainerDatabasePlugin`](crate::persist::ContainerDatabasePlugin).
///
/// A path opens a SQLite file, taken for this process alone (a second
/// server on the same file is refused with [`DatabaseError::Locked`]). A
/// `postgresql://` (or `postgres://`) URL, with the feature `postgres`,
/// opens a PostgreSQL database that several servers share, each under its
/// own [`ServerId`] ([`ContainerDatabase::open_as`]): a server loads only
/// the containers and pickups it owns.
pub struct ContainerDatabase {
    /// The file, or the URL with its password hidden.
    name: String,
    server: ServerId,
    backend: Backend,
    frame: u64,
    next_pickup: u64,
    containers: Vec<ContainerRow>,
    pickups: Vec<PickupRow>,
    /// Containers handed to this server while it was down, or claimed at
    /// open: each gets a `ContainerArrived` when it spawns.
    arrived: Vec<String>,
    queue: usize,
    scheduling: WriterScheduling,
    arrivals: Arrivals,
}

/// Whether `target` names a PostgreSQL database rather than a file: a
/// `postgresql://` (or `postgres://`) URL, or libpq's key-value form
/// (`host=db1,db2 dbname=world target_session_attrs=read-write`).
pub(super) fn is_url(target: &Path) -> bool {
    const KEYS: [&str; 8] = [
        "host",
        "hostaddr",
        "port",
        "dbname",
        "user",
        "password",
        "target_session_attrs",
        "application_name",
    ];
    target.to_str().is_some_and(|t| {
        t.starts_with("postgresql://")
            || t.starts_with("postgres://")
            || t.split_whitespace().next().is_some_and(|first| {
                first
                    .split_once('=')
                    .is_some_and(|(key, _)| KEYS.contains(&key))
            })
    })
}

impl ContainerDatabase {
    /// Opens `target` as the server [`ServerId::default`] (`main`): a path
    /// (creating the file, with the current schema, when missing) or a
    /// PostgreSQL URL. An older schema is migrated; every row is read, and
    /// any row that does not read makes the whole open fail: nothing
    /// half-loads.
    pub fn open(target: impl AsRef<Path>) -> Result<ContainerDatabase, DatabaseError> {
        ContainerDatabase::open_as(target, ServerId::default())
    }

    /// Opens `target` as the server `server`. On PostgreSQL the server
    /// loads what it owns, and no other process may run as the same server
    /// at the same time ([`DatabaseError::ServerInUse`]); a SQLite file has
    /// one server, whatever its id.
    pub fn open_as(
        target: impl AsRef<Path>,
        server: ServerId,
    ) -> Result<ContainerDatabase, DatabaseError> {
        let target = target.as_ref();
        server.check(target.display().to_string())?;
        if is_url(target) {
            return open_postgres(target, server);
        }
        let opened = sqlite::open(target)?;
        Ok(ContainerDatabase {
            name: target.display().to_string(),
            server,
            backend: Backend::Sqlite(opened.store),
            frame: opened.frame,
            next_pickup: opened.next_pickup,
            containers: opened.containers,
            pickups: opened.pickups,
            arrived: Vec::new(),
            queue: 8,
            scheduling: WriterScheduling::default(),
            arrivals: Arrivals::default(),
        })
    }

    /// Takes over every container and pickup the server `from` owns (a
    /// server that is gone: the operator's or the game's decision): in one
    /// transaction each gets this server as its owner and the next epoch,
    /// so a paused `from` that comes back can no longer write them (its
    /// writes are refused and it reports [`ContainerLost`](crate::persist::ContainerLost)).
    /// What was claimed is loaded with the rest. PostgreSQL only.
    pub fn claim_from(mut self, from: &ServerId) -> Result<ContainerDatabase, DatabaseError> {
        match &mut self.backend {
            Backend::Sqlite(_) => Err(DatabaseError::Open {
                path: self.name.clone(),
                message: format!(
                    "a SQLite file has one server: there is nothing to claim from \"{from}\"; use PostgreSQL for several servers"
                ),
            }),
            #[cfg(feature = "postgres")]
            Backend::Postgres(store) => {
                let (containers, pickups) = store.claim_from(from)?;
                self.arrived.extend(containers.iter().map(|c| c.id.clone()));
                self.containers.extend(containers);
                self.containers.sort_by(|a, b| a.id.cmp(&b.id));
                self.pickups.extend(pickups);
                self.pickups.sort_by(|a, b| a.id.cmp(&b.id));
                Ok(self)
            }
        }
    }

    /// The durability setting of a SQLite file ([`Synchronous::Normal`]
    /// unless set). PostgreSQL's is the server's (`synchronous_commit`).
    pub fn synchronous(mut self, synchronous: Synchronous) -> ContainerDatabase {
        // Without the `postgres` feature SQLite is the only backend.
        #[cfg_attr(not(feature = "postgres"), allow(irrefutable_let_patterns))]
        if let Backend::Sqlite(store) = &mut self.backend {
            store.set_synchronous(synchronous);
        }
        self
    }

    /// How many frames may wait apart for the writer (8 unless set; at
    /// least 1). The writer writes the frames it finds waiting in one
    /// transaction. Past a whole queue (a slow disk, a database failing
    /// over, a commit waiting for a standby), the game thread does not
    /// wait: each frame joins the newest waiting one, and what waits stays
    /// within a few entries for each persisted entity however long the
    /// database is away
    /// ([`DatabaseWriter::merged_while_behind`](crate::persist::DatabaseWriter::merged_while_behind)
    /// counts those frames).
    ///
    /// ```
    /// use bevy_container::persist::ContainerDatabase;
    ///
    /// let dir = std::env::temp_dir().join(format!("queue-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir)?;
    /// // a game that would rather merge early than hold 8 frames' copies
    /// let database = ContainerDatabase::open(dir.join("world.db"))?.queue(2);
    /// # drop(database);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
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

    /// The file, or the URL with its password hidden.
    pub fn path(&self) -> &Path {
        Path::new(&self.name)
    }

    /// This server's id.
    pub fn server(&self) -> &ServerId {
        &self.server
    }

    /// Whether several servers share this database (PostgreSQL).
    pub fn is_shared(&self) -> bool {
        !matches!(self.backend, Backend::Sqlite(_))
    }

    /// The number of the last frame this server wrote (0 for a new one).
    pub fn frame(&self) -> u64 {
        self.frame
    }

    /// The containers this server owns, sorted by id.
    pub fn containers(&self) -> &[ContainerRow] {
        &self.containers
    }

    /// The loose pickups this server owns, sorted by id.
    pub fn pickups(&self) -> &[PickupRow] {
        &self.pickups
    }

    /// What the plugin starts from: the writer's start, the rows to
    /// spawn, the server, and the arrivals of hand-overs.
    pub(super) fn into_parts(self) -> (Start, Loaded, ServerId, Arrivals) {
        let shared = self.is_shared();
        let store: Box<dyn Store> = match self.backend {
            Backend::Sqlite(s) => Box::new(s),
            #[cfg(feature = "postgres")]
            Backend::Postgres(s) => s,
        };
        let pickup_prefix = if shared {
            format!("pickup-{}-", self.server)
        } else {
            "pickup-".to_string()
        };
        (
            Start {
                store,
                name: self.name,
                frame: self.frame,
                queue: self.queue,
                scheduling: self.scheduling,
            },
            Loaded {
                containers: self.containers,
                pickups: self.pickups,
                arrived: self.arrived,
                next_pickup: self.next_pickup,
                pickup_prefix,
                shared,
            },
            self.server,
            self.arrivals,
        )
    }
}

#[cfg(feature = "postgres")]
fn open_postgres(target: &Path, server: ServerId) -> Result<ContainerDatabase, DatabaseError> {
    let url = target.to_str().unwrap_or_default();
    let opened = crate::persist::postgres::open(url, &server)?;
    Ok(ContainerDatabase {
        name: opened.name,
        server,
        backend: Backend::Postgres(Box::new(opened.store)),
        frame: opened.frame,
        next_pickup: opened.next_pickup,
        containers: opened.containers,
        pickups: opened.pickups,
        arrived: opened.arrived,
        queue: 8,
        scheduling: WriterScheduling::default(),
        arrivals: opened.arrivals,
    })
}

#[cfg(not(feature = "postgres"))]
fn open_postgres(target: &Path, _server: ServerId) -> Result<ContainerDatabase, DatabaseError> {
    Err(DatabaseError::Open {
        path: crate::persist::frame::error::hide_password(&target.display().to_string()),
        message: "this build has no PostgreSQL store; enable bevy_container's feature \"postgres\""
            .into(),
    })
}
