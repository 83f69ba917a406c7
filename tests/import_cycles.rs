//! `scripts/check_cycles.py` on small made-up crates (each cycle written by
//! hand, so the expected answer is known) and on this crate's own src/;
//! `scripts/check_json_imports.py` (serde_json only where reports are
//! rendered and JSON read) the same way.

use std::fs;
use std::path::Path;
use std::process::Command;

/// Runs the checker on a crate whose src/ holds `files` (path, text).
fn check(files: &[(&str, &str)], extra: &[&str]) -> (i32, String) {
    let files: Vec<(String, &str)> = files
        .iter()
        .map(|(p, t)| (format!("src/{p}"), *t))
        .collect();
    run_script("check_cycles.py", &files, extra)
}

/// Runs `scripts/SCRIPT` on a made-up repository of `files` (path from
/// its root, text): its exit status and its output.
fn run_script(script: &str, files: &[(String, &str)], extra: &[&str]) -> (i32, String) {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let p = dir.path().join(path);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scripts")
        .join(script);
    let out = Command::new("python3")
        .arg(script)
        .arg("--root")
        .arg(dir.path())
        .args(extra)
        .output()
        .expect("python3 runs");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    (out.status.code().unwrap_or(-1), text)
}

#[test]
fn a_two_file_cycle_through_use_fails_and_names_both_files() {
    let (code, out) = check(
        &[
            ("lib.rs", "pub mod a;\npub mod b;\n"),
            ("a.rs", "use crate::b::B;\npub struct A;\n"),
            (
                "b.rs",
                "pub struct B;\npub fn f() -> crate::a::A { crate::a::A }\n",
            ),
        ],
        &[],
    );
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("import cycle: src/a.rs -> src/b.rs -> src/a.rs"),
        "{out}"
    );
}

#[test]
fn an_acyclic_crate_passes_with_grouped_and_relative_paths() {
    let (code, out) = check(
        &[
            ("lib.rs", "pub mod x;\n"),
            (
                "x/mod.rs",
                "mod p;\nmod q;\npub use p::P;\nuse q::{Q, R as S};\n",
            ),
            (
                "x/p.rs",
                "// crate::x::q would be a cycle, but this is a comment\npub struct P;\n",
            ),
            (
                "x/q.rs",
                "use super::p::P;\npub struct Q(P);\npub struct R;\n",
            ),
        ],
        &[],
    );
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("0 cycles"), "{out}");
}

#[test]
fn a_child_using_its_parents_own_item_is_a_cycle_but_a_reexport_is_not() {
    // The parent defines T and uses the child: child -> parent -> child.
    let own = [
        ("lib.rs", "pub mod m;\n"),
        ("m/mod.rs", "mod c;\npub struct T;\npub fn g() { c::h() }\n"),
        ("m/c.rs", "pub fn h() { let _ = super::T; }\n"),
    ];
    let (code, out) = check(&own, &[]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("src/m/c.rs -> src/m/mod.rs -> src/m/c.rs"),
        "{out}"
    );
    // T re-exported from a third file: the child depends on that file only.
    let reexport = [
        ("lib.rs", "pub mod m;\n"),
        (
            "m/mod.rs",
            "mod c;\nmod t;\npub use t::T;\npub fn g() { c::h() }\n",
        ),
        ("m/t.rs", "pub struct T;\n"),
        ("m/c.rs", "pub fn h() { let _ = super::T; }\n"),
    ];
    let (code, out) = check(&reexport, &[]);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn test_modules_and_layer_cycles() {
    let files = [
        ("lib.rs", "pub mod low;\npub mod high;\n"),
        // Test code may use anything without making a cycle.
        (
            "low/mod.rs",
            "pub mod v;\n#[cfg(test)]\nmod tests;\n#[cfg(test)]\nmod inline { use crate::high::H; }\n",
        ),
        ("low/tests.rs", "use crate::high::H;\n"),
        ("low/v.rs", "pub struct V;\n"),
        ("high/mod.rs", "pub struct H(pub crate::low::v::V);\n"),
    ];
    let (code, out) = check(&files, &[]);
    assert_eq!(code, 0, "{out}");
    // A lower layer naming a higher one through other files: a layer cycle.
    let mut layered = files.to_vec();
    layered[3] = (
        "low/v.rs",
        "pub struct V;\npub fn up() { let _ = crate::high::w::W; }\n",
    );
    layered.push(("high/w.rs", "pub struct W;\n"));
    layered[4] = (
        "high/mod.rs",
        "pub mod w;\npub struct H(pub crate::low::v::V);\n",
    );
    let (code, out) = check(&layered, &[]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("layer cycle: high -> low -> high"), "{out}");
    assert!(out.contains("low -> high: src/low/v.rs"), "{out}");
}

/// An engine `e` with three layers (low, mid, the rest); `mid.rs` names
/// `body` (Rust) besides its own item.
fn layered(body: &str) -> Vec<(&'static str, String)> {
    vec![
        ("lib.rs", "pub mod e;\n".into()),
        (
            "e/mod.rs",
            "pub mod low;\npub mod mid;\npub mod top;\n".into(),
        ),
        ("e/low/mod.rs", "pub mod a;\n".into()),
        ("e/low/a.rs", "pub struct A;\n".into()),
        ("e/mid.rs", format!("pub struct M;\n{body}")),
        ("e/top.rs", "pub struct T;\n".into()),
        (
            "../scripts/engine_layers.txt",
            "# comment\n[e]\nlow low/\nmid mid.rs\nrest *\n".into(),
        ),
    ]
}

#[test]
fn an_import_of_a_higher_layer_of_the_same_engine_fails() {
    let down = layered("pub fn f() -> crate::e::low::a::A { crate::e::low::a::A }\n");
    let files: Vec<(&str, &str)> = down.iter().map(|(p, t)| (*p, t.as_str())).collect();
    let (code, out) = check(&files, &[]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("0 upward imports in 1 layered engine"),
        "{out}"
    );
    // mid names top (the catch-all layer above it): no cycle, but upward.
    let up = layered("pub fn g(_: crate::e::top::T) {}\n");
    let files: Vec<(&str, &str)> = up.iter().map(|(p, t)| (*p, t.as_str())).collect();
    let (code, out) = check(&files, &[]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("upward import in e: src/e/mid.rs (mid) names src/e/top.rs (rest)"),
        "{out}"
    );
    assert!(out.contains(" 0 cycles"), "{out}");
}

#[test]
fn a_test_module_declared_with_a_path_may_import_anything() {
    let files = [
        ("lib.rs", "pub mod a;\npub mod b;\n"),
        (
            "a.rs",
            "pub struct A;\n#[cfg(test)]\n#[path = \"a_tests.rs\"]\nmod tests;\n",
        ),
        ("a_tests.rs", "use crate::b::B;\n"),
        ("b.rs", "pub struct B(pub crate::a::A);\n"),
    ];
    let (code, out) = check(&files, &[]);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn this_crate_has_no_cycle_outside_the_allow_list() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/check_cycles.py");
    let out = Command::new("python3").arg(script).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(!text.contains("stale"), "{text}");
}

/// A made-up crate whose `engine/core.rs` has `core` as its code, beside
/// a verb that renders JSON; serde_json is allowed under `*/verbs/` only.
fn json_crate(core: &str) -> Vec<(String, &str)> {
    vec![
        ("src/lib.rs".into(), "pub mod engine;\n"),
        (
            "src/engine/mod.rs".into(),
            "pub mod core;\npub mod verbs;\n#[cfg(test)]\nmod tests;\n",
        ),
        ("src/engine/core.rs".into(), core),
        (
            "src/engine/verbs/mod.rs".into(),
            "use serde_json::json;\npub fn f() -> String { json!(1).to_string() }\n",
        ),
        (
            "src/engine/tests.rs".into(),
            "use serde_json::Value;\n#[test]\nfn t() { let _: Value = 1.into(); }\n",
        ),
        (
            "scripts/json_imports_allowed.txt".into(),
            "# the verbs render\n*/verbs/\n",
        ),
    ]
}

#[test]
fn serde_json_outside_the_allowed_files_fails_and_names_the_file() {
    let core =
        "pub struct Outcome;\n\npub fn g() -> serde_json::Value { serde_json::Value::Null }\n";
    let (code, out) = run_script("check_json_imports.py", &json_crate(core), &[]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("src/engine/core.rs:3: names serde_json"),
        "{out}"
    );
    assert!(
        !out.contains("verbs"),
        "an allowed file is not named: {out}"
    );
    assert!(!out.contains("tests.rs"), "a test file is not named: {out}");
}

#[test]
fn serde_json_in_comments_strings_and_test_modules_passes() {
    let core = "// serde_json is not needed here\npub const S: &str = \"serde_json\";\n\
                #[cfg(test)]\nmod t {\n    use serde_json::json;\n}\n";
    let (code, out) = run_script("check_json_imports.py", &json_crate(core), &[]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("0 naming serde_json"), "{out}");
}

#[test]
fn this_crate_names_serde_json_only_where_it_renders_or_reads_json() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/check_json_imports.py");
    let out = Command::new("python3")
        .arg(script)
        .output()
        .expect("python3 runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
}
