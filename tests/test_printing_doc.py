"""docs/printing.md stays true: its pictures are the ones docs/make_pictures.py draws
(tests/test_docs.py runs its examples)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .test_printing_dot import PNG_SIGNATURE, decode_png

DOCS = Path(__file__).resolve().parents[1] / "docs"


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == PNG_SIGNATURE and data[12:16] == b"IHDR"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def test_the_committed_demo_pictures_are_valid_pngs() -> None:
    text = (DOCS / "printing.md").read_text()
    for name in ("demo_graph.png", "demo_graph_built.png"):
        assert f"]({name})" in text
        width, height = _png_size((DOCS / name).read_bytes())
        assert 200 <= width <= 3000 and 100 <= height <= 3000
    w, h, px = decode_png((DOCS / "demo_graph.png").read_bytes())
    assert (w, h) == _png_size((DOCS / "demo_graph.png").read_bytes()) and px.shape == (h, w, 3)


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot program is not installed")
def test_make_pictures_redraws_them(tmp_path) -> None:
    out = subprocess.run([sys.executable, str(DOCS / "make_pictures.py"), str(tmp_path)],
                         capture_output=True, text=True, check=True).stdout
    assert "compiled: exp(-sqr(x)) * sin(y) + log1p(sqr(x))" in out
    for name in ("demo_graph.png", "demo_graph_built.png"):
        new = _png_size((tmp_path / name).read_bytes())
        assert new == _png_size((DOCS / name).read_bytes())  # the committed picture's layout
