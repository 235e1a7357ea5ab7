//! What a store is to the writer thread: one frame's rows, written in one
//! transaction, or nothing of them. The writer (what changed, in what
//! order, merged frames, the queue) is the same for every store; a store
//! only turns rows into its own statements.

use crate::persist::frame::error::DatabaseError;
use crate::persist::frame::rows::{ContainerRow, MailRow, PickupRow};
use crate::persist::frame::server_id::{Lost, ServerId};

/// A container to write: its id, its adoption's path, its save as JSON,
/// its store's id.
pub(crate) struct ContainerPut<'a> {
    pub(crate) id: &'a str,
    pub(crate) adoption: &'a str,
    pub(crate) contents: String,
    pub(crate) store: Option<&'a str>,
}

/// Everything one transaction writes: the last state of every id over the
/// frames merged into it, in id order, and the last frame's number.
#[derive(Default)]
pub(crate) struct FrameRows<'a> {
    pub(crate) frame: u64,
    /// The last frame this server saw committed before these: the store
    /// must hold at least it, or it forgot frames (nothing is written).
    pub(crate) seen: u64,
    pub(crate) next_pickup: u64,
    pub(crate) containers: Vec<ContainerPut<'a>>,
    pub(crate) container_deletes: Vec<&'a str>,
    pub(crate) pickups: Vec<&'a PickupRow>,
    pub(crate) pickup_deletes: Vec<&'a str>,
    /// Containers given to another server: written above as of this
    /// frame, then owned by the other at the next epoch.
    pub(crate) handovers: Vec<(&'a str, &'a ServerId)>,
    /// Mail sent (and answers) in these frames: rows to insert.
    pub(crate) mail: Vec<&'a MailRow>,
    /// Mail applied in these frames: rows to delete (each must still be
    /// there, or the transaction is refused as a fence).
    pub(crate) mail_done: Vec<&'a str>,
}

impl FrameRows<'_> {
    /// Every id the transaction writes, deletes or hands over.
    pub(crate) fn ids(&self) -> impl Iterator<Item = &str> {
        self.containers
            .iter()
            .map(|c| c.id)
            .chain(self.container_deletes.iter().copied())
            .chain(self.pickups.iter().map(|p| p.id.as_str()))
            .chain(self.pickup_deletes.iter().copied())
            .chain(self.handovers.iter().map(|(id, _)| *id))
    }
}

/// What a transaction wrote.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Written {
    pub(crate) containers: u64,
    pub(crate) pickups: u64,
    pub(crate) deleted: u64,
}

/// Why a transaction wrote nothing.
pub(crate) enum StoreError {
    /// The store cannot go on: the writer stops with this error.
    Failed(DatabaseError),
    /// Rows of the transaction are owned by another server or at another
    /// epoch: nothing was written (the fence). Only a shared store
    /// (PostgreSQL) has owners to be fenced by.
    #[cfg_attr(not(feature = "postgres"), allow(dead_code))]
    Fenced(Vec<Lost>),
    /// The connection broke; whether the commit happened is unknown
    /// (SQLite is a file: it has no connection to lose).
    #[cfg_attr(not(feature = "postgres"), allow(dead_code))]
    Disconnected(String),
}

/// The rows of some ids as the store holds them now: those this server
/// owns, and who owns the others. An id in neither has no row.
#[derive(Debug, Default)]
pub(crate) struct Reread {
    pub(crate) containers: Vec<ContainerRow>,
    pub(crate) pickups: Vec<PickupRow>,
    pub(crate) others: Vec<Lost>,
    /// The ids with no row at all.
    pub(crate) missing: Vec<String>,
}

impl Reread {
    /// Every id it names: rows this server owns, rows another owns, and
    /// ids with no row.
    pub(crate) fn ids(&self) -> impl Iterator<Item = &str> {
        let containers = self.containers.iter().map(|c| c.id.as_str());
        let pickups = self.pickups.iter().map(|p| p.id.as_str());
        let others = self.others.iter().map(|l| l.id.as_str());
        containers
            .chain(pickups)
            .chain(others)
            .chain(self.missing.iter().map(String::as_str))
    }
}

/// A store: SQLite (one server, one file) or PostgreSQL (several servers).
pub(crate) trait Store: Send {
    /// Writes `rows` in one transaction, or nothing of them.
    fn write(&mut self, rows: &FrameRows) -> Result<Written, StoreError>;
    /// Connects again after [`StoreError::Disconnected`]; returns the last
    /// frame the store holds for this server, to tell whether the
    /// interrupted commit happened. A store that holds less than `seen`
    /// (the last frame seen committed) forgot frames, and one whose server
    /// id was opened again by another process replaced this one: both are
    /// errors ([`DatabaseError::Behind`], [`DatabaseError::Replaced`]),
    /// never retried.
    fn reconnect(&mut self, seen: u64) -> Result<u64, DatabaseError>;
    /// `rows` were committed on a connection whose answer was lost (the
    /// reconnect found the frame written): the store learns what the
    /// commit gave them (a shared store: each row's epoch). Nothing to do
    /// for a file.
    fn settle(&mut self, _rows: &FrameRows) -> Result<(), DatabaseError> {
        Ok(())
    }
    /// The rows of `ids` as the store holds them now.
    fn reread(&mut self, ids: &[String]) -> Result<Reread, DatabaseError>;
}
