//! Tests of the M_ab(m) MILP decider.
