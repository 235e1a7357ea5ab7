//! One process per server id, and a database that may forget: what the
//! database holds for this server (its frame, its generation) judged
//! against what this process opened and saw committed.

use crate::persist::frame::error::DatabaseError;
use crate::persist::servers::ServerId;

/// What this process of a server knows it is: the generation it opened,
/// and the last frame it saw committed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Mine {
    pub(super) generation: i64,
    pub(super) seen: u64,
}

/// How the database's row for this server stands against [`Mine`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Standing {
    /// The same generation, at or past the frame seen: writes may go on.
    Current,
    /// A newer process of the id opened the database since.
    Replaced { now: i64 },
    /// The database lacks what this process saw committed: frames, its
    /// generation, or its row.
    Behind { holds: u64, generation: Option<i64> },
}

/// Judges `found` (the row's frame and generation, `None` when there is
/// no row) against `mine`.
pub(super) fn judge(found: Option<(u64, i64)>, mine: Mine) -> Standing {
    match found {
        None => Standing::Behind {
            holds: 0,
            generation: None,
        },
        Some((_, now)) if now > mine.generation => Standing::Replaced { now },
        Some((holds, now)) if now < mine.generation => Standing::Behind {
            holds,
            generation: Some(now),
        },
        Some((holds, _)) if holds < mine.seen => Standing::Behind {
            holds,
            generation: None,
        },
        Some(_) => Standing::Current,
    }
}

impl Standing {
    /// The error that stops this process's writing, if it must stop.
    pub(super) fn error(self, name: &str, server: &ServerId, mine: Mine) -> Option<DatabaseError> {
        match self {
            Standing::Current => None,
            Standing::Replaced { now } => Some(DatabaseError::Replaced {
                path: name.to_string(),
                server: server.to_string(),
                mine: mine.generation,
                now,
            }),
            Standing::Behind { holds, generation } => Some(DatabaseError::Behind {
                path: name.to_string(),
                server: server.to_string(),
                holds,
                first_missing: (holds + 1).min(mine.seen),
                seen: mine.seen,
                generation: match generation {
                    Some(g) => format!(
                        "; it holds generation {g} of the server, this process opened {}",
                        mine.generation
                    ),
                    None if holds == 0 && mine.seen == 0 => {
                        "; it has no row for the server at all".to_string()
                    }
                    None => String::new(),
                },
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINE: Mine = Mine {
        generation: 3,
        seen: 40,
    };

    #[test]
    fn a_newer_generation_replaces_and_a_lower_frame_or_generation_is_behind() {
        assert_eq!(judge(Some((40, 3)), MINE), Standing::Current);
        assert_eq!(judge(Some((41, 3)), MINE), Standing::Current);
        assert_eq!(judge(Some((45, 4)), MINE), Standing::Replaced { now: 4 });
        assert_eq!(
            judge(Some((37, 3)), MINE),
            Standing::Behind {
                holds: 37,
                generation: None
            }
        );
        assert_eq!(
            judge(Some((40, 2)), MINE),
            Standing::Behind {
                holds: 40,
                generation: Some(2)
            }
        );
        assert_eq!(
            judge(None, MINE),
            Standing::Behind {
                holds: 0,
                generation: None
            }
        );
    }

    #[test]
    fn the_error_names_the_frames_missing_and_the_fix() {
        let e = judge(Some((37, 3)), MINE)
            .error("postgresql:///world", &ServerId::new("north"), MINE)
            .expect("behind");
        let text = e.to_string();
        assert!(text.contains("frames 38 to 40 are missing"), "{text}");
        assert!(text.contains("restart the server"), "{text}");
        assert!(text.contains("synchronous"), "{text}");
        let e = judge(Some((45, 4)), MINE)
            .error("postgresql:///world", &ServerId::new("north"), MINE)
            .expect("replaced");
        assert!(e.to_string().contains("opened again"), "{e}");
    }
}
