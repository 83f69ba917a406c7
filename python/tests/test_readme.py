"""Every Python block of python/README.md runs as written, from the
repository root, one after the other in one namespace (as a reader would
paste them), and the quick start block is python/examples/quickstart.py."""
import re

from cli_reports import REPO

BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def test_every_python_block_of_the_readme_runs(capsys):
    text = (REPO / "python/README.md").read_text()
    blocks = BLOCK.findall(text)
    assert len(blocks) >= 3
    namespace = {}
    for i, block in enumerate(blocks):
        exec(compile(block, f"python/README.md, block {i + 1}", "exec"), namespace)
    out = capsys.readouterr().out
    assert "holds" in out.splitlines()[0]
