//! The game's frame cadence as the writer sees it: when frames are handed
//! over, so the writer looks for the next one just after it comes, between
//! the game's frames, not in the middle of one.
//!
//! The writer naps while frames keep coming (see `writer`'s `NAP`), so a
//! hand-over does not have to wake it. Looks at a fixed interval after the
//! writer finished land wherever the game happens to be, and a look takes
//! a core from the game's systems for a moment: in `examples/perf` on the
//! two-core machine, the SQLite writer's second look after a flush landed
//! inside the next persisted frame in most rounds. The first look after a
//! write is therefore due just after the next hand-over is expected (the
//! last one plus the usual time between them), when the game has just
//! ended a frame; a frame handed over at the usual pace is also written
//! sooner than a nap would take it.

use std::time::{Duration, Instant};

/// How long after an expected hand-over the writer looks: room for a frame
/// that ends a little late.
pub(crate) const AFTER_HAND_OVER: Duration = Duration::from_micros(500);

/// The longest time between hand-overs the writer waits for in one nap; a
/// slower game (or a pause) gets the writer's usual naps.
pub(crate) const LONGEST_CADENCE: Duration = Duration::from_millis(50);

/// When frames were handed over: the last time, and the usual time between
/// two (a running mean that weighs the newest gap by a quarter).
#[derive(Default, Debug, Clone, Copy)]
pub(crate) struct Cadence {
    last: Option<Instant>,
    gap: Option<Duration>,
}

impl Cadence {
    /// Notes a hand-over at `now`.
    pub(crate) fn handed(&mut self, now: Instant) {
        if let Some(last) = self.last {
            let gap = now.saturating_duration_since(last);
            self.gap = Some(match self.gap {
                Some(usual) => (usual * 3 + gap) / 4,
                None => gap,
            });
        }
        self.last = Some(now);
    }

    /// How long the writer, looking at an empty queue at `now`, waits for
    /// its next look: until just after the next hand-over is expected, or
    /// `nap` when none is (no cadence yet, frames closer together than a
    /// nap or further apart than [`LONGEST_CADENCE`], or the expected time
    /// has passed).
    pub(crate) fn next_look(&self, now: Instant, nap: Duration) -> Duration {
        let (Some(last), Some(gap)) = (self.last, self.gap) else {
            return nap;
        };
        // a fast game: a nap takes several frames a look; a slow one (or
        // a pause) is not waited for in one nap
        if gap < nap || gap > LONGEST_CADENCE {
            return nap;
        }
        let due = last + gap + AFTER_HAND_OVER;
        match due.saturating_duration_since(now) {
            Duration::ZERO => nap,
            wait => wait,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAP: Duration = Duration::from_millis(5);

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn the_look_is_due_just_after_the_next_hand_over() {
        let start = Instant::now();
        let mut c = Cadence::default();
        // no cadence yet: the usual nap
        assert_eq!(c.next_look(start, NAP), NAP);
        c.handed(start);
        assert_eq!(c.next_look(start + ms(3), NAP), NAP);
        // a frame every 16 ms, the writer done 4 ms after the last
        c.handed(start + ms(16));
        c.handed(start + ms(32));
        let wait = c.next_look(start + ms(36), NAP);
        assert_eq!(wait, ms(12) + AFTER_HAND_OVER);
        assert!(wait > NAP, "not a nap into the next frame");
    }

    #[test]
    fn a_late_frame_a_slow_game_and_a_changing_pace_fall_back_or_adapt() {
        let start = Instant::now();
        let mut c = Cadence::default();
        c.handed(start);
        c.handed(start + ms(10));
        // the expected hand-over has passed: the usual nap
        assert_eq!(c.next_look(start + ms(21), NAP), NAP);
        // the pace slows to 30 ms: the usual gap moves a quarter of the way
        c.handed(start + ms(40));
        assert_eq!(c.gap, Some(ms(15)));
        // a game slower than LONGEST_CADENCE, or faster than a nap: naps
        let mut slow = Cadence::default();
        slow.handed(start);
        slow.handed(start + ms(200));
        assert_eq!(slow.next_look(start + ms(201), NAP), NAP);
        let mut fast = Cadence::default();
        fast.handed(start);
        fast.handed(start + ms(2));
        assert_eq!(fast.next_look(start + ms(3), NAP), NAP);
    }
}
