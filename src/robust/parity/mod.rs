//! Parity games: the arena, the solvers (Zielonka, small progress measures)
//! and the solution verifier.

pub mod compress;
pub mod cycles;
pub mod game;
pub mod scc;
pub mod spm;
pub mod spm_measure;
pub mod spm_rows;
pub mod spm_settle;
pub mod zielonka;
