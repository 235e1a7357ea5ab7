//! Where a container stands ([`ContainerStatus`]): waiting for its rules,
//! ready, or refused and why.

use bevy::prelude::*;

/// Where a container stands: waiting for its rules, ready, or refused and
/// why. Read it with [`ContainerContents::status`](super::ContainerContents::status).
///
/// ```
/// use bevy_container::plugin::{ContainerContents, ContainerStatus};
///
/// // a container whose adoption has not loaded yet
/// assert_eq!(ContainerContents::default().status(), ContainerStatus::Waiting);
/// ```
#[derive(Reflect, Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ContainerStatus {
    /// Its adoption has not loaded yet. Requests are answered
    /// [`super::NotAnswered::NotReady`].
    Waiting,
    /// Its rules are attached and it answers requests
    /// ([`super::ContainerReady`] was sent).
    Ready,
    /// Its adoption file was refused: it failed to load or validate, or it
    /// does not compile with the game's tuning ([`super::AdoptionRejected`]
    /// was sent). Requests are answered
    /// [`super::NotAnswered::AdoptionRefused`] with the first line of this
    /// reason (the file and where its problems are: each request is
    /// logged, and the problems were reported once already); a fixed file
    /// that loads makes the container ready.
    AdoptionRefused {
        /// A first line naming the file and what is wrong with it (where
        /// its errors are, for a file that was read), then each problem
        /// and its fix.
        reason: String,
    },
    /// Its save does not load under its rules (a migration would move
    /// items that never leave; [`super::ContainerSaveRefused`] was sent).
    /// The save stays attached, unchanged; requests are answered
    /// [`super::NotAnswered::NotReady`] until the rules change so that it
    /// loads.
    SaveRefused {
        /// Why, with how much could not leave.
        reason: String,
    },
}
