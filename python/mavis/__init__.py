"""mavis from Python: verify multi-agent systems of unknown size in process.

One function per CLI verb, in one module per engine (`mavis.lang`,
`mavis.nn`, `mavis.nis`, `mavis.swarm`, `mavis.timed`, `mavis.robust`), each
running the same Rust code as the `mavis` binary and returning its JSON
report as a `mavis.Report` (a dict). A verdict is a value; bad input raises
`mavis.InputError` with the CLI's located message, a failure of mavis
`mavis.InternalError`; at `timeout` the verdict is "unknown". The GIL is
released while a verb runs.

>>> import mavis
>>> r = mavis.nis.verify("examples/guarding/guarding.nis",
...                      spec="forall v1, v2: EX^3 (alive, v1) & (alive, v2)")
>>> r.verdict
'holds'
"""
from ._native import InputError, InternalError, Network, __version__
from ._report import Report
from . import lang, nis, nn, robust, swarm, timed

__all__ = ["InputError", "InternalError", "Network", "Report", "__version__",
           "lang", "nis", "nn", "robust", "swarm", "timed"]
