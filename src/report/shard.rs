//! Sharded grids and sweeps, engine-neutral: which cells shard I of N
//! computes (balanced by each cell's estimated cost), the part a shard
//! writes (the usual report plus `shard` and `cells`), and the checks of
//! `mavis merge` (same model, query and version; every shard and every cell
//! exactly once). The engines name their cells, estimate their costs and
//! render a report from the cell results; this file knows none of them.

use super::part_schema::{self, Shape};
use super::RunError;
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// The most shards `--shard I/N` accepts.
pub const MAX_SHARDS: usize = 100_000;

/// `--shard I/N`: the I-th (from 1) of N shards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

/// Reads `I/N` with 1 <= I <= N <= [`MAX_SHARDS`] (clap's value parser).
pub fn parse_shard(text: &str) -> Result<Shard, String> {
    let bad = || format!("expected I/N with 1 <= I <= N <= {MAX_SHARDS}, found `{text}`");
    let (i, n) = text.split_once('/').ok_or_else(bad)?;
    let index: usize = i.trim().parse().map_err(|_| bad())?;
    let count: usize = n.trim().parse().map_err(|_| bad())?;
    if index == 0 || index > count || count > MAX_SHARDS {
        return Err(bad());
    }
    Ok(Shard { index, count })
}

/// The shard (from 0) of every cell: longest estimated cost first, each to
/// the shard with the least cost so far (the lowest index on ties), so the
/// assignment depends only on the costs. Every shard's total is at most
/// the mean plus the largest cost (the list-scheduling bound).
pub fn assign(costs: &[u64], count: usize) -> Vec<usize> {
    let count = count.max(1);
    let mut order: Vec<usize> = (0..costs.len()).collect();
    order.sort_by(|&a, &b| costs[b].cmp(&costs[a]).then(a.cmp(&b)));
    let mut load = vec![0u128; count];
    let mut owner = vec![0; costs.len()];
    for cell in order {
        let least = (0..count)
            .min_by_key(|&s| (load[s], s))
            .expect("at least one shard");
        load[least] += u128::from(costs[cell]);
        owner[cell] = least;
    }
    owner
}

/// The cells (indices into `costs`, in order) that `shard` computes;
/// without a shard, every cell.
pub fn cells_of(costs: &[u64], shard: Option<Shard>) -> Vec<usize> {
    match shard {
        None => (0..costs.len()).collect(),
        Some(s) => assign(costs, s.count)
            .into_iter()
            .enumerate()
            .filter(|&(_, owner)| owner == s.index - 1)
            .map(|(cell, _)| cell)
            .collect(),
    }
}

/// What a shard adds to its report: the shard, the query that identifies the
/// run (every option that changes a cell's result) and its cells' results by key.
#[derive(Clone, Debug)]
pub struct Part {
    pub shard: Shard,
    /// The cells of the whole grid.
    pub cells_total: usize,
    pub query: Value,
    /// (key, result) of every cell of this shard.
    pub cells: Vec<(String, Value)>,
}

impl Part {
    /// The values of the report's `shard` and `cells` keys ([`super::Report::part`]).
    pub fn into_keys(self) -> (Value, Value) {
        (self.shard_json(), self.cells_json())
    }

    /// The `shard` key of the report's JSON, with the checksum of the
    /// rest of it and of the cells ([`checksum`]).
    fn shard_json(&self) -> Value {
        let mut shard = json!({
            "index": self.shard.index,
            "count": self.shard.count,
            "cells_total": self.cells_total,
            "query": self.query,
        });
        shard["checksum"] = checksum(&shard, &self.cells_json()).into();
        shard
    }

    /// The `cells` key: each cell's key and result.
    fn cells_json(&self) -> Value {
        Value::Array(
            self.cells
                .iter()
                .map(|(key, result)| json!({ "key": key, "result": result }))
                .collect(),
        )
    }
}

/// The sha256 of a part's `shard` key (without its `checksum`) and its
/// `cells`, as JSON text: `mavis merge` recomputes it, so that a part
/// edited or cut short after it was written is refused.
fn checksum(shard: &Value, cells: &Value) -> String {
    let mut shard = shard.clone();
    if let Some(m) = shard.as_object_mut() {
        m.remove("checksum");
    }
    super::sha256_hex_of(&[
        shard.to_string().as_bytes(),
        b"\n",
        cells.to_string().as_bytes(),
    ])
}

/// Sets the checksum of a part's JSON to that of its content, as the verb
/// writes it (for tools that build parts; `mavis merge` refuses a part
/// whose checksum does not match).
pub fn seal(part: &mut Value) {
    let sum = checksum(&part["shard"], &part["cells"]);
    if let Some(shard) = part.get_mut("shard").and_then(Value::as_object_mut) {
        shard.insert("checksum".into(), sum.into());
    }
}

/// Each part's checksum against its content.
fn check_checksums(parts: &[PartFile]) -> Result<(), RunError> {
    for p in parts {
        let written = p.json["shard"]["checksum"].as_str();
        let computed = checksum(&p.json["shard"], &p.json["cells"]);
        if written != Some(computed.as_str()) {
            return Err(RunError::input(format!(
                "{}: its shard and cells do not match the checksum its run wrote: the part was changed after it was written",
                p.path.display()
            )));
        }
    }
    Ok(())
}

/// The parts of one run, checked: what they share and every cell's result.
#[derive(Debug)]
pub struct Merged {
    pub engine: String,
    pub command: String,
    /// The first part's `model` (path and sha256s).
    pub model: Value,
    pub query: Value,
    /// Every cell's result by key.
    pub cells: HashMap<String, Value>,
    /// Each part's `stats`.
    pub stats: Vec<Value>,
    /// The file each cell came from, for messages.
    pub origin: HashMap<String, PathBuf>,
    /// The shards (`I/N`) no part holds, when the merge was asked to go on
    /// without them (`mavis merge --allow-missing`).
    pub missing_shards: Vec<String>,
}

impl Merged {
    /// The sum of the parts' `stats[key]` (0 where a part has none): the
    /// time the shards took together.
    pub fn sum_stat(&self, key: &str) -> f64 {
        self.stats.iter().filter_map(|s| s[key].as_f64()).sum()
    }

    /// The results of `keys` in that order, each of the verb's `shape`: an
    /// error names the cells no part has, the cells the parts have beyond
    /// `keys`, or the file and the cell whose result is not of the shape.
    pub fn take(self, keys: &[String], shape: &Shape) -> Result<(Self, Vec<Value>), RunError> {
        for key in keys {
            if let (Some(result), Some(file)) = (self.cells.get(key), self.origin.get(key)) {
                part_schema::check(shape, result).map_err(|why| {
                    RunError::input(format!(
                        "{}: cell `{key}`: the result {why}",
                        file.display()
                    ))
                })?;
            }
        }
        self.take_unchecked(keys)
    }

    /// As [`Merged::take`], a cell of a missing shard `None`
    /// ([`Merged::missing_shards`]); a cell missing otherwise is refused.
    pub fn take_present(
        mut self,
        keys: &[String],
        shape: &Shape,
    ) -> Result<(Self, Vec<Option<Value>>), RunError> {
        if self.missing_shards.is_empty() {
            let (rest, values) = self.take(keys, shape)?;
            return Ok((rest, values.into_iter().map(Some).collect()));
        }
        let present: Vec<String> = keys
            .iter()
            .filter(|k| self.cells.contains_key(*k))
            .cloned()
            .collect();
        let missing = std::mem::take(&mut self.missing_shards);
        let (mut rest, mut values) = self.take(&present, shape)?;
        rest.missing_shards = missing;
        let mut drained = present.iter().zip(values.drain(..)).peekable();
        let mut out = Vec::with_capacity(keys.len());
        for key in keys {
            match drained.peek() {
                Some((k, _)) if *k == key => out.push(drained.next().map(|(_, v)| v)),
                _ => out.push(None),
            }
        }
        Ok((rest, out))
    }

    /// Refuses a merge with shards missing: the verb's merge draws them only
    /// for `nis table`.
    pub fn refuse_missing(&self) -> Result<(), RunError> {
        if self.missing_shards.is_empty() {
            return Ok(());
        }
        Err(RunError::input(format!(
            "{} (--allow-missing draws the cells of missing shards for `nis table` parts only)",
            missing_message(&self.missing_shards)
        )))
    }

    fn take_unchecked(mut self, keys: &[String]) -> Result<(Self, Vec<Value>), RunError> {
        let missing: Vec<&str> = keys
            .iter()
            .filter(|k| !self.cells.contains_key(*k))
            .map(String::as_str)
            .collect();
        if !missing.is_empty() {
            return Err(RunError::input(format!(
                "the parts do not cover every cell; missing: {}",
                list(&missing)
            )));
        }
        let values: Vec<Value> = keys
            .iter()
            .map(|k| self.cells.remove(k).expect("checked"))
            .collect();
        if !self.cells.is_empty() {
            let mut extra: Vec<&str> = self.cells.keys().map(String::as_str).collect();
            extra.sort_unstable();
            return Err(RunError::input(format!(
                "the parts have cells this query does not: {}",
                list(&extra)
            )));
        }
        Ok((self, values))
    }
}

/// At most twenty names, then how many more.
fn list(names: &[&str]) -> String {
    let shown: Vec<String> = names.iter().take(20).map(|n| format!("`{n}`")).collect();
    match names.len() {
        n if n > 20 => format!("{} and {} more", shown.join(", "), n - 20),
        _ => shown.join(", "),
    }
}

/// One part file read: its path (for messages) and its JSON.
pub struct PartFile<'a> {
    pub path: &'a Path,
    pub json: Value,
}

/// What two parts of one run must share, by the name a message uses.
fn identity(json: &Value) -> Vec<(&'static str, Value)> {
    let model = &json["model"];
    let networks: Vec<Value> = model["networks"]
        .as_array()
        .map(|ns| ns.iter().map(|n| json!([n["name"], n["sha256"]])).collect())
        .unwrap_or_default();
    vec![
        ("mavis version", json["version"].clone()),
        ("verb", json!([json["engine"], json["command"]])),
        ("model (sha256)", model["sha256"].clone()),
        ("networks (sha256)", Value::Array(networks)),
        ("shard count", json["shard"]["count"].clone()),
        ("cell count", json["shard"]["cells_total"].clone()),
    ]
}

/// The first query option (or the query itself) where `a` and `b` differ.
fn query_difference(a: &Value, b: &Value) -> Option<String> {
    match (a.as_object(), b.as_object()) {
        (Some(x), Some(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            keys.into_iter().find_map(|k| {
                let (u, v) = (x.get(k), y.get(k));
                (u != v).then(|| format!("option `{k}`: {} and {}", shown(u), shown(v)))
            })
        }
        _ => (a != b).then(|| format!("query: {a} and {b}")),
    }
}

fn shown(v: Option<&Value>) -> String {
    v.map_or("(absent)".into(), Value::to_string)
}

/// Checks that `parts` are the parts of one sharded run and gathers their
/// cells: the same version, verb, model, networks, shard count and query
/// (an error names the first difference and the two files), every shard
/// exactly once, and no cell in two parts. The coverage of the grid is
/// checked by [`Merged::take`] against the keys the engine expects.
/// With `allow_missing`, shards no part holds are named in
/// [`Merged::missing_shards`] instead of refused.
pub fn merge_parts(parts: &[PartFile], allow_missing: bool) -> Result<Merged, RunError> {
    let first = parts
        .first()
        .ok_or_else(|| RunError::input("merge needs at least one part"))?;
    for p in parts {
        if p.json.get("shard").is_none() || !p.json["cells"].is_array() {
            return Err(RunError::input(format!(
                "{} is not a part of a sharded run (no `shard` and `cells`): run the verb with --shard I/N --format json",
                p.path.display()
            )));
        }
        if p.json["verdict"] == "unknown" && p.json["command"] != "table" {
            return Err(RunError::input(format!(
                "{} stopped before all its cells were computed ({}): run its shard again",
                p.path.display(),
                p.json["warnings"][0].as_str().unwrap_or("unknown")
            )));
        }
    }
    let base = identity(&first.json);
    for p in &parts[1..] {
        for ((what, a), (_, b)) in base.iter().zip(identity(&p.json)) {
            if *a != b {
                return Err(RunError::input(format!(
                    "{} and {} are parts of different runs: different {what} ({a} and {b})",
                    first.path.display(),
                    p.path.display()
                )));
            }
        }
        if let Some(d) = query_difference(&first.json["shard"]["query"], &p.json["shard"]["query"])
        {
            return Err(RunError::input(format!(
                "{} and {} are parts of different runs: {d}",
                first.path.display(),
                p.path.display()
            )));
        }
    }
    let missing = check_shards(parts)?;
    if !missing.is_empty() && !allow_missing {
        return Err(RunError::input(missing_message(&missing)));
    }
    let mut merged = gather(parts)?;
    merged.missing_shards = missing;
    check_checksums(parts)?;
    Ok(merged)
}

/// `missing shard 2/3` or `missing shards 2/3, 3/3`.
pub fn missing_message(missing: &[String]) -> String {
    format!(
        "missing shard{} {}",
        if missing.len() == 1 { "" } else { "s" },
        missing.join(", ")
    )
}

/// Every shard index in 1..=N at most once; the indices no part has (`I/N`).
fn check_shards(parts: &[PartFile]) -> Result<Vec<String>, RunError> {
    let count = parts[0].json["shard"]["count"].as_u64().unwrap_or(0) as usize;
    let mut seen: BTreeMap<usize, &Path> = BTreeMap::new();
    for p in parts {
        let index = p.json["shard"]["index"].as_u64().unwrap_or(0) as usize;
        if index == 0 || index > count {
            return Err(RunError::input(format!(
                "{}: shard index {index} is not in 1..{count}",
                p.path.display()
            )));
        }
        if let Some(other) = seen.insert(index, p.path) {
            return Err(RunError::input(format!(
                "shard {index}/{count} is given twice: {} and {}",
                other.display(),
                p.path.display()
            )));
        }
    }
    let missing: Vec<String> = (1..=count)
        .filter(|i| !seen.contains_key(i))
        .map(|i| format!("{i}/{count}"))
        .collect();
    Ok(missing)
}

/// The parts' cells by key, refusing a key two parts both have.
fn gather(parts: &[PartFile]) -> Result<Merged, RunError> {
    let mut cells = HashMap::new();
    let mut from: HashMap<String, PathBuf> = HashMap::new();
    for p in parts {
        for cell in p.json["cells"].as_array().into_iter().flatten() {
            let key = cell["key"].as_str().unwrap_or_default().to_string();
            if let Some(other) = from.insert(key.clone(), p.path.to_path_buf()) {
                return Err(RunError::input(format!(
                    "cell `{key}` is in two parts: {} and {}",
                    other.display(),
                    p.path.display()
                )));
            }
            cells.insert(key, cell["result"].clone());
        }
    }
    let j = &parts[0].json;
    Ok(Merged {
        engine: j["engine"].as_str().unwrap_or_default().to_string(),
        command: j["command"].as_str().unwrap_or_default().to_string(),
        model: j["model"].clone(),
        query: j["shard"]["query"].clone(),
        cells,
        stats: parts.iter().map(|p| p.json["stats"].clone()).collect(),
        origin: from,
        missing_shards: Vec::new(),
    })
}

/// Reads the JSON object of a part file.
pub fn read_part(path: &Path) -> Result<Value, RunError> {
    let bytes = crate::lang::source::read_capped(path)
        .map_err(|e| RunError::input(format!("cannot read {}: {e}", path.display())))?;
    let json: Value = serde_json::from_slice(&bytes).map_err(|e| {
        RunError::input(format!(
            "{}:{}:{}: not a JSON report: {e}",
            path.display(),
            e.line(),
            e.column()
        ))
    })?;
    if json.is_object() {
        Ok(json)
    } else {
        Err(RunError::input(format!(
            "{}: not a JSON report (expected an object)",
            path.display()
        )))
    }
}

/// A query's field, for the engines' readers of [`Merged::query`]: an error
/// says the part lacks it (a part of another mavis, or edited by hand).
pub fn field<'a>(query: &'a Map<String, Value>, key: &str) -> Result<&'a Value, RunError> {
    query
        .get(key)
        .ok_or_else(|| RunError::input(format!("the parts' query has no `{key}`")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn shards_are_read_as_i_of_n() {
        assert_eq!(parse_shard("2/3"), Ok(Shard { index: 2, count: 3 }));
        for bad in ["0/3", "4/3", "3", "a/b", "1/0", "1/100001"] {
            assert!(parse_shard(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_costliest_cells_are_spread_first() {
        // By hand: 9 to shard 0, 7 to 1, 5 to 1 (7 < 9), 3 to 0 (9 < 12),
        // 1 to 0 (12 = 12, the lower index): loads 13 and 12.
        assert_eq!(assign(&[5, 9, 1, 7, 3], 2), vec![1, 0, 0, 1, 0]);
        // Equal costs: round-robin by index.
        assert_eq!(assign(&[4; 5], 3), vec![0, 1, 2, 0, 1]);
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() })]

        /// A number of a part file is read back as the f64 that was written
        /// (serde_json's `float_roundtrip`; without it a value may come
        /// back one unit in the last place off, and a merged report would
        /// differ from the unsharded one).
        #[test]
        fn numbers_of_a_part_read_back_exactly(bits in any::<u64>()) {
            let x = f64::from_bits(bits);
            prop_assume!(x.is_finite());
            let text = serde_json::json!({ "value": x }).to_string();
            let back: Value = serde_json::from_str(&text).unwrap();
            prop_assert_eq!(back["value"].as_f64().map(f64::to_bits), Some(bits), "{}", text);
        }

        /// Every cell is in exactly one shard; each shard's cost is at most
        /// the mean plus the largest cell's (list scheduling), hence at most
        /// twice the least possible largest shard; with equal costs the
        /// shards' sizes differ by at most one.
        #[test]
        fn every_cell_once_and_shards_balanced(
            costs in proptest::collection::vec(0u64..1_000, 0..60),
            count in 1usize..12,
        ) {
            let mut seen = vec![0; costs.len()];
            let mut loads = vec![0u64; count];
            for index in 1..=count {
                for cell in cells_of(&costs, Some(Shard { index, count })) {
                    seen[cell] += 1;
                    loads[index - 1] += costs[cell];
                }
            }
            prop_assert!(seen.iter().all(|&n| n == 1), "{seen:?}");
            let total: u64 = costs.iter().sum();
            let largest = costs.iter().copied().max().unwrap_or(0);
            let lower = largest.max(total.div_ceil(count as u64));
            for &l in &loads {
                prop_assert!(l * count as u64 <= total + largest * count as u64, "{loads:?}");
                prop_assert!(l <= 2 * lower, "{loads:?} against {lower}");
            }
            let flat = vec![1; costs.len()];
            let sizes: Vec<usize> = (1..=count)
                .map(|index| cells_of(&flat, Some(Shard { index, count })).len())
                .collect();
            let (lo, hi) = (sizes.iter().min().unwrap(), sizes.iter().max().unwrap());
            prop_assert!(hi - lo <= 1, "{sizes:?}");
            // The same costs give the same shards.
            prop_assert_eq!(assign(&costs, count), assign(&costs, count));
        }
    }
}
