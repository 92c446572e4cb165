"""Draw the pictures of the documentation: the graph of ``theon.demo``, and the HTML
view of a 100-variable gradient.

Run from the repository root (it needs Graphviz's ``dot`` program, and for the last
picture playwright and Chromium: ``pip install 'theon[screenshots]'`` and
``apt-get install chromium``)::

    python docs/make_pictures.py [folder]

It writes, next to this file (or into ``folder``):

* ``demo_graph.png``: the compiled function of ``python -m theon.demo``, after
  rewriting (the README shows it);
* ``demo_graph_built.png``: the same expression as the user built it, before
  rewriting;
* ``d3viz_gradient100.png``: the HTML view (``theon.d3viz``) of the compiled
  gradient of a cost of 100 scalar variables, as it opens in a 1500x900 window
  (``docs/d3viz.md``).  ``tests/d3viz/test_fit.py`` takes the same screenshot.

The pictures are deterministic for a given Graphviz version, so re-running the
script changes them only when the graph or the drawing conventions change.
"""

from __future__ import annotations

import importlib.util
import pathlib
import shutil
import sys
import tempfile
from typing import Any

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the checkout's theon, not an installed one

import theon  # noqa: E402
import theon.tensor as tt  # noqa: E402
from theon.printing import pydotprint  # noqa: E402


def demo_graph() -> tuple[tt.TensorVariable, theon.compile.Function]:
    """The expression and the compiled function of ``theon/demo.py``."""
    x = tt.dvector("x")
    y = tt.dvector("y")
    e = tt.exp(-(x**2)) * tt.sin(y) + tt.log1p(x**2)
    e.name = "e"
    return e, theon.function([x, y], e)


#: the window of the HTML view's screenshots
VIEWPORT = {"width": 1500, "height": 900}


def gradient100() -> theon.compile.Function:
    """The gradient of a cost of 100 scalar variables (each times its neighbour,
    squared), compiled: 100 inputs and 100 outputs side by side."""
    xs = [tt.dscalar(f"x{i}") for i in range(100)]
    cost = sum((x * xs[i - 1]) ** 2 for i, x in enumerate(xs))
    cost.name = "cost"
    return theon.function(xs, theon.grad(cost, xs), name="gradient of 100 variables")


def shoot_html_view(browser: Any, fct: Any, outfile: pathlib.Path | None) -> dict[str, Any]:
    """Open the HTML view of ``fct`` in ``browser`` (playwright's Chromium) at
    :data:`VIEWPORT` and save a screenshot to ``outfile`` (if given); the view as it
    opened: the page's ``view`` (``k`` the scale, ``fitted`` what was fitted), the
    drawing's size and the canvas's."""
    from theon.d3viz import d3viz

    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(d3viz(fct, str(pathlib.Path(tmp) / "view.html")))
        context = browser.new_context(viewport=VIEWPORT)
        try:
            page = context.new_page()
            page.goto(path.as_uri())
            page.wait_for_selector("body[data-ready='1']", timeout=10000)
            state = page.evaluate("""() => {
                const b = document.getElementById("viewport").getBBox();
                const r = document.getElementById("canvas").getBoundingClientRect();
                return {view: window.theonD3viz.view, drawing: [b.width, b.height],
                        canvas: [r.width, r.height],
                        drawn: document.querySelectorAll("[data-node-id]").length};
            }""")
            if outfile is not None:
                page.screenshot(path=str(outfile))
        finally:
            context.close()
    return dict(state)


def gradient100_picture(outfile: pathlib.Path) -> None:
    """Write ``d3viz_gradient100.png`` (needs playwright and Chromium)."""
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        try:
            print("HTML view:", shoot_html_view(browser, gradient100(), outfile)["view"])
        finally:
            browser.close()


def main(outdir: pathlib.Path = HERE) -> None:
    """Write the pictures into ``outdir`` (default: ``docs/``)."""
    e, f = demo_graph()
    print("e =", theon.pprint(e))
    print("compiled:", theon.pprint(f))
    pydotprint(f, outfile=str(outdir / "demo_graph.png"), var_with_name_simple=True,
               max_label_size=120)
    pydotprint(e, outfile=str(outdir / "demo_graph_built.png"), var_with_name_simple=True)
    if importlib.util.find_spec("playwright") is None:
        print("d3viz_gradient100.png: not redrawn, it needs playwright and Chromium "
              "(pip install 'theon[screenshots]'; apt-get install chromium)")
        return
    gradient100_picture(outdir / "d3viz_gradient100.png")


if __name__ == "__main__":
    main(pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
