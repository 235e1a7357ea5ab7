//! Painting a grid's cells: what each cell shows, compared with what it
//! showed, so that only the cells whose entry changed are redrawn.

use bevy::ecs::system::SystemParam;
use bevy::image::Image;
use bevy::prelude::*;

use super::catalog::{ItemCatalog, ItemLooks};
use super::drawn::{Drawn, SlotRole, role_of};
use super::grid::{
    BarPart, CellIcon, CellLabel, ContainerGrid, GridScroll, GridState, Shape, SlotCell,
};
use super::hotbar::SelectedSlot;
use super::style::GridStyle;
use crate::contents::Contents;

use crate::plugin::ContainerContents;

/// Marks a cell's bar of a property shown as one (a durability).
#[derive(Component, Debug)]
pub(crate) struct CellPropBar;

/// A cell's property bar, apart from its icon and the budget bar.
type PropBarFilter = (With<CellPropBar>, Without<CellIcon>, Without<BarPart>);

impl Drawn {
    /// What the cell at `position` shows.
    fn of(view: &View, position: usize) -> Drawn {
        let Some(slot) = view.shape.slot_at(view.first_row, position) else {
            return Drawn::Unbound;
        };
        if view.shape.slotless {
            return match view.held.slots().get(slot as usize) {
                Some(Some((item, amount))) => Drawn::Holding {
                    row: slot,
                    item: item.clone(),
                    amount: *amount,
                    props: view.held.props(slot as usize).clone(),
                },
                _ => Drawn::Unbound,
            };
        }
        Drawn::Slot {
            slot,
            stack: view
                .engine
                .stack(slot)
                .map(|s| (s.item.clone(), s.amount, s.props.clone())),
            role: role_of(view.engine, slot),
            selected: view.selected == Some(slot),
        }
    }
}

/// A grid's container as one redraw sees it.
struct View<'a> {
    shape: Shape,
    first_row: u32,
    held: &'a ContainerContents,
    engine: &'a Contents,
    selected: Option<u32>,
}

/// How a cell looks.
struct Visual {
    background: Color,
    border: Color,
    text: String,
    text_colour: Color,
    icon: Option<String>,
    /// How full a property's bar is (a durability), when one shows.
    bar: Option<f32>,
}

/// The text of a stack: its name (none when an icon shows what it is),
/// and its amount when more than one. A stack whose items carry properties
/// shown as no bar is marked `*`.
fn stack_text(name: Option<&str>, amount: u32, marked: bool) -> String {
    let mark = if marked { "*" } else { "" };
    match (name, amount) {
        (Some(name), 1) => format!("{name}{mark}"),
        (Some(name), n) => format!("{name}{mark}\n{n}"),
        (None, 1) => mark.to_string(),
        (None, n) => format!("{n}{mark}"),
    }
}

/// What the painter writes on a cell.
type CellLook = (
    &'static mut SlotCell,
    &'static mut BackgroundColor,
    &'static mut BorderColor,
    &'static mut Visibility,
);

/// Everything the painter writes to.
#[derive(SystemParam)]
pub(crate) struct Painter<'w, 's> {
    style: Res<'w, GridStyle>,
    looks: ItemLooks<'w>,
    server: Res<'w, AssetServer>,
    cells: Query<'w, 's, CellLook>,
    labels: Query<'w, 's, (&'static mut Text, &'static mut TextColor), With<CellLabel>>,
    icons: Query<'w, 's, (&'static mut ImageNode, &'static mut Node), With<CellIcon>>,
    texts: Query<'w, 's, &'static mut Text, Without<CellLabel>>,
    bars: Query<'w, 's, &'static mut Node, (With<BarPart>, Without<CellIcon>)>,
    prop_bars: Query<'w, 's, &'static mut Node, PropBarFilter>,
    commands: Commands<'w, 's>,
}

impl Painter<'_, '_> {
    /// How `drawn` looks under the catalog in use.
    fn visual(&self, drawn: &Drawn) -> Visual {
        let style = &*self.style;
        let (stack, role, selected) = match drawn {
            Drawn::Unbound => {
                return Visual {
                    background: style.empty,
                    border: style.border,
                    text: String::new(),
                    text_colour: style.text,
                    icon: None,
                    bar: None,
                };
            }
            Drawn::Holding {
                item,
                amount,
                props,
                ..
            } => {
                let look = self.looks.look(item.as_str());
                let bar = look.bar(props);
                let mark = if !props.is_empty() && bar.is_none() {
                    "*"
                } else {
                    ""
                };
                // an icon says what it is: the label only counts
                let text = if look.icon.is_some() {
                    format!("{amount}{mark}")
                } else {
                    format!("{}{mark}: {amount}", look.name)
                };
                return Visual {
                    background: look.colour,
                    border: style.border,
                    text,
                    text_colour: style.text,
                    icon: look.icon,
                    bar,
                };
            }
            Drawn::Slot {
                stack,
                role,
                selected,
                ..
            } => (stack.as_ref(), role, *selected),
        };
        let border = if selected {
            style.selected_border
        } else if matches!(role, SlotRole::Reserved(_) | SlotRole::Accepts(_)) {
            style.ruled_border
        } else {
            style.border
        };
        if let Some((item, amount, props)) = stack {
            let look = self.looks.look(item.as_str());
            let bar = look.bar(props);
            return Visual {
                background: look.colour,
                border,
                text: stack_text(
                    look.icon.is_none().then_some(look.name.as_str()),
                    *amount,
                    !props.is_empty() && bar.is_none(),
                ),
                text_colour: style.text,
                icon: look.icon,
                bar,
            };
        }
        let (background, text) = match role {
            SlotRole::Open => (style.empty, String::new()),
            SlotRole::Torn => (style.torn, "torn".to_string()),
            SlotRole::Reserved(id) => (style.empty, self.looks.look(id).name),
            SlotRole::Accepts(ids) => {
                let names: Vec<String> = ids.iter().map(|id| self.looks.look(id).name).collect();
                (style.empty, names.join("\n"))
            }
            SlotRole::Closed => (style.closed, String::new()),
        };
        Visual {
            background,
            border,
            text,
            text_colour: style.dim_text,
            icon: None,
            bar: None,
        }
    }

    /// Redraws one cell as `drawn`.
    fn paint(&mut self, cell_e: Entity, drawn: &Drawn) {
        let visual = self.visual(drawn);
        let Ok((mut cell, mut background, mut border, mut visibility)) = self.cells.get_mut(cell_e)
        else {
            return;
        };
        cell.bound = drawn.bound().is_some();
        cell.slot = drawn.bound().unwrap_or(0);
        *visibility = if cell.bound {
            Visibility::Inherited
        } else {
            Visibility::Hidden
        };
        background.0 = visual.background;
        *border = BorderColor::all(visual.border);
        if let Ok((mut text, mut colour)) = self.labels.get_mut(cell.label) {
            text.0 = visual.text;
            colour.0 = visual.text_colour;
        }
        match (visual.icon, cell.icon) {
            (Some(path), Some(icon_e)) => {
                if let Ok((mut image, mut node)) = self.icons.get_mut(icon_e) {
                    image.image = self.server.load(path);
                    node.display = Display::Flex;
                }
            }
            (Some(path), None) => {
                let image: Handle<Image> = self.server.load(path);
                let node = Node {
                    position_type: PositionType::Absolute,
                    width: percent(80),
                    height: percent(80),
                    ..default()
                };
                let icon = (CellIcon, ImageNode::new(image), node, Pickable::IGNORE);
                cell.icon = Some(self.commands.spawn((icon, ChildOf(cell_e))).id());
            }
            (None, Some(icon_e)) => {
                if let Ok((_, mut node)) = self.icons.get_mut(icon_e) {
                    node.display = Display::None;
                }
            }
            (None, None) => {}
        }
        match (visual.bar, cell.bar) {
            (Some(fill), Some(bar_e)) => {
                if let Ok(mut node) = self.prop_bars.get_mut(bar_e) {
                    node.width = percent(fill * 100.0);
                    node.display = Display::Flex;
                }
            }
            (Some(fill), None) => {
                let node = Node {
                    position_type: PositionType::Absolute,
                    left: px(0.0),
                    bottom: px(0.0),
                    height: px(4.0),
                    width: percent(fill * 100.0),
                    ..default()
                };
                let bar = (
                    CellPropBar,
                    node,
                    BackgroundColor(self.style.prop_bar),
                    Pickable::IGNORE,
                );
                cell.bar = Some(self.commands.spawn((bar, ChildOf(cell_e))).id());
            }
            (None, Some(bar_e)) => {
                if let Ok(mut node) = self.prop_bars.get_mut(bar_e) {
                    node.display = Display::None;
                }
            }
            (None, None) => {}
        }
    }

    /// Writes `text` to a text entity, when it differs.
    pub(crate) fn set_text(&mut self, entity: Entity, text: impl Into<String>) {
        let text = text.into();
        if let Ok(mut t) = self.texts.get_mut(entity)
            && t.0 != text
        {
            t.0 = text;
        }
    }

    /// The info line: capacity, torn slots, the rows shown.
    fn paint_info(&mut self, state: &GridState, view: &View) {
        let shape = view.shape;
        let mut text = view.held.capacity().to_string();
        if view.engine.rules().has_slot_limit() && !shape.slotless {
            let torn = shape.total.saturating_sub(view.engine.limits().slot_count);
            if torn > 0 {
                text.push_str(&format!(", {torn} torn"));
            }
        }
        if shape.is_windowed() {
            let first = view.first_row.min(shape.max_first_row()) * shape.columns;
            let last = (first + shape.cells() as u32).min(shape.total);
            let what = if shape.slotless { "types" } else { "slots" };
            text.push_str(&format!(
                "; {what} {} to {last} of {}, scroll for more",
                first + 1,
                shape.total
            ));
        }
        self.set_text(state.info, text);
    }

    /// The budget bar: shown for containers with a size budget, filled to
    /// the size used.
    fn paint_bar(&mut self, state: &GridState, engine: &Contents) {
        let shown = engine.rules().has_budget();
        if let Ok(mut node) = self.bars.get_mut(state.bar) {
            node.display = if shown { Display::Flex } else { Display::None };
        }
        if !shown {
            return;
        }
        let (used, budget) = (engine.size_used(), engine.limits().size_budget);
        let fill = if budget.is_zero() {
            100.0
        } else {
            (used.micros() as f64 / budget.micros() as f64 * 100.0).clamp(0.0, 100.0) as f32
        };
        if let Ok(mut node) = self.bars.get_mut(state.bar_fill) {
            node.width = percent(fill);
        }
        self.set_text(state.bar_text, format!("{used} of {budget} size"));
    }

    /// What a grid whose container is not ready shows.
    fn paint_waiting(&mut self, state: &mut GridState) {
        if !state.dirty {
            return;
        }
        self.set_text(state.info, "waiting for the container's adoption to load");
        if let Ok(mut node) = self.bars.get_mut(state.bar) {
            node.display = Display::None;
        }
        state.dirty = false;
    }
}

/// Whether the catalog in use was swapped, (re)loaded or removed.
fn catalog_changed(looks: &ItemLooks, events: &mut MessageReader<AssetEvent<ItemCatalog>>) -> bool {
    let active = looks.active_id();
    let mut changed = looks.in_use_changed();
    for event in events.read() {
        changed |= event.is_added(active)
            || event.is_modified(active)
            || event.is_removed(active)
            || event.is_loaded_with_dependencies(active);
    }
    changed
}

/// The grids a redraw looks at.
type Grids<'w, 's> = Query<
    'w,
    's,
    (
        &'static ContainerGrid,
        &'static mut GridState,
        Ref<'static, GridScroll>,
        Option<Ref<'static, SelectedSlot>>,
    ),
>;

/// Redraws the cells of every grid whose container, scroll, selection or
/// catalog changed: each cell's entry is compared with the one it showed,
/// and only those that differ are painted.
pub(crate) fn draw_grids(
    mut grids: Grids,
    contents: Query<Ref<ContainerContents>>,
    mut catalog_events: MessageReader<AssetEvent<ItemCatalog>>,
    mut painter: Painter,
) {
    let new_catalog = catalog_changed(&painter.looks, &mut catalog_events);
    for (grid, mut state, scroll, selected) in &mut grids {
        let held = contents.get(grid.container).ok();
        let (Some(held), Some(shape)) = (held, state.shape) else {
            painter.paint_waiting(&mut state);
            continue;
        };
        let Some(engine) = held.engine() else {
            painter.paint_waiting(&mut state);
            continue;
        };
        let selection_changed = selected.as_ref().is_some_and(|s| s.is_changed());
        let changed = held.is_changed() || scroll.is_changed() || selection_changed;
        if !(changed || state.dirty || new_catalog) {
            continue;
        }
        if new_catalog {
            state.drawn.fill(None);
        }
        let contents_now: &ContainerContents = &held;
        let view = View {
            shape,
            first_row: scroll.first_row,
            held: contents_now,
            engine,
            selected: selected.map(|s| s.0),
        };
        for position in 0..state.cells.len() {
            let wanted = Drawn::of(&view, position);
            if state.drawn[position].as_ref() == Some(&wanted) {
                continue;
            }
            painter.paint(state.cells[position], &wanted);
            state.drawn[position] = Some(wanted);
        }
        painter.paint_info(&state, &view);
        painter.paint_bar(&state, engine);
        state.dirty = false;
    }
}
