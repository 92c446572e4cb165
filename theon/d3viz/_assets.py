"""The page's style sheet and script, inlined into every file the view writes.

Hand-written, no library: the script reads the graph's data (already laid out
in Python) from a JSON ``<script>`` element and builds the SVG with the DOM.
It inserts every string of the data as text (``textContent``), never as markup.
It makes no request: no ``fetch``, no external URL, not even an XML namespace
literal (the namespace is read from the page's own ``<svg>`` element).
"""

CSS = r"""
* { box-sizing: border-box; }
html, body { margin: 0; height: 100%; overflow: hidden; background: #fafafa; color: #222;
  font: 13px/1.35 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; }
#bar { position: absolute; top: 0; left: 0; right: 0; height: 40px; display: flex;
  align-items: center; gap: 6px; padding: 0 10px; background: #fff;
  border-bottom: 1px solid #ddd; z-index: 3; }
#bar h1 { font-size: 14px; margin: 0 12px 0 0; white-space: nowrap; overflow: hidden;
  text-overflow: ellipsis; max-width: 34%; }
#bar button { font: inherit; padding: 3px 9px; border: 1px solid #bbb; border-radius: 4px;
  background: #f4f4f4; cursor: pointer; }
#bar button:hover { background: #e8e8e8; }
#search { font: inherit; width: 170px; padding: 3px 6px; border: 1px solid #bbb;
  border-radius: 4px; margin-left: 8px; }
#found { color: #666; font-size: 12px; min-width: 60px; }
#legend { margin-left: auto; display: flex; gap: 10px; font-size: 12px; color: #444;
  white-space: nowrap; }
#legend span::before { content: ""; display: inline-block; width: 12px; height: 12px;
  margin-right: 4px; vertical-align: -2px; border-radius: 3px; border: 1.5px solid; }
#legend .l-apply::before { background: #fff; border-color: #333; }
#legend .l-input::before { background: #d5f2d0; border-color: #2e7d32; border-radius: 6px; }
#legend .l-output::before { background: #d3e3fb; border-color: #1f5fbf; border-radius: 6px; }
#legend .l-constant::before { background: #f4ecb8; border-color: #9a8a2a; border-radius: 6px; }
#legend .l-shared::before { background: #ccf5f8; border-color: #00838f; border-radius: 6px; }
#legend .l-inplace::before { background: #fff; border-color: #c62828; border-width: 3px;
  width: 10px; height: 10px; }
#legend .l-view::before { background: #fff; border-color: #1f5fbf; border-style: dashed; }
#legend .l-inner::before { background: #fff7c9; border-color: #8a7a00; }
#canvas { position: absolute; top: 40px; left: 0; width: calc(100% - 320px);
  height: calc(100% - 40px); cursor: grab; touch-action: none; display: block; }
#canvas.dragging { cursor: grabbing; }
#panel { position: absolute; top: 40px; right: 0; bottom: 0; width: 320px; overflow: auto;
  background: #fff; border-left: 1px solid #ddd; padding: 10px 12px; z-index: 2; }
#panel h2 { font-size: 13px; margin: 0 0 8px; word-break: break-all; }
#panel .hint { color: #777; }
table.kv { border-collapse: collapse; width: 100%; }
table.kv td { vertical-align: top; padding: 2px 4px; border-top: 1px solid #eee; }
table.kv td.k { color: #666; white-space: nowrap; }
table.kv td.v { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace;
  font-size: 12px; word-break: break-all; white-space: pre-wrap; }
#tooltip { position: fixed; display: none; max-width: 460px; pointer-events: none;
  background: #fffff4; border: 1px solid #999; border-radius: 5px; padding: 6px 8px;
  box-shadow: 0 2px 8px rgba(0,0,0,.18); z-index: 5; }
#tooltip h3 { margin: 0 0 4px; font-size: 13px; word-break: break-all; }
svg text { font-family: "DejaVu Sans Mono", ui-monospace, Menlo, Consolas, monospace;
  font-size: 12px; fill: #111; pointer-events: none; }
svg text.sub { font-size: 10.5px; fill: #666; }
.node { cursor: pointer; }
.node .shape { stroke-width: 1.5px; }
.kind-apply .shape { fill: #fff; stroke: #333; }
.kind-apply.has-inner .shape { fill: #fff7c9; stroke: #8a7a00; }
.kind-apply.inplace .shape { stroke: #c62828; stroke-width: 3px; }
.kind-apply.view .shape { stroke: #1f5fbf; stroke-dasharray: 5 3; }
.kind-input .shape { fill: #d5f2d0; stroke: #2e7d32; }
.kind-output .shape { fill: #d3e3fb; stroke: #1f5fbf; }
.kind-constant .shape { fill: #f4ecb8; stroke: #9a8a2a; }
.kind-shared .shape { fill: #ccf5f8; stroke: #00838f; }
.is-output .shape { stroke: #1f5fbf; stroke-width: 3px; }
.node:hover .shape { filter: drop-shadow(0 0 3px rgba(0,0,0,.35)); }
.node.selected .shape { stroke: #7b1fa2; stroke-width: 3.5px; }
.badge { cursor: pointer; }
.badge rect { fill: #8a7a00; }
.badge text { fill: #fff; font-size: 10px; font-weight: bold; }
.inplace-mark { fill: #c62828; font-size: 10px; font-weight: bold; }
.edge { fill: none; stroke: #777; stroke-width: 1.3px; }
.edge.role-condition { stroke: #333; stroke-width: 2px; stroke-dasharray: 2 3; }
.edge.role-then { stroke: #2e7d32; stroke-width: 1.8px; }
.edge.role-else { stroke: #e07000; stroke-width: 1.8px; }
.edge.hot { stroke: #7b1fa2; stroke-width: 2.5px; }
.edge-hit { fill: none; stroke: transparent; stroke-width: 9px; cursor: help; }
.edge-hit:hover + .edge { stroke: #222; stroke-width: 2.4px; }
.frame { fill: #fff; stroke: #b9b9b9; stroke-width: 1px; }
.group.inner > .frame { fill: #fffdf0; stroke: #8a7a00; stroke-dasharray: 6 3; }
.group-header { cursor: pointer; }
.group-header rect { fill: #f1f1f1; stroke: none; }
.group.inner > .group-header rect { fill: #f6efbf; }
.group-header text { font-family: system-ui, "DejaVu Sans", sans-serif; font-size: 12.5px;
  font-weight: 600; fill: #333; }
.connector { fill: none; stroke: #8a7a00; stroke-width: 1.5px; stroke-dasharray: 4 4; }
"""

JS = r"""
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("theon-data").textContent);
  const svg = document.getElementById("canvas");
  const NS = svg.namespaceURI;
  const viewport = document.getElementById("viewport");
  const tooltip = document.getElementById("tooltip");
  const panel = document.getElementById("panel");
  const HEADER = 28, GAP = 40, COLUMN_GAP = 90, INDENT = 28;
  const nodes = new Map(data.nodes.map(n => [n.id, n]));
  const graphs = new Map(data.graphs.map(g => [g.id, g]));
  const view = { x: 0, y: 0, k: 1, fitted: "" };
  const state = { collapsed: new Set(), selected: null };

  function el(name, attrs, parent) {
    const e = document.createElementNS(NS, name);
    for (const key in attrs) e.setAttribute(key, String(attrs[key]));
    if (parent) parent.appendChild(e);
    return e;
  }
  function text(parent, str, x, y, cls) {
    const t = el("text", { x: x, y: y, "text-anchor": "middle" }, parent);
    if (cls) t.setAttribute("class", cls);
    t.textContent = str;
    return t;
  }
  function html(tag, str, parent) {
    const e = document.createElement(tag);
    if (str !== undefined) e.textContent = str;
    if (parent) parent.appendChild(e);
    return e;
  }
  function kvTable(rows, parent) {
    const table = html("table", undefined, parent);
    table.className = "kv";
    for (const [k, v] of rows) {
      const tr = html("tr", undefined, table);
      html("td", k, tr).className = "k";
      html("td", v, tr).className = "v";
    }
    return table;
  }
  function pathOf(points) {
    let d = "M" + points[0][0] + "," + points[0][1];
    for (let i = 1; i < points.length; i++) {
      const [x0, y0] = points[i - 1], [x1, y1] = points[i];
      const dy = (y1 - y0) / 2;
      d += " C" + x0 + "," + (y0 + dy) + " " + x1 + "," + (y1 - dy) + " " + x1 + "," + y1;
    }
    return d;
  }

  // ---- drawing ----------------------------------------------------------------------
  const defs = el("defs", {}, svg);
  const marker = el("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 9, refY: 5,
    markerUnits: "userSpaceOnUse", markerWidth: 9, markerHeight: 9,
    orient: "auto-start-reverse" }, defs);
  el("path", { d: "M0,0 L10,5 L0,10 z", fill: "#777" }, marker);
  const groupEls = new Map(), nodeEls = new Map(), edgeEls = [];

  for (const g of data.graphs) {
    const cls = "group" + (g.owner ? " inner" : "");
    const ge = el("g", { class: cls, "data-group-id": g.id }, viewport);
    const frame = el("rect", { class: "frame", rx: 6, width: g.width,
      height: g.height + HEADER }, ge);
    const header = el("g", { class: "group-header", "data-group-toggle": g.id }, ge);
    el("rect", { width: g.width, height: HEADER, rx: 6 }, header);
    const title = el("text", { x: 10, y: 18, "text-anchor": "start" }, header);
    const body = el("g", { class: "group-body", transform: "translate(0," + HEADER + ")" }, ge);
    const edgeLayer = el("g", { class: "edges" }, body);
    el("g", { class: "nodes" }, body);
    groupEls.set(g.id, { g: ge, frame: frame, header: header, title: title, body: body,
      edges: edgeLayer, x: 0, y: 0 });
    if (g.owner) header.addEventListener("click", ev => { ev.stopPropagation(); clicked(g.id); });
    header.addEventListener("mouseenter", ev => showTip(ev, g.label, [
      ["nodes drawn", String(g.nodes.length)],
      ["click", g.owner ? "collapse or expand this inner graph" : "(the outer graph)"]]));
    header.addEventListener("mousemove", moveTip);
    header.addEventListener("mouseleave", hideTip);
  }

  for (const e of data.edges) {
    const ge = groupEls.get(e.graph).edges;
    const d = pathOf(e.points);
    const hit = el("path", { class: "edge-hit", d: d }, ge);
    const p = el("path", { class: "edge" + (e.role ? " role-" + e.role : ""), d: d,
      "marker-end": "url(#arrow)", "data-edge-id": e.id }, ge);
    edgeEls.push({ data: e, path: p });
    hit.addEventListener("mouseenter", ev => showTip(ev, e.label, e.details));
    hit.addEventListener("mousemove", moveTip);
    hit.addEventListener("mouseleave", hideTip);
  }

  for (const n of data.nodes) {
    const layer = groupEls.get(n.graph).body.lastChild;
    let cls = "node kind-" + n.kind;
    if (n.inplace) cls += " inplace";
    if (n.view) cls += " view";
    if (n.inner) cls += " has-inner";
    if (n.output && n.kind !== "output") cls += " is-output";
    const ge = el("g", { class: cls, "data-node-id": n.id,
      transform: "translate(" + n.x + "," + n.y + ")" }, layer);
    if (n.kind === "apply") {
      el("rect", { class: "shape", x: -n.w / 2, y: -n.h / 2, width: n.w, height: n.h, rx: 5 }, ge);
    } else {
      el("ellipse", { class: "shape", rx: n.w / 2, ry: n.h / 2 }, ge);
    }
    text(ge, n.label, 0, -2);
    text(ge, n.sub, 0, 12, "sub");
    if (n.inplace) {
      const m = el("text", { class: "inplace-mark", x: -n.w / 2 + 2, y: -n.h / 2 - 4,
        "text-anchor": "start" }, ge);
      m.textContent = "in place";
    }
    if (n.inner) {
      const b = el("g", { class: "badge", "data-group-toggle": n.inner,
        transform: "translate(" + (n.w / 2 - 8) + "," + (-n.h / 2 - 8) + ")" }, ge);
      el("rect", { x: -24, y: -1, width: 48, height: 15, rx: 7 }, b);
      text(b, "[" + graphs.get(n.inner).num + "] \u25BE", 0, 10, "badge-label");
      b.addEventListener("click", ev => { ev.stopPropagation(); clicked(n.inner); });
    }
    nodeEls.set(n.id, ge);
    ge.addEventListener("mouseenter", ev => showTip(ev, n.label, n.details));
    ge.addEventListener("mousemove", moveTip);
    ge.addEventListener("mouseleave", hideTip);
  }

  const connectors = el("g", { class: "connectors" }, viewport);  // above the frames

  // ---- groups: stacked in a column right of the outer graph; collapsing restacks ---
  function hidden(gid) {
    for (let g = graphs.get(gid); g && g.parent; g = graphs.get(g.parent)) {
      if (state.collapsed.has(g.parent)) return true;
    }
    return false;
  }
  function restack() {
    const main = data.graphs[0];
    const x0 = main.width + COLUMN_GAP;
    let y = 0;
    for (const g of data.graphs) {
      const ge = groupEls.get(g.id);
      const off = !!g.owner && hidden(g.id);
      ge.g.style.display = off ? "none" : "";
      if (off) continue;
      const closed = state.collapsed.has(g.id);
      ge.body.style.display = closed ? "none" : "";
      ge.frame.setAttribute("height", closed ? HEADER : g.height + HEADER);
      ge.title.textContent = (g.owner ? (closed ? "\u25B8 " : "\u25BE ") : "") + g.label;
      if (g.owner) {
        ge.x = x0 + (g.depth - 1) * INDENT;
        ge.y = y;
        y += (closed ? HEADER : g.height + HEADER) + GAP;
      }
      ge.g.setAttribute("transform", "translate(" + ge.x + "," + ge.y + ")");
    }
    while (connectors.firstChild) connectors.removeChild(connectors.firstChild);
    for (const g of data.graphs) {
      if (!g.owner || hidden(g.id)) continue;
      for (const oid of g.owners) {  // a line from each node using this inner graph
        const owner = nodes.get(oid), og = groupEls.get(owner.graph), tg = groupEls.get(g.id);
        if (hidden(owner.graph) || state.collapsed.has(owner.graph)) continue;
        const sx = og.x + owner.x + owner.w / 2, sy = og.y + HEADER + owner.y;
        const tx = tg.x, ty = tg.y + HEADER / 2;
        const mx = (sx + tx) / 2;
        el("path", { class: "connector", "data-connector-for": g.id, d: "M" + sx + "," + sy +
          " C" + mx + "," + sy + " " + mx + "," + ty + " " + tx + "," + ty }, connectors);
      }
    }
    for (const n of data.nodes) {
      if (!n.inner) continue;
      const label = nodeEls.get(n.id).querySelector(".badge-label");
      if (label) {
        label.textContent = "[" + graphs.get(n.inner).num + "] " +
          (state.collapsed.has(n.inner) ? "\u25B8" : "\u25BE");
      }
    }
  }
  function clicked(gid) {  // a click that ends a drag is no click
    if (dragEnded) dragEnded = false; else toggle(gid);
  }
  function toggle(gid) {
    if (state.collapsed.has(gid)) state.collapsed.delete(gid); else state.collapsed.add(gid);
    restack();
  }

  // ---- tooltip and details panel ---------------------------------------------------
  function showTip(ev, title, rows) {
    while (tooltip.firstChild) tooltip.removeChild(tooltip.firstChild);
    html("h3", title, tooltip);
    kvTable(rows, tooltip);
    tooltip.style.display = "block";
    moveTip(ev);
  }
  function moveTip(ev) {
    const r = tooltip.getBoundingClientRect();
    let x = ev.clientX + 14, y = ev.clientY + 14;
    if (x + r.width > window.innerWidth - 4) x = Math.max(4, ev.clientX - r.width - 14);
    if (y + r.height > window.innerHeight - 4) y = Math.max(4, ev.clientY - r.height - 14);
    tooltip.style.left = x + "px";
    tooltip.style.top = y + "px";
  }
  function hideTip() { tooltip.style.display = "none"; }

  function select(id) {
    if (state.selected) nodeEls.get(state.selected).classList.remove("selected");
    for (const e of edgeEls) e.path.classList.remove("hot");
    state.selected = id;
    while (panel.firstChild) panel.removeChild(panel.firstChild);
    if (!id) {
      html("p", "Click a node to see its details here.", panel).className = "hint";
      return;
    }
    const n = nodes.get(id);
    nodeEls.get(id).classList.add("selected");
    html("h2", n.label, panel);
    kvTable(n.details, panel);
    const links = [];
    for (const e of edgeEls) {
      if (e.data.src === id || e.data.dst === id) {
        e.path.classList.add("hot");
        const other = nodes.get(e.data.src === id ? e.data.dst : e.data.src);
        links.push([e.data.src === id ? "to" : "from", other.label + "  [" + e.data.label + "]"]);
      }
    }
    if (links.length) {
      html("h2", "Connections", panel).style.marginTop = "12px";
      kvTable(links, panel);
    }
  }

  // ---- pan and zoom ----------------------------------------------------------------
  function apply() {
    viewport.setAttribute("transform",
      "translate(" + view.x.toFixed(2) + "," + view.y.toFixed(2) + ") scale(" +
      view.k.toFixed(4) + ")");
  }
  function zoomAt(factor, cx, cy) {
    const k = Math.min(8, Math.max(0.05, view.k * factor));
    view.x = cx - (cx - view.x) * (k / view.k);
    view.y = cy - (cy - view.y) * (k / view.k);
    view.k = k;
    apply();
  }
  function center() {
    const r = svg.getBoundingClientRect();
    return [r.width / 2, r.height / 2];
  }
  function fit(minScale) {
    // the whole graph in the window if it stays readable so (at minScale or more); else
    // its whole width (a folded graph's rows, read from the top down), else its whole
    // height, else the readable scale itself; always with its top in view.  "fit"
    // (minScale 0) shows all of it
    const r = svg.getBoundingClientRect();
    const b = viewport.getBBox();
    if (!b.width || !b.height) return;
    const wide = Math.min(1.5, (r.width - 30) / b.width);
    const high = Math.min(1.5, (r.height - 30) / b.height);
    const least = minScale || 0, all = Math.min(wide, high);
    view.fitted = all >= least ? "all" : wide >= least ? "width" : high >= least ? "height"
      : "none";
    view.k = { all: all, width: wide, height: high, none: least }[view.fitted];
    const w = b.width * view.k;
    view.x = w < r.width ? (r.width - w) / 2 - b.x * view.k : 15 - b.x * view.k;
    view.y = 15 - b.y * view.k;
    apply();
  }
  svg.addEventListener("wheel", ev => {
    ev.preventDefault();
    const r = svg.getBoundingClientRect();
    zoomAt(Math.exp(-ev.deltaY * 0.0015), ev.clientX - r.left, ev.clientY - r.top);
  }, { passive: false });
  let drag = null, dragEnded = false;
  svg.addEventListener("pointerdown", ev => {
    if (ev.button !== 0) return;
    dragEnded = false;
    drag = { x: ev.clientX, y: ev.clientY, vx: view.x, vy: view.y, moved: false,
      target: ev.target };
  });
  window.addEventListener("pointermove", ev => {
    if (!drag) return;
    const dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
    if (!drag.moved && Math.abs(dx) + Math.abs(dy) < 4) return;
    if (!drag.moved) { drag.moved = true; svg.classList.add("dragging"); hideTip(); }
    view.x = drag.vx + dx;
    view.y = drag.vy + dy;
    apply();
  });
  window.addEventListener("pointerup", () => {
    if (!drag) return;
    const d = drag;
    drag = null;
    svg.classList.remove("dragging");
    dragEnded = d.moved;
    if (d.moved) return;
    const hit = d.target.closest ? d.target.closest("[data-node-id]") : null;
    if (hit && !d.target.closest("[data-group-toggle]")) select(hit.getAttribute("data-node-id"));
    else if (!d.target.closest("[data-group-toggle]")) select(null);
  });
  const actions = {
    "zoom-in": () => zoomAt(1.25, ...center()),
    "zoom-out": () => zoomAt(0.8, ...center()),
    "fit": () => fit(0),
    "collapse-all": () => {
      for (const g of data.graphs) if (g.owner) state.collapsed.add(g.id);
      restack();
    },
    "expand-all": () => { state.collapsed.clear(); restack(); },
  };
  for (const b of document.querySelectorAll("#bar button[data-action]")) {
    b.addEventListener("click", () => actions[b.getAttribute("data-action")]());
  }
  // ---- search: Enter jumps to the next node whose label or details contain the text ---
  const search = document.getElementById("search"), found = document.getElementById("found");
  let hits = [], hitAt = -1, lastQuery = null;
  function reveal(id) {
    const n = nodes.get(id);
    for (let g = graphs.get(n.graph); g && g.owner; g = graphs.get(g.parent)) {
      state.collapsed.delete(g.id);  // open the groups around it
    }
    restack();
    const ge = groupEls.get(n.graph), r = svg.getBoundingClientRect();
    view.k = Math.max(view.k, 0.9);
    view.x = r.width / 2 - (ge.x + n.x) * view.k;
    view.y = r.height / 2 - (ge.y + HEADER + n.y) * view.k;
    apply();
    select(id);
  }
  search.addEventListener("keydown", ev => {
    ev.stopPropagation();  // the zoom keys are text here
    if (ev.key !== "Enter") return;
    const q = search.value.trim().toLowerCase();
    if (q !== lastQuery) {
      lastQuery = q;
      hitAt = -1;
      hits = !q ? [] : data.nodes.filter(n => (n.label + "\n" +
        n.details.map(row => row[1]).join("\n")).toLowerCase().includes(q)).map(n => n.id);
    }
    if (!hits.length) { found.textContent = q ? "no match" : ""; return; }
    hitAt = (hitAt + 1) % hits.length;
    found.textContent = (hitAt + 1) + " of " + hits.length;
    reveal(hits[hitAt]);
  });

  window.addEventListener("keydown", ev => {
    if (ev.key === "+" || ev.key === "=") actions["zoom-in"]();
    else if (ev.key === "-") actions["zoom-out"]();
    else if (ev.key === "0") fit(0);
  });

  restack();
  select(null);
  fit(0.45);
  window.theonD3viz = { data: data, view: view, state: state, toggle: toggle, fit: fit,
    reveal: reveal };
  document.body.setAttribute("data-ready", "1");
})();
"""
