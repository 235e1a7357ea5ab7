//! The demo: one day out with the seed backpack (`assets/backpack.adoption.json`),
//! a chest and the camp stash, loaded through the plugin and
//! bevy_asset_loader, and drawn with the crate's inventory UI
//! (`bevy_container::ui`, items as `assets/demo.items.ron` says).
//!
//! ```text
//! cargo run --example demo --features ui                       # a window; play with the keys and the mouse
//! cargo run --example demo --features ui -- --headless         # the scripted day, printed, no window
//! cargo run --example demo --features ui -- --script           # the scripted day in the window, then play
//! cargo run --example demo --features ui -- --script --screenshot demo.png   # scripted, the backpack's letter hovered, then a screenshot
//! cargo run --example demo --features ui -- --inspector        # with the world inspector and the backpack's panel
//! xvfb-run -a cargo run --example demo           # the window where there is no display
//! ```
//!
//! In the window: arrows walk, E picks up the nearest item, 1-9 (or a
//! click on a backpack slot) select a slot, F eats a berry from it, T
//! tears the strap, O sorts, K lowers the stash's slot count through the
//! tuning key `stash-slots`. The mouse: drag a stack onto another slot or
//! another grid to move it (the right button moves half, ctrl one),
//! shift-click a stack to send it to the linked container (backpack to
//! chest, chest and stash to backpack), hover a stack for its tooltip;
//! a refused move says why under its grid. The log at the bottom tells
//! each outcome. Editing `assets/backpack.adoption.json` or
//! `assets/demo.items.ron` while it runs reloads it.
//!
//! Started without a display (on Linux and the BSDs: neither `DISPLAY` nor
//! `WAYLAND_DISPLAY` set), it says how to run instead and exits with code 2.

mod day;
mod inspector;
mod view;

use bevy::prelude::*;
use bevy::state::app::StatesPlugin;
use bevy_container::plugin::*;
use bevy_container::ui::ContainerUiPlugin;
use day::*;

/// The command line.
struct Args {
    /// `--headless`: the scripted day in text, no window.
    headless: bool,
    /// `--inspector`: the world inspector and the backpack's panel.
    inspector: bool,
    /// `--script` (or `--screenshot`): the scripted day in the window.
    script: bool,
    /// `--screenshot PATH`: a screenshot once the scripted day is done.
    screenshot: Option<String>,
}

/// Reads the command line.
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

/// What to print where there is no display.
const NO_DISPLAY: &str = "no display to open a window on: run `cargo run --example demo -- --headless` for the day in text, or run the window under `xvfb-run -a cargo run --example demo`";

/// Runs the day: in text with `--headless`, else in a window, or says how
/// to run where there is no display to open one on.
fn main() -> AppExit {
    let args = args();
    if args.headless {
        return headless();
    }
    if !have_display() {
        eprintln!("{NO_DISPLAY}");
        return AppExit::from_code(2);
    }
    windowed(args)
}

/// Whether a window can be opened: on the systems where winit reaches the
/// screen through X11 or Wayland, whether either names a display; elsewhere
/// there is always a screen.
fn have_display() -> bool {
    let x11_or_wayland = cfg!(any(
        target_os = "linux",
        target_os = "freebsd",
        target_os = "dragonfly",
        target_os = "netbsd",
        target_os = "openbsd"
    ));
    !x11_or_wayland
        || ["DISPLAY", "WAYLAND_DISPLAY"]
            .iter()
            .any(|var| std::env::var_os(var).is_some_and(|v| !v.is_empty()))
}

/// The day in a window, with the grids, the log and the keys.
fn windowed(args: Args) -> AppExit {
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
        ContainerUiPlugin,
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
