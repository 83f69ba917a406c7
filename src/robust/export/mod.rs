//! What the robust engine writes besides reports: the binary model form and
//! the fault trade-off plot.

pub mod binary;
pub mod plot;
