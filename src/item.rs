//! Item type ids: the one type every layer names items by.
//!
//! A leaf module: it depends on nothing else in the crate, so the rules, the
//! engine and the save format can all use it without depending on each
//! other. Its public path stays `bevy_container::contents::ItemType`.

use std::borrow::Borrow;
use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// An item type's id (kebab-case), cheap to clone.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ItemType(Arc<str>);

impl ItemType {
    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<&str> for ItemType {
    fn from(s: &str) -> ItemType {
        ItemType(Arc::from(s))
    }
}

impl From<String> for ItemType {
    fn from(s: String) -> ItemType {
        ItemType(Arc::from(s))
    }
}

impl Borrow<str> for ItemType {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ItemType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", &*self.0)
    }
}

impl fmt::Display for ItemType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
