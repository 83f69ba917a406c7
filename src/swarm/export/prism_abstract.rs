//! The counting abstraction (threshold t; t = 1 is the set abstraction) in
//! the PRISM language as modules, not as an explicit state list: the agents
//! the labels name are modules as in S(n), the environment is its module,
//! and module `counts` has a variable `c{i}_{s} : [0..t]` per template i and
//! local state s ("t" meaning t or more). Every command of a counted local
//! state s is written twice, as in [`super::counting`]: "others stay"
//! (guard `c = t`, s keeps its count) and "it was the last" / a plain move
//! (guard `c >= 1`, s loses one agent); each target's count goes up by one,
//! saturating at t. Agent-environment moves synchronise with the
//! environment by one label per abstract move.
//!
//! Storm reads the explicit one-module export (a guard `s = i` per choice,
//! tried at every state) in quadratic time: more than 10 minutes for the
//! 49,149 states of the seed's set abstraction; this form has a few dozen
//! commands. Global-synchronous actions (which map every count at once) are
//! not written here: such models keep the explicit export.

use super::prism::{action_label, agent_module, env_module, labels_text};
use crate::swarm::front::syntax::ActionType;
use crate::swarm::semantics::local::{Dist, LocalSpace};
use crate::swarm::Loaded;
use std::fmt::Write;

/// The count variable of template `i`'s local state `s`.
fn count(i: usize, s: usize) -> String {
    format!("c{}_{s}", i + 1)
}

/// The branches of a counted move from `s`: `leave` takes one agent out of
/// `s` first; each target gains one, up to `t`.
fn branches(i: usize, s: usize, d: &Dist, leave: bool, t: u32) -> String {
    (0..d.targets.len())
        .map(|k| {
            let x = d.targets[k] as usize;
            let p = crate::lang::num::display(&d.exact[k]);
            let upd = match (leave, x == s) {
                // Out of s and back in: no change.
                (true, true) => "true".to_string(),
                (true, false) => format!(
                    "({c}'={c}-1)&({n}'=min({n}+1,{t}))",
                    c = count(i, s),
                    n = count(i, x)
                ),
                (false, _) => format!("({n}'=min({n}+1,{t}))", n = count(i, x)),
            };
            format!("{p}:{upd}")
        })
        .collect::<Vec<_>>()
        .join(" + ")
}

/// The `counts` module's commands of template `i`; agent-environment
/// labels are added to `ae_labels[action]`.
fn counted_commands(out: &mut String, l: &Loaded, i: usize, t: u32, ae_labels: &mut [Vec<String>]) {
    let (m, sp): (_, &LocalSpace) = (&l.model, &l.sys.agents[i]);
    for (s, moves) in sp.moves.iter().enumerate() {
        for (k, mv) in moves.iter().enumerate() {
            let d = &sp.dists[mv.dist as usize];
            // "Others stay" exists only at the saturated count.
            for (variant, guard) in [
                ("stay", format!("{}={t}", count(i, s))),
                ("last", format!("{}>=1", count(i, s))),
            ] {
                let label = match m.actions[mv.action].ty {
                    ActionType::Asynchronous => String::new(),
                    ActionType::AgentEnvironment => {
                        let label =
                            action_label(m, mv.action, &format!("_c{}_{s}_{k}_{variant}", i + 1));
                        ae_labels[mv.action].push(label.clone());
                        label
                    }
                    ActionType::GlobalSynchronous => unreachable!("checked by the caller"),
                };
                let _ = writeln!(
                    out,
                    "  [{label}] {guard} -> {};",
                    branches(i, s, d, variant == "last", t)
                );
            }
        }
    }
}

/// The abstraction with the agents `named` concrete (per template) at
/// threshold `t`, or `None` when the model has global-synchronous actions.
pub fn prism_abstract(l: &Loaded, named: &[usize], t: u32) -> Option<String> {
    let m = &l.model;
    if m.actions
        .iter()
        .any(|a| a.ty == ActionType::GlobalSynchronous)
    {
        return None;
    }
    let mut out = format!(
        "// the abstraction (threshold {t}) of {}, exported by mavis {}\nmdp\n\n",
        l.source.name(),
        env!("CARGO_PKG_VERSION")
    );
    let mut ae_labels: Vec<Vec<String>> = vec![Vec::new(); m.actions.len()];
    let mut init: Vec<String> = Vec::new();
    for (i, &n) in named.iter().enumerate() {
        for j in 0..n {
            let suffix = format!("_{}_{}", i + 1, j + 1);
            agent_module(&mut out, l, i, &suffix, false);
            for (a, labels) in ae_labels.iter_mut().enumerate() {
                if m.actions[a].ty == ActionType::AgentEnvironment {
                    labels.push(action_label(m, a, &suffix));
                }
            }
            init.extend(initial_values(&m.templates[i], &suffix));
        }
    }
    out.push_str("module counts\n");
    for (i, sp) in l.sys.agents.iter().enumerate() {
        for s in 0..sp.states.len() {
            let _ = writeln!(out, "  {} : [0..{t}];", count(i, s));
            // Local state 0 is the initial one: 1..t agents there (0..t
            // beside concrete agents), none elsewhere.
            init.push(match (s, named[i] > 0) {
                (0, true) => "true".into(),
                (0, false) => format!("{}>=1", count(i, s)),
                _ => format!("{}=0", count(i, s)),
            });
        }
    }
    for i in 0..l.sys.agents.len() {
        counted_commands(&mut out, l, i, t, &mut ae_labels);
    }
    out.push_str("endmodule\n\n");
    env_module(&mut out, l, &ae_labels, false);
    init.extend(initial_values(&m.env, "_E"));
    let _ = writeln!(out, "init\n  {}\nendinit\n", init.join(" & "));
    labels_text(&mut out, m);
    Some(out)
}

/// `v = init` for every (not projected) variable of a module.
fn initial_values(t: &crate::swarm::front::model::Template, suffix: &str) -> Vec<String> {
    (0..t.vars.len())
        .filter(|&v| !t.is_projected(v))
        .map(|v| {
            let (name, x) = (format!("{}{suffix}", t.vars[v].name), t.vars[v].init);
            if t.vars[v].is_bool {
                if x != 0 {
                    name
                } else {
                    format!("!{name}")
                }
            } else {
                format!("{name}={x}")
            }
        })
        .collect()
}
