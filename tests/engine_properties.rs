//! Property tests: random adoptions covering every answer, random request
//! sequences, and the invariants of `container-1.md` checked after every
//! step. Seeded (proptest's deterministic RNG) so CI runs the same cases.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use bevy_container::adoption::{self, Context, Tuning};
use bevy_container::contents::{
    Contents, ItemType, Kind, Landing, PropsAt, Reason, SlotRules, Swapped, TransferRequest,
    Transferred,
};
use bevy_container::decimal::Decimal;
use bevy_container::rules::{DrawOrder, PartialAcceptance, Rules};
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
    case_with(proptest::collection::vec(op(), 1..40))
}

/// A random adoption (every answer) with the request sequence `ops`.
fn case_with(ops: impl Strategy<Value = Vec<Op>>) -> impl Strategy<Value = Case> {
    let answers = (
        pick(CAPACITY),
        pick(PARTIAL),
        pick(LEFTOVER),
        pick(FILL),
        pick(DRAW),
        pick(RESTRICT),
    );
    let rows = proptest::collection::vec((1u32..6, pick(SIZES), pick(FORCED)), 0..POOL.len() - 1);
    (answers, rows, 1u32..9, pick(BUDGETS), ops, any::<u64>()).prop_map(
        |((cap, partial, leftover, fill, draw, restrict), rows, slots, budget, ops, salt)| {
            let fill = if fill == "not-applicable" && rows.len() as u32 > slots {
                "append"
            } else {
                fill
            };
            let answers = adoption_answers(cap, partial, leftover, fill, draw, restrict);
            let items = item_rows(&rows, cap, restrict, salt);
            let adoption = container_adoption(answers, items, cap, slots, budget);
            let slot_rules = (restrict == "by-slot").then(|| by_slot_rules(slots, salt));
            let ops = cap_huge_deliveries(ops, cap);
            Case {
                adoption,
                slot_rules,
                ops,
            }
        },
    )
}

/// The adoption's answers, leaving out those its capacity answer makes moot.
fn adoption_answers(
    cap: &str,
    partial: &str,
    leftover: &str,
    fill: &str,
    draw: &str,
    restrict: &str,
) -> serde_json::Map<String, Value> {
    let has_slots = cap != "size-budget";
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
    answers
}

/// The item rows (stack limit, size, when forced out) as the answers call for them.
fn item_rows(rows: &[(u32, &str, &str)], cap: &str, restrict: &str, salt: u64) -> Vec<Value> {
    let has_slots = cap != "size-budget";
    rows.iter()
        .enumerate()
        .map(|(i, (limit, size, forced))| {
            let mut r = serde_json::Map::new();
            r.insert("id".into(), json!(POOL[i]));
            if restrict == "by-slot" {
                r.insert(
                    "slot-rules-declared-in".into(),
                    json!("02-mechanics.md#slots"),
                );
            }
            if has_slots {
                r.insert("stack-limit".into(), json!(limit));
            }
            if matches!(cap, "size-budget" | "slots-and-size") {
                r.insert("size".into(), json!(size.parse::<f64>().unwrap()));
            }
            r.insert("when-forced-out".into(), json!(forced));
            if *forced != "never" {
                r.insert(
                    "forced-out-order".into(),
                    json!((i as i64 * 7 + salt as i64 % 5) % 11 + i as i64 * 11),
                );
            }
            Value::Object(r)
        })
        .collect()
}

/// The container adoption document from its answers, item rows and values.
fn container_adoption(
    answers: serde_json::Map<String, Value>,
    items: Vec<Value>,
    cap: &str,
    slots: u32,
    budget: &str,
) -> Value {
    let uses_slots = matches!(cap, "slot-count" | "slots-and-size");
    let uses_budget = matches!(cap, "size-budget" | "slots-and-size");
    json!({
        "contract": "container", "version": 1,
        "answers": answers,
        "values": {
            "slot-count": if uses_slots { slots } else { 0 },
            "size-budget": if uses_budget { budget.parse::<f64>().unwrap() } else { 0.0 },
        },
        "rows": {"items": items},
    })
}

/// Under `by-slot`, the types each slot accepts, chosen by the bits of `salt`.
fn by_slot_rules(slots: u32, salt: u64) -> Vec<Vec<String>> {
    (0..slots.max(4))
        .map(|s| {
            POOL.iter()
                .enumerate()
                .filter(|(i, _)| {
                    (salt >> ((s as usize * 3 + i) % 60)) & 1 == 1 || *i == s as usize % POOL.len()
                })
                .map(|(_, t)| t.to_string())
                .collect()
        })
        .collect()
}

/// Caps a u32::MAX delivery to a no-limit container at 5,000.
fn cap_huge_deliveries(ops: Vec<Op>, cap: &str) -> Vec<Op> {
    // A no-limit container takes a u32::MAX delivery up to its
    // safety ceiling of a million slots; that is tested on its own,
    // not in every random sequence.
    ops.into_iter()
        .map(|o| match o {
            Op::Deliver(t, u32::MAX) if cap == "no-limit" => Op::Deliver(t, 5_000),
            o => o,
        })
        .collect()
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
                .row(k.item.as_str())
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

/// Occupied slots: slot to (type, amount).
type Slots = BTreeMap<u32, (String, u32)>;

/// The occupied slots.
fn stacks(c: &Contents) -> Slots {
    c.slots()
        .enumerate()
        .filter_map(|(i, s)| s.map(|s| (i as u32, (s.item.to_string(), s.amount))))
        .collect()
}

/// A type's stack limit in a container with slots (1 for an unlisted type).
fn stack_limit(c: &Contents, item: &str) -> u32 {
    c.rules().row(item).map_or(1, |r| r.stack_limit)
}

/// Moves that merged only part of what they were asked to move (the rest
/// staying in the source slot), over every test: the move property checks
/// its generator reaches them.
static PARTIAL_MERGES: AtomicUsize = AtomicUsize::new(0);

/// Section 7: a move between the slots `was` held left `c` as it must. A
/// merge onto a stack of the same type moves min(asked, room) and the rest
/// stays in the source slot (a full stack refuses with `StackFull`); a move
/// into an empty slot moves what was asked; a whole stack onto another type
/// swaps the two; nothing else changes. (Entry rules may refuse a move into
/// an empty slot or a swap; a refusal changing nothing is checked by the
/// caller.)
fn check_move(
    was: &Slots,
    c: &Contents,
    (from, to, amount): (u32, u32, Option<u32>),
    refused: Option<Reason>,
) -> Result<(), String> {
    let now = stacks(c);
    let src = was.get(&from).cloned();
    let dst = was.get(&to).cloned();
    // a merge with an amount the source slot holds: (asked, room)
    let merge = match (&src, &dst) {
        (Some((si, sa)), Some((di, da))) if from != to && si == di => {
            let n = amount.unwrap_or(*sa);
            (1..=*sa)
                .contains(&n)
                .then(|| (n, stack_limit(c, si).saturating_sub(*da)))
        }
        _ => None,
    };
    if let Some(r) = refused {
        if now != *was {
            return Err(format!("a move refused ({r:?}) changed the slots"));
        }
        return match merge {
            Some((n, room)) if room > 0 => Err(format!(
                "a merge of {n} onto a stack with room for {room} was refused ({r:?})"
            )),
            Some(_) if r != Reason::StackFull => Err(format!(
                "a merge onto a full stack was refused {r:?}, not StackFull"
            )),
            _ => Ok(()),
        };
    }
    let Some((item, held)) = src else {
        return Err(format!("a move from empty slot {from} was not refused"));
    };
    if from == to {
        return Err("a move onto its own slot was not refused".into());
    }
    let n = amount.unwrap_or(held);
    if n == 0 || n > held {
        return Err(format!(
            "a move of {n} from a stack of {held} was not refused"
        ));
    }
    let mut want = was.clone();
    // the source slot keeps what did not move
    let rest = |want: &mut Slots, moved: u32| {
        if moved == held {
            want.remove(&from);
        } else {
            want.insert(from, (item.clone(), held - moved));
        }
    };
    match dst {
        Some((other, theirs)) if other != item => {
            if n != held {
                return Err(format!(
                    "{n} of a stack of {held} moved onto another type's stack"
                ));
            }
            want.insert(from, (other, theirs));
            want.insert(to, (item.clone(), held));
        }
        Some((_, theirs)) => {
            let room = stack_limit(c, &item).saturating_sub(theirs);
            let moved = n.min(room);
            if moved == 0 {
                return Err("a move onto a full stack was not refused".into());
            }
            if moved < n {
                PARTIAL_MERGES.fetch_add(1, Ordering::Relaxed);
            }
            want.insert(to, (item.clone(), theirs + moved));
            rest(&mut want, moved);
        }
        None => {
            want.insert(to, (item.clone(), n));
            rest(&mut want, n);
        }
    }
    if now != want {
        return Err(format!("the move left {now:?}, expected {want:?}"));
    }
    Ok(())
}

/// Runs a case, checking every invariant; returns the outcomes as text.
fn run(case: &Case) -> Result<Vec<String>, String> {
    run_to(case).map(|(_, log)| log)
}

/// [`run`], also returning the container the sequence left.
fn run_to(case: &Case) -> Result<(Contents, Vec<String>), String> {
    let mut c = build(case);
    let mut log = Vec::new();
    check_state(&c)?;
    for (i, op) in case.ops.iter().enumerate() {
        let before = snapshot(&c);
        let mut expect = totals(&c);
        let at = |e: String| format!("op {i} {op:?}: {e}");
        let outcome = match op {
            Op::Deliver(t, a) => deliver_checked(&mut c, &before, &mut expect, *t, *a),
            Op::Take(t, a, s) => take_checked(&mut c, &mut expect, *t, *a, *s),
            Op::Resize(s, b) => resize_checked(&mut c, &before, &mut expect, *s, *b),
            Op::OwnerGone => owner_gone_checked(&mut c, &before, &mut expect),
            Op::Sort(order) => sort_checked(&mut c, &before, order),
            Op::Move(f, t, a) => move_checked(&mut c, &before, *f, *t, *a),
        };
        log.push(outcome.map_err(at)?);
        if totals(&c) != expect {
            return Err(at(format!(
                "contents changed by more than the outcome says: want {expect:?} got {:?}",
                totals(&c)
            )));
        }
        check_state(&c).map_err(at)?;
        log.push(format!("{:?}", snapshot(&c)));
    }
    Ok((c, log))
}

/// Delivers `a` of pool type `t`, checking the delivery's accounting;
/// returns the outcome as text.
fn deliver_checked(
    c: &mut Contents,
    before: &Snapshot,
    expect: &mut BTreeMap<String, i128>,
    t: usize,
    a: u32,
) -> Result<String, String> {
    let d = c.deliver(POOL[t], a);
    let refused = d.refused.as_ref().map_or(0, |r| r.amount);
    let left = d.leftover.as_ref().map_or(0, |l| l.amount);
    if u64::from(d.offered) != u64::from(d.accepted) + u64::from(refused) + u64::from(left) {
        return Err(format!("offered != accepted + refused + leftover: {d:?}"));
    }
    if c.rules().has_slots()
        && d.landed.iter().map(|l| u64::from(l.amount)).sum::<u64>() != u64::from(d.accepted)
    {
        return Err(format!("landed does not add to accepted: {d:?}"));
    }
    if d.refused.is_some() && d.accepted == 0 && snapshot(c) != *before {
        return Err("a refused delivery changed the contents".into());
    }
    if c.rules().partial == PartialAcceptance::AllOrNothing && d.leftover.is_some() {
        return Err("all-or-nothing left a leftover".into());
    }
    add(expect, POOL[t], i128::from(d.accepted));
    Ok(format!("{d:?}"))
}

/// Takes `a` of pool type `t` (from slot `s`), checking it against a click
/// on that slot and the take's accounting; returns the outcome as text.
fn take_checked(
    c: &mut Contents,
    expect: &mut BTreeMap<String, i128>,
    t: usize,
    a: u32,
    s: Option<u32>,
) -> Result<String, String> {
    // a click on a slot holding the type is the same take
    let by_click = s
        .filter(|&s| c.stack(s).is_some_and(|st| st.item.as_str() == POOL[t]))
        .map(|s| {
            let mut twin = c.clone();
            let k = twin.take_slot(s, a);
            (k, snapshot(&twin))
        });
    let k = c.take_inner(POOL[t], a, s);
    if let Some((click, state)) = by_click
        && (click.as_ref() != Some(&k) || state != snapshot(c))
    {
        return Err(format!("take_slot differs from take_from: {click:?}"));
    }
    if k.asked != k.taken + k.shortfall {
        return Err(format!("asked != taken + shortfall: {k:?}"));
    }
    if c.rules().has_slots() && k.from.iter().map(|l| l.amount).sum::<u32>() != k.taken {
        return Err(format!("from does not add to taken: {k:?}"));
    }
    add(expect, POOL[t], -i128::from(k.taken));
    Ok(format!("{k:?}"))
}

/// Resizes to slot count `s` and budget `b`, checking a refusal changed
/// nothing; returns the outcome as text.
fn resize_checked(
    c: &mut Contents,
    before: &Snapshot,
    expect: &mut BTreeMap<String, i128>,
    s: Option<u32>,
    b: Option<&str>,
) -> Result<String, String> {
    let f = c.resize(s, b.map(|b| b.parse().unwrap()));
    if f.refused.is_some() && snapshot(c) != *before {
        return Err("a refused forced removal changed the contents".into());
    }
    for p in &f.portions {
        add(expect, p.item.as_str(), -i128::from(p.amount));
    }
    Ok(format!("{f:?}"))
}

/// Forces everything out as the owner goes, checking it emptied the
/// container or changed nothing; returns the outcome as text.
fn owner_gone_checked(
    c: &mut Contents,
    before: &Snapshot,
    expect: &mut BTreeMap<String, i128>,
) -> Result<String, String> {
    let f = c.owner_gone();
    if f.refused.is_some() && snapshot(c) != *before {
        return Err("a refused owner-gone changed the contents".into());
    }
    if f.refused.is_none() && !c.is_empty() {
        return Err("owner gone but items stayed".into());
    }
    for p in &f.portions {
        add(expect, p.item.as_str(), -i128::from(p.amount));
    }
    Ok(format!("{f:?}"))
}

/// Sorts by the pool types in `order`, checking a refusal changed nothing;
/// returns the outcome as text.
fn sort_checked(c: &mut Contents, before: &Snapshot, order: &[usize]) -> Result<String, String> {
    let names: Vec<&str> = order.iter().map(|&i| POOL[i]).collect();
    let r = c.sort(&names);
    if r.refused.is_some() && snapshot(c) != *before {
        return Err("a refused sort changed the contents".into());
    }
    Ok(format!("{r:?}"))
}

/// Moves `a` from slot `f` to slot `t`, checking it against section 7
/// ([`check_move`]); returns the outcome as text.
fn move_checked(
    c: &mut Contents,
    before: &Snapshot,
    f: u32,
    t: u32,
    a: Option<u32>,
) -> Result<String, String> {
    let was = stacks(c);
    let r = c.move_items(f, t, a);
    if r.refused.is_some() && snapshot(c) != *before {
        return Err("a refused move changed the contents".into());
    }
    check_move(&was, c, (f, t, a), r.refused)?;
    Ok(format!("{r:?}"))
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

// ---- moves, transfers and dry runs (sections 7 and 11) ----

/// Requests heavy on moves, with deliveries and takes to make stacks of
/// every fill level to merge.
fn move_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0..POOL.len(), 0u32..30).prop_map(|(t, a)| Op::Deliver(t, a)),
        2 => (0..POOL.len(), 0u32..30, proptest::option::of(0u32..10)).prop_map(|(t, a, s)| Op::Take(t, a, s)),
        1 => (proptest::option::of(0u32..10), proptest::option::of(pick(BUDGETS))).prop_map(|(s, b)| Op::Resize(s, b)),
        1 => proptest::collection::vec(0..POOL.len(), 0..3).prop_map(Op::Sort),
        8 => (0u32..10, 0u32..10, proptest::option::of(0u32..8)).prop_map(|(f, t, a)| Op::Move(f, t, a)),
    ]
}

/// Whether the random runs are many enough to insist that a generator
/// reached a kind of outcome.
fn enough(n: u32) -> bool {
    n >= 100
}

#[test]
fn moves_merge_what_fits_and_never_lose_items() {
    // `run` checks every move against section 7 (`check_move`): a merge
    // onto a same-type stack moves exactly min(asked, room) and leaves the
    // rest in the source slot, a refused move changes nothing, per-type
    // totals never change, no stack passes its limit.
    let n = cases(500);
    runner(n)
        .run(
            &case_with(proptest::collection::vec(move_op(), 1..40)),
            |case| {
                run(&case).map_err(TestCaseError::fail)?;
                Ok(())
            },
        )
        .unwrap();
    if enough(n) {
        assert!(
            PARTIAL_MERGES.load(Ordering::Relaxed) > 0,
            "no move merged only part of its stack: the generator misses the case"
        );
    }
}

/// A slot a request names: the k-th occupied slot (modulo how many there
/// are), or a raw index (empty, past the end, or one a no-limit container
/// grows to).
#[derive(Clone, Copy, Debug)]
enum SlotPick {
    Held(usize),
    Raw(u32),
}

fn slot_pick() -> impl Strategy<Value = SlotPick> {
    prop_oneof![
        3 => (0usize..16).prop_map(SlotPick::Held),
        1 => (0u32..10).prop_map(SlotPick::Raw),
    ]
}

fn resolve(c: &Contents, p: SlotPick) -> u32 {
    match p {
        SlotPick::Raw(s) => s,
        SlotPick::Held(k) => {
            let held: Vec<u32> = stacks(c).into_keys().collect();
            if held.is_empty() {
                k as u32
            } else {
                held[k % held.len()]
            }
        }
    }
}

/// The type a request names: none, one the source holds (with a source
/// slot: that slot's type), or any of the pool (with a source slot, often
/// the wrong one).
#[derive(Clone, Copy, Debug)]
enum ItemPick {
    None,
    Held(usize),
    Pool(usize),
}

fn item_pick() -> impl Strategy<Value = ItemPick> {
    prop_oneof![
        2 => Just(ItemPick::None),
        3 => (0usize..8).prop_map(ItemPick::Held),
        1 => (0..POOL.len()).prop_map(ItemPick::Pool),
    ]
}

/// A transfer as generated, resolved against the containers when it runs.
#[derive(Clone, Debug)]
struct Req {
    /// From the second container to the first.
    back: bool,
    item: ItemPick,
    from: Option<SlotPick>,
    to: Option<SlotPick>,
    amount: u32,
}

fn req() -> impl Strategy<Value = Req> {
    (
        any::<bool>(),
        item_pick(),
        proptest::option::of(slot_pick()),
        proptest::option::of(slot_pick()),
        prop_oneof![20 => 0u32..30, 1 => Just(u32::MAX)],
    )
        .prop_map(|(back, item, from, to, amount)| Req {
            back,
            item,
            from,
            to,
            amount,
        })
}

fn resolve_req(src: &Contents, tgt: &Contents, r: &Req) -> TransferRequest {
    let from_slot = r.from.map(|p| resolve(src, p));
    let item = match r.item {
        ItemPick::None => None,
        ItemPick::Pool(i) => Some(POOL[i].to_string()),
        ItemPick::Held(k) => match from_slot {
            Some(s) => src.stack(s).map(|st| st.item.to_string()),
            None => {
                let held: Vec<String> = src.totals().into_keys().map(|t| t.to_string()).collect();
                Some(if held.is_empty() {
                    POOL[k % POOL.len()].to_string()
                } else {
                    held[k % held.len()].clone()
                })
            }
        },
    };
    // a no-limit target would grow to its safety ceiling of a million
    // slots: as in `case`, that is tested on its own
    let rules = tgt.rules();
    let amount = if r.amount == u32::MAX && rules.has_slots() && !rules.has_slot_limit() {
        5_000
    } else {
        r.amount
    };
    TransferRequest {
        item: item.map(ItemType::from),
        props: None,
        from_slot,
        to_slot: r.to.map(|p| resolve(tgt, p)),
        amount,
    }
}

/// The slots holding `item`, in the order a take without a slot draws
/// them (section 5).
fn draw_sequence(c: &Contents, item: &str) -> Vec<u32> {
    let mut slots: Vec<u32> = stacks(c)
        .into_iter()
        .filter(|(_, (i, _))| i == item)
        .map(|(s, _)| s)
        .collect();
    let stack = |s: u32| c.stack(s).expect("a slot of the type holds a stack");
    match c.rules().draw {
        DrawOrder::LastInOrder => slots.reverse(),
        DrawOrder::NewestFirst => slots.sort_by_key(|&s| std::cmp::Reverse(stack(s).last_received)),
        DrawOrder::OldestFirst => slots.sort_by_key(|&s| stack(s).began),
        _ => {}
    }
    slots
}

/// The refusal section 11's source checks name, when one applies (a
/// request naming neither a slot nor a type is left open by the spec).
fn source_refusal(src: &Contents, req: &TransferRequest) -> Option<Reason> {
    let rules = src.rules();
    match (req.from_slot, &req.item) {
        (Some(_), _) if !rules.has_slots() => Some(Reason::NoSlots),
        (Some(s), item) => match src.stack(s) {
            None => Some(Reason::EmptySlot),
            Some(st) if item.as_ref().is_some_and(|i| *i != st.item) => Some(Reason::WrongType),
            Some(_) => None,
        },
        (None, Some(i))
            if rules.has_slots()
                && rules.draw == DrawOrder::NotApplicable
                && draw_sequence(src, i.as_str()).len() > 1 =>
        {
            Some(Reason::AmbiguousDraw)
        }
        (None, _) => None,
    }
}

/// How many of what was asked the source has to give (section 11 step 1).
fn available(src: &Contents, req: &TransferRequest, item: &str) -> u64 {
    let held = match req.from_slot {
        Some(s) => src.stack(s).map_or(0, |st| u64::from(st.amount)),
        None => src.count(item),
    };
    held.min(u64::from(req.amount))
}

/// One landing, as a swap or a move within a container reports each side.
fn one(slot: u32, amount: u32) -> [Landing; 1] {
    [Landing { slot, amount }]
}

/// `stacks(before)` after `landings` of `item` left (or arrived, when
/// `arriving`), with their sum; an error when a landing does not fit what
/// was there.
fn apply_landings(
    before: &Slots,
    landings: &[Landing],
    item: &str,
    arriving: bool,
) -> Result<(Slots, u64), String> {
    let mut want = before.clone();
    let mut sum = 0u64;
    for l in landings {
        let held = match want.get(&l.slot) {
            Some((i, a)) if i == item => *a,
            None => 0,
            Some(other) => {
                return Err(format!(
                    "landing {l:?} names a slot holding {other:?}, not {item}"
                ));
            }
        };
        let now = if arriving {
            held.checked_add(l.amount)
        } else {
            held.checked_sub(l.amount)
        };
        let now = match now {
            Some(n) if l.amount > 0 => n,
            _ => {
                return Err(format!(
                    "landing {l:?} does not fit the {held} of {item} there"
                ));
            }
        };
        if now == 0 {
            want.remove(&l.slot);
        } else {
            want.insert(l.slot, (item.to_string(), now));
        }
        sum += u64::from(l.amount);
    }
    Ok((want, sum))
}

/// Section 11: a transfer from `src0` to `tgt0` that left `src` and `tgt`
/// and answered `t`.
fn check_transfer(
    src0: &Contents,
    tgt0: &Contents,
    src: &Contents,
    tgt: &Contents,
    req: &TransferRequest,
    t: &Transferred,
) -> Result<(), String> {
    let seen = TransferSeen {
        src0,
        tgt0,
        src,
        tgt,
        req,
        t,
    };
    check_state(src).map_err(|e| format!("source: {e}"))?;
    check_state(tgt).map_err(|e| format!("target: {e}"))?;
    if t.asked != req.amount {
        return Err("asked is not the request's amount".into());
    }
    if u64::from(t.moved) + u64::from(t.shortfall) > u64::from(t.asked) {
        return Err("moved + shortfall > asked".into());
    }
    seen.check_transfer_totals()?;
    let unchanged = snapshot(src) == snapshot(src0) && snapshot(tgt) == snapshot(tgt0);
    if req.amount == 0 {
        if t.refused.is_some() || t.moved != 0 || !unchanged {
            return Err("a transfer of 0 was refused or changed something".into());
        }
        return Ok(());
    }
    let expect = seen.expected_refusal();
    if expect.is_some() && t.refused != expect {
        return Err(format!("expected the refusal {expect:?}"));
    }
    if let Some(r) = t.refused {
        return check_refused_transfer(t, r, unchanged);
    }
    let item = t
        .item
        .clone()
        .ok_or("a transfer that was not refused names no type")?;
    let name = item.as_str();
    seen.check_moved_type(&item)?;
    let offered = available(src0, req, name);
    if u64::from(t.shortfall) != u64::from(req.amount) - offered {
        return Err(format!("shortfall is not asked - available ({offered})"));
    }
    if let Some(sw) = &t.swapped {
        return seen.check_swap(sw, &item);
    }
    if u64::from(t.moved) > offered {
        return Err(format!("moved more than the {offered} available"));
    }
    seen.check_type_moved(name)?;
    seen.check_source_slots(name)?;
    seen.check_target_slots(name)?;
    seen.check_target_acceptance(name, offered)
}

/// A transfer as it ran: both containers before and after, the request
/// and its answer.
struct TransferSeen<'a> {
    src0: &'a Contents,
    tgt0: &'a Contents,
    src: &'a Contents,
    tgt: &'a Contents,
    req: &'a TransferRequest,
    t: &'a Transferred,
}

/// A refused transfer changed nothing and reports nothing moved.
fn check_refused_transfer(t: &Transferred, r: Reason, unchanged: bool) -> Result<(), String> {
    if !unchanged {
        return Err(format!("a transfer refused ({r:?}) changed a container"));
    }
    if t.moved != 0
        || t.shortfall != t.asked
        || !t.from.is_empty()
        || !t.landed.is_empty()
        || t.swapped.is_some()
    {
        return Err("a refusal reports moved 0, shortfall = asked, no slots, no swap".into());
    }
    Ok(())
}

impl TransferSeen<'_> {
    /// Nothing is created or lost, for every type, swaps included.
    fn check_transfer_totals(&self) -> Result<(), String> {
        let mut before = totals(self.src0);
        for (k, v) in totals(self.tgt0) {
            add(&mut before, &k, v);
        }
        let mut after = totals(self.src);
        for (k, v) in totals(self.tgt) {
            add(&mut after, &k, v);
        }
        if before != after {
            return Err(format!("the two containers held {before:?}, now {after:?}"));
        }
        Ok(())
    }

    /// The refusal the request must get: the source's checks first, then
    /// a slot named on a slotless target.
    fn expected_refusal(&self) -> Option<Reason> {
        let req = self.req;
        source_refusal(self.src0, req).or_else(|| {
            (req.to_slot.is_some()
                && !self.tgt0.rules().has_slots()
                && (req.from_slot.is_some() || req.item.is_some()))
            .then_some(Reason::NoSlots)
        })
    }

    /// The type moved is the one named and the source slot's.
    fn check_moved_type(&self, item: &ItemType) -> Result<(), String> {
        if self.req.item.as_ref().is_some_and(|i| i != item) {
            return Err("moved another type than the one named".into());
        }
        if let Some(s) = self.req.from_slot
            && self.src0.stack(s).is_none_or(|st| st.item != *item)
        {
            return Err("moved another type than the source slot's".into());
        }
        Ok(())
    }

    /// A swap exchanged the two whole stacks and changed nothing else.
    fn check_swap(&self, sw: &Swapped, item: &ItemType) -> Result<(), String> {
        let (src0, tgt0, t) = (self.src0, self.tgt0, self.t);
        // both stacks changed places, whole
        let (Some(f), Some(to)) = (self.req.from_slot, self.req.to_slot) else {
            return Err("a swap without both slots named".into());
        };
        if src0.stack(f).map(|s| s.amount) != Some(t.moved) {
            return Err("a swap moves the whole source stack".into());
        }
        if tgt0
            .stack(to)
            .is_none_or(|s| s.item != sw.item || s.amount != sw.amount)
            || sw.item == *item
        {
            return Err("swapped is not the target slot's other stack".into());
        }
        if t.from != one(f, t.moved) || t.landed != one(to, t.moved) {
            return Err("a swap's from and landed are its two slots with the moved amount".into());
        }
        let mut want_src = stacks(src0);
        want_src.insert(f, (sw.item.to_string(), sw.amount));
        let mut want_tgt = stacks(tgt0);
        want_tgt.insert(to, (item.as_str().to_string(), t.moved));
        if stacks(self.src) != want_src || stacks(self.tgt) != want_tgt {
            return Err("a swap changed more than its two slots".into());
        }
        Ok(())
    }

    /// Exactly `moved` of the type left the source and entered the target.
    fn check_type_moved(&self, name: &str) -> Result<(), String> {
        let t = self.t;
        let mut want = totals(self.src0);
        add(&mut want, name, -i128::from(t.moved));
        if totals(self.src) != want {
            return Err(format!("the source gave other than {} {name}", t.moved));
        }
        let mut want = totals(self.tgt0);
        add(&mut want, name, i128::from(t.moved));
        if totals(self.tgt) != want {
            return Err(format!("the target received other than {} {name}", t.moved));
        }
        Ok(())
    }

    /// The source slots reported are those that changed, by the amounts reported.
    fn check_source_slots(&self, name: &str) -> Result<(), String> {
        let side = Side {
            before: self.src0,
            after: self.src,
            slots: &self.t.from,
            named: self.req.from_slot,
            adds: false,
        };
        side.check_slots(name, self.t.moved, SOURCE_WORDS)
    }

    /// The target slots reported are those that changed, by the amounts reported.
    fn check_target_slots(&self, name: &str) -> Result<(), String> {
        let side = Side {
            before: self.tgt0,
            after: self.tgt,
            slots: &self.t.landed,
            named: self.req.to_slot,
            adds: true,
        };
        side.check_slots(name, self.t.moved, TARGET_WORDS)
    }

    /// The target took all or nothing when it must, and its dry run agrees
    /// with what it took of the `offered` available.
    fn check_target_acceptance(&self, name: &str, offered: u64) -> Result<(), String> {
        let (tgt0, req, t) = (self.tgt0, self.req, self.t);
        // an all-or-nothing target takes everything available or refuses
        let rules = tgt0.rules();
        if rules.partial == PartialAcceptance::AllOrNothing
            && (rules.has_slot_limit() || rules.has_budget())
            && u64::from(t.moved) != offered
        {
            return Err("an all-or-nothing target took part of what was available".into());
        }
        // the dry run of the target side says the same
        let offered = u32::try_from(offered).map_err(|_| "available passes u32")?;
        let dry = tgt0.would_accept(name, offered, req.to_slot);
        if dry != Ok(t.moved) {
            return Err(format!(
                "would_accept({name}, {offered}, {:?}) said {dry:?}",
                req.to_slot
            ));
        }
        Ok(())
    }
}

#[derive(Clone, Debug)]
struct Pair {
    a: Case,
    b: Case,
    reqs: Vec<Req>,
}

fn pair() -> impl Strategy<Value = Pair> {
    (case(), case(), proptest::collection::vec(req(), 1..16)).prop_map(|(a, b, reqs)| Pair {
        a,
        b,
        reqs,
    })
}

#[test]
fn transfers_conserve_items_and_respect_both_containers() {
    let moved = AtomicUsize::new(0);
    let stayed = AtomicUsize::new(0);
    let swaps = AtomicUsize::new(0);
    let n = cases(500);
    runner(n)
        .run(&pair(), |p| {
            let (mut a, _) = run_to(&p.a).map_err(TestCaseError::fail)?;
            let (mut b, _) = run_to(&p.b).map_err(TestCaseError::fail)?;
            for (i, r) in p.reqs.iter().enumerate() {
                let (src, tgt) = if r.back {
                    (&mut b, &mut a)
                } else {
                    (&mut a, &mut b)
                };
                let req = resolve_req(src, tgt, r);
                let (src0, tgt0) = (src.clone(), tgt.clone());
                let t = src.transfer(tgt, &req);
                check_transfer(&src0, &tgt0, src, tgt, &req, &t)
                    .map_err(|e| TestCaseError::fail(format!("request {i} {req:?}: {e}\n{t:?}")))?;
                if t.swapped.is_some() {
                    swaps.fetch_add(1, Ordering::Relaxed);
                } else if t.moved > 0 {
                    moved.fetch_add(1, Ordering::Relaxed);
                    if u64::from(t.moved) + u64::from(t.shortfall) < u64::from(t.asked) {
                        stayed.fetch_add(1, Ordering::Relaxed);
                    }
                }
            }
            Ok(())
        })
        .unwrap();
    if enough(n) {
        let seen = |c: &AtomicUsize| c.load(Ordering::Relaxed);
        assert!(seen(&moved) > 0, "no transfer moved anything");
        assert!(
            seen(&stayed) > 0,
            "no transfer left part of what was available behind"
        );
        assert!(seen(&swaps) > 0, "no transfer swapped two stacks");
    }
}

/// A source that holds `amount` of `item` and has no limits: no-limit,
/// any item, drawn first in order.
fn roomy_source(item: &str, amount: u32) -> Contents {
    static RULES: OnceLock<Arc<Rules>> = OnceLock::new();
    let rules = RULES.get_or_init(|| {
        let rows: Vec<Value> = POOL[..POOL.len() - 1]
            .iter()
            .map(|id| json!({"id": id, "stack-limit": 1000, "when-forced-out": "never"}))
            .collect();
        let adoption = json!({
            "contract": "container", "version": 1,
            "answers": {
                "capacity-limit": "no-limit",
                "fill-order": "top-up-then-first-empty",
                "draw-order": "first-in-order",
                "type-restriction": "any-item",
            },
            "values": {"slot-count": 0, "size-budget": 0.0},
            "rows": {"items": rows},
        });
        build(&Case {
            adoption,
            slot_rules: None,
            ops: Vec::new(),
        })
        .rules()
        .clone()
    });
    let mut c = Contents::new(rules.clone());
    let d = c.deliver(item, amount);
    assert_eq!(
        d.accepted, amount,
        "the roomy source takes everything: {d:?}"
    );
    c
}

#[derive(Clone, Debug)]
struct DryCase {
    case: Case,
    asks: Vec<(usize, u32, Option<SlotPick>)>,
}

fn dry_case() -> impl Strategy<Value = DryCase> {
    (
        case(),
        proptest::collection::vec(
            (0..POOL.len(), 0u32..40, proptest::option::of(slot_pick())),
            1..12,
        ),
    )
        .prop_map(|(case, asks)| DryCase { case, asks })
}

#[test]
fn dry_run_agrees_with_delivery_and_transfer() {
    runner(cases(300))
        .run(&dry_case(), |dc| {
            let (c, _) = run_to(&dc.case).map_err(TestCaseError::fail)?;
            let state = snapshot(&c);
            for &(t, amount, slot) in &dc.asks {
                let item = POOL[t];
                let slot = slot.map(|p| resolve(&c, p));
                let dry = c.would_accept(item, amount, slot);
                let fail = |e: String| {
                    TestCaseError::fail(format!(
                        "would_accept({item}, {amount}, {slot:?}) = {dry:?}: {e}"
                    ))
                };
                if snapshot(&c) != state {
                    return Err(fail("a dry run changed the container".into()));
                }
                if slot.is_none() {
                    let d = c.clone().deliver(item, amount);
                    let agrees = match dry {
                        Ok(n) => d.accepted == n,
                        Err(_) => d.accepted == 0,
                    };
                    if !agrees {
                        return Err(fail(format!("the delivery said {d:?}")));
                    }
                }
                // the target side of a transfer from a source with enough
                let mut source = roomy_source(item, amount);
                let tr = source.transfer(
                    &mut c.clone(),
                    &TransferRequest {
                        item: Some(item.into()),
                        props: None,
                        from_slot: None,
                        to_slot: slot,
                        amount,
                    },
                );
                let agrees = match dry {
                    Ok(n) => tr.refused.is_none() && tr.moved == n,
                    Err(r) => tr.refused == Some(r),
                };
                if !agrees {
                    return Err(fail(format!("the transfer said {tr:?}")));
                }
            }
            Ok(())
        })
        .unwrap();
}

#[derive(Clone, Debug)]
struct WithinCase {
    case: Case,
    moves: Vec<(ItemPick, Option<SlotPick>, SlotPick, u32)>,
}

fn within_case() -> impl Strategy<Value = WithinCase> {
    (
        case_with(proptest::collection::vec(move_op(), 1..30)),
        proptest::collection::vec(
            (
                item_pick(),
                proptest::option::of(slot_pick()),
                slot_pick(),
                0u32..12,
            ),
            1..16,
        ),
    )
        .prop_map(|(case, moves)| WithinCase { case, moves })
}

#[test]
fn transfer_within_is_a_move() {
    let moved = AtomicUsize::new(0);
    let n = cases(300);
    runner(n)
        .run(&within_case(), |wc| {
            let (mut c, _) = run_to(&wc.case).map_err(TestCaseError::fail)?;
            for (k, &mv) in wc.moves.iter().enumerate() {
                if transfer_within_checked(&mut c, k, mv)? {
                    moved.fetch_add(1, Ordering::Relaxed);
                }
            }
            Ok(())
        })
        .unwrap();
    if enough(n) {
        assert!(
            moved.load(Ordering::Relaxed) > 0,
            "no transfer within a container moved"
        );
    }
}

/// A generated move within one container: type, source slot, target slot, amount.
type WithinMove = (ItemPick, Option<SlotPick>, SlotPick, u32);

/// Runs move `k` as a transfer within `c` and checks it is the move
/// `move_items` makes; true when it went through to the end.
fn transfer_within_checked(
    c: &mut Contents,
    k: usize,
    (item, from, to, amount): WithinMove,
) -> Result<bool, TestCaseError> {
    let r = Req {
        back: false,
        item,
        from,
        to: Some(to),
        amount,
    };
    let req = resolve_req(&*c, &*c, &r);
    let before = c.clone();
    let tr = c.transfer_within(&req);
    let fail = |e: String| TestCaseError::fail(format!("move {k} {req:?}: {e}\n{tr:?}"));
    let seen = WithinSeen {
        before: &before,
        c: &*c,
        req: &req,
        tr: &tr,
        amount,
    };
    seen.check().map_err(fail)
}

/// A transfer within one container as it ran: the container before and
/// after, the request, its answer and the amount generated.
struct WithinSeen<'a> {
    before: &'a Contents,
    c: &'a Contents,
    req: &'a TransferRequest,
    tr: &'a Transferred,
    amount: u32,
}

impl WithinSeen<'_> {
    /// Every check of the move in order; false where the move stops early
    /// (nothing to compare further), true when it was checked to the end.
    fn check(&self) -> Result<bool, String> {
        if !self.check_outcome_consistent()? {
            return Ok(false);
        }
        let Some(f) = self.draw_slot()? else {
            return Ok(false);
        };
        let Some((name, held, t)) = self.check_against_move_items(f)? else {
            return Ok(false);
        };
        self.check_report(f, &name, held, t)?;
        Ok(true)
    }

    /// Whether the container is as it was.
    fn unchanged(&self) -> bool {
        snapshot(self.c) == snapshot(self.before)
    }

    /// State, totals and refusal checks; false when the move needs no more
    /// checks (a move of 0, or one the source's checks refuse).
    fn check_outcome_consistent(&self) -> Result<bool, String> {
        let (c, before, req, tr) = (self.c, self.before, self.req, self.tr);
        check_state(c)?;
        if totals(c) != totals(before) {
            return Err("a move within one container changed its totals".into());
        }
        if u64::from(tr.moved) + u64::from(tr.shortfall) > u64::from(tr.asked) {
            return Err("moved + shortfall > asked".into());
        }
        let unchanged = self.unchanged();
        if let Some(r) = tr.refused
            && (!unchanged || tr.moved != 0 || tr.shortfall != tr.asked)
        {
            return Err(format!(
                "a refusal ({r:?}) changed something or reports moved > 0"
            ));
        }
        if self.amount == 0 {
            if tr.refused.is_some() || !unchanged {
                return Err("a move of 0 was refused or changed something".into());
            }
            return Ok(false);
        }
        if let Some(r) = source_refusal(before, req) {
            if tr.refused != Some(r) {
                return Err(format!("expected the refusal {r:?}"));
            }
            return Ok(false);
        }
        Ok(true)
    }

    /// The slot the move draws from: the named one, or the first of the
    /// type in draw order; `None` when there is none to compare with.
    fn draw_slot(&self) -> Result<Option<u32>, String> {
        let tr = self.tr;
        Ok(match (self.req.from_slot, &self.req.item) {
            (Some(s), _) => Some(s),
            (None, Some(i)) => match draw_sequence(self.before, i.as_str()).first() {
                Some(&s) => Some(s),
                None => {
                    if tr.moved != 0 || !self.unchanged() {
                        return Err("nothing to draw, yet something moved".into());
                    }
                    None
                }
            },
            (None, None) => None,
        })
    }

    /// The transfer refused as `move_items` from slot `f` does and left
    /// the same slots; returns the source stack's type and amount and the
    /// target slot, or `None` when refused.
    fn check_against_move_items(&self, f: u32) -> Result<Option<(String, u32, u32)>, String> {
        let (c, before, req, tr) = (self.c, self.before, self.req, self.tr);
        let Some(stack) = before.stack(f) else {
            return Err(format!("slot {f} should hold the source stack"));
        };
        let (name, held) = (stack.item.to_string(), stack.amount);
        let t = req.to_slot.expect("generated with a target slot");
        let mut twin = before.clone();
        let mv = twin.move_items(f, t, Some(self.amount.min(held)));
        // onto another type, a swap needs both slots named and every
        // check passed, else it is `occupied` (spec 11.4, 11.7)
        let other_there = before.stack(t).is_some_and(|s| s.item.as_str() != name);
        let theirs = if other_there && (mv.refused.is_some() || req.from_slot.is_none()) {
            Some(Reason::Occupied)
        } else {
            mv.refused
        };
        if tr.refused != theirs {
            return Err(format!("move_items refused {:?}", mv.refused));
        }
        if tr.refused.is_some() {
            return Ok(None);
        }
        let full = |x: &Contents| x.slots().map(|s| s.cloned()).collect::<Vec<_>>();
        if full(c) != full(&twin) || c.size_used() != twin.size_used() {
            return Err(format!(
                "move_items left {:?}, transfer_within {:?}",
                stacks(&twin),
                stacks(c)
            ));
        }
        if tr.refused.is_some() {
            return Ok(None);
        }
        Ok(Some((name, held, t)))
    }

    /// The answer reports the source stack's type, the shortfall, the
    /// amount moved (or the swap) and the two slots, for a move of `held`
    /// `name` from slot `f` to slot `t`.
    fn check_report(&self, f: u32, name: &str, held: u32, t: u32) -> Result<(), String> {
        let (c, before, tr, amount) = (self.c, self.before, self.tr, self.amount);
        if tr.item.as_ref().map(ItemType::as_str) != Some(name) {
            return Err("reports another type than the source stack's".into());
        }
        // a move draws from one stack only
        let offered = u64::from(amount.min(held));
        if u64::from(tr.shortfall) != u64::from(amount) - offered {
            return Err(format!("shortfall is not asked - available ({offered})"));
        }
        match &tr.swapped {
            Some(sw) => {
                if tr.moved != held
                    || before
                        .stack(t)
                        .is_none_or(|s| s.item != sw.item || s.amount != sw.amount)
                {
                    return Err("a swap is the two whole stacks".into());
                }
            }
            None => {
                let left = stacks(c)
                    .get(&f)
                    .filter(|(i, _)| *i == name)
                    .map_or(0, |(_, a)| *a);
                if held.checked_sub(left) != Some(tr.moved) {
                    return Err(format!(
                        "slot {f} went from {held} to {left}, moved says {}",
                        tr.moved
                    ));
                }
            }
        }
        if tr.from != one(f, tr.moved) || tr.landed != one(t, tr.moved) {
            return Err("from and landed are the two slots with moved".into());
        }
        Ok(())
    }
}

// ---- items with properties (the guide's chapter on item properties) ----

/// The properties the kind tests give items (canonical text).
const KIND_PROPS: [&str; 4] = ["{}", r#"{"q":1}"#, r#"{"q":2}"#, r#"{"to":"Ilsa"}"#];

fn kind_props(i: usize) -> bevy_container::props::Props {
    bevy_container::props::Props::parse(KIND_PROPS[i % KIND_PROPS.len()]).expect("valid")
}

/// A request of the kind tests.
#[derive(Clone, Debug)]
enum KindOp {
    Deliver(usize, usize, u32),
    Take(usize, Option<usize>, u32, Option<u32>),
    /// Slot, amount, new properties.
    SetSlot(u32, Option<u32>, usize),
    /// Type, its kind, amount, new properties (slotless).
    SetHeld(usize, usize, Option<u32>, usize),
    Move(u32, u32, Option<u32>),
    Sort,
    Resize(Option<u32>),
    Within(u32, u32, Option<usize>, u32),
}

fn kind_op() -> impl Strategy<Value = KindOp> {
    let k = 0..KIND_PROPS.len();
    prop_oneof![
        6 => (0..POOL.len(), k.clone(), 0u32..25).prop_map(|(t, p, a)| KindOp::Deliver(t, p, a)),
        3 => (0..POOL.len(), proptest::option::of(k.clone()), 0u32..25, proptest::option::of(0u32..10))
            .prop_map(|(t, p, a, s)| KindOp::Take(t, p, a, s)),
        3 => (0u32..10, proptest::option::of(0u32..12), k.clone()).prop_map(|(s, a, p)| KindOp::SetSlot(s, a, p)),
        2 => (0..POOL.len(), k.clone(), proptest::option::of(0u32..12), k.clone())
            .prop_map(|(t, p, a, to)| KindOp::SetHeld(t, p, a, to)),
        2 => (0u32..10, 0u32..10, proptest::option::of(0u32..8)).prop_map(|(f, t, a)| KindOp::Move(f, t, a)),
        1 => Just(KindOp::Sort),
        1 => proptest::option::of(1u32..10).prop_map(KindOp::Resize),
        2 => (0u32..10, 0u32..10, proptest::option::of(k), 0u32..12)
            .prop_map(|(f, t, p, a)| KindOp::Within(f, t, p, a)),
    ]
}

/// What a container holds by kind label (`potion{"q":1}`).
fn kind_totals(c: &Contents) -> BTreeMap<String, i128> {
    c.kind_totals()
        .into_iter()
        .map(|(k, v)| (k.to_string(), i128::from(v)))
        .collect()
}

/// Runs kind requests, keeping a book per kind: what was delivered, taken,
/// forced out and moved between kinds by a change of properties. After
/// every request the container holds exactly its book, kind by kind, so
/// nothing ever merged across kinds; a change of properties keeps every
/// type's count; a take of one kind takes only that kind.
fn run_kinds(case: &Case, ops: &[KindOp]) -> Result<(), String> {
    let mut c = build(case);
    let mut book: BTreeMap<String, i128> = BTreeMap::new();
    for (i, op) in ops.iter().enumerate() {
        let before_types = totals(&c);
        match op {
            KindOp::Deliver(t, p, a) => {
                let props = kind_props(*p);
                let d = c.deliver_kind(POOL[*t], &props, *a);
                let label = Kind::new(POOL[*t], props).to_string();
                add(&mut book, &label, i128::from(d.accepted));
            }
            KindOp::Take(t, p, a, s) => take_kind_booked(&mut c, &mut book, i, *t, *p, *a, *s)?,
            KindOp::SetHeld(t, p, a, to) => {
                let at = PropsAt::Held(Kind::new(POOL[*t], kind_props(*p)));
                set_props_booked(&mut c, &mut book, i, at, *a, kind_props(*to), &before_types)?;
            }
            KindOp::SetSlot(s, a, p) => {
                let at = PropsAt::Slot(*s);
                set_props_booked(&mut c, &mut book, i, at, *a, kind_props(*p), &before_types)?;
            }
            KindOp::Move(f, t, a) => {
                c.move_items(*f, *t, *a);
            }
            KindOp::Sort => {
                c.sort(&[]);
            }
            KindOp::Resize(n) => {
                let f = c.resize(*n, None);
                for p in &f.portions {
                    add(
                        &mut book,
                        &Kind::new(p.item.clone(), p.props.clone()).to_string(),
                        -i128::from(p.amount),
                    );
                }
            }
            KindOp::Within(f, t, p, a) => {
                let mut req = TransferRequest::from_slot(*f, *a).to_slot(*t);
                req.props = p.map(kind_props);
                c.transfer_within(&req);
            }
        }
        check_kind_step(&c, &book, i, op, &before_types)?;
    }
    Ok(())
}

/// Takes `a` of pool type `t` (of kind `p`, from slot `s`) at step `i`,
/// checking it took only the kind asked, and books what it took.
fn take_kind_booked(
    c: &mut Contents,
    book: &mut BTreeMap<String, i128>,
    i: usize,
    t: usize,
    p: Option<usize>,
    a: u32,
    s: Option<u32>,
) -> Result<(), String> {
    let asked = p.map(kind_props);
    let taken = c.take_kind(POOL[t], asked.as_ref(), a, s);
    let kinds = taken.kinds();
    if kinds.iter().map(|(_, n)| *n).sum::<u32>() != taken.taken {
        return Err(format!("step {i}: the portions add to the take: {taken:?}"));
    }
    for (props, n) in kinds {
        if asked.as_ref().is_some_and(|a| *a != props) {
            return Err(format!(
                "step {i}: a take of one kind took another: {taken:?}"
            ));
        }
        add(book, &Kind::new(POOL[t], props).to_string(), -i128::from(n));
    }
    Ok(())
}

/// Changes the properties of `amount` at `at` to `to` at step `i`, books
/// the items moved between kinds, and checks every type kept its count.
fn set_props_booked(
    c: &mut Contents,
    book: &mut BTreeMap<String, i128>,
    i: usize,
    at: PropsAt,
    amount: Option<u32>,
    to: bevy_container::props::Props,
    before_types: &BTreeMap<String, i128>,
) -> Result<(), String> {
    let set = c.set_props(at, amount, to);
    if let Some(item) = &set.item
        && set.changed > 0
    {
        let n = i128::from(set.changed);
        add(
            book,
            &Kind::new(item.clone(), set.from.clone()).to_string(),
            -n,
        );
        add(
            book,
            &Kind::new(item.clone(), set.to.clone()).to_string(),
            n,
        );
    }
    if totals(c) != *before_types {
        return Err(format!(
            "step {i}: a change of properties changed a type's count: {set:?}"
        ));
    }
    if set.refused.is_some() && set.changed != 0 {
        return Err(format!("step {i}: a refused change changed items: {set:?}"));
    }
    Ok(())
}

/// After step `i`: the container is sound, holds exactly its book, and a
/// rearrangement kept every type's count.
fn check_kind_step(
    c: &Contents,
    book: &BTreeMap<String, i128>,
    i: usize,
    op: &KindOp,
    before_types: &BTreeMap<String, i128>,
) -> Result<(), String> {
    check_state(c).map_err(|e| format!("step {i} ({op:?}): {e}"))?;
    if kind_totals(c) != *book {
        return Err(format!(
            "step {i} ({op:?}): held {:?}, the book says {book:?}",
            kind_totals(c)
        ));
    }
    if matches!(op, KindOp::Move(..) | KindOp::Sort | KindOp::Within(..))
        && totals(c) != *before_types
    {
        return Err(format!(
            "step {i} ({op:?}): rearranging changed a type's count"
        ));
    }
    Ok(())
}

#[test]
fn kinds_never_merge_and_a_change_of_properties_keeps_every_types_count() {
    let n = cases(1500);
    runner(n)
        .run(
            &(
                case_with(Just(Vec::new())),
                proptest::collection::vec(kind_op(), 1..50),
            ),
            |(case, ops)| {
                run_kinds(&case, &ops).map_err(TestCaseError::fail)?;
                Ok(())
            },
        )
        .unwrap();
}

/// One container of a transfer, as its slots are checked: before and
/// after, the slots the outcome reports, the slot the request named, and
/// whether items arrived (the target) or left (the source).
struct Side<'a> {
    before: &'a Contents,
    after: &'a Contents,
    slots: &'a [Landing],
    named: Option<u32>,
    adds: bool,
}

/// What a failed check of a side's slots says: another slot than the one
/// named, a sum other than moved, other slots changed, slots of a slotless
/// container.
type SideWords = [&'static str; 4];

const SOURCE_WORDS: SideWords = [
    "drew from a slot other than the one named",
    "from does not add up to moved",
    "the source's slots changed other than from says",
    "from names slots of a slotless source",
];

const TARGET_WORDS: SideWords = [
    "landed in a slot other than the one named",
    "landed does not add up to moved",
    "the target's slots changed other than landed says",
    "landed names slots of a slotless target",
];

impl Side<'_> {
    /// The slots reported are those that changed, by `moved` in all.
    fn check_slots(&self, name: &str, moved: u32, words: SideWords) -> Result<(), String> {
        if self.before.rules().has_slots() {
            if self
                .slots
                .iter()
                .any(|l| self.named.is_some_and(|n| n != l.slot))
            {
                return Err(words[0].into());
            }
            let (want, sum) = apply_landings(&stacks(self.before), self.slots, name, self.adds)?;
            if sum != u64::from(moved) {
                return Err(words[1].into());
            }
            if stacks(self.after) != want {
                return Err(words[2].into());
            }
        } else if !self.slots.is_empty() {
            return Err(words[3].into());
        }
        Ok(())
    }
}
