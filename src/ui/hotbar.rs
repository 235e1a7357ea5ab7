//! Hotbars: a grid whose slots the number keys (and clicks) select.

use bevy::picking::events::{Click, Pointer};
use bevy::picking::pointer::PointerButton;
use bevy::prelude::*;

use super::grid::{ContainerGrid, SlotCell};
use crate::plugin::ContainerContents;

/// Makes a [`ContainerGrid`] a hotbar: keys 1 to 9 select its slots 1 to
/// 9 and 0 selects slot 10 (each only if the container has that slot), a
/// click on a cell selects it, and the selected cell is outlined
/// ([`super::GridStyle::selected_border`]).
///
/// ```
/// use bevy::prelude::*;
/// use bevy_container::ui::{ContainerGrid, Hotbar, SelectedSlot};
///
/// fn eat_selected(bar: Single<(&ContainerGrid, &SelectedSlot), With<Hotbar>>) {
///     let (grid, selected) = *bar;
///     // take from `grid.container`, slot `selected.0`
///     let _ = (grid.container, selected.0);
/// }
/// # let _ = eat_selected;
/// ```
#[derive(Component, Reflect, Debug, Clone, Copy, Default, PartialEq, Eq)]
#[reflect(Component)]
#[require(SelectedSlot)]
pub struct Hotbar;

/// The slot selected on a [`Hotbar`] grid, from 0.
#[derive(Component, Reflect, Debug, Clone, Copy, Default, PartialEq, Eq)]
#[reflect(Component)]
pub struct SelectedSlot(pub u32);

/// The keys that select slots 1 to 10.
const DIGITS: [KeyCode; 10] = [
    KeyCode::Digit1,
    KeyCode::Digit2,
    KeyCode::Digit3,
    KeyCode::Digit4,
    KeyCode::Digit5,
    KeyCode::Digit6,
    KeyCode::Digit7,
    KeyCode::Digit8,
    KeyCode::Digit9,
    KeyCode::Digit0,
];

/// How many slots of `held` may be selected: the capacity in force (torn
/// slots may not), or the slots in use for `no-limit`; none when slotless.
fn selectable(held: &ContainerContents) -> u32 {
    let Some(engine) = held.engine() else {
        return 0;
    };
    let rules = engine.rules();
    if rules.has_slot_limit() {
        engine.limits().slot_count
    } else if rules.has_slots() {
        u32::try_from(engine.slot_len()).unwrap_or(u32::MAX)
    } else {
        0
    }
}

/// The number keys select hotbar slots (the first key pressed this frame
/// wins; a slot the container lacks is ignored).
pub(crate) fn select_by_number_keys(
    keys: Option<Res<ButtonInput<KeyCode>>>,
    mut bars: Query<(&ContainerGrid, &mut SelectedSlot), With<Hotbar>>,
    contents: Query<&ContainerContents>,
) {
    let Some(keys) = keys else {
        return;
    };
    let Some(index) = DIGITS.iter().position(|k| keys.just_pressed(*k)) else {
        return;
    };
    let slot = index as u32;
    for (grid, mut selected) in &mut bars {
        let slots = contents.get(grid.container).map_or(0, selectable);
        if slot < slots {
            selected.set_if_neq(SelectedSlot(slot));
        }
    }
}

/// A primary click on a hotbar cell (without shift, which moves the stack)
/// selects its slot.
pub(crate) fn select_on_click(
    click: On<Pointer<Click>>,
    cells: Query<&SlotCell>,
    mut bars: Query<(&ContainerGrid, &mut SelectedSlot), With<Hotbar>>,
    contents: Query<&ContainerContents>,
    keys: Option<Res<ButtonInput<KeyCode>>>,
) {
    if click.button != PointerButton::Primary || super::drag::shift_held(keys.as_deref()) {
        return;
    }
    let Ok(cell) = cells.get(click.entity) else {
        return;
    };
    let Some(slot) = cell.slot() else {
        return;
    };
    let Ok((grid, mut selected)) = bars.get_mut(cell.grid()) else {
        return;
    };
    if slot < contents.get(grid.container).map_or(0, selectable) {
        selected.set_if_neq(SelectedSlot(slot));
    }
}
