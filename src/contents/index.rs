//! The per-type slot index: for each type held, its slots in ascending
//! order, found by name once and then by a small number, so an operation
//! that reads a type's slots and later updates them hashes the name once.

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

/// Types to their slot lists.
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
    lists: Vec<Vec<u32>>,
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
    #[inline]
    pub(crate) fn find(&self, item: &str) -> Option<(u32, &ItemType)> {
        if self.ids.len() <= FEW {
            debug_assert_eq!(self.keys.len(), self.ids.len(), "no number is free yet");
            return self
                .keys
                .iter()
                .position(|k| same_text(k.as_str(), item))
                .map(|i| (i as u32, &self.keys[i]));
        }
        self.find_hashed(item)
    }

    /// [`Self::find`] past [`FEW`] types.
    #[inline(never)]
    fn find_hashed(&self, item: &str) -> Option<(u32, &ItemType)> {
        self.ids
            .find(text_hash(item), |(k, _)| same_text(k.as_str(), item))
            .map(|(k, i)| (*i, k))
    }

    /// The slots of the type numbered `at`.
    #[inline]
    pub(crate) fn list(&self, at: u32) -> &[u32] {
        self.lists.get(at as usize).map_or(&[], Vec::as_slice)
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

    /// The slots of `item` (empty when not indexed).
    pub(crate) fn slots(&self, item: &str) -> &[u32] {
        self.find(item).map_or(&[], |(i, _)| self.list(i))
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
                i
            }
            None => {
                self.lists.push(Vec::new());
                self.rows.push(row);
                self.keys.push(item.clone());
                (self.lists.len() - 1) as u32
            }
        };
        self.ids
            .insert_unique(text_hash(item.as_str()), (item.clone(), i), |(k, _)| {
                text_hash(k.as_str())
            });
        i
    }

    /// Adds `slot`, which now holds a stack, to the list of the type
    /// numbered `at`.
    #[inline]
    pub(crate) fn add(&mut self, at: u32, slot: u32) {
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
        let s = slot as usize;
        if s >= self.by_slot.len() {
            self.by_slot.resize(s + 1, u32::MAX);
        }
        self.by_slot[s] = at;
    }

    /// Records that `item`'s stack moved from `from` to `to`.
    pub(crate) fn move_slot(&mut self, item: &str, from: u32, to: u32) {
        let Some((at, _)) = self.find(item) else {
            return;
        };
        let list = &mut self.lists[at as usize];
        if let Ok(i) = list.binary_search(&from) {
            list.remove(i);
        }
        self.add(at, to);
    }

    /// The slot list of `item`, to remove slots from, if indexed.
    pub(crate) fn slots_mut(&mut self, item: &str) -> Option<&mut Vec<u32>> {
        let (i, _) = self.find(item)?;
        Some(&mut self.lists[i as usize])
    }

    /// Removes `emptied` (ascending) from the list of the type numbered
    /// `at` (or named `item` when the number is not known). An emptied type
    /// keeps its entry, so it is not numbered again when it comes back:
    /// always when it has a row (the rules bound how many such types there
    /// are), else until the index holds [`KEEP_EMPTY_TYPES`] types.
    #[inline]
    pub(crate) fn unindex(&mut self, at: Option<u32>, item: &str, emptied: &[u32]) {
        let Some(at) = at.or_else(|| self.find(item).map(|(i, _)| i)) else {
            return;
        };
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
        if list.is_empty() && self.rows[at as usize].is_none() && self.ids.len() > KEEP_EMPTY_TYPES
        {
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
        self.lists.clear();
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

#[cfg(test)]
mod tests {
    use super::*;

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
            assert!(index.list(at).is_empty(), "{t:?} reuses a clean list");
            index.add(at, 5000 + i as u32);
            assert_eq!(index.at_slot(5000 + i as u32), Some(at));
        }
        assert!(index.free.is_empty());
        for (i, t) in types.iter().enumerate() {
            assert_eq!(index.slots(t.as_str()), &[5000 + i as u32]);
        }
        // several emptied at once
        let at = index.number(&types[3], || None);
        index.add(at, 6001);
        index.add(at, 6000);
        assert_eq!(index.slots("t-3"), &[5003, 6000, 6001]);
        index.unindex(Some(at), "t-3", &[5003, 6001]);
        assert_eq!(index.slots("t-3"), &[6000]);
        index.move_slot("t-3", 6000, 7);
        assert_eq!(index.slots("t-3"), &[7]);
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
                assert_eq!(index.slots(u.as_str()), &[j as u32]);
            }
            assert!(index.find("k-99").is_none());
        }
        index.clear();
        assert!(index.find("k-0").is_none());
        let at = index.number(&types[5], || None);
        assert_eq!(index.find("k-5").map(|(n, _)| n), Some(at));
    }

    #[test]
    fn emptied_slots_leave_from_the_front_the_back_or_between() {
        let mut index = TypeIndex::default();
        let at = index.number(&ItemType::from("gem"), || Some(0));
        for s in [1, 3, 5, 7, 9, 11, 13] {
            index.add(at, s);
        }
        index.unindex(Some(at), "gem", &[1, 3]);
        assert_eq!(index.list(at), &[5, 7, 9, 11, 13]);
        index.unindex(Some(at), "gem", &[11, 13]);
        assert_eq!(index.list(at), &[5, 7, 9]);
        index.unindex(Some(at), "gem", &[5, 9]);
        assert_eq!(index.list(at), &[7]);
        index.unindex(Some(at), "gem", &[4, 7]);
        assert!(index.list(at).is_empty());
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
}
