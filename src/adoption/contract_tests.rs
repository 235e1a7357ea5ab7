//! The contract's tests (the guide's [`guide::adoption`](crate::guide::adoption)), written once: the names an
//! adoption's `verification` may use, the order the audit lists them in,
//! which run once per row, and what each needs from `verification`.
//!
//! Validation checks `verification` against this catalog; the audit (the
//! `audit` feature) runs it.
//!
//! ```
//! use bevy_container::adoption::contract_tests::ContractTest;
//!
//! // the spec's order, by name
//! assert_eq!(ContractTest::ALL.len(), 10);
//! assert_eq!(ContractTest::ALL[0], ContractTest::CapacityHolds);
//! assert_eq!(ContractTest::names()[7], "same-input-same-result");
//!
//! // from a name in `verification`, and back
//! let test: ContractTest = "forced-out-holds".parse().unwrap();
//! assert_eq!(test, ContractTest::ForcedOutHolds);
//! assert_eq!(test.to_string(), "forced-out-holds");
//! assert_eq!(ContractTest::from_name("forced-out-hold"), None);
//! assert!("forced-out-hold".parse::<ContractTest>().is_err());
//!
//! // what each is, as the spec's table says
//! assert!(test.per_row());
//! assert!(ContractTest::CapacityHolds.needs_scope() && ContractTest::CapacityHolds.needs_seeds());
//! assert!(ContractTest::FillOrderHolds.needs_scope() && !ContractTest::FillOrderHolds.needs_seeds());
//! assert!(!ContractTest::DrawOrderHolds.needs_scope());
//! ```

use std::fmt;
use std::str::FromStr;

/// One of the contract's tests. Each compares the engine with an
/// independent statement of the rule it names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ContractTest {
    /// `capacity-holds`: every outcome accounts for the items offered or
    /// asked, nothing is lost or made, and the limits hold. Always applies;
    /// needs a scope and seeds.
    CapacityHolds,
    /// `fill-order-holds`: deliveries land where the fill order puts them.
    /// Applies when the fill-order question is asked; needs a scope.
    FillOrderHolds,
    /// `partial-acceptance-holds`: what does not all fit is accepted,
    /// refused or left over as the partial-acceptance answer says. Applies
    /// when the partial-acceptance question is asked.
    PartialAcceptanceHolds,
    /// `leftover-destination-holds`: a leftover goes where the
    /// leftover-destination answer says. Applies when that question is
    /// asked.
    LeftoverDestinationHolds,
    /// `draw-order-holds`: a take without a slot draws in the draw order.
    /// Applies when draw-order is not `not-applicable`.
    DrawOrderHolds,
    /// `type-restriction-holds`: only the types the restriction admits
    /// enter, and a refusal at entry changes nothing. Always applies.
    TypeRestrictionHolds,
    /// `take-shortfall-holds`: a take gives what the contents hold and
    /// reports the rest as shortfall. Always applies.
    TakeShortfallHolds,
    /// `same-input-same-result`: the same requests from the same contents
    /// give the same outcomes and contents. Always applies.
    SameInputSameResult,
    /// `stack-or-size-holds`, once per row: the row's stack limit and size
    /// bound what is accepted. Always applies.
    StackOrSizeHolds,
    /// `forced-out-holds`, once per row: a resize or a gone owner removes
    /// types as their rows say, in order, only as much as needed. Always
    /// applies.
    ForcedOutHolds,
}

impl ContractTest {
    /// Every test, in the spec's order: the order the audit lists them in.
    pub const ALL: [ContractTest; 10] = [
        ContractTest::CapacityHolds,
        ContractTest::FillOrderHolds,
        ContractTest::PartialAcceptanceHolds,
        ContractTest::LeftoverDestinationHolds,
        ContractTest::DrawOrderHolds,
        ContractTest::TypeRestrictionHolds,
        ContractTest::TakeShortfallHolds,
        ContractTest::SameInputSameResult,
        ContractTest::StackOrSizeHolds,
        ContractTest::ForcedOutHolds,
    ];

    /// The test's name, as `verification` and the audit's report write it
    /// (`capacity-holds`).
    pub const fn name(self) -> &'static str {
        match self {
            ContractTest::CapacityHolds => "capacity-holds",
            ContractTest::FillOrderHolds => "fill-order-holds",
            ContractTest::PartialAcceptanceHolds => "partial-acceptance-holds",
            ContractTest::LeftoverDestinationHolds => "leftover-destination-holds",
            ContractTest::DrawOrderHolds => "draw-order-holds",
            ContractTest::TypeRestrictionHolds => "type-restriction-holds",
            ContractTest::TakeShortfallHolds => "take-shortfall-holds",
            ContractTest::SameInputSameResult => "same-input-same-result",
            ContractTest::StackOrSizeHolds => "stack-or-size-holds",
            ContractTest::ForcedOutHolds => "forced-out-holds",
        }
    }

    /// Every test's name, in the spec's order (usable in a `const`).
    pub const fn names() -> [&'static str; 10] {
        let mut names = [""; 10];
        let mut i = 0;
        while i < names.len() {
            names[i] = ContractTest::ALL[i].name();
            i += 1;
        }
        names
    }

    /// The test called `name`, if the contract has one.
    pub fn from_name(name: &str) -> Option<ContractTest> {
        ContractTest::ALL.into_iter().find(|t| t.name() == name)
    }

    /// Whether the test runs, and is listed, once per row of `items`.
    pub const fn per_row(self) -> bool {
        matches!(
            self,
            ContractTest::StackOrSizeHolds | ContractTest::ForcedOutHolds
        )
    }

    /// Whether the test needs a `scope` in the adoption's `verification`
    /// (without one it is listed as unable to run).
    pub const fn needs_scope(self) -> bool {
        matches!(
            self,
            ContractTest::CapacityHolds | ContractTest::FillOrderHolds
        )
    }

    /// Whether the test needs `seeds` in the adoption's `verification`
    /// (without them it is listed as unable to run). The others run on a
    /// seed named after the test (and the row, for per-row tests).
    pub const fn needs_seeds(self) -> bool {
        matches!(self, ContractTest::CapacityHolds)
    }
}

impl fmt::Display for ContractTest {
    /// Writes the test's [name](ContractTest::name).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is none of the contract's tests.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("container-1 has no test \"{name}\"")]
pub struct UnknownContractTest {
    /// The name given.
    pub name: String,
}

impl FromStr for ContractTest {
    type Err = UnknownContractTest;

    /// Reads a test's name ([`ContractTest::from_name`]).
    fn from_str(name: &str) -> Result<ContractTest, UnknownContractTest> {
        ContractTest::from_name(name).ok_or_else(|| UnknownContractTest {
            name: name.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_test_reads_back_from_its_name() {
        for test in ContractTest::ALL {
            assert_eq!(ContractTest::from_name(test.name()), Some(test));
            assert_eq!(test.name().parse::<ContractTest>(), Ok(test));
        }
        let names = ContractTest::names();
        for (i, test) in ContractTest::ALL.into_iter().enumerate() {
            assert_eq!(names[i], test.name());
            assert!(!names[..i].contains(&test.name()), "{test} twice");
        }
    }

    #[test]
    fn the_table_is_the_specs() {
        let per_row: Vec<&str> = ContractTest::ALL
            .into_iter()
            .filter(|t| t.per_row())
            .map(ContractTest::name)
            .collect();
        assert_eq!(per_row, ["stack-or-size-holds", "forced-out-holds"]);
        let scoped: Vec<&str> = ContractTest::ALL
            .into_iter()
            .filter(|t| t.needs_scope())
            .map(ContractTest::name)
            .collect();
        assert_eq!(scoped, ["capacity-holds", "fill-order-holds"]);
        assert!(
            ContractTest::ALL
                .into_iter()
                .all(|t| !t.needs_seeds() || t.needs_scope())
        );
        assert_eq!(
            "no-such-test"
                .parse::<ContractTest>()
                .unwrap_err()
                .to_string(),
            "container-1 has no test \"no-such-test\""
        );
    }
}
