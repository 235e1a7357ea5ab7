//! Loading adoption files with bevy_asset_loader: an `AssetCollection` of
//! adoptions, a loading state, and a container spawned once they are ready.
//! Headless; it asserts its result and exits.
//!
//! ```text
//! cargo run --example loading_state
//! ```

use bevy::prelude::*;
use bevy::state::app::StatesPlugin;
use bevy_asset_loader::prelude::*;
use bevy_container::plugin::*;

#[derive(States, Default, Debug, Clone, PartialEq, Eq, Hash)]
enum GameState {
    #[default]
    Loading,
    Playing,
    Failed,
}

/// Every adoption file the game uses.
#[derive(AssetCollection, Resource)]
struct Adoptions {
    #[asset(path = "backpack.adoption.json")]
    backpack: Handle<AdoptionAsset>,
    #[asset(path = "backpack.adoption.ron")]
    backpack_ron: Handle<AdoptionAsset>,
}

fn main() -> AppExit {
    App::new()
        .add_plugins((
            MinimalPlugins,
            AssetPlugin::default(),
            StatesPlugin,
            ContainerPlugin::default(),
        ))
        .init_state::<GameState>()
        .add_loading_state(
            LoadingState::new(GameState::Loading)
                .continue_to_state(GameState::Playing)
                .on_failure_continue_to_state(GameState::Failed)
                .load_collection::<Adoptions>(),
        )
        .add_systems(OnEnter(GameState::Playing), spawn_backpack)
        .add_systems(
            OnEnter(GameState::Failed),
            |mut exit: MessageWriter<AppExit>| {
                eprintln!("an adoption file failed to load");
                exit.write(AppExit::error());
            },
        )
        .add_systems(
            Update,
            (fill_backpack, check_and_exit).run_if(in_state(GameState::Playing)),
        )
        .run()
}

#[derive(Component)]
struct Backpack;

fn spawn_backpack(
    mut commands: Commands,
    adoptions: Res<Adoptions>,
    assets: Res<Assets<AdoptionAsset>>,
) {
    let json = &assets.get(&adoptions.backpack).expect("loaded").adoption;
    let ron = &assets
        .get(&adoptions.backpack_ron)
        .expect("loaded")
        .adoption;
    println!(
        "loaded both adoptions; same answers: {}",
        json.answers == ron.answers
    );
    commands.spawn((Backpack, Container::new(adoptions.backpack.clone())));
}

fn fill_backpack(
    backpack: Single<(Entity, &ContainerContents), With<Backpack>>,
    mut requests: MessageWriter<ContainerRequest>,
    mut sent: Local<bool>,
) {
    let (entity, contents) = *backpack;
    if !*sent && contents.engine().is_some() {
        requests.write(Deliver::new(entity, "berries", 25).into());
        *sent = true;
    }
}

fn check_and_exit(mut delivered: MessageReader<ItemsDelivered>, mut exit: MessageWriter<AppExit>) {
    for d in delivered.read() {
        let landed: Vec<String> = d
            .outcome
            .landed
            .iter()
            .map(|l| format!("{} to slot {}", l.amount, l.slot + 1))
            .collect();
        println!(
            "{} {}: {}",
            d.outcome.offered,
            d.outcome.item,
            landed.join(", ")
        );
        let ok = d.outcome.landed.len() == 2 && d.outcome.accepted == 25;
        exit.write(if ok {
            AppExit::Success
        } else {
            AppExit::error()
        });
    }
}
