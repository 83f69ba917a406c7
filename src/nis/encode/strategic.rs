//! Strategic sentences (ATL over named agents, [`crate::nis::front::strategic`])
//! by MILP, on M(0) (the named agents and the environment), as VENMAS's
//! monolithic encoding does: `<<G>> X^k psi` unrolled over the finite tree
//! of the others' choices. At every node the coalition G's actions are
//! variables (an existential choice shared by all branches of the node);
//! every combination of the others' actions (the environment's own action
//! and every named agent outside G) is its own branch, pinned to constants,
//! and must lead to a state where the rest holds whenever the combination
//! is enabled there (a universal choice). A successor's percepts are the
//! solver's where an argmax ties, so a feasible MILP is checked by the
//! replay ([`crate::nis::witness::replay::strategic_exact::replay_strategic_trees`]: every enabled move of the others and every
//! successor must be a branch) and an infeasible one is exact.
//! `[[G]] X^k phi` is `!<<G>> X^k !phi`: a solution is G's strategy against
//! phi, the counterexample. The check itself is [`super::check_strategic`].
//!
//! The same encoding with the roles swapped decides `<<G>> X^k phi` over an
//! interval of initial states in one MILP ([`Play::refuting`]): its
//! negation is "from some initial state, whatever G does at each round,
//! the others (the environment included), answering G's move, can reach
//! !phi". The tree then branches over G's moves, and the others' answer is
//! a choice per branch.

use super::encoded::Encoded;
use super::expr::{one_hot, Enc, Val};
use super::formula::encode;
use super::state::{AgentState, Joint, Round, State};
pub use super::unrolling::Play;
use super::unrolling::{Branch, Step, Unrolled, Unrolling};
use crate::milp::{constant, not, LinExpr, Solution};
use crate::nis::front::core::Core;
use crate::report::RunError;

/// `<<G>> X^k psi` as encoded: per node its branches (successor, 0/1
/// "enabled", the rest), at round k psi.
pub enum StrategyEncoded {
    Goal(Encoded),
    Node {
        branches: Vec<(usize, LinExpr, StrategyEncoded)>,
        value: LinExpr,
    },
}

impl StrategyEncoded {
    /// The 0/1 expression "the coalition wins from here".
    pub fn value(&self) -> LinExpr {
        match self {
            StrategyEncoded::Goal(e) => e.value(),
            StrategyEncoded::Node { value, .. } => value.clone(),
        }
    }

    /// The formula tree a solution's witness is read along: the enabled
    /// branches only (each an `EX` into its successor).
    pub fn under(&self, sol: &Solution) -> Encoded {
        match self {
            StrategyEncoded::Goal(e) => e.clone(),
            StrategyEncoded::Node { branches, value } => {
                let children = branches
                    .iter()
                    .filter(|(_, en, _)| sol.eval(en) > 0.5)
                    .map(|(to, _, rest)| Encoded::Next {
                        to: *to,
                        child: Box::new(rest.under(sol)),
                    })
                    .collect();
                Encoded::And(children, value.clone())
            }
        }
    }
}

/// The most states the tree of one strategic MILP may have (every state
/// carries its network copies).
pub const MAX_STRATEGY_STATES: usize = 20_000;

/// Encodes "the movers of `play` reach psi in k rounds" at unrolling state `at`.
pub fn encode_strategy<U: Unrolling>(
    u: &mut U,
    (goal, play): (&Core, Play),
    k: u32,
    (at, reached): (usize, &LinExpr),
    tree: &mut Unrolled<U::State, U::Round>,
) -> Result<StrategyEncoded, RunError> {
    if k == 0 {
        return Ok(StrategyEncoded::Goal(encode(u, goal, goal.root, at, tree)?));
    }
    if tree.states.len() > MAX_STRATEGY_STATES {
        return Err(RunError::input(format!(
            "the tree of the others' choices has more than {MAX_STRATEGY_STATES} states within {k} more rounds; the MILP of this strategic sentence would be too large (fewer rounds, or the explicit decider on a finite model)"
        )));
    }
    let tag = format!("s{}", tree.states.len());
    let rounds = u.strategic_rounds(&tree.states[at], play, reached, &tag)?;
    let mut branches = Vec::with_capacity(rounds.len());
    let mut wins = Vec::with_capacity(rounds.len());
    for b in rounds {
        let (enabled, round) = (b.enabled, b.round);
        tree.states.push(b.state);
        tree.steps.push(Some(Step { from: at, round }));
        let to = tree.states.len() - 1;
        let rest = encode_strategy(u, (goal, play), k - 1, (to, &b.reached), tree)?;
        wins.push(u.milp().or("or", vec![not(enabled.clone()), rest.value()]));
        branches.push((to, enabled, rest));
    }
    let value = u.milp().and("and", wins);
    Ok(StrategyEncoded::Node { branches, value })
}

impl Enc<'_> {
    /// The branches of one strategic round from `from` (M(0)): the
    /// movers' actions one-hot under their protocols (shared, or per branch
    /// when they move second); per combination of the others' actions its
    /// "enabled" 0/1, the round and the successor (combinations the bounds
    /// disable are left out).
    pub fn strategic_rounds(
        &mut self,
        from: &State,
        play: Play,
        reached: &LinExpr,
        tag: &str,
    ) -> Result<Vec<Branch<Round, State>>, RunError> {
        let model = self.model;
        if !from.agents.is_empty() {
            return Err(RunError::input(
                "strategic sentences are decided on M(0), the named agents and the environment",
            ));
        }
        // Per position (the environment, then each named agent): the
        // movers' shared choice, or per action "enabled here".
        let env_slots = self.env_slots_named(&from.env, None, &from.named, None);
        let rules = (&model.env.protocol[..], model.env.actions.len());
        let name = format!("{tag}.env");
        let env_enabled = self.enabled_actions(&name, rules.0, rules.1, &env_slots)?;
        let mut parts: Vec<Part> = vec![self.part(name, env_enabled, play.env_moves, play)?];
        for (j, a) in model.named.iter().enumerate() {
            let t = &a.template;
            let slots = self.agent_slots(&from.named[j], None, None, None);
            let name = format!("{tag}.{}.act", a.name);
            let enabled = self.enabled_actions(&name, &t.protocol, t.actions.len(), &slots)?;
            parts.push(self.part(name, enabled, play.movers.contains(&j), play)?);
        }
        let mut out = Vec::new();
        for combo in combinations(&parts) {
            let mut conds = Vec::new();
            for (part, &a) in parts.iter().zip(&combo) {
                if let Part::Others(enabled) = part {
                    conds.push(enabled[a].clone());
                }
            }
            let enabled = self.milp.and("and", conds);
            if constant(&enabled) == Some(0.0) {
                continue;
            }
            let branch = format!("{tag}.b{}", out.len());
            let mut actions = Vec::with_capacity(parts.len());
            for (part, &a) in parts.iter().zip(&combo) {
                actions.push(match part {
                    Part::Shared(x) => x.clone(),
                    Part::Answer(name, enabled) => {
                        let name = format!("{branch}.{name}");
                        self.pick_action(&name, enabled, LinExpr::constant(1.0))?
                    }
                    Part::Others(enabled) => one_hot(a, enabled.len()),
                });
            }
            let here = self.milp.and("and", vec![reached.clone(), enabled.clone()]);
            let (round, state) = self.pinned_round(from, actions, &here, &branch)?;
            out.push(Branch {
                enabled,
                reached: here,
                round,
                state,
            });
        }
        Ok(out)
    }

    /// One position of a strategic round: a mover's choice (shared now, or
    /// per branch later), or the others' enabled actions to branch over.
    fn part(
        &mut self,
        name: String,
        enabled: Vec<LinExpr>,
        moves: bool,
        play: Play,
    ) -> Result<Part, RunError> {
        Ok(match (moves, play.second) {
            (false, _) => Part::Others(enabled),
            (true, false) => {
                Part::Shared(self.pick_action(&name, &enabled, LinExpr::constant(1.0))?)
            }
            (true, true) => Part::Answer(name, enabled),
        })
    }

    /// One round of M(0) with the given one-hot actions (the environment's,
    /// then each named agent's); range checks count where `reached` is 1.
    fn pinned_round(
        &mut self,
        from: &State,
        mut actions: Vec<Vec<LinExpr>>,
        reached: &LinExpr,
        tag: &str,
    ) -> Result<(Round, State), RunError> {
        let env_action = actions.remove(0);
        let performed = vec![LinExpr::constant(0.0); self.model.template.actions.len()];
        let joint = Joint {
            env_action: &env_action,
            performed: &performed,
            named: &from.named,
            named_actions: &actions,
        };
        let env: Vec<Val> = self.env_update(&from.env, &joint, tag, Some(reached))?;
        let named: Vec<AgentState> = self.named_successors(&joint, &env, tag, Some(reached))?;
        let round = Round {
            actions: Vec::new(),
            env_action,
            zero_one: Vec::new(),
            named: actions,
        };
        let state = State {
            agents: Vec::new(),
            env,
            zero_one: Vec::new(),
            named,
            depth: from.depth + 1,
        };
        Ok((round, state))
    }
}

/// One position of a strategic round's joint action.
enum Part {
    /// A mover's one-hot choice made before the others' (variables).
    Shared(Vec<LinExpr>),
    /// A mover's choice made in each branch (its name, per action "enabled").
    Answer(String, Vec<LinExpr>),
    /// Another agent's (or the environment's) actions: per action "enabled".
    Others(Vec<LinExpr>),
}

/// Every combination of the others' actions (the movers' positions fixed
/// at 0): the product, last position fastest.
fn combinations(parts: &[Part]) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = vec![Vec::new()];
    for p in parts {
        let options: Vec<usize> = match p {
            Part::Shared(_) | Part::Answer(..) => vec![0],
            Part::Others(enabled) => (0..enabled.len())
                .filter(|&a| constant(&enabled[a]) != Some(0.0))
                .collect(),
        };
        out = out
            .into_iter()
            .flat_map(|c| {
                options.iter().map(move |&a| {
                    let mut c = c.clone();
                    c.push(a);
                    c
                })
            })
            .collect();
    }
    out
}
