//! Container grids in Bevy UI (feature `ui`: `bevy_ui`, `bevy_text` and
//! `bevy_picking` only).
//!
//! Put a [`ContainerGrid`] on a UI node, naming a container entity: the grid
//! builds a cell per slot, and from then on redraws only the cells whose
//! slot changed (`Changed<ContainerContents>`, compared cell by cell with
//! what each showed). Slotless containers show a row per holding and a
//! budget bar; slots a torn strap took are drawn as `torn`, slots kept for
//! one type (fill order `not-applicable`) and by-slot rules show the types
//! they take. A container with more rows than `visible_rows` builds only
//! `visible_rows * columns` cells and scrolls them with the mouse wheel
//! ([`GridScroll`]): a 10,000-slot bank is 80 cells.
//!
//! Items look as the [`ItemCatalog`] in use ([`UiCatalog`]) says: a
//! `*.items.ron` or `*.items.json` file, loaded, validated and hot-reloaded
//! like an adoption file; a type it lacks shows its id in a colour derived
//! from the id.
//!
//! Interactions (bevy_picking observers on the cells) all go through
//! [`ContainerRequest`](crate::plugin::ContainerRequest)s, so every rule
//! and outcome is the same as on any other path:
//!
//! | gesture | request |
//! | --- | --- |
//! | left-drag a stack onto another slot of its container | `MoveItems` of the whole stack (another type there swaps) |
//! | right-drag | the same with half the stack, rounded up ([`Split::Half`]) |
//! | ctrl + left-drag | the same with one item ([`Split::One`]) |
//! | drag onto a slot of another container's grid | `Transfer` to that slot (whole stacks of two types swap) |
//! | drag onto another grid's background, or a slotless grid | `Transfer` by the target's fill order |
//! | shift + click a stack | `Transfer` of the stack to the grid's [`LinkedContainer`] |
//! | hover a cell | the tooltip: name, amount, description, stack limit, category ([`TooltipText`]) |
//! | keys 1 to 9 and 0, or a click, on a [`Hotbar`] grid | selects the slot ([`SelectedSlot`]) |
//! | mouse wheel over a grid | scrolls its rows |
//!
//! A refused drop (or shift-click) shows why on the grid's status line
//! ([`GridStatus`]), the outcome's reason in words ([`in_words`]), and is
//! reported as [`DropRefused`].
//!
//! [`ContainerUiPlugin`] adds, in `Update`:
//!
//! | set | systems |
//! | --- | --- |
//! | [`ContainerUiSystems::Input`] | number keys select hotbar slots |
//! | [`ContainerUiSystems::Feedback`] (after [`crate::plugin::ContainerSystems::Requests`]) | outcomes of the grids' requests to their status lines and [`DropRefused`]; catalogs that failed to load to [`CatalogRejected`] |
//! | [`ContainerUiSystems::Draw`] | fit each grid to its container (cells built or rebuilt), then redraw the cells that changed |
//!
//! and the observers of the gestures above. Add it after `AssetPlugin` and
//! `ContainerPlugin`; a game also needs Bevy's UI, text and picking plugins
//! (`DefaultPlugins` has them) for the grid to be laid out, drawn and
//! clicked.
//!
//! ```
//! use bevy::prelude::*;
//! use bevy_container::adoption::{self, Format};
//! use bevy_container::plugin::*;
//! use bevy_container::ui::*;
//!
//! // a pouch of three slots of five herbs
//! let bytes = br#"{"contract": "container", "version": 1,
//!   "answers": {"capacity-limit": "slot-count", "partial-acceptance": "fill-what-fits",
//!     "leftover-destination": "left-where-it-is", "fill-order": "top-up-then-first-empty",
//!     "draw-order": "first-in-order", "type-restriction": "any-item"},
//!   "values": {"slot-count": 3, "size-budget": 0},
//!   "rows": {"items": [{"id": "herb", "stack-limit": 5, "when-forced-out": "never"}]}}"#;
//! let pouch_rules = adoption::read(bytes, Format::Json, Default::default()).unwrap();
//!
//! let mut app = App::new();
//! // a game adds DefaultPlugins (with UI, text and picking) instead
//! app.add_plugins((MinimalPlugins, AssetPlugin::default(), ContainerPlugin::default()))
//!     .add_plugins(ContainerUiPlugin);
//! let herb = ItemLook {
//!     name: "Herb".into(),
//!     icon: None,
//!     colour: Color::srgb(0.2, 0.45, 0.2),
//!     description: "Heals a little.".into(),
//!     category: Some("plant".into()),
//!     props: Vec::new(),
//! };
//! let catalog = ItemCatalog::from_looks([("herb", herb)]);
//! let catalog = app.world_mut().resource_mut::<Assets<ItemCatalog>>().add(catalog);
//! app.insert_resource(UiCatalog(catalog));
//! let rules = app.world_mut().resource_mut::<Assets<AdoptionAsset>>().add(AdoptionAsset::new(pouch_rules));
//! let pouch = app.world_mut().spawn(Container::new(rules)).id();
//! let grid = app.world_mut().spawn(ContainerGrid::new(pouch, 3)).id();
//! app.update(); // the rules attach; the grid builds its three cells
//!
//! app.world_mut().write_message(ContainerRequest::from(Deliver::new(pouch, "herb", 7)));
//! app.update(); // five herbs in the first slot, two in the second: two cells redraw
//!
//! let mut cells = app.world_mut().query::<&SlotCell>();
//! let cells: Vec<SlotCell> = cells.iter(app.world()).filter(|c| c.grid() == grid).cloned().collect();
//! assert_eq!(cells.len(), 3);
//! let label = |slot: u32| {
//!     let cell = cells.iter().find(|c| c.slot() == Some(slot)).unwrap();
//!     app.world().get::<Text>(cell.label()).unwrap().0.clone()
//! };
//! assert_eq!(label(0), "Herb\n5");
//! assert_eq!(label(1), "Herb\n2");
//! assert_eq!(label(2), "");
//! ```

mod catalog;
mod cells;
mod drag;
mod drawn;
mod feedback;
mod grid;
mod hotbar;
mod style;
mod tooltip;

use bevy::prelude::*;

pub use catalog::{
    CatalogLoadError, CatalogRejected, ItemCatalog, ItemCatalogLoader, ItemLook, ItemLooks,
    PropLook, UiCatalog, colour_of_id,
};
pub use drag::{LinkedContainer, Split};
pub use feedback::{DropRefused, in_words};
pub use grid::{ContainerGrid, GridScroll, GridStatus, SlotCell};
pub use hotbar::{Hotbar, SelectedSlot};
pub use style::GridStyle;
pub use tooltip::TooltipText;

use crate::plugin::ContainerSystems;

/// The UI plugin's system sets in `Update`, run in this order.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ContainerUiSystems {
    /// Keyboard input: hotbar selection.
    Input,
    /// The outcomes of the grids' requests, after the plugin answered them.
    Feedback,
    /// Grids fitted to their containers and redrawn.
    Draw,
}

/// Container grids, the item catalog, drag and drop, tooltips and hotbars.
/// Add it after `AssetPlugin` and [`ContainerPlugin`](crate::plugin::ContainerPlugin).
#[derive(Debug, Clone, Copy, Default)]
pub struct ContainerUiPlugin;

impl Plugin for ContainerUiPlugin {
    fn build(&self, app: &mut App) {
        app.init_asset::<ItemCatalog>()
            .init_asset_loader::<ItemCatalogLoader>()
            .init_resource::<UiCatalog>()
            .init_resource::<GridStyle>()
            .init_resource::<drag::UiDrag>()
            .init_resource::<feedback::PendingDrops>()
            .init_resource::<tooltip::TooltipState>()
            .add_message::<DropRefused>()
            .add_message::<CatalogRejected>()
            .add_plugins((register_types, observers))
            .configure_sets(
                Update,
                (
                    ContainerUiSystems::Input,
                    ContainerUiSystems::Feedback.after(ContainerSystems::Requests),
                    ContainerUiSystems::Draw,
                )
                    .chain(),
            )
            .add_systems(
                Update,
                hotbar::select_by_number_keys.in_set(ContainerUiSystems::Input),
            )
            .add_systems(
                Update,
                (feedback::report_outcomes, catalog::report_rejected_catalogs)
                    .in_set(ContainerUiSystems::Feedback),
            )
            .add_systems(
                Update,
                (grid::fit_grids, cells::draw_grids)
                    .chain()
                    .in_set(ContainerUiSystems::Draw),
            );
    }
}

/// Registers the reflected components.
fn register_types(app: &mut App) {
    app.register_type::<ContainerGrid>()
        .register_type::<GridScroll>()
        .register_type::<LinkedContainer>()
        .register_type::<Hotbar>()
        .register_type::<SelectedSlot>();
}

/// The observers of the gestures: build a grid's frame, scroll, drag,
/// drop, shift-click, select, and the tooltip.
fn observers(app: &mut App) {
    app.add_observer(grid::frame_new_grid)
        .add_observer(grid::scroll_grid)
        .add_observer(drag::start_drag)
        .add_observer(drag::follow_drag)
        .add_observer(drag::drop_stack)
        .add_observer(drag::end_drag)
        .add_observer(drag::cancel_drags)
        .add_observer(drag::shift_click)
        .add_observer(hotbar::select_on_click)
        .add_observer(tooltip::show_tooltip)
        .add_observer(tooltip::hide_tooltip)
        .add_observer(tooltip::hide_tooltip_on_drag);
}
