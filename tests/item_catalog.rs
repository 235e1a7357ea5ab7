//! The item catalog as an asset (issue 18): the demo's catalog loads from
//! the crate's assets; a catalog with mistakes (an unknown field, a type
//! listed twice, an icon that does not exist) does not load, and
//! `CatalogRejected` carries every problem with its path and fix.
#![cfg(feature = "ui")]

mod common;

use std::path::Path;

use bevy::asset::io::{
    AssetSourceBuilder, AssetSourceId,
    memory::{Dir, MemoryAssetReader},
};
use bevy::prelude::*;
use bevy_container::adoption::ProblemKind;
use bevy_container::plugin::ContainerPlugin;
use bevy_container::ui::{CatalogRejected, ContainerUiPlugin, ItemCatalog};
use common::crate_assets;

/// Runs frames until `done`, a bounded number of times.
fn update_until(app: &mut App, mut done: impl FnMut(&mut App) -> bool) {
    for _ in 0..2000 {
        app.update();
        if done(app) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    panic!("not done after 2000 updates");
}

fn loaded(app: &App, handle: &Handle<ItemCatalog>) -> bool {
    app.world()
        .resource::<Assets<ItemCatalog>>()
        .get(handle)
        .is_some()
}

#[test]
fn the_demo_catalog_loads_with_a_look_for_every_demo_item() {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, crate_assets(), ContainerPlugin::default()))
        .add_plugins(ContainerUiPlugin);
    let handle: Handle<ItemCatalog> = app.world().resource::<AssetServer>().load("demo.items.ron");
    update_until(&mut app, |app| loaded(app, &handle));
    let catalogs = app.world().resource::<Assets<ItemCatalog>>();
    let catalog = catalogs.get(&handle).unwrap();
    for id in ["berries", "axe", "letter", "flint", "ore", "gem"] {
        let look = catalog
            .get(id)
            .unwrap_or_else(|| panic!("no look for {id}"));
        assert!(!look.description.is_empty(), "{id} has no description");
    }
    assert_eq!(catalog.look("ore").name, "Iron ore");
    assert!(catalog.warnings.problems.is_empty());
}

/// An app reading assets from memory.
fn memory_app(dir: &Dir) -> App {
    let mut app = App::new();
    let d = dir.clone();
    app.register_asset_source(
        AssetSourceId::Default,
        AssetSourceBuilder::new(move || Box::new(MemoryAssetReader { root: d.clone() })),
    );
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin::default(),
        ContainerPlugin::default(),
    ))
    .add_plugins(ContainerUiPlugin);
    app
}

#[test]
fn an_icon_that_exists_loads_and_one_that_does_not_is_reported_with_the_rest() {
    let dir = Dir::default();
    dir.insert_asset(Path::new("icons/axe.png"), b"not really a png".to_vec());
    dir.insert_asset_text(
        Path::new("good.items.json"),
        r#"{"items": [{"id": "axe", "name": "Axe", "icon": "icons/axe.png", "description": "Fells trees."}]}"#,
    );
    dir.insert_asset_text(
        Path::new("bad.items.ron"),
        r##"(
            items: [
                (id: "axe", name: "Axe", icon: "icons/hatchet.png", description: ""),
                (id: "axe", name: "Axe again", colour: "#808080", description: ""),
                (id: "gem", name: "Gem", colour: "#146b7a", description: "", price: 3),
            ],
        )"##,
    );
    let mut app = memory_app(&dir);
    let server = app.world().resource::<AssetServer>().clone();
    let good: Handle<ItemCatalog> = server.load("good.items.json");
    let bad: Handle<ItemCatalog> = server.load("bad.items.ron");
    let mut rejected: Vec<CatalogRejected> = Vec::new();
    update_until(&mut app, |app| {
        let messages = app.world().resource::<Messages<CatalogRejected>>();
        rejected.extend(messages.get_cursor().read(messages).cloned());
        loaded(app, &good) && !rejected.is_empty()
    });
    assert!(server.load_state(&bad).is_failed());
    let catalogs = app.world().resource::<Assets<ItemCatalog>>();
    let axe = catalogs.get(&good).unwrap().look("axe");
    assert_eq!(axe.icon.as_deref(), Some("icons/axe.png"));

    let report = rejected[0].report.clone().expect("the report");
    let problems: Vec<(ProblemKind, &str)> = report
        .problems
        .iter()
        .map(|p| (p.kind, p.path.as_str()))
        .collect();
    assert_eq!(
        problems,
        [
            (ProblemKind::Duplicate, "/items/1/id"),
            (ProblemKind::Unknown, "/items/2/price"),
            (ProblemKind::Missing, "/items/0/icon"),
        ]
    );
    let message = &rejected[0].message;
    assert!(message.contains("bad.items.ron"), "{message}");
    assert!(
        message.contains("error at /items/0/icon: the icon \"icons/hatchet.png\" does not exist under the asset folder"),
        "{message}"
    );
}

/// How properties show: read strictly (a problem names its path), then
/// used by tooltips (labelled lines, listed ones first) and cells (a bar for
/// a number up to `max`).
#[test]
fn property_looks_are_read_strictly_and_say_how_a_property_shows() {
    use bevy_container::adoption::Format;
    use bevy_container::props::Props;
    let text = br##"{"items": [{"id": "axe", "name": "Axe", "colour": "#545466", "description": "",
        "props": [{"key": "durability", "label": "Durability", "max": 40},
                  {"key": "weight", "unit": "kg"}]}]}"##;
    let catalog = ItemCatalog::read(text, Format::Json).expect("a valid catalog");
    let look = catalog.look("axe");
    let worn = Props::parse(r#"{"durability":10,"made-by":"Olga","weight":2.5}"#).unwrap();
    assert_eq!(
        look.prop_lines(&worn),
        ["Durability: 10 / 40", "weight: 2.5 kg", "made-by: Olga"]
    );
    assert_eq!(look.bar(&worn), Some(0.25));
    assert_eq!(look.bar(&Props::EMPTY), None);
    assert!(look.prop_lines(&Props::EMPTY).is_empty());
    for (bad, at, kind) in [
        (
            br##"{"items": [{"id": "axe", "name": "Axe", "colour": "#545466", "description": "",
            "props": [{"key": "Durability"}]}]}"##
                .as_slice(),
            "/items/0/props/0/key",
            ProblemKind::Pattern,
        ),
        (
            br##"{"items": [{"id": "axe", "name": "Axe", "colour": "#545466", "description": "",
            "props": [{"key": "durability", "max": 0}]}]}"##
                .as_slice(),
            "/items/0/props/0/max",
            ProblemKind::OutOfRange,
        ),
        (
            br##"{"items": [{"id": "axe", "name": "Axe", "colour": "#545466", "description": "",
            "props": [{"key": "durability", "colour": "#fff"}]}]}"##
                .as_slice(),
            "/items/0/props/0/colour",
            ProblemKind::Unknown,
        ),
        (
            br##"{"items": [{"id": "axe", "name": "Axe", "colour": "#545466", "description": "",
            "props": {"key": "durability"}}]}"##
                .as_slice(),
            "/items/0/props",
            ProblemKind::WrongType,
        ),
    ] {
        let report = ItemCatalog::read(bad, Format::Json).expect_err("refused");
        assert!(
            report
                .problems
                .iter()
                .any(|p| p.path == at && p.kind == kind),
            "{at} {kind:?}: {report}"
        );
    }
}
