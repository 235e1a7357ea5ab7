//! The colours and sizes the grids, tooltips and drag ghosts are drawn
//! with, apart from their behaviour.

use bevy::prelude::*;

/// How container grids look. Change the resource to restyle every grid
/// (cells already drawn keep their look until they next change).
#[derive(Resource, Debug, Clone, PartialEq)]
pub struct GridStyle {
    /// An empty slot that takes items.
    pub empty: Color,
    /// A slot the container lost (a torn strap): nothing enters it.
    pub torn: Color,
    /// A slot no item may enter (past the reserved slots, or without a
    /// by-slot rule).
    pub closed: Color,
    /// The border of a cell.
    pub border: Color,
    /// The border of the selected hotbar slot.
    pub selected_border: Color,
    /// The border of a slot reserved for one type, or limited by a rule.
    pub ruled_border: Color,
    /// Text on a cell.
    pub text: Color,
    /// Text that describes an empty slot (`torn`, the type it is kept for).
    pub dim_text: Color,
    /// The status line under a grid (why a drop was refused).
    pub status_text: Color,
    /// The budget bar's background.
    pub bar_back: Color,
    /// The budget bar's fill.
    pub bar_fill: Color,
    /// The tooltip's background.
    pub tooltip_back: Color,
    /// The bar along a cell's bottom edge showing a property (a
    /// durability) that the item catalog shows as a bar.
    pub prop_bar: Color,
    /// Font size of cell text.
    pub cell_font: f32,
    /// Font size of the info, status, bar and tooltip text.
    pub small_font: f32,
    /// Height of the budget bar, in logical pixels.
    pub bar_height: f32,
}

impl Default for GridStyle {
    fn default() -> GridStyle {
        GridStyle {
            empty: Color::srgb(0.18, 0.18, 0.22),
            torn: Color::srgb(0.07, 0.05, 0.05),
            closed: Color::srgb(0.11, 0.11, 0.13),
            border: Color::srgb(0.5, 0.5, 0.55),
            selected_border: Color::srgb(1.0, 0.85, 0.2),
            ruled_border: Color::srgb(0.35, 0.55, 0.75),
            text: Color::WHITE,
            dim_text: Color::srgb(0.6, 0.6, 0.65),
            status_text: Color::srgb(1.0, 0.6, 0.5),
            bar_back: Color::srgb(0.12, 0.12, 0.15),
            bar_fill: Color::srgb(0.35, 0.65, 0.4),
            tooltip_back: Color::srgba(0.05, 0.05, 0.08, 0.92),
            prop_bar: Color::srgb(0.95, 0.8, 0.25),
            cell_font: 14.0,
            small_font: 13.0,
            bar_height: 16.0,
        }
    }
}
