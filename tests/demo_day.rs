//! The demo's scripted day, headless: the same plugins and script the
//! windowed demo runs, checked by its final slot table and its log.

mod common;

#[path = "../examples/demo/day.rs"]
#[allow(dead_code)]
mod day;

use bevy::prelude::*;
use bevy::state::app::StatesPlugin;
use bevy_container::plugin::*;
use day::*;

#[test]
fn the_scripted_day_ends_with_the_expected_backpack() {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        common::crate_assets(),
        StatesPlugin,
        ContainerPlugin::default(),
    ))
    .add_plugins(DayPlugin {
        pace: 0,
        scripted: true,
        echo: false,
    });
    let mut frames = 0;
    while !app.world().resource::<Script>().done() {
        app.update();
        frames += 1;
        assert!(frames < 5000, "the day did not finish");
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    app.update();
    let mut q = app
        .world_mut()
        .query_filtered::<&ContainerContents, With<Backpack>>();
    let backpack = q.single(app.world()).unwrap();
    assert_eq!(
        slot_table(backpack),
        "slot  item      amount\n\
         1     berries   20\n\
         2     letter    1  {\"to\":\"the miller\"}\n\
         3     flint     1\n\
         4     flint     1\n"
    );
    let log = &app.world().resource::<DemoLog>().lines;
    let has = |s: &str| log.iter().any(|l| l.contains(s));
    assert!(
        has("backpack: 25 berries: 20 to slot 1, 5 to slot 2"),
        "{log:#?}"
    );
    // the worn axe wears down with each use, in place, and breaks
    assert!(
        has("chopped wood: backpack: 1 axe now (durability 2) in slot 3"),
        "{log:#?}"
    );
    assert!(
        has("chopped wood: backpack: 1 axe now (durability 1) in slot 3"),
        "{log:#?}"
    );
    assert!(
        has("the axe broke: backpack: took 1 axe from slot 3"),
        "{log:#?}"
    );
    assert!(
        has("backpack: 1 letter (to the miller): 1 to slot 3"),
        "{log:#?}"
    );
    // the new axe keeps its durability on the ground
    assert!(
        has("strap torn to 4 slots: backpack: 1 axe (durability 40) from slot 6 dropped nearby"),
        "{log:#?}"
    );
    assert!(has("forced removal refused"), "{log:#?}");
    assert!(
        has("400 berries: 9 to slot 1; 391 left where it is"),
        "{log:#?}"
    );
    assert!(
        has("stash: "),
        "the tuning change forced the stash: {log:#?}"
    );
    // the 391 berries and the new axe, with its durability, lie on the
    // ground; the worn one broke
    let mut p = app.world_mut().query::<&LoosePickup>();
    let ground: u32 = p
        .iter(app.world())
        .filter(|p| p.item == "berries")
        .map(|p| p.amount)
        .sum();
    assert_eq!(ground, 391);
    let axes: Vec<String> = p
        .iter(app.world())
        .filter(|p| p.item == "axe")
        .map(|p| p.props.to_string())
        .collect();
    assert_eq!(axes, [r#"{"durability":40}"#]);
}
