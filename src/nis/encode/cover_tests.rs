//! The covering loop's ends on the real-valued guarding example (sensor
//! bias b in [-1, 1]): a verdict where the two MILPs agree, an honest
//! "undetermined" where the witness MILP contradicts the covering MILP (as
//! it can within the solver's tolerances), never an internal error or a
//! verdict resting on the disagreement.

use super::*;
use crate::nis::encode::existential_goal;
use crate::nis::front::core::Lowered;
use crate::nis::{load_model, parse_sentence, LoadOptions};
use std::path::Path;

fn guarding_real() -> Model {
    load_model(
        Path::new("examples/guarding_real/guarding_real.nis"),
        &LoadOptions::default(),
    )
    .unwrap()
}

/// The existential goal of `spec` on M(n) with its witness MILP.
struct Case {
    model: Model,
    goal: Core,
    n: usize,
    m: usize,
    opts: MilpOptions,
}

impl Case {
    fn new(spec: &str, n: usize) -> Case {
        let model = guarding_real();
        let sentence = parse_sentence(spec).unwrap();
        let (goal, universal) =
            existential_goal(&Lowered::new(&sentence, &model).unwrap()).unwrap();
        assert!(!universal);
        Case {
            model,
            goal,
            n,
            m: sentence.agents(),
            opts: MilpOptions::default(),
        }
    }

    fn witness(&self, start: &[StartVar], sizes: &mut Sizes) -> Answer<RealTree> {
        let nm = (self.n, self.m);
        solve_from(&self.model, &self.goal, nm, false, start, &self.opts, sizes).unwrap()
    }

    fn cover(
        &self,
        witness_from: impl FnMut(&[StartVar], &mut Sizes) -> Result<Answer<RealTree>, RunError>,
    ) -> Result<Covering, RunError> {
        let mut sizes = Sizes::default();
        let mut witness_from = witness_from;
        let given = |s: &[StartVar], _: FirstPercepts, sizes: &mut Sizes| witness_from(s, sizes);
        cover_with(&self.model, self.n, false, &self.opts, &mut sizes, given)
    }
}

/// Holds on M(2) from every bias in [-1, 1], and the covering needs two
/// witness shapes: the bias decides what agent 1 perceives on the way.
const TWO_SHAPES: &str = "forall v1: EX^2 (alive, v1)";

fn undetermined(r: Result<Covering, RunError>) -> String {
    match r {
        Err(RunError::Undetermined(why)) => why,
        Err(e) => panic!("another error: {e:?}"),
        Ok(c) => panic!("a verdict: holds = {}", c.holds),
    }
}

#[test]
fn the_honest_covering_holds_with_two_witness_shapes() {
    let case = Case::new(TWO_SHAPES, 2);
    let c = case
        .cover(|start, sizes| Ok(case.witness(start, sizes)))
        .unwrap();
    assert!(c.holds);
    assert_eq!(c.witnesses.len(), 2, "two shapes cover [-1, 1]");
    assert!(!same_shape(&case.model, &c.witnesses[0], &c.witnesses[1]));
    assert_eq!(c.rounds, 3);
    for t in &c.witnesses {
        crate::nis::witness::replay::real::replay_real(&case.model, t).unwrap();
    }
}

#[test]
fn a_witness_found_again_is_undetermined_not_an_internal_error() {
    let case = Case::new(TWO_SHAPES, 2);
    // The witness MILP answers the second uncovered point with the first
    // witness again, as it does when that point lies on the border of the
    // first witness's region within the solver's tolerances.
    let mut first: Option<RealTree> = None;
    let why = undetermined(case.cover(|start, sizes| {
        if let Some(t) = &first {
            return Ok(Answer::Witness(t.clone()));
        }
        let Answer::Witness(t) = case.witness(start, sizes) else {
            panic!("the example has a witness from every initial state");
        };
        first = Some(t.clone());
        Ok(Answer::Witness(t))
    }));
    assert!(why.contains("the shape of witness 1"), "{why}");
    assert!(why.contains("within the solver's tolerances"), "{why}");
}

#[test]
fn a_covering_point_outside_the_initial_set_is_undetermined_not_a_failure() {
    let case = Case::new(TWO_SHAPES, 2);
    let why = undetermined(case.cover(|_, _| Ok(Answer::NoStart)));
    assert!(why.contains("fails the initial condition"), "{why}");
}

#[test]
fn no_witness_from_the_covering_point_is_a_failure_there() {
    let case = Case::new(TWO_SHAPES, 2);
    let c = case.cover(|_, _| Ok(Answer::Infeasible)).unwrap();
    assert!(!c.holds);
    assert_eq!(c.rounds, 1);
    let b = c.uncovered.unwrap();
    assert!(b.len() == 1 && (-1.0..=1.0).contains(&b[0]), "{b:?}");
}

#[test]
fn the_round_cap_is_undetermined() {
    let case = Case::new(TWO_SHAPES, 2);
    // Each answer a new shape that is valid nowhere: the start alone with
    // one more obligation `(dead, 1)`, where every agent is alive. The
    // covering never ends.
    let dead = case.model.label_index("dead").unwrap();
    let mut first: Option<RealTree> = None;
    let mut rounds = 0;
    let why = undetermined(case.cover(|start, sizes| {
        rounds += 1;
        if first.is_none() {
            let Answer::Witness(t) = case.witness(start, sizes) else {
                panic!("the example has a witness from every initial state");
            };
            first = Some(t);
        }
        let mut t = first.clone().expect("found in the first round");
        t.children.clear();
        t.obligations = vec![(dead, Some(0), false); rounds];
        Ok(Answer::Witness(t))
    }));
    assert!(
        why.contains(&format!("after {MAX_COVER_ROUNDS} witnesses")),
        "{why}"
    );
    assert_eq!(rounds, MAX_COVER_ROUNDS);
}
