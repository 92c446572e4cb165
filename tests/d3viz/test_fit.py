"""A very wide or very long graph opens legibly in the HTML view: the layout folds
it into rows (columns), and the page fits the width (zooms to the height) at a
readable scale.  The layout checks run anywhere; the browser checks take a headless
Chromium screenshot, which is also the picture of ``docs/d3viz.md``
(``docs/d3viz_gradient100.png``, drawn by ``docs/make_pictures.py`` too)."""

from __future__ import annotations

import importlib.util
import itertools
import shutil
from pathlib import Path

import pytest

import theon.tensor as tt
from theon.d3viz import build_document
from theon.d3viz.fold import ROW, fold
from theon.d3viz.layout import layout

ROOT = Path(__file__).resolve().parents[2]
PICTURE = ROOT / "docs" / "d3viz_gradient100.png"
#: the scale at which the page's labels are readable: it never opens below it
READABLE = 0.45


def _pictures():
    spec = importlib.util.spec_from_file_location("make_pictures", ROOT / "docs" /
                                                  "make_pictures.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _boxes(lay):
    return {v: (lay.x[v] - w / 2, lay.y[v] - h / 2, lay.x[v] + w / 2, lay.y[v] + h / 2)
            for v, (w, h) in lay.size.items()}


def _apart(a, b) -> bool:
    return a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]


def test_a_wide_layout_folds_into_rows_that_keep_their_shape() -> None:
    # 120 inputs, each with its own consumer, a chain of neighbours between them
    nodes = [f"i{k}" for k in range(120)] + [f"c{k}" for k in range(120)]
    edges = [(f"i{k}", f"c{k}") for k in range(120)]
    edges += [(f"i{k - 1}", f"c{k}") for k in range(1, 120)]
    sizes = {v: (70.0, 24.0) for v in nodes}
    flat = layout(nodes, sizes, edges)
    lay = layout(nodes, sizes, edges)
    assert lay.width > 4 * ROW
    n = fold(lay)
    assert n >= 4 and lay.width < 1.5 * ROW and lay.height > n * 2 * 24
    boxes = _boxes(lay)
    for a, b in itertools.combinations(boxes.values(), 2):
        assert _apart(a, b)
    for x0, y0, x1, y1 in boxes.values():
        assert 0 <= x0 and x1 <= lay.width and 0 <= y0 and y1 <= lay.height
    # every edge still goes down within its row; a row moved as one block
    rows = sorted({round(lay.y[v]) for v in nodes if v.startswith("i")})
    assert len(rows) == n
    moved = {}
    for k, (a, b) in enumerate(lay.edges):
        dx, dy = lay.x[a] - flat.x[a], lay.y[a] - flat.y[a]
        if round(lay.y[b] - lay.y[a]) == round(flat.y[b] - flat.y[a]):  # the same row
            assert (lay.x[b] - flat.x[b], lay.y[b] - flat.y[b]) == pytest.approx((dx, dy))
            assert lay.routes[k] == pytest.approx(
                [(px + dx, py + dy) for px, py in flat.routes[k]])
            moved[a] = (dx, dy)
        else:  # from one row to another: drawn straight
            assert lay.routes[k] == [] and k in lay.straight
    assert len(set(moved.values())) == n
    assert sum(k in lay.straight for k in range(len(edges))) <= 2 * (n - 1)


def test_a_long_chain_folds_into_columns() -> None:
    x = tt.dvector("x")
    y = x
    for i in range(120):
        y = tt.sin(y) * (i + 1) if i % 2 else tt.exp(y)
    doc = build_document(y)
    g = doc["graphs"][0]
    assert g["bands"] > 3 and g["height"] < 2000 and g["width"] > g["height"]
    nodes = [n for n in doc["nodes"] if n["graph"] == g["id"]]
    for a, b in itertools.combinations(nodes, 2):
        ba = (a["x"] - a["w"] / 2, a["y"] - a["h"] / 2, a["x"] + a["w"] / 2, a["y"] + a["h"] / 2)
        bb = (b["x"] - b["w"] / 2, b["y"] - b["h"] / 2, b["x"] + b["w"] / 2, b["y"] + b["h"] / 2)
        assert _apart(ba, bb), (a["label"], b["label"])


def test_small_graphs_are_not_folded() -> None:
    x = tt.dvector("x")
    doc = build_document((tt.exp(x) * 2).sum())
    assert doc["graphs"][0]["bands"] == 1


def test_the_gradient_of_100_variables_is_folded() -> None:
    doc = build_document(_pictures().gradient100())
    g = doc["graphs"][0]
    assert g["bands"] >= 5 and g["width"] < 1.5 * ROW
    assert sum(n["kind"] == "input" for n in doc["nodes"]) == 100
    assert sum(n["kind"] == "output" for n in doc["nodes"]) == 100


# ---- in a browser --------------------------------------------------------------------

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip(
        "playwright.sync_api",
        reason="the browser test needs playwright: pip install 'theon[screenshots]'")
    if CHROMIUM is None:
        pytest.skip("the browser test needs headless Chromium (apt-get install chromium)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


def test_the_gradient_of_100_variables_opens_with_its_width_fitted(browser) -> None:
    pics = _pictures()
    f = pics.gradient100()
    doc = build_document(f)
    got = pics.shoot_html_view(browser, f, PICTURE)
    view, (bw, bh), (cw, ch) = got["view"], got["drawing"], got["canvas"]
    assert got["drawn"] == len(doc["nodes"])
    # the rows fill the canvas's width at a readable scale; read from the top down
    assert view["fitted"] == "width"
    assert view["k"] >= READABLE
    assert view["k"] == pytest.approx((cw - 30) / bw, rel=1e-6)
    assert bw * view["k"] <= cw and bh * view["k"] > ch  # (the rest is below)
    assert PICTURE.stat().st_size > 50_000


def test_a_long_chain_opens_zoomed_to_its_height(browser) -> None:
    x = tt.dvector("x")
    y = x
    for i in range(120):
        y = tt.sin(y) * (i + 1) if i % 2 else tt.exp(y)
    got = _pictures().shoot_html_view(browser, y, None)
    view, (_, bh), (_, ch) = got["view"], got["drawing"], got["canvas"]
    assert view["fitted"] == "height" and view["k"] >= READABLE
    assert view["k"] == pytest.approx((ch - 30) / bh, rel=1e-6)


def test_a_graph_that_fits_opens_whole(browser) -> None:
    x = tt.dvector("x")
    got = _pictures().shoot_html_view(browser, (tt.exp(x) * 2).sum(), None)
    view, (bw, bh), (cw, ch) = got["view"], got["drawing"], got["canvas"]
    assert view["fitted"] == "all" and view["k"] == pytest.approx(1.5)
    assert bw * 1.5 <= cw and bh * 1.5 <= ch
