//! The states where every property of a check is already settled, so that
//! exploring past them changes no value at the initial states: for an
//! unbounded `phi U psi` (and `F psi`; `G phi` by its dual `F !phi`) the
//! states where psi holds or phi fails, whose probability is 1 or 0 whatever
//! follows; for an expected reward until psi the states where psi holds
//! (the reward stops there). Storm builds a model the same way when it is
//! built with its property. Step-bounded properties, `X`, `C<=k` and `I=k`
//! look past every state, so a check with one of them settles nowhere.

use super::property::Sem;
use crate::lang::{eval_f64, TExpr};
use crate::swarm::front::model::{GlobalVar, Model};
use crate::swarm::front::props::{ObsEnv, Path, Properties};

/// Per property, the formulas that settle it and the truth that does.
type Settling<'a> = Vec<Vec<(&'a TExpr, bool)>>;

/// What settles each property, or `None` when some property never settles.
fn settling(props: &Properties) -> Option<Settling<'_>> {
    if props.phases.is_some() {
        return None;
    }
    props
        .props
        .iter()
        .map(|p| match (&p.path, p.reward) {
            (
                Path::Until {
                    phi,
                    psi,
                    steps: None,
                },
                None,
            ) => Some(
                std::iter::once((psi, true))
                    .chain(phi.iter().map(|f| (f, false)))
                    .collect(),
            ),
            (
                Path::Until {
                    psi, steps: None, ..
                },
                Some(_),
            ) => Some(vec![(psi, true)]),
            (Path::Globally { phi, steps: None }, None) => Some(vec![(phi, false)]),
            _ => None,
        })
        .collect()
}

/// Decides per packed state whether every property is settled there.
pub struct Settle<'a> {
    sem: &'a Sem<'a>,
    model: &'a Model,
    refs: &'a [GlobalVar],
    settling: Settling<'a>,
    vars: Vec<f64>,
    labels: Vec<f64>,
}

impl<'a> Settle<'a> {
    /// `None` when some property of `props` never settles.
    pub fn new(sem: &'a Sem<'a>, model: &'a Model, props: &'a Properties) -> Option<Self> {
        Some(Settle {
            sem,
            model,
            refs: &props.refs,
            settling: settling(props)?,
            vars: Vec::new(),
            labels: vec![0.0; model.labels.len()],
        })
    }

    pub fn holds(&mut self, state: &[u64]) -> bool {
        self.sem.observe(state, self.refs, &mut self.vars);
        for (i, (_, l)) in self.model.labels.iter().enumerate() {
            let env = ObsEnv {
                vars: &self.vars,
                labels: &[],
            };
            self.labels[i] = eval_f64(l, &env);
        }
        let env = ObsEnv {
            vars: &self.vars,
            labels: &self.labels,
        };
        self.settling.iter().all(|fs| {
            fs.iter()
                .any(|&(f, want)| (eval_f64(f, &env) != 0.0) == want)
        })
    }
}
