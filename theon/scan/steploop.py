"""The per-step loop of a :class:`~theon.scan.op.Scan` on array rows, as one generated function.

When every state reads only its previous row (taps ``[-1]``), every sequence
and state row is an array of at least one dimension, the loop is not a while
loop and the body's runner hands out fresh outputs, the Scan's loop is one
generated Python function with one local per state (the carry) instead of a
generic loop over lists of bindings::

    def _loop(_n, _fn, _seqs, _bufs, _ns, _nits, _rows, _dtypes, _bad, _alloc, _at):
        _s0, = _seqs
        _b0, = _bufs
        _w0, = _ns
        _r0, _d0, _c0 = _rows[0], _dtypes[0], _b0[0]     # state 0: its initial row
        _t = 0
        try:
          for _t in range(_n):
            _o = _fn(_s0[_t], _c0, _w0)
            _c0 = _o[0]                # fed back as it is: no copy, no buffer read
            if _c0.shape != _r0 or _c0.dtype != _d0: _c0 = _bad(0, _c0)
            _b0[_t + 1] = _c0          # the state's history (not with store_last)
            _y0 = _o[1]
            if not _t: _n0 = _nits[0] = _alloc(0, _y0)
            _n0[_t] = _y0
        finally:
            _at[0] = _t                # the step that failed, after an error
        _b0[0] = _c0                   # store_last: only the final row is kept
        return _t

Each step calls the same runner with the same values as the generic loop and
stores the same rows, so the results are identical; what goes is the
bookkeeping: a state kept with ``store_last`` is not written to its buffer and
read back every step.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from types import CodeType, FunctionType
from typing import Any

import numpy as np

from theon.link.source import compile_cached

__all__ = ["inline_step_loop", "inline_step_loop_source", "make_step_loop", "step_loop_source"]


def _loop_head(n_seqs: int, n_st: int, n_nonseqs: int) -> tuple[list[str], list[str],
                                                                  list[str]]:
    """The names of the sequences and non-sequences in a generated loop, and its first
    lines (the signature, unpacking the argument lists, each state's row and buffer)."""
    seqs = [f"_s{i}" for i in range(n_seqs)]
    bufs = [f"_b{j}" for j in range(n_st)]
    ns = [f"_w{w}" for w in range(n_nonseqs)]
    lines = ["def _loop(_n, _fn, _seqs, _bufs, _ns, _nits, _rows, _dtypes, _bad, _alloc, _at):"]
    for names, src in ((seqs, "_seqs"), (bufs, "_bufs"), (ns, "_ns")):
        if names:
            lines.append(f"    {', '.join(names)}, = {src}")
    for j in range(n_st):
        lines.append(f"    _r{j}, _d{j}, _c{j} = _rows[{j}], _dtypes[{j}], _b{j}[0]")
    return seqs, ns, lines


def _loop_tail(nit_values: list[str], store_last: tuple[bool, ...], restore: bool) -> list[str]:
    """The last lines of a generated loop: each step's per-step outputs (the values
    named in ``nit_values``) into their arrays, then the ``finally`` that records the
    steps done (and restores NumPy's error state if ``restore``) and the states kept
    as one row."""
    lines: list[str] = []
    for m, value in enumerate(nit_values):
        lines.append(f"        _y{m} = {value}")
        lines.append(f"        if not _t: _n{m} = _nits[{m}] = _alloc({m}, _y{m})")
        lines.append(f"        _n{m}[_t] = _y{m}")
    lines.append("    finally:")
    lines.append("        _at[0] = _t")
    if restore:
        lines.append("        _restore(_tok)")
    for j, last in enumerate(store_last):
        if last:
            lines.append(f"    _b{j}[0] = _c{j}")
    lines.append("    return _t")
    return lines


def step_loop_source(n_seqs: int, store_last: tuple[bool, ...], n_nit: int, n_nonseqs: int) -> str:
    """The text of the generated loop for this layout (see the module docstring).

    >>> print(step_loop_source(0, (True,), 0, 0).splitlines()[6])
            _o = _fn(_c0)
    """
    n_st = len(store_last)
    seqs, ns, lines = _loop_head(n_seqs, n_st, n_nonseqs)
    lines.append("    _t = 0")
    lines.append("    try:")
    lines.append("      for _t in range(_n):")
    args = [f"{s}[_t]" for s in seqs] + [f"_c{j}" for j in range(n_st)] + ns
    lines.append(f"        _o = _fn({', '.join(args)})")
    for j in range(n_st):
        lines.append(f"        _c{j} = _o[{j}]")
        lines.append(f"        if _c{j}.shape != _r{j} or _c{j}.dtype != _d{j}: "
                     f"_c{j} = _bad({j}, _c{j})")
        if not store_last[j]:
            lines.append(f"        _b{j}[_t + 1] = _c{j}")
    lines += _loop_tail([f"_o[{n_st + m}]" for m in range(n_nit)], store_last, False)
    return "\n".join(lines) + "\n"


def make_step_loop(
    n_seqs: int, store_last: tuple[bool, ...], n_nit: int, n_nonseqs: int
) -> Callable[..., Any]:
    """The generated loop for this layout, compiled.

    ``loop(n, fn, seqs, bufs, nonseqs, nits, rows, dtypes, bad, alloc, at)`` runs ``n``
    steps of ``fn``; ``bufs`` are the states' buffers (one initial row; ``n + 1``
    rows, or one with ``store_last``), ``nits`` a list filled with the nit-sot
    outputs ``alloc(m, first_value)`` makes; ``bad(j, y)`` returns ``y`` cast to
    the state's dtype ``dtypes[j]`` or raises when its shape is not ``rows[j]``;
    ``at[0]`` is the last step started (the failing one after an error).

    >>> import numpy as np
    >>> loop = make_step_loop(1, (True,), 1, 0)
    >>> buf, nits = np.zeros((1, 2)), [None]
    >>> _ = loop(3, lambda x, h: [h + x, 2 * h], [np.ones((3, 2))], [buf], [], nits,
    ...          [(2,)], [buf.dtype], None, lambda m, y: np.empty((3, *y.shape)), [0])
    >>> buf.tolist(), nits[0][:, 0].tolist()
    ([[3.0, 3.0]], [0.0, 2.0, 4.0])
    """
    src = step_loop_source(n_seqs, store_last, n_nit, n_nonseqs)
    env: dict[str, Any] = {}
    exec(compile(src, f"<theon-scan-loop {n_seqs}/{store_last}/{n_nit}>", "exec"), env)
    loop: Callable[..., Any] = env["_loop"]
    return loop


# -- the body inlined ---------------------------------------------------------------------
_FORBIDDEN = (ast.Return, ast.Yield, ast.YieldFrom, ast.Await, ast.Global, ast.Nonlocal,
              ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def _runner_body(source: str, n_params: int) -> tuple[list[str], list[ast.stmt], list[ast.expr],
                                                      bool] | None:
    """``(params, statements, returned expressions, quiet)`` of a py-linker runner's
    source ``def run(i0, ...): [_tok = _quiet(_ignore)] try: ...; return [...]``, or
    None when it is not of that shape."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    runs = [d for d in tree.body if isinstance(d, ast.FunctionDef) and d.name == "run"]
    if len(runs) != 1:
        return None
    run = runs[0]
    params = [a.arg for a in run.args.args]
    if len(params) != n_params or run.args.vararg or run.args.kwarg or run.args.kwonlyargs:
        return None
    body = list(run.body)
    quiet = bool(body) and ast.unparse(body[0]) == "_tok = _quiet(_ignore)"
    if quiet:
        body = body[1:]
    if len(body) != 1 or not isinstance(body[0], ast.Try):
        return None
    stmts = list(body[0].body)
    if not stmts or not isinstance(stmts[-1], ast.Return):
        return None
    ret = stmts[-1].value
    if not isinstance(ret, ast.List):
        return None
    stmts = stmts[:-1]
    for st in stmts:
        for sub in ast.walk(st):
            if isinstance(sub, _FORBIDDEN) or (
                    isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store)
                    and sub.id in params):
                return None
    return params, stmts, list(ret.elts), quiet


def _loop_names(n_seqs: int, n_st: int, n_nit: int, n_nonseqs: int) -> set[str]:
    """The names the inlined loop defines itself (a body using one is not inlined)."""
    names = {"_t", "_n", "_fn", "_seqs", "_bufs", "_ns", "_nits", "_rows", "_dtypes", "_bad",
             "_alloc", "_at", "_tok"}
    names.update(f"_s{i}" for i in range(n_seqs))
    names.update(f"_w{w}" for w in range(n_nonseqs))
    for j in range(n_st):
        names.update((f"_b{j}", f"_r{j}", f"_d{j}", f"_c{j}", f"_row{j}"))
    names.update(f"_v{k}" for k in range(n_st + n_nit))
    for m in range(n_nit):
        names.update((f"_y{m}", f"_n{m}"))
    return names


def _dot_into_row(stmts: list[ast.stmt], name: str, row: str, dot_names: set[str]) -> bool:
    """Give the first assignment ``name = DOT(a, b)`` (``DOT`` bound to ``numpy.dot``) the
    keyword ``out=row``, when ``name`` is assigned nowhere before it; True if done."""
    for st in stmts:
        if (isinstance(st, ast.Assign) and len(st.targets) == 1
                and isinstance(st.targets[0], ast.Name) and st.targets[0].id == name):
            v = st.value
            if (isinstance(v, ast.Call) and isinstance(v.func, ast.Name)
                    and v.func.id in dot_names and len(v.args) == 2 and not v.keywords
                    and not any(isinstance(a, ast.Starred) for a in v.args)):
                v.keywords.append(ast.keyword(arg="out", value=ast.Name(id=row, ctx=ast.Load())))
                return True
            return False
        if any(isinstance(sub, ast.Name) and sub.id == name for sub in ast.walk(st)):
            return False
    return False


def inline_step_loop_source(
    source: str, namespace: dict[str, Any], n_seqs: int, store_last: tuple[bool, ...],
    n_nit: int, n_nonseqs: int,
) -> str | None:
    """The text of a step loop with the runner's body written in it, or None.

    The loop has :func:`step_loop_source`'s signature and does the same work, but
    the body's lines run in the loop itself: no call of the runner, no setting of
    NumPy's error state and no list of outputs per step.  A state whose history is
    kept and whose value starts as ``numpy.dot(a, b)`` has the product written into
    its history row (``out=``): the later in-place lines finish it there, and the row
    is copied from the value only when the value is another array (``is not``).

    >>> src = '''def run(i0, i1):
    ...     try:
    ...         v0 = _dot0(i0, i1)
    ...         v0 += i0
    ...         return [v0]
    ...     except Exception as _e:
    ...         raise
    ... '''
    >>> text = inline_step_loop_source(src, {"_dot0": np.dot}, 0, (False,), 0, 1)
    >>> print(text.splitlines()[9].strip())
    v0 = _dot0(i0, i1, out=_row0)
    """
    n_st = len(store_last)
    parsed = _runner_body(source, n_seqs + n_st + n_nonseqs)
    if parsed is None:
        return None
    params, stmts, rets, quiet = parsed
    if len(rets) != n_st + n_nit:
        return None
    taken = _loop_names(n_seqs, n_st, n_nit, n_nonseqs)
    if any(isinstance(sub, ast.Name) and sub.id in taken
           for node in [*stmts, *rets] for sub in ast.walk(node)):
        return None
    dot_names = {k for k, v in namespace.items() if v is np.dot}
    rows: list[bool] = []
    for j in range(n_st):
        r = rets[j]
        rows.append(not store_last[j] and isinstance(r, ast.Name) and r.id not in params
                    and _dot_into_row(stmts, r.id, f"_row{j}", dot_names))
    seqs, ns, lines = _loop_head(n_seqs, n_st, n_nonseqs)
    first_ns = n_seqs + n_st
    for w in range(n_nonseqs):
        lines.append(f"    {params[first_ns + w]} = _w{w}")
    lines.append("    _t = 0")
    if quiet:
        lines.append("    _tok = _quiet(_ignore)")
    lines.append("    try:")
    # the rows of the sequences and of the histories written in place, by iteration
    # (a view per row, as indexing gives, without the indexing)
    names = ["_t", *params[:n_seqs], *(f"_row{j}" for j in range(n_st) if rows[j])]
    iters = ["range(_n)", *seqs, *(f"_b{j}[1:]" for j in range(n_st) if rows[j])]
    if len(names) == 1:
        lines.append("      for _t in range(_n):")
    else:
        lines.append(f"      for {', '.join(names)} in zip({', '.join(iters)}):")
    for j in range(n_st):
        lines.append(f"        {params[n_seqs + j]} = _c{j}")
    for st in stmts:
        lines.extend("        " + ln for ln in ast.unparse(st).splitlines())
    outs = [f"_v{k}" for k in range(len(rets))]
    lines.append(f"        {', '.join(outs)}, = {', '.join(ast.unparse(r) for r in rets)},")
    for j in range(n_st):
        lines.append(f"        _c{j} = _v{j}")
        check = (f"if _c{j}.shape != _r{j} or _c{j}.dtype != _d{j}: "
                 f"_c{j} = _bad({j}, _c{j})")
        if rows[j]:  # the history row itself has the state's shape and dtype
            lines.append(f"        if _c{j} is not _row{j}:")
            lines.append(f"            {check}")
            lines.append(f"            _b{j}[_t + 1] = _c{j}")
        else:
            lines.append(f"        {check}")
            if not store_last[j]:
                lines.append(f"        _b{j}[_t + 1] = _c{j}")
    lines += _loop_tail([f"_v{n_st + m}" for m in range(n_nit)], store_last, bool(quiet))
    return "\n".join(lines) + "\n"


def inline_step_loop(
    runner: Any, n_seqs: int, store_last: tuple[bool, ...], n_nit: int, n_nonseqs: int
) -> Callable[..., Any] | None:
    """The loop of :func:`inline_step_loop_source` for a py-linker ``runner``, run in the
    runner's own globals, or None when its body cannot be inlined (another linker, a
    runner that falls back to another one on errors, a body of another shape).

    The loop must not be trusted with errors: on any exception the caller runs the
    scan again with the generic loop, which reports the error with its node (the
    inlined lines are the runner's, so a step that fails here fails there too).
    """
    source = getattr(runner, "source", None)
    fn = getattr(runner, "fn", None)
    namespace = getattr(fn, "__globals__", None)
    if not isinstance(source, str) or namespace is None or namespace.get("_fallback") is not None:
        return None
    text = inline_step_loop_source(source, namespace, n_seqs, store_last, n_nit, n_nonseqs)
    if text is None:
        return None
    try:
        module = compile_cached(text, "scan-inlined")
    except SyntaxError:
        return None
    code = next(c for c in module.co_consts if isinstance(c, CodeType) and c.co_name == "_loop")
    loop = FunctionType(code, namespace, "_loop")
    loop.__dict__["inlined"] = True  # (read by Scan.perform: errors run the scan again)
    return loop
