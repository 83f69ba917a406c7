"""mavis from Python: verify multi-agent systems of unknown size in process.

One function per CLI verb, in one module per engine (`mavis.lang`,
`mavis.nn`, `mavis.nis`, `mavis.swarm`, `mavis.timed`, `mavis.robust`), each
running the same Rust code as the `mavis` binary and returning a
`mavis.Report`: the verdict, the witness as a `mavis.Trace` of `mavis.Step`s
(or a `mavis.Counterexample`), the statistics as attributes (`mavis.Stats`),
`to_dataframe()` for tables, and `to_dict()`, the CLI's JSON report (the
report is that dict too). A verdict is a value; bad input raises
`mavis.InputError` with the CLI's located message, a failure of mavis
`mavis.InternalError`; at `timeout` the verdict is "unknown". The GIL is
released while a verb runs.

>>> import mavis
>>> r = mavis.nis.verify("examples/guarding/guarding.nis",
...                      spec="forall v1, v2: EX^3 (alive, v1) & (alive, v2)")
>>> r.verdict, r.results["emergence_threshold"]
('violated', 3)

Bad input names the place and the parameter:

>>> try:
...     mavis.nis.check("examples/guarding/guarding.nis", "forall v1: EX^1 (alve, v1)", agents=2)
... except mavis.InputError as e:
...     print(e, "|", e.file, e.line, e.column)
<spec>:1:17: unknown label `alve` (the model has: alive, dead) | <spec> 1 17
"""
from ._errors import InputError, InternalError
from ._native import Network, __version__
from ._record import Stats
from ._report import Report, Verdict
from ._witness import Counterexample, Step, Trace, Witness
from . import lang, nis, nn, robust, swarm, timed

__all__ = ["Counterexample", "InputError", "InternalError", "Network", "Report", "Stats", "Step",
           "Trace", "Verdict", "Witness", "__version__", "lang", "nis", "nn", "robust", "swarm",
           "timed"]
