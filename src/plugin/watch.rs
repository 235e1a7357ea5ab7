//! Which outcome events anybody observes, so that outcomes nobody watches
//! cost a message only: triggering an event takes a copy of the outcome and
//! a command, about a fifth of a request's cost through messages.

use bevy::ecs::event::EventKey;
use bevy::ecs::observer::Observer;
use bevy::prelude::*;

use super::messages::*;

/// The outcome events, in the order of [`Watched`]'s bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OutcomeKind {
    Delivered,
    Taken,
    Transferred,
    ForcedOut,
    Rearranged,
    Unanswered,
    Ready,
    SaveRefused,
    PropsChanged,
}

/// Each outcome event's key, in the order of [`OutcomeKind`].
#[derive(Resource)]
pub(crate) struct OutcomeKeys([EventKey; 9]);

impl FromWorld for OutcomeKeys {
    fn from_world(world: &mut World) -> OutcomeKeys {
        OutcomeKeys([
            world.register_event_key::<ItemsDelivered>(),
            world.register_event_key::<ItemsTaken>(),
            world.register_event_key::<ItemsTransferred>(),
            world.register_event_key::<ItemsForcedOut>(),
            world.register_event_key::<ContainerRearranged>(),
            world.register_event_key::<RequestUnanswered>(),
            world.register_event_key::<ContainerReady>(),
            world.register_event_key::<ContainerSaveRefused>(),
            world.register_event_key::<PropsChanged>(),
        ])
    }
}

/// The outcome events some observer (global or on an entity) watches, as
/// of the last [`watch_observers`], and how many observers there were.
#[derive(Resource, Default, Debug)]
pub(crate) struct Watched {
    bits: u16,
    observers: usize,
}

impl Watched {
    /// Whether an observer watches `kind`.
    pub(crate) fn has(&self, kind: OutcomeKind) -> bool {
        self.bits & (1 << kind as u16) != 0
    }
}

/// Whether an observer was added or removed since [`watch_observers`] last
/// looked: its run condition, so a frame without such a change does not
/// run it (an observer's events never change once it is spawned).
pub(crate) fn observers_changed(
    added: Query<(), Added<Observer>>,
    all: Query<(), With<Observer>>,
    watched: Res<Watched>,
) -> bool {
    !added.is_empty() || all.iter().len() != watched.observers
}

/// Notes which outcome events are observed; runs at the head of each of
/// the plugin's sets, so an observer added before a set sees its outcomes.
pub(crate) fn watch_observers(
    observers: Query<&Observer>,
    keys: Res<OutcomeKeys>,
    mut watched: ResMut<Watched>,
) {
    let mut bits = 0u16;
    let mut count = 0;
    for o in &observers {
        count += 1;
        for key in o.descriptor().event_keys() {
            if let Some(i) = keys.0.iter().position(|k| k == key) {
                bits |= 1 << i;
            }
        }
    }
    if watched.bits != bits || watched.observers != count {
        *watched = Watched {
            bits,
            observers: count,
        };
    }
}
