//! Where the plugin reports a refused adoption file and a file's warnings:
//! the log when one is installed (Bevy's `LogPlugin`, or the game's own
//! `tracing` subscriber), else stderr, so a broken file is never silent,
//! not even under `MinimalPlugins` alone. Each report is written once,
//! with the same text either way.

use bevy::log::tracing::dispatcher;
use bevy::log::tracing::subscriber::NoSubscriber;
use bevy::prelude::*;

/// How serious a report is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Level {
    /// The file was refused: its containers have no rules.
    Error,
    /// The containers keep working (a reload refused, or warnings).
    Warn,
}

/// Whether a `tracing` subscriber would receive what this thread logs:
/// without one (no `LogPlugin`, no subscriber of the game's), `error!` and
/// `warn!` go nowhere.
pub(crate) fn log_installed() -> bool {
    dispatcher::get_default(|current| !current.is::<NoSubscriber>())
}

/// Reports `text` once: logged at `level` when a log is installed, else
/// written to stderr with the level in front.
pub(crate) fn report(level: Level, text: &str) {
    if log_installed() {
        match level {
            Level::Error => error!("{text}"),
            Level::Warn => warn!("{text}"),
        }
        return;
    }
    let label = match level {
        Level::Error => "ERROR",
        Level::Warn => "WARN",
    };
    eprintln!("{label} bevy_container: {text}");
}
