//! The audit: the seed's 14 tests, every conformance adoption passing, and
//! planted wrong behaviour caught with a reproducible seed.

use std::path::Path;

use bevy_container::adoption::{self, Adoption, Context, Format, Tuning};
use bevy_container::audit::{self, AuditOptions, Subject, Verdict};
use bevy_container::contents::{Contents, Delivered, ForcedOut, SlotRules, Taken};
use bevy_container::decimal::Decimal;
use bevy_container::scenario::Scenario;
use serde_json::{Value, json};

const SEED: &str = "assets/backpack.adoption.json";

fn seed_options() -> AuditOptions {
    AuditOptions::default().prose("assets/design")
}

/// A conformance case's adoption with a `verification` the audit can use.
struct Case {
    name: String,
    adoption: Adoption,
    options: AuditOptions,
}

fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir("tests/conformance")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.extension().is_some_and(|e| e == "json")
                && !p.to_string_lossy().ends_with(".adoption.json")
        })
        .collect();
    files.sort();
    for path in files {
        let case: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let mut adoption = match &case["adoption"] {
            Value::String(p) => serde_json::from_slice(
                &std::fs::read(Path::new("tests/conformance").join(p)).unwrap(),
            )
            .unwrap(),
            v => v.clone(),
        };
        adoption["verification"] = json!({
            "capacity-holds": {"scope": "the conformance case", "seeds": ["conformance-a", "conformance-b"]},
            "fill-order-holds": {"scope": "02-mechanics.md#the-backpack"}
        });
        let mut tuning = Tuning::default();
        if let Some(t) = case.get("tuning").and_then(Value::as_object) {
            for (k, v) in t {
                tuning.set(k, v.as_f64().unwrap());
            }
        }
        let cx = Context {
            tuning: Some(&tuning),
            prose: None,
        };
        let adoption = adoption::read(adoption.to_string().as_bytes(), Format::Json, cx).unwrap();
        let mut options = seed_options().tuning(tuning).effort(30, 40);
        if let Some(rules) = case.get("slot-rules") {
            let lists: Vec<Vec<String>> = serde_json::from_value(rules.clone()).unwrap();
            options = options.slot_rules(SlotRules::new(lists));
        }
        out.push(Case {
            name: path.file_stem().unwrap().to_string_lossy().into_owned(),
            adoption,
            options,
        });
    }
    out
}

#[test]
fn the_seed_backpack_lists_fourteen_tests_and_passes() {
    let report = audit::audit_file(SEED, &seed_options()).unwrap();
    assert_eq!(report.entries.len(), 14, "{report}");
    let names: Vec<String> = report
        .entries
        .iter()
        .map(|e| match &e.row {
            Some(r) => format!("{} {r}", e.test),
            None => e.test.to_string(),
        })
        .collect();
    assert_eq!(
        names,
        [
            "capacity-holds",
            "fill-order-holds",
            "partial-acceptance-holds",
            "leftover-destination-holds",
            "draw-order-holds",
            "type-restriction-holds",
            "take-shortfall-holds",
            "same-input-same-result",
            "stack-or-size-holds berries",
            "stack-or-size-holds axe",
            "stack-or-size-holds letter",
            "forced-out-holds berries",
            "forced-out-holds axe",
            "forced-out-holds letter",
        ]
    );
    for e in &report.entries {
        match (e.test, &e.verdict) {
            ("draw-order-holds", Verdict::NotApplicable { reason }) => {
                assert!(reason.contains("not-applicable"), "{reason}")
            }
            (_, Verdict::Passed { .. }) => {}
            (t, v) => panic!("{t}: {v:?}\n{report}"),
        }
    }
    match &report.entry("capacity-holds", None).unwrap().verdict {
        Verdict::Passed { checked } => assert!(checked.contains("backpack-audit-a"), "{checked}"),
        v => panic!("{v:?}"),
    }
    assert_eq!(
        report.summary(),
        "13 passed, 0 failed, 1 not applicable, 0 cannot run"
    );
}

#[test]
fn every_conformance_adoption_passes_its_audit() {
    let cases = cases();
    assert!(cases.len() >= 20);
    for case in cases {
        let report = audit::audit(&case.adoption, &case.name, &case.options).unwrap();
        assert!(report.passed(), "{}\n{report}", case.name);
        let ran = report
            .entries
            .iter()
            .filter(|e| matches!(e.verdict, Verdict::Passed { .. }))
            .count();
        assert!(ran >= 5, "{}: only {ran} tests ran\n{report}", case.name);
    }
}

/// The seed adoption as JSON, changed by `edit`.
fn seed_with(edit: impl FnOnce(&mut Value)) -> Adoption {
    let mut v: Value = serde_json::from_slice(&std::fs::read(SEED).unwrap()).unwrap();
    edit(&mut v);
    adoption::read(v.to_string().as_bytes(), Format::Json, Context::default()).unwrap()
}

fn source() -> String {
    std::fs::canonicalize(SEED).unwrap().display().to_string()
}

/// The engine with one wrong behaviour planted.
struct Planted {
    c: Contents,
    bug: Bug,
}

#[derive(Clone, Copy)]
enum Bug {
    /// A new stack lands in the last free slot instead of where the fill
    /// order puts it (and the outcome says so truthfully).
    LandsLast,
    /// A take of two or more leaves one item behind while reporting all.
    TakeLeavesOneBehind,
    /// A take without a slot draws from the last slot first.
    DrawsFromTheEnd,
    /// A forced removal reports its portions in reverse order.
    ForcedOutReversed,
}

impl Subject for Planted {
    fn deliver(&mut self, item: &str, amount: u32) -> Delivered {
        let before: Vec<bool> = self.c.slots().map(|s| s.is_none()).collect();
        let mut d = self.c.deliver(item, amount);
        if let Bug::LandsLast = self.bug {
            for l in &mut d.landed {
                let fresh = before.get(l.slot as usize).copied().unwrap_or(false);
                let last_free = self
                    .c
                    .slots()
                    .enumerate()
                    .filter(|(_, s)| s.is_none())
                    .map(|(k, _)| k as u32)
                    .last();
                if let (true, Some(to)) = (fresh, last_free)
                    && to > l.slot
                    && self.c.move_items(l.slot, to, None).refused.is_none()
                {
                    l.slot = to;
                }
            }
        }
        d
    }
    fn take(&mut self, item: &str, amount: u32, slot: Option<u32>) -> Taken {
        match (self.bug, slot) {
            (Bug::DrawsFromTheEnd, None) => {
                let slots: Vec<u32> = (0..self.c.slot_len() as u32).rev().collect();
                let mut out = self.c.take_from(item, 0, 0);
                out.asked = amount;
                out.shortfall = amount;
                for s in slots {
                    let left = amount - out.taken;
                    if left == 0 {
                        break;
                    }
                    let t = self.c.take_from(item, left, s);
                    out.taken += t.taken;
                    out.shortfall -= t.taken;
                    out.from.extend(t.from);
                }
                out
            }
            (Bug::TakeLeavesOneBehind, _) => {
                let t = self.c.take_inner(item, amount, slot);
                if t.taken >= 2 {
                    self.c.deliver(item, 1);
                }
                t
            }
            _ => self.c.take_inner(item, amount, slot),
        }
    }
    fn resize(&mut self, slot_count: Option<u32>, size_budget: Option<Decimal>) -> ForcedOut {
        let mut f = self.c.resize(slot_count, size_budget);
        if let Bug::ForcedOutReversed = self.bug {
            f.portions.reverse();
        }
        f
    }
    fn owner_gone(&mut self) -> ForcedOut {
        self.c.owner_gone()
    }
    fn contents(&self) -> &Contents {
        &self.c
    }
}

fn planted(bug: Bug) -> AuditOptions {
    seed_options().subject(move |c| Box::new(Planted { c, bug }) as Box<dyn Subject>)
}

/// The failure of `test`, checked to name its seed and to replay as a
/// scenario of exactly the failing steps.
fn failure_of(report: &audit::AuditReport, test: &str, row: Option<&str>) -> audit::Failure {
    let entry = report
        .entry(test, row)
        .unwrap_or_else(|| panic!("{test} listed"));
    let Verdict::Failed(f) = &entry.verdict else {
        panic!("{test} should fail with the planted bug:\n{report}")
    };
    assert!(!f.seed.is_empty());
    let scenario = Scenario::parse(f.replay.as_bytes(), Path::new("."))
        .expect("the replay is a scenario file");
    assert_eq!(
        scenario.steps.len(),
        f.step,
        "the replay ends at the failing step"
    );
    f.clone()
}

#[test]
fn a_wrong_landing_fails_fill_order_holds_reproducibly() {
    let adoption = seed_with(|_| {});
    let a = audit::audit(&adoption, &source(), &planted(Bug::LandsLast)).unwrap();
    let b = audit::audit(&adoption, &source(), &planted(Bug::LandsLast)).unwrap();
    let f = failure_of(&a, "fill-order-holds", None);
    assert_eq!(
        f,
        failure_of(&b, "fill-order-holds", None),
        "same seed, same failure"
    );
    assert!(
        f.message.contains("top-up-then-first-empty"),
        "{}",
        f.message
    );
    assert!(f.step <= 3, "shrunk to a short sequence: {}", f.replay);
    // the planted bug moves items truthfully: capacity still holds
    assert!(
        matches!(
            a.entry("capacity-holds", None).unwrap().verdict,
            Verdict::Passed { .. }
        ),
        "{a}"
    );
    assert!(!a.passed());
}

#[test]
fn a_take_that_leaves_an_item_behind_fails_capacity_holds_on_the_adoptions_seed() {
    let report = audit::audit_file(SEED, &planted(Bug::TakeLeavesOneBehind)).unwrap();
    let f = failure_of(&report, "capacity-holds", None);
    assert_eq!(f.seed, "backpack-audit-a");
    assert!(f.message.contains("lost or made"), "{}", f.message);
    let again = audit::audit_file(SEED, &planted(Bug::TakeLeavesOneBehind)).unwrap();
    assert_eq!(f, failure_of(&again, "capacity-holds", None));
    assert!(report.clone().into_result().is_err());
}

#[test]
fn a_wrong_draw_fails_draw_order_holds() {
    let adoption = seed_with(|v| v["answers"]["draw-order"] = json!("first-in-order"));
    let report = audit::audit(&adoption, &source(), &planted(Bug::DrawsFromTheEnd)).unwrap();
    let f = failure_of(&report, "draw-order-holds", None);
    assert!(f.message.contains("first-in-order"), "{}", f.message);
    // the honest engine passes the same adoption
    let honest = audit::audit(&adoption, &source(), &seed_options()).unwrap();
    assert!(honest.passed(), "{honest}");
}

#[test]
fn a_forced_removal_in_the_wrong_order_fails_forced_out_holds() {
    let report = audit::audit_file(SEED, &planted(Bug::ForcedOutReversed)).unwrap();
    let failed: Vec<_> = report
        .failures()
        .map(|(e, _)| (e.test, e.row.clone()))
        .collect();
    assert!(!failed.is_empty(), "{report}");
    assert!(
        failed.iter().all(|(t, _)| *t == "forced-out-holds"),
        "{report}"
    );
    let (_, row) = &failed[0];
    failure_of(&report, "forced-out-holds", row.as_deref());
}

#[test]
fn a_doctored_stack_limit_fails_stack_or_size_holds_for_its_row() {
    // the subject runs rules where berries stack to 21; the adoption says 20
    let doctored = seed_with(|v| v["rows"]["items"][0]["stack-limit"] = json!(21));
    let rules = std::sync::Arc::new(
        bevy_container::rules::Rules::compile(&doctored, &Tuning::default()).unwrap(),
    );
    let options =
        seed_options().subject(move |_| Box::new(Contents::new(rules.clone())) as Box<dyn Subject>);
    let report = audit::audit_file(SEED, &options).unwrap();
    let f = failure_of(&report, "stack-or-size-holds", Some("berries"));
    assert!(f.message.contains("berries"), "{}", f.message);
    assert!(matches!(
        report
            .entry("stack-or-size-holds", Some("axe"))
            .unwrap()
            .verdict,
        Verdict::Passed { .. }
    ));
}

#[test]
fn missing_scope_or_seeds_make_a_test_unable_to_run() {
    let no_verification = seed_with(|v| {
        v.as_object_mut().unwrap().remove("verification");
    });
    let report = audit::audit(&no_verification, "seed", &seed_options()).unwrap();
    assert_eq!(report.entries.len(), 14);
    match &report.entry("capacity-holds", None).unwrap().verdict {
        Verdict::CannotRun { needs } => assert!(
            needs.contains("scope") && needs.contains("seeds"),
            "{needs}"
        ),
        v => panic!("{v:?}"),
    }
    match &report.entry("fill-order-holds", None).unwrap().verdict {
        Verdict::CannotRun { needs } => assert!(needs.contains("scope"), "{needs}"),
        v => panic!("{v:?}"),
    }
    assert!(report.passed(), "cannot run is not a failure");

    let no_seeds = seed_with(|v| v["verification"]["capacity-holds"]["seeds"] = json!([]));
    let report = audit::audit(&no_seeds, "seed", &seed_options()).unwrap();
    match &report.entry("capacity-holds", None).unwrap().verdict {
        Verdict::CannotRun { needs } => assert!(needs.starts_with("seeds"), "{needs}"),
        v => panic!("{v:?}"),
    }

    let report = audit::audit_file(SEED, &AuditOptions::default()).unwrap();
    match &report.entry("fill-order-holds", None).unwrap().verdict {
        Verdict::CannotRun { needs } => assert!(needs.contains("--prose"), "{needs}"),
        v => panic!("{v:?}"),
    }
}

#[test]
fn an_invalid_or_missing_file_is_an_error_not_a_report() {
    let e =
        audit::audit_file("tests/broken/24-stack-limit-zero.json", &seed_options()).unwrap_err();
    assert!(e.to_string().contains("/rows/items/0/stack-limit"), "{e}");
    let e = audit::audit_file("assets/no-such.adoption.json", &seed_options()).unwrap_err();
    assert!(e.to_string().contains("cannot read"), "{e}");
}
