import csv
import json
import os
import stat
import sys

import onnx
import pytest

import mavis_runner as mr
import verify_in_loop as vil

SPEC = "forall v1,v2: EX^3 ((alive,v1) & (alive,v2))"


def report(command, verdict, results, time_s=0.25, warnings=()):
    r = {"tool": "mavis", "version": "0.1.0", "engine": "nis", "command": command,
         "model": {"path": "examples/guarding/guarding.nis", "sha256": "00" * 32},
         "results": results, "stats": {"time_s": time_s}, "warnings": list(warnings)}
    if verdict is not None:
        r["verdict"] = verdict
    return json.dumps(r)


VERIFY_HOLDS = {"stdout": report("verify", "holds", {"holds_for_all_n": True, "emergence_threshold": 2}), "exit": 0}
VERIFY_VIOLATED = {"stdout": report("verify", "violated", {"holds_for_all_n": False, "emergence_threshold": 3}, 1.5),
                   "exit": 1}
CHECK_HOLDS = {"stdout": report("check", "holds", {"agents": 3, "holds": True}, 0.125), "exit": 0}
BAD_INPUT = {"stdout": report("verify", None, {}, 0.0, ["spec: unknown label 'alve'"]), "exit": 2,
             "stderr": "error: spec: unknown label 'alve'\n"}
UNKNOWN = {"stdout": report("verify", "unknown", {"holds_for_all_n": None, "emergence_threshold": None}, 30.0,
                            ["time limit reached"]), "exit": 3}


@pytest.fixture
def fake_mavis(tmp_path, monkeypatch):
    exe = tmp_path / "mavis"
    exe.write_text(f"#!{sys.executable}\n" + (vil.HERE / "tests" / "fake_mavis.py").read_text())
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    plan, calls = tmp_path / "plan.json", tmp_path / "calls.jsonl"
    monkeypatch.setenv("FAKE_MAVIS_PLAN", str(plan))
    monkeypatch.setenv("FAKE_MAVIS_CALLS", str(calls))

    def set_plan(answers):
        plan.write_text(json.dumps(answers))
        calls.write_text("")

    def read_calls():
        return [json.loads(line) for line in calls.read_text().splitlines()]

    return exe, set_plan, read_calls


def run(exe, command, agents=None, tmp_path=None):
    net = tmp_path / "n.onnx"
    net.write_bytes(b"x")
    return mr.run_query(exe, command, tmp_path / "m.nis", net, SPEC, agents=agents)


def test_exit_0_is_holds_with_threshold(fake_mavis, tmp_path):
    exe, set_plan, calls = fake_mavis
    set_plan([VERIFY_HOLDS])
    r = run(exe, "verify", tmp_path=tmp_path)
    assert (r.status, r.exit_code, r.holds_for_all_n, r.emergence_threshold, r.time_s) == ("holds", 0, True, 2, 0.25)
    argv = calls()[0]["argv"]
    assert argv[:3] == ["nis", "verify", str(tmp_path / "m.nis")]
    assert argv[argv.index("--network") + 1] == f"policy={tmp_path / 'n.onnx'}"
    assert argv[argv.index("--spec") + 1] == SPEC and argv[argv.index("--format") + 1] == "json"


def test_exit_1_is_violated(fake_mavis, tmp_path):
    exe, set_plan, _ = fake_mavis
    set_plan([VERIFY_VIOLATED])
    r = run(exe, "verify", tmp_path=tmp_path)
    assert (r.status, r.holds_for_all_n, r.emergence_threshold, r.time_s) == ("violated", False, 3, 1.5)


def test_check_passes_agents(fake_mavis, tmp_path):
    exe, set_plan, calls = fake_mavis
    set_plan([CHECK_HOLDS])
    r = run(exe, "check", agents=3, tmp_path=tmp_path)
    assert (r.status, r.agents, r.time_s) == ("holds", 3, 0.125)
    argv = calls()[0]["argv"]
    assert argv[argv.index("--agents") + 1] == "3"


@pytest.mark.parametrize("answer,needle", [
    (BAD_INPUT, "exit 2: bad input or usage: error: spec: unknown label 'alve'"),
    (UNKNOWN, "exit 3: unknown (time-out, limits or internal): time limit reached"),
    ({"stdout": "", "exit": 101, "stderr": "thread 'main' panicked"}, "exit 101: unexpected exit status"),
    ({"stdout": "not json", "exit": 0}, "not one JSON object"),
    ({"stdout": report("verify", "violated", {"holds_for_all_n": False, "emergence_threshold": None}), "exit": 0},
     "disagrees with the report's verdict 'violated'"),
    ({"stdout": report("check", "holds", {"agents": 3, "holds": True}), "exit": 0}, "command='check'"),
])
def test_errors_are_never_verdicts(fake_mavis, tmp_path, answer, needle):
    exe, set_plan, _ = fake_mavis
    set_plan([answer])
    r = run(exe, "verify", tmp_path=tmp_path)
    assert r.status == "error" and not r.is_verdict
    assert r.holds_for_all_n is None and r.emergence_threshold is None
    assert needle in r.error


def test_find_mavis(monkeypatch, tmp_path, fake_mavis):
    exe, _, _ = fake_mavis
    monkeypatch.setenv("MAVIS_BIN", str(exe))
    assert mr.find_mavis() == exe
    monkeypatch.setenv("MAVIS_BIN", str(tmp_path / "missing"))
    with pytest.raises(mr.MavisNotFound, match="MAVIS_BIN"):
        mr.find_mavis()


def loop_args(exe, tmp_path, *extra):
    model = tmp_path / "guarding.nis"
    model.write_text("// fake model\n")
    return ["--episodes", "20", "--verify-every", "10", "--mavis", str(exe), "--model", str(model),
            "--spec", SPEC, "--csv", str(tmp_path / "log.csv"), *extra]


def read_csv(tmp_path):
    with (tmp_path / "log.csv").open() as f:
        return list(csv.DictReader(f))


def test_loop_logs_verdicts_and_errors_and_keeps_best(fake_mavis, tmp_path, capsys):
    exe, set_plan, calls = fake_mavis
    # checkpoint 10: verify holds, check n=3 ends in exit 3; checkpoint 20: violated, check holds
    set_plan([VERIFY_HOLDS, UNKNOWN, VERIFY_VIOLATED, CHECK_HOLDS])
    best = tmp_path / "best.onnx"
    assert vil.main(loop_args(exe, tmp_path, "--check-agents", "3", "--keep-best", str(best))) == 0
    rows = read_csv(tmp_path)
    assert [(r["episode"], r["command"], r["agents"], r["status"]) for r in rows] == [
        ("10", "verify", "", "holds"), ("10", "check", "3", "error"),
        ("20", "verify", "", "violated"), ("20", "check", "3", "holds")]
    assert rows[0]["emergence_threshold"] == "2" and rows[0]["holds_for_all_n"] == "true"
    assert rows[1]["error"].startswith("exit 3") and rows[1]["exit_code"] == "3"
    assert rows[2]["emergence_threshold"] == "3" and rows[2]["time_s"] == "1.5"
    assert all(c["network_exists"] for c in calls())
    assert "best verified checkpoint: episode 10" in capsys.readouterr().out
    onnx.checker.check_model(onnx.load(str(best)))
    assert float(rows[0]["average_return"]) == float(rows[1]["average_return"])


def test_loop_stops_at_first_holding_checkpoint(fake_mavis, tmp_path):
    exe, set_plan, calls = fake_mavis
    set_plan([BAD_INPUT, VERIFY_HOLDS, VERIFY_HOLDS])
    args = loop_args(exe, tmp_path, "--stop-when-holds")
    args[1] = "40"  # 4 checkpoints available; it must stop after the second
    assert vil.main(args) == 0
    rows = read_csv(tmp_path)
    assert [(r["episode"], r["status"]) for r in rows] == [("10", "error"), ("20", "holds")]
    assert len(calls()) == 2


def test_loop_refuses_bad_options(fake_mavis, tmp_path, capsys):
    exe, _, _ = fake_mavis
    for extra in (["--verify-every", "0"], ["--check-agents", "0"], ["--mavis", str(tmp_path / "none")]):
        with pytest.raises(SystemExit) as e:
            vil.main(loop_args(exe, tmp_path) + extra)
        assert e.value.code == 2
    err = capsys.readouterr().err
    assert "--verify-every must be >= 1" in err and "mavis binary not found" in err


ROWS = [
    {"episode": 10, "average_return": -3.0, "command": "verify", "spec": SPEC, "agents": None, "status": "violated"},
    {"episode": 10, "average_return": -3.0, "command": "check", "spec": SPEC, "agents": 3, "status": "error"},
    {"episode": 20, "average_return": 41.5, "command": "verify", "spec": SPEC, "agents": None, "status": "holds"},
    {"episode": 20, "average_return": 41.5, "command": "check", "spec": SPEC, "agents": 3, "status": "holds"},
]


def test_plot_when_matplotlib_is_installed(tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "loop.png"
    assert vil.plot(ROWS, out, log=lambda m: None)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_without_matplotlib_says_so(tmp_path, monkeypatch):
    import builtins
    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name.startswith("matplotlib"):
            raise ImportError("no matplotlib")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    messages = []
    assert vil.plot(ROWS, tmp_path / "loop.png", log=messages.append) is False
    assert not (tmp_path / "loop.png").exists()
    assert "matplotlib is not installed" in messages[0]
