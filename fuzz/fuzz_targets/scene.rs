//! Scene text (a `DynamicWorld` in RON) read into a world through
//! `load_containers`. What must hold: no panic; a refusal is a message and
//! leaves the world without a container or pickup (nothing half-loads); a
//! world that loads saves to text that loads and saves again to the same
//! entities (the same text, but for the entities' numbers and order, which
//! are the new world's own).
#![no_main]

use bevy::prelude::*;
use bevy_container::plugin::scene::{load_containers, save_containers};
use bevy_container::plugin::{ContainerContents, ContainerPlugin, LoosePickup};
use libfuzzer_sys::fuzz_target;

fn app() -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin {
            file_path: concat!(env!("CARGO_MANIFEST_DIR"), "/../assets").into(),
            ..default()
        },
        ContainerPlugin::default(),
    ));
    app
}

/// The saved entities' texts, sorted, without their numbers: what a world
/// holds, whatever its entities are called.
fn entities(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        let is_head = line.starts_with("    ")
            && !line.starts_with("     ")
            && line.trim_end().ends_with(": (");
        if is_head {
            out.extend(current.take());
            current = Some(String::new());
        } else if !line.starts_with("      ") {
            // the end of an entity, or of the file
            out.extend(current.take());
        } else if let Some(c) = current.as_mut() {
            // a link names an entity by its number too (ten digits or more)
            c.push_str(&without_entities(line));
            c.push('\n');
        }
    }
    out.extend(current);
    out.sort();
    out
}

fn without_entities(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut digits = String::new();
    for ch in line.chars().chain(std::iter::once(' ')) {
        if ch.is_ascii_digit() {
            digits.push(ch);
            continue;
        }
        if digits.len() >= 10 {
            out.push_str("ENTITY");
        } else {
            out.push_str(&digits);
        }
        digits.clear();
        out.push(ch);
    }
    out.pop();
    out
}

fn held(world: &mut World) -> usize {
    world
        .query_filtered::<Entity, Or<(With<ContainerContents>, With<LoosePickup>)>>()
        .iter(world)
        .count()
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut first = app();
    match load_containers(first.world_mut(), text) {
        Ok(_) => {
            let saved = save_containers(first.world_mut()).expect("a loaded world saves");
            let mut second = app();
            load_containers(second.world_mut(), &saved).expect("a saved world loads");
            let again = save_containers(second.world_mut()).expect("a loaded world saves");
            let (a, b) = (entities(&saved), entities(&again));
            if a != b {
                let differ: Vec<String> = a
                    .iter()
                    .flat_map(|e| e.lines())
                    .zip(b.iter().flat_map(|e| e.lines()))
                    .filter(|(x, y)| x != y)
                    .take(5)
                    .map(|(x, y)| format!("{x}  /  {y}"))
                    .collect();
                panic!("a saved world round-trips to the same entities: {differ:#?}");
            }
        }
        Err(e) => {
            assert!(!e.to_string().is_empty());
            assert_eq!(
                held(first.world_mut()),
                0,
                "a refused scene loads nothing: {e}"
            );
        }
    }
});
