//! The model as written (from `.ma` text or JSON), every name interned as a
//! [`Sym`]; its checked construction is [`super::build`].

use super::model::MetricKind;
use crate::lang::{error_at, Source, Span};
use crate::report::RunError;
use rustc_hash::FxHashMap as HashMap;

/// Where a raw item came from: a span of `.ma` text or a JSON path.
#[derive(Clone, Debug)]
pub enum Loc {
    Span(Span),
    Path(String),
}

/// An interned name (of a state, an input or a disturbance) of
/// [`RawModel::names`]: readers intern each name once, so a 10^6-state model
/// holds one string per name instead of one per occurrence.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Sym(pub u32);

/// The names of a raw model, each once, numbered in order of first use.
#[derive(Clone, Default)]
pub struct Names {
    text: Vec<String>,
    index: HashMap<String, Sym>,
}

impl Names {
    /// The symbol of `name`, new if it was not seen before.
    pub fn intern(&mut self, name: &str) -> Sym {
        if let Some(&s) = self.index.get(name) {
            return s;
        }
        self.push(name.to_string())
    }

    /// Like [`Names::intern`], for a name the caller already owns.
    pub fn intern_owned(&mut self, name: String) -> Sym {
        if let Some(&s) = self.index.get(name.as_str()) {
            return s;
        }
        self.push(name)
    }

    fn push(&mut self, name: String) -> Sym {
        let s = Sym(self.text.len() as u32);
        self.index.insert(name.clone(), s);
        self.text.push(name);
        s
    }

    pub fn name(&self, s: Sym) -> &str {
        &self.text[s.0 as usize]
    }

    pub fn len(&self) -> usize {
        self.text.len()
    }

    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }
}

impl std::fmt::Debug for Names {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(&self.text).finish()
    }
}

#[derive(Clone, Debug)]
pub struct RawState {
    pub name: Sym,
    pub at: Option<Vec<f64>>,
    pub gamma: Option<f64>,
    pub priority: Option<u32>,
    pub loc: Loc,
}

#[derive(Clone, Debug)]
pub struct RawTrans {
    pub from: Sym,
    pub input: Sym,
    pub to: Sym,
    /// (disturbance, target) pairs.
    pub disturbed: Vec<(Sym, Sym)>,
    pub loc: Loc,
}

#[derive(Clone, Debug)]
pub enum RawObjective {
    Reach(Vec<Sym>),
    Buchi(Vec<Sym>),
    GenBuchi(Vec<Vec<Sym>>),
    Parity,
}

/// A model as written; every name is a [`Sym`] of `names`.
#[derive(Clone, Debug)]
pub struct RawModel {
    pub name: String,
    pub names: Names,
    pub metric: MetricKind,
    pub states: Vec<RawState>,
    pub distances: Vec<(Sym, Sym, f64, Loc)>,
    pub init: Option<(Sym, Loc)>,
    pub inputs: Vec<Sym>,
    pub disturbances: Vec<Sym>,
    pub transitions: Vec<RawTrans>,
    pub objective: Option<(RawObjective, Loc)>,
}

impl RawModel {
    /// The model before its first declaration (Euclidean metric, no states).
    pub fn empty() -> Self {
        RawModel {
            name: String::new(),
            names: Names::default(),
            metric: MetricKind::Euclidean,
            states: Vec::new(),
            distances: Vec::new(),
            init: None,
            inputs: Vec::new(),
            disturbances: Vec::new(),
            transitions: Vec::new(),
            objective: None,
        }
    }
}

/// Turns a located message into the run error of the right kind.
#[derive(Clone, Copy)]
pub struct Locator<'a> {
    pub source: &'a Source,
}

impl Locator<'_> {
    pub fn err(&self, loc: &Loc, msg: impl Into<String>) -> RunError {
        match loc {
            Loc::Span(s) => error_at(self.source, *s, msg).into(),
            Loc::Path(p) => RunError::input(format!("{}: {p}: {}", self.source.name(), msg.into())),
        }
    }
}
