//! The writer after a fence: the game never waits for the reread, and the
//! reread it puts back covers every frame it handed over.

use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::contents::Contents;
use crate::persist::frame::error::DatabaseError;
use crate::persist::frame::merge::tests::{adoption, put};
use crate::persist::frame::scheduling::WriterScheduling;
use crate::persist::frame::server_id::{Lost, ServerId};
use crate::persist::frame::store::{FrameRows, Reread, Store, StoreError, Written};
use crate::persist::frame::writer::{AdoptionRef, Batch, Start, start};

/// A store that refuses its second transaction (another server owns
/// `bag-0` now) and rereads once for each permit the test gives: a
/// database slow to answer, or away, just after a fence.
struct Fencing {
    permits: Arc<(Mutex<u32>, Condvar)>,
    seen: Arc<Mutex<Seen>>,
}

#[derive(Default)]
struct Seen {
    /// The frames written.
    written: Vec<u64>,
    /// The ids of each reread.
    rereads: Vec<Vec<String>>,
    writes: u32,
}

impl Store for Fencing {
    fn write(&mut self, rows: &FrameRows) -> Result<Written, StoreError> {
        all_but_the_second(&self.seen, rows)
    }

    fn reconnect(&mut self, seen: u64) -> Result<u64, DatabaseError> {
        Ok(seen)
    }

    fn reread(&mut self, ids: &[String]) -> Result<Reread, DatabaseError> {
        let (permits, given) = &*self.permits;
        let mut permits = permits.lock().expect("the permits");
        while *permits == 0 {
            permits = given.wait(permits).expect("the permits");
        }
        *permits -= 1;
        self.seen.lock().expect("seen").rereads.push(ids.to_vec());
        Ok(Reread {
            others: vec![lost()],
            ..Reread::default()
        })
    }
}

/// Gives the store permits enough for any reread left when dropped: a
/// failed check must not leave the writer waiting, and the test with it.
struct Plenty(Arc<(Mutex<u32>, Condvar)>);

impl Drop for Plenty {
    fn drop(&mut self) {
        if let Ok(mut permits) = self.0.0.lock() {
            *permits += 1_000;
        }
        self.0.1.notify_all();
    }
}

/// Writes `rows`, unless they are the second transaction: another server
/// owns `bag-0` by then, and the store refuses it.
fn all_but_the_second(seen: &Mutex<Seen>, rows: &FrameRows) -> Result<Written, StoreError> {
    let mut seen = seen.lock().expect("seen");
    seen.writes += 1;
    if seen.writes == 2 {
        return Err(StoreError::Fenced(vec![lost()]));
    }
    seen.written.push(rows.frame);
    Ok(Written::default())
}

fn lost() -> Lost {
    Lost {
        id: "bag-0".into(),
        owner: Some(ServerId::new("south")),
    }
}

/// Frame `frame` writing bag `k` (named in the frame when `name`).
fn frame(frame: u64, k: u64, name: bool) -> Batch {
    static BACKPACK: std::sync::LazyLock<Arc<AdoptionRef>> =
        std::sync::LazyLock::new(|| adoption("backpack.adoption.json"));
    let backpack = &*BACKPACK;
    let mut bag = Contents::new(backpack.rules.clone());
    bag.deliver("berries", frame as u32);
    let mut b = Batch {
        frame,
        next_pickup: 1,
        ..Batch::default()
    };
    if name {
        b.names.push((k, format!("bag-{k}").into()));
    }
    put(&mut b, k, &bag, backpack, None);
    b
}

#[test]
fn a_fence_never_holds_the_game_back_and_its_reread_covers_every_frame() {
    let permits = Arc::new((Mutex::new(0), Condvar::new()));
    let permit = || {
        *permits.0.lock().expect("the permits") += 1;
        permits.1.notify_all();
    };
    let seen = Arc::new(Mutex::new(Seen::default()));
    let mut game = start(Start {
        store: Box::new(Fencing {
            permits: permits.clone(),
            seen: seen.clone(),
        }),
        name: "fencing".into(),
        frame: 0,
        queue: 2,
        scheduling: WriterScheduling::default(),
    });
    // dropped before the game: a failed check before the game thread
    // leaves no writer waiting (the one after it has its own)
    let _early = Plenty(permits.clone());
    let mut first = frame(1, 0, true);
    first.names.push((1, "bag-1".into()));
    game.send(first);
    game.flush().expect("frame 1 written");
    // frame 2 is refused, and its reread waits for a permit
    game.send(frame(2, 0, false));
    let fenced = Instant::now();
    while !game.rereading() {
        assert!(fenced.elapsed() < Duration::from_secs(60), "never reread");
        std::thread::sleep(Duration::from_millis(1));
    }
    assert!(game.fenced());
    // the game goes on: frames 3 to 60 (bag-2 named in frame 30), none
    // waits, and there is no reread to put back yet
    let (done, finished) = std::sync::mpsc::channel();
    let game_thread = std::thread::spawn(move || {
        let mut early = 0;
        for f in 3..=60 {
            game.send(frame(f, 1 + u64::from(f >= 30), f == 30));
            early += usize::from(game.take_reread().is_some());
        }
        let _ = done.send(());
        (game, early)
    });
    let held_back = finished.recv_timeout(Duration::from_secs(60)).is_err();
    // the reread of frame 2 answers; the writer then takes frames 3 to 60
    // and waits to reread them
    permit();
    let (mut game, early) = game_thread.join().expect("the game thread ends");
    // dropped before the game, whose writer it lets finish
    let _plenty = Plenty(permits.clone());
    assert!(!held_back, "58 frames handed over while the reread waited");
    assert_eq!(early, 0, "no reread before the database answered");
    let asked = Instant::now();
    while seen.lock().expect("seen").rereads.is_empty() {
        assert!(asked.elapsed() < Duration::from_secs(60), "no reread");
        std::thread::sleep(Duration::from_millis(1));
    }
    std::thread::sleep(Duration::from_millis(50));
    assert!(
        game.take_reread().is_none(),
        "a reread of frame 2 is not put back after frame 60"
    );
    // the reread the game takes covers every frame it handed over
    permit();
    let reread = loop {
        if let Some(r) = game.take_reread() {
            break r;
        }
        assert!(asked.elapsed() < Duration::from_secs(60), "no reread");
        std::thread::sleep(Duration::from_millis(1));
    };
    assert_eq!(reread.others.len(), 1, "bag-0 is south's");
    let last = seen.lock().expect("seen").rereads.last().cloned();
    assert_eq!(
        last.as_deref(),
        Some(&["bag-0".to_string(), "bag-1".into(), "bag-2".into()][..]),
        "every id of frames 2 to 60"
    );
    assert!(!game.fenced(), "the fence ends with the put-back");
    game.send(frame(61, 1, false));
    game.flush().expect("written again");
    assert_eq!(
        seen.lock().expect("seen").written,
        [1, 61],
        "none of 2 to 60"
    );
    assert_eq!(game.stats().fenced, 1);
}

/// A store that, as PostgreSQL does, names the rows another server took
/// from this one (`bag-9`, never written by these frames) only in the
/// first reread after the fence: it forgets their epochs as it reports
/// them, and a later reread finds them only when asked for them by id.
struct Forgetting {
    seen: Arc<Mutex<Seen>>,
    told: bool,
}

impl Store for Forgetting {
    fn write(&mut self, rows: &FrameRows) -> Result<Written, StoreError> {
        all_but_the_second(&self.seen, rows)
    }

    fn reconnect(&mut self, seen: u64) -> Result<u64, DatabaseError> {
        Ok(seen)
    }

    fn reread(&mut self, ids: &[String]) -> Result<Reread, DatabaseError> {
        let mut asked = ids.to_vec();
        if !std::mem::replace(&mut self.told, true) {
            asked.push("bag-9".into());
        }
        self.seen.lock().expect("seen").rereads.push(ids.to_vec());
        let south = |id: &String| id == "bag-0" || id == "bag-9";
        let (theirs, ours): (Vec<String>, Vec<String>) = asked.into_iter().partition(south);
        Ok(Reread {
            others: theirs
                .into_iter()
                .map(|id| Lost {
                    id,
                    owner: Some(ServerId::new("south")),
                })
                .collect(),
            missing: ours,
            ..Reread::default()
        })
    }
}

#[test]
fn a_row_taken_away_is_in_every_reread_after_the_first_names_it() {
    let seen = Arc::new(Mutex::new(Seen::default()));
    let mut game = start(Start {
        store: Box::new(Forgetting {
            seen: seen.clone(),
            told: false,
        }),
        name: "forgetting".into(),
        frame: 0,
        queue: 2,
        scheduling: WriterScheduling::default(),
    });
    let rereads = |n: usize| {
        let asked = Instant::now();
        while seen.lock().expect("seen").rereads.len() < n {
            assert!(asked.elapsed() < Duration::from_secs(60), "no reread {n}");
            std::thread::sleep(Duration::from_millis(1));
        }
    };
    let mut first = frame(1, 0, true);
    first.names.push((1, "bag-1".into()));
    game.send(first);
    game.flush().expect("frame 1 written");
    // frame 2 is refused; its reread names bag-9, which south took
    game.send(frame(2, 0, false));
    rereads(1);
    // frame 3 comes before the game put anything back: reread again
    game.send(frame(3, 1, false));
    rereads(2);
    let asked = Instant::now();
    let reread = loop {
        if let Some(r) = game.take_reread() {
            break r;
        }
        assert!(asked.elapsed() < Duration::from_secs(60), "no reread");
        std::thread::sleep(Duration::from_millis(1));
    };
    let mut gone: Vec<&str> = reread.others.iter().map(|l| l.id.as_str()).collect();
    gone.sort_unstable();
    assert_eq!(
        gone,
        ["bag-0", "bag-9"],
        "the reread put back names every row south took, not only those of frames 2 and 3"
    );
    let asked_last = seen.lock().expect("seen").rereads.last().cloned();
    assert!(
        asked_last.is_some_and(|ids| ids.iter().any(|id| id == "bag-9")),
        "the last reread asks for bag-9 by id"
    );
}
