//! The parameterised verification and emergence procedures of Corollaries 1
//! and 2 of Kouvaros et al., IJCAI 2024: from checks of M_ab(m) and finitely
//! many M(i) to a verdict for every n >= m and an emergence threshold
//! (Definition 11).
//!
//! Two procedures find the concrete system that b-simulates M_ab(m)
//! ([`Procedure`]): `search` decides Definition 14 explicitly for
//! i = m, m+1, ... (finite models only, the paper's Corollary 2 as written);
//! `bound` searches nothing and rests on the two facts below, so it also
//! runs on models with real-valued variables or an initial interval.
//!
//! **Monotonicity lemma.** For an existential phi\[m\] (every path
//! quantifier E) and i >= m: M(i) |= phi\[m\] implies M(i+1) |= phi\[m\].
//! Proof: the initial states of M(i+1) are those of M(i) with one more
//! agent in the template's initial state (the template's initial state is
//! one point; only the environment's varies). Given a witness tree of M(i)
//! from an initial state, let agent i+1 copy agent 1 on every branch: the
//! same action and, at argmax ties, the same percept. Its local state stays
//! agent 1's, so its actions stay enabled. The model language lets nothing
//! count agents: updates see the set of performed actions only
//! (`performed(a)` is Boolean), protocols see the own local state (the
//! environment's its own), observations the own private state and the
//! environment. So the set of performed actions is unchanged and the
//! environment and agents 1..m, on which phi\[m\] is read, take the same
//! steps: the copy is a witness tree of M(i+1). Dually, for a universal
//! phi\[m\], M(i+1) |= phi\[m\] implies M(i) |= phi\[m\] (a counterexample
//! of M(i), a witness of the existential negation, lifts to M(i+1)). Hence
//! the existential verdicts along n = m, m+1, ... read false...false
//! true...true and the universal ones true...true false...false (the
//! paper's Theorem 4, M(i) <=_b M(i+1), says the same through Theorem 1).
//!
//! **Simulating bound.** M_ab(m) <=_b M(n') for n' = m + B^b with B of
//! [`super::explicit::branching`] (proof sketch there), hence for every n >= n' too
//! (the same copying argument extends a simulation of M(n') to M(n)).
//!
//! The bound procedure, existential phi\[m\] of depth b: if M_ab(m) fails,
//! every M(n), n >= m+1, fails (Theorem 2, M(n) <=_b M_ab(m), with
//! Theorem 1), and M(m) as well by the lemma (it is checked anyway; holding
//! there is a bug). If M_ab(m) holds, M(n') holds (Theorem 1), and the first
//! i = m, m+1, ... with M(i) |= phi\[m\] is the emergence threshold (by the
//! lemma every larger n holds, every smaller one fails); phi holds for every
//! n iff that i is m. Universal phi\[m\]: Corollary 1 (M_ab(m) and M(m)); a
//! counterexample of M_ab(m) is one of M(n') (Theorem 1), so phi fails for
//! every n >= n' by the lemma, and for every n >= n0 when the abstract
//! decider replayed its counterexample in a concrete M(n0)
//! ([`MilpStats::counterexample_agents`]).
//!
//! **Named agents (agents with roles).** A model may add a fixed list of
//! named agents, each with its own template. They are part of the
//! environment in every definition used here: the environment's state is
//! (its variables, every named agent's local state), its action the tuple
//! (its own action, one action per named agent), its protocol the product of
//! the environment's and each named agent's, and its transition updates the
//! environment and each named agent and lets each named agent observe the
//! new environment (an argmax tie there makes tr_e a relation; Definitions
//! 4-6 and 12-14 only ever pair an environment state with its successors, so
//! they read the same with a successor set). The template agents see of this
//! only the environment's variables; what the named agents and the
//! environment see of the template agents is the set of performed actions.
//! Hence Definition 12's zero-one agent abstracts the template's copies
//! alone, and each argument above goes through unchanged: Theorems 1 and 2
//! relate runs that agree on the environment's state, so on the named
//! agents' states too; in the monotonicity lemma the copied agent leaves the
//! performed set, hence the named agents' and the environment's steps, as
//! they were; and B counts the zero-one agent's branching, which named
//! agents do not change (their ties are choices of the environment's
//! successor, matched one for one). Corollaries 1 and 2 therefore apply to
//! the parameterised template of a model with named agents. A model without
//! a parameterised template is M(0) alone and has no abstraction.

use super::encode::{MilpOptions, MilpStats};
use super::engine::{admissible, CheckRecord, Deciding, EngineChoice, Target};
use super::explicit::branching::{simulating_bound, zero_one_branching};
use super::explicit::simulation::{default_cap, minimal_simulating_n, MinimalN};
use super::front::core::Lowered;
use super::front::formula::{Kind, Sentence};
use super::front::model::Model;
use crate::report::{RunContext, RunError};
use std::time::Instant;

/// How the concrete system that b-simulates M_ab(m) is obtained.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Procedure {
    /// The explicit search for the least simulating n (finite models only).
    Search,
    /// No search: n' = m + B^b ([`super::explicit::branching`]) and the monotonicity lemma.
    Bound,
}

impl Procedure {
    pub fn word(self) -> &'static str {
        match self {
            Procedure::Search => "search",
            Procedure::Bound => "bound",
        }
    }

    /// `choice`, or by default `search` for finite models and `bound`
    /// otherwise; `search` on a model that is not finite is an input error.
    pub fn select(model: &Model, choice: Option<Procedure>) -> Result<Procedure, RunError> {
        let obstacle = model.explicit_obstacle();
        match (choice, obstacle) {
            (Some(Procedure::Search), Some(why)) => Err(RunError::input(format!(
                "--simulation search needs a finite model: {why}; use --simulation bound \
                 (the default for such models: M(m + B^b) b-simulates M_ab(m), no search)"
            ))),
            (Some(p), _) => Ok(p),
            (None, None) => Ok(Procedure::Search),
            (None, Some(_)) => Ok(Procedure::Bound),
        }
    }
}

/// n' = m + B^b of [`simulating_bound`], as used by a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimulatingBound {
    /// B, [`zero_one_branching`].
    pub branching: usize,
    /// n' = m + B^b (`usize::MAX` when it overflows).
    pub n: usize,
}

impl SimulatingBound {
    pub fn new(model: &Model, m: usize, depth: u32) -> Self {
        SimulatingBound {
            branching: zero_one_branching(model),
            n: simulating_bound(model, m, depth),
        }
    }

    /// `m + B^b = n'` for the reports.
    pub fn describe(&self, m: usize, depth: u32) -> String {
        if self.n == usize::MAX {
            format!("{m} + {}^{depth} (beyond {})", self.branching, usize::MAX)
        } else {
            format!("{m} + {}^{depth} = {}", self.branching, self.n)
        }
    }
}

/// What a `verify` run found.
#[derive(Clone, Debug)]
pub struct VerifyOutcome {
    pub spec: String,
    pub kind: Kind,
    /// m, the number of index variables.
    pub m: usize,
    /// b, the temporal depth.
    pub depth: u32,
    pub corollary: &'static str,
    /// Whether M(n) |= phi for every n >= m (None: undetermined).
    pub holds_for_all_n: Option<bool>,
    /// The least th >= m with M(n) |= phi for every n >= th (None: there is none, or undetermined).
    pub emergence_threshold: Option<usize>,
    pub abstract_holds: Option<bool>,
    /// How the simulating system was obtained.
    pub procedure: Procedure,
    /// The least n with M_ab(m) <=_b M(n), when searched (procedure `search`).
    pub simulation: Option<MinimalN>,
    /// n' = m + B^b with M_ab(m) <=_b M(n) for every n >= n' (procedure `bound`).
    pub bound: Option<SimulatingBound>,
    /// Some n0 with M(n) |/= phi for every n >= n0, when the run establishes
    /// one (not necessarily the least).
    pub fails_from: Option<usize>,
    pub conclusion: String,
    /// Every sub-check that was run, in order.
    pub checks: Vec<CheckRecord>,
    pub undetermined_reason: Option<String>,
    /// The verdict is known but the emergence threshold is not (a failing
    /// M(i) was found before a simulating system).
    pub threshold_undetermined: bool,
    pub time_s: f64,
}

impl VerifyOutcome {
    /// Records why the run ends without a verdict (exit 3).
    fn undetermined(&mut self, reason: String) {
        self.conclusion = format!("undetermined: {reason}");
        self.undetermined_reason = Some(reason);
    }

    /// M(i) fails: "for every n" is refuted (exit 1), while the emergence
    /// threshold stays unknown, for `reason` (`emergence` exits 3).
    fn refuted_threshold_unknown(&mut self, i: usize, reason: String) {
        self.holds_for_all_n = Some(false);
        self.threshold_undetermined = true;
        self.conclusion = format!(
            "M({i}) does not satisfy phi[{}]: fails for n = {i}; emergence threshold undetermined: {reason}",
            self.m
        );
        self.undetermined_reason = Some(reason);
    }
}

pub struct VerifyOptions {
    pub engine: EngineChoice,
    /// Largest n checked: the cap of the search for the simulating n
    /// (default m + |L_t| * |Act_t|), or of the M(i) checked by the bound
    /// procedure (default n' = m + B^b).
    pub cap: Option<usize>,
    /// Options of the MILP decider (symmetry breaking, HiGHS).
    pub milp: MilpOptions,
}

fn timed_out(ctx: &RunContext) -> bool {
    ctx.timed_out()
}

/// "the time-out of T s was reached".
fn expiry_text(ctx: &RunContext) -> String {
    ctx.deadline()
        .expiry()
        .map_or("the time-out was reached".into(), |e| e.to_string())
}

/// One sub-check: phi\[m\] on M(n) or M_ab(m).
type Check<'a> = dyn FnMut(Target) -> Result<CheckRecord, RunError> + 'a;

/// Runs the corollary that fits the sentence's kind, with the default
/// procedure of [`Procedure::select`].
pub fn verify(
    model: &Model,
    sentence: &Sentence,
    opts: &VerifyOptions,
    ctx: &RunContext,
) -> Result<VerifyOutcome, RunError> {
    verify_using(model, sentence, opts, None, ctx)
}

/// [`verify`] with the procedure chosen (`None`: the default).
pub fn verify_using(
    model: &Model,
    sentence: &Sentence,
    opts: &VerifyOptions,
    procedure: Option<Procedure>,
    ctx: &RunContext,
) -> Result<VerifyOutcome, RunError> {
    let m = sentence.agents();
    // Lowered once, at the first sub-check (where a check's own refusals
    // come first), then handed to every sub-check.
    let mut lowered: Option<Lowered> = None;
    let mut check = |target: Target| {
        ctx.stage(format!("nis verify: checking {}", target.describe(m)));
        admissible(opts.engine, model, sentence, target)?;
        let phi = match lowered.take() {
            Some(phi) => phi,
            None => Lowered::new(sentence, model)?,
        };
        let record = Deciding::new(opts.engine, &opts.milp, model).lowered(&phi, target);
        lowered = Some(phi);
        record
    };
    run(model, sentence, opts.cap, procedure, ctx, &mut check)
}

/// The procedures over any decider of the sub-checks.
fn run(
    model: &Model,
    sentence: &Sentence,
    cap: Option<usize>,
    procedure: Option<Procedure>,
    ctx: &RunContext,
    check: &mut Check,
) -> Result<VerifyOutcome, RunError> {
    let start = Instant::now();
    let m = sentence.agents();
    if m == 0 {
        return Err(RunError::input(
            "the sentence names no agent: write `forall v1: ...` with atoms `(p, v1)`",
        ));
    }
    let procedure = Procedure::select(model, procedure)?;
    let depth = sentence.depth();
    let mut out = VerifyOutcome {
        spec: sentence.to_string(),
        kind: sentence.kind(),
        m,
        depth,
        corollary: "",
        holds_for_all_n: None,
        emergence_threshold: None,
        abstract_holds: None,
        procedure,
        simulation: None,
        bound: None,
        fails_from: None,
        conclusion: String::new(),
        checks: Vec::new(),
        undetermined_reason: None,
        threshold_undetermined: false,
        time_s: 0.0,
    };
    match corollary(model, cap, ctx, check, &mut out) {
        Ok(()) => {}
        // The deadline: the sub-checks done so far stay in the outcome.
        Err(RunError::TimedOut(why)) => {
            let done = format!(
                "{why}, after {} sub-check(s) (listed below)",
                out.checks.len()
            );
            if out.holds_for_all_n.is_some() && !out.conclusion.is_empty() {
                out.conclusion = format!("{}; then {done}", out.conclusion);
            } else if out.holds_for_all_n == Some(false) {
                out.conclusion = format!(
                    "M_ab({m}) has a counterexample: fails for some n >= {m}; no emergence threshold; then {done}"
                );
            } else {
                out.holds_for_all_n = None;
                out.emergence_threshold = None;
                out.undetermined(done);
            }
        }
        Err(e) => return Err(e),
    }
    out.time_s = start.elapsed().as_secs_f64();
    Ok(out)
}

/// The corollary of the sentence's kind with `out.procedure`, filling `out`.
fn corollary(
    model: &Model,
    cap: Option<usize>,
    ctx: &RunContext,
    check: &mut Check,
    out: &mut VerifyOutcome,
) -> Result<(), RunError> {
    let m = out.m;
    match out.procedure {
        Procedure::Search => {
            let cap = match cap {
                Some(c) => c,
                None => default_cap(model, m).map_err(|why| {
                    RunError::input(format!("the simulation search needs a finite model: {why}"))
                })?,
            };
            let search = Search { model, ctx, cap };
            let abs = check(Target::Abstract)?;
            out.abstract_holds = Some(abs.holds);
            out.checks.push(abs);
            match out.kind {
                Kind::Universal | Kind::Propositional => universal(&search, check, out),
                Kind::Existential => existential(&search, check, out),
            }
        }
        Procedure::Bound => {
            out.bound = Some(SimulatingBound::new(model, m, out.depth));
            let abs = check(Target::Abstract)?;
            out.abstract_holds = Some(abs.holds);
            out.checks.push(abs);
            match out.kind {
                Kind::Universal | Kind::Propositional => bound_universal(check, out),
                Kind::Existential => bound_existential(ctx, cap, check, out),
            }
        }
    }
}

/// The search procedure's inputs: the model, the run, the cap on n.
struct Search<'a> {
    model: &'a Model,
    ctx: &'a RunContext,
    cap: usize,
}

/// The least n <= the cap with M_ab(m) <=_b M(n), searched.
fn search_n(s: &Search, m: usize, b: u32) -> Result<MinimalN, RunError> {
    let Search { model, ctx, cap } = *s;
    match minimal_simulating_n(model, m, b, cap, ctx.deadline())? {
        Ok(r) if r.n.is_none() && ctx.timed_out() => Err(RunError::TimedOut(format!(
            "{} during the search for the least n with M_ab({m}) <=_{b} M(n), after {} value(s) of n",
            expiry_text(ctx),
            r.tried.len()
        ))),
        Ok(r) => Ok(r),
        Err(why) => Err(RunError::input(format!(
            "the simulation search needs a finite model: {why}"
        ))),
    }
}

fn concrete(n: usize) -> Target {
    Target::Concrete { agents: n }
}

/// M_ab(m) |= phi[m] and M(m) |/= phi[m] for a universal phi contradicts
/// Theorem 2 (M(m+1) <=_b M_ab(m)) with the monotonicity lemma.
fn universal_lemma_violated(m: usize) -> RunError {
    RunError::Internal(format!(
        "M_ab({m}) satisfies the universal phi[{m}] and so does M({}) (Theorem 2), yet M({m}) does not: \
         the monotonicity lemma is violated (a bug)",
        m + 1
    ))
}

/// Corollary 1: M_ab(m) |= phi[m] and M(m) |= phi[m] iff S |= forall phi;
/// M_ab(m) |= phi[m] makes m+1 an emergence threshold, otherwise there is
/// none. Returns whether M_ab(m) held (the conclusion is written then).
fn corollary_1(check: &mut Check, out: &mut VerifyOutcome) -> Result<bool, RunError> {
    out.corollary = "Corollary 1 (universal)";
    let m = out.m;
    let abstract_holds = out.checks[0].holds;
    let base = check(concrete(m))?;
    let base_holds = base.holds;
    out.checks.push(base);
    if abstract_holds {
        if !base_holds {
            return Err(universal_lemma_violated(m));
        }
        out.holds_for_all_n = Some(true);
        out.emergence_threshold = Some(m);
        out.conclusion = format!("M_ab({m}) and M({m}) satisfy phi[{m}]: holds for every n >= {m}");
        return Ok(true);
    }
    out.holds_for_all_n = Some(false);
    out.emergence_threshold = None;
    if !base_holds {
        // The universal lemma: a counterexample of M(m) lifts to every M(n), n >= m.
        out.fails_from = Some(m);
    }
    Ok(false)
}

/// Corollary 1; where the abstract counterexample becomes concrete is the
/// least n that b-simulates M_ab(m), searched.
fn universal(s: &Search, check: &mut Check, out: &mut VerifyOutcome) -> Result<(), RunError> {
    if corollary_1(check, out)? {
        return Ok(());
    }
    let m = out.m;
    if timed_out(s.ctx) {
        out.conclusion = format!(
            "M_ab({m}) has a counterexample: fails for some n >= {m}; no emergence threshold"
        );
        return Ok(());
    }
    let sim = search_n(s, m, out.depth)?;
    if let Some(n0) = sim.n {
        for i in m + 1..n0 {
            let r = check(concrete(i))?;
            out.checks.push(r);
        }
        out.fails_from = Some(out.fails_from.unwrap_or(n0).min(n0));
        out.conclusion = format!(
            "M_ab({m}) has a counterexample and M({n0}) {}-simulates M_ab({m}): fails for every n >= {n0}; no emergence threshold",
            out.depth
        );
    } else {
        out.conclusion = format!(
            "M_ab({m}) has a counterexample: fails for some n >= {m}; no emergence threshold"
        );
    }
    out.simulation = Some(sim);
    Ok(())
}

/// Corollary 2: with n = min{ i : M_ab(m) <=_b M(i) }, S |= forall phi iff
/// M(i) |= phi[m] for all i in m..n; M(n) |= phi[m] makes n an emergence
/// threshold (the least one is the start of the final run of holding i's),
/// otherwise there is none.
fn existential(s: &Search, check: &mut Check, out: &mut VerifyOutcome) -> Result<(), RunError> {
    out.corollary = "Corollary 2 (existential)";
    let (m, ctx) = (out.m, s.ctx);
    let abstract_holds = out.checks[0].holds;
    let sim = search_n(s, m, out.depth)?;
    let Some(n0) = sim.n else {
        if !abstract_holds {
            // M_ab(m) simulates every M(n), n >= m+1 (Theorem 2): existential phi fails there.
            let base = check(concrete(m))?;
            out.fails_from = Some(if base.holds { m + 1 } else { m });
            out.checks.push(base);
            out.holds_for_all_n = Some(false);
            out.conclusion = format!("M_ab({m}) does not satisfy phi[{m}]: fails for every n >= {}; no emergence threshold", m + 1);
        } else {
            let reason = format!(
                "no M(i) with i <= {} simulates M_ab({m}) up to depth {}",
                sim.cap, out.depth
            );
            // Without a simulating system, a failing M(i) with i <= cap
            // still refutes "for every n".
            match first_failure(ctx, m, sim.cap, check, out)? {
                Some(i) => out.refuted_threshold_unknown(i, reason),
                None => out.undetermined(reason),
            }
        }
        out.simulation = Some(sim);
        return Ok(());
    };
    out.simulation = Some(sim);
    let mut verdicts = Vec::new();
    for i in m..=n0 {
        if timed_out(ctx) {
            let reason = "time-out before every M(i) was checked".to_string();
            out.undetermined(reason);
            return Ok(());
        }
        let r = check(concrete(i))?;
        verdicts.push((i, r.holds));
        out.checks.push(r);
    }
    let top = verdicts.last().map(|v| v.1).unwrap_or(false);
    if abstract_holds && !top {
        return Err(RunError::Internal(format!(
            "M({n0}) simulates M_ab({m}) and M_ab({m}) satisfies the existential phi[{m}], yet M({n0}) does not (Theorem 1 is violated: a bug)"
        )));
    }
    out.holds_for_all_n = Some(verdicts.iter().all(|v| v.1));
    if top {
        let mut th = n0;
        while th > m && verdicts[th - 1 - m].1 {
            th -= 1;
        }
        out.emergence_threshold = Some(th);
        out.conclusion = format!(
            "M({n0}) {}-simulates M_ab({m}) and satisfies phi[{m}]: holds for every n >= {n0}; M(i) holds for i in {th}..{n0}",
            out.depth
        );
    } else {
        out.emergence_threshold = None;
        // M_ab(m) fails (else the error above): Theorem 2 for every n >= m+1.
        out.fails_from = Some(if verdicts[0].1 { m + 1 } else { m });
        out.conclusion = format!(
            "M({n0}) {}-simulates M_ab({m}) and does not satisfy phi[{m}]: no emergence threshold",
            out.depth
        );
    }
    Ok(())
}

/// Checks M(i) for i in m..=cap until one fails (or the time is up);
/// returns the failing i.
fn first_failure(
    ctx: &RunContext,
    m: usize,
    cap: usize,
    check: &mut Check,
    out: &mut VerifyOutcome,
) -> Result<Option<usize>, RunError> {
    for i in m..=cap {
        if timed_out(ctx) {
            return Ok(None);
        }
        let r = check(concrete(i))?;
        let holds = r.holds;
        out.checks.push(r);
        if !holds {
            return Ok(Some(i));
        }
    }
    Ok(None)
}

/// Universal, bound procedure: Corollary 1; an abstract counterexample is
/// one of M(n') (Theorem 1), so phi fails for every n >= n' (lemma), and for
/// every n >= n0 when the abstract decider replayed it in M(n0).
fn bound_universal(check: &mut Check, out: &mut VerifyOutcome) -> Result<(), RunError> {
    if corollary_1(check, out)? {
        return Ok(());
    }
    let m = out.m;
    let b = out.depth;
    let bound = out.bound.expect("the bound procedure records n'");
    let replayed = out.checks[0]
        .stats
        .milp()
        .and_then(MilpStats::counterexample_agents);
    if let (None, Some(n0)) = (out.fails_from, replayed) {
        if n0 <= m {
            return Err(RunError::Internal(format!(
                "the abstract counterexample is said to replay in M({n0}), yet M({m}) satisfies the universal phi[{m}] \
                 (a counterexample needs more than {m} agents, by the monotonicity lemma): a bug"
            )));
        }
    }
    // Of two valid bounds the smaller.
    let replayed = replayed.filter(|&n0| n0 <= bound.n);
    let lemma = "by the monotonicity lemma so does every larger system";
    let (from, why) = match (out.fails_from, replayed) {
        (Some(n0), _) => (
            n0,
            format!("M_ab({m}) and M({n0}) have counterexamples; {lemma}"),
        ),
        (None, Some(n0)) => (
            n0,
            format!("M_ab({m}) has a counterexample, M({m}) does not; the abstract counterexample replays in M({n0}), and {lemma}"),
        ),
        (None, None) => (
            bound.n,
            format!(
                "M_ab({m}) has a counterexample, M({m}) does not; M(n') {b}-simulates M_ab({m}) for n' = {}, so M(n') has a counterexample (Theorem 1), and {lemma}",
                bound.describe(m, b)
            ),
        ),
    };
    out.fails_from = (from != usize::MAX).then_some(from);
    out.conclusion = if from == m {
        format!("{why}: fails for every n >= {m}; no emergence threshold")
    } else if from == m + 1 {
        format!("{why}: holds at n = {m}, fails for every n >= {from}; no emergence threshold")
    } else if out.fails_from.is_some() {
        format!(
            "{why}: holds at n = {m}, fails for every n >= {from} ({}..{} not checked); no emergence threshold",
            m + 1,
            from - 1
        )
    } else {
        format!(
            "{why}: fails for some n >= {}; no emergence threshold",
            m + 1
        )
    };
    Ok(())
}

/// Existential, bound procedure, M_ab(m) fails: so does every M(n), n > m
/// (Theorem 2), and M(m), checked (the monotonicity lemma says it must).
fn abstract_fails_existential(check: &mut Check, out: &mut VerifyOutcome) -> Result<(), RunError> {
    let m = out.m;
    let base = check(concrete(m))?;
    let base_holds = base.holds;
    out.checks.push(base);
    if base_holds {
        return Err(RunError::Internal(format!(
            "M({m}) satisfies the existential phi[{m}] but M_ab({m}) does not, although M_ab({m}) \
             simulates M({}) (Theorem 2): the monotonicity lemma is violated (a bug)",
            m + 1
        )));
    }
    out.holds_for_all_n = Some(false);
    out.emergence_threshold = None;
    out.fails_from = Some(m);
    out.conclusion = format!(
        "M_ab({m}) does not satisfy phi[{m}]: fails for every n >= {} (Theorem 2), and at n = {m} (checked; the monotonicity lemma): no emergence threshold",
        m + 1
    );
    Ok(())
}

/// Existential, bound procedure: M_ab(m) fails: every M(n) fails (Theorem 2
/// and the lemma); M_ab(m) holds: the first M(i), i = m, m+1, ..., that
/// holds is the emergence threshold, found by i = n' (Theorem 1).
fn bound_existential(
    ctx: &RunContext,
    cap: Option<usize>,
    check: &mut Check,
    out: &mut VerifyOutcome,
) -> Result<(), RunError> {
    out.corollary = "Theorems 1-2 and the monotonicity lemma (existential)";
    let m = out.m;
    let b = out.depth;
    let bound = out.bound.expect("the bound procedure records n'");
    if !out.checks[0].holds {
        return abstract_fails_existential(check, out);
    }
    let limit = cap.map_or(bound.n, |c| c.min(bound.n));
    let mut i = m;
    loop {
        if i > limit {
            if limit >= bound.n {
                return Err(RunError::Internal(format!(
                    "M_ab({m}) satisfies the existential phi[{m}] and M({}) {b}-simulates it, yet no M(i) with {m} <= i <= {} does (Theorem 1 is violated: a bug)",
                    bound.n, bound.n
                )));
            }
            let reason = format!(
                "no M(i) with {m} <= i <= {limit} satisfies phi[{m}] and the bound n' = {} is beyond --cap {limit}",
                bound.describe(m, b)
            );
            // M(m) was checked (i > limit >= m) and fails: not for every n.
            if limit >= m {
                out.refuted_threshold_unknown(m, reason);
            } else {
                out.undetermined(reason);
            }
            return Ok(());
        }
        if timed_out(ctx) {
            let reason = format!(
                "time-out before some M(i), {m} <= i <= {}, was found to satisfy phi[{m}]",
                bound.describe(m, b)
            );
            if i > m {
                out.refuted_threshold_unknown(m, reason);
            } else {
                out.undetermined(reason);
            }
            return Ok(());
        }
        let r = check(concrete(i))?;
        let holds = r.holds;
        out.checks.push(r);
        if holds {
            break;
        }
        // i < limit here unless limit = usize::MAX: n' overflowed, which
        // no run reaches before its time-out.
        i = i
            .checked_add(1)
            .ok_or_else(|| RunError::Internal("the number of agents overflows".into()))?;
    }
    out.holds_for_all_n = Some(i == m);
    out.emergence_threshold = Some(i);
    out.conclusion = if i == m {
        format!("M_ab({m}) and M({m}) satisfy phi[{m}]: holds for every n >= {m} (the monotonicity lemma)")
    } else {
        let below = if i == m + 1 {
            format!("M({m}) does not")
        } else {
            format!("M({m}), ..., M({}) do not", i - 1)
        };
        format!(
            "M_ab({m}) satisfies phi[{m}]; {below}, M({i}) does: holds for every n >= {i}, fails for {m} <= n < {i} (the monotonicity lemma)"
        )
    };
    Ok(())
}

#[cfg(test)]
#[path = "procedures_tests.rs"]
mod tests;
