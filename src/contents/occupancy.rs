//! Which slots hold a stack: a bitset, so finding the first free slot or the
//! last occupied one costs a few word operations, not a scan of slots.

/// One bit per slot; set means occupied.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Occupancy {
    words: Vec<u64>,
    len: u32,
    count: u32,
}

impl Occupancy {
    /// Tracks `len` slots (new ones empty; cut ones must be empty).
    pub fn resize(&mut self, len: u32) {
        self.words.resize((len as usize).div_ceil(64), 0);
        if len < self.len
            && let Some(last) = self.words.last_mut()
            && !len.is_multiple_of(64)
        {
            *last &= (1u64 << (len % 64)) - 1;
        }
        self.len = len;
        self.count = self.words.iter().map(|w| w.count_ones()).sum();
    }

    /// Marks `slot` occupied.
    pub fn set(&mut self, slot: u32) {
        let (w, b) = (slot as usize / 64, slot % 64);
        if self.words[w] & (1 << b) == 0 {
            self.words[w] |= 1 << b;
            self.count += 1;
        }
    }

    /// Marks `slot` free.
    pub fn clear(&mut self, slot: u32) {
        let (w, b) = (slot as usize / 64, slot % 64);
        if let Some(word) = self.words.get_mut(w)
            && *word & (1 << b) != 0
        {
            *word &= !(1 << b);
            self.count -= 1;
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
    pub fn next_free(&self, from: u32, end: u32) -> Option<u32> {
        let end = end.min(self.len);
        let mut s = from;
        while s < end {
            let (w, b) = (s as usize / 64, s % 64);
            let free = !self.words[w] & (u64::MAX << b);
            if free != 0 {
                let found = w as u32 * 64 + free.trailing_zeros();
                return (found < end).then_some(found);
            }
            s = (w as u32 + 1) * 64;
        }
        None
    }

    /// Free slots in ascending order, below `end`.
    pub fn frees(&self, end: u32) -> impl Iterator<Item = u32> + '_ {
        let mut next = self.next_free(0, end);
        std::iter::from_fn(move || {
            let s = next?;
            next = self.next_free(s + 1, end);
            Some(s)
        })
    }

    /// Occupied slots in ascending order.
    pub fn occupied(&self) -> impl Iterator<Item = u32> + '_ {
        self.words.iter().enumerate().flat_map(|(i, &w)| {
            let mut w = w;
            std::iter::from_fn(move || {
                (w != 0).then(|| {
                    let b = w.trailing_zeros();
                    w &= w - 1;
                    i as u32 * 64 + b
                })
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
