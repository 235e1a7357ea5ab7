//! Saves: exact round trips for every capacity kind, migrations under each
//! kind of rule change (one refused), and malformed saves reported clearly.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use bevy_container::adoption::{self, Context, Format, ProblemKind, Tuning};
use bevy_container::contents::{Cause, Contents, SlotRules};
use bevy_container::rules::Rules;
use bevy_container::save::{AdoptionId, SavedContents};
use common::Rng;
use serde_json::{Value, json};

/// A conformance case's adoption as JSON, and its slot rules.
fn case(name: &str) -> (Value, Option<SlotRules>) {
    let path = Path::new("tests/conformance").join(format!("{name}.json"));
    let case: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let adoption = match &case["adoption"] {
        Value::String(p) => {
            serde_json::from_slice(&std::fs::read(Path::new("tests/conformance").join(p)).unwrap())
                .unwrap()
        }
        v => v.clone(),
    };
    let slot_rules = case
        .get("slot-rules")
        .map(|r| SlotRules::new(serde_json::from_value::<Vec<Vec<String>>>(r.clone()).unwrap()));
    (adoption, slot_rules)
}

/// Rules and the adoption id for an adoption as JSON.
fn compile(adoption: &Value) -> (Arc<Rules>, AdoptionId) {
    let bytes = serde_json::to_vec_pretty(adoption).unwrap();
    let a = adoption::read(&bytes, Format::Json, Context::default()).unwrap();
    (
        Arc::new(Rules::compile(&a, &Tuning::default()).unwrap()),
        AdoptionId::of("case.adoption.json", &bytes),
    )
}

fn fresh(rules: &Arc<Rules>, slot_rules: &Option<SlotRules>) -> Contents {
    let mut c = Contents::new(rules.clone());
    c.set_slot_rules(slot_rules.clone());
    c
}

/// Random deliveries, takes and resizes; returns each outcome as text.
fn play(c: &mut Contents, rng: &mut Rng, steps: usize) -> Vec<String> {
    let mut types: Vec<String> = c.rules().rows.iter().map(|r| r.id.clone()).collect();
    types.push("stranger".into());
    let slots = c.rules().slot_count.max(3);
    (0..steps)
        .map(|_| {
            let item = types[rng.below(types.len())].clone();
            let amount = 1 + rng.below(12) as u32;
            match rng.below(10) {
                0..=5 => format!("{:?}", c.deliver(&item, amount)),
                6..=7 => format!("{:?}", c.take(&item, amount)),
                8 if c.rules().has_slots() => format!(
                    "{:?}",
                    c.take_from(&item, amount, rng.below(slots as usize) as u32)
                ),
                _ if c.rules().has_slot_limit() => format!(
                    "{:?}",
                    c.resize(Some(1 + rng.below(slots as usize + 1) as u32), None)
                ),
                _ => format!("{:?}", c.take(&item, 1)),
            }
        })
        .collect()
}

fn state(c: &Contents) -> String {
    format!(
        "{:?} {:?} {} {:?}",
        c.slots().collect::<Vec<_>>(),
        c.holdings().collect::<Vec<_>>(),
        c.size_used(),
        c.limits()
    )
}

const KINDS: [&str; 7] = [
    "backpack-day-out", // slot-count, the seed
    "slots-and-size",
    "size-budget-deck", // slotless
    "no-limit",
    "by-slot",
    "reserved-slots",
    "fill-append",
];

#[test]
fn a_save_loads_back_exactly_for_every_capacity_kind() {
    for name in KINDS {
        let (adoption, slot_rules) = case(name);
        let (rules, id) = compile(&adoption);
        for seed in 0..40u64 {
            let mut rng = Rng(seed);
            let mut original = fresh(&rules, &slot_rules);
            play(&mut original, &mut rng, 30);
            let save = original.save(&id);
            for (text, format) in [(save.to_json(), Format::Json), (save.to_ron(), Format::Ron)] {
                let read = SavedContents::read(text.as_bytes(), format)
                    .unwrap_or_else(|r| panic!("{name}: {r}\n{text}"));
                assert_eq!(read, save, "{name}: the save reads back as written");
                let loaded = Contents::load(rules.clone(), slot_rules.clone(), &read, &id).unwrap();
                assert!(!loaded.adoption_changed);
                assert!(
                    loaded.migrated.portions.is_empty(),
                    "{name}: nothing moves under the same adoption"
                );
                let mut restored = loaded.contents;
                assert_eq!(state(&restored), state(&original), "{name} seed {seed}");
                assert_eq!(
                    restored.save(&id),
                    save,
                    "{name}: draw-order bookkeeping and counter survive"
                );
                // the same requests give the same outcomes afterwards
                let mut a = original.clone();
                let (mut r1, mut r2) = (Rng(seed + 1000), Rng(seed + 1000));
                assert_eq!(
                    play(&mut a, &mut r1, 25),
                    play(&mut restored, &mut r2, 25),
                    "{name} seed {seed}"
                );
                assert_eq!(state(&a), state(&restored));
            }
        }
    }
}

/// Loads `save` under `changed` rules and checks nothing was lost: what is
/// held plus what left equals what was saved, per type.
fn migrate(
    save: &SavedContents,
    changed: &Value,
    slot_rules: Option<SlotRules>,
) -> bevy_container::contents::Loaded {
    let (rules, id) = compile(changed);
    let loaded = Contents::load(rules, slot_rules, save, &id).unwrap_or_else(|e| panic!("{e}"));
    assert!(loaded.adoption_changed);
    assert_eq!(loaded.migrated.cause, Cause::Loaded);
    let mut before: BTreeMap<String, u64> = BTreeMap::new();
    for s in save.slots.iter().flatten().chain(&save.holdings) {
        *before.entry(s.item.clone()).or_default() += u64::from(s.amount);
    }
    let mut after: BTreeMap<String, u64> = loaded
        .contents
        .totals()
        .into_iter()
        .map(|(k, n)| (k.to_string(), n))
        .collect();
    for p in &loaded.migrated.portions {
        *after.entry(p.item.to_string()).or_default() += u64::from(p.amount);
    }
    assert_eq!(before, after, "every saved item is held or left by a rule");
    loaded
}

fn seed_json() -> Value {
    serde_json::from_slice(&std::fs::read("assets/backpack.adoption.json").unwrap()).unwrap()
}

/// The seed backpack with berries, axes and letters, saved.
fn full_backpack() -> (SavedContents, Arc<Rules>) {
    let (rules, id) = compile(&seed_json());
    let mut c = Contents::new(rules.clone());
    c.deliver("berries", 45); // 3 stacks: 20, 20, 5
    c.deliver("axe", 2);
    c.deliver("letter", 3);
    (c.save(&id), rules)
}

#[test]
fn fewer_slots_force_out_by_the_rows() {
    let (save, _) = full_backpack();
    let mut changed = seed_json();
    // 3 berry stacks and 3 letters never leave; 2 axes: one must go
    changed["values"]["slot-count"] = json!(7);
    let loaded = migrate(&save, &changed, None);
    assert_eq!(loaded.contents.slots().count(), 7);
    let left: Vec<(String, u32)> = loaded
        .migrated
        .portions
        .iter()
        .map(|p| (p.item.to_string(), p.amount))
        .collect();
    assert!(!left.is_empty());
    assert_eq!(
        left,
        [("axe".to_string(), 1)],
        "only what is needed, never letters or berries"
    );
}

#[test]
fn a_lower_stack_limit_splits_and_forces_out() {
    let (save, _) = full_backpack();
    let mut changed = seed_json();
    let berries = changed["rows"]["items"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|r| r["id"] == "berries")
        .unwrap();
    berries["stack-limit"] = json!(5);
    let loaded = migrate(&save, &changed, None);
    for s in loaded.contents.slots().flatten() {
        if s.item.as_str() == "berries" {
            assert!(s.amount <= 5);
        }
    }
}

#[test]
fn a_type_no_longer_allowed_leaves_in_full() {
    let (adoption, _) = case("only-these");
    let mut wide = adoption.clone();
    wide["rows"]["items"].as_array_mut().unwrap().push(json!({"id": "scroll", "stack-limit": 2, "when-forced-out": "dropped-nearby", "forced-out-order": 1}));
    let (rules, id) = compile(&wide);
    let mut c = Contents::new(rules);
    c.deliver("scroll", 2);
    c.deliver("potion", 3);
    let loaded = migrate(&c.save(&id), &adoption, None);
    assert_eq!(loaded.contents.count("scroll"), 0);
    assert_eq!(loaded.contents.count("potion"), 3);
    assert_eq!(
        loaded
            .migrated
            .portions
            .iter()
            .map(|p| p.amount)
            .sum::<u32>(),
        2
    );
}

#[test]
fn a_smaller_budget_removes_only_what_closes_it() {
    let (adoption, _) = case("size-budget-deck");
    let (rules, id) = compile(&adoption);
    let mut c = Contents::new(rules);
    c.deliver("fireball", 5); // 20 of 30
    c.deliver("shield", 3); // 9 more
    let mut changed = adoption.clone();
    changed["values"]["size-budget"] = json!(20);
    let loaded = migrate(&c.save(&id), &changed, None);
    assert!(
        loaded
            .contents
            .size_used()
            .to_string()
            .parse::<f64>()
            .unwrap()
            <= 20.0
    );
    // shields leave first (order 1), three of them close 29 -> 20
    let left: Vec<(String, u32)> = loaded
        .migrated
        .portions
        .iter()
        .map(|p| (p.item.to_string(), p.amount))
        .collect();
    assert_eq!(left, [("shield".to_string(), 3)]);
}

#[test]
fn a_migration_that_would_move_never_items_is_refused_and_loads_nothing() {
    let (rules, id) = compile(&seed_json());
    let mut c = Contents::new(rules);
    c.deliver("letter", 3); // letters never leave, one per slot
    c.deliver("berries", 5);
    let save = c.save(&id);
    let untouched = save.clone();
    let mut changed = seed_json();
    changed["values"]["slot-count"] = json!(1);
    let (rules, id2) = compile(&changed);
    let err = Contents::load(rules, None, &save, &id2).unwrap_err();
    assert!(err.forced.refused.is_some());
    assert!(err.forced.portions.is_empty());
    assert!(err.to_string().contains("never"), "{err}");
    assert_eq!(save, untouched);
}

#[test]
fn malformed_and_truncated_saves_are_reported_with_paths() {
    let (save, _) = full_backpack();
    let json = save.to_json();
    // truncated anywhere: a clear error, never a panic or a half load
    for cut in (0..json.len()).step_by(7) {
        let r = SavedContents::read(&json.as_bytes()[..cut], Format::Json).unwrap_err();
        assert!(r.has_errors());
    }
    let ron = save.to_ron();
    for cut in (0..ron.len()).step_by(11) {
        assert!(SavedContents::read(&ron.as_bytes()[..cut], Format::Ron).is_err());
    }
    let edit = |f: &dyn Fn(&mut Value)| {
        let mut v: Value = serde_json::from_str(&json).unwrap();
        f(&mut v);
        SavedContents::read(v.to_string().as_bytes(), Format::Json).unwrap_err()
    };
    let r = edit(&|v| v["slots"][0]["amount"] = json!(0));
    assert_eq!(
        r.at("/slots/0/amount").unwrap().kind,
        ProblemKind::OutOfRange
    );
    let r = edit(&|v| v["slots"][1]["amount"] = json!(4294967296u64));
    assert_eq!(
        r.at("/slots/1/amount").unwrap().kind,
        ProblemKind::OutOfRange
    );
    let r = edit(&|v| v["slots"][0]["item"] = json!("Not Kebab"));
    assert_eq!(r.at("/slots/0/item").unwrap().kind, ProblemKind::Pattern);
    let r = edit(&|v| v["format"] = json!(2));
    assert_eq!(r.at("/format").unwrap().kind, ProblemKind::WrongContract);
    let r = edit(&|v| v["adoption"]["hash"] = json!("md5:abc"));
    assert_eq!(r.at("/adoption/hash").unwrap().kind, ProblemKind::Pattern);
    let r = edit(&|v| v["slots"][0]["last-received"] = json!(u64::MAX));
    assert!(r.at("/slots/0/last-received").is_some(), "{r}");
    let r = edit(&|v| v["size-budget"] = json!("0.0000001"));
    assert_eq!(r.at("/size-budget").unwrap().kind, ProblemKind::Inexact);
    let r = edit(&|v| {
        v.as_object_mut().unwrap().remove("counter");
        v["extra"] = json!(1);
    });
    assert_eq!(r.at("/counter").unwrap().kind, ProblemKind::Missing);
    assert_eq!(r.at("/extra").unwrap().kind, ProblemKind::Unknown);
    let r = SavedContents::read(br#"{"format": 1, "format": 1}"#, Format::Json).unwrap_err();
    assert!(r.to_string().contains("twice"), "{r}");
}

mod plugin {
    use super::common::{self, app, seed, spawn};
    use bevy::ecs::system::RunSystemOnce;
    use bevy::prelude::*;
    use bevy_container::adoption::ValueSource;
    use bevy_container::plugin::*;
    use bevy_container::save::SavedContents;

    fn save(app: &mut App, e: Entity) -> SavedContents {
        app.world_mut()
            .run_system_once(move |c: Containers| c.save(e))
            .unwrap()
            .unwrap()
    }

    fn load(app: &mut App, e: Entity, s: SavedContents) -> Result<ItemsForcedOut, LoadError> {
        let r = app
            .world_mut()
            .run_system_once(move |mut c: Containers| c.load(e, &s))
            .unwrap();
        app.update();
        r
    }

    #[test]
    fn a_save_loads_into_an_empty_container_and_migrates_under_a_changed_adoption() {
        let mut app = app();
        let (bag, _) = spawn(&mut app, seed(), Vec3::ZERO);
        common::deliver(&mut app, bag, "axe", 2, None);
        common::deliver(&mut app, bag, "berries", 30, None);
        let s = save(&mut app, bag);
        assert_eq!(s.adoption.path, "(in memory)");

        // a load never replaces items
        let err = load(&mut app, bag, s.clone()).unwrap_err();
        assert_eq!(err, LoadError::NotEmpty(bag));

        // a smaller backpack: 2 berry stacks stay (never), axes drop nearby
        let mut small = seed();
        small
            .values
            .insert("slot-count".into(), ValueSource::Number(2.0));
        let (other, _) = spawn(&mut app, small, Vec3::new(50.0, 0.0, 0.0));
        let out = load(&mut app, other, s.clone()).unwrap();
        assert_eq!(
            out.outcome.portions.iter().map(|p| p.amount).sum::<u32>(),
            2
        );
        assert_eq!(common::slots(&app, other).iter().flatten().count(), 2);
        let pickups = common::pickups(&mut app);
        assert_eq!(pickups.iter().map(|(_, p, _)| p.amount).sum::<u32>(), 2);
        // the load says where they went, as the message does
        let settled: Vec<(Entity, u32)> = out
            .settled
            .iter()
            .map(|s| match s {
                Settled::Pickup { pickup, amount, .. } => (*pickup, *amount),
                other => panic!("the axes drop nearby: {other:?}"),
            })
            .collect();
        let mut dropped: Vec<(Entity, u32)> =
            pickups.iter().map(|(e, p, _)| (*e, p.amount)).collect();
        dropped.sort();
        let mut said = settled.clone();
        said.sort();
        assert_eq!(said, dropped);
        let forced = common::last_forced(&app);
        assert_eq!(forced, out, "the message written is the one returned");
        assert_eq!(forced.container, other);
        assert_eq!(
            forced.outcome.cause,
            bevy_container::contents::Cause::Loaded
        );

        // one slot is too few for two never-stacks: refused, nothing loaded
        let mut tiny = seed();
        tiny.values
            .insert("slot-count".into(), ValueSource::Number(1.0));
        let (third, _) = spawn(&mut app, tiny, Vec3::ZERO);
        match load(&mut app, third, s) {
            Err(LoadError::Refused(r)) => assert!(r.to_string().contains("berries"), "{r}"),
            other => panic!("{other:?}"),
        }
        assert!(common::slots(&app, third).iter().all(Option::is_none));
    }
}

/// Saves written by the code before item properties existed (commit
/// 306a5a1, `tests/fixtures/save-before-props.*`): they load as plain
/// items, exactly, and a plain container saves to the same text again.
#[test]
fn a_save_written_before_properties_loads_as_plain_items() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let bytes =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/backpack.adoption.json"))
            .unwrap();
    let id = AdoptionId::of("backpack.adoption.json", &bytes);
    let a = adoption::read(&bytes, Format::Json, Default::default()).unwrap();
    let rules = Arc::new(Rules::compile(&a, &Tuning::default()).unwrap());
    for (file, format) in [
        ("save-before-props.json", Format::Json),
        ("save-before-props.ron", Format::Ron),
    ] {
        let text = std::fs::read(dir.join(file)).unwrap();
        let saved = SavedContents::read(&text, format).unwrap_or_else(|e| panic!("{file}: {e}"));
        let loaded = Contents::load(rules.clone(), None, &saved, &id).unwrap();
        assert!(!loaded.adoption_changed, "{file}");
        let c = loaded.contents;
        let view: Vec<Option<(String, u32, String)>> = c
            .slots()
            .take(5)
            .map(|s| s.map(|s| (s.item.to_string(), s.amount, s.props.to_string())))
            .collect();
        let plain = |i: &str, n| Some((i.to_string(), n, "{}".to_string()));
        assert_eq!(
            view,
            [
                plain("berries", 20),
                plain("berries", 2),
                plain("axe", 1),
                plain("letter", 1),
                None
            ],
            "{file}"
        );
        assert_eq!(c.kind_totals().len(), 3, "three plain kinds: {file}");
        if format == Format::Json {
            let again = c.save(&id).to_json();
            assert_eq!(
                again.trim(),
                String::from_utf8(text).unwrap().trim(),
                "a plain container saves as before"
            );
        }
    }
}

/// Properties in a save: written as their canonical text, read back
/// exactly; a stack's properties that do not read are reported with their
/// path and the key.
#[test]
fn properties_round_trip_through_a_save_and_bad_ones_name_their_path() {
    use bevy_container::contents::Props;
    let (rules, id) = compile(&seed_json());
    let mut c = Contents::new(rules.clone());
    let big = Props::new([("gold", bevy_container::props::PropNumber::from(7))])
        .unwrap()
        .with("note", "Ilsa's \"letter\" — sealed")
        .unwrap();
    let exact: Props = Props::parse(r#"{"weight":123456789012345.123456}"#).unwrap();
    c.deliver_kind("axe", &big, 1);
    c.deliver_kind("axe", &exact, 1);
    for text in [c.save(&id).to_json(), c.save(&id).to_ron()] {
        let format = if text.trim_start().starts_with('{') {
            Format::Json
        } else {
            Format::Ron
        };
        let saved = SavedContents::read(text.as_bytes(), format).unwrap();
        let back = Contents::load(rules.clone(), None, &saved, &id)
            .unwrap()
            .contents;
        assert_eq!(back.count_kind("axe", &big), 1, "{text}");
        assert_eq!(
            back.count_kind("axe", &exact),
            1,
            "exact to the millionth: {text}"
        );
        assert_eq!(back.save(&id).to_json(), c.save(&id).to_json());
    }
    let text = c
        .save(&id)
        .to_json()
        .replace(r#"{\"weight\""#, r#"{\"Weight\""#);
    let err = SavedContents::read(text.as_bytes(), Format::Json).unwrap_err();
    let problem = err.problems.first().expect("a problem");
    assert_eq!(problem.path, "/slots/1/props", "{err}");
    assert!(err.to_string().contains("Weight"), "{err}");
    let text = c.save(&id).to_json().replace("\"props\"", "\"propz\"");
    let err = SavedContents::read(text.as_bytes(), Format::Json).unwrap_err();
    assert!(
        err.to_string().contains("propz"),
        "an unknown field of a stack: {err}"
    );
}
