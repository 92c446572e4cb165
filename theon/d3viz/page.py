"""The HTML page: one file, its style, script and data inline.

>>> page = render_page({"title": "a < b", "graphs": [], "nodes": [], "edges": [],
...                     "counts": {}})
>>> "<title>a &lt; b</title>" in page
True
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping
from typing import Any

from theon.d3viz._assets import CSS, JS

__all__ = ["embed_json", "render_page"]


def embed_json(data: Any) -> str:
    """``data`` as JSON that is safe inside a ``<script>`` element.

    ``<``, ``>`` and ``&`` are written as ``\\u`` escapes, so no string of the
    graph (a variable named ``</script>``) can end the element or start markup;
    the escapes decode to the same characters in ``JSON.parse``.

    >>> embed_json({"name": "</script>&"})
    '{"name": "\\\\u003c/script\\\\u003e\\\\u0026"}'
    """
    text = json.dumps(data, ensure_ascii=True, allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


_TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; \
style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<title>{title}</title>
<style>{css}</style>
</head>
<body>
<div id="bar">
<h1>{title}</h1>
<button data-action="zoom-in" title="zoom in (+)">+</button>
<button data-action="zoom-out" title="zoom out (-)">&minus;</button>
<button data-action="fit" title="fit the graph in the window (0)">fit</button>
<button data-action="collapse-all">collapse inner graphs</button>
<button data-action="expand-all">expand all</button>
<input id="search" type="search" placeholder="find (Enter: next)" \
title="a name, an Op, a type or file:line; Enter jumps to the next match">
<span id="found"></span>
<div id="legend"><span class="l-apply">Op</span><span class="l-input">input</span>\
<span class="l-shared">shared</span><span class="l-constant">constant</span>\
<span class="l-output">output</span><span class="l-inplace">in place</span>\
<span class="l-view">view</span>\
<span class="l-inner">inner graph</span></div>
</div>
<svg id="canvas"><g id="viewport"></g></svg>
<div id="panel"></div>
<div id="tooltip"></div>
<script type="application/json" id="theon-data">{data}</script>
<script>{js}</script>
</body>
</html>
"""


def render_page(doc: Mapping[str, Any]) -> str:
    """The complete page for a document of :func:`theon.d3viz.model.build_document`."""
    return _TEMPLATE.format(title=html.escape(str(doc["title"])), css=CSS, js=JS,
                            data=embed_json(doc))
