//! `mavis swarm export`: which form a model gets, and where its text goes.
//! S(n) and, where it has no global-synchronous action, the abstraction are
//! networks of modules, written without exploring
//! ([`crate::swarm::export::lower`]); otherwise the abstraction is explored
//! and written state by state. Each form has one printer per format.

use crate::swarm::decide::procedure;
use crate::swarm::export::{jani, lower, prism, Network};

/// The target language of `mavis swarm export`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// The PRISM language, module per agent (concrete) or one module (abstract).
    Prism,
    /// JANI (JSON): an automaton per agent (concrete), automata over counts
    /// (abstract), or one flat automaton over the explored states (abstract,
    /// with global-synchronous actions).
    Jani,
}

/// Where `mavis swarm export` writes: the model to `output` (or into the
/// report), the properties file of a PRISM export to `props_output` (by
/// default `output` with the extension `.props`); `quiet` (`-q`) leaves out
/// the "wrote ..." line, never the file.
pub struct Destination<'a> {
    pub output: Option<&'a std::path::Path>,
    pub props_output: Option<&'a std::path::Path>,
    pub quiet: bool,
}

/// `mavis swarm export`: writes the model text, and the properties the user
/// gave (`--props`, `--prop`) in the format's own syntax: a PRISM
/// properties file, a JANI file's `properties`.
pub fn export(
    inputs: &crate::swarm::front::load::Inputs,
    agents: Option<&[usize]>,
    threshold: u32,
    format: Format,
    to: &Destination,
    deadline: crate::report::Deadline,
) -> Result<crate::report::Report, crate::report::RunError> {
    let mut l = crate::swarm::front::load::load(inputs)?;
    let props = carried_properties(inputs, &mut l)?;
    let props_path = props_path(props.as_ref(), format, to)?;
    let counts = match agents {
        Some(a) => Some(procedure::counts_for(&l, a)?),
        None => None,
    };
    let what = system_name(counts.as_deref(), threshold);
    // Explore first: a refused or stopped export leaves no file behind.
    let mut plan = plan(&l, props.as_ref(), counts, threshold, format, deadline)?;
    let mut warnings = Vec::new();
    match (&mut plan, &props) {
        (Plan::Network(n), Some(p)) => n.queries = lower::queries(&l.model, p),
        (Plan::Explored(_), Some(_)) => warnings.push(
            "the properties are not written: the explicit form (an abstraction with global-synchronous actions) carries only the labels".to_string(),
        ),
        _ => {}
    }
    let mut sink = Sink::open(to.output, deadline)?;
    if let Err(e) = write(&l, &plan, format, &what, &mut sink) {
        return Err(sink.error(e));
    }
    let queries: &[crate::swarm::export::Query] = match &plan {
        Plan::Network(n) => &n.queries,
        Plan::Explored(_) => &[],
    };
    let props_file = match props_path {
        Some(path) if !queries.is_empty() => Some(write_properties(queries, &path, deadline)?),
        _ => None,
    };
    let mut r = finish(inputs, &what, sink, to)?;
    r.results["properties"] = serde_json::json!(queries.len());
    if let Some(path) = &props_file {
        r.results["properties_file"] = serde_json::json!(path.display().to_string());
        if !to.quiet {
            r.text.push_str(&format!(
                "wrote its {} properties to {}\n",
                queries.len(),
                path.display()
            ));
        }
    }
    r.warnings.extend(warnings);
    Ok(r)
}

/// The properties the user gave, parsed against the model (`None`: none
/// given). Definition 15's reading under `--faulty-fraction` (each property
/// after the agents' first round) has no PRISM or JANI form: refused.
fn carried_properties(
    inputs: &crate::swarm::front::load::Inputs,
    l: &mut crate::swarm::front::load::Loaded,
) -> Result<Option<crate::swarm::front::props::Properties>, crate::report::RunError> {
    if inputs.props.is_none() && inputs.prop_texts.is_empty() {
        return Ok(None);
    }
    let props = crate::swarm::front::load::load_props(inputs, l)?;
    if l.model.faulty_fraction.is_some() {
        return Err(crate::report::RunError::input(
            "--props/--prop with --faulty-fraction: Definition 15 reads each property from the agents' second round, which PRISM's and JANI's property syntax cannot say; export without the properties",
        ));
    }
    Ok(Some(props))
}

/// Where a PRISM export's properties go: `--props-output`, else `-o`'s name
/// with the extension `.props`. JANI carries them inside the model.
fn props_path(
    props: Option<&crate::swarm::front::props::Properties>,
    format: Format,
    to: &Destination,
) -> Result<Option<std::path::PathBuf>, crate::report::RunError> {
    if props.is_none() || format == Format::Jani {
        return Ok(None);
    }
    let path = match (to.props_output, to.output) {
        (Some(p), _) => p.to_path_buf(),
        (None, Some(o)) => o.with_extension("props"),
        (None, None) => {
            return Err(crate::report::RunError::input(
                "a PRISM export with properties writes them to a file of their own: give -o FILE (they go to FILE's name with .props) or --props-output FILE",
            ))
        }
    };
    if Some(path.as_path()) == to.output {
        return Err(crate::report::RunError::input(format!(
            "the properties file would overwrite the model {}: give --props-output FILE",
            path.display()
        )));
    }
    Ok(Some(path))
}

/// Writes the PRISM properties file, whole or not at all.
fn write_properties(
    queries: &[crate::swarm::export::Query],
    path: &std::path::Path,
    deadline: crate::report::Deadline,
) -> Result<std::path::PathBuf, crate::report::RunError> {
    let mut sink = Sink::open(Some(path), deadline)?;
    if let Err(e) = prism::write_queries(queries, &mut sink) {
        return Err(sink.error(e));
    }
    sink.finish()?;
    Ok(path.to_path_buf())
}

/// What is written: S(n) or the abstraction as a network, or the explored
/// abstraction; the abstraction names the agents the labels and the
/// properties read.
fn plan(
    l: &crate::swarm::front::load::Loaded,
    props: Option<&crate::swarm::front::props::Properties>,
    counts: Option<Vec<usize>>,
    threshold: u32,
    format: Format,
    deadline: crate::report::Deadline,
) -> Result<Plan, crate::report::RunError> {
    Ok(match counts {
        Some(c) => {
            if format == Format::Jani {
                jani_fits(&c)?;
            }
            if let Some(p) = props {
                agents_exist(p, &c)?;
            }
            Plan::Network(lower::concrete(l, &c))
        }
        None if procedure::cutoff_applies(l) => {
            procedure::check_threshold(threshold, l.model.templates.len(), EXPORT_MAX_STATES)?;
            let refs = props.map_or(&l.model.label_refs, |p| &p.refs);
            let named = procedure::named_agents(l, refs);
            let n = lower::abstraction(l, &named, threshold).ok_or_else(|| {
                crate::report::RunError::Internal(
                    "a global-synchronous action in a model the cutoff applies to".into(),
                )
            })?;
            Plan::Network(n)
        }
        None => {
            let explored =
                procedure::explore_model(l, None, threshold, true, EXPORT_MAX_STATES, deadline)?;
            Plan::Explored(Box::new(explored))
        }
    })
}

/// Refuses a property that names an agent S(counts) does not have (as
/// `check` does): the export would name a variable it does not declare.
fn agents_exist(
    props: &crate::swarm::front::props::Properties,
    counts: &[usize],
) -> Result<(), crate::report::RunError> {
    use crate::swarm::front::model::GlobalVar;
    for r in &props.refs {
        if let GlobalVar::Agent {
            template, agent, ..
        } = r
        {
            if *agent >= counts[*template] {
                return Err(crate::report::RunError::input(format!(
                    "a label or property names agent {} of template {} but --agents gives {}",
                    agent + 1,
                    template + 1,
                    counts[*template]
                )));
            }
        }
    }
    Ok(())
}

/// How an export is written: S(n), and the abstraction where the model
/// has no global-synchronous action, as a network of modules; otherwise
/// the explored abstraction state by state.
enum Plan {
    Network(Network),
    /// The explored abstraction, its labels' truth and its rewards.
    Explored(Box<procedure::ExploredModel>),
}

/// Writes the model text of `plan` in `format` to `sink`.
fn write(
    l: &crate::swarm::front::load::Loaded,
    plan: &Plan,
    format: Format,
    what: &str,
    sink: &mut Sink,
) -> std::io::Result<()> {
    match (plan, format) {
        (Plan::Network(n), Format::Prism) => prism::write_network(n, sink),
        (Plan::Network(n), Format::Jani) => jani::write_network(n, sink),
        (Plan::Explored(explored), Format::Prism) => {
            let (mdp, labels, rewards) = (&explored.mdp, &explored.labels, &explored.rewards);
            let what = format!("{what}, {} states", mdp.num_states());
            prism::write_explicit(&lower::explicit(mdp, labels, rewards, what), sink)
        }
        (Plan::Explored(explored), Format::Jani) => {
            let (mdp, labels, rewards) = (&explored.mdp, &explored.labels, &explored.rewards);
            let what = format!("{what} of {}, {} states", l.source.name(), mdp.num_states());
            jani::write_explicit(&lower::explicit(mdp, labels, rewards, what), sink)
        }
    }
}

/// The report of an export whose text is in `sink`: the file closed (or
/// the text in the report), what was written and its size.
fn finish(
    inputs: &crate::swarm::front::load::Inputs,
    what: &str,
    sink: Sink,
    to: &Destination,
) -> Result<crate::report::Report, crate::report::RunError> {
    let (output, quiet) = (to.output, to.quiet);
    let mut r = crate::report::Report::new("swarm", "export");
    r.model = crate::report::ModelRef::from_path(&inputs.model).ok();
    r.results = serde_json::json!({ "exported": what, "bytes": sink.bytes });
    match output {
        Some(path) => {
            sink.finish()?;
            if !quiet {
                r.text = format!("wrote {what} to {}\n", path.display());
            }
        }
        None => r.output = Some(String::from_utf8_lossy(&sink.finish()?).into_owned()),
    }
    Ok(r)
}

/// The exported system in words: S(n1, ...) or the abstract model.
fn system_name(counts: Option<&[usize]>, threshold: u32) -> String {
    match counts {
        Some(c) => format!(
            "S({})",
            c.iter()
                .map(|c| c.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        None => format!("the abstract model (threshold {threshold})"),
    }
}

/// S(n) with these agent counts is within JANI's limit.
fn jani_fits(counts: &[usize]) -> Result<(), crate::report::RunError> {
    let total: usize = counts.iter().sum();
    let most = jani::JANI_MAX_AGENTS;
    if total > most {
        return Err(crate::report::RunError::input(format!(
            "--to jani with {total} agents: the limit is {most} (JANI's synchronisation vectors name every automaton, so they grow with the square of the agents); use --to prism"
        )));
    }
    Ok(())
}

/// The most states `export` explores (the text is streamed; the explored
/// model with its exact probabilities stays in memory).
pub const EXPORT_MAX_STATES: usize = 5_000_000;

/// Where an export goes: a file written as it is produced, or memory (for
/// standard output), counting the bytes. Every write checks the run's deadline, so that writing a large model
/// stops with the rest of the run.
struct Sink {
    /// Written to a temporary file, renamed onto the name when complete
    /// ([`crate::report::output`]): a killed export leaves no truncated file.
    file: Option<(crate::report::output::AtomicFile, std::path::PathBuf)>,
    memory: Vec<u8>,
    bytes: usize,
    deadline: crate::report::Deadline,
}

impl Sink {
    fn open(
        output: Option<&std::path::Path>,
        deadline: crate::report::Deadline,
    ) -> Result<Self, crate::report::RunError> {
        let file = match output {
            Some(path) => {
                let f = crate::report::output::AtomicFile::create(path)
                    .map_err(|e| crate::report::output::cannot_write(path, e))?;
                Some((f, path.to_path_buf()))
            }
            None => None,
        };
        Ok(Sink {
            file,
            memory: Vec::new(),
            bytes: 0,
            deadline,
        })
    }

    /// The error of a failed write; a partial file is removed, so that a
    /// stopped export leaves no file behind.
    fn error(mut self, e: std::io::Error) -> crate::report::RunError {
        use crate::report::RunError;
        // Dropped uncommitted, the temporary file is removed.
        let path = self.file.take().map(|(f, path)| {
            drop(f);
            path
        });
        if e.kind() == std::io::ErrorKind::TimedOut {
            let removed = path.map_or(String::new(), |p| {
                format!("; nothing was written to {}", p.display())
            });
            return RunError::TimedOut(format!(
                "the time-out was reached while writing the export, after {} bytes{removed}",
                self.bytes
            ));
        }
        match path {
            Some(path) => RunError::input(format!("cannot write {}: {e}", path.display())),
            None => RunError::Internal(format!("export: {e}")),
        }
    }

    /// Flushes the file; returns what was kept in memory.
    fn finish(mut self) -> Result<Vec<u8>, crate::report::RunError> {
        if let Some((f, path)) = self.file.take() {
            f.commit()
                .map_err(|e| crate::report::output::cannot_write(&path, e))?;
        }
        Ok(std::mem::take(&mut self.memory))
    }
}

impl std::io::Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.deadline.expired() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the time-out was reached",
            ));
        }
        let n = match &mut self.file {
            Some((f, _)) => f.write(buf)?,
            None => self.memory.write(buf)?,
        };
        self.bytes += n;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match &mut self.file {
            Some((f, _)) => f.flush(),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Sink;
    use crate::report::{Deadline, RunError};
    use std::io::Write;
    use std::time::Duration;

    /// Writing the 88 MB JANI text of the foraging abstraction took 12 s
    /// past `--timeout 5`; now each write looks at the deadline, and the
    /// partial file is removed.
    #[test]
    fn a_write_past_the_deadline_stops_and_removes_the_partial_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.jani");
        let mut open = Sink::open(Some(&path), Deadline::NONE).unwrap();
        open.write_all(b"{\"jani-version\": 1}").unwrap();
        assert_eq!(open.bytes, 19);
        open.finish().unwrap();
        assert_eq!(std::fs::read(&path).unwrap().len(), 19);

        let mut late = Sink::open(Some(&path), Deadline::after(Duration::ZERO)).unwrap();
        let e = late.write_all(b"{").unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::TimedOut);
        match late.error(e) {
            RunError::TimedOut(m) => {
                assert!(
                    m.contains("after 0 bytes") && m.contains("nothing was written"),
                    "{m}"
                )
            }
            other => panic!("{other:?}"),
        }
        // The complete file of the first export stays as it was, and the
        // stopped one left no file of its own.
        assert_eq!(std::fs::read(&path).unwrap().len(), 19);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        // To standard output: nothing to remove, still a time-out.
        let mut memory = Sink::open(None, Deadline::after(Duration::ZERO)).unwrap();
        let e = memory.write_all(b"x").unwrap_err();
        assert!(matches!(memory.error(e), RunError::TimedOut(_)));
    }
}
