//! How hard SQLite works to keep a committed frame.

/// How hard SQLite works to keep a committed frame through a power loss
/// (its `synchronous` setting; the file is always in WAL mode).
///
/// ```
/// use bevy_container::persist::Synchronous;
/// assert_eq!(Synchronous::default(), Synchronous::Normal);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Synchronous {
    /// No flush at all: a killed process loses nothing committed, but a
    /// power loss may damage the file. For tests and throwaway worlds.
    Off,
    /// Flush at checkpoints only: a killed process loses nothing committed;
    /// a power loss may lose the last committed frames (whole), never the
    /// file.
    #[default]
    Normal,
    /// Flush every transaction: a committed frame survives a power loss.
    Full,
}

impl Synchronous {
    pub(super) fn pragma(self) -> &'static str {
        match self {
            Synchronous::Off => "OFF",
            Synchronous::Normal => "NORMAL",
            Synchronous::Full => "FULL",
        }
    }
}
