//! Property tests: random adoptions covering every answer, random request
//! sequences, and the invariants of `container-1.md` checked after every
//! step. Seeded (proptest's deterministic RNG) so CI runs the same cases.

use std::collections::BTreeMap;
use std::sync::Arc;

use bevy_container::adoption::{self, Context, Tuning};
use bevy_container::contents::{Contents, SlotRules};
use bevy_container::decimal::Decimal;
use bevy_container::rules::{PartialAcceptance, Rules};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::{Value, json};

const POOL: [&str; 6] = ["apple", "bolt", "coin", "dagger", "elixir", "zz-unlisted"];

#[derive(Clone, Debug)]
struct Case {
    adoption: Value,
    slot_rules: Option<Vec<Vec<String>>>,
    ops: Vec<Op>,
}

#[derive(Clone, Debug)]
enum Op {
    Deliver(usize, u32),
    Take(usize, u32, Option<u32>),
    Resize(Option<u32>, Option<&'static str>),
    OwnerGone,
    Sort(Vec<usize>),
    Move(u32, u32, Option<u32>),
}

fn pick<T: Clone + std::fmt::Debug + 'static>(options: &'static [T]) -> impl Strategy<Value = T> {
    proptest::sample::select(options)
}

const CAPACITY: &[&str] = &["slot-count", "size-budget", "slots-and-size", "no-limit"];
const PARTIAL: &[&str] = &["all-or-nothing", "fill-what-fits"];
const LEFTOVER: &[&str] = &[
    "back-to-the-sender",
    "left-where-it-is",
    "another-store",
    "destroyed",
];
const FILL: &[&str] = &[
    "top-up-then-first-empty",
    "first-slot-that-fits",
    "append",
    "not-applicable",
];
const DRAW: &[&str] = &[
    "first-in-order",
    "last-in-order",
    "newest-first",
    "oldest-first",
    "not-applicable",
];
const RESTRICT: &[&str] = &["only-these", "any-item", "by-slot"];
const FORCED: &[&str] = &[
    "never",
    "dropped-nearby",
    "moved-to-another-store",
    "destroyed",
];
const SIZES: &[&str] = &["0", "0.1", "0.25", "1", "2.5"];
const BUDGETS: &[&str] = &["0", "0.3", "1", "2.5", "5", "12.5"];

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0..POOL.len(), prop_oneof![30 => 0u32..30, 1 => Just(u32::MAX)]).prop_map(|(t, a)| Op::Deliver(t, a)),
        4 => (0..POOL.len(), 0u32..30, proptest::option::of(0u32..10)).prop_map(|(t, a, s)| Op::Take(t, a, s)),
        1 => (proptest::option::of(0u32..10), proptest::option::of(pick(BUDGETS))).prop_map(|(s, b)| Op::Resize(s, b)),
        1 => Just(Op::OwnerGone),
        1 => proptest::collection::vec(0..POOL.len(), 0..3).prop_map(Op::Sort),
        1 => (0u32..10, 0u32..10, proptest::option::of(0u32..8)).prop_map(|(f, t, a)| Op::Move(f, t, a)),
    ]
}

fn case() -> impl Strategy<Value = Case> {
    let answers = (
        pick(CAPACITY),
        pick(PARTIAL),
        pick(LEFTOVER),
        pick(FILL),
        pick(DRAW),
        pick(RESTRICT),
    );
    let rows = proptest::collection::vec((1u32..6, pick(SIZES), pick(FORCED)), 0..POOL.len() - 1);
    (answers, rows, 1u32..9, pick(BUDGETS), proptest::collection::vec(op(), 1..40), any::<u64>())
        .prop_map(|((cap, partial, leftover, fill, draw, restrict), rows, slots, budget, ops, salt)| {
            let has_slots = cap != "size-budget";
            let fill = if fill == "not-applicable" && rows.len() as u32 > slots { "append" } else { fill };
            let mut answers = serde_json::Map::new();
            answers.insert("capacity-limit".into(), json!(cap));
            if cap != "no-limit" {
                answers.insert("partial-acceptance".into(), json!(partial));
                if partial == "fill-what-fits" {
                    answers.insert("leftover-destination".into(), json!(leftover));
                }
            }
            if has_slots {
                answers.insert("fill-order".into(), json!(fill));
            }
            answers.insert("draw-order".into(), json!(draw));
            answers.insert("type-restriction".into(), json!(restrict));
            let items: Vec<Value> = rows
                .iter()
                .enumerate()
                .map(|(i, (limit, size, forced))| {
                    let mut r = serde_json::Map::new();
                    r.insert("id".into(), json!(POOL[i]));
                    if restrict == "by-slot" {
                        r.insert("slot-rules-declared-in".into(), json!("02-mechanics.md#slots"));
                    }
                    if has_slots {
                        r.insert("stack-limit".into(), json!(limit));
                    }
                    if matches!(cap, "size-budget" | "slots-and-size") {
                        r.insert("size".into(), json!(size.parse::<f64>().unwrap()));
                    }
                    r.insert("when-forced-out".into(), json!(forced));
                    if *forced != "never" {
                        r.insert("forced-out-order".into(), json!((i as i64 * 7 + salt as i64 % 5) % 11 + i as i64 * 11));
                    }
                    Value::Object(r)
                })
                .collect();
            let uses_slots = matches!(cap, "slot-count" | "slots-and-size");
            let uses_budget = matches!(cap, "size-budget" | "slots-and-size");
            let adoption = json!({
                "contract": "container", "version": 1,
                "answers": answers,
                "values": {
                    "slot-count": if uses_slots { slots } else { 0 },
                    "size-budget": if uses_budget { budget.parse::<f64>().unwrap() } else { 0.0 },
                },
                "rows": {"items": items},
            });
            let slot_rules = (restrict == "by-slot").then(|| {
                (0..slots.max(4))
                    .map(|s| {
                        POOL.iter()
                            .enumerate()
                            .filter(|(i, _)| (salt >> ((s as usize * 3 + i) % 60)) & 1 == 1 || *i == s as usize % POOL.len())
                            .map(|(_, t)| t.to_string())
                            .collect()
                    })
                    .collect()
            });
            // A no-limit container takes a u32::MAX delivery up to its
            // safety ceiling of a million slots; that is tested on its own,
            // not in every random sequence.
            let ops = ops
                .into_iter()
                .map(|o| match o {
                    Op::Deliver(t, u32::MAX) if cap == "no-limit" => Op::Deliver(t, 5_000),
                    o => o,
                })
                .collect();
            Case { adoption, slot_rules, ops }
        })
}

/// Everything observable about a container.
#[derive(Clone, Debug, PartialEq)]
struct Snapshot {
    slots: Vec<Option<(String, u32)>>,
    holdings: Vec<(String, u32)>,
    size_used: Decimal,
    limits: bevy_container::contents::Limits,
}

fn snapshot(c: &Contents) -> Snapshot {
    Snapshot {
        slots: c
            .slots()
            .map(|s| s.map(|s| (s.item.to_string(), s.amount)))
            .collect(),
        holdings: c.holdings().map(|(k, v)| (k.to_string(), v)).collect(),
        size_used: c.size_used(),
        limits: c.limits(),
    }
}

fn totals(c: &Contents) -> BTreeMap<String, i128> {
    c.totals()
        .into_iter()
        .map(|(k, v)| (k.to_string(), i128::from(v)))
        .collect()
}

fn build(case: &Case) -> Contents {
    let (report, adoption) = adoption::validate(&case.adoption, Context::default());
    let adoption = adoption.unwrap_or_else(|| panic!("generated adoption is valid: {report}"));
    let rules = Rules::compile(&adoption, &Tuning::default()).expect("compiles");
    let mut c = Contents::new(Arc::new(rules));
    if let Some(sr) = &case.slot_rules {
        c = c.with_slot_rules(SlotRules::new(sr.clone()));
    }
    c
}

/// Checks the state invariants that hold after every step.
fn check_state(c: &Contents) -> Result<(), String> {
    let rules = c.rules();
    let mut size = Decimal::ZERO;
    if rules.has_slot_limit() {
        let shown = c.slots().count();
        if shown != c.limits().slot_count as usize {
            return Err(format!(
                "{shown} slots shown, slot count {}",
                c.limits().slot_count
            ));
        }
    }
    for s in c.slots().flatten() {
        let row = rules.row(s.item.as_str());
        let limit = row.map_or(1, |r| r.stack_limit);
        if s.amount == 0 || s.amount > limit {
            return Err(format!(
                "stack of {} {} over limit {limit}",
                s.amount, s.item
            ));
        }
        size = size.plus(row.map_or(Decimal::ZERO, |r| r.size).times(s.amount));
    }
    for (k, v) in c.holdings() {
        if v == 0 {
            return Err(format!("empty holding of {k}"));
        }
        size = size.plus(
            rules
                .row(k.as_str())
                .map_or(Decimal::ZERO, |r| r.size)
                .times(v),
        );
    }
    if size != c.size_used() {
        return Err(format!(
            "size used {} but stacks add to {size}",
            c.size_used()
        ));
    }
    if rules.has_budget() && size > c.limits().size_budget {
        return Err(format!("over budget: {size} > {}", c.limits().size_budget));
    }
    Ok(())
}

fn add(map: &mut BTreeMap<String, i128>, k: &str, n: i128) {
    *map.entry(k.to_string()).or_insert(0) += n;
    if map[k] == 0 {
        map.remove(k);
    }
}

/// Runs a case, checking every invariant; returns the outcomes as text.
fn run(case: &Case) -> Result<Vec<String>, String> {
    let mut c = build(case);
    let mut log = Vec::new();
    check_state(&c)?;
    for (i, op) in case.ops.iter().enumerate() {
        let before = snapshot(&c);
        let mut expect = totals(&c);
        let at = |e: String| format!("op {i} {op:?}: {e}");
        match op {
            Op::Deliver(t, a) => {
                let d = c.deliver(POOL[*t], *a);
                let refused = d.refused.as_ref().map_or(0, |r| r.amount);
                let left = d.leftover.as_ref().map_or(0, |l| l.amount);
                if u64::from(d.offered)
                    != u64::from(d.accepted) + u64::from(refused) + u64::from(left)
                {
                    return Err(at(format!(
                        "offered != accepted + refused + leftover: {d:?}"
                    )));
                }
                if c.rules().has_slots()
                    && d.landed.iter().map(|l| u64::from(l.amount)).sum::<u64>()
                        != u64::from(d.accepted)
                {
                    return Err(at(format!("landed does not add to accepted: {d:?}")));
                }
                if d.refused.is_some() && d.accepted == 0 && snapshot(&c) != before {
                    return Err(at("a refused delivery changed the contents".into()));
                }
                if c.rules().partial == PartialAcceptance::AllOrNothing && d.leftover.is_some() {
                    return Err(at("all-or-nothing left a leftover".into()));
                }
                add(&mut expect, POOL[*t], i128::from(d.accepted));
                log.push(format!("{d:?}"));
            }
            Op::Take(t, a, s) => {
                // a click on a slot holding the type is the same take
                let by_click = s
                    .filter(|&s| c.stack(s).is_some_and(|st| st.item.as_str() == POOL[*t]))
                    .map(|s| {
                        let mut twin = c.clone();
                        let k = twin.take_slot(s, *a);
                        (k, snapshot(&twin))
                    });
                let k = c.take_inner(POOL[*t], *a, *s);
                if let Some((click, state)) = by_click
                    && (click.as_ref() != Some(&k) || state != snapshot(&c))
                {
                    return Err(at(format!("take_slot differs from take_from: {click:?}")));
                }
                if k.asked != k.taken + k.shortfall {
                    return Err(at(format!("asked != taken + shortfall: {k:?}")));
                }
                if c.rules().has_slots() && k.from.iter().map(|l| l.amount).sum::<u32>() != k.taken
                {
                    return Err(at(format!("from does not add to taken: {k:?}")));
                }
                add(&mut expect, POOL[*t], -i128::from(k.taken));
                log.push(format!("{k:?}"));
            }
            Op::Resize(s, b) => {
                let f = c.resize(*s, b.map(|b| b.parse().unwrap()));
                if f.refused.is_some() && snapshot(&c) != before {
                    return Err(at("a refused forced removal changed the contents".into()));
                }
                for p in &f.portions {
                    add(&mut expect, p.item.as_str(), -i128::from(p.amount));
                }
                log.push(format!("{f:?}"));
            }
            Op::OwnerGone => {
                let f = c.owner_gone();
                if f.refused.is_some() && snapshot(&c) != before {
                    return Err(at("a refused owner-gone changed the contents".into()));
                }
                if f.refused.is_none() && !c.is_empty() {
                    return Err(at("owner gone but items stayed".into()));
                }
                for p in &f.portions {
                    add(&mut expect, p.item.as_str(), -i128::from(p.amount));
                }
                log.push(format!("{f:?}"));
            }
            Op::Sort(order) => {
                let names: Vec<&str> = order.iter().map(|&i| POOL[i]).collect();
                let r = c.sort(&names);
                if r.refused.is_some() && snapshot(&c) != before {
                    return Err(at("a refused sort changed the contents".into()));
                }
                log.push(format!("{r:?}"));
            }
            Op::Move(f, t, a) => {
                let r = c.move_items(*f, *t, *a);
                if r.refused.is_some() && snapshot(&c) != before {
                    return Err(at("a refused move changed the contents".into()));
                }
                log.push(format!("{r:?}"));
            }
        }
        if totals(&c) != expect {
            return Err(at(format!(
                "contents changed by more than the outcome says: want {expect:?} got {:?}",
                totals(&c)
            )));
        }
        check_state(&c).map_err(at)?;
        log.push(format!("{:?}", snapshot(&c)));
    }
    Ok(log)
}

fn cases(default: u32) -> u32 {
    std::env::var("CONTAINER_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn runner(cases: u32) -> TestRunner {
    TestRunner::new_with_rng(
        Config {
            cases,
            failure_persistence: None,
            ..Config::default()
        },
        TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]),
    )
}

#[test]
fn invariants_hold_over_random_adoptions_and_sequences() {
    runner(cases(3000))
        .run(&case(), |case| {
            run(&case).map_err(TestCaseError::fail)?;
            Ok(())
        })
        .unwrap();
}

#[test]
fn same_input_same_result() {
    runner(cases(300))
        .run(&case(), |case| {
            let a = run(&case).map_err(TestCaseError::fail)?;
            let b = run(&case.clone()).map_err(TestCaseError::fail)?;
            prop_assert_eq!(a, b);
            Ok(())
        })
        .unwrap();
}
