//! The search loop: falsify the roots, then a depth-first branch and bound
//! over parts, run in waves of [`WAVE`] parts on a pool of worker threads.
//!
//! Determinism: a wave is the top [`WAVE`] parts of the stack, whatever the
//! number of threads; each part is processed on its own (its falsification
//! has a fixed seed), and the wave's results are taken in stack order: the
//! counterexample reported is the one of the first part in that order that
//! has one, and the children go back on the stack in that order. So
//! `--threads 1` and `--threads N` visit the same parts and give the same
//! answer, unless a time budget (the deadline, a leaf's budget) cuts in.

use super::falsify::{falsify, Hit};
use super::options::{Outcome, SearchOptions, SearchStats};
use super::problem::{Bounded, Leaf, Problem, Source};
use super::split::{can_split, halves, pick};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Mutex};
use std::time::Instant;

/// Parts per wave: fixed, so that the order of work does not depend on
/// the number of threads.
pub const WAVE: usize = 8;

/// The stack of a worker thread (HiGHS and deep recursion in the solver).
const WORKER_STACK: usize = 8 << 20;

/// The queue of jobs: a part and its index in its wave.
type Jobs<T> = Mutex<mpsc::Receiver<(usize, Node<T>)>>;

/// A part with what the driver tracks about it.
struct Node<T> {
    part: T,
    root: bool,
    /// The parent's unstable count after its bounds (`None` for a root or a branch child).
    parent_unstable: Option<usize>,
    /// Input splits in a row that did not lower the unstable count.
    stall: usize,
}

/// What processing one part gave.
enum Step<T, W> {
    Witness(W),
    Children(Vec<Node<T>>),
    /// Decided: nothing to do below this part.
    Closed,
    /// Left open for good, with the reason.
    Undecided(String),
    /// The deadline came first.
    Deadline,
    /// Not processed: an earlier part of its wave has a witness.
    Skipped,
}

/// One processed part: its outcome and its counters.
struct Done<P: Problem> {
    step: Step<P::Part, P::Witness>,
    stats: SearchStats,
    problem_stats: P::Stats,
}

/// The answer, the driver's counters and the problem's.
pub struct Search<P: Problem> {
    pub outcome: Outcome<P::Witness>,
    pub stats: SearchStats,
    pub problem_stats: P::Stats,
}

/// Decides `problem` (see the module documentation of [`super`]).
pub fn search<P: Problem>(problem: &P, opts: &SearchOptions) -> Search<P> {
    let start = Instant::now();
    let mut run = Search {
        outcome: Outcome::Holds,
        stats: SearchStats {
            threads: opts.threads.max(1),
            ..SearchStats::default()
        },
        problem_stats: P::Stats::default(),
    };
    let roots = problem.roots();
    if let Some(w) = falsify_roots(problem, &roots, opts, &mut run.stats) {
        run.outcome = Outcome::Violated(w);
    } else {
        let stack = roots
            .into_iter()
            .rev()
            .map(|part| Node {
                part,
                root: true,
                parent_unstable: None,
                stall: 0,
            })
            .collect();
        run.outcome = branch_and_bound(problem, stack, opts, &mut run);
    }
    run.stats.time_s = start.elapsed().as_secs_f64();
    run
}

/// The whole-box falsification of each root, within its share of the time.
fn falsify_roots<P: Problem>(
    problem: &P,
    roots: &[P::Part],
    opts: &SearchOptions,
    stats: &mut SearchStats,
) -> Option<P::Witness> {
    let t = Instant::now();
    let share = opts
        .deadline
        .remaining()
        .map(|r| t + r.mul_f64(opts.falsify_share));
    let stop = || share.is_some_and(|at| Instant::now() >= at);
    let mut found = None;
    for part in roots {
        let root = problem.root_of(part);
        let f = falsify(problem, root, problem.region(part), &opts.falsify, &stop);
        stats.samples += f.evaluations;
        if let Some(w) = f.hit.and_then(|h| replay_hit(problem, part, h)) {
            found = Some(w);
            break;
        }
    }
    stats.falsify_s += t.elapsed().as_secs_f64();
    found
}

fn replay_hit<P: Problem>(problem: &P, part: &P::Part, hit: Hit) -> Option<P::Witness> {
    problem.replay(part, hit.input, hit.source)
}

/// The branch and bound from `stack` (its top is processed first).
fn branch_and_bound<P: Problem>(
    problem: &P,
    mut stack: Vec<Node<P::Part>>,
    opts: &SearchOptions,
    run: &mut Search<P>,
) -> Outcome<P::Witness> {
    let threads = opts.threads.max(1);
    let mut undecided: Option<String> = None;
    let (job_tx, job_rx) = mpsc::channel::<(usize, Node<P::Part>)>();
    let (done_tx, done_rx) = mpsc::channel::<(usize, Done<P>)>();
    let job_rx = Mutex::new(job_rx);
    let cut = AtomicUsize::new(usize::MAX);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let (job_rx, cut, done_tx) = (&job_rx, &cut, done_tx.clone());
            std::thread::Builder::new()
                .name("search".into())
                .stack_size(WORKER_STACK)
                .spawn_scoped(scope, move || worker(problem, opts, job_rx, cut, done_tx))
                .expect("spawn a search worker");
        }
        drop(done_tx);
        let mut outcome = Outcome::Holds;
        while !stack.is_empty() {
            let wave: Vec<Node<P::Part>> = (0..WAVE).map_while(|_| stack.pop()).collect();
            let n = wave.len();
            cut.store(usize::MAX, Ordering::SeqCst);
            for job in wave.into_iter().enumerate() {
                job_tx.send(job).expect("the workers outlive the loop");
            }
            let mut results: Vec<Option<Done<P>>> = (0..n).map(|_| None).collect();
            for _ in 0..n {
                let (i, d) = done_rx.recv().expect("a worker answers every job");
                results[i] = Some(d);
            }
            let mut children = Vec::new();
            if let Some(end) = take_wave(problem, results, run, &mut children, &mut undecided) {
                outcome = end;
                break;
            }
            stack.extend(children.into_iter().rev());
            opts.meter.set_level(stack.len() as u64);
        }
        drop(job_tx);
        match (outcome, undecided) {
            (Outcome::Holds, Some(why)) => Outcome::Unknown(format!(
                "{why} (MILP points that do not replay: {})",
                run.stats.unreplayed
            )),
            (o, _) => o,
        }
    })
}

/// A worker: processes jobs until the channel closes.
fn worker<P: Problem>(
    problem: &P,
    opts: &SearchOptions,
    jobs: &Jobs<P::Part>,
    cut: &AtomicUsize,
    done: mpsc::Sender<(usize, Done<P>)>,
) {
    loop {
        let job = jobs.lock().expect("no worker panics holding it").recv();
        let Ok((i, node)) = job else { return };
        let d = if i > cut.load(Ordering::SeqCst) {
            Done {
                step: Step::Skipped,
                stats: SearchStats::default(),
                problem_stats: P::Stats::default(),
            }
        } else {
            let d = process(problem, node, opts);
            opts.meter.add(1);
            if matches!(d.step, Step::Witness(_)) {
                cut.fetch_min(i, Ordering::SeqCst);
            }
            d
        };
        if done.send((i, d)).is_err() {
            return;
        }
    }
}

/// Merges a wave's results in order: `Some(outcome)` ends the search.
fn take_wave<P: Problem>(
    problem: &P,
    results: Vec<Option<Done<P>>>,
    run: &mut Search<P>,
    children: &mut Vec<Node<P::Part>>,
    undecided: &mut Option<String>,
) -> Option<Outcome<P::Witness>> {
    let mut end = None;
    for d in results.into_iter().flatten() {
        run.stats.add(&d.stats);
        problem.merge(&mut run.problem_stats, d.problem_stats);
        if end.is_some() {
            continue;
        }
        match d.step {
            Step::Witness(w) => end = Some(Outcome::Violated(w)),
            Step::Deadline => end = Some(Outcome::Deadline),
            Step::Children(c) => children.extend(c),
            Step::Undecided(why) => {
                undecided.get_or_insert(why);
            }
            Step::Closed | Step::Skipped => {}
        }
    }
    end
}

/// One part: bounds, falsification, the leaf decision, then a split.
fn process<P: Problem>(problem: &P, mut node: Node<P::Part>, opts: &SearchOptions) -> Done<P> {
    let mut stats = SearchStats::default();
    let mut ps = P::Stats::default();
    let step = decide_part(problem, &mut node, opts, &mut stats, &mut ps)
        .unwrap_or_else(|| split_part(problem, node, opts, &mut stats));
    Done {
        step,
        stats,
        problem_stats: ps,
    }
}

/// Bounds, falsification and the leaf decision: `Some(step)` when they end
/// the part, `None` when it must be split (its stall count updated).
fn decide_part<P: Problem>(
    problem: &P,
    node: &mut Node<P::Part>,
    opts: &SearchOptions,
    stats: &mut SearchStats,
    ps: &mut P::Stats,
) -> Option<Step<P::Part, P::Witness>> {
    if opts.deadline.expired() {
        return Some(Step::Deadline);
    }
    stats.parts += 1;
    let t = Instant::now();
    let bounded = problem.bound(&mut node.part, node.root, ps);
    stats.bound_s += t.elapsed().as_secs_f64();
    let Bounded::Open { unstable } = bounded else {
        return Some(Step::Closed);
    };
    node.stall = match node.parent_unstable {
        Some(p) if unstable >= p => node.stall + 1,
        _ => 0,
    };
    node.parent_unstable = Some(unstable);
    if !node.root {
        let t = Instant::now();
        let stop = || opts.deadline.expired();
        let root = problem.root_of(&node.part);
        let region = problem.region(&node.part);
        let f = falsify(problem, root, region, &opts.part_falsify, &stop);
        stats.samples += f.evaluations;
        stats.falsify_s += t.elapsed().as_secs_f64();
        if let Some(w) = f.hit.and_then(|h| replay_hit(problem, &node.part, h)) {
            return Some(Step::Witness(w));
        }
    }
    let splittable = can_split(problem.region(&node.part));
    if unstable <= opts.leaf_unstable || !splittable {
        return leaf_step(problem, node, opts, stats, ps);
    }
    None
}

/// The leaf decision: `Some(step)` when it ends the part.
fn leaf_step<P: Problem>(
    problem: &P,
    node: &mut Node<P::Part>,
    opts: &SearchOptions,
    stats: &mut SearchStats,
    ps: &mut P::Stats,
) -> Option<Step<P::Part, P::Witness>> {
    stats.leaves += 1;
    let t = Instant::now();
    let leaf = problem.leaf(&mut node.part, node.root, opts.leaf_budget, ps);
    stats.leaf_s += t.elapsed().as_secs_f64();
    match leaf {
        Leaf::Refuted => Some(Step::Closed),
        Leaf::Candidate(x) => match problem.replay(&node.part, x, Source::Milp) {
            Some(w) => Some(Step::Witness(w)),
            None => {
                stats.unreplayed += 1;
                None
            }
        },
        Leaf::Stalled => None,
    }
}

/// Splits an open part: on the input box, or by a branch once input
/// splits stall (or the box is too small to split).
fn split_part<P: Problem>(
    problem: &P,
    node: Node<P::Part>,
    opts: &SearchOptions,
    stats: &mut SearchStats,
) -> Step<P::Part, P::Witness> {
    if opts.deadline.expired() {
        return Step::Deadline;
    }
    let region = problem.region(&node.part);
    let splittable = can_split(region);
    if !splittable || (opts.branch_after > 0 && node.stall >= opts.branch_after) {
        if let Some([a, b]) = problem.branch(&node.part) {
            stats.branches += 1;
            let child = |part| Node {
                part,
                root: false,
                parent_unstable: None,
                stall: 0,
            };
            return Step::Children(vec![child(a), child(b)]);
        }
    }
    if !splittable {
        return Step::Undecided("a box too small to split stays undecided".into());
    }
    let i = pick(
        region,
        &problem.influence(&node.part, opts.split),
        opts.split,
    );
    let (lo, hi) = halves(region, i);
    stats.input_splits += 1;
    let child = |r| Node {
        part: problem.restrict(&node.part, r),
        root: false,
        parent_unstable: node.parent_unstable,
        stall: node.stall,
    };
    Step::Children(vec![child(lo), child(hi)])
}
