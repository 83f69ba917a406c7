"""Every example in the package's docstrings runs as a doctest (from the
repository root, with `mavis` and numpy as `np` in scope) and prints what
the docstring says."""
import doctest
import importlib
import inspect
import pkgutil

import numpy as np
import pytest

import mavis

MODULES = ["mavis"] + [f"mavis.{m.name}" for m in pkgutil.iter_modules(mavis.__path__)
                       if m.name != "_native"]
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def examples():
    finder = doctest.DocTestFinder(exclude_empty=True)
    for name in MODULES:
        module = importlib.import_module(name)
        for test in finder.find(module, name, extraglobs={"mavis": mavis, "np": np}):
            if test.examples:
                yield pytest.param(test, id=test.name)


@pytest.mark.parametrize("test", list(examples()))
def test_docstring_example(test):
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    runner.run(test, out=lambda text: print(text, end=""))
    assert runner.failures == 0, f"{test.name}: the example's output differs (see stdout)"


def test_every_public_function_has_an_example():
    """Each function of `__all__` of each engine module carries an example."""
    missing = []
    for name in ["mavis.nn", "mavis.nis", "mavis.swarm", "mavis.timed", "mavis.robust", "mavis.lang"]:
        module = importlib.import_module(name)
        for attr in getattr(module, "__all__", []):
            obj = getattr(module, attr)
            if inspect.isfunction(obj) and ">>>" not in (obj.__doc__ or ""):
                if getattr(obj, "__module__", name) == name:
                    missing.append(f"{name}.{attr}")
    assert not missing, missing
