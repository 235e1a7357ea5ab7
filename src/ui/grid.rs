//! The grid: a container's slots as UI cells, fitted to the container and
//! scrolled through a window of rows.
//!
//! A [`ContainerGrid`] builds, under its own node, a column of: an info
//! line (capacity, torn slots, the rows shown), the cells, a budget bar
//! (for containers with a size budget) and a status line ([`GridStatus`]:
//! why a drop was refused). It never builds more cells than
//! `visible_rows * columns`: a 10,000-slot bank is 80 cells that the mouse
//! wheel rebinds to other slots. Painting the cells is `cells.rs`'s job.

use bevy::input::mouse::MouseScrollUnit;
use bevy::picking::events::{Pointer, Scroll};
use bevy::prelude::*;

use super::drawn::Drawn;
use super::style::GridStyle;
use crate::adoption::MAX_SLOTS;
use crate::plugin::ContainerContents;

/// A container shown as a grid of slot cells: put it on a UI node (it
/// brings a [`Node`]; give your own to place it). The grid builds its
/// cells, redraws only the cells whose slot changed, and turns drags,
/// clicks and the mouse wheel into the plugin's requests.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_container::ui::ContainerGrid;
///
/// fn open_bank(mut commands: Commands, bank: Single<Entity, With<bevy_container::plugin::Container>>) {
///     commands.spawn((
///         ContainerGrid::new(*bank, 10).visible_rows(8),
///         Node { position_type: PositionType::Absolute, right: px(16), top: px(16), ..default() },
///     ));
/// }
/// # let _ = open_bank;
/// ```
#[derive(Component, Reflect, Debug, Clone, PartialEq)]
#[reflect(Component)]
#[require(Node, GridScroll)]
pub struct ContainerGrid {
    /// The container entity shown.
    pub container: Entity,
    /// Cells per row (slotless containers show one holding per row).
    pub columns: u16,
    /// Rows shown at once; a container with more rows scrolls.
    pub visible_rows: u16,
    /// A cell's side, in logical pixels.
    pub cell_size: f32,
    /// The gap between cells, in logical pixels.
    pub gap: f32,
}

impl ContainerGrid {
    /// A grid of `container` with `columns` cells per row, 8 rows shown,
    /// 64-pixel cells 4 pixels apart.
    pub fn new(container: Entity, columns: u16) -> ContainerGrid {
        ContainerGrid {
            container,
            columns: columns.max(1),
            visible_rows: 8,
            cell_size: 64.0,
            gap: 4.0,
        }
    }

    /// Shows `rows` rows at once (at least one).
    pub fn visible_rows(mut self, rows: u16) -> ContainerGrid {
        self.visible_rows = rows.max(1);
        self
    }

    /// Cells of `size` logical pixels, `gap` apart.
    pub fn cell_size(mut self, size: f32, gap: f32) -> ContainerGrid {
        self.cell_size = size;
        self.gap = gap;
        self
    }

    /// The width of a row of cells, in logical pixels.
    pub fn width(&self) -> f32 {
        let columns = f32::from(self.columns.max(1));
        columns * self.cell_size + (columns - 1.0) * self.gap
    }
}

/// The first row a grid shows; the mouse wheel over the grid moves it, and
/// a game may set it (it is clamped to the rows there are).
#[derive(Component, Reflect, Debug, Clone, Copy, Default, PartialEq, Eq)]
#[reflect(Component)]
pub struct GridScroll {
    /// The first row shown, from 0.
    pub first_row: u32,
}

/// One cell of a grid. Cells are rebound to other slots when the grid
/// scrolls; read which slot a cell shows here.
#[derive(Component, Debug, Clone, PartialEq, Eq)]
pub struct SlotCell {
    pub(crate) grid: Entity,
    pub(crate) slot: u32,
    pub(crate) bound: bool,
    pub(crate) label: Entity,
    pub(crate) icon: Option<Entity>,
    /// The bar of a property shown as one (a durability), once needed.
    pub(crate) bar: Option<Entity>,
}

impl SlotCell {
    /// The grid entity this cell belongs to.
    pub fn grid(&self) -> Entity {
        self.grid
    }

    /// The slot it shows (for a slotless container, the row of the holding
    /// in type order); `None` for a cell past the container's last slot.
    pub fn slot(&self) -> Option<u32> {
        self.bound.then_some(self.slot)
    }

    /// The text entity that shows the item's name and amount.
    pub fn label(&self) -> Entity {
        self.label
    }
}

/// The status line of a grid: why the last drop or shift-click on it was
/// refused, in words, or what a partial transfer left behind.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub struct GridStatus {
    pub(crate) grid: Entity,
}

impl GridStatus {
    /// The grid this line belongs to.
    pub fn grid(&self) -> Entity {
        self.grid
    }
}

/// Marks the label of a cell.
#[derive(Component, Debug)]
pub(crate) struct CellLabel;

/// Marks the icon of a cell.
#[derive(Component, Debug)]
pub(crate) struct CellIcon;

/// Marks the budget bar and its fill.
#[derive(Component, Debug)]
pub(crate) struct BarPart;

/// How a container fills a grid: how many slots (or holdings), in how many
/// columns, and the window of rows shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Shape {
    /// Holdings in rows rather than slots.
    pub slotless: bool,
    /// Cells per row.
    pub columns: u32,
    /// Slots (or holdings) to show in all.
    pub total: u32,
    /// Rows in all.
    pub rows_total: u32,
    /// Rows shown at once.
    pub window_rows: u32,
}

impl Shape {
    /// The shape of `held` in `grid`, once its rules are attached. Slots
    /// count up to the largest of the slots in use, the capacity in force
    /// and the adoption's slot count (so torn slots stay visible); a
    /// `no-limit` container shows one spare row to drop into.
    pub(crate) fn of(grid: &ContainerGrid, held: &ContainerContents) -> Option<Shape> {
        let engine = held.engine()?;
        let rules = engine.rules();
        let wanted_columns = u32::from(grid.columns.max(1));
        let in_use = u32::try_from(engine.slot_len()).unwrap_or(MAX_SLOTS);
        let (slotless, columns, total) = if !rules.has_slots() {
            let holdings = u32::try_from(held.slots().len()).unwrap_or(u32::MAX);
            (true, 1, holdings)
        } else if rules.has_slot_limit() {
            let total = in_use.max(engine.limits().slot_count).max(rules.slot_count);
            (false, wanted_columns, total)
        } else {
            let spare = (in_use / wanted_columns + 1).saturating_mul(wanted_columns);
            (false, wanted_columns, spare.min(MAX_SLOTS))
        };
        let rows_total = total.div_ceil(columns);
        let window_rows = rows_total.min(u32::from(grid.visible_rows.max(1)));
        Some(Shape {
            slotless,
            columns,
            total,
            rows_total,
            window_rows,
        })
    }

    /// How many cells the grid builds.
    pub(crate) fn cells(&self) -> usize {
        (self.window_rows * self.columns) as usize
    }

    /// The last first row there is.
    pub(crate) fn max_first_row(&self) -> u32 {
        self.rows_total - self.window_rows
    }

    /// Whether the container has more rows than are shown.
    pub(crate) fn is_windowed(&self) -> bool {
        self.rows_total > self.window_rows
    }

    /// The slot the cell at `position` shows when `first_row` is the first
    /// row shown; `None` past the last slot.
    pub(crate) fn slot_at(&self, first_row: u32, position: usize) -> Option<u32> {
        let first = first_row.min(self.max_first_row());
        let slot = first * self.columns + u32::try_from(position).ok()?;
        (slot < self.total).then_some(slot)
    }
}

/// What a grid built and what its cells last showed.
#[derive(Component, Debug)]
pub(crate) struct GridState {
    /// The node that holds the cells.
    pub cells_node: Entity,
    /// The info line.
    pub info: Entity,
    /// The budget bar, its fill and its text.
    pub bar: Entity,
    pub bar_fill: Entity,
    pub bar_text: Entity,
    /// The status line.
    pub status: Entity,
    /// The cells, in order.
    pub cells: Vec<Entity>,
    /// What each cell last showed (`None`: never drawn, or to redraw).
    pub drawn: Vec<Option<Drawn>>,
    /// The container's shape when last fitted.
    pub shape: Option<Shape>,
    /// The grid as the cells were built for.
    pub seen: Option<ContainerGrid>,
    /// Redraw every cell whose entry differs, even if nothing changed.
    pub dirty: bool,
}

/// The node that lays the cells out.
fn cells_layout(grid: &ContainerGrid, slotless: bool) -> Node {
    let (columns, track) = if slotless {
        (1, grid.width())
    } else {
        (grid.columns.max(1), grid.cell_size)
    };
    Node {
        display: Display::Grid,
        grid_template_columns: RepeatedGridTrack::px(columns, track),
        row_gap: px(grid.gap),
        column_gap: px(grid.gap),
        ..default()
    }
}

/// Builds a new grid's frame: info line, cells node, budget bar, status.
pub(crate) fn frame_new_grid(
    add: On<Add, ContainerGrid>,
    grids: Query<&ContainerGrid>,
    style: Res<GridStyle>,
    mut commands: Commands,
) {
    let grid_e = add.entity;
    let Ok(grid) = grids.get(grid_e) else {
        return;
    };
    let width = grid.width();
    let small = TextFont::from_font_size(style.small_font);
    let column = Node {
        flex_direction: FlexDirection::Column,
        row_gap: px(grid.gap.max(2.0)),
        ..default()
    };
    let frame = commands.spawn((column, ChildOf(grid_e))).id();
    let text = |colour: Color| {
        (
            Text::new(""),
            small.clone(),
            TextColor(colour),
            Pickable::IGNORE,
        )
    };
    let info = commands.spawn((text(style.dim_text), ChildOf(frame))).id();
    let cells_node = commands
        .spawn((cells_layout(grid, false), ChildOf(frame)))
        .id();
    let (bar, bar_fill, bar_text) = spawn_bar(&mut commands, frame, width, &style);
    let status_node = Node {
        max_width: px(width),
        ..default()
    };
    let status = commands
        .spawn((
            text(style.status_text),
            status_node,
            GridStatus { grid: grid_e },
            ChildOf(frame),
        ))
        .id();
    commands.entity(grid_e).try_insert(GridState {
        cells_node,
        info,
        bar,
        bar_fill,
        bar_text,
        status,
        cells: Vec::new(),
        drawn: Vec::new(),
        shape: None,
        seen: None,
        dirty: true,
    });
}

/// The budget bar (hidden until the container has a budget): the bar,
/// its fill and its text.
fn spawn_bar(
    commands: &mut Commands,
    frame: Entity,
    width: f32,
    style: &GridStyle,
) -> (Entity, Entity, Entity) {
    let bar_node = Node {
        width: px(width),
        height: px(style.bar_height),
        display: Display::None,
        ..default()
    };
    let back = BackgroundColor(style.bar_back);
    let bar = commands
        .spawn((BarPart, bar_node, back, ChildOf(frame)))
        .id();
    let fill = Node {
        width: percent(0),
        height: percent(100),
        ..default()
    };
    let colour = BackgroundColor(style.bar_fill);
    let bar_fill = commands
        .spawn((BarPart, fill, colour, Pickable::IGNORE, ChildOf(bar)))
        .id();
    let over_bar = Node {
        position_type: PositionType::Absolute,
        left: px(4),
        ..default()
    };
    let text = (
        Text::new(""),
        TextFont::from_font_size(style.small_font),
        TextColor(style.text),
        Pickable::IGNORE,
    );
    let bar_text = commands.spawn((text, over_bar, ChildOf(bar))).id();
    (bar, bar_fill, bar_text)
}

/// Fits each grid to its container: (re)builds the cells when the number
/// of cells changes (or the grid itself does), and clamps the scroll.
pub(crate) fn fit_grids(
    mut commands: Commands,
    mut grids: Query<(Entity, &ContainerGrid, &mut GridState, &mut GridScroll)>,
    contents: Query<&ContainerContents>,
    mut nodes: Query<&mut Node>,
    style: Res<GridStyle>,
) {
    for (grid_e, grid, mut state, mut scroll) in &mut grids {
        let shape = contents
            .get(grid.container)
            .ok()
            .and_then(|held| Shape::of(grid, held));
        let same_cells = |a: Option<Shape>| a.map(|s| (s.cells(), s.slotless));
        if state.seen.as_ref() != Some(grid) || same_cells(state.shape) != same_cells(shape) {
            respawn_cells(&mut commands, grid_e, grid, &mut state, shape, &style);
            let slotless = shape.is_some_and(|s| s.slotless);
            if let Ok(mut node) = nodes.get_mut(state.cells_node) {
                *node = cells_layout(grid, slotless);
            }
            state.seen = Some(grid.clone());
        }
        if state.shape != shape {
            state.shape = shape;
            state.dirty = true;
        }
        if let Some(shape) = shape
            && scroll.first_row > shape.max_first_row()
        {
            scroll.first_row = shape.max_first_row();
        }
    }
}

/// Despawns a grid's cells and builds `shape.cells()` new ones.
fn respawn_cells(
    commands: &mut Commands,
    grid_e: Entity,
    grid: &ContainerGrid,
    state: &mut GridState,
    shape: Option<Shape>,
    style: &GridStyle,
) {
    for cell in state.cells.drain(..) {
        commands.entity(cell).try_despawn();
    }
    state.drawn.clear();
    state.dirty = true;
    let Some(shape) = shape else {
        return;
    };
    for _ in 0..shape.cells() {
        let cell = spawn_cell(
            commands,
            grid_e,
            grid,
            shape.slotless,
            state.cells_node,
            style,
        );
        state.cells.push(cell);
        state.drawn.push(None);
    }
}

/// One cell (hidden until painted) with its label.
fn spawn_cell(
    commands: &mut Commands,
    grid_e: Entity,
    grid: &ContainerGrid,
    slotless: bool,
    parent: Entity,
    style: &GridStyle,
) -> Entity {
    let (width, height) = if slotless {
        (
            grid.width(),
            (grid.cell_size * 0.5).max(style.cell_font * 1.8),
        )
    } else {
        (grid.cell_size, grid.cell_size)
    };
    let label = commands
        .spawn((
            CellLabel,
            Text::new(""),
            TextFont::from_font_size(style.cell_font),
            TextColor(style.text),
            TextLayout::justify(Justify::Center),
            ZIndex(1),
            Pickable::IGNORE,
        ))
        .id();
    let node = Node {
        width: px(width),
        height: px(height),
        border: UiRect::all(px(2)),
        border_radius: BorderRadius::all(px(6)),
        justify_content: JustifyContent::Center,
        align_items: AlignItems::Center,
        overflow: Overflow::clip(),
        ..default()
    };
    let cell = SlotCell {
        grid: grid_e,
        slot: 0,
        bound: false,
        label,
        icon: None,
        bar: None,
    };
    let cell = commands
        .spawn((
            cell,
            node,
            BackgroundColor(style.empty),
            BorderColor::all(style.border),
            Visibility::Hidden,
            ChildOf(parent),
        ))
        .id();
    commands.entity(label).insert(ChildOf(cell));
    cell
}

/// The mouse wheel over a grid scrolls its rows (a line is a row; pixels
/// count in cell heights).
pub(crate) fn scroll_grid(
    mut scroll: On<Pointer<Scroll>>,
    mut grids: Query<(&ContainerGrid, &GridState, &mut GridScroll)>,
) {
    let Ok((grid, state, mut at)) = grids.get_mut(scroll.entity) else {
        return;
    };
    scroll.propagate(false);
    let Some(shape) = state.shape else {
        return;
    };
    let lines = match scroll.unit {
        MouseScrollUnit::Line => scroll.y,
        MouseScrollUnit::Pixel => scroll.y / (grid.cell_size + grid.gap).max(1.0),
    };
    // the wheel turned up (positive) shows earlier rows
    let mut rows = -lines.round();
    if rows == 0.0 && lines != 0.0 {
        rows = -lines.signum();
    }
    let next = (i64::from(at.first_row) + rows as i64).clamp(0, i64::from(shape.max_first_row()));
    let next = u32::try_from(next).unwrap_or(0);
    if at.first_row != next {
        at.first_row = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(total: u32, columns: u32, visible: u32) -> Shape {
        let rows_total = total.div_ceil(columns);
        Shape {
            slotless: false,
            columns,
            total,
            rows_total,
            window_rows: rows_total.min(visible),
        }
    }

    #[test]
    fn a_bank_builds_only_its_window_of_cells() {
        let bank = shape(10_000, 10, 8);
        assert_eq!(bank.cells(), 80);
        assert!(bank.is_windowed());
        assert_eq!(bank.max_first_row(), 992);
        assert_eq!(bank.slot_at(0, 0), Some(0));
        assert_eq!(bank.slot_at(3, 5), Some(35));
        assert_eq!(bank.slot_at(5000, 79), Some(9999)); // clamped to the last window
    }

    #[test]
    fn cells_past_the_last_slot_show_nothing() {
        let pouch = shape(10, 4, 8);
        assert_eq!(pouch.cells(), 12);
        assert!(!pouch.is_windowed());
        assert_eq!(pouch.slot_at(0, 9), Some(9));
        assert_eq!(pouch.slot_at(0, 10), None);
    }
}
