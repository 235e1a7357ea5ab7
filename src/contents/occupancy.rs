//! Which slots hold a stack: a bitset with a summary of full words, so
//! finding the first free slot or the last occupied one costs a few word
//! operations, not a scan of slots (a 10,000-slot bank is 157 words and 3
//! summary words).

/// One bit per slot; set means occupied. `full` has one bit per word of
/// `words`, set when that word has no free slot.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Occupancy {
    words: Words,
    full: Words,
    len: u32,
    count: u32,
}

/// A bitset's words: one word is kept inside the bitset itself, more go
/// to the heap. A container of up to 64 slots (a backpack, a hotbar, a
/// chest) thus reads its occupancy from the component, with no pointer
/// to follow: saving a thousand changed backpacks in a frame
/// (`examples/perf`'s `persist-frame-vs-frame`) was mostly waiting for
/// those words to come back from memory, as a frame that only changes a
/// stack's amount never touches them.
#[derive(Clone, Debug)]
enum Words {
    /// Exactly one word: its length is known without a load, so an
    /// access is one compare with zero.
    One([u64; 1]),
    /// No word, or two words or more.
    Many(Vec<u64>),
}

impl Default for Words {
    fn default() -> Words {
        Words::Many(Vec::new())
    }
}

impl PartialEq for Words {
    fn eq(&self, other: &Words) -> bool {
        **self == **other
    }
}

impl Eq for Words {}

impl std::ops::Deref for Words {
    type Target = [u64];

    #[inline]
    fn deref(&self) -> &[u64] {
        match self {
            Words::One(word) => word,
            Words::Many(v) => v,
        }
    }
}

impl std::ops::DerefMut for Words {
    #[inline]
    fn deref_mut(&mut self) -> &mut [u64] {
        match self {
            Words::One(word) => word,
            Words::Many(v) => v,
        }
    }
}

impl Words {
    /// `n` words, all zero.
    fn zeroed(n: usize) -> Words {
        Words::from_vec(vec![0; n])
    }

    /// Inside the bitset when there is exactly one word.
    fn from_vec(v: Vec<u64>) -> Words {
        match v.as_slice() {
            [word] => Words::One([*word]),
            _ => Words::Many(v),
        }
    }

    /// Keeps the first `n` words; new ones are zero.
    fn resize(&mut self, n: usize) {
        match self {
            Words::One(_) if n == 1 => {}
            Words::Many(v) if n != 1 => v.resize(n, 0),
            _ => {
                let mut v = self.to_vec();
                v.resize(n, 0);
                *self = Words::from_vec(v);
            }
        }
    }
}

impl Occupancy {
    /// Tracks `len` slots (new ones empty; cut ones must be empty). Growing
    /// costs nothing per slot already tracked, so a `no-limit` container
    /// growing one slot at a time stays linear.
    pub fn resize(&mut self, len: u32) {
        let words = (len as usize).div_ceil(64);
        if len >= self.len {
            // new slots are free; a partial last word is never full
            self.words.resize(words);
            self.full.resize(words.div_ceil(64));
            self.len = len;
            return;
        }
        self.words.resize(words);
        if let Some(last) = self.words.last_mut()
            && !len.is_multiple_of(64)
        {
            *last &= (1u64 << (len % 64)) - 1;
        }
        self.len = len;
        self.count = self.words.iter().map(|w| w.count_ones()).sum();
        self.full = Words::zeroed(words.div_ceil(64));
        for (i, w) in self.words.iter().enumerate() {
            if *w == u64::MAX {
                self.full[i / 64] |= 1 << (i % 64);
            }
        }
    }

    /// Marks `slot` occupied.
    #[inline]
    pub fn set(&mut self, slot: u32) {
        let (w, b) = (slot as usize / 64, slot % 64);
        if self.words[w] & (1 << b) == 0 {
            self.words[w] |= 1 << b;
            self.count += 1;
            if self.words[w] == u64::MAX {
                self.full[w / 64] |= 1 << (w % 64);
            }
        }
    }

    /// Marks `slot` free.
    #[inline]
    pub fn clear(&mut self, slot: u32) {
        let (w, b) = (slot as usize / 64, slot % 64);
        if let Some(word) = self.words.get_mut(w)
            && *word & (1 << b) != 0
        {
            *word &= !(1 << b);
            self.count -= 1;
            self.full[w / 64] &= !(1 << (w % 64));
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
        self.words
            .iter()
            .enumerate()
            .rev()
            .find(|(_, w)| **w != 0)
            .map(|(i, w)| i as u32 * 64 + 63 - w.leading_zeros())
    }

    /// The first free slot at or after `from`, below `end` and the tracked
    /// length.
    #[inline]
    pub fn next_free(&self, from: u32, end: u32) -> Option<u32> {
        let end = end.min(self.len);
        if from >= end {
            return None;
        }
        let (w, b) = (from as usize / 64, from % 64);
        let free = !self.words[w] & (u64::MAX << b);
        let found = if free != 0 {
            w as u32 * 64 + free.trailing_zeros()
        } else {
            let word = self.next_open_word(w + 1)?;
            word as u32 * 64 + (!self.words[word]).trailing_zeros()
        };
        (found < end).then_some(found)
    }

    /// The first word at or after `from` with a free slot.
    #[inline]
    fn next_open_word(&self, from: usize) -> Option<usize> {
        let mut i = from / 64;
        let mut mask = u64::MAX << (from % 64);
        while i < self.full.len() {
            let open = !self.full[i] & mask;
            if open != 0 {
                let word = i * 64 + open.trailing_zeros() as usize;
                return (word < self.words.len()).then_some(word);
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
        Occupied {
            words: &self.words,
            at: 0,
            word: self.words.first().copied().unwrap_or(0),
        }
    }
}

/// The occupied slots of an [`Occupancy`], ascending: a word at a time,
/// its set bits lowest first. A plain loop rather than an adapter chain,
/// as saves and forced removals walk every occupied slot of many
/// containers.
pub(crate) struct Occupied<'a> {
    words: &'a [u64],
    /// The word being walked, and what is left of it.
    at: usize,
    word: u64,
}

impl Iterator for Occupied<'_> {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        while self.word == 0 {
            self.at += 1;
            self.word = *self.words.get(self.at)?;
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
        // following a pointer, and costs no more room than a list did
        assert_eq!(
            std::mem::size_of::<Words>(),
            std::mem::size_of::<Vec<u64>>()
        );
        let mut o = Occupancy::default();
        o.resize(64);
        assert!(matches!(o.words, Words::One(_)));
        o.set(63);
        // growing past a word moves the words to the heap, keeping them
        o.resize(65);
        assert!(matches!(o.words, Words::Many(_)));
        assert_eq!(o.last_occupied(), Some(63));
        o.set(64);
        o.clear(64);
        // and shrinking brings them back, the cut word gone
        o.resize(12);
        assert!(matches!(o.words, Words::One(_)));
        assert_eq!(o.occupied().collect::<Vec<_>>(), Vec::<u32>::new());
        assert_eq!(o.count(), 0);
        o.set(3);
        o.resize(0);
        o.resize(5);
        assert_eq!(o.next_free(0, 5), Some(0), "a word that came back is empty");
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
        }
        assert_eq!(o.count() as usize, plain.iter().filter(|p| **p).count());
    }
}
