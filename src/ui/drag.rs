//! Dragging stacks between cells, and shift-clicking them to a linked
//! container: every change is a [`ContainerRequest`], so every rule and
//! every outcome is the same as on any other path.
//!
//! | gesture | request |
//! | --- | --- |
//! | left-drag a stack onto another slot of its container | [`MoveItems`] of the whole stack (a different type there swaps) |
//! | right-drag | the same with half the stack (rounded up) |
//! | ctrl + left-drag | the same with one item |
//! | drag onto a slot of another container's grid | [`Transfer`] to that slot (whole stacks of two types swap) |
//! | drag onto another grid's background, or onto a slotless grid | [`Transfer`] by the target's fill order |
//! | shift + click a stack | [`Transfer`] of the stack to the grid's [`LinkedContainer`], by its fill order |
//!
//! A drop outside any grid does nothing. While dragging, a ghost with the
//! item's name and the amount follows the pointer.

use bevy::ecs::system::SystemParam;
use bevy::picking::events::{Cancel, Click, Drag, DragDrop, DragEnd, DragStart, Pointer};
use bevy::picking::pointer::{PointerButton, PointerId};
use bevy::prelude::*;

use super::catalog::ItemLooks;
use super::feedback::PendingDrops;
use super::grid::{ContainerGrid, GridState, SlotCell};
use super::style::GridStyle;
use crate::contents::{ItemType, Props, TransferRequest};
use crate::plugin::{ContainerContents, ContainerRequest, MoveItems, Transfer};

/// On a grid: the container a shift-click sends a stack to (a chest's grid
/// links to the backpack, the backpack's grid to the chest).
#[derive(Component, Reflect, Debug, Clone, Copy, PartialEq, Eq)]
#[reflect(Component)]
pub struct LinkedContainer(pub Entity);

/// How much of a stack a drag takes, by the button and keys it began with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Split {
    /// The whole stack (left button).
    Whole,
    /// Half the stack, rounded up (right button).
    Half,
    /// One item (ctrl + left button).
    One,
}

impl Split {
    /// The split a drag with `button` begins, `ctrl` held or not; `None`
    /// for a button that does not drag stacks (the middle one).
    pub fn of(button: PointerButton, ctrl: bool) -> Option<Split> {
        match button {
            PointerButton::Primary if ctrl => Some(Split::One),
            PointerButton::Primary => Some(Split::Whole),
            PointerButton::Secondary => Some(Split::Half),
            PointerButton::Middle => None,
        }
    }

    /// How many of a stack of `stack` items it takes.
    ///
    /// ```
    /// use bevy_container::ui::Split;
    /// assert_eq!(Split::Half.amount(5), 3);
    /// assert_eq!(Split::One.amount(5), 1);
    /// assert_eq!(Split::Whole.amount(5), 5);
    /// ```
    pub fn amount(self, stack: u32) -> u32 {
        match self {
            Split::Whole => stack,
            Split::Half => stack.div_ceil(2),
            Split::One => stack.min(1),
        }
    }
}

/// Whether a shift key is held.
pub(crate) fn shift_held(keys: Option<&ButtonInput<KeyCode>>) -> bool {
    keys.is_some_and(|k| k.any_pressed([KeyCode::ShiftLeft, KeyCode::ShiftRight]))
}

/// Whether a control key is held.
fn ctrl_held(keys: Option<&ButtonInput<KeyCode>>) -> bool {
    keys.is_some_and(|k| k.any_pressed([KeyCode::ControlLeft, KeyCode::ControlRight]))
}

/// Where a dragged stack comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Source {
    /// A slot.
    Slot(u32),
    /// A slotless container's holding.
    Holding,
}

/// A stack being dragged.
#[derive(Clone, Debug)]
struct Held {
    pointer: PointerId,
    button: PointerButton,
    cell: Entity,
    container: Entity,
    from: Source,
    item: ItemType,
    /// The dragged items' properties: a drag moves their kind only.
    props: Props,
    amount: u32,
    whole: bool,
    ghost: Entity,
}

/// The stacks being dragged, one per pointer and button.
#[derive(Resource, Default, Debug)]
pub(crate) struct UiDrag {
    held: Vec<Held>,
}

impl UiDrag {
    fn find(&self, pointer: PointerId, button: PointerButton, cell: Entity) -> Option<&Held> {
        self.held
            .iter()
            .find(|h| h.pointer == pointer && h.button == button && h.cell == cell)
    }

    fn take(&mut self, pointer: PointerId, button: PointerButton) -> Option<Held> {
        let at = self
            .held
            .iter()
            .position(|h| h.pointer == pointer && h.button == button)?;
        Some(self.held.remove(at))
    }
}

/// Marks the ghost that follows the pointer during a drag.
#[derive(Component, Debug)]
pub(crate) struct DragGhost;

/// What a cell holds: where it comes from, the type, how many.
fn stack_in(cell: &SlotCell, held: &ContainerContents) -> Option<(Source, ItemType, Props, u32)> {
    let slot = cell.slot()?;
    let engine = held.engine()?;
    if engine.rules().has_slots() {
        let stack = engine.stack(slot)?;
        return Some((
            Source::Slot(slot),
            stack.item.clone(),
            stack.props.clone(),
            stack.amount,
        ));
    }
    let (item, amount) = held.slots().get(slot as usize)?.as_ref()?;
    let props = held.props(slot as usize).clone();
    Some((
        Source::Holding,
        ItemType::from(item.as_str()),
        props,
        *amount,
    ))
}

/// A stack under a cell, as a drag or a click takes it.
struct Picked {
    grid: Entity,
    container: Entity,
    from: Source,
    item: ItemType,
    props: Props,
    stack: u32,
}

/// Finds the stack a cell shows.
#[derive(SystemParam)]
pub(crate) struct Stacks<'w, 's> {
    cells: Query<'w, 's, &'static SlotCell>,
    grids: Query<'w, 's, &'static ContainerGrid>,
    contents: Query<'w, 's, &'static ContainerContents>,
}

impl Stacks<'_, '_> {
    /// The stack in `cell_e`, when it is a cell showing one.
    fn under(&self, cell_e: Entity) -> Option<Picked> {
        let cell = self.cells.get(cell_e).ok()?;
        let grid = self.grids.get(cell.grid()).ok()?;
        let held = self.contents.get(grid.container).ok()?;
        let (from, item, props, stack) = stack_in(cell, held)?;
        Some(Picked {
            grid: cell.grid(),
            container: grid.container,
            from,
            item,
            props,
            stack,
        })
    }
}

/// The ghost node: the amount and the item's name, at the pointer.
fn ghost(at: Vec2, text: String, colour: Color, style: &GridStyle) -> impl Bundle {
    let node = Node {
        position_type: PositionType::Absolute,
        left: px(at.x + 12.0),
        top: px(at.y + 12.0),
        padding: UiRect::all(px(4)),
        ..default()
    };
    (
        DragGhost,
        node,
        BackgroundColor(colour),
        GlobalZIndex(i32::MAX - 2),
        Pickable::IGNORE,
        children![(
            Text::new(text),
            TextFont::from_font_size(style.cell_font),
            TextColor(style.text),
            Pickable::IGNORE,
        )],
    )
}

/// A drag begins on a cell with a stack: remember what it takes and show
/// the ghost.
pub(crate) fn start_drag(
    start: On<Pointer<DragStart>>,
    stacks: Stacks,
    keys: Option<Res<ButtonInput<KeyCode>>>,
    looks: ItemLooks,
    style: Res<GridStyle>,
    mut drags: ResMut<UiDrag>,
    mut commands: Commands,
) {
    let Some(split) = Split::of(start.button, ctrl_held(keys.as_deref())) else {
        return;
    };
    let Some(picked) = stacks.under(start.entity) else {
        return;
    };
    if let Some(old) = drags.take(start.pointer_id, start.button) {
        commands.entity(old.ghost).try_despawn();
    }
    let amount = split.amount(picked.stack);
    let look = looks.look(picked.item.as_str());
    let at = start.pointer_location.position;
    let text = format!("{amount} {}", look.name);
    let ghost_e = commands.spawn(ghost(at, text, look.colour, &style)).id();
    drags.held.push(Held {
        pointer: start.pointer_id,
        button: start.button,
        cell: start.entity,
        container: picked.container,
        from: picked.from,
        item: picked.item,
        props: picked.props,
        amount,
        whole: amount >= picked.stack,
        ghost: ghost_e,
    });
}

/// The ghost follows the pointer.
pub(crate) fn follow_drag(
    drag: On<Pointer<Drag>>,
    drags: Res<UiDrag>,
    mut ghosts: Query<&mut Node, With<DragGhost>>,
) {
    let Some(held) = drags.find(drag.pointer_id, drag.button, drag.entity) else {
        return;
    };
    if let Ok(mut node) = ghosts.get_mut(held.ghost) {
        let at = drag.pointer_location.position;
        node.left = px(at.x + 12.0);
        node.top = px(at.y + 12.0);
    }
}

/// The drag is over (dropped or not): forget it, remove the ghost.
pub(crate) fn end_drag(
    end: On<Pointer<DragEnd>>,
    mut drags: ResMut<UiDrag>,
    mut commands: Commands,
) {
    let matches = drags.find(end.pointer_id, end.button, end.entity).is_some();
    if matches && let Some(held) = drags.take(end.pointer_id, end.button) {
        commands.entity(held.ghost).try_despawn();
    }
}

/// The pointer was cancelled (a touch lost): its drags end without a drop.
pub(crate) fn cancel_drags(
    cancel: On<Pointer<Cancel>>,
    mut drags: ResMut<UiDrag>,
    mut commands: Commands,
) {
    let pointer = cancel.pointer_id;
    drags.held.retain(|held| {
        let gone = held.pointer == pointer;
        if gone {
            commands.entity(held.ghost).try_despawn();
        }
        !gone
    });
}

/// The request a drop of `held` onto `to` (a slot, or anywhere) makes;
/// `None` when it changes nothing (dropped where it came from).
fn plan(held: &Held, to: Entity, to_slot: Option<u32>) -> Option<ContainerRequest> {
    if held.container == to {
        let (Source::Slot(from), Some(to_slot)) = (held.from, to_slot) else {
            return None;
        };
        if from == to_slot {
            return None;
        }
        let amount = (!held.whole).then_some(held.amount);
        return Some(ContainerRequest::from(MoveItems {
            container: to,
            from,
            to: to_slot,
            amount,
        }));
    }
    let mut request = match held.from {
        // the slot names the kind
        Source::Slot(slot) => TransferRequest::from_slot(slot, held.amount).of(held.item.clone()),
        Source::Holding => {
            TransferRequest::item(held.item.clone(), held.amount).with_props(held.props.clone())
        }
    };
    if let Some(slot) = to_slot {
        request = request.to_slot(slot);
    }
    Some(ContainerRequest::from(Transfer {
        from: held.container,
        to,
        request,
    }))
}

/// A stack dropped onto a cell (that slot) or onto a grid (by the target's
/// fill order) becomes a move or a transfer; its outcome is reported on
/// the grid it was dropped on.
pub(crate) fn drop_stack(
    mut drop: On<Pointer<DragDrop>>,
    cells: Query<&SlotCell>,
    grids: Query<(&ContainerGrid, &GridState)>,
    drags: Res<UiDrag>,
    mut requests: MessageWriter<ContainerRequest>,
    mut pending: ResMut<PendingDrops>,
) {
    let (grid_e, slot) = match cells.get(drop.entity) {
        Ok(cell) => match cell.slot() {
            Some(slot) => (cell.grid(), Some(slot)),
            None => return,
        },
        Err(_) if grids.contains(drop.entity) => (drop.entity, None),
        Err(_) => return,
    };
    drop.propagate(false);
    let Some(held) = drags.find(drop.pointer_id, drop.button, drop.dropped) else {
        return;
    };
    let Ok((grid, state)) = grids.get(grid_e) else {
        return;
    };
    let slotless = state.shape.is_some_and(|s| s.slotless);
    let Some(request) = plan(held, grid.container, slot.filter(|_| !slotless)) else {
        return;
    };
    pending.expect(grid_e, &request);
    requests.write(request);
}

/// Shift + click on a stack sends it to the grid's [`LinkedContainer`],
/// by that container's fill order; its outcome is reported on the grid
/// clicked.
pub(crate) fn shift_click(
    mut click: On<Pointer<Click>>,
    stacks: Stacks,
    links: Query<&LinkedContainer>,
    keys: Option<Res<ButtonInput<KeyCode>>>,
    mut requests: MessageWriter<ContainerRequest>,
    mut pending: ResMut<PendingDrops>,
) {
    if click.button != PointerButton::Primary || !shift_held(keys.as_deref()) {
        return;
    }
    let Some(picked) = stacks.under(click.entity) else {
        return;
    };
    click.propagate(false);
    let Ok(linked) = links.get(picked.grid) else {
        return;
    };
    let held = Held {
        pointer: click.pointer_id,
        button: click.button,
        cell: click.entity,
        container: picked.container,
        from: picked.from,
        item: picked.item,
        props: picked.props,
        amount: picked.stack,
        whole: true,
        ghost: Entity::PLACEHOLDER,
    };
    let Some(request) = plan(&held, linked.0, None) else {
        return;
    };
    pending.expect(picked.grid, &request);
    requests.write(request);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn held(container: Entity, from: Source, amount: u32, whole: bool) -> Held {
        Held {
            pointer: PointerId::Mouse,
            button: PointerButton::Primary,
            cell: Entity::PLACEHOLDER,
            container,
            from,
            item: ItemType::from("berries"),
            props: Props::EMPTY,
            amount,
            whole,
            ghost: Entity::PLACEHOLDER,
        }
    }

    #[test]
    fn a_drop_within_a_container_is_a_move_and_across_a_transfer() {
        let mut world = World::new();
        let (bag, chest) = (world.spawn_empty().id(), world.spawn_empty().id());
        let whole = held(bag, Source::Slot(1), 5, true);
        assert_eq!(
            plan(&whole, bag, Some(3)),
            Some(ContainerRequest::from(MoveItems {
                container: bag,
                from: 1,
                to: 3,
                amount: None,
            }))
        );
        assert_eq!(plan(&whole, bag, Some(1)), None);
        assert_eq!(plan(&whole, bag, None), None);
        let half = held(bag, Source::Slot(1), 3, false);
        assert_eq!(
            plan(&half, chest, Some(0)),
            Some(ContainerRequest::from(Transfer {
                from: bag,
                to: chest,
                request: TransferRequest::from_slot(1, 3).of("berries").to_slot(0),
            }))
        );
        let holding = held(bag, Source::Holding, 4, true);
        assert_eq!(
            plan(&holding, chest, None),
            Some(ContainerRequest::from(Transfer {
                from: bag,
                to: chest,
                request: TransferRequest::item("berries", 4).with_props(Props::EMPTY),
            }))
        );
    }

    #[test]
    fn the_button_and_keys_choose_the_split() {
        assert_eq!(Split::of(PointerButton::Primary, false), Some(Split::Whole));
        assert_eq!(Split::of(PointerButton::Primary, true), Some(Split::One));
        assert_eq!(
            Split::of(PointerButton::Secondary, false),
            Some(Split::Half)
        );
        assert_eq!(Split::of(PointerButton::Middle, false), None);
        assert_eq!(Split::Half.amount(1), 1);
        assert_eq!(Split::Half.amount(20), 10);
    }
}
