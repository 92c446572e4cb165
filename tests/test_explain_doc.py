"""docs/explain.md stays true: its Python blocks are one script, ``demo.py``, and the
``text`` block after each Python block is exactly what that block prints.

``python tests/test_explain_doc.py`` rewrites the text blocks from a run.
"""

from __future__ import annotations

import contextlib
import io
import linecache
import re
from pathlib import Path

DOC_PATH = Path(__file__).resolve().parents[1] / "docs" / "explain.md"
FENCE = re.compile(r"```python\n(.*?)```\n\n```text\n(.*?)```\n", re.S)
SCRIPT = "demo.py"


def render(doc: str) -> str:
    """``doc`` with each text block replaced by the output of the Python block before it."""
    blocks = FENCE.findall(doc)
    source = "".join(code for code, _ in blocks)
    # the script's lines, for the quoted code in explain's output
    lines = source.splitlines(keepends=True)
    linecache.cache[SCRIPT] = (len(source), None, lines, SCRIPT)
    namespace: dict[str, object] = {"__name__": "__main__"}
    outputs = []
    first = 1
    for code, _ in blocks:
        # each block compiled at its own lines of the script, so tracebacks and traces agree
        padded = "\n" * (first - 1) + code
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            exec(compile(padded, SCRIPT, "exec"), namespace)
        outputs.append(buf.getvalue())
        first += code.count("\n")
    parts = iter(outputs)
    return FENCE.sub(
        lambda m: f"```python\n{m.group(1)}```\n\n```text\n{next(parts)}```\n", doc
    )


def test_the_page_shows_what_theon_prints() -> None:
    doc = DOC_PATH.read_text()
    assert len(FENCE.findall(doc)) == 6
    assert render(doc) == doc, "docs/explain.md is stale: run python tests/test_explain_doc.py"


def test_the_page_shows_fusion_and_the_scripts_lines() -> None:
    doc = DOC_PATH.read_text()
    assert "[fusion] elemwise_fusion of:" in doc
    assert "demo.py:7 in <module>    e = tt.exp(-(x**2)) * tt.sin(y) + tt.log1p(x**2)" in doc
    assert "built at demo.py:10 in <module> (gradient of exp built at demo.py:7" in doc
    assert "the input 'x' was built at demo.py:5 in <module>" in doc


if __name__ == "__main__":
    DOC_PATH.write_text(render(DOC_PATH.read_text()))
