//! Frames merged on the game thread: when the writer is a whole queue
//! behind (a slow disk, a database failing over, a commit waiting for a
//! standby), the game does not wait for room. Its frame joins the newest
//! frame waiting, and the writer writes the two as it writes the frames
//! it finds waiting: the last entry of each id wins, hand-overs and mail
//! are kept in order, and the transaction carries the last frame's
//! number.
//!
//! A frame joined so is never written on its own, as a frame the writer
//! merges is not. A later frame's entry for a key takes the place of the
//! key's entry (its stacks over the earlier stacks when they fit), so
//! however long the database is away, what waits is bounded by the
//! persisted entities of the world, not by the frames played meanwhile,
//! and no frame pays for a clean-up of what piled up.
//!
//! Taking an entry's place keeps the writer's answer: a key names one id
//! for good, a key deleted (or handed over) is never written again, and
//! an id's next key is made after its last key let go of it, so its
//! entry lands after every entry of that id's earlier keys.

use crate::persist::frame::writer::{Batch, ContainerWrite, Places};

impl Batch {
    /// Takes in `later` (the next frame), so that the writer writes this
    /// batch as it would have written the two; returns `later` emptied,
    /// its lists' room kept.
    pub(crate) fn absorb(&mut self, mut later: Batch) -> Batch {
        let mut places = self.places.take().unwrap_or_else(|| self.places_now());
        for (key, write) in later.containers.drain(..) {
            // a key new to the batch gets the next place, and no room yet
            let next = self.containers.len();
            let (at, room) = places.containers.entry(key).or_insert((next, None));
            let write = write.map(|w| {
                let (head, taken) = w.head.copied(&later.stacks, &mut self.stacks, *room);
                *room = Some(taken);
                // each adoption once in the merged list, as in a frame's
                // own (`Batch::adoption`: the last named is found at once)
                let adoption = later.adoptions.get(w.adoption);
                ContainerWrite {
                    adoption: adoption.map_or(w.adoption, |a| self.adoption(a)),
                    head,
                    store: w.store,
                }
            });
            match self.containers.get_mut(*at) {
                Some(entry) => entry.1 = write,
                None => {
                    *at = self.containers.len();
                    self.containers.push((key, write));
                }
            }
        }
        for (key, row) in later.pickups.drain(..) {
            let next = self.pickups.len();
            let at = places.pickups.entry(key).or_insert(next);
            match self.pickups.get_mut(*at) {
                Some(entry) => entry.1 = row,
                None => {
                    *at = self.pickups.len();
                    self.pickups.push((key, row));
                }
            }
        }
        self.places = Some(places);
        self.names.append(&mut later.names);
        self.handovers.append(&mut later.handovers);
        self.mail.append(&mut later.mail);
        self.mail_done.append(&mut later.mail_done);
        self.frame = later.frame;
        self.next_pickup = later.next_pickup;
        self.absorbed += 1 + later.absorbed;
        later.clear();
        later
    }

    /// Where each key's last entry is now (the first frame taken in finds
    /// the batch's own frame, whose entries may name a key twice).
    fn places_now(&self) -> Box<Places> {
        let mut places = Box::<Places>::default();
        for (i, (key, write)) in self.containers.iter().enumerate() {
            let room = write.as_ref().map(|w| w.head.stacks_place());
            places.containers.insert(*key, (i, room));
        }
        for (i, (key, _)) in self.pickups.iter().enumerate() {
            places.pickups.insert(*key, i);
        }
        places
    }
}

#[cfg(test)]
pub(crate) mod tests {
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
    pub(crate) fn adoption(path: &str) -> Arc<AdoptionRef> {
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

    /// Writes `bag` into `b` under `key`, as the game thread's hand-over
    /// does.
    pub(crate) fn put(
        b: &mut Batch,
        key: u64,
        bag: &Contents,
        adoption: &Arc<AdoptionRef>,
        store: Option<u64>,
    ) {
        let head = bag.save_head(&mut b.stacks);
        let adoption = b.adoption(adoption);
        let write = ContainerWrite {
            adoption,
            head,
            store,
        };
        b.containers.push((key, Some(write)));
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
            let store = (self.below(4) == 0).then(|| self.below(BAGS));
            let bag = self
                .bags
                .entry(k)
                .or_insert_with(|| Contents::new(adoption.rules.clone()));
            bag.deliver("berries", give);
            if bag.stack(0).is_some() {
                bag.take_slot(0, take);
            }
            put(b, k, bag, &adoption, store);
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
        // first merged into one on the game thread
        for case in 0..400u64 {
            let count = 2 + (case % 80) as usize;
            let apart = 1 + (case as usize * 7) % (count - 1);
            let mut theirs = Frames::new(case);
            let separate: Vec<Batch> = (0..count).map(|_| theirs.next()).collect();
            let mut ours = Frames::new(case);
            let mut merged: Vec<Batch> = (0..apart).map(|_| ours.next()).collect();
            let newest = merged.last_mut().expect("one frame at least");
            let own = newest.containers.len() + newest.pickups.len();
            for _ in apart..count {
                let emptied = newest.absorb(ours.next());
                assert!(
                    emptied.is_empty(),
                    "case {case}: the frame merged is emptied"
                );
                // however many frames join, a key's entry takes the place
                // of its last one
                let keys = (BAGS + (PICKUPS.end - PICKUPS.start)) as usize;
                let entries = newest.containers.len() + newest.pickups.len();
                assert!(
                    entries <= own + keys,
                    "case {case}: {entries} entries wait for {keys} keys"
                );
                assert!(
                    newest.adoptions.len() <= 2,
                    "case {case}: adoptions once each"
                );
            }
            assert_eq!(
                written(&merged),
                written(&separate),
                "case {case}: {count} frames, the game merging those after {apart}"
            );
        }
    }

    #[test]
    fn a_key_merged_a_thousand_times_keeps_one_entry_and_its_stacks_bounded() {
        // two bags rewritten every frame, one to three stacks each: the
        // waiting frame keeps an entry a bag, and each bag's stacks go over
        // its last ones whenever they fit
        let backpack = adoption("backpack.adoption.json");
        let mut bags: Vec<Contents> = (0..2)
            .map(|_| Contents::new(backpack.rules.clone()))
            .collect();
        let rules = backpack.rules.clone();
        let mut frame = |f: u64| {
            let mut b = Batch {
                frame: f,
                ..Batch::default()
            };
            for (k, bag) in bags.iter_mut().enumerate() {
                // the backpack stacks 20 berries a slot
                *bag = Contents::new(rules.clone());
                bag.deliver("berries", 1 + ((f * 7 + k as u64) % 60) as u32);
                put(&mut b, k as u64, bag, &backpack, None);
            }
            if f == 1 {
                b.names
                    .extend((0..2).map(|k| (k, format!("bag-{k}").into())));
            }
            b
        };
        let mut newest = frame(1);
        let mut separate = vec![frame(1)];
        for f in 2..=1_000 {
            separate.push(frame(f));
            newest.absorb(frame(f));
        }
        assert_eq!(newest.containers.len(), 2, "an entry a bag");
        // a bag's stacks are laid anew only when they outgrow their place:
        // at most 1 + 2 + 3 stacks a bag, and its first frame's
        assert!(
            newest.stacks.len() <= 2 * (1 + 2 + 3) + 6,
            "{} stacks",
            newest.stacks.len()
        );
        assert_eq!(written(&[newest]), written(&separate));
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
                put(&mut b, k, bag, backpack, None);
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
