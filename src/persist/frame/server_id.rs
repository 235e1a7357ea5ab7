//! Who a server is, and a row it lost: the names the frame's rows and
//! the stores use.

use bevy::prelude::*;

/// A game server's name on a shared database, given by the game and the
/// same on every run of that server (`zone-north`, `instance-17`). Every
/// persisted container and pickup is owned by one server; a server loads
/// only what it owns. At most 64 bytes.
///
/// ```
/// use bevy_container::persist::ServerId;
/// let zone = ServerId::new("zone-north");
/// assert_eq!(zone.as_str(), "zone-north");
/// assert_eq!(ServerId::default().as_str(), "main");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Reflect)]
pub struct ServerId(String);

impl ServerId {
    /// The longest server id, in bytes.
    pub const LONGEST: usize = 64;

    /// The server `id`.
    pub fn new(id: impl Into<String>) -> ServerId {
        ServerId(id.into())
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether a database can hold it: 1 to [`ServerId::LONGEST`] bytes.
    pub fn fits(&self) -> bool {
        !self.0.is_empty() && self.0.len() <= Self::LONGEST
    }

    /// The error for an id that does not [fit](ServerId::fits), asked of
    /// the database at `path`; `Ok` when it fits.
    pub(crate) fn check(&self, path: String) -> Result<(), crate::persist::DatabaseError> {
        if self.fits() {
            return Ok(());
        }
        Err(crate::persist::DatabaseError::Invalid {
            path,
            message: format!(
                "the server id \"{self}\" is not 1 to {} bytes",
                Self::LONGEST
            ),
            fix: format!("choose an id of 1 to {} bytes", Self::LONGEST),
        })
    }
}

impl Default for ServerId {
    /// `main`: the one server of a game that has one.
    fn default() -> ServerId {
        ServerId::new("main")
    }
}

impl std::fmt::Display for ServerId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A container or pickup this server no longer owns: its id and who owns
/// it now (`None`: nobody, the row is gone).
///
/// ```
/// use bevy_container::persist::{Lost, ServerId};
/// let lost = Lost { id: "chest-7".into(), owner: Some(ServerId::new("zone-b")) };
/// assert_eq!(lost.to_string(), "chest-7 (now owned by zone-b)");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lost {
    /// The persistent id.
    pub id: String,
    /// Its owner now, if the row still exists.
    pub owner: Option<ServerId>,
}

impl std::fmt::Display for Lost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.owner {
            Some(owner) => write!(f, "{} (now owned by {owner})", self.id),
            None => write!(f, "{} (no longer in the database)", self.id),
        }
    }
}
