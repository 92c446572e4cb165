"""An interactive view of a graph: one self-contained HTML file.

``theon.d3viz.d3viz(f, "graph.html")`` (or ``theon.d3viz(f, "graph.html")``:
the module is callable, as Theano's ``theano.d3viz.d3viz``) writes a page that
draws the compiled graph of ``f``.  Pan by dragging, zoom with the wheel or the
buttons, hover a node for its Op, type, shape and the line that built it, click
it for the details panel, collapse the inner graphs of scan or OpFromGraph.
The page has its script and style inline and loads nothing: it works offline and
can be mailed as it is.  The layout is computed here, in Python
(:mod:`theon.d3viz.layout`); see ``docs/d3viz.md``.

>>> import os, tempfile, theon, theon.tensor as tt
>>> x = tt.dvector("x")
>>> f = theon.function([x], tt.exp(x).sum())
>>> path = os.path.join(tempfile.mkdtemp(), "f.html")
>>> theon.d3viz.d3viz(f, path) == path
True
>>> open(path).read(15)
'<!DOCTYPE html>'
"""

import json as _json
import sys as _sys
import types as _types
from typing import Any as _Any

from theon.d3viz.model import ExtraInfo, build_document
from theon.d3viz.page import render_page

__all__ = ["ExtraInfo", "build_document", "d3viz", "d3write", "render_page"]


def d3viz(fct: _Any, outfile: str, copy_deps: bool = True, *,
          extra: ExtraInfo | None = None, title: str | None = None) -> str:
    """Write an interactive HTML view of a graph to ``outfile``.

    Parameters
    ----------
    fct
        A compiled function (its rewritten graph is drawn), a FunctionGraph, an
        Apply node, a Variable or a list of Variables (the symbolic graph).
    outfile
        The path of the ``.html`` file to write.
    copy_deps
        Accepted for Theano's signature and ignored: the page has no files to copy.
    extra
        Optional ``extra(node) -> {key: text}``: entries added to each Apply
        node's tooltip and details panel.
    title
        The page's title.

    Returns
    -------
    str
        ``outfile``.

    >>> import os, tempfile, theon.tensor as tt
    >>> y = tt.dscalar("y")
    >>> out = os.path.join(tempfile.mkdtemp(), "g.html")
    >>> d3viz(2 * y, out, extra=lambda node: {"note": "doubles"}, title="twice") == out
    True
    >>> "twice" in open(out).read()
    True
    """
    page = render_page(build_document(fct, extra=extra, title=title))
    with open(outfile, "w", encoding="utf-8") as fh:
        fh.write(page)
    return outfile


def d3write(fct: _Any, path: str, *, extra: ExtraInfo | None = None,
            title: str | None = None) -> str:
    """Write the view's data (nodes placed, edges, groups, details) as JSON to ``path``.

    The same document :func:`d3viz` embeds in its page, for other tools.

    >>> import os, json, tempfile, theon.tensor as tt
    >>> out = os.path.join(tempfile.mkdtemp(), "g.json")
    >>> doc = json.load(open(d3write(tt.dscalar("y") + 1, out)))
    >>> doc["counts"]
    {'apply': 1, 'variables': 3, 'groups': 0}
    """
    doc = build_document(fct, extra=extra, title=title)
    with open(path, "w", encoding="utf-8") as fh:
        _json.dump(doc, fh, indent=1, allow_nan=False)
    return path


class _CallableModule(_types.ModuleType):
    """The ``theon.d3viz`` module, callable as :func:`d3viz`."""

    def __call__(self, fct: _Any, outfile: str, *args: _Any, **kwargs: _Any) -> str:
        return d3viz(fct, outfile, *args, **kwargs)


_sys.modules[__name__].__class__ = _CallableModule
