//! The writer thread: frames handed over through a bounded queue, merged
//! when several wait, each written in one transaction with its number.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use bevy::log::warn;

use crate::contents::{SaveHead, Stack};
use crate::persist::frame::error::DatabaseError;
use crate::persist::frame::rows::{MailRow, PickupRow};
use crate::persist::frame::scheduling::WriterScheduling;
use crate::persist::frame::server_id::Lost;
use crate::persist::frame::server_id::ServerId;
use crate::persist::frame::store::{ContainerPut, FrameRows, Reread, Store, StoreError, Written};
use crate::rules::Rules;
use crate::save::AdoptionId;

/// An adoption as the file names it: the asset path, the id (path and
/// hash) its saves carry, and the rules compiled from it. Shared by every
/// container under it.
#[derive(Debug)]
pub(crate) struct AdoptionRef {
    pub(crate) path: String,
    pub(crate) id: AdoptionId,
    pub(crate) rules: Arc<Rules>,
}

/// A container to write: what its save needs (taken on the game thread
/// without making the save; its stacks are in the batch's list), its
/// adoption, its store's id.
pub(crate) struct ContainerWrite {
    /// Its place in the batch's `adoptions`.
    pub(crate) adoption: usize,
    pub(crate) head: SaveHead,
    /// The store's key.
    pub(crate) store: Option<u64>,
}

/// What one frame changed (or several: frames the game merged into the
/// newest waiting one while the writer was behind, see
/// `persist::frame::merge`): each entity (by its key) written (`Some`) or
/// deleted (`None`), a later entry for an id winning over an earlier one.
/// Entities are named by a number: the game thread tells the writer each
/// key's id once (`names`), so no text is shared between the threads.
#[derive(Default)]
pub(crate) struct Batch {
    pub(crate) frame: u64,
    pub(crate) next_pickup: u64,
    /// Keys first named in this frame, and their persistent ids.
    pub(crate) names: Vec<(u64, Box<str>)>,
    pub(crate) containers: Vec<(u64, Option<ContainerWrite>)>,
    pub(crate) pickups: Vec<(u64, Option<PickupRow>)>,
    /// The stacks of every container written, shared.
    pub(crate) stacks: Vec<(u32, Stack)>,
    /// The adoptions of the containers written, each once: a container
    /// names its adoption by its place here, so writing a thousand
    /// containers under one adoption counts no reference a thousand times.
    pub(crate) adoptions: Vec<Arc<AdoptionRef>>,
    /// Containers handed to another server in this frame (written above
    /// as of this frame).
    pub(crate) handovers: Vec<(u64, ServerId)>,
    /// Mail sent or answered in this frame.
    pub(crate) mail: Vec<MailRow>,
    /// Mail applied in this frame (the rows' ids).
    pub(crate) mail_done: Vec<String>,
    /// Frames the game thread merged into this one while the writer was a
    /// whole queue behind (see [`Batch::absorb`]).
    pub(crate) absorbed: u64,
    /// Where each key's entry is, once the game merged a frame into this
    /// one (see `persist::frame::merge`).
    pub(crate) places: Option<Box<Places>>,
}

/// Where each key's entry is in a batch the game merged frames into: a
/// later frame's entry for the key takes its place. A container's place
/// also has room for its stacks: the first and how many fit, which only
/// grows.
#[derive(Default)]
pub(crate) struct Places {
    pub(crate) containers:
        bevy::platform::collections::HashMap<u64, (usize, Option<(usize, usize)>)>,
    pub(crate) pickups: bevy::platform::collections::HashMap<u64, usize>,
}

impl Batch {
    /// Empties the batch, keeping its lists' room.
    pub(crate) fn clear(&mut self) {
        self.names.clear();
        self.containers.clear();
        self.pickups.clear();
        self.stacks.clear();
        self.adoptions.clear();
        self.handovers.clear();
        self.mail.clear();
        self.mail_done.clear();
        self.absorbed = 0;
        self.places = None;
    }

    /// The place of `adoption` in the batch's list, added when new.
    #[inline]
    pub(crate) fn adoption(&mut self, adoption: &Arc<AdoptionRef>) -> usize {
        // a frame's containers mostly share one adoption: the last named
        match self.adoptions.last() {
            Some(last) if Arc::ptr_eq(last, adoption) => self.adoptions.len() - 1,
            _ => self.find_adoption(adoption),
        }
    }

    /// [`Batch::adoption`] past the last named: found, or added.
    #[inline(never)]
    fn find_adoption(&mut self, adoption: &Arc<AdoptionRef>) -> usize {
        match self.adoptions.iter().position(|a| Arc::ptr_eq(a, adoption)) {
            Some(at) => at,
            None => {
                self.adoptions.push(adoption.clone());
                self.adoptions.len() - 1
            }
        }
    }

    /// Nothing to write and no key to name.
    pub(crate) fn is_empty(&self) -> bool {
        self.containers.is_empty()
            && self.pickups.is_empty()
            && self.names.is_empty()
            && self.handovers.is_empty()
            && self.mail.is_empty()
            && self.mail_done.is_empty()
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
    /// Transactions refused because another server owns a row now (the
    /// frames in them and until the game put things back are not written).
    pub fenced: u64,
    /// Times the connection broke while writing (a restart, a failover,
    /// a session cut).
    pub disconnects: u64,
    /// Times the writer connected again after losing its connection.
    pub reconnects: u64,
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
    /// A fence: what was lost, and the ids the unwritten frames touched.
    /// While set, the writer writes nothing; it ends when the game takes a
    /// reread of every frame it handed over ([`Handle::take_reread`]).
    fence: Option<Fence>,
    /// The rows of every id the unwritten frames touched, as the store
    /// held them after the writer took the frame numbered here: the game
    /// puts them back once that is the last frame it handed over.
    reread: Option<(u64, Reread)>,
    /// The writer is rereading for a fence (or connecting again to): the
    /// database may take a while, and the game does not wait for it.
    rereading: bool,
}

/// A transaction the store refused because rows are owned elsewhere now.
#[derive(Debug, Default)]
struct Fence {
    /// Every id of the frames not written (sorted, once each).
    touched: BTreeSet<String>,
}

/// The frames waiting for the writer.
#[derive(Default)]
struct Queue {
    batches: Vec<Batch>,
    /// The game is gone: write what is queued, then stop.
    closed: bool,
    /// The writer waits for `work` with no end: the next frame handed over
    /// wakes it. While frames keep coming the writer naps instead (see
    /// [`NAP`]) and no frame wakes it.
    idle: bool,
}

/// How long the writer naps between looks at the queue while frames keep
/// coming: it takes the frames handed over meanwhile when it wakes, so the
/// game thread does not wake it. Waking a sleeping thread is a system call
/// and, when the thread sleeps on another core, a signal between cores:
/// on this project's two-core machine the hand-over's send took a median
/// of 27 us of the game thread's frame with the wake and 2 us without
/// (`examples/perf`, systems on the task pool; 7.8 against 3.5 us with
/// every system on the game thread). A frame is written at most a nap
/// later than with the wake (a game that needs a frame written now calls
/// `flush`, which wakes the writer).
const NAP: Duration = Duration::from_millis(5);

/// The naps without a frame after which the writer sleeps until the game
/// wakes it (a game paused or without changes for 0.1 s): an idle game's
/// writer does not look at an empty queue 200 times a second.
const NAPS_BEFORE_IDLE: u32 = 20;

#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    changed: Condvar,
    /// The frames handed over and not yet taken by the writer. While
    /// frames keep coming the writer looks every [`NAP`]; after
    /// [`NAPS_BEFORE_IDLE`] looks at an empty queue it sleeps until a frame
    /// is handed over. It once looked every millisecond whatever came, and
    /// each look took a core from the game's systems in the middle of a
    /// frame (on two cores, a frame handed over a few milliseconds after
    /// the writer went idle met the look nearly every time).
    queue: Mutex<Queue>,
    /// Signalled when a frame is handed over to an idle writer, when the
    /// game waits for the writer (a flush), when a whole queue waits, or
    /// when the game is gone.
    work: Condvar,
    /// How many frames may wait apart: past them, a frame joins the
    /// newest waiting one.
    capacity: usize,
    /// Batches written and emptied, their lists' room kept, for the game
    /// thread to fill again: a frame's lists are not allocated (and their
    /// pages touched) anew. Oldest first (see [`COLD_AFTER`]).
    spare: Mutex<VecDeque<Batch>>,
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn queue(&self) -> std::sync::MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The game thread's end of the writer.
pub(crate) struct Handle {
    /// Frames are handed over (false once the writer stopped).
    open: bool,
    /// What the writer thread runs under.
    pub(crate) scheduling: WriterScheduling,
    thread: Option<JoinHandle<()>>,
    shared: Arc<Shared>,
    path: String,
    /// The frame the game thread is at.
    pub(crate) frame: u64,
    /// The last frame handed over.
    handed: u64,
    /// Frames the game thread merged into the newest waiting frame, the
    /// writer being a whole queue behind.
    pub(crate) absorbed: u64,
    /// How long the last hand-over took on the game thread, by stage.
    pub(crate) last_stages: HandOverStages,
    /// Whether the writer's error was logged.
    reported: bool,
}

impl Handle {
    /// The frames waiting apart in the queue.
    #[cfg(test)]
    pub(crate) fn queue_len(&self) -> usize {
        self.shared.queue().batches.len()
    }

    pub(crate) fn stats(&self) -> WriterStats {
        self.shared.lock().stats
    }

    /// An empty batch for `frame`, with the room of the oldest spare once
    /// [`COLD_AFTER`] wait (until then, a new one).
    pub(crate) fn batch(&self, frame: u64) -> Batch {
        Batch {
            frame,
            ..self.shared.take_spare().unwrap_or_default()
        }
    }

    /// Takes back a batch the game did not send (a frame with nothing to
    /// write), its room kept for the next frame.
    pub(crate) fn give_back(&self, mut batch: Batch) {
        batch.clear();
        self.shared.keep_spare(std::iter::once(batch));
    }

    pub(crate) fn error(&self) -> Option<DatabaseError> {
        self.shared.lock().error.clone()
    }

    /// The writer's error the first time it is seen, logged: the game goes
    /// on, unpersisted.
    pub(crate) fn newly_stopped(&mut self) -> Option<DatabaseError> {
        if self.reported {
            return None;
        }
        let e = self.error()?;
        self.reported = true;
        bevy::log::error!("{e}; containers are no longer persisted");
        Some(e)
    }

    /// Stops the writer with `e`, unless it already stopped on an error:
    /// what another thread learned (the listener: this server id was
    /// opened again elsewhere) stops writing as the writer's own error
    /// would.
    pub(crate) fn fail(&self, e: DatabaseError) {
        if self.shared.lock().error.is_none() {
            stop(&self.shared, Some(e));
        }
    }

    /// Hands a frame to the writer. The game thread never waits for the
    /// writer: when a whole queue of frames waits (the writer is behind a
    /// slow disk, a database failing over, a commit waiting for a
    /// standby), the frame joins the newest waiting one, and the two are
    /// written in one transaction, as the writer merges the frames it
    /// finds waiting (see `persist::frame::merge`). After the writer
    /// stopped on an error, frames are not written (the error says so).
    pub(crate) fn send(&mut self, batch: Batch) {
        if !self.open {
            return;
        }
        let frame = batch.frame;
        let mut queue = self.shared.queue();
        if self.shared.lock().stopped {
            drop(queue);
            self.open = false;
            let mut state = self.shared.lock();
            if state.error.is_none() {
                state.error = Some(DatabaseError::Write {
                    path: self.path.clone(),
                    frame,
                    message: "the writer thread stopped".into(),
                });
            }
            return;
        }
        self.handed = frame;
        if queue.batches.len() >= self.shared.capacity {
            self.shared.merge_into_newest(queue, batch);
            self.absorbed += 1;
            return;
        }
        queue.batches.push(batch);
        // only an idle writer is woken, once: a napping one takes the frame
        // when it wakes
        let wake = std::mem::take(&mut queue.idle);
        drop(queue);
        if wake {
            self.shared.work.notify_one();
        }
    }

    /// Whether the store refused a frame because another server owns some
    /// of its rows now: the game must put back what the unwritten frames
    /// touched ([`Handle::take_reread`]), and hands nothing over until then.
    pub(crate) fn fenced(&self) -> bool {
        let state = self.shared.lock();
        state.fence.is_some() && !state.stopped
    }

    /// After a fence, once the writer has reread the rows of every id that
    /// the frames handed over since the last commit touched: those rows,
    /// for the game to put back, and the fence ends (the next frame is
    /// written). `None` while the reread is not there yet or misses the
    /// last frames handed over: the game never waits for it, and the
    /// frames it hands over meanwhile are not written either (their ids
    /// join the next reread).
    pub(crate) fn take_reread(&mut self) -> Option<Reread> {
        let mut state = self.shared.lock();
        state.fence.as_ref()?;
        if state.reread.as_ref()?.0 < self.handed {
            return None;
        }
        let (_, reread) = state.reread.take()?;
        state.fence = None;
        // the frames handed over since the last commit are not written,
        // ever: a flush waits for none of them
        self.handed = state.stats.written_frame;
        Some(reread)
    }

    /// Whether the writer is rereading for a fence now: a game that would
    /// wait for the reread ([`Handle::wait_reread`]) goes on instead.
    pub(crate) fn rereading(&self) -> bool {
        self.shared.lock().rereading
    }

    /// [`Handle::take_reread`], waiting for the reread: for a game whose
    /// frames come faster than the writer rereads them (each frame's ids
    /// join the next reread, which then misses the frame after).
    pub(crate) fn wait_reread(&mut self) -> Result<Reread, DatabaseError> {
        // a napping writer takes the frames queued now
        self.shared.work.notify_one();
        loop {
            if let Some(reread) = self.take_reread() {
                return Ok(reread);
            }
            let state = self.shared.lock();
            if let Some(e) = &state.error {
                return Err(e.clone());
            }
            if state.stopped || state.fence.is_none() {
                return Err(DatabaseError::Write {
                    path: self.path.clone(),
                    frame: self.frame,
                    message: "the writer thread stopped".into(),
                });
            }
            let covered = state.reread.as_ref().is_some_and(|r| r.0 >= self.handed);
            if !covered {
                drop(
                    self.shared
                        .changed
                        .wait(state)
                        .unwrap_or_else(PoisonError::into_inner),
                );
            }
        }
    }

    pub(crate) fn flush(&self) -> Result<(), DatabaseError> {
        // a napping writer takes what is queued now, not at the nap's end
        self.shared.work.notify_one();
        let mut state = self.shared.lock();
        loop {
            if let Some(e) = &state.error {
                return Err(e.clone());
            }
            // a fenced writer writes nothing until the game puts back
            // what it reread of every frame handed over
            let reread = state.reread.as_ref().is_some_and(|r| r.0 >= self.handed);
            if state.stats.written_frame >= self.handed || state.stopped || reread {
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
        self.shared.queue().closed = true;
        self.shared.work.notify_one();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// What the writer thread starts with.
pub(crate) struct Start {
    pub(crate) store: Box<dyn Store>,
    /// The file or URL, for errors.
    pub(crate) name: String,
    /// The last frame the store holds.
    pub(crate) frame: u64,
    /// How many frames may wait.
    pub(crate) queue: usize,
    pub(crate) scheduling: WriterScheduling,
}

/// Starts the writer thread on the store; returns the game's end of it.
pub(crate) fn start(start: Start) -> Handle {
    let Start {
        store,
        name,
        frame,
        queue,
        scheduling,
    } = start;
    let shared = Arc::new(Shared {
        capacity: queue,
        ..Shared::default()
    });
    shared.lock().stats.written_frame = frame;
    // the writer says what it runs under before it writes anything
    let (tell, told) = std::sync::mpsc::sync_channel(1);
    let thread = {
        let shared = shared.clone();
        let name = name.clone();
        std::thread::Builder::new()
            .name("container-database".into())
            .spawn(move || {
                let _stop = StopOnPanic {
                    shared: &shared,
                    path: &name,
                };
                let (now, outcome) = scheduling.apply();
                if let Err(why) = outcome {
                    warn!(
                        "the database writer of {name} runs under the {now:?} scheduling, not {scheduling:?}: {why}"
                    );
                }
                // room for one, and the game waits for it: never refused
                let _ = tell.send(now);
                Writer {
                    store,
                    name: &name,
                    shared: &shared,
                    names: HashMap::new(),
                }
                .run()
            })
    };
    let (open, thread) = match thread {
        Ok(t) => (true, Some(t)),
        Err(e) => {
            shared.lock().error = Some(DatabaseError::Write {
                path: name.clone(),
                frame,
                message: format!("the writer thread did not start: {e}"),
            });
            (false, None)
        }
    };
    // the game starts once the writer is under its scheduling (a few
    // microseconds), so what the game reads of it is true from the start;
    // a writer that never said (its thread did not start, or died) runs
    // as it started
    let scheduling = told.recv().unwrap_or(WriterScheduling::Normal);
    Handle {
        open,
        scheduling,
        thread,
        shared,
        path: name,
        frame,
        handed: frame,
        absorbed: 0,
        last_stages: Default::default(),
        reported: false,
    }
}

/// How long the writer tries to connect again before it stops.
const RECONNECT_FOR: Duration = Duration::from_secs(30);

/// The writer thread's state.
struct Writer<'a> {
    store: Box<dyn Store>,
    name: &'a str,
    shared: &'a Shared,
    /// Each key's persistent id, as the game named it.
    names: HashMap<u64, Box<str>>,
}

impl Writer<'_> {
    fn run(mut self) {
        // the list the frames came in goes back to the queue emptied, its
        // room kept: the game's next frame joins the queue without
        // allocating (under the queue's lock)
        let mut emptied = Vec::new();
        // frames that waited are written as one: still a frame boundary
        while let Some(mut batches) = self.take(std::mem::take(&mut emptied)) {
            for b in &mut batches {
                self.names.extend(std::mem::take(&mut b.names));
            }
            let written = if self.shared.lock().fence.is_some() {
                self.discard(&mut batches)
            } else {
                self.commit(&mut batches)
            };
            if let Err(e) = written {
                stop(self.shared, Some(e));
                return;
            }
            // written or discarded, every batch went back as a spare
            batches.clear();
            emptied = batches;
        }
        stop(self.shared, None);
    }

    /// The frames waiting, once there are some, leaving `room` (an empty
    /// list) in their place; `None` once the game is gone and everything
    /// queued was taken.
    fn take(&self, room: Vec<Batch>) -> Option<Vec<Batch>> {
        let mut queue = self.shared.queue();
        let mut naps = 0;
        while queue.batches.is_empty() && !queue.closed {
            if naps < NAPS_BEFORE_IDLE {
                naps += 1;
                queue = self
                    .shared
                    .work
                    .wait_timeout(queue, NAP)
                    .unwrap_or_else(PoisonError::into_inner)
                    .0;
                continue;
            }
            queue.idle = true;
            queue = self
                .shared
                .work
                .wait(queue)
                .unwrap_or_else(PoisonError::into_inner);
        }
        queue.idle = false;
        let batches = std::mem::replace(&mut queue.batches, room);
        drop(queue);
        (!batches.is_empty()).then_some(batches)
    }

    /// Writes the frames in one transaction: retried on a new connection
    /// when the old one broke, never when the store fenced them.
    fn commit(&mut self, batches: &mut Vec<Batch>) -> Result<(), DatabaseError> {
        // frames the writer found waiting, and those the game merged
        let merged = batches.len() as u64 - 1 + batches.iter().map(|b| b.absorbed).sum::<u64>();
        let started = Instant::now();
        let frame = batches.last().map_or(0, |b| b.frame);
        let mut forgotten = Vec::new();
        let seen = self.shared.lock().stats.written_frame;
        let outcome = loop {
            let mut rows = frame_rows(batches, &self.names, &mut forgotten);
            rows.seen = seen;
            match self.store.write(&rows) {
                Err(StoreError::Disconnected(why)) => {
                    self.shared.lock().stats.disconnects += 1;
                    // the commit may have happened: the store's frame says
                    // (the store checked it is this process's generation,
                    // and not behind what it saw committed)
                    let at = reconnect(
                        &mut *self.store,
                        self.name,
                        self.shared,
                        (frame, seen),
                        &why,
                    )?;
                    if at >= frame {
                        self.store.settle(&rows)?;
                        break Written::default();
                    }
                    forgotten.clear();
                }
                Err(StoreError::Fenced(lost)) => {
                    let touched = rows.ids().map(str::to_string).collect();
                    drop(rows);
                    self.fenced(lost, touched);
                    self.recycle(batches);
                    return self.reread(frame);
                }
                Err(StoreError::Failed(e)) => return Err(e),
                Ok(written) => {
                    bevy::log::debug!(
                        "{}: frame {frame} ({merged} merged) written: containers {:?}, deleted {:?}; pickups {:?}, deleted {:?}; handed over {:?}; mail sent {:?}, applied {:?}",
                        self.name,
                        rows.containers.iter().map(|c| c.id).collect::<Vec<_>>(),
                        rows.container_deletes,
                        rows.pickups.iter().map(|p| &p.id).collect::<Vec<_>>(),
                        rows.pickup_deletes,
                        rows.handovers,
                        rows.mail.iter().map(|m| &m.id).collect::<Vec<_>>(),
                        rows.mail_done
                    );
                    break written;
                }
            }
        };
        // a deleted (or handed over) key is never used again
        for key in forgotten {
            self.names.remove(&key);
        }
        self.recycle(batches);
        let mut state = self.shared.lock();
        let s = &mut state.stats;
        s.written_frame = frame;
        s.transactions += 1;
        s.merged_frames += merged;
        s.containers_written += outcome.containers;
        s.pickups_written += outcome.pickups;
        s.rows_deleted += outcome.deleted;
        s.busy += started.elapsed();
        drop(state);
        self.shared.changed.notify_all();
        Ok(())
    }

    /// Connects again, for [`RECONNECT_FOR`] at most; the store's last
    /// frame.
    fn reconnect(&mut self, frame: u64, seen: u64, why: &str) -> Result<u64, DatabaseError> {
        reconnect(&mut *self.store, self.name, self.shared, (frame, seen), why)
    }

    /// Records a fence: nothing more is written until the game puts back
    /// what the unwritten frames touched.
    fn fenced(&self, lost: Vec<Lost>, touched: BTreeSet<String>) {
        let mut state = self.shared.lock();
        state.stats.fenced += 1;
        for l in &lost {
            warn!("{}: {l}: this server's write was refused", self.name);
        }
        state.fence = Some(Fence { touched });
    }

    /// Frames taken while fenced: not written. Their ids join the fence's,
    /// and all are reread.
    fn discard(&mut self, batches: &mut Vec<Batch>) -> Result<(), DatabaseError> {
        let mut forgotten = Vec::new();
        let rows = frame_rows(batches, &self.names, &mut forgotten);
        let ids: Vec<String> = rows.ids().map(str::to_string).collect();
        drop(rows);
        let frame = batches.last().map_or(0, |b| b.frame);
        self.recycle(batches);
        // the fence is still up: the game ends it only with a reread that
        // covers the last frame handed over, and no reread covers these
        if let Some(fence) = self.shared.lock().fence.as_mut() {
            fence.touched.extend(ids);
        }
        self.reread(frame)
    }

    /// Rereads the rows of every id the fence touched, for the game to put
    /// back once `frame` is the last it handed over. An error stops the
    /// writer, and the fence stays: nothing the game did since the last
    /// commit is written without its put-back, ever.
    fn reread(&mut self, frame: u64) -> Result<(), DatabaseError> {
        let touched: Vec<String> = {
            let mut state = self.shared.lock();
            let Some(fence) = &state.fence else {
                return Ok(());
            };
            let touched = fence.touched.iter().cloned().collect();
            state.rereading = true;
            touched
        };
        let reread = self.reread_rows(&touched);
        let mut state = self.shared.lock();
        state.rereading = false;
        let reread = reread?;
        // a store names what it found besides the touched ids once (the
        // rows another server took: PostgreSQL forgets their epochs as it
        // reports them): they join the fence, so every later reread, of
        // which the game puts back only the last, names them again
        if let Some(fence) = state.fence.as_mut() {
            fence.touched.extend(reread.ids().map(str::to_string));
        }
        state.reread = Some((frame, reread));
        drop(state);
        self.shared.changed.notify_all();
        Ok(())
    }

    /// The rows of `touched`, on a new connection when the one in use
    /// broke.
    fn reread_rows(&mut self, touched: &[String]) -> Result<Reread, DatabaseError> {
        match self.store.reread(touched) {
            Ok(reread) => Ok(reread),
            // the connection may have broken since the fence (a failover):
            // once more on a new one
            Err(first) => {
                let seen = self.shared.lock().stats.written_frame;
                let why = first.to_string();
                self.reconnect(seen, seen, &why)
                    .and_then(|_| self.store.reread(touched))
            }
        }
    }

    /// Keeps up to [`SPARE`] written batches' lists for the game to fill
    /// again: cleared here, before the lock the game's next frame takes.
    fn recycle(&self, batches: &mut Vec<Batch>) {
        // a batch that took in frames while the writer was behind may have
        // grown far past a frame's size: its room is not kept
        batches.retain(|b| b.absorbed == 0);
        for b in batches.iter_mut() {
            b.clear();
        }
        self.shared.keep_spare(batches.drain(..));
    }
}

/// How many emptied batches wait for the game to fill: a frame then never
/// grows its lists from nothing (a burst of allocation and page faults on
/// the game thread) after a few quiet frames or a few merged ones. The
/// game leaves three waiting (it takes one only when [`COLD_AFTER`]
/// wait), so five that come back at once (frames merged because the
/// writer fell behind) are all kept.
const SPARE: usize = 8;

/// How many spares wait before the game takes one, the oldest: a batch's
/// lists come back to the game thread several frames after the writer
/// last read them, not one. The game thread writes every line of a
/// frame's lists; a line the writer's core read a moment ago must first
/// be taken back from that core. With the batch the writer had just
/// emptied (the newest spare), the multi-threaded hand-over of 1,000
/// changed containers in `examples/perf` took 86-107 us in about half
/// of the runs (36-44 us in the others, by where the scheduler had put
/// the writer); the same copy into lists only the game thread had
/// touched took 37-51 us in the same frames. Taking the oldest of four,
/// six runs of six took 43-46 us.
const COLD_AFTER: usize = 4;

impl Shared {
    /// [`Handle::send`] when a whole queue waits: `batch` joins the newest
    /// waiting frame. Out of `send`'s line: most frames never come here.
    #[cold]
    #[inline(never)]
    fn merge_into_newest(&self, mut queue: std::sync::MutexGuard<'_, Queue>, batch: Batch) {
        let Some(newest) = queue.batches.last_mut() else {
            // a queue of no frames is never full (its room is at least 1)
            queue.batches.push(batch);
            return;
        };
        let emptied = newest.absorb(batch);
        drop(queue);
        // a napping writer takes the queue now, not at the nap's end
        self.work.notify_one();
        self.keep_spare(std::iter::once(emptied));
    }

    /// The oldest spare, once [`COLD_AFTER`] wait.
    fn take_spare(&self) -> Option<Batch> {
        let mut spare = self.spare.lock().unwrap_or_else(PoisonError::into_inner);
        if spare.len() >= COLD_AFTER {
            spare.pop_front()
        } else {
            None
        }
    }

    /// Keeps `batches` (emptied) as spares, up to [`SPARE`], after those
    /// waiting.
    fn keep_spare(&self, batches: impl Iterator<Item = Batch>) {
        let mut spare = self.spare.lock().unwrap_or_else(PoisonError::into_inner);
        for b in batches {
            if spare.len() < SPARE {
                spare.push_back(b);
            }
        }
    }
}

/// Connects again, for [`RECONNECT_FOR`] at most; the store's last frame.
/// A store that was replaced or forgot frames is not tried again.
fn reconnect(
    store: &mut dyn Store,
    name: &str,
    shared: &Shared,
    (frame, seen): (u64, u64),
    why: &str,
) -> Result<u64, DatabaseError> {
    warn!(
        "{}: the connection broke while writing frame {frame} ({why}); connecting again",
        name
    );
    let since = Instant::now();
    // quick at first: a failover's new primary answers within a second
    let mut pause = Duration::from_millis(20);
    loop {
        match store.reconnect(seen) {
            Ok(at) => {
                shared.lock().stats.reconnects += 1;
                return Ok(at);
            }
            Err(e @ (DatabaseError::Replaced { .. } | DatabaseError::Behind { .. })) => {
                return Err(e);
            }
            Err(e) if since.elapsed() >= RECONNECT_FOR => return Err(e),
            Err(_) => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(500));
            }
        }
    }
}

/// Stops the writer when its thread panics: a game waiting for a flush or
/// a resync gets the error instead of waiting for ever.
struct StopOnPanic<'a> {
    shared: &'a Shared,
    path: &'a str,
}

impl Drop for StopOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let frame = self.shared.lock().stats.written_frame + 1;
            let e = DatabaseError::Write {
                path: self.path.to_string(),
                frame,
                message: "the writer thread panicked".into(),
            };
            stop(self.shared, Some(e));
        }
    }
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

/// The last entry for each id over `batches` (in id order): which batch,
/// which entry. Keys deleted are forgotten once their row is.
fn last_entries<'a, T>(
    batches: &[Batch],
    names: &'a HashMap<u64, Box<str>>,
    list: impl Fn(&Batch) -> &[(u64, Option<T>)],
    forgotten: &mut Vec<u64>,
) -> BTreeMap<&'a str, (usize, usize)> {
    let mut last = BTreeMap::new();
    for (b, batch) in batches.iter().enumerate() {
        for (i, (key, entry)) in list(batch).iter().enumerate() {
            if entry.is_none() {
                forgotten.push(*key);
            }
            if let Some(id) = names.get(key) {
                last.insert(&**id, (b, i));
            }
        }
    }
    last
}

/// The rows of the frames in one transaction: the last entry of each id,
/// the saves made from the stacks the game thread copied, and the last
/// frame's number.
pub(crate) fn frame_rows<'a>(
    batches: &'a [Batch],
    names: &'a HashMap<u64, Box<str>>,
    forgotten: &mut Vec<u64>,
) -> FrameRows<'a> {
    let Some(last) = batches.last() else {
        return FrameRows::default();
    };
    let mut rows = FrameRows {
        frame: last.frame,
        next_pickup: last.next_pickup,
        ..FrameRows::default()
    };
    for (id, (b, i)) in last_entries(batches, names, |b| &b.containers, forgotten) {
        let batch = &batches[b];
        match &batch.containers[i].1 {
            Some(w) => {
                // the game thread put the adoption in the same batch
                let adoption = &batch.adoptions[w.adoption];
                rows.containers.push(ContainerPut {
                    id,
                    adoption: &adoption.path,
                    // compact: a row is read by the crate, not by eye (the
                    // operator's tool and `SavedContents` print it pretty)
                    contents: serde_json::to_string(&w.head.save(
                        &batch.stacks,
                        &adoption.rules,
                        &adoption.id,
                    ))
                    .unwrap_or_default(),
                    store: w.store.and_then(|k| names.get(&k)).map(|s| &**s),
                });
            }
            None => rows.container_deletes.push(id),
        }
    }
    for (id, (b, i)) in last_entries(batches, names, |b| &b.pickups, forgotten) {
        match &batches[b].pickups[i].1 {
            Some(p) => rows.pickups.push(p),
            None => rows.pickup_deletes.push(id),
        }
    }
    for batch in batches {
        for (key, to) in &batch.handovers {
            if let Some(id) = names.get(key) {
                rows.handovers.push((id, to));
                forgotten.push(*key);
            }
        }
        rows.mail.extend(batch.mail.iter());
        rows.mail_done
            .extend(batch.mail_done.iter().map(String::as_str));
    }
    // a container handed over in two of the merged frames (it came back
    // between them): its last hand-over is the one written
    let mut seen = std::collections::BTreeSet::new();
    rows.handovers.reverse();
    rows.handovers.retain(|(id, _)| seen.insert(*id));
    rows.handovers.reverse();
    rows
}

/// The two stages of a frame's hand-over on the game thread
/// ([`DatabaseWriter::last_hand_over_stages`](crate::persist::DatabaseWriter::last_hand_over_stages)).
///
/// ```
/// use bevy_container::persist::HandOverStages;
/// let stages = HandOverStages::default();
/// assert!(stages.copy.is_zero() && stages.send.is_zero());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HandOverStages {
    /// Finding what changed and copying it for the writer: the ids named
    /// and forgotten, each changed container's stacks, the pickups, the
    /// hand-overs and the mail.
    pub copy: std::time::Duration,
    /// Handing the copy to the writer thread: its queue's lock, waking
    /// the writer when it sleeps, and merging the copy into the newest
    /// waiting frame when the writer has fallen a whole queue behind
    /// (after a fence: waiting for the writer to reread what the
    /// unwritten frames touched).
    pub send: std::time::Duration,
}

impl HandOverStages {
    /// The whole hand-over: both stages.
    ///
    /// ```
    /// use std::time::Duration;
    /// use bevy_container::persist::HandOverStages;
    /// let stages = HandOverStages { copy: Duration::from_micros(40), send: Duration::from_micros(5) };
    /// assert_eq!(stages.total(), Duration::from_micros(45));
    /// ```
    pub fn total(&self) -> std::time::Duration {
        self.copy + self.send
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_writer_thread_that_panics_stops_the_writer_with_an_error() {
        let shared = Arc::new(Shared {
            capacity: 1,
            ..Shared::default()
        });
        shared.lock().stats.written_frame = 41;
        let thread = {
            let shared = shared.clone();
            std::thread::spawn(move || {
                let _stop = StopOnPanic {
                    shared: &shared,
                    path: "world.db",
                };
                panic!("a bug in the writer");
            })
        };
        assert!(thread.join().is_err(), "the thread panicked");
        let state = shared.lock();
        assert!(state.stopped, "a game waiting for the writer waits no more");
        match &state.error {
            Some(DatabaseError::Write {
                path,
                frame,
                message,
            }) => {
                assert_eq!(path, "world.db");
                assert_eq!(*frame, 42, "the first frame not written");
                assert!(message.contains("panicked"), "{message}");
            }
            other => panic!("a write error, not {other:?}"),
        }
    }

    /// A batch told apart by the room of its list of names.
    fn spare(room: usize) -> Batch {
        Batch {
            names: Vec::with_capacity(room),
            ..Batch::default()
        }
    }

    #[test]
    fn the_game_fills_the_oldest_spare_once_enough_wait() {
        let shared = Shared::default();
        let room = |b: Option<Batch>| b.map(|b| b.names.capacity());
        shared.keep_spare((1..COLD_AFTER).map(|n| spare(n * 10)));
        assert_eq!(room(shared.take_spare()), None, "too few wait: a new batch");
        shared.keep_spare([spare(COLD_AFTER * 10)].into_iter());
        assert_eq!(
            room(shared.take_spare()),
            Some(10),
            "the oldest, not the newest"
        );
        // the one written last goes to the back
        shared.keep_spare([spare(99)].into_iter());
        let order: Vec<_> = std::iter::from_fn(|| shared.take_spare())
            .map(|b| b.names.capacity())
            .collect();
        assert_eq!(order, [20], "then the next oldest, while enough wait");
        assert_eq!(shared.spare.lock().unwrap().len(), COLD_AFTER - 1);
        // no more than SPARE are kept
        shared.keep_spare((0..SPARE * 2).map(|_| spare(1)));
        assert_eq!(shared.spare.lock().unwrap().len(), SPARE);
    }

    #[test]
    fn a_writer_thread_that_ends_normally_sets_no_error() {
        let shared = Shared::default();
        {
            let _stop = StopOnPanic {
                shared: &shared,
                path: "world.db",
            };
        }
        let state = shared.lock();
        assert!(!state.stopped && state.error.is_none());
    }
}
