//! The deciders on metric automata (seed 002): the min-max fixed point of
//! reachability robustness, Lyapunov checks, omega-regular robustness by
//! inflation, transient faults.

pub mod clf;
pub mod faults;
pub mod minmax;
pub mod omega;
pub mod omega_common;
pub mod omega_parity;
pub mod plan;
pub mod reach;
