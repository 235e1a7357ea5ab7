//! Frames merged on the game thread: when the writer is a whole queue
//! behind (a slow disk, a database failing over, a commit waiting for a
//! standby), the game does not wait for room. Its frame joins the newest
//! frame waiting, exactly as the writer merges the frames it finds
//! waiting: the last entry of each id wins, hand-overs and mail are kept
//! in order, and the transaction carries the last frame's number.
//!
//! A frame joined so is never written on its own, as a frame the writer
//! merges is not. The newest waiting frame keeps one entry for each key
//! once its lists have doubled ([`Batch::compact`]), so however long the
//! database is away, what waits is bounded by the persisted entities of
//! the world, not by the frames played meanwhile.

use std::collections::HashMap;

use crate::persist::frame::writer::{Batch, ContainerWrite};

/// The entries (containers and pickups) a merged batch holds before it
/// first keeps one entry a key: below this, a frame's lists are appended
/// as they are.
const COMPACT_FROM: usize = 4_096;

impl Batch {
    /// Appends `later` (the next frame) to this batch, as the writer
    /// would merge the two into one transaction; keeps one entry a key
    /// once the entries reach twice what they were after the last
    /// compaction (and at least [`COMPACT_FROM`]). Returns `later`
    /// emptied, its lists' room kept.
    pub(crate) fn absorb(&mut self, later: Batch) -> Batch {
        self.absorb_compacting_from(later, COMPACT_FROM)
    }

    /// [`Batch::absorb`], compacting from `compact_from` entries.
    fn absorb_compacting_from(&mut self, mut later: Batch, compact_from: usize) -> Batch {
        let stacks_at = self.stacks.len() as u32;
        self.stacks.append(&mut later.stacks);
        // each adoption once in the merged list, as in a frame's own
        let adoptions: Vec<usize> = later.adoptions.iter().map(|a| self.adoption(a)).collect();
        self.containers
            .extend(later.containers.drain(..).map(|(key, write)| {
                let write = write.map(|w| ContainerWrite {
                    adoption: adoptions.get(w.adoption).copied().unwrap_or(w.adoption),
                    head: w.head.shifted(stacks_at),
                    store: w.store,
                });
                (key, write)
            }));
        self.names.append(&mut later.names);
        self.pickups.append(&mut later.pickups);
        self.handovers.append(&mut later.handovers);
        self.mail.append(&mut later.mail);
        self.mail_done.append(&mut later.mail_done);
        self.frame = later.frame;
        self.next_pickup = later.next_pickup;
        self.absorbed += 1 + later.absorbed;
        let entries = self.containers.len() + self.pickups.len();
        if entries >= (2 * self.compacted).max(compact_from) {
            self.compact();
        }
        later.clear();
        later
    }

    /// Keeps only the last entry of each key, containers and pickups, in
    /// the order they were written, and only the stacks of the containers
    /// kept. What the writer makes of the batch is the same: it writes
    /// the last entry of each id, and a key names one id.
    fn compact(&mut self) {
        let last = last_of_each_key(&self.containers);
        let mut stacks = Vec::with_capacity(self.stacks.len().min(2 * last.len() + 16));
        let mut kept = Vec::with_capacity(last.len());
        for (i, (key, write)) in self.containers.drain(..).enumerate() {
            if last.get(&key) != Some(&i) {
                continue;
            }
            let write = write.map(|w| ContainerWrite {
                head: w.head.copied(&self.stacks, &mut stacks),
                ..w
            });
            kept.push((key, write));
        }
        self.containers = kept;
        self.stacks = stacks;
        let last = last_of_each_key(&self.pickups);
        let mut i = 0;
        self.pickups.retain(|(key, _)| {
            let keep = last.get(key) == Some(&i);
            i += 1;
            keep
        });
        self.compacted = self.containers.len() + self.pickups.len();
    }
}

/// Where each key's last entry is in `list`.
fn last_of_each_key<T>(list: &[(u64, T)]) -> HashMap<u64, usize> {
    list.iter()
        .enumerate()
        .map(|(i, (key, _))| (*key, i))
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};
    use std::sync::{Arc, Condvar, Mutex};
    use std::time::Duration;

    use super::*;
    use crate::contents::Contents;
    use crate::persist::frame::error::DatabaseError;
    use crate::persist::frame::rows::PickupRow;
    use crate::persist::frame::scheduling::WriterScheduling;
    use crate::persist::frame::server_id::ServerId;
    use crate::persist::frame::store::{FrameRows, Reread, Store, StoreError, Written};
    use crate::persist::frame::writer::{AdoptionRef, Start, frame_rows, start};
    use crate::rules::Rules;
    use crate::save::{AdoptionId, SavedContents};
    use crate::splitmix::below;

    /// The backpack's adoption, under `path`.
    fn adoption(path: &str) -> Arc<AdoptionRef> {
        let bytes = std::fs::read("assets/backpack.adoption.json").expect("the crate's asset");
        let a = crate::adoption::read(&bytes, crate::adoption::Format::Json, Default::default())
            .expect("the backpack reads");
        let rules = Rules::compile(&a, &Default::default()).expect("the backpack compiles");
        Arc::new(AdoptionRef {
            path: path.into(),
            id: AdoptionId::of(path, &bytes),
            rules: Arc::new(rules),
        })
    }

    /// Random frames over a few containers and pickups, as the game thread
    /// fills them: each key named once, written while it lives, deleted
    /// (or handed over) at most once and never used after.
    struct Frames {
        seed: u64,
        adoptions: [Arc<AdoptionRef>; 2],
        bags: BTreeMap<u64, Contents>,
        retired: BTreeSet<u64>,
        frame: u64,
    }

    const BAGS: u64 = 12;
    const PICKUPS: std::ops::Range<u64> = 100..107;

    impl Frames {
        fn new(seed: u64) -> Frames {
            Frames {
                seed,
                adoptions: [
                    adoption("backpack.adoption.json"),
                    adoption("bag.adoption.json"),
                ],
                bags: BTreeMap::new(),
                retired: BTreeSet::new(),
                frame: 0,
            }
        }

        fn below(&mut self, n: u64) -> u64 {
            below(&mut self.seed, n)
        }

        /// A live key of `keys`, if one is left.
        fn key(&mut self, keys: std::ops::Range<u64>) -> Option<u64> {
            let k = keys.start + self.below(keys.end - keys.start);
            (!self.retired.contains(&k)).then_some(k)
        }

        fn next(&mut self) -> Batch {
            self.frame += 1;
            let mut b = Batch {
                frame: self.frame,
                next_pickup: self.frame * 3,
                ..Batch::default()
            };
            if self.frame == 1 {
                b.names
                    .extend((0..BAGS).map(|k| (k, format!("bag-{k}").into())));
                b.names
                    .extend(PICKUPS.map(|k| (k, format!("pickup-{k}").into())));
            }
            for _ in 0..self.below(6) {
                self.container(&mut b);
            }
            for _ in 0..self.below(3) {
                self.pickup(&mut b);
            }
            if self.below(10) == 0
                && let Some(k) = self.key(0..BAGS)
            {
                self.retired.insert(k);
                b.handovers.push((k, ServerId::new("east")));
            }
            if self.below(10) == 0 {
                b.mail_done.push(format!("mail-{}", self.frame));
            }
            b
        }

        fn container(&mut self, b: &mut Batch) {
            let Some(k) = self.key(0..BAGS) else { return };
            if self.below(8) == 0 {
                self.retired.insert(k);
                b.containers.push((k, None));
                return;
            }
            let adoption = self.adoptions[self.below(2) as usize].clone();
            let (give, take) = (self.below(30) as u32, self.below(20) as u32);
            let bag = self
                .bags
                .entry(k)
                .or_insert_with(|| Contents::new(adoption.rules.clone()));
            bag.deliver("berries", give);
            if bag.stack(0).is_some() {
                bag.take_slot(0, take);
            }
            let head = bag.save_head(&mut b.stacks);
            let store = (self.below(4) == 0).then(|| self.below(BAGS));
            let adoption = b.adoption(&adoption);
            b.containers.push((
                k,
                Some(ContainerWrite {
                    adoption,
                    head,
                    store,
                }),
            ));
        }

        fn pickup(&mut self, b: &mut Batch) {
            let Some(k) = self.key(PICKUPS) else { return };
            if self.below(6) == 0 {
                self.retired.insert(k);
                b.pickups.push((k, None));
                return;
            }
            let row = PickupRow {
                id: format!("pickup-{k}"),
                item: "berries".into(),
                amount: 1 + self.below(9) as u32,
                props: Default::default(),
                translation: bevy::math::Vec3::new(self.below(50) as f32, 0.0, 1.0),
            };
            b.pickups.push((k, Some(row)));
        }
    }

    /// What a transaction of `batches` writes, as text: the rows and the
    /// keys the writer forgets after it.
    fn written(batches: &[Batch]) -> String {
        let names = batches
            .iter()
            .flat_map(|b| b.names.iter().cloned())
            .collect();
        let mut forgotten = Vec::new();
        let rows: FrameRows = frame_rows(batches, &names, &mut forgotten);
        let forgotten: BTreeSet<u64> = forgotten.into_iter().collect();
        format!(
            "frame {} next {}\ncontainers {:?}\ndeleted {:?}\npickups {:?}\ndeleted {:?}\nhanded {:?}\nmail done {:?}\nforgotten {forgotten:?}",
            rows.frame,
            rows.next_pickup,
            rows.containers
                .iter()
                .map(|c| (c.id, c.adoption, &c.contents, c.store))
                .collect::<Vec<_>>(),
            rows.container_deletes,
            rows.pickups
                .iter()
                .map(|p| (&p.id, p.amount, p.translation.x))
                .collect::<Vec<_>>(),
            rows.pickup_deletes,
            rows.handovers,
            rows.mail_done,
        )
    }

    #[test]
    fn a_frame_merged_by_the_game_writes_what_the_writer_would_have_written() {
        // the same random frames twice: written as the writer merges
        // frames it finds waiting, and with the frames after the `apart`
        // first merged into one on the game thread, compacted early or late
        for case in 0..300u64 {
            let count = 2 + (case % 40) as usize;
            let apart = 1 + (case as usize * 7) % (count - 1);
            let compact_from = [1, 2, 5, 16, COMPACT_FROM][case as usize % 5];
            let mut theirs = Frames::new(case);
            let separate: Vec<Batch> = (0..count).map(|_| theirs.next()).collect();
            let mut ours = Frames::new(case);
            let mut merged: Vec<Batch> = (0..apart).map(|_| ours.next()).collect();
            let newest = merged.last_mut().expect("one frame at least");
            for _ in apart..count {
                let emptied = newest.absorb_compacting_from(ours.next(), compact_from);
                assert!(
                    emptied.is_empty(),
                    "case {case}: the frame merged is emptied"
                );
                // however many frames join, one entry a key is what it holds
                // after a compaction, twice that before the next
                let live = (BAGS + (PICKUPS.end - PICKUPS.start)) as usize;
                let entries = newest.containers.len() + newest.pickups.len();
                assert!(
                    entries < (2 * live).max(compact_from) + 16,
                    "case {case}: {entries} entries wait for {live} keys"
                );
                assert!(
                    newest.adoptions.len() <= 2,
                    "case {case}: adoptions once each"
                );
            }
            assert_eq!(
                written(&merged),
                written(&separate),
                "case {case}: {count} frames, the game merging those after {apart}, compacting from {compact_from}"
            );
        }
    }

    /// A store that keeps what it is asked to write, and writes only while
    /// its gate is open: a slow disk, or a commit waiting for a standby.
    struct Gated {
        gate: Arc<(Mutex<bool>, Condvar)>,
        kept: Arc<Mutex<Kept>>,
    }

    #[derive(Default)]
    struct Kept {
        frames: Vec<u64>,
        containers: BTreeMap<String, String>,
    }

    impl Store for Gated {
        fn write(&mut self, rows: &FrameRows) -> Result<Written, StoreError> {
            let (open, opened) = &*self.gate;
            let mut open = open.lock().expect("the gate");
            while !*open {
                open = opened.wait(open).expect("the gate");
            }
            let mut kept = self.kept.lock().expect("kept");
            kept.frames.push(rows.frame);
            for c in &rows.containers {
                kept.containers.insert(c.id.into(), c.contents.clone());
            }
            Ok(Written {
                containers: rows.containers.len() as u64,
                ..Written::default()
            })
        }

        fn reconnect(&mut self, seen: u64) -> Result<u64, DatabaseError> {
            Ok(seen)
        }

        fn reread(&mut self, _ids: &[String]) -> Result<Reread, DatabaseError> {
            Ok(Reread::default())
        }
    }

    /// Frames 1 to `last` of five backpacks, frame f giving bag f % 5 as
    /// many berries as its number (frame 1 names the bags); and the bags'
    /// saves after the last.
    fn berry_frames(backpack: &Arc<AdoptionRef>, last: u64) -> (Vec<Batch>, Vec<SavedContents>) {
        let mut bags: Vec<Contents> = (0..5)
            .map(|_| Contents::new(backpack.rules.clone()))
            .collect();
        let frames = (1..=last)
            .map(|f| {
                let k = f % 5;
                let mut b = Batch {
                    frame: f,
                    next_pickup: 1,
                    ..Batch::default()
                };
                if f == 1 {
                    b.names
                        .extend((0..5).map(|k| (k, format!("bag-{k}").into())));
                }
                let bag = &mut bags[k as usize];
                bag.deliver("berries", f as u32);
                let head = bag.save_head(&mut b.stacks);
                let adoption = b.adoption(backpack);
                let write = ContainerWrite {
                    adoption,
                    head,
                    store: None,
                };
                b.containers.push((k, Some(write)));
                b
            })
            .collect();
        (frames, bags.iter().map(|c| c.save(&backpack.id)).collect())
    }

    #[test]
    fn a_writer_a_whole_queue_behind_never_holds_the_game_back() {
        let gate = Arc::new((Mutex::new(false), Condvar::new()));
        let kept = Arc::new(Mutex::new(Kept::default()));
        let store = Gated {
            gate: gate.clone(),
            kept: kept.clone(),
        };
        let mut game = start(Start {
            store: Box::new(store),
            name: "gated".into(),
            frame: 0,
            queue: 2,
            scheduling: WriterScheduling::default(),
        });
        let backpack = adoption("backpack.adoption.json");
        let (mut frames, last_state) = berry_frames(&backpack, 200);
        let first = frames.remove(0);
        game.send(first);
        // the writer takes frame 1 and stays in its commit
        let taken = (0..10_000).any(|_| {
            std::thread::sleep(Duration::from_millis(1));
            game.queue_len() == 0
        });
        assert!(taken, "the writer took frame 1");
        let (done, finished) = std::sync::mpsc::channel();
        let game_thread = std::thread::spawn(move || {
            for b in frames {
                game.send(b);
            }
            let _ = done.send(());
            game
        });
        // a game held back would still be sending when this gives up; the
        // gate opens either way, so a failing check leaves no thread behind
        let held_back = finished.recv_timeout(Duration::from_secs(60)).is_err();
        let open_gate = || {
            *gate.0.lock().expect("the gate") = true;
            gate.1.notify_all();
        };
        if held_back {
            open_gate();
        }
        let game = game_thread.join().expect("the game thread ends");
        assert!(
            !held_back,
            "199 frames were handed over while the writer was stuck"
        );
        assert_eq!(
            game.queue_len(),
            2,
            "no more than a queue's frames wait apart"
        );
        assert_eq!(game.absorbed, 197, "frames 4 to 200 joined frame 3");
        open_gate();
        game.flush().expect("written");
        let stats = game.stats();
        assert_eq!(stats.written_frame, 200, "every frame written");
        assert_eq!(
            (stats.transactions, stats.merged_frames),
            (2, 198),
            "frame 1, then frames 2 to 200 in one transaction: {stats:?}"
        );
        let kept = kept.lock().expect("kept");
        assert_eq!(kept.frames, [1, 200]);
        for (k, state) in last_state.iter().enumerate() {
            let json = serde_json::to_string(state).expect("a save writes");
            assert_eq!(
                kept.containers.get(&format!("bag-{k}")),
                Some(&json),
                "bag {k} as the game left it"
            );
        }
    }
}
