//! What the player is told after a drop: the outcome of each request the
//! grids wrote, matched to it, and a refusal's reason in words on the
//! grid's status line.

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;

use super::grid::{GridState, GridStatus};
use crate::contents::{Reason, Transferred};
use crate::plugin::{
    ContainerRearranged, ContainerRequest, ItemsTransferred, NotAnswered, RequestUnanswered,
};

/// A drop or shift-click on a grid was refused: the grid it was made on
/// and why. Written as a message and triggered on the grid entity; the
/// grid's status line says [`DropRefused::words`].
#[derive(Message, EntityEvent, Debug, Clone, Copy, PartialEq, Eq)]
pub struct DropRefused {
    /// The grid the drop was made on.
    #[event_target]
    pub grid: Entity,
    /// The outcome's reason.
    pub reason: Reason,
}

impl DropRefused {
    /// The reason in words, as the status line shows it.
    pub fn words(&self) -> &'static str {
        in_words(self.reason)
    }
}

/// A refusal's reason in a player's words.
///
/// ```
/// use bevy_container::contents::Reason;
/// use bevy_container::ui::in_words;
/// assert_eq!(in_words(Reason::StackFull), "that stack is already full");
/// ```
pub fn in_words(reason: Reason) -> &'static str {
    match reason {
        Reason::TypeRestriction => "this container does not take that kind of item",
        Reason::NoSize => "that item has no size here, so it cannot count against the budget",
        Reason::SlotRules => "no slot here accepts that item",
        Reason::NoReservedSlot => "that item has no slot of its own here",
        Reason::DoesNotFit => "not all of it fits, and this container takes all or nothing",
        Reason::AmbiguousDraw => "several stacks match: pick one slot",
        Reason::TooFewCanLeave => "too few items can leave",
        Reason::NoSlotRules => "this container's slot rules are missing",
        Reason::SlotCeiling => "this container has no room for another slot",
        Reason::AmountCeiling => "that stack would hold more than can be counted",
        Reason::NoSuchSlot => "there is no such slot",
        Reason::Slotless => "this container has no slots",
        Reason::EmptySlot => "that slot is empty",
        Reason::SameSlot => "that is the slot it came from",
        Reason::NotEnough => "there are not that many in the slot",
        Reason::OverStackLimit => "that would pass the stack limit",
        Reason::OtherType => "only a whole stack can swap places with another item",
        Reason::StackFull => "that stack is already full",
        Reason::WrongType => "the slot no longer holds that item",
        Reason::Occupied => "that slot holds another item",
        Reason::NoSlots => "that container has no slots: drop onto it anywhere",
        Reason::NotReady => "that container is not ready yet",
        Reason::NoRoom => "there is no room for them as they are now",
    }
}

/// What a grid asked for, to match its outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Asked {
    /// A move within `container`.
    Move { container: Entity },
    /// A transfer of `amount` from one container to another.
    Transfer {
        from: Entity,
        to: Entity,
        amount: u32,
    },
}

impl Asked {
    fn of(request: &ContainerRequest) -> Option<Asked> {
        match request {
            ContainerRequest::Move(m) => Some(Asked::Move {
                container: m.container,
            }),
            ContainerRequest::Transfer(t) => Some(Asked::Transfer {
                from: t.from,
                to: t.to,
                amount: t.request.amount,
            }),
            _ => None,
        }
    }

    /// Whether a request to `container` could be this one.
    fn names(&self, container: Entity) -> bool {
        match *self {
            Asked::Move { container: c } => c == container,
            Asked::Transfer { from, to, .. } => from == container || to == container,
        }
    }
}

/// The requests the grids wrote whose outcomes have not come yet, oldest
/// first (at most [`PendingDrops::MAX`]).
#[derive(Resource, Default, Debug)]
pub(crate) struct PendingDrops(Vec<(Entity, Asked)>);

impl PendingDrops {
    /// Older requests than this are forgotten (their outcome never came).
    const MAX: usize = 64;

    /// Remembers that `grid` wrote `request`.
    pub(crate) fn expect(&mut self, grid: Entity, request: &ContainerRequest) {
        let Some(asked) = Asked::of(request) else {
            return;
        };
        if self.0.len() == Self::MAX {
            self.0.remove(0);
        }
        self.0.push((grid, asked));
    }

    /// The grid of the oldest request `matches` accepts, forgotten.
    fn answer(&mut self, matches: impl Fn(&Asked) -> bool) -> Option<Entity> {
        let at = self.0.iter().position(|(_, a)| matches(a))?;
        Some(self.0.remove(at).0)
    }
}

/// The outcomes a grid's request may get.
#[derive(SystemParam)]
pub(crate) struct Outcomes<'w, 's> {
    rearranged: MessageReader<'w, 's, ContainerRearranged>,
    transferred: MessageReader<'w, 's, ItemsTransferred>,
    unanswered: MessageReader<'w, 's, RequestUnanswered>,
}

/// One answer to a grid's request.
enum Answer {
    Refused(Reason),
    Partly(Transferred),
    Done,
    Unanswered(NotAnswered),
}

impl Outcomes<'_, '_> {
    /// The outcomes of this frame that answer pending requests, in the
    /// order the requests were written, each with its grid.
    fn answers(&mut self, pending: &mut PendingDrops) -> Vec<(Entity, Answer)> {
        let mut answers = Vec::new();
        for m in self.rearranged.read() {
            let asked = |a: &Asked| {
                *a == Asked::Move {
                    container: m.container,
                }
            };
            if let Some(grid) = pending.answer(asked) {
                let answer = m.outcome.refused.map_or(Answer::Done, Answer::Refused);
                answers.push((grid, answer));
            }
        }
        for m in self.transferred.read() {
            let asked = |a: &Asked| {
                *a == Asked::Transfer {
                    from: m.from,
                    to: m.to,
                    amount: m.outcome.asked,
                }
            };
            if let Some(grid) = pending.answer(asked) {
                let answer = match m.outcome.refused {
                    Some(reason) => Answer::Refused(reason),
                    None if m.outcome.moved < m.outcome.asked => Answer::Partly(m.outcome.clone()),
                    None => Answer::Done,
                };
                answers.push((grid, answer));
            }
        }
        for m in self.unanswered.read() {
            if let Some(grid) = pending.answer(|a| a.names(m.container)) {
                answers.push((grid, Answer::Unanswered(m.reason.clone())));
            }
        }
        answers
    }
}

/// Matches the outcomes of the frame to the requests the grids wrote, and
/// tells each grid's status line: a refusal in words (and
/// [`DropRefused`]), what a partial transfer left behind, or nothing.
pub(crate) fn report_outcomes(
    mut pending: ResMut<PendingDrops>,
    mut outcomes: Outcomes,
    grids: Query<&GridState>,
    mut lines: Query<&mut Text, With<GridStatus>>,
    mut refused: MessageWriter<DropRefused>,
    mut commands: Commands,
) {
    for (grid, answer) in outcomes.answers(&mut pending) {
        let line = match &answer {
            Answer::Refused(reason) => format!("Refused: {}", in_words(*reason)),
            // what the target could not take, and why: the outcome's own
            // text names the limit (`Transferred`'s `Display`)
            Answer::Partly(t) => format!("{t}; the rest stayed where it was"),
            Answer::Done => String::new(),
            Answer::Unanswered(why) => format!("Not answered: {why}"),
        };
        if let Ok(state) = grids.get(grid)
            && let Ok(mut text) = lines.get_mut(state.status)
        {
            text.0 = line;
        }
        if let Answer::Refused(reason) = answer {
            let event = DropRefused { grid, reason };
            refused.write(event);
            commands.trigger(event);
        }
    }
}
