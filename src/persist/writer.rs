//! The writer thread: frames handed over through a bounded queue, merged
//! when several wait, each written in one transaction with its number.

use std::collections::BTreeMap;
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rusqlite::{Connection, params};

use super::load::Loaded;
use super::schema::{error, set_synchronous};
use super::{ContainerDatabase, DatabaseError, DatabaseWriter, PickupRow};
use crate::contents::Contents;
use crate::save::AdoptionId;

/// A container to write: its engine state (cloned on the game thread; the
/// writer turns it into text), its adoption's path and id, its store.
pub(super) struct ContainerWrite {
    pub(super) adoption: String,
    pub(super) contents: Contents,
    pub(super) id: AdoptionId,
    pub(super) store: Option<String>,
}

/// What one frame changed: each id written (`Some`) or deleted (`None`).
#[derive(Default)]
pub(super) struct Batch {
    pub(super) frame: u64,
    pub(super) next_pickup: u64,
    pub(super) containers: BTreeMap<String, Option<ContainerWrite>>,
    pub(super) pickups: BTreeMap<String, Option<PickupRow>>,
}

impl Batch {
    pub(super) fn is_empty(&self) -> bool {
        self.containers.is_empty() && self.pickups.is_empty()
    }

    /// `later` on top of this frame: its writes and deletes win.
    fn merge(&mut self, later: Batch) {
        self.frame = later.frame;
        self.next_pickup = later.next_pickup;
        self.containers.extend(later.containers);
        self.pickups.extend(later.pickups);
    }
}

/// What the writer has done: for the game's diagnostics and the
/// `persist-writes-per-second` figure.
///
/// ```
/// use bevy_container::persist::WriterStats;
/// let s = WriterStats::default();
/// assert_eq!(s.containers_per_second(), 0.0);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct WriterStats {
    /// The last frame committed.
    pub written_frame: u64,
    /// Transactions committed.
    pub transactions: u64,
    /// Frames written merged into a later frame's transaction.
    pub merged_frames: u64,
    /// Containers written.
    pub containers_written: u64,
    /// Pickups written.
    pub pickups_written: u64,
    /// Rows deleted (containers and pickups that left the world).
    pub rows_deleted: u64,
    /// Time spent writing (turning states into rows and committing).
    pub busy: Duration,
}

impl WriterStats {
    /// Containers written per second of writing.
    pub fn containers_per_second(&self) -> f64 {
        if self.busy.is_zero() {
            0.0
        } else {
            self.containers_written as f64 / self.busy.as_secs_f64()
        }
    }
}

#[derive(Default)]
struct State {
    stats: WriterStats,
    error: Option<DatabaseError>,
    stopped: bool,
}

#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    changed: Condvar,
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The game thread's end of the writer.
pub(super) struct Handle {
    sender: Option<SyncSender<Batch>>,
    thread: Option<JoinHandle<()>>,
    shared: Arc<Shared>,
    path: String,
    /// The frame the game thread is at.
    pub(super) frame: u64,
    /// The last frame handed over.
    handed: u64,
    /// Times the game thread waited for room in the queue.
    pub(super) waits: u64,
    /// Whether the writer's error was logged.
    reported: bool,
}

impl Handle {
    pub(super) fn stats(&self) -> WriterStats {
        self.shared.lock().stats
    }

    pub(super) fn error(&self) -> Option<DatabaseError> {
        self.shared.lock().error.clone()
    }

    /// Logs the writer's error, once: the game goes on, unpersisted.
    pub(super) fn report(&mut self) {
        if self.reported {
            return;
        }
        if let Some(e) = self.error() {
            self.reported = true;
            bevy::log::error!("{e}; containers are no longer persisted");
        }
    }

    /// Hands a frame to the writer; waits when the queue is full. After
    /// the writer stopped on an error, frames are not written (the error
    /// says so).
    pub(super) fn send(&mut self, batch: Batch) {
        let Some(sender) = &self.sender else {
            return;
        };
        let frame = batch.frame;
        let sent = match sender.try_send(batch) {
            Ok(()) => Ok(()),
            Err(TrySendError::Full(batch)) => {
                self.waits += 1;
                sender.send(batch).map_err(|_| ())
            }
            Err(TrySendError::Disconnected(_)) => Err(()),
        };
        match sent {
            Ok(()) => self.handed = frame,
            Err(()) => {
                self.sender = None;
                let mut state = self.shared.lock();
                if state.error.is_none() {
                    state.error = Some(DatabaseError::Write {
                        path: self.path.clone(),
                        frame,
                        message: "the writer thread stopped".into(),
                    });
                }
            }
        }
    }

    pub(super) fn flush(&self) -> Result<(), DatabaseError> {
        let mut state = self.shared.lock();
        loop {
            if let Some(e) = &state.error {
                return Err(e.clone());
            }
            if state.stats.written_frame >= self.handed || state.stopped {
                return Ok(());
            }
            state = self
                .shared
                .changed
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }
}

impl Drop for Handle {
    /// Writes what is queued, then stops the thread.
    fn drop(&mut self) {
        self.sender = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Starts the writer thread on the database's connection; returns the rows
/// to load and the game's end of the writer.
pub(super) fn start(database: ContainerDatabase) -> (Loaded, DatabaseWriter) {
    let ContainerDatabase {
        path,
        connection,
        frame,
        next_pickup,
        containers,
        pickups,
        synchronous,
        queue,
    } = database;
    let name = path.display().to_string();
    let shared = Arc::new(Shared::default());
    shared.lock().stats.written_frame = frame;
    let (sender, receiver) = sync_channel(queue);
    let thread = {
        let shared = shared.clone();
        let name = name.clone();
        std::thread::Builder::new()
            .name("container-database".into())
            .spawn(move || run(connection, &name, synchronous, &receiver, &shared))
    };
    let (sender, thread) = match thread {
        Ok(t) => (Some(sender), Some(t)),
        Err(e) => {
            shared.lock().error = Some(DatabaseError::Write {
                path: name.clone(),
                frame,
                message: format!("the writer thread did not start: {e}"),
            });
            (None, None)
        }
    };
    let handle = Handle {
        sender,
        thread,
        shared,
        path: name,
        frame,
        handed: frame,
        waits: 0,
        reported: false,
    };
    (
        Loaded {
            containers,
            pickups,
            next_pickup,
        },
        DatabaseWriter { inner: handle },
    )
}

fn run(
    mut connection: Connection,
    name: &str,
    synchronous: super::Synchronous,
    receiver: &Receiver<Batch>,
    shared: &Shared,
) {
    if let Err(e) = set_synchronous(&connection, name, synchronous) {
        stop(shared, Some(e));
        return;
    }
    while let Ok(mut batch) = receiver.recv() {
        // frames that waited are written as one: still a frame boundary
        let mut merged = 0;
        while let Ok(later) = receiver.try_recv() {
            batch.merge(later);
            merged += 1;
        }
        let started = Instant::now();
        let frame = batch.frame;
        match write(&mut connection, &batch) {
            Ok((written, picked, deleted)) => {
                let mut state = shared.lock();
                let s = &mut state.stats;
                s.written_frame = frame;
                s.transactions += 1;
                s.merged_frames += merged;
                s.containers_written += written;
                s.pickups_written += picked;
                s.rows_deleted += deleted;
                s.busy += started.elapsed();
                drop(state);
                shared.changed.notify_all();
            }
            Err(e) => {
                let e = match error(name, e) {
                    DatabaseError::Open { path, message } => DatabaseError::Write {
                        path,
                        frame,
                        message,
                    },
                    other => other,
                };
                stop(shared, Some(e));
                return;
            }
        }
    }
    stop(shared, None);
}

fn stop(shared: &Shared, e: Option<DatabaseError>) {
    let mut state = shared.lock();
    state.stopped = true;
    if e.is_some() {
        state.error = e;
    }
    drop(state);
    shared.changed.notify_all();
}

/// One transaction: every row of the batch and its frame number.
fn write(c: &mut Connection, batch: &Batch) -> rusqlite::Result<(u64, u64, u64)> {
    let tx = c.transaction()?;
    let (mut written, mut picked, mut deleted) = (0, 0, 0);
    {
        let mut put = tx.prepare(
            "INSERT OR REPLACE INTO containers (id, adoption, contents, store) VALUES (?1, ?2, ?3, ?4)",
        )?;
        let mut remove = tx.prepare("DELETE FROM containers WHERE id = ?1")?;
        for (id, write) in &batch.containers {
            match write {
                Some(w) => {
                    let text = w.contents.save(&w.id).to_json();
                    put.execute(params![id, w.adoption, text, w.store])?;
                    written += 1;
                }
                None => deleted += remove.execute(params![id])? as u64,
            }
        }
        let mut put = tx.prepare(
            "INSERT OR REPLACE INTO pickups (id, item, amount, props, x, y, z) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?;
        let mut remove = tx.prepare("DELETE FROM pickups WHERE id = ?1")?;
        for (id, row) in &batch.pickups {
            match row {
                Some(p) => {
                    let t = p.translation;
                    put.execute(params![
                        id,
                        p.item,
                        p.amount,
                        p.props.canonical(),
                        f64::from(t.x),
                        f64::from(t.y),
                        f64::from(t.z)
                    ])?;
                    picked += 1;
                }
                None => deleted += remove.execute(params![id])? as u64,
            }
        }
        tx.execute(
            "UPDATE frame SET frame = ?1, next_pickup = ?2 WHERE only = 0",
            params![batch.frame as i64, batch.next_pickup as i64],
        )?;
    }
    tx.commit()?;
    Ok((written, picked, deleted))
}
