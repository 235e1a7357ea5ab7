//! The demo: one day out with the seed backpack (`assets/backpack.adoption.json`),
//! loaded through the plugin and bevy_asset_loader.
//!
//! ```text
//! cargo run --example demo                       # a window; play with the keys shown
//! cargo run --example demo -- --headless         # the scripted day, printed, no window
//! cargo run --example demo -- --script --screenshot demo.png   # scripted, then a screenshot
//! cargo run --example demo -- --inspector        # with the world inspector and the backpack's panel
//! ```
//!
//! In the window: arrows walk, E picks up the nearest item, 1-9 choose a
//! slot, F eats a berry from it, T tears the strap, O sorts, K lowers the
//! stash's slot count through the tuning key `stash-slots`. Editing
//! `assets/backpack.adoption.json` while it runs reloads it.

mod day;
mod inspector;
mod view;

use bevy::prelude::*;
use bevy::state::app::StatesPlugin;
use bevy_container::plugin::*;
use day::*;

struct Args {
    headless: bool,
    inspector: bool,
    script: bool,
    screenshot: Option<String>,
}

fn args() -> Args {
    let all: Vec<String> = std::env::args().skip(1).collect();
    let screenshot = all
        .iter()
        .position(|a| a == "--screenshot")
        .and_then(|i| all.get(i + 1).cloned());
    Args {
        headless: all.iter().any(|a| a == "--headless"),
        inspector: all.iter().any(|a| a == "--inspector"),
        script: all.iter().any(|a| a == "--script") || screenshot.is_some(),
        screenshot,
    }
}

fn main() -> AppExit {
    let args = args();
    if args.headless {
        return headless();
    }
    let mut app = App::new();
    app.add_plugins(
        DefaultPlugins
            .set(WindowPlugin {
                primary_window: Some(Window {
                    title: "bevy_container: one day out with the backpack".into(),
                    resolution: (1280, 720).into(),
                    ..default()
                }),
                ..default()
            })
            .set(AssetPlugin {
                watch_for_changes_override: Some(true),
                ..default()
            }),
    )
    .insert_resource(ClearColor(Color::srgb(0.16, 0.22, 0.14)))
    .add_plugins((
        ContainerPlugin::default(),
        DayPlugin {
            pace: 12,
            scripted: args.script,
            echo: false,
        },
        view::ViewPlugin {
            screenshot: args.screenshot,
        },
    ));
    if args.inspector {
        app.add_plugins(inspector::InspectorPlugin);
    }
    app.run()
}

/// The scripted day without a window: prints each step and the final slot
/// table, exits 0.
fn headless() -> AppExit {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin::default(),
        StatesPlugin,
        ContainerPlugin::default(),
    ))
    .add_plugins(DayPlugin {
        pace: 0,
        scripted: true,
        echo: true,
    });
    for _ in 0..10_000 {
        app.update();
        if let Some(exit) = app.should_exit() {
            return exit;
        }
        let done = app.world().resource::<Script>().done();
        if done {
            app.update();
            let mut q = app
                .world_mut()
                .query_filtered::<&ContainerContents, With<Backpack>>();
            let Ok(backpack) = q.single(app.world()) else {
                return AppExit::error();
            };
            println!("\nthe backpack at dusk:\n{}", slot_table(backpack));
            return AppExit::Success;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    eprintln!("the day did not finish");
    AppExit::error()
}
