//! Every reader of the robust engine's inputs: metric automata (`.ma` text,
//! its dense form, JSON, the binary form) into one checked build, strategy
//! files, PGSolver games and solutions.

pub mod binary;
pub mod build;
pub mod build_metric;
pub mod dense;
pub mod dense_guess;
pub mod json;
pub mod pgsolver;
pub mod raw;
pub mod repeats;
pub mod resolve;
pub mod strategy;
pub mod text;
