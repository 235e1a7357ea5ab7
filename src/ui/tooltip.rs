//! The tooltip: what the pointer is over, in words (name, amount,
//! description, stack limit, category; or what an empty slot is for).

use bevy::ecs::system::SystemParam;
use bevy::picking::events::{DragStart, Out, Over, Pointer};
use bevy::prelude::*;

use super::catalog::{ItemLook, ItemLooks};
use super::drawn::{SlotRole, role_of};
use super::grid::{ContainerGrid, SlotCell};
use super::style::GridStyle;
use crate::contents::Contents;
use crate::plugin::ContainerContents;

/// Marks the tooltip's text (one tooltip, shown over the hovered cell).
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooltipText;

/// Marks the tooltip's node.
#[derive(Component, Debug)]
pub(crate) struct TooltipNode;

/// The tooltip's entities, once built, and the cell it describes.
#[derive(Resource, Default, Debug)]
pub(crate) struct TooltipState {
    node: Option<Entity>,
    text: Option<Entity>,
    cell: Option<Entity>,
}

/// How a stack of a type stacks in `engine`: `stacks to 20`, `does not
/// stack`, or (slotless) its size.
fn stacking(engine: &Contents, item: &str) -> Option<String> {
    let rules = engine.rules();
    let row = rules.row(item);
    if !rules.has_slots() {
        return row.map(|r| format!("size {} each", r.size));
    }
    let limit = row.map_or(1, |r| r.stack_limit);
    Some(if limit == 1 {
        "does not stack".to_string()
    } else {
        format!("stacks to {limit}")
    })
}

/// The lines about a stack of `amount` items of a type that looks like
/// `look`, carrying `props`.
fn stack_lines(
    look: &ItemLook,
    amount: u32,
    props: &crate::props::Props,
    place: String,
    how: Option<String>,
) -> String {
    let mut lines = vec![look.name.clone(), format!("{amount} {place}")];
    lines.extend(look.prop_lines(props));
    if !look.description.is_empty() {
        lines.push(look.description.clone());
    }
    lines.extend(how);
    if let Some(category) = &look.category {
        lines.push(format!("category: {category}"));
    }
    lines.join("\n")
}

/// What the tooltip says about `cell`, if anything.
fn describe(cell: &SlotCell, held: &ContainerContents, looks: &ItemLooks) -> Option<String> {
    let slot = cell.slot()?;
    let engine = held.engine()?;
    if !engine.rules().has_slots() {
        let (item, amount) = held.slots().get(slot as usize)?.as_ref()?;
        let item = item.as_str();
        let look = looks.look(item);
        return Some(stack_lines(
            &look,
            *amount,
            held.props(slot as usize),
            "held".into(),
            stacking(engine, item),
        ));
    }
    if let Some(stack) = engine.stack(slot) {
        let item = stack.item.as_str();
        let place = format!("in slot {}", slot + 1);
        return Some(stack_lines(
            &looks.look(item),
            stack.amount,
            &stack.props,
            place,
            stacking(engine, item),
        ));
    }
    let n = slot + 1;
    match role_of(engine, slot) {
        SlotRole::Open => None,
        SlotRole::Torn => Some(format!("slot {n}: torn, it holds nothing until mended")),
        SlotRole::Reserved(id) => Some(format!("slot {n}: kept for {}", looks.look(&id).name)),
        SlotRole::Accepts(ids) => {
            let names: Vec<String> = ids.iter().map(|id| looks.look(id).name).collect();
            Some(format!("slot {n} takes: {}", names.join(", ")))
        }
        SlotRole::Closed => Some(format!("slot {n}: nothing may enter")),
    }
}

/// What the tooltip observers read and write.
#[derive(SystemParam)]
pub(crate) struct Tooltip<'w, 's> {
    state: ResMut<'w, TooltipState>,
    style: Res<'w, GridStyle>,
    nodes: Query<'w, 's, &'static mut Node, With<TooltipNode>>,
    texts: Query<'w, 's, &'static mut Text, With<TooltipText>>,
    commands: Commands<'w, 's>,
}

impl Tooltip<'_, '_> {
    /// Shows `text` near `at` for `cell`, building the tooltip the first
    /// time.
    fn show(&mut self, cell: Entity, text: String, at: Vec2) {
        let (left, top) = (px(at.x + 16.0), px(at.y + 16.0));
        if let (Some(node_e), Some(text_e)) = (self.state.node, self.state.text)
            && let Ok(mut node) = self.nodes.get_mut(node_e)
        {
            node.left = left;
            node.top = top;
            node.display = Display::Flex;
            if let Ok(mut t) = self.texts.get_mut(text_e) {
                t.0 = text;
            }
            self.state.cell = Some(cell);
            return;
        }
        let node = Node {
            position_type: PositionType::Absolute,
            left,
            top,
            padding: UiRect::all(px(6)),
            max_width: px(260),
            ..default()
        };
        let style = &*self.style;
        let back = (TooltipNode, node, BackgroundColor(style.tooltip_back));
        let node_e = self
            .commands
            .spawn((back, GlobalZIndex(i32::MAX - 1), Pickable::IGNORE))
            .id();
        let font = TextFont::from_font_size(style.small_font);
        let label = (TooltipText, Text::new(text), font, TextColor(style.text));
        let text_e = self
            .commands
            .spawn((label, Pickable::IGNORE, ChildOf(node_e)))
            .id();
        self.state.node = Some(node_e);
        self.state.text = Some(text_e);
        self.state.cell = Some(cell);
    }

    /// Hides the tooltip (if it describes `cell`, when one is given).
    fn hide(&mut self, cell: Option<Entity>) {
        if cell.is_some() && cell != self.state.cell {
            return;
        }
        self.state.cell = None;
        if let Some(node_e) = self.state.node
            && let Ok(mut node) = self.nodes.get_mut(node_e)
        {
            node.display = Display::None;
        }
    }
}

/// The pointer came over a cell: describe it.
pub(crate) fn show_tooltip(
    over: On<Pointer<Over>>,
    cells: Query<&SlotCell>,
    grids: Query<&ContainerGrid>,
    contents: Query<&ContainerContents>,
    looks: ItemLooks,
    mut tooltip: Tooltip,
) {
    let Ok(cell) = cells.get(over.entity) else {
        return;
    };
    let text = grids
        .get(cell.grid())
        .ok()
        .and_then(|g| contents.get(g.container).ok())
        .and_then(|held| describe(cell, held, &looks));
    match text {
        Some(text) => tooltip.show(over.entity, text, over.pointer_location.position),
        None => tooltip.hide(None),
    }
}

/// The pointer left the cell the tooltip describes: hide it.
pub(crate) fn hide_tooltip(out: On<Pointer<Out>>, mut tooltip: Tooltip) {
    tooltip.hide(Some(out.entity));
}

/// A drag began: the ghost replaces the tooltip.
pub(crate) fn hide_tooltip_on_drag(_start: On<Pointer<DragStart>>, mut tooltip: Tooltip) {
    tooltip.hide(None);
}
