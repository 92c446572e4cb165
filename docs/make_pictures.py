"""Draw the pictures of the documentation: the graph of ``theon.demo``.

Run from the repository root (it needs Graphviz's ``dot`` program)::

    python docs/make_pictures.py [folder]

It writes, next to this file (or into ``folder``):

* ``demo_graph.png``: the compiled function of ``python -m theon.demo``, after
  rewriting (the README shows it);
* ``demo_graph_built.png``: the same expression as the user built it, before
  rewriting.

The pictures are deterministic for a given Graphviz version, so re-running the
script changes them only when the graph or the drawing conventions change.
"""

from __future__ import annotations

import pathlib
import sys

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


def main(outdir: pathlib.Path = HERE) -> None:
    """Write the pictures into ``outdir`` (default: ``docs/``)."""
    e, f = demo_graph()
    print("e =", theon.pprint(e))
    print("compiled:", theon.pprint(f))
    pydotprint(f, outfile=str(outdir / "demo_graph.png"), var_with_name_simple=True,
               max_label_size=120)
    pydotprint(e, outfile=str(outdir / "demo_graph_built.png"), var_with_name_simple=True)


if __name__ == "__main__":
    main(pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
