#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod adoption;
pub mod decimal;
pub mod rules;

/// The types most games need.
pub mod prelude {
    pub use crate::adoption::{Adoption, Report, Tuning};
    pub use crate::rules::Rules;
}
