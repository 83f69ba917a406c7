//! bICTL sentences in core form (Definitions 7-9 after Lemma 1): phi[m]
//! over label and agent numbers, EX^k / AX^k unrolled into single steps and
//! bounded until expanded. Every decider (explicit checker, MILP encoders)
//! reads this form; universal sentences reach the MILP through [`Core::negate`].

use super::formula::{AgentRef, Formula, Sentence};
use super::model::{LabelSubject, Model};
use super::strategic::Strategy;
use crate::lang::{error_at, LangResult, Span};
use crate::report::RunError;

/// A formula in core form over label and agent numbers (agents 0-based),
/// with EX^k / AX^k unrolled into k single steps and until expanded.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Node {
    /// A literal: label `label` of agent `agent` (0-based), or of the
    /// environment's state when `agent` is `None`.
    Lit {
        label: usize,
        agent: Option<usize>,
        negated: bool,
    },
    And(Vec<usize>),
    Or(Vec<usize>),
    EX(usize),
    AX(usize),
}

#[derive(Clone, Debug)]
pub struct Core {
    pub nodes: Vec<Node>,
    pub root: usize,
}

impl Core {
    fn push(&mut self, n: Node) -> usize {
        if let Some(i) = self.nodes.iter().position(|m| *m == n) {
            return i;
        }
        self.nodes.push(n);
        self.nodes.len() - 1
    }

    /// The dual formula: negation pushed to the atoms (A and E swap).
    pub fn negate(&self) -> Core {
        let nodes = self
            .nodes
            .iter()
            .map(|n| match n {
                Node::Lit {
                    label,
                    agent,
                    negated,
                } => Node::Lit {
                    label: *label,
                    agent: *agent,
                    negated: !negated,
                },
                Node::And(v) => Node::Or(v.clone()),
                Node::Or(v) => Node::And(v.clone()),
                Node::EX(c) => Node::AX(*c),
                Node::AX(c) => Node::EX(*c),
            })
            .collect();
        Core {
            nodes,
            root: self.root,
        }
    }

    pub fn has_universal(&self) -> bool {
        self.nodes.iter().any(|n| matches!(n, Node::AX(_)))
    }

    pub fn has_existential(&self) -> bool {
        self.nodes.iter().any(|n| matches!(n, Node::EX(_)))
    }
}

/// phi[m] (Lemma 1): variables bound to agents 1..m in order; labels resolved in the model.
pub fn lower(sentence: &Sentence, model: &Model) -> LangResult<Core> {
    let mut core = Core {
        nodes: Vec::new(),
        root: 0,
    };
    core.root = lower_rec(sentence, model, &sentence.body, &mut core)?;
    Ok(core)
}

/// A sentence lowered once, against its model, where a run starts (the
/// verb), and handed as it is to every decider: the sentence for its shape
/// (agents, depth, kind, strategy; through `Deref`) and its core form.
pub struct Lowered<'s> {
    pub sentence: &'s Sentence,
    pub core: Core,
}

impl<'s> Lowered<'s> {
    /// Lowers `sentence` (a located error names what the model lacks).
    pub fn new(sentence: &'s Sentence, model: &Model) -> LangResult<Self> {
        Ok(Lowered {
            sentence,
            core: lower(sentence, model)?,
        })
    }
}

impl std::ops::Deref for Lowered<'_> {
    type Target = Sentence;

    fn deref(&self) -> &Sentence {
        self.sentence
    }
}

/// A strategic sentence as every decider takes it: coalition G searches
/// for a strategy that wins `goal` within `strategy.steps` rounds.
pub struct StrategicGoal<'s> {
    /// The sentence's `<<G>>` or `[[G]]` with its number of rounds.
    pub strategy: &'s Strategy,
    /// G as indices of the model's named agents.
    pub coalition: Vec<usize>,
    /// `[[G]]`: a winning strategy for G is a counterexample.
    pub universal: bool,
    /// phi for `<<G>>`; !phi for `[[G]]`, which fails when G can force !phi.
    pub goal: Core,
}

/// The [`StrategicGoal`] of a strategic sentence (a sentence without
/// `<<G>>`/`[[G]]` here is an internal error: callers dispatch on it).
pub fn strategic_goal<'s>(phi: &Lowered<'s>, model: &Model) -> Result<StrategicGoal<'s>, RunError> {
    let sentence = phi.sentence;
    let Some(strategy) = &sentence.strategy else {
        return Err(RunError::Internal("not a strategic sentence".into()));
    };
    let coalition = strategy.resolve(&sentence.source, model)?;
    let universal = !strategy.can;
    let goal = if universal {
        phi.core.negate()
    } else {
        phi.core.clone()
    };
    Ok(StrategicGoal {
        strategy,
        coalition,
        universal,
        goal,
    })
}

fn lower_rec(s: &Sentence, model: &Model, f: &Formula, core: &mut Core) -> LangResult<usize> {
    Ok(match f {
        Formula::Atom {
            label,
            agent,
            negated,
            span,
        } => {
            let index = label_of(s, model, label, *span)?;
            let agent = literal_agent(s, model, index, agent, *span)?;
            core.push(Node::Lit {
                label: index,
                agent,
                negated: *negated,
            })
        }
        Formula::And(a, b) => {
            let (a, b) = (lower_rec(s, model, a, core)?, lower_rec(s, model, b, core)?);
            core.push(Node::And(vec![a, b]))
        }
        Formula::Or(a, b) => {
            let (a, b) = (lower_rec(s, model, a, core)?, lower_rec(s, model, b, core)?);
            core.push(Node::Or(vec![a, b]))
        }
        Formula::EX(k, a) | Formula::AX(k, a) => {
            let mut n = lower_rec(s, model, a, core)?;
            for _ in 0..*k {
                n = core.push(if matches!(f, Formula::EX(..)) {
                    Node::EX(n)
                } else {
                    Node::AX(n)
                });
            }
            n
        }
        Formula::EU(k, a, b) | Formula::AU(k, a, b) => {
            let (phi, psi) = (lower_rec(s, model, a, core)?, lower_rec(s, model, b, core)?);
            let existential = matches!(f, Formula::EU(..));
            until(core, *k, (phi, psi), existential)
        }
    })
}

/// The model's index of an atom's label.
fn label_of(s: &Sentence, model: &Model, label: &str, span: Span) -> LangResult<usize> {
    model.label_index(label).ok_or_else(|| {
        let known: Vec<&str> = model.labels.iter().map(|l| l.name.as_str()).collect();
        error_at(
            &s.source,
            span,
            format!(
                "unknown label `{label}` (the model has: {})",
                known.join(", ")
            ),
        )
    })
}

/// The agent a literal is about (`None`: the environment), checked against
/// what its label reads: agents' labels need an agent, the environment's none.
fn literal_agent(
    s: &Sentence,
    model: &Model,
    index: usize,
    agent: &AgentRef,
    span: Span,
) -> LangResult<Option<usize>> {
    let name = &model.labels[index].name;
    let agent = match agent {
        AgentRef::Var(v) => Some(s.vars.iter().position(|x| x == v).unwrap_or(0)),
        AgentRef::Index(i) => Some(i - 1),
        AgentRef::Environment => None,
    };
    let wrong = match (model.labels[index].subject, agent) {
        (LabelSubject::Agent, None) => format!(
            "`{name}` is a label of the agents' local state: name an agent, as in `({name}, v1)`"
        ),
        (LabelSubject::Environment, Some(_)) => format!(
            "`{name}` is a label of the environment's state: write it without an agent, as `{name}`"
        ),
        _ => return Ok(agent),
    };
    Err(error_at(&s.source, span, wrong))
}

/// `phi U^k psi` by its expansion psi | (phi & X (phi U^{k-1} psi)), with
/// X the existential or the universal next.
fn until(core: &mut Core, k: u32, (phi, psi): (usize, usize), existential: bool) -> usize {
    let mut u = psi;
    for _ in 0..k {
        let step = core.push(if existential {
            Node::EX(u)
        } else {
            Node::AX(u)
        });
        let both = core.push(Node::And(vec![phi, step]));
        u = core.push(Node::Or(vec![psi, both]));
    }
    u
}
