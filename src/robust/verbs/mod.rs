//! The verbs of `mavis robust`, one file each, each returning a report.

pub mod convert;
pub mod faults;
pub mod parity;
pub mod solve;
