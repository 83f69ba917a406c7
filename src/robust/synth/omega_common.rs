//! What the Buchi and parity syntheses of [`super::omega`] share: the
//! solution, the candidate radii, the check that a plan stays in the region.

use super::plan::Step;
use crate::robust::front::Automaton;

/// The result of robust omega-regular synthesis.
#[derive(Clone, Debug)]
pub struct OmegaSolution {
    pub radius: f64,
    pub sigma: f64,
    pub gamma_bar: f64,
    /// Distinct candidate radii, and how many were decided.
    pub candidates: usize,
    pub solved: usize,
    /// Nominal mode: plan[..cycle_start] is the prefix, plan[cycle_start..] repeats.
    pub plan: Vec<Step>,
    pub cycle_start: usize,
    /// Recovery mode: per (state, counter) node, `q * counters + i`, the input index.
    pub recovery: Vec<Option<usize>>,
    pub counters: usize,
    /// States from which the inflated game is won (counter 0).
    pub region: Vec<bool>,
}

/// The finite values of `v`, sorted, each once: the candidate radii.
pub fn sorted_distinct(mut v: Vec<f64>) -> Vec<f64> {
    v.retain(|x| x.is_finite());
    v.sort_by(f64::total_cmp);
    v.dedup();
    v
}

/// Every input of the plan keeps all its outcomes inside the recovery
/// region, so a disturbance always lands where recovery is defined.
pub fn plan_stays_in_region(a: &Automaton, plan: &[Step], region: &[bool]) -> Result<(), String> {
    for &(q, j) in plan {
        if !a.post(&a.moves[q as usize][j]).all(|t| region[t as usize]) {
            return Err("internal: plan input can leave the recovery region".into());
        }
    }
    Ok(())
}
