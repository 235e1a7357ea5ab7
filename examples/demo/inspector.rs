//! `--inspector`: the world inspector of `bevy-inspector-egui`, and a panel
//! with the backpack's contents as reflection shows them (capacity, slots)
//! read from a copy, so typing in the panel changes nothing: contents change
//! through requests only.

use std::any::Any;

use bevy::prelude::*;
use bevy::reflect::PartialReflect;
use bevy_container::plugin::{ContainerContents, ContentsState};
use bevy_egui::{EguiContext, EguiPlugin, EguiPrimaryContextPass, PrimaryEguiContext, egui};
use bevy_inspector_egui::inspector_egui_impls::InspectorEguiImpl;
use bevy_inspector_egui::quick::WorldInspectorPlugin;
use bevy_inspector_egui::reflect_inspector::{InspectorUi, ProjectorReflect};
use bevy_inspector_egui::{DefaultInspectorConfigPlugin, bevy_inspector};

use crate::day::Backpack;

/// The inspectors.
pub struct InspectorPlugin;

impl Plugin for InspectorPlugin {
    fn build(&self, app: &mut App) {
        if !app.is_plugin_added::<EguiPlugin>() {
            app.add_plugins(EguiPlugin::default());
        }
        if !app.is_plugin_added::<DefaultInspectorConfigPlugin>() {
            app.add_plugins(DefaultInspectorConfigPlugin);
        }
        app.add_plugins(WorldInspectorPlugin::new())
            .add_systems(EguiPrimaryContextPass, backpack_panel);
        // the engine state is opaque to reflection: shown as one line
        let registry = app.world().resource::<AppTypeRegistry>().clone();
        if let Some(r) = registry
            .write()
            .get_mut(std::any::TypeId::of::<ContentsState>())
        {
            r.insert(InspectorEguiImpl::new(
                state_ui,
                state_ui_readonly,
                state_ui_many,
            ));
        }
    }
}

/// What a container's engine state is, in one line; never edited.
fn state_line(value: &dyn Any) -> String {
    let Some(state) = value.downcast_ref::<ContentsState>() else {
        return String::new();
    };
    match (state.pending(), state.saved()) {
        (Some(_), _) => "a save waiting for its adoption to load".into(),
        (None, Some(saved)) => format!(
            "engine attached; saves as format {} under {}",
            saved.format, saved.adoption.path
        ),
        (None, None) => "no engine yet (the adoption is loading)".into(),
    }
}

fn state_ui(
    value: &mut dyn Any,
    ui: &mut egui::Ui,
    _: &dyn Any,
    _: egui::Id,
    _: InspectorUi<'_, '_>,
) -> bool {
    ui.label(state_line(value));
    false
}

fn state_ui_readonly(
    value: &dyn Any,
    ui: &mut egui::Ui,
    _: &dyn Any,
    _: egui::Id,
    _: InspectorUi<'_, '_>,
) {
    ui.label(state_line(value));
}

fn state_ui_many(
    ui: &mut egui::Ui,
    _: &dyn Any,
    _: egui::Id,
    _: InspectorUi<'_, '_>,
    _: &mut [&mut dyn PartialReflect],
    _: &dyn ProjectorReflect,
) -> bool {
    ui.label("engine states");
    false
}

/// The backpack's `ContainerContents`, reflected, in a window of its own.
fn backpack_panel(world: &mut World) {
    let Ok(mut context) = world
        .query_filtered::<&mut EguiContext, With<PrimaryEguiContext>>()
        .single(world)
        .cloned()
    else {
        return;
    };
    let Ok(contents) = world
        .query_filtered::<&ContainerContents, With<Backpack>>()
        .single(world)
        .cloned()
    else {
        return;
    };
    let mut copy = contents;
    egui::Window::new("Backpack (ContainerContents)")
        .default_pos((330.0, 60.0))
        .default_size((330.0, 520.0))
        .show(context.get_mut(), |ui| {
            ui.label(format!("capacity: {}", copy.capacity()));
            egui::ScrollArea::vertical().show(ui, |ui| {
                bevy_inspector::ui_for_value(&mut copy, ui, world);
            });
        });
}
