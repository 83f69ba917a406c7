"""A stand-in for the mavis binary in unit tests of the verification loop.

It pops the next canned answer from the JSON plan in $FAKE_MAVIS_PLAN (a list of
{"stdout": str, "exit": int, "stderr": str}), records its argv (and whether the
--network file existed) in $FAKE_MAVIS_CALLS, prints the answer and exits with it.
"""
import json
import os
import sys
from pathlib import Path

plan_path = Path(os.environ["FAKE_MAVIS_PLAN"])
plan = json.loads(plan_path.read_text())
answer = plan.pop(0) if plan else {"stdout": "", "exit": 99, "stderr": "fake mavis: plan exhausted"}
plan_path.write_text(json.dumps(plan))
argv = sys.argv[1:]
network = next((a.split("=", 1)[1] for a in argv if a.startswith("policy=")), None)
with open(os.environ["FAKE_MAVIS_CALLS"], "a") as f:
    f.write(json.dumps({"argv": argv, "network_exists": bool(network and Path(network).is_file())}) + "\n")
sys.stdout.write(answer["stdout"])
sys.stderr.write(answer.get("stderr", ""))
sys.exit(answer["exit"])
