//! Each contract test's verdict: whether it applies to the answers, what
//! it needs from the adoption's `verification`, and the sequences it runs
//! (its [`Plan`]). One function per test, named after it.

use crate::adoption::Adoption;
use crate::adoption::citation::Citation;
use crate::adoption::contract::{self, When};
use crate::adoption::contract_tests::ContractTest;
use crate::rules::DrawOrder;

use super::run::{self, Check, Op, Profile, Setup};
use super::seed::{Rng, seed_of};
use super::{AuditOptions, Failure, ReplayHead, Verdict};

/// What every test reads: the adoption under audit, how to build its
/// subject, the audit's options, and how every replay begins.
pub(super) struct Bench<'a> {
    pub adoption: &'a Adoption,
    pub setup: Setup<'a>,
    pub options: &'a AuditOptions,
    pub head: ReplayHead,
}

/// How a test's sequences are made and checked.
struct Plan {
    /// The checks after every step.
    check: Check,
    /// What the sequences are made of.
    profile: Profile,
    /// The seed names the sequences come from.
    seeds: Vec<String>,
    /// What the report says was checked, before the counts.
    checked: String,
}

impl Plan {
    /// A plan on one seed (the test's name, or `name-row`), with nothing to
    /// report before the counts.
    fn on_seed(check: Check, profile: Profile, seed: String) -> Plan {
        Plan {
            check,
            profile,
            seeds: vec![seed],
            checked: String::new(),
        }
    }
}

/// Sequences over every type, with no focus: percent weights of deliver,
/// take, resize and owner gone; percent of takes that name a slot; percent
/// of requests about unlisted types; whether amounts overflow.
fn every(weights: [u64; 4], take_slot: u64, strangers: u64, big: bool) -> Profile {
    Profile {
        weights,
        take_slot,
        focus: None,
        strangers,
        big,
    }
}

/// `test`'s verdict (`row`'s, for a per-row test).
pub(super) fn of(test: ContractTest, row: Option<&str>, bench: &Bench<'_>) -> Verdict {
    use ContractTest as T;
    let row = row.unwrap_or_default();
    let plan = match test {
        T::CapacityHolds => capacity_holds(bench),
        T::FillOrderHolds => fill_order_holds(bench),
        T::PartialAcceptanceHolds => partial_acceptance_holds(bench),
        T::LeftoverDestinationHolds => leftover_destination_holds(bench),
        T::DrawOrderHolds => draw_order_holds(bench),
        T::TypeRestrictionHolds => Ok(type_restriction_holds()),
        T::TakeShortfallHolds => Ok(take_shortfall_holds()),
        T::SameInputSameResult => return same_input_same_result(bench),
        T::StackOrSizeHolds => Ok(stack_or_size_holds(row)),
        T::ForcedOutHolds => Ok(forced_out_holds(row)),
    };
    match plan {
        Ok(plan) => run_plan(test, plan, bench),
        Err(verdict) => verdict,
    }
}

/// capacity-holds, on the adoption's own seeds: every outcome accounts for
/// the items, nothing is lost or made, the limits hold.
fn capacity_holds(bench: &Bench<'_>) -> Result<Plan, Verdict> {
    let (_, seeds) = needs(bench.adoption, ContractTest::CapacityHolds)?;
    Ok(Plan {
        check: Check::Capacity,
        profile: every([45, 30, 20, 3], 50, 10, false),
        seeds,
        checked: String::new(),
    })
}

/// fill-order-holds: deliveries land where the fill order puts them. Its
/// scope must resolve in the game's prose.
fn fill_order_holds(bench: &Bench<'_>) -> Result<Plan, Verdict> {
    let test = ContractTest::FillOrderHolds;
    asked(bench.adoption, "fill-order")?;
    let (scope, _) = needs(bench.adoption, test)?;
    let Some(prose) = &bench.options.prose else {
        return Err(Verdict::CannotRun {
            needs: format!("the prose folder (--prose DIR) to resolve its scope {scope}"),
        });
    };
    let resolved = Citation::parse(&scope).and_then(|c| c.resolve(prose));
    if let Err(e) = resolved {
        return Err(Verdict::Failed(Failure {
            seed: String::new(),
            sequence: 0,
            step: 0,
            message: format!(
                "its scope {scope} does not resolve in {}: {e}",
                prose.display()
            ),
            replay: String::new(),
        }));
    }
    Ok(Plan {
        check: Check::FillOrder,
        profile: every([65, 35, 0, 0], 50, 10, false),
        seeds: vec![test.name().to_string()],
        checked: format!("scope {scope} resolves; "),
    })
}

/// partial-acceptance-holds: what does not all fit settles as the answer
/// says.
fn partial_acceptance_holds(bench: &Bench<'_>) -> Result<Plan, Verdict> {
    asked(bench.adoption, "partial-acceptance")?;
    Ok(Plan::on_seed(
        Check::Partial,
        every([75, 25, 0, 0], 30, 10, true),
        ContractTest::PartialAcceptanceHolds.name().to_string(),
    ))
}

/// leftover-destination-holds: a leftover goes where the answer says.
fn leftover_destination_holds(bench: &Bench<'_>) -> Result<Plan, Verdict> {
    asked(bench.adoption, "leftover-destination")?;
    Ok(Plan::on_seed(
        Check::Leftover,
        every([75, 25, 0, 0], 30, 10, true),
        ContractTest::LeftoverDestinationHolds.name().to_string(),
    ))
}

/// draw-order-holds: a take without a slot draws in the draw order; not
/// applicable when the player names the slot of every take.
fn draw_order_holds(bench: &Bench<'_>) -> Result<Plan, Verdict> {
    if bench.setup.rules.draw == DrawOrder::NotApplicable {
        return Err(Verdict::NotApplicable {
            reason: "draw-order is not-applicable: the player names the slot of every take"
                .to_string(),
        });
    }
    Ok(Plan::on_seed(
        Check::Draw,
        every([50, 50, 0, 0], 20, 10, false),
        ContractTest::DrawOrderHolds.name().to_string(),
    ))
}

/// type-restriction-holds: only admitted types enter, with many requests
/// about unlisted types.
fn type_restriction_holds() -> Plan {
    Plan::on_seed(
        Check::Entry,
        every([70, 30, 0, 0], 50, 45, false),
        ContractTest::TypeRestrictionHolds.name().to_string(),
    )
}

/// take-shortfall-holds: a take gives what the contents hold, the rest is
/// shortfall.
fn take_shortfall_holds() -> Plan {
    Plan::on_seed(
        Check::Shortfall,
        every([40, 60, 0, 0], 50, 10, true),
        ContractTest::TakeShortfallHolds.name().to_string(),
    )
}

/// stack-or-size-holds for `row`: most requests about the row's type.
fn stack_or_size_holds(row: &str) -> Plan {
    let mut profile = every([60, 40, 0, 0], 40, 5, true);
    profile.focus = Some((row.to_string(), 80));
    Plan::on_seed(
        Check::StackOrSize(row.to_string()),
        profile,
        format!("{}-{row}", ContractTest::StackOrSizeHolds),
    )
}

/// forced-out-holds for `row`: many resizes, most requests about the
/// row's type.
fn forced_out_holds(row: &str) -> Plan {
    let mut profile = every([50, 15, 30, 5], 40, 5, false);
    profile.focus = Some((row.to_string(), 60));
    Plan::on_seed(
        Check::ForcedOut(row.to_string()),
        profile,
        format!("{}-{row}", ContractTest::ForcedOutHolds),
    )
}

/// `Ok` when question `key` is asked under these answers, else the
/// not-applicable verdict with the reason.
fn asked(adoption: &Adoption, key: &str) -> Result<(), Verdict> {
    let Some(q) = contract::container_1()
        .questions
        .iter()
        .find(|q| q.key == key)
    else {
        return Ok(());
    };
    match &q.when {
        When::Flag { question, options } => {
            let answer = adoption.answers.get(question).map_or("", String::as_str);
            if options.iter().any(|o| o == answer) {
                return Ok(());
            }
            Err(Verdict::NotApplicable {
                reason: format!(
                    "{key} is not asked when {question} is {answer} (only for {})",
                    options.join(", ")
                ),
            })
        }
        _ => Ok(()),
    }
}

/// The scope and seeds `test` needs from `verification` (seeds only when
/// it [needs them](ContractTest::needs_seeds)), or the cannot-run verdict
/// saying what is missing.
fn needs(adoption: &Adoption, test: ContractTest) -> Result<(String, Vec<String>), Verdict> {
    let v = adoption.verification.get(test.name());
    let scope = v.and_then(|v| v.scope.clone());
    let names = v.map(|v| v.seeds.clone()).unwrap_or_default();
    let missing = match (scope, test.needs_seeds() && names.is_empty()) {
        (None, true) => format!(
            "a scope and seeds: add \"verification\": {{\"{test}\": {{\"scope\": ..., \"seeds\": [\"a-seed-name\"]}}}} to the adoption"
        ),
        (None, false) => format!(
            "a scope: add \"verification\": {{\"{test}\": {{\"scope\": ...}}}} to the adoption"
        ),
        (Some(_), true) => format!(
            "seeds: add \"seeds\": [\"a-seed-name\"] to verification.{test} in the adoption"
        ),
        (Some(s), false) => return Ok((s, names)),
    };
    Err(Verdict::CannotRun { needs: missing })
}

/// Runs a plan's sequences, seed by seed; the first failure is shrunk and
/// written out as a replay.
fn run_plan(test: ContractTest, plan: Plan, bench: &Bench<'_>) -> Verdict {
    let Plan {
        check,
        profile,
        seeds,
        mut checked,
    } = plan;
    let (setup, options) = (&bench.setup, bench.options);
    let mut steps = 0;
    let mut checks = 0;
    for name in &seeds {
        let mut rng = Rng::new(seed_of(name));
        for sequence in 0..options.sequences {
            let ops = run::generate(
                &mut rng,
                &setup.rules,
                setup.slot_rules.as_ref(),
                &profile,
                options.steps as usize,
            );
            match run::run(setup, &ops, &check) {
                Ok(t) => {
                    steps += t.steps;
                    checks += t.checks;
                }
                Err(v) => {
                    let (ops, v) = run::shrink(setup, ops, &check, v);
                    return Verdict::Failed(Failure {
                        seed: name.clone(),
                        sequence,
                        step: v.step,
                        message: v.message,
                        replay: bench.head.render(test.name(), name, sequence, &ops),
                    });
                }
            }
        }
    }
    let seed_word = if seeds.len() == 1 { "seed" } else { "seeds" };
    checked.push_str(&format!(
        "{seed_word} {}: {} sequences, {steps} steps, {checks} checks",
        seeds.join(", "),
        u64::from(options.sequences) * seeds.len() as u64
    ));
    Verdict::Passed { checked }
}

/// same-input-same-result: runs the same sequences twice on fresh
/// containers and compares every outcome and the contents after every
/// step.
fn same_input_same_result(bench: &Bench<'_>) -> Verdict {
    let (setup, options) = (&bench.setup, bench.options);
    let name = ContractTest::SameInputSameResult.name();
    let mut rng = Rng::new(seed_of(name));
    let profile = every([45, 35, 15, 5], 40, 10, false);
    let mut steps = 0u64;
    for sequence in 0..options.sequences {
        let ops = run::generate(
            &mut rng,
            &setup.rules,
            setup.slot_rules.as_ref(),
            &profile,
            options.steps as usize,
        );
        let (a, b) = (trace(setup, &ops), trace(setup, &ops));
        steps += ops.len() as u64;
        if let Some(step) = a.iter().zip(&b).position(|(x, y)| x != y) {
            let ops = &ops[..=step];
            return Verdict::Failed(Failure {
                seed: name.to_string(),
                sequence,
                step: step + 1,
                message: format!(
                    "the same request from the same contents gave {} and then {}",
                    a[step], b[step]
                ),
                replay: bench.head.render(name, name, sequence, ops),
            });
        }
    }
    Verdict::Passed {
        checked: format!(
            "seed {name}: {} sequences run twice, {steps} steps, every outcome and state equal",
            options.sequences
        ),
    }
}

/// Runs `ops` on a fresh subject: each step's outcome and the contents
/// after it, as text.
fn trace(setup: &Setup<'_>, ops: &[Op]) -> Vec<String> {
    let mut s = setup.fresh();
    ops.iter()
        .map(|op| {
            let outcome = match op {
                Op::Deliver { item, amount, .. } => format!("{:?}", s.deliver(item, *amount)),
                Op::Take {
                    item, amount, slot, ..
                } => {
                    format!("{:?}", s.take(item, *amount, *slot))
                }
                Op::Resize {
                    slot_count,
                    size_budget,
                } => format!("{:?}", s.resize(*slot_count, *size_budget)),
                Op::OwnerGone => format!("{:?}", s.owner_gone()),
                // sequences never sort, move or change properties
                Op::Sort { .. } | Op::Move { .. } | Op::SetProps { .. } => String::new(),
            };
            let c = s.contents();
            format!(
                "{outcome} {:?} {:?}",
                c.slots().collect::<Vec<_>>(),
                c.holdings().collect::<Vec<_>>()
            )
        })
        .collect()
}
