//! The verbs of `mavis timed`, one file each, each returning a report.

pub mod check;
