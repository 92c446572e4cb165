"""The HTML view in a real browser: headless Chromium driven by playwright.

The page is loaded from ``file://`` with every network request recorded (and any
``http(s)`` one refused): none may be made.  Every node of the graph must be
drawn; hovering a node shows its Op and the user's ``file:line``; collapsing the
scan's inner graph hides its nodes; the zoom buttons, the wheel and a drag change
the view's transform.  The test also saves ``docs/d3viz_screenshot.png``.
"""

from __future__ import annotations

import itertools
import shutil
from pathlib import Path

import pytest

from theon.d3viz import build_document, d3viz
from theon.graph.traversal import io_toposort
from theon.printing import _inner_graph

sync_api = pytest.importorskip(
    "playwright.sync_api",
    reason="the browser test needs the optional 'playwright' package: "
    "pip install 'theon[screenshots]'",
)
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="the browser test needs headless Chromium (apt install chromium)"
)

from tests.d3viz.graphs import mlp_with_scan  # noqa: E402

SCREENSHOT = Path(__file__).resolve().parents[2] / "docs" / "d3viz_screenshot.png"


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


def open_page(browser, path: Path, requests: list[str], problems: list[str]):
    context = browser.new_context(viewport={"width": 1500, "height": 900})

    def refuse(route) -> None:  # any http(s) request: recorded and refused
        requests.append(route.request.url)
        route.abort()

    context.route("http://*/**", refuse)
    context.route("https://*/**", refuse)
    page = context.new_page()
    page.on("request", lambda r: requests.append(r.url))
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}")
            if m.type in ("error", "warning") else None)
    page.on("dialog", lambda d: (problems.append(f"dialog: {d.message}"), d.dismiss()))
    page.goto(path.as_uri())
    page.wait_for_selector("body[data-ready='1']", timeout=5000)
    return page


def transform(page) -> str:
    return page.get_attribute("#viewport", "transform")


def test_the_view_in_headless_chromium(browser, tmp_path: Path) -> None:
    f, dot_line = mlp_with_scan(train=False)
    doc = build_document(f)
    path = Path(d3viz(f, str(tmp_path / "mlp.html"), title="MLP layer + recurrent scan"))
    requests: list[str] = []
    problems: list[str] = []
    page = open_page(browser, path, requests, problems)

    # every node drawn: the Apply nodes of the graph and of the scan's inner graph,
    # counted from the graph itself, plus the boundary variables; each id present once
    fg = f.maker.fgraph
    scan_node = next(n for n in fg.apply_nodes if _inner_graph(n.op) is not None)
    inner_in, inner_out = _inner_graph(scan_node.op)
    n_apply = len(fg.apply_nodes) + len(io_toposort(inner_in, inner_out))
    assert page.locator(".node.kind-apply[data-node-id]").count() == n_apply
    drawn = page.eval_on_selector_all(
        "[data-node-id]",
        "els => els.map(e => [e.getAttribute('data-node-id'), e.getBBox().width,"
        " e.getBBox().height, e.textContent])",
    )
    assert len(drawn) == len(doc["nodes"])
    assert {d[0] for d in drawn} == {n["id"] for n in doc["nodes"]}
    labels = {n["id"]: n["label"] for n in doc["nodes"]}
    for nid, w, h, text in drawn:
        assert w > 10 and h > 10, nid
        assert labels[nid] in text, (nid, text)
    assert page.locator("path.edge").count() == len(doc["edges"])

    # hover the Dot: its Op, type, shape and the user's file:line
    dot = next(n for n in doc["nodes"] if n["graph"] == "g0" and n["label"] == "Dot")
    page.hover(f"[data-node-id='{dot['id']}']")
    tip = page.locator("#tooltip")
    assert tip.is_visible()
    tip_text = tip.inner_text()
    assert "Dot" in tip_text
    assert f"graphs.py:{dot_line} in mlp_with_scan" in tip_text
    assert "TensorType(float64" in tip_text and "(?, ?)" in tip_text
    # click: the side panel lists the same details
    page.click(f"[data-node-id='{dot['id']}']")
    assert f"graphs.py:{dot_line}" in page.inner_text("#panel")

    # collapse the scan's inner graph: its nodes hide; expand: they come back
    group = next(g for g in doc["graphs"] if g["owner"] is not None)
    inner_ids = group["nodes"]
    assert inner_ids

    def visible() -> list[bool]:
        return [page.locator(f"[data-node-id='{i}']").is_visible() for i in inner_ids]

    assert all(visible())
    page.click(f".group-header[data-group-toggle='{group['id']}']")
    assert not any(visible())
    assert page.locator(f"[data-connector-for='{group['id']}']").count() == len(group["owners"])
    # ...the outer graph stays
    assert page.locator(f"[data-node-id='{dot['id']}']").is_visible()
    owner = next(n for n in doc["nodes"] if n["inner"] == group["id"])
    page.click(f"[data-node-id='{owner['id']}'] .badge")  # the owner's badge toggles it too
    assert all(visible())

    # zoom: the buttons and the wheel change the scale; a drag pans
    before = transform(page)
    page.click("button[data-action='zoom-in']")
    zoomed = transform(page)
    assert zoomed != before
    scale = lambda t: float(t.split("scale(")[1].rstrip(")"))  # noqa: E731
    assert scale(zoomed) == pytest.approx(scale(before) * 1.25, rel=1e-3)
    box = page.locator("#canvas").bounding_box()
    page.mouse.move(box["x"] + 30, box["y"] + box["height"] - 30)
    page.mouse.wheel(0, 300)
    assert scale(transform(page)) < scale(zoomed)
    t0 = transform(page)
    page.mouse.down()
    page.mouse.move(box["x"] + 130, box["y"] + box["height"] - 80, steps=4)
    page.mouse.up()
    assert transform(page) != t0 and scale(transform(page)) == scale(t0)

    # the picture for the docs: fitted, with a tooltip showing
    page.click("button[data-action='fit']")
    page.click("#panel")  # (nothing selected)
    page.click(f"[data-node-id='{dot['id']}']")
    sigmoid = next(n for n in doc["nodes"] if n["label"].startswith("Elemwise{sigmoid"))
    page.hover(f"[data-node-id='{sigmoid['id']}']")  # built inside the scan's step
    assert "in <lambda>" in page.inner_text("#tooltip")
    SCREENSHOT.parent.mkdir(exist_ok=True)
    page.screenshot(path=str(SCREENSHOT))
    assert SCREENSHOT.stat().st_size > 20_000

    assert requests == [path.as_uri()], requests  # only the page itself
    assert problems == []


def test_hostile_names_stay_text_in_the_browser(browser, tmp_path: Path) -> None:
    import theon.tensor as tt

    name = "<img src=x onerror=alert(1)>&amp;\"'</script>"
    x = tt.dvector(name)
    path = Path(d3viz((x * 2).sum(), str(tmp_path / "nasty.html"), title=name))
    requests: list[str] = []
    problems: list[str] = []
    page = open_page(browser, path, requests, problems)
    assert page.title() == name
    assert page.locator("#bar h1").inner_text() == name
    assert page.locator("img").count() == 0
    node = page.locator(".kind-input[data-node-id]")
    assert node.count() == 1
    node.hover()
    assert name in page.inner_text("#tooltip")
    assert requests == [path.as_uri()], requests  # the <img src=x> was never an element
    assert problems == []


def test_collapsing_a_group_hides_the_groups_inside_it(browser, tmp_path: Path) -> None:
    import theon.tensor as tt
    from theon.opfromgraph import OpFromGraph

    a = tt.dscalar("a")
    inner = OpFromGraph([a], [tt.exp(a) + 1])
    b = tt.dscalar("b")
    outer = OpFromGraph([b], [inner(b) * 2 + inner(b * 3)])
    c = tt.dscalar("c")
    graph = outer(c) + outer(c * 2)
    doc = build_document(graph)
    path = Path(d3viz(graph, str(tmp_path / "nested.html")))
    requests: list[str] = []
    problems: list[str] = []
    page = open_page(browser, path, requests, problems)
    g_outer, g_inner = doc["graphs"][1], doc["graphs"][2]
    assert g_inner["parent"] == g_outer["id"]

    def shown(g) -> bool:
        return all(page.locator(f"[data-node-id='{i}']").is_visible() for i in g["nodes"])

    def connectors(g) -> int:
        return page.locator(f"[data-connector-for='{g['id']}']").count()

    assert shown(g_outer) and shown(g_inner)
    assert connectors(g_outer) == connectors(g_inner) == 2  # each Op used by two nodes
    # a drag that starts on a header pans the view and leaves the group as it is
    header = page.locator(f".group-header[data-group-toggle='{g_outer['id']}']").bounding_box()
    t0 = transform(page)
    page.mouse.move(header["x"] + 40, header["y"] + 10)
    page.mouse.down()
    page.mouse.move(header["x"] + 90, header["y"] + 60, steps=4)
    page.mouse.move(header["x"] + 40, header["y"] + 10, steps=4)
    page.mouse.up()
    assert shown(g_outer) and transform(page) == t0
    page.click(f".group-header[data-group-toggle='{g_outer['id']}']")
    assert not shown(g_outer) and not shown(g_inner)
    assert not page.locator(f"[data-group-id='{g_inner['id']}']").is_visible()
    assert connectors(g_inner) == 0
    page.click("button[data-action='expand-all']")
    assert shown(g_outer) and shown(g_inner)
    # the frames are stacked without overlapping, and every node sits inside its frame
    frames = {g["id"]: page.locator(f"[data-group-id='{g['id']}'] > .frame").bounding_box()
              for g in doc["graphs"]}
    for (ga, a), (gb, b) in itertools.combinations(frames.items(), 2):
        apart = a["x"] + a["width"] <= b["x"] or b["x"] + b["width"] <= a["x"] \
            or a["y"] + a["height"] <= b["y"] or b["y"] + b["height"] <= a["y"]
        assert apart, (ga, gb)
    for n in doc["nodes"]:
        box, fr = page.locator(f"[data-node-id='{n['id']}']").bounding_box(), frames[n["graph"]]
        assert fr["x"] <= box["x"] and box["x"] + box["width"] <= fr["x"] + fr["width"] + 1
        assert fr["y"] <= box["y"] and box["y"] + box["height"] <= fr["y"] + fr["height"] + 1
    page.click("button[data-action='collapse-all']")
    assert not shown(g_outer) and not shown(g_inner)
    assert requests == [path.as_uri()] and problems == []


def test_search_jumps_to_matching_nodes_and_opens_their_group(browser, tmp_path: Path) -> None:
    f, dot_line = mlp_with_scan(train=False)
    doc = build_document(f)
    path = Path(d3viz(f, str(tmp_path / "mlp.html")))
    requests: list[str] = []
    problems: list[str] = []
    page = open_page(browser, path, requests, problems)

    def matches(query: str) -> list[str]:  # what the search must find, in page order
        q = query.strip().lower()
        return [n["id"] for n in doc["nodes"]
                if q in "\n".join([n["label"], *(v for _, v in n["details"])]).lower()]

    def selected() -> list[str]:
        return page.eval_on_selector_all(
            ".node.selected", "els => els.map(e => e.getAttribute('data-node-id'))")

    page.click("button[data-action='collapse-all']")
    sigmoid = next(n for n in doc["nodes"] if n["label"].startswith("Elemwise{sigmoid"))
    assert sigmoid["graph"] == doc["graphs"][1]["id"]
    assert not page.locator(f"[data-node-id='{sigmoid['id']}']").is_visible()
    hits = matches("SIGMOID")
    assert sigmoid["id"] in hits
    page.fill("#search", "SIGMOID")
    for k, expected in enumerate(hits + hits[:1]):  # Enter again: the next one, then around
        page.press("#search", "Enter")
        assert page.inner_text("#found") == f"{k % len(hits) + 1} of {len(hits)}"
        assert selected() == [expected]
        node = page.locator(f"[data-node-id='{expected}']")
        assert node.is_visible()  # its group was opened
        box, canvas = node.bounding_box(), page.locator("#canvas").bounding_box()
        assert abs(box["x"] + box["width"] / 2 - (canvas["x"] + canvas["width"] / 2)) < 2
    # a user's line finds what was built there
    page.fill("#search", f"graphs.py:{dot_line} ")
    page.press("#search", "Enter")
    assert page.inner_text("#found") == f"1 of {len(matches(f'graphs.py:{dot_line} '))}"
    page.fill("#search", "no such thing")
    page.press("#search", "Enter")
    assert page.inner_text("#found") == "no match"
    assert problems == [] and requests == [path.as_uri()]


def edge_case_functions():
    import theon
    import theon.tensor as tt
    from theon.ifelse import ifelse

    x, c = tt.dvector("x"), tt.dscalar("c")
    count = theon.shared(0.0, name="count")
    rng = tt.random.RandomStream(0)
    return {
        "identity": theon.function([x], x),
        "updates only": theon.function([], [], updates=[(count, count + 1)]),
        "several outputs": theon.function([x], [x.sum(), x * 2, tt.max(x)]),
        "random": theon.function([x], x + rng.normal(size=(3,))),
        "ifelse": theon.function([c, x], ifelse(tt.lt(c, 0), x * 2, x + 1)),
    }


def test_edge_case_graphs_render(browser, tmp_path: Path) -> None:
    for name, f in edge_case_functions().items():
        doc = build_document(f)
        path = Path(d3viz(f, str(tmp_path / f"{name}.html"), title=name))
        requests: list[str] = []
        problems: list[str] = []
        page = open_page(browser, path, requests, problems)
        ids = page.eval_on_selector_all(
            "[data-node-id]", "els => els.map(e => e.getAttribute('data-node-id'))")
        assert sorted(ids) == sorted(n["id"] for n in doc["nodes"]), name
        assert page.locator("path.edge").count() == len(doc["edges"]), name
        assert problems == [] and requests == [path.as_uri()], name
        page.context.close()
