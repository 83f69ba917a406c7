//! A typed layer over good_lp with the HiGHS backend: bounded variables,
//! linear constraints, big-M builders whose M always comes from finite
//! bounds, network copies with one binary per unstable ReLU, solving with
//! statuses mapped to optimal / feasible / infeasible / unknown, and LP files.
//!
//! Typical use (the NIS engine unrolls k steps for n agents this way):
//!
//! ```
//! use mavis::milp::{EncodeOptions, LinExpr, Model, Objective, SolveOptions, Status};
//! use mavis::nn::{Activation, Layer, Network};
//! use ndarray::array;
//!
//! // y = relu(x - 0.5) on x in [0, 1]
//! let net = Network::from_layers(vec![
//!     Layer { weights: array![[1.0]], bias: array![-0.5], activation: Activation::Relu },
//!     Layer { weights: array![[1.0]], bias: array![0.0], activation: Activation::Identity },
//! ]).unwrap();
//! let mut m = Model::new();
//! let x = m.continuous("x", 0.0, 1.0);
//! let copy = m.add_network("obs", &net, &[LinExpr::from(x)], None, &EncodeOptions::default()).unwrap();
//! assert_eq!(copy.binaries.len(), 1); // the ReLU is unstable over [0, 1]
//! let out = m.solve(&Objective::Maximise(copy.outputs[0].into()), &SolveOptions::default()).unwrap();
//! assert_eq!(out.status, Status::Optimal);
//! // HiGHS answers within its feasibility tolerance (about 1e-9 relative).
//! assert!((out.objective.unwrap() - 0.5).abs() < 1e-6);
//! let s = out.solution.unwrap();
//! assert!((s.value(x) - 1.0).abs() < 1e-6);
//! ```
//!
//! Names given to builders label variables and rows in errors and LP files;
//! they need not be unique.

mod exact;
mod expr;
mod highs_run;
mod logic;
mod lp_file;
mod model;
mod network;
mod obbt;
mod solve;
mod tighten;
pub mod tolerance;
pub mod verify;

pub use exact::{
    exact_output_bounds, exact_output_bounds_reporting, ExactBounds, Extremum, OutputRange,
};
pub use expr::{LinExpr, Var};
pub use highs_run::Effort;
pub use logic::{constant, not, Linear};
pub use model::{MilpError, Model, ModelStats, Sense, VarKind};
pub use network::{BoundsMethod, EncodeOptions, NetworkCopy};
pub use obbt::{Obbt, ObbtStats};
pub use solve::{Objective, Outcome, Solution, SolveOptions, Status, TIME_LIMIT};
pub use tighten::{lp_tighten, lp_tighten_budget, lp_tighten_metered};
