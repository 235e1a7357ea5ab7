//! The per-type slot index: for each type held, its slots in ascending
//! order, found by name once and then by a small number, so an operation
//! that reads a type's slots and later updates them hashes the name once.

use super::ItemType;
use crate::hash::FxHashMap;

/// How many types the index keeps before it drops the entries of types no
/// longer held.
const KEEP_EMPTY_TYPES: usize = 64;

/// Types to their slot lists.
#[derive(Clone, Debug, Default)]
pub(crate) struct TypeIndex {
    ids: FxHashMap<ItemType, u32>,
    lists: Vec<Vec<u32>>,
    /// List numbers of dropped types, for reuse.
    free: Vec<u32>,
}

impl TypeIndex {
    /// The type's number and shared id, if indexed.
    pub(crate) fn find(&self, item: &str) -> Option<(u32, &ItemType)> {
        self.ids.get_key_value(item).map(|(k, &i)| (i, k))
    }

    /// The slots of the type numbered `at`.
    pub(crate) fn list(&self, at: u32) -> &[u32] {
        self.lists.get(at as usize).map_or(&[], Vec::as_slice)
    }

    /// The slots of `item` (empty when not indexed).
    pub(crate) fn slots(&self, item: &str) -> &[u32] {
        self.ids.get(item).map_or(&[], |&i| self.list(i))
    }

    /// The type's number, indexing it (with no slots) when new.
    pub(crate) fn number(&mut self, item: &ItemType) -> u32 {
        if let Some(&i) = self.ids.get(item.as_str()) {
            return i;
        }
        let i = match self.free.pop() {
            Some(i) => i,
            None => {
                self.lists.push(Vec::new());
                (self.lists.len() - 1) as u32
            }
        };
        self.ids.insert(item.clone(), i);
        i
    }

    /// The slot list of the type numbered `at`, to change.
    pub(crate) fn list_mut(&mut self, at: u32) -> &mut Vec<u32> {
        &mut self.lists[at as usize]
    }

    /// The slot list of `item`, to change, if indexed.
    pub(crate) fn slots_mut(&mut self, item: &str) -> Option<&mut Vec<u32>> {
        let i = *self.ids.get(item)?;
        Some(&mut self.lists[i as usize])
    }

    /// Removes `emptied` from the list of the type numbered `at` (or named
    /// `item` when the number is not known). An emptied type keeps its
    /// entry, so its id is not allocated again when it comes back, until
    /// the index holds [`KEEP_EMPTY_TYPES`] types.
    pub(crate) fn unindex(&mut self, at: Option<u32>, item: &str, emptied: &[u32]) {
        let Some(at) = at.or_else(|| self.ids.get(item).copied()) else {
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
            _ => list.retain(|s| !emptied.contains(s)),
        }
        if list.is_empty() && self.ids.len() > KEEP_EMPTY_TYPES {
            self.ids.remove(item);
            self.free.push(at);
        }
    }

    /// Forgets every type.
    pub(crate) fn clear(&mut self) {
        self.ids.clear();
        self.lists.clear();
        self.free.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dropped_types_free_their_numbers_and_come_back_with_their_own_slots() {
        let mut index = TypeIndex::default();
        let types: Vec<ItemType> = (0..200).map(|i| ItemType::from(format!("t-{i}"))).collect();
        for (i, t) in types.iter().enumerate() {
            let at = index.number(t);
            index.list_mut(at).extend([i as u32, 1000 + i as u32]);
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
            let at = index.number(t);
            assert!(index.list(at).is_empty(), "{t:?} reuses a clean list");
            index.list_mut(at).push(5000 + i as u32);
        }
        assert!(index.free.is_empty());
        for (i, t) in types.iter().enumerate() {
            assert_eq!(index.slots(t.as_str()), &[5000 + i as u32]);
        }
        // several emptied at once
        let at = index.number(&types[3]);
        index.list_mut(at).extend([6000, 6001]);
        index.unindex(Some(at), "t-3", &[5003, 6001]);
        assert_eq!(index.slots("t-3"), &[6000]);
    }
}
