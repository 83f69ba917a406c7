//! The text forms of NIS witnesses: one step table per branch, after what
//! the trace is (a witness, a counterexample, a refutation, an abstract
//! trace concretized in M(n)).

use crate::nis::witness::shown::{
    AbstractStep, EnvMove, EnvState, Local, RealMeaning, Runs, Step, Trace, Val, Var, Witness,
};
use crate::report::{Table, TableFormat};

/// The text form of a witness.
pub fn witness(w: &Witness) -> String {
    match w {
        Witness::Trace(t) => trace(t),
        Witness::Refutation(t) => format!(
            "a refutation: every move of the coalition, answered by the others (the environment included), reaches the negated goal:\n{}",
            trace(t)
        ),
        Witness::Concretized {
            trace: t,
            indexed: m,
            agents: n,
        } => {
            let (m, n) = (*m, *n);
            let who = if n == m + 1 {
                format!("agent {n} follows the zero-one agent")
            } else if n > m {
                format!("agents {}..{n} follow the zero-one agent", m + 1)
            } else {
                format!("agents 1..{m} perform every action of the zero-one agent")
            };
            format!(
                "the abstract trace of M_ab({m}), concretized in M({n}) ({who}):\n{}",
                trace(t)
            )
        }
    }
}

/// One step table per branch, each after `KIND, branch I of N:`.
fn trace(t: &Trace) -> String {
    let tables: Vec<Table> = match &t.runs {
        Runs::Concrete {
            branches,
            env_moves,
            ..
        } => branches.iter().map(|b| step_table(b, *env_moves)).collect(),
        Runs::Abstract {
            branches,
            named_agents,
        } => branches
            .iter()
            .map(|b| abstract_table(b, *named_agents))
            .collect(),
    };
    let count = tables.len();
    let mut text = String::new();
    for (i, table) in tables.iter().enumerate() {
        text.push_str(&format!(
            "{}, branch {} of {count}:\n",
            t.kind.word(),
            i + 1
        ));
        text.push_str(&table.render(TableFormat::Text));
    }
    text
}

/// A value as the user wrote it; f64 numbers rounded to 9 decimals.
fn val_text(v: &Val) -> String {
    match v {
        Val::Bool(b) => b.to_string(),
        Val::Enum(Ok(name)) => name.clone(),
        Val::Enum(Err(code)) | Val::Int(code) => code.to_string(),
        Val::Real(x, meaning) => match meaning {
            RealMeaning::Number => {
                format!("{}", (x * 1e9).round() / 1e9)
            }
            RealMeaning::Bool => (*x != 0.0).to_string(),
            RealMeaning::Enum(name) => name.clone(),
        },
    }
}

fn assignments(vars: &[Var]) -> Vec<String> {
    vars.iter()
        .map(|v| format!("{}={}", v.name, val_text(&v.value)))
        .collect()
}

/// `h=3 volunteer`.
pub fn local_text(l: &Local) -> String {
    let mut parts = assignments(&l.vars);
    parts.push(l.percept.clone());
    parts.join(" ")
}

/// `t=1`, with named agents `t=1 | ownship: v=2 COC` (`-` without variables).
pub fn env_text(e: &EnvState) -> String {
    let mut out = assignments(&e.vars).join(" ");
    if out.is_empty() {
        out.push('-');
    }
    for (name, l) in &e.named {
        out.push_str(&format!(" | {name}: {}", local_text(l)));
    }
    out
}

/// The environment's joint action: `own, ownship.COC`.
pub fn env_move_text(mv: &EnvMove) -> String {
    let mut parts = vec![mv.own.clone()];
    parts.extend(mv.named.iter().map(|(agent, a)| format!("{agent}.{a}")));
    parts.join(", ")
}

/// `text -> action`, or `text` at the last step.
fn then(text: String, action: Option<String>) -> String {
    match action {
        Some(a) => format!("{text} -> {a}"),
        None => text,
    }
}

/// A step table's header: `step`, `agent 1` .. `agent n`, then `more`.
fn header(n: usize, more: &[&str]) -> Table {
    let mut header = vec!["step".to_string()];
    header.extend((1..=n).map(|i| format!("agent {i}")));
    header.extend(more.iter().map(|s| s.to_string()));
    Table::new(header)
}

/// A row's first cells: the step, then every agent's local state and the
/// action it takes next (`actions`, none at the last step).
fn agent_cells(j: usize, agents: &[Local], actions: Option<&[String]>) -> Vec<String> {
    let mut row = vec![j.to_string()];
    for (i, l) in agents.iter().enumerate() {
        row.push(then(local_text(l), actions.map(|a| a[i].clone())));
    }
    row
}

/// One row per step: every agent's local state and the action it takes
/// next; the environment and, when `env_moves` (it has variables or more
/// than one joint action), the joint action it takes next.
fn step_table(steps: &[Step], env_moves: bool) -> Table {
    let mut t = header(steps.first().map_or(0, |s| s.agents.len()), &["env"]);
    for (j, s) in steps.iter().enumerate() {
        let next = steps.get(j + 1).and_then(|x| x.moved.as_ref());
        let mut row = agent_cells(j, &s.agents, next.map(|mv| &mv.actions[..]));
        let env_action = next.filter(|_| env_moves).map(|mv| env_move_text(&mv.env));
        row.push(then(env_text(&s.env), env_action));
        t.row(row);
    }
    t
}

/// Abstract steps: the indexed agents, the zero-one set and the zero-one
/// action; with named agents (they live in the environment) the environment
/// and its joint action.
fn abstract_table(steps: &[AbstractStep], with_env: bool) -> Table {
    let more: &[&str] = if with_env {
        &["zero-one agent", "zero-one action", "env"]
    } else {
        &["zero-one agent", "zero-one action"]
    };
    let mut t = header(steps.first().map_or(0, |s| s.agents.len()), more);
    for (j, s) in steps.iter().enumerate() {
        let next = steps.get(j + 1).and_then(|x| x.moved.as_ref());
        let mut row = agent_cells(j, &s.agents, next.map(|mv| &mv.actions[..]));
        let set: Vec<String> = s.zero_one.iter().map(local_text).collect();
        row.push(format!("{{{}}}", set.join("; ")));
        row.push(next.map_or(String::new(), |mv| {
            let parts: Vec<String> = mv
                .zero_one
                .iter()
                .map(|(l, acts)| format!("{}: {}", local_text(l), acts.join(",")))
                .collect();
            parts.join("; ")
        }));
        if with_env {
            row.push(then(
                env_text(&s.env),
                next.map(|mv| env_move_text(&mv.env)),
            ));
        }
        t.row(row);
    }
    t
}
