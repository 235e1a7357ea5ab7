//! The per-type slot index: for each type held, its slots in ascending
//! order, found by name once and then by a small number, so an operation
//! that reads a type's slots and later updates them hashes the name once.
//!
//! While every slot indexed is below [`NARROW`] (a backpack, a hotbar, a
//! chest), a type's slots are one bit set: a stack that begins or ends
//! sets or clears a bit, where a sorted list shifts its tail. The first
//! slot at or past [`NARROW`] turns every type's set into a sorted list
//! for good (until the index is cleared): a bank's 10,000 slots.

use super::ItemType;
use crate::item::same_text;
use std::hash::BuildHasher;

use bevy::platform::collections::HashTable;
use bevy::platform::hash::FixedHasher;

/// How many types the index keeps before it drops the entries of unlisted
/// types no longer held.
const KEEP_EMPTY_TYPES: usize = 64;

/// Up to this many types, a type is found by a scan of a short list rather
/// than by hashing its name: a backpack holds a handful of types, and
/// comparing a few lengths (and one pointer, for an interned id) costs
/// less than hashing the name and comparing it again.
const FEW: usize = 8;

/// Slots below this are kept as bits while no slot at or past it is indexed.
const NARROW: u32 = u64::BITS;

/// A type's slots, ascending: the bits of a narrow index or a wide one's
/// list.
#[derive(Clone, Debug)]
pub(crate) enum Slots<'a> {
    /// Slot `k` is in the set when bit `k` is.
    Bits(u64),
    /// The slots themselves, ascending.
    List(std::slice::Iter<'a, u32>),
}

impl Slots<'_> {
    /// No slots.
    pub(crate) const NONE: Slots<'static> = Slots::Bits(0);
}

impl Iterator for Slots<'_> {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        match self {
            Slots::Bits(0) => None,
            Slots::Bits(bits) => {
                let s = bits.trailing_zeros();
                *bits &= *bits - 1;
                Some(s)
            }
            Slots::List(list) => list.next().copied(),
        }
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = match self {
            Slots::Bits(bits) => bits.count_ones() as usize,
            Slots::List(list) => list.len(),
        };
        (n, Some(n))
    }
}

impl ExactSizeIterator for Slots<'_> {}

impl DoubleEndedIterator for Slots<'_> {
    #[inline]
    fn next_back(&mut self) -> Option<u32> {
        match self {
            Slots::Bits(0) => None,
            Slots::Bits(bits) => {
                let s = u64::BITS - 1 - bits.leading_zeros();
                *bits &= !(1 << s);
                Some(s)
            }
            Slots::List(list) => list.next_back().copied(),
        }
    }
}

/// Types to their slots.
#[derive(Clone, Debug, Default)]
pub(crate) struct TypeIndex {
    /// Each type and its number, hashed by the type's text and compared
    /// with [`same_text`] (a pointer, then a word or two, where a `str`
    /// comparison is a call to `memcmp`).
    ids: HashTable<(ItemType, u32)>,
    /// Per type number, its id. A type leaves `ids` only past
    /// [`KEEP_EMPTY_TYPES`] types, so while there are at most [`FEW`], the
    /// numbers in use are exactly `0..ids.len()` and this is all of them.
    keys: Vec<ItemType>,
    /// Per type number, the [`print`] of its id: among [`FEW`] types,
    /// [`TypeIndex::find`] compares one word per type and picks the match
    /// without a branch on which type is asked for.
    prints: Prints,
    /// Per type number, its slots as bits while the index is narrow
    /// (every slot indexed below [`NARROW`]); all zero once it is wide.
    bits: Vec<u64>,
    /// Per type number, its slots ascending once the index is wide; empty
    /// while it is narrow.
    lists: Vec<Vec<u32>>,
    /// Whether a slot at or past [`NARROW`] was indexed since the index
    /// was last cleared: the lists are in use, not the bits.
    wide: bool,
    /// Per type number, the position of the type's row in the rules (the
    /// index is cleared whenever the rules change).
    rows: Vec<Option<u32>>,
    /// List numbers of dropped types, for reuse.
    free: Vec<u32>,
    /// Per slot, the number of the type whose stack it holds; meaningless
    /// for an empty slot.
    by_slot: Vec<u32>,
}

impl TypeIndex {
    /// The type's number and shared id, if indexed.
    ///
    /// A container of one type answers by comparing that type's text: a
    /// branch the processor guesses right (whether a container holds one
    /// type seldom changes from one request to the next), so what follows
    /// the lookup (the type's slots, its stacks) runs ahead of the text.
    /// The select below makes all of that wait for the print's three
    /// loads: a take followed by a delivery between two chests of berries
    /// took 39.2 ns with the select alone, 32.6 with the branch before it
    /// (`examples/perf`'s `take-deliver-op`).
    #[inline(always)]
    pub(crate) fn find(&self, item: &str) -> Option<(u32, &ItemType)> {
        if let [only] = self.keys.as_slice()
            && self.ids.len() == 1
        {
            return same_text(only.as_str(), item).then_some((0, only));
        }
        if self.ids.len() <= FEW {
            debug_assert_eq!(self.keys.len(), self.ids.len(), "no number is free yet");
            // the last type whose print matches, chosen by a select, not
            // a branch: a scan that stops at the type asked for guesses
            // wrong where that is whenever the types come mixed (0.6 of
            // the 3.4 missed guesses a request of the backpack's day, in
            // callgrind's simulation of the branches)
            let print = print(item);
            let mut hit = usize::MAX;
            for (i, &p) in self.prints.0.iter().enumerate() {
                hit = if p == print { i } else { hit };
            }
            return match self.keys.get(hit) {
                Some(k) if same_text(k.as_str(), item) => Some((hit as u32, k)),
                // no print matches: no type has this text
                None => None,
                // two types share a print
                Some(_) => self.find_among_few(item),
            };
        }
        self.find_hashed(item)
    }

    /// [`Self::find`] among [`FEW`] types by comparing texts, for a print
    /// that two types share.
    #[cold]
    #[inline(never)]
    fn find_among_few(&self, item: &str) -> Option<(u32, &ItemType)> {
        self.keys
            .iter()
            .position(|k| same_text(k.as_str(), item))
            .map(|i| (i as u32, &self.keys[i]))
    }

    /// [`Self::find`] past [`FEW`] types.
    #[inline(never)]
    fn find_hashed(&self, item: &str) -> Option<(u32, &ItemType)> {
        self.ids
            .find(text_hash(item), |(k, _)| same_text(k.as_str(), item))
            .map(|(k, i)| (*i, k))
    }

    /// The slots of the type numbered `at`, ascending.
    #[inline]
    pub(crate) fn list(&self, at: u32) -> Slots<'_> {
        let at = at as usize;
        if self.wide {
            Slots::List(self.lists.get(at).map_or(&[][..], Vec::as_slice).iter())
        } else {
            Slots::Bits(self.bits.get(at).copied().unwrap_or(0))
        }
    }

    /// The position of the row of the type numbered `at`, as given when it
    /// was numbered.
    #[inline]
    pub(crate) fn row(&self, at: u32) -> Option<usize> {
        self.rows
            .get(at as usize)
            .copied()
            .flatten()
            .map(|r| r as usize)
    }

    /// The number of the type whose stack `slot` holds. Only meaningful
    /// when the slot holds a stack.
    #[inline]
    pub(crate) fn at_slot(&self, slot: u32) -> Option<u32> {
        self.by_slot.get(slot as usize).copied()
    }

    /// The slots of `item`, ascending (none when not indexed).
    pub(crate) fn slots(&self, item: &str) -> Slots<'_> {
        self.find(item).map_or(Slots::NONE, |(i, _)| self.list(i))
    }

    /// The type's number, indexing it (with no slots, and the row position
    /// `row` gives) when new.
    pub(crate) fn number(&mut self, item: &ItemType, row: impl FnOnce() -> Option<usize>) -> u32 {
        if let Some((i, _)) = self.find(item.as_str()) {
            return i;
        }
        let row = row().and_then(|r| u32::try_from(r).ok());
        let i = match self.free.pop() {
            Some(i) => {
                self.rows[i as usize] = row;
                self.keys[i as usize] = item.clone();
                self.prints.set(i as usize, item.as_str());
                i
            }
            None => {
                self.bits.push(0);
                self.lists.push(Vec::new());
                self.rows.push(row);
                self.keys.push(item.clone());
                self.prints.set(self.keys.len() - 1, item.as_str());
                (self.lists.len() - 1) as u32
            }
        };
        self.ids
            .insert_unique(text_hash(item.as_str()), (item.clone(), i), |(k, _)| {
                text_hash(k.as_str())
            });
        i
    }

    /// Adds `slot`, which now holds a stack, to the slots of the type
    /// numbered `at`. A slot of a narrow index already noted is two stores
    /// in the caller; the rest is [`TypeIndex::add_listed`]'s (the call
    /// and its frame were 17 of a backpack day's 445 instructions a
    /// request when every add was a call).
    #[inline(always)]
    pub(crate) fn add(&mut self, at: u32, slot: u32) {
        let s = slot as usize;
        if !self.wide
            && slot < NARROW
            && s < self.by_slot.len()
            && let Some(bits) = self.bits.get_mut(at as usize)
        {
            *bits |= 1 << slot;
            self.by_slot[s] = at;
            return;
        }
        self.add_listed(at, slot);
    }

    /// [`TypeIndex::add`]'s general case: a wide index, or a slot not yet
    /// noted.
    #[inline(never)]
    fn add_listed(&mut self, at: u32, slot: u32) {
        if !self.wide {
            if slot < NARROW {
                self.bits[at as usize] |= 1 << slot;
                self.note_slot(at, slot);
                return;
            }
            self.widen();
        }
        let list = &mut self.lists[at as usize];
        match list.last() {
            // the common case: a new stack comes after the type's others
            Some(&last) if last < slot => list.push(slot),
            None => list.push(slot),
            _ => {
                if let Err(i) = list.binary_search(&slot) {
                    list.insert(i, slot);
                }
            }
        }
        self.note_slot(at, slot);
    }

    /// Notes that `slot` holds a stack of the type numbered `at`.
    #[inline]
    fn note_slot(&mut self, at: u32, slot: u32) {
        let s = slot as usize;
        if s >= self.by_slot.len() {
            self.by_slot.resize(s + 1, u32::MAX);
        }
        self.by_slot[s] = at;
    }

    /// Turns every type's bits into its list: a slot at or past [`NARROW`]
    /// is being indexed.
    #[cold]
    fn widen(&mut self) {
        for (bits, list) in self.bits.iter_mut().zip(&mut self.lists) {
            list.clear();
            list.extend(Slots::Bits(*bits));
            *bits = 0;
        }
        self.wide = true;
    }

    /// Records that `item`'s stack moved from `from` to `to`.
    pub(crate) fn move_slot(&mut self, item: &str, from: u32, to: u32) {
        let Some((at, _)) = self.find(item) else {
            return;
        };
        if self.wide {
            let list = &mut self.lists[at as usize];
            if let Ok(i) = list.binary_search(&from) {
                list.remove(i);
            }
        } else if from < NARROW {
            self.bits[at as usize] &= !(1 << from);
        }
        self.add(at, to);
    }

    /// Takes the last `k` slots off `item`'s slots (all of them when it has
    /// fewer), keeping the type indexed; returns them, ascending.
    pub(crate) fn cut_last(&mut self, item: &str, k: usize) -> Vec<u32> {
        let Some((at, _)) = self.find(item) else {
            return Vec::new();
        };
        let at = at as usize;
        if self.wide {
            let list = &mut self.lists[at];
            list.split_off(list.len().saturating_sub(k))
        } else {
            let mut cut: Vec<u32> = Slots::Bits(self.bits[at]).rev().take(k).collect();
            cut.reverse();
            for &s in &cut {
                self.bits[at] &= !(1 << s);
            }
            cut
        }
    }

    /// Removes `slot`, just emptied, from the slots of the type numbered
    /// `at`: [`TypeIndex::unindex`] of one slot, whose common case (a
    /// narrow index, the type still held elsewhere) is a few
    /// instructions in the caller (the calls were 27 instructions of a
    /// take that empties its slot).
    #[inline(always)]
    pub(crate) fn unindex_one(&mut self, at: Option<u32>, item: &str, slot: u32) {
        if !self.wide
            && slot < NARROW
            && let Some(at) = at
            && let Some(bits) = self.bits.get_mut(at as usize)
        {
            *bits &= !(1 << slot);
            // the type's last stack: the general case decides whether it
            // keeps its entry (a look at its row here made a transfer,
            // whose source often empties a slot, 5 ns slower)
            if *bits != 0 {
                return;
            }
        }
        self.unindex(at, item, &[slot]);
    }

    /// Removes `emptied` (ascending) from the slots of the type numbered
    /// `at` (or named `item` when the number is not known). An emptied type
    /// keeps its entry, so it is not numbered again when it comes back:
    /// always when it has a row (the rules bound how many such types there
    /// are), else until the index holds [`KEEP_EMPTY_TYPES`] types.
    #[inline(never)]
    pub(crate) fn unindex(&mut self, at: Option<u32>, item: &str, emptied: &[u32]) {
        let Some(at) = at.or_else(|| self.find(item).map(|(i, _)| i)) else {
            return;
        };
        if !self.wide {
            if emptied.is_empty() {
                return;
            }
            let bits = &mut self.bits[at as usize];
            for &s in emptied {
                if s < NARROW {
                    *bits &= !(1 << s);
                }
            }
            let now_empty = *bits == 0;
            self.forget_if_done(at, item, now_empty);
            return;
        }
        let list = &mut self.lists[at as usize];
        match emptied {
            [] => return,
            [one] => {
                if let Ok(i) = list.binary_search(one) {
                    list.remove(i);
                }
            }
            // `emptied` ascending: a draw in the type's own order (first or
            // last in order) empties the front or the back of its list
            _ if list.starts_with(emptied) => {
                list.drain(..emptied.len());
            }
            _ if list.ends_with(emptied) => list.truncate(list.len() - emptied.len()),
            _ => list.retain(|s| emptied.binary_search(s).is_err()),
        }
        let now_empty = list.is_empty();
        self.forget_if_done(at, item, now_empty);
    }

    /// Drops the type numbered `at` (named `item`) when it has no slots
    /// left (`empty`), no row, and the index holds more than
    /// [`KEEP_EMPTY_TYPES`] types.
    #[inline]
    fn forget_if_done(&mut self, at: u32, item: &str, empty: bool) {
        if empty && self.rows[at as usize].is_none() && self.ids.len() > KEEP_EMPTY_TYPES {
            if let Ok(entry) = self
                .ids
                .find_entry(text_hash(item), |(k, _)| same_text(k.as_str(), item))
            {
                entry.remove();
            }
            self.free.push(at);
        }
    }

    /// Forgets every type.
    pub(crate) fn clear(&mut self) {
        self.ids.clear();
        self.keys.clear();
        self.prints = Prints::default();
        self.bits.clear();
        self.lists.clear();
        self.wide = false;
        self.rows.clear();
        self.free.clear();
        self.by_slot.clear();
    }
}

/// The hash of an id's text (Bevy's fixed-seed foldhash), the same for a
/// `&str` and an [`ItemType`] of that text.
#[inline]
fn text_hash(text: &str) -> u64 {
    FixedHasher.hash_one(text)
}

/// A word that two ids of the same text always share and two of different
/// texts seldom do: the length (up to 2^38, so the top bit stays clear) and
/// the first, middle and last bytes. Three loads and no branch on the text.
#[inline]
fn print(text: &str) -> u64 {
    let b = text.as_bytes();
    let n = b.len();
    let byte = |i: usize| u64::from(b.get(i).copied().unwrap_or(0));
    (n as u64).min(1 << 38) << 24 | byte(0) << 16 | byte(n / 2) << 8 | byte(n.wrapping_sub(1))
}

/// The [`print`]s of the first [`FEW`] type numbers, in place: a fixed
/// number of words the lookup compares all of, with no loop to count and
/// no pointer to follow. A number not in use has [`Prints::NONE`].
#[derive(Clone, Debug)]
struct Prints([u64; FEW]);

impl Prints {
    /// The print of no text: its top bit is set, and no [`print`]'s is.
    const NONE: u64 = u64::MAX;

    /// Notes the print of `text`, the id numbered `at` (past [`FEW`], a
    /// number the lookup finds by hashing, not by print).
    fn set(&mut self, at: usize, text: &str) {
        if let Some(p) = self.0.get_mut(at) {
            *p = print(text);
        }
    }
}

impl Default for Prints {
    fn default() -> Prints {
        Prints([Prints::NONE; FEW])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slots(s: Slots<'_>) -> Vec<u32> {
        s.collect()
    }

    #[test]
    fn dropped_types_free_their_numbers_and_come_back_with_their_own_slots() {
        let mut index = TypeIndex::default();
        let types: Vec<ItemType> = (0..200).map(|i| ItemType::from(format!("t-{i}"))).collect();
        for (i, t) in types.iter().enumerate() {
            let at = index.number(t, || None);
            index.add(at, i as u32);
            index.add(at, 1000 + i as u32);
        }
        // empty every type: past KEEP_EMPTY_TYPES they leave the index
        for (i, t) in types.iter().enumerate() {
            index.unindex(None, t.as_str(), &[1000 + i as u32]);
            index.unindex(None, t.as_str(), &[i as u32]);
        }
        assert_eq!(index.ids.len(), KEEP_EMPTY_TYPES);
        assert_eq!(index.free.len(), 200 - KEEP_EMPTY_TYPES);
        // back in reverse order: reused numbers start empty
        for (i, t) in types.iter().enumerate().rev() {
            let at = index.number(t, || Some(i));
            assert_eq!(index.list(at).len(), 0, "{t:?} reuses a clean list");
            index.add(at, 5000 + i as u32);
            assert_eq!(index.at_slot(5000 + i as u32), Some(at));
        }
        assert!(index.free.is_empty());
        for (i, t) in types.iter().enumerate() {
            assert_eq!(slots(index.slots(t.as_str())), &[5000 + i as u32]);
        }
        // several emptied at once
        let at = index.number(&types[3], || None);
        index.add(at, 6001);
        index.add(at, 6000);
        assert_eq!(slots(index.slots("t-3")), &[5003, 6000, 6001]);
        index.unindex(Some(at), "t-3", &[5003, 6001]);
        assert_eq!(slots(index.slots("t-3")), &[6000]);
        index.move_slot("t-3", 6000, 7);
        assert_eq!(slots(index.slots("t-3")), &[7]);
        assert_eq!(index.at_slot(7), Some(at));
    }

    #[test]
    fn few_types_and_many_are_found_alike() {
        let mut index = TypeIndex::default();
        let types: Vec<ItemType> = (0..20).map(|i| ItemType::from(format!("k-{i}"))).collect();
        for (i, t) in types.iter().enumerate() {
            let at = index.number(t, || None);
            index.add(at, i as u32);
            // every type numbered so far is found, by its own text or a copy
            for (j, u) in types[..=i].iter().enumerate() {
                let copy = u.as_str().to_string();
                assert_eq!(index.find(&copy).map(|(n, _)| n), Some(j as u32));
                assert_eq!(slots(index.slots(u.as_str())), &[j as u32]);
            }
            assert!(index.find("k-99").is_none());
        }
        index.clear();
        assert!(index.find("k-0").is_none());
        let at = index.number(&types[5], || None);
        assert_eq!(index.find("k-5").map(|(n, _)| n), Some(at));
    }

    #[test]
    fn types_that_share_a_print_are_told_apart() {
        // the same length, first, middle and last bytes
        assert_eq!(print("abcde"), print("axcde"));
        for order in [["abcde", "axcde"], ["axcde", "abcde"]] {
            let mut index = TypeIndex::default();
            let numbers: Vec<u32> = order
                .iter()
                .map(|t| index.number(&ItemType::from(*t), || None))
                .collect();
            for (t, n) in order.iter().zip(&numbers) {
                let copy = t.to_string();
                assert_eq!(
                    index.find(&copy).map(|(i, k)| (i, k.as_str())),
                    Some((*n, *t))
                );
            }
            // a third text with that print is not indexed
            assert!(index.find("aycde").is_none());
            assert!(index.find("abcdf").is_none());
        }
        // a lone type is told apart from a text with its print too
        let mut index = TypeIndex::default();
        let at = index.number(&ItemType::from("abcde"), || None);
        assert_eq!(index.find("abcde").map(|(i, _)| i), Some(at));
        assert!(index.find("axcde").is_none());
    }

    /// A type number not in use matches no text, not even the empty one
    /// (whose print is zero), and a cleared index finds nothing.
    #[test]
    fn numbers_not_in_use_match_no_text() {
        let mut index = TypeIndex::default();
        assert!(index.find("").is_none());
        for t in ["", "axe"] {
            index.number(&ItemType::from(t), || None);
        }
        assert_eq!(index.find("").map(|(i, k)| (i, k.as_str())), Some((0, "")));
        assert_eq!(index.find("axe").map(|(i, _)| i), Some(1));
        assert!(index.find("bow").is_none());
        index.clear();
        assert!(index.find("").is_none() && index.find("axe").is_none());
    }

    #[test]
    fn emptied_slots_leave_from_the_front_the_back_or_between() {
        for wide in [false, true] {
            emptied_slots_leave(wide);
        }
    }

    fn emptied_slots_leave(wide: bool) {
        let mut index = TypeIndex::default();
        let at = index.number(&ItemType::from("gem"), || Some(0));
        if wide {
            // a bank's slot: the index keeps lists
            let ore = index.number(&ItemType::from("ore"), || Some(1));
            index.add(ore, 9_999);
        }
        for s in [1, 3, 5, 7, 9, 11, 13] {
            index.add(at, s);
        }
        assert_eq!(index.wide, wide);
        index.unindex(Some(at), "gem", &[1, 3]);
        assert_eq!(slots(index.list(at)), &[5, 7, 9, 11, 13]);
        index.unindex(Some(at), "gem", &[11, 13]);
        assert_eq!(slots(index.list(at)), &[5, 7, 9]);
        index.unindex(Some(at), "gem", &[5, 9]);
        assert_eq!(slots(index.list(at)), &[7]);
        index.unindex(Some(at), "gem", &[4, 7]);
        assert_eq!(index.list(at).len(), 0);
    }

    #[test]
    fn types_with_a_row_stay_indexed_when_emptied() {
        let mut index = TypeIndex::default();
        let types: Vec<ItemType> = (0..200).map(|i| ItemType::from(format!("t-{i}"))).collect();
        // even types have a row, odd ones are unlisted
        for (i, t) in types.iter().enumerate() {
            let at = index.number(t, || (i % 2 == 0).then_some(i));
            assert_eq!(index.row(at), (i % 2 == 0).then_some(i));
            index.add(at, i as u32);
        }
        for (i, t) in types.iter().enumerate() {
            index.unindex(None, t.as_str(), &[i as u32]);
        }
        let kept: Vec<usize> = (0..200)
            .filter(|&i| index.find(&format!("t-{i}")).is_some())
            .collect();
        assert!(
            (0..200).step_by(2).all(|i| kept.contains(&i)),
            "every listed type stays"
        );
        assert_eq!(
            index.ids.len(),
            100.max(KEEP_EMPTY_TYPES),
            "unlisted ones leave past the bound"
        );
    }

    #[test]
    fn a_narrow_index_keeps_bits_until_a_slot_past_them_and_then_lists() {
        let mut index = TypeIndex::default();
        let gem = index.number(&ItemType::from("gem"), || Some(0));
        let ore = index.number(&ItemType::from("ore"), || Some(1));
        // out of order, as deliveries into freed slots come
        for s in [9, 2, 63, 0, 40] {
            index.add(gem, s);
        }
        index.add(ore, 5);
        assert!(!index.wide);
        assert_eq!(slots(index.list(gem)), &[0, 2, 9, 40, 63]);
        assert_eq!(index.list(gem).len(), 5);
        assert_eq!(
            index.list(gem).rev().collect::<Vec<_>>(),
            &[63, 40, 9, 2, 0]
        );
        index.unindex(Some(gem), "gem", &[2, 40]);
        index.move_slot("gem", 63, 7);
        assert_eq!(slots(index.slots("gem")), &[0, 7, 9]);
        assert_eq!(index.at_slot(7), Some(gem));
        assert_eq!(index.cut_last("gem", 2), &[7, 9]);
        assert_eq!(slots(index.slots("gem")), &[0]);
        // the first slot past the bits: every type's slots become a list
        index.add(gem, 64);
        assert!(index.wide);
        assert_eq!(slots(index.slots("gem")), &[0, 64]);
        assert_eq!(slots(index.slots("ore")), &[5]);
        index.add(ore, 3);
        index.move_slot("ore", 5, 100);
        assert_eq!(slots(index.slots("ore")), &[3, 100]);
        assert_eq!(index.cut_last("ore", 5), &[3, 100]);
        assert_eq!(index.list(ore).len(), 0);
        // cleared, it starts narrow again
        index.clear();
        let gem = index.number(&ItemType::from("gem"), || Some(0));
        index.add(gem, 1);
        assert!(!index.wide);
        assert_eq!(slots(index.list(gem)), &[1]);
    }

    #[test]
    fn bits_and_lists_agree_over_random_changes() {
        use crate::splitmix::below;
        let types: Vec<ItemType> = (0..5).map(|i| ItemType::from(format!("b-{i}"))).collect();
        for seed in 0..40u64 {
            let mut rng = seed;
            let (mut narrow, mut wide) = (TypeIndex::default(), TypeIndex::default());
            let far = wide.number(&ItemType::from("far"), || Some(99));
            wide.add(far, 500);
            // which type holds each of 64 slots, as the engine keeps it
            let mut held: Vec<Option<usize>> = vec![None; 64];
            for step in 0..300 {
                let slot = below(&mut rng, 64) as u32;
                let t = below(&mut rng, types.len() as u64) as usize;
                let name = types[t].as_str();
                match (below(&mut rng, 4), held[slot as usize]) {
                    (0 | 1, None) => {
                        for index in [&mut narrow, &mut wide] {
                            let at = index.number(&types[t], || t.is_multiple_of(2).then_some(t));
                            index.add(at, slot);
                        }
                        held[slot as usize] = Some(t);
                    }
                    (2, Some(h)) => {
                        let emptied: Vec<u32> = (slot..64)
                            .filter(|&s| held[s as usize] == Some(h))
                            .take(1 + below(&mut rng, 3) as usize)
                            .collect();
                        // a take's one emptied slot goes the short way,
                        // its type's number known or not
                        let one = below(&mut rng, 3);
                        for index in [&mut narrow, &mut wide] {
                            let name = types[h].as_str();
                            match (one, emptied.as_slice()) {
                                (0, &[s]) => index.unindex_one(None, name, s),
                                (1, &[s]) => {
                                    let at = index.find(name).map(|(i, _)| i);
                                    index.unindex_one(at, name, s)
                                }
                                _ => index.unindex(None, name, &emptied),
                            }
                        }
                        emptied.iter().for_each(|&s| held[s as usize] = None);
                    }
                    (3, Some(h)) => {
                        if let Some(to) = (0..64u32).find(|&s| held[s as usize].is_none()) {
                            for index in [&mut narrow, &mut wide] {
                                index.move_slot(types[h].as_str(), slot, to);
                            }
                            held[to as usize] = held[slot as usize].take();
                        }
                    }
                    (_, Some(_)) if step % 37 == 0 => {
                        let k = below(&mut rng, 3) as usize;
                        let cut = narrow.cut_last(name, k);
                        assert_eq!(cut, wide.cut_last(name, k), "seed {seed} step {step}");
                        cut.iter().for_each(|&s| held[s as usize] = None);
                    }
                    _ => {}
                }
                assert!(!narrow.wide && wide.wide);
                for (t, ty) in types.iter().enumerate() {
                    let expect: Vec<u32> = (0..64u32)
                        .filter(|&s| held[s as usize] == Some(t))
                        .collect();
                    assert_eq!(
                        slots(narrow.slots(ty.as_str())),
                        expect,
                        "seed {seed} step {step}"
                    );
                    assert_eq!(
                        slots(wide.slots(ty.as_str())),
                        expect,
                        "seed {seed} step {step}"
                    );
                    for &s in &expect {
                        assert_eq!(narrow.at_slot(s), narrow.find(ty.as_str()).map(|f| f.0));
                    }
                }
            }
        }
    }

    #[test]
    fn a_narrow_index_forgets_and_reuses_numbers_as_a_wide_one_does() {
        // unlisted types passing through a 10-slot backpack, one at a time
        let mut index = TypeIndex::default();
        let types: Vec<ItemType> = (0..200).map(|i| ItemType::from(format!("p-{i}"))).collect();
        for (i, t) in types.iter().enumerate() {
            let at = index.number(t, || None);
            let (a, b) = ((i % 10) as u32, (i % 10) as u32 + 10);
            index.add(at, a);
            index.add(at, b);
            assert_eq!(slots(index.list(at)), &[a, b]);
            index.unindex(Some(at), t.as_str(), &[a, b]);
        }
        assert!(!index.wide);
        assert_eq!(index.ids.len(), KEEP_EMPTY_TYPES);
        // the numbers of the types forgotten are reused, and start empty
        assert_eq!(index.keys.len(), KEEP_EMPTY_TYPES + 1);
        for (i, t) in types.iter().enumerate().take(50) {
            let at = index.number(t, || None);
            assert_eq!(index.list(at).len(), 0, "{t:?} reuses a clean set");
            index.add(at, i as u32);
            assert_eq!(index.at_slot(i as u32), Some(at));
        }
        for (i, t) in types.iter().enumerate().take(50) {
            assert_eq!(slots(index.slots(t.as_str())), &[i as u32]);
        }
        assert!(!index.wide);
    }
}
