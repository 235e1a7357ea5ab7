//! The SQLite store: one server, one file, taken for this process alone.

mod read;
mod schema;
mod synchronous;

use std::path::Path;

use rusqlite::{Connection, params};

pub use schema::SCHEMA_VERSION;
pub use synchronous::Synchronous;

use crate::persist::frame::error::DatabaseError;
use crate::persist::frame::rows::{ContainerRow, PickupRow};
use crate::persist::frame::store::{FrameRows, Reread, Store, StoreError, Written};

/// What a SQLite file holds when opened.
pub(super) struct Opened {
    pub(super) store: SqliteStore,
    pub(super) frame: u64,
    pub(super) next_pickup: u64,
    pub(super) containers: Vec<ContainerRow>,
    pub(super) pickups: Vec<PickupRow>,
}

/// Opens (or creates) `path`, migrates it and reads every row.
pub(super) fn open(path: &Path) -> Result<Opened, DatabaseError> {
    let connection = schema::open(path)?;
    let name = path.display().to_string();
    let (frame, next_pickup) = read::read_frame(&connection, &name)?;
    let containers = read::read_containers(&connection, &name)?;
    let pickups = read::read_pickups(&connection, &name, &containers)?;
    Ok(Opened {
        store: SqliteStore {
            connection,
            name,
            synchronous: None,
        },
        frame,
        next_pickup,
        containers,
        pickups,
    })
}

/// A SQLite file's connection, moved to the writer thread.
pub(super) struct SqliteStore {
    connection: Connection,
    name: String,
    /// The durability setting, applied by the writer before its first
    /// transaction.
    synchronous: Option<Synchronous>,
}

impl SqliteStore {
    /// Sets the durability for the writer's transactions.
    pub(super) fn set_synchronous(&mut self, synchronous: Synchronous) {
        self.synchronous = Some(synchronous);
    }
}

impl Store for SqliteStore {
    fn write(&mut self, rows: &FrameRows) -> Result<Written, StoreError> {
        if let Some(s) = self.synchronous.take() {
            schema::set_synchronous(&self.connection, &self.name, s).map_err(StoreError::Failed)?;
        }
        write(&mut self.connection, rows).map_err(|e| {
            StoreError::Failed(match schema::error(&self.name, e) {
                DatabaseError::Open { path, message } => DatabaseError::Write {
                    path,
                    frame: rows.frame,
                    message,
                },
                other => other,
            })
        })
    }

    fn reconnect(&mut self, _seen: u64) -> Result<u64, DatabaseError> {
        // a file does not disconnect: a failed write is final
        Err(DatabaseError::Open {
            path: self.name.clone(),
            message: "a SQLite file is not reconnected".into(),
        })
    }

    fn reread(&mut self, _ids: &[String]) -> Result<Reread, DatabaseError> {
        // one server owns the whole file: it is never fenced
        Ok(Reread::default())
    }
}

/// One transaction: the rows, and the frame's number.
fn write(c: &mut Connection, rows: &FrameRows) -> rusqlite::Result<Written> {
    let tx = c.transaction()?;
    let mut out = Written::default();
    {
        let mut put = tx.prepare(
            "INSERT OR REPLACE INTO containers (id, adoption, contents, store) VALUES (?1, ?2, ?3, ?4)",
        )?;
        for w in &rows.containers {
            put.execute(params![w.id, w.adoption, w.contents, w.store])?;
            out.containers += 1;
        }
        let mut remove = tx.prepare("DELETE FROM containers WHERE id = ?1")?;
        for id in &rows.container_deletes {
            out.deleted += remove.execute(params![id])? as u64;
        }
        let mut put = tx.prepare(
            "INSERT OR REPLACE INTO pickups (id, item, amount, props, x, y, z) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?;
        for p in &rows.pickups {
            let t = p.translation;
            put.execute(params![
                p.id,
                p.item,
                p.amount,
                p.props.canonical(),
                f64::from(t.x),
                f64::from(t.y),
                f64::from(t.z)
            ])?;
            out.pickups += 1;
        }
        let mut remove = tx.prepare("DELETE FROM pickups WHERE id = ?1")?;
        for id in &rows.pickup_deletes {
            out.deleted += remove.execute(params![id])? as u64;
        }
        tx.execute(
            "UPDATE frame SET frame = ?1, next_pickup = ?2 WHERE only = 0",
            params![rows.frame as i64, rows.next_pickup as i64],
        )?;
    }
    tx.commit()?;
    Ok(out)
}
