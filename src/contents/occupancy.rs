//! Which slots hold a stack: a bitset with a summary of full words, so
//! finding the first free slot or the last occupied one costs a few word
//! operations, not a scan of slots (a 10,000-slot bank is 157 words and 3
//! summary words).

/// One bit per slot; set means occupied, in words of 64 slots. `full`
/// has one bit per word, set when that word has no free slot.
///
/// The first word of each is kept inside the bitset itself; the words
/// after them go to the heap, in one list (`more`: the words past the
/// first, then the summary words past the first, of which only a
/// container of more than 4,096 slots has any). A container of up to 64
/// slots (a backpack, a hotbar, a chest) thus reads and writes its
/// occupancy with no pointer to follow and no variant to tell apart:
/// saving a thousand changed backpacks in a frame
/// (`examples/perf`'s `persist-frame-vs-frame`) was mostly waiting for
/// words on the heap to come back from memory, and a two-variant list
/// cost a delivery or a take about 20 instructions of its 470
/// (`engine-vs-baseline-12`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Occupancy {
    /// Slots 0 to 63.
    first: u64,
    /// Whether each of the first 64 words is full.
    full_first: u64,
    /// Words `1..words()`, then summary words `1..fulls()`.
    more: Vec<u64>,
    len: u32,
    count: u32,
}

impl Occupancy {
    /// How many words the slots take.
    #[inline]
    fn words(&self) -> usize {
        (self.len as usize).div_ceil(64)
    }

    /// How many summary words the words take.
    #[inline]
    fn fulls(&self) -> usize {
        self.words().div_ceil(64)
    }

    /// Word `w` (below [`Self::words`]).
    #[inline(always)]
    fn word(&self, w: usize) -> u64 {
        if w == 0 {
            self.first
        } else {
            self.more.get(w - 1).copied().unwrap_or(0)
        }
    }

    /// Word `w`, to change (below [`Self::words`]: past it, `more` holds
    /// the summary words).
    #[inline(always)]
    fn word_mut(&mut self, w: usize) -> Option<&mut u64> {
        if w == 0 {
            Some(&mut self.first)
        } else {
            self.more.get_mut(w - 1)
        }
    }

    /// Where summary word `i` (at least 1) sits in `more`: after the
    /// words past the first.
    #[inline]
    fn full_at(&self, i: usize) -> usize {
        self.words().saturating_sub(1) + i - 1
    }

    /// Summary word `i` (below [`Self::fulls`]).
    #[inline(always)]
    fn full(&self, i: usize) -> u64 {
        if i == 0 {
            self.full_first
        } else {
            self.more.get(self.full_at(i)).copied().unwrap_or(0)
        }
    }

    /// Summary word `i`, to change (below [`Self::fulls`]).
    #[inline(always)]
    fn full_mut(&mut self, i: usize) -> Option<&mut u64> {
        if i == 0 {
            Some(&mut self.full_first)
        } else {
            let at = self.full_at(i);
            self.more.get_mut(at)
        }
    }

    /// Tracks `len` slots (new ones empty; cut ones must be empty). Growing
    /// costs nothing per slot already tracked, so a `no-limit` container
    /// growing one slot at a time stays linear.
    pub fn resize(&mut self, len: u32) {
        let old_words = self.words();
        let words = (len as usize).div_ceil(64);
        if len >= self.len {
            // new slots are free; a partial last word is never full
            let tail = self.more.split_off(old_words.saturating_sub(1));
            self.more.resize(words.saturating_sub(1), 0);
            self.more.extend(tail);
            self.more.resize(heap_len(words), 0);
            self.len = len;
            return;
        }
        self.more.truncate(words.saturating_sub(1));
        if words == 0 {
            self.first = 0;
        }
        self.len = len;
        if !len.is_multiple_of(64)
            && let Some(last) = self.word_mut(words - 1)
        {
            *last &= (1u64 << (len % 64)) - 1;
        }
        self.count = (0..words).map(|w| self.word(w).count_ones()).sum();
        self.full_first = 0;
        self.more.resize(heap_len(words), 0);
        for w in 0..words {
            if self.word(w) == u64::MAX
                && let Some(f) = self.full_mut(w / 64)
            {
                *f |= 1 << (w % 64);
            }
        }
    }

    /// Marks `slot` occupied (a slot past the tracked ones is not).
    #[inline]
    pub fn set(&mut self, slot: u32) {
        if slot >= self.len {
            return;
        }
        let (w, b) = (slot as usize / 64, slot % 64);
        let Some(word) = self.word_mut(w) else {
            return;
        };
        if *word & (1 << b) == 0 {
            *word |= 1 << b;
            let now_full = *word == u64::MAX;
            self.count += 1;
            if now_full && let Some(f) = self.full_mut(w / 64) {
                *f |= 1 << (w % 64);
            }
        }
    }

    /// Marks `slot` free.
    #[inline]
    pub fn clear(&mut self, slot: u32) {
        if slot >= self.len {
            return;
        }
        let (w, b) = (slot as usize / 64, slot % 64);
        if let Some(word) = self.word_mut(w)
            && *word & (1 << b) != 0
        {
            *word &= !(1 << b);
            self.count -= 1;
            if let Some(f) = self.full_mut(w / 64) {
                *f &= !(1 << (w % 64));
            }
        }
    }

    /// How many slots are occupied.
    pub fn count(&self) -> u32 {
        self.count
    }

    /// Occupied slots at or after `from`, ascending.
    pub fn occupied_from(&self, from: u32) -> impl Iterator<Item = u32> + '_ {
        self.occupied().skip_while(move |&s| s < from)
    }

    /// Whether no slot is occupied.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The last occupied slot.
    #[inline]
    pub fn last_occupied(&self) -> Option<u32> {
        (0..self.words())
            .rev()
            .map(|w| (w, self.word(w)))
            .find(|(_, word)| *word != 0)
            .map(|(w, word)| w as u32 * 64 + 63 - word.leading_zeros())
    }

    /// The first free slot at or after `from`, below `end` and the tracked
    /// length.
    #[inline(always)]
    pub fn next_free(&self, from: u32, end: u32) -> Option<u32> {
        let end = end.min(self.len);
        if from >= end {
            return None;
        }
        let (w, b) = (from as usize / 64, from % 64);
        let free = !self.word(w) & (u64::MAX << b);
        let found = if free != 0 {
            w as u32 * 64 + free.trailing_zeros()
        } else if self.more.is_empty() {
            // one word, and it is full past `from`: a full backpack
            return None;
        } else {
            let word = self.next_open_word(w + 1)?;
            word as u32 * 64 + (!self.word(word)).trailing_zeros()
        };
        (found < end).then_some(found)
    }

    /// The first word at or after `from` with a free slot.
    #[inline]
    fn next_open_word(&self, from: usize) -> Option<usize> {
        let mut i = from / 64;
        let mut mask = u64::MAX << (from % 64);
        let (words, fulls) = (self.words(), self.fulls());
        while i < fulls {
            let open = !self.full(i) & mask;
            if open != 0 {
                let word = i * 64 + open.trailing_zeros() as usize;
                return (word < words).then_some(word);
            }
            i += 1;
            mask = u64::MAX;
        }
        None
    }

    /// Free slots in ascending order, below `end`.
    #[inline]
    pub fn frees(&self, end: u32) -> impl Iterator<Item = u32> + '_ {
        let mut next = self.next_free(0, end);
        std::iter::from_fn(move || {
            let s = next?;
            next = self.next_free(s + 1, end);
            Some(s)
        })
    }

    /// Occupied slots in ascending order.
    #[inline]
    pub fn occupied(&self) -> Occupied<'_> {
        let words = self.words();
        Occupied {
            more: self.more.get(..words.saturating_sub(1)).unwrap_or(&[]),
            at: 0,
            word: if words > 0 { self.first } else { 0 },
        }
    }
}

/// How long [`Occupancy::more`] is for `words` words: the words past the
/// first, and the summary words past the first.
fn heap_len(words: usize) -> usize {
    words.saturating_sub(1) + words.div_ceil(64).saturating_sub(1)
}

/// The occupied slots of an [`Occupancy`], ascending: a word at a time,
/// its set bits lowest first. A plain loop rather than an adapter chain,
/// as saves and forced removals walk every occupied slot of many
/// containers.
pub(crate) struct Occupied<'a> {
    /// The words past the first.
    more: &'a [u64],
    /// The word being walked (0 is the first), and what is left of it.
    at: usize,
    word: u64,
}

impl Iterator for Occupied<'_> {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        while self.word == 0 {
            self.word = *self.more.get(self.at)?;
            self.at += 1;
        }
        let bit = self.word.trailing_zeros();
        self.word &= self.word - 1;
        Some(self.at as u32 * 64 + bit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_word_stays_inside_the_bitset() {
        // the occupancy of a container of up to 64 slots is read without
        // following a pointer, and costs no more room than two lists did
        assert!(std::mem::size_of::<Occupancy>() <= 2 * std::mem::size_of::<Vec<u64>>());
        let mut o = Occupancy::default();
        o.resize(64);
        assert_eq!(o.more.capacity(), 0, "64 slots: nothing on the heap");
        o.set(63);
        // growing past a word puts the next ones on the heap, keeping them
        o.resize(65);
        assert_eq!(o.more.len(), 1);
        assert_eq!(o.last_occupied(), Some(63));
        o.set(64);
        assert_eq!(o.occupied().collect::<Vec<_>>(), vec![63, 64]);
        o.clear(64);
        // and shrinking takes them off, the cut word gone
        o.resize(12);
        assert!(o.more.is_empty());
        assert_eq!(o.occupied().collect::<Vec<_>>(), Vec::<u32>::new());
        assert_eq!(o.count(), 0);
        o.set(3);
        o.resize(0);
        o.resize(5);
        assert_eq!(o.next_free(0, 5), Some(0), "a word that came back is empty");
        let empty = Occupancy {
            len: 5,
            ..Occupancy::default()
        };
        assert_eq!(o, empty);
        // a slot past the tracked ones is neither set nor cleared
        o.set(5);
        o.set(64);
        o.clear(64);
        assert_eq!(o, empty);
    }

    #[test]
    fn a_bank_past_4096_slots_keeps_its_summary_beside_its_words() {
        // 4,097 slots: 65 words, so a second summary word after the words
        let mut o = Occupancy::default();
        o.resize(4096);
        for s in 0..4096 {
            o.set(s);
        }
        assert_eq!(o.next_free(0, 4096), None);
        o.resize(4097 + 64);
        assert_eq!(o.next_free(0, 5000), Some(4096));
        for s in 4096..4097 + 64 {
            o.set(s);
        }
        assert_eq!(
            o.next_free(0, 5000),
            None,
            "every word full, both summaries say so"
        );
        // growing past the summary keeps it after the new words
        o.resize(9000);
        assert_eq!(o.next_free(0, 9000), Some(4161));
        assert_eq!(o.count(), 4161);
        o.clear(7);
        assert_eq!(o.next_free(0, 9000), Some(7));
        assert_eq!(
            o.occupied().take(8).collect::<Vec<_>>(),
            vec![0, 1, 2, 3, 4, 5, 6, 8]
        );
        assert_eq!(o.last_occupied(), Some(4160));
    }

    #[test]
    fn finds_free_and_occupied_slots() {
        let mut o = Occupancy::default();
        o.resize(130);
        for s in [0, 1, 63, 64, 129] {
            o.set(s);
        }
        assert_eq!(o.next_free(0, 130), Some(2));
        assert_eq!(o.next_free(63, 130), Some(65));
        assert_eq!(o.next_free(129, 130), None);
        assert_eq!(o.last_occupied(), Some(129));
        assert_eq!(o.occupied().collect::<Vec<_>>(), vec![0, 1, 63, 64, 129]);
        assert_eq!(o.frees(5).collect::<Vec<_>>(), vec![2, 3, 4]);
        o.clear(129);
        o.resize(100);
        assert_eq!(o.last_occupied(), Some(64));
        assert!(!o.is_empty());
        for s in [0, 1, 63, 64] {
            o.clear(s);
        }
        assert!(o.is_empty());
        assert_eq!(o.last_occupied(), None);
    }

    #[test]
    fn next_free_matches_a_plain_scan() {
        let mut o = Occupancy::default();
        let mut plain = vec![false; 5000];
        o.resize(5000);
        let mut x = 12345u64;
        for round in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // fill densely, so whole words and summary words fill up
            let s = (x % 5000) as u32;
            if round % 7 == 0 {
                o.clear(s);
                plain[s as usize] = false;
            } else {
                o.set(s);
                plain[s as usize] = true;
            }
            if round % 5000 == 4999 {
                // shrink and grow back: cut slots must be empty
                for k in 4000..5000 {
                    o.clear(k);
                    plain[k as usize] = false;
                }
                o.resize(4000 + (round % 3) as u32);
                o.resize(5000);
            }
            let from = ((x >> 20) % 5100) as u32;
            let end = ((x >> 40) % 5100) as u32;
            let want = (from..end.min(5000)).find(|&k| !plain[k as usize]);
            assert_eq!(o.next_free(from, end), want, "from {from} end {end}");
            if round % 997 == 0 {
                let held: Vec<u32> = (0..5000).filter(|&k| plain[k as usize]).collect();
                assert_eq!(o.occupied().collect::<Vec<_>>(), held);
                assert_eq!(o.last_occupied(), held.last().copied());
            }
        }
        assert_eq!(o.count() as usize, plain.iter().filter(|p| **p).count());
    }
}
