//! What the player sees: the world with its loose pickups, the backpack and
//! stash grids, the log, the controls; keyboard play; the screenshot.

use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured, save_to_disk};
use bevy_container::plugin::*;

use crate::day::*;

/// The windowed view.
pub struct ViewPlugin {
    /// Save a screenshot here once the scripted day is done, then exit.
    pub screenshot: Option<String>,
}

#[derive(Resource)]
struct ScreenshotPath(Option<String>);

#[derive(Resource, Default)]
struct Selected(u32);

#[derive(Component)]
struct Cell {
    stash: bool,
    index: usize,
}

#[derive(Component)]
struct CellText {
    stash: bool,
    index: usize,
}

#[derive(Component)]
struct LogText;

#[derive(Component)]
struct BackpackTitle;

#[derive(Component)]
struct Label(Entity);

impl Plugin for ViewPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(ScreenshotPath(self.screenshot.clone()))
            .init_resource::<Selected>()
            .add_systems(Startup, spawn_ui)
            .add_systems(
                Update,
                (
                    dress_world,
                    label_pickups,
                    show_grids,
                    show_log,
                    play,
                    take_screenshot,
                )
                    .run_if(in_state(DemoState::Playing)),
            );
    }
}

const SLOT: f32 = 92.0;

/// Where the loose pickups lie.
type PickupPlaces<'w, 's> =
    Query<'w, 's, (Entity, &'static Transform), (With<LoosePickup>, Without<Player>)>;

fn item_color(item: &str) -> Color {
    match item {
        "berries" => Color::srgb(0.75, 0.2, 0.45),
        "axe" => Color::srgb(0.62, 0.62, 0.68),
        "letter" => Color::srgb(0.93, 0.88, 0.7),
        "flint" => Color::srgb(0.35, 0.35, 0.4),
        "ore" => Color::srgb(0.55, 0.36, 0.2),
        "gem" => Color::srgb(0.3, 0.85, 0.9),
        _ => Color::srgb(0.9, 0.6, 0.2),
    }
}

/// A darker shade of the item's colour, for a grid cell under white text.
fn cell_color(item: &str) -> Color {
    match item {
        "berries" => Color::srgb(0.45, 0.1, 0.28),
        "axe" => Color::srgb(0.33, 0.33, 0.4),
        "letter" => Color::srgb(0.45, 0.4, 0.22),
        "flint" => Color::srgb(0.24, 0.24, 0.3),
        "ore" => Color::srgb(0.38, 0.24, 0.12),
        "gem" => Color::srgb(0.08, 0.42, 0.48),
        _ => Color::srgb(0.45, 0.3, 0.1),
    }
}

fn text(s: impl Into<String>, size: f32, color: Color) -> impl Bundle {
    (
        Text::new(s),
        TextFont::from_font_size(size),
        TextColor(color),
    )
}

fn grid(parent: &mut ChildSpawnerCommands, stash: bool, columns: u16, count: usize) {
    parent
        .spawn(Node {
            display: Display::Grid,
            grid_template_columns: RepeatedGridTrack::px(columns, SLOT),
            row_gap: px(6),
            column_gap: px(6),
            ..default()
        })
        .with_children(|g| {
            for index in 0..count {
                g.spawn((
                    Cell { stash, index },
                    Node {
                        height: px(if stash { 56 } else { 70 }),
                        border: UiRect::all(px(2)),
                        border_radius: BorderRadius::all(px(6)),
                        flex_direction: FlexDirection::Column,
                        justify_content: JustifyContent::Center,
                        align_items: AlignItems::Center,
                        ..default()
                    },
                    BorderColor::all(Color::srgb(0.5, 0.5, 0.55)),
                    BackgroundColor(Color::srgb(0.18, 0.18, 0.22)),
                ))
                .with_children(|c| {
                    c.spawn((CellText { stash, index }, text("", 15.0, Color::WHITE)));
                });
            }
        });
}

fn spawn_ui(mut commands: Commands) {
    commands.spawn(Camera2d);
    // controls, top left
    commands.spawn((
        Node { position_type: PositionType::Absolute, left: px(12), top: px(10), ..default() },
        text(
            "arrows: walk   E: pick up   1-9: choose slot   F: eat a berry\nT: tear the strap   O: sort   K: stash-slots - 1 (tuning)",
            15.0,
            Color::srgb(0.9, 0.95, 0.85),
        ),
    ));
    // backpack and stash, right
    commands
        .spawn((
            Node {
                position_type: PositionType::Absolute,
                right: px(16),
                top: px(12),
                padding: UiRect::all(px(10)),
                row_gap: px(8),
                flex_direction: FlexDirection::Column,
                ..default()
            },
            BackgroundColor(Color::srgba(0.0, 0.0, 0.0, 0.55)),
        ))
        .with_children(|p| {
            p.spawn((BackpackTitle, text("Backpack", 20.0, Color::WHITE)));
            grid(p, false, 4, 12);
            p.spawn(text("Stash (tuning key stash-slots)", 18.0, Color::WHITE));
            grid(p, true, 4, 8);
        });
    // log, bottom left
    commands
        .spawn((
            Node {
                position_type: PositionType::Absolute,
                left: px(12),
                bottom: px(12),
                width: px(820),
                padding: UiRect::all(px(8)),
                ..default()
            },
            BackgroundColor(Color::srgba(0.0, 0.0, 0.0, 0.6)),
        ))
        .with_children(|p| {
            p.spawn((LogText, text("", 14.0, Color::srgb(0.95, 0.95, 0.8))));
        });
}

fn dress_world(
    mut commands: Commands,
    players: Query<Entity, Added<Player>>,
    stashes: Query<Entity, Added<Stash>>,
) {
    for e in &players {
        commands.entity(e).insert(Sprite::from_color(
            Color::srgb(0.25, 0.8, 0.35),
            Vec2::splat(36.0),
        ));
        commands.entity(e).with_child((
            Text2d::new("you"),
            TextFont::from_font_size(14.0),
            Transform::from_xyz(0.0, 30.0, 1.0),
        ));
    }
    for e in &stashes {
        commands.entity(e).insert(Sprite::from_color(
            Color::srgb(0.45, 0.3, 0.15),
            Vec2::splat(64.0),
        ));
        commands.entity(e).with_child((
            Text2d::new("stash"),
            TextFont::from_font_size(14.0),
            Transform::from_xyz(0.0, 44.0, 1.0),
        ));
    }
}

fn label_pickups(
    mut commands: Commands,
    added: Query<(Entity, &LoosePickup), Added<LoosePickup>>,
    changed: Query<(&LoosePickup, &Label), Changed<LoosePickup>>,
    mut texts: Query<&mut Text2d>,
) {
    for (e, p) in &added {
        let label = commands
            .spawn((
                Text2d::new(format!("{} {}", p.amount, p.item)),
                TextFont::from_font_size(14.0),
                Transform::from_xyz(0.0, 24.0, 2.0),
            ))
            .id();
        commands
            .entity(e)
            .insert((
                Sprite::from_color(item_color(&p.item), Vec2::splat(22.0)),
                Label(label),
            ))
            .add_child(label);
    }
    for (p, label) in &changed {
        if let Ok(mut t) = texts.get_mut(label.0) {
            t.0 = format!("{} {}", p.amount, p.item);
        }
    }
}

fn show_grids(
    backpack: Single<&ContainerContents, With<Backpack>>,
    stash: Single<&ContainerContents, With<Stash>>,
    selected: Res<Selected>,
    mut title: Single<&mut Text, With<BackpackTitle>>,
    mut cells: Query<(&Cell, &mut BackgroundColor, &mut BorderColor)>,
    mut texts: Query<(&CellText, &mut Text), Without<BackpackTitle>>,
) {
    let slots_of = |c: &ContainerContents| c.engine().map_or(0, |e| e.limits().slot_count as usize);
    let (bag_slots, stash_slots) = (slots_of(&backpack), slots_of(&stash));
    title.0 = format!("Backpack: {bag_slots} of 12 slots");
    for (cell, mut bg, mut border) in &mut cells {
        let (contents, count) = if cell.stash {
            (&*stash, stash_slots)
        } else {
            (&*backpack, bag_slots)
        };
        let slot = contents.slots().get(cell.index).cloned().flatten();
        bg.0 = if cell.index >= count {
            Color::srgb(0.08, 0.06, 0.06)
        } else if let Some((item, _)) = &slot {
            cell_color(item)
        } else {
            Color::srgb(0.18, 0.18, 0.22)
        };
        let chosen = !cell.stash && cell.index as u32 == selected.0;
        *border = BorderColor::all(if chosen {
            Color::srgb(1.0, 0.85, 0.2)
        } else {
            Color::srgb(0.5, 0.5, 0.55)
        });
    }
    for (cell, mut t) in &mut texts {
        let (contents, count) = if cell.stash {
            (&*stash, stash_slots)
        } else {
            (&*backpack, bag_slots)
        };
        t.0 = if cell.index >= count {
            "torn".into()
        } else {
            match contents.slots().get(cell.index).cloned().flatten() {
                Some((item, n)) => format!("{}\n{item}\nx{n}", cell.index + 1),
                None => format!("{}\n\n", cell.index + 1),
            }
        };
    }
}

fn show_log(log: Res<DemoLog>, mut t: Single<&mut Text, With<LogText>>) {
    if log.is_changed() {
        let start = log.lines.len().saturating_sub(10);
        t.0 = log.lines[start..].join("\n");
    }
}

#[allow(clippy::too_many_arguments)]
fn play(
    keys: Res<ButtonInput<KeyCode>>,
    time: Res<Time>,
    script: Res<Script>,
    mut selected: ResMut<Selected>,
    mut player: Single<&mut Transform, With<Player>>,
    backpack: Single<(Entity, &ContainerContents), With<Backpack>>,
    pickups: PickupPlaces,
    mut acts: Acts,
) {
    if script.running && !script.done() {
        return;
    }
    let (bag, contents) = *backpack;
    let mut dir = Vec2::ZERO;
    for (key, d) in [
        (KeyCode::ArrowLeft, Vec2::NEG_X),
        (KeyCode::ArrowRight, Vec2::X),
        (KeyCode::ArrowUp, Vec2::Y),
        (KeyCode::ArrowDown, Vec2::NEG_Y),
    ] {
        if keys.pressed(key) {
            dir += d;
        }
    }
    player.translation += (dir.normalize_or_zero() * 260.0 * time.delta_secs()).extend(0.0);
    let digits = [
        KeyCode::Digit1,
        KeyCode::Digit2,
        KeyCode::Digit3,
        KeyCode::Digit4,
        KeyCode::Digit5,
        KeyCode::Digit6,
        KeyCode::Digit7,
        KeyCode::Digit8,
        KeyCode::Digit9,
    ];
    for (i, k) in digits.iter().enumerate() {
        if keys.just_pressed(*k) {
            selected.0 = i as u32;
        }
    }
    if keys.just_pressed(KeyCode::KeyE) {
        let here = player.translation.truncate();
        let nearest = pickups
            .iter()
            .map(|(e, t)| (e, t.translation.truncate().distance(here)))
            .filter(|(_, d)| *d < 70.0)
            .min_by(|a, b| a.1.total_cmp(&b.1));
        match nearest {
            Some((pickup, _)) => acts.pick_up(bag, pickup),
            None => acts.say("nothing within reach: walk closer to an item"),
        }
    }
    if keys.just_pressed(KeyCode::KeyF) {
        acts.eat(bag, selected.0, 1);
    }
    if keys.just_pressed(KeyCode::KeyT) {
        let now = contents.engine().map_or(12, |e| e.limits().slot_count);
        acts.tear(bag, now.saturating_sub(3).max(1));
    }
    if keys.just_pressed(KeyCode::KeyO) {
        acts.sort(bag);
    }
    if keys.just_pressed(KeyCode::KeyK) {
        let slots = acts.stash_slots().saturating_sub(1).max(1);
        acts.tune_stash(slots, false);
    }
}

fn take_screenshot(
    mut commands: Commands,
    script: Res<Script>,
    path: Res<ScreenshotPath>,
    mut after_done: Local<u32>,
    mut exit: MessageWriter<AppExit>,
) {
    let Some(path) = &path.0 else { return };
    if !script.done() {
        return;
    }
    *after_done += 1;
    if *after_done == 40 {
        commands
            .spawn(Screenshot::primary_window())
            .observe(save_to_disk(path.clone()))
            .observe(
                |_: On<ScreenshotCaptured>, mut exit: MessageWriter<AppExit>| {
                    exit.write(AppExit::Success);
                },
            );
    }
    if *after_done > 600 {
        eprintln!("the screenshot was not captured");
        exit.write(AppExit::error());
    }
}
