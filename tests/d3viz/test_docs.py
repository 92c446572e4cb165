"""docs/d3viz.md stays true: its code runs and writes the pages it says."""

from __future__ import annotations

import json
import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "d3viz.md"


def test_the_docs_code_runs(tmp_path, monkeypatch) -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    assert len(blocks) == 2
    monkeypatch.chdir(tmp_path)
    scope: dict = {}
    for code in blocks:
        exec(compile(code, str(DOC), "exec"), scope)
    for name in ("mlp.html", "f.html"):
        page = (tmp_path / name).read_text(encoding="utf-8")
        data = page.split('id="theon-data">', 1)[1].split("</script>", 1)[0]
        doc = json.loads(data)
        assert doc["counts"]["groups"] == 1  # the scan's inner graph
    rows = [dict(n["details"]) for n in doc["nodes"] if n["kind"] == "apply"
            and n["graph"] == "g0"]
    assert sorted(int(r["run order"]) for r in rows) == list(range(len(rows)))


def test_the_screenshot_is_there() -> None:
    assert "(d3viz_screenshot.png)" in DOC.read_text()
    png = DOC.parent / "d3viz_screenshot.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
