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

from collections.abc import Callable
from typing import Any

__all__ = ["step_loop_source", "make_step_loop"]


def step_loop_source(n_seqs: int, store_last: tuple[bool, ...], n_nit: int, n_nonseqs: int) -> str:
    """The text of the generated loop for this layout (see the module docstring).

    >>> print(step_loop_source(0, (True,), 0, 0).splitlines()[6])
            _o = _fn(_c0)
    """
    n_st = len(store_last)
    seqs = [f"_s{i}" for i in range(n_seqs)]
    bufs = [f"_b{j}" for j in range(n_st)]
    ns = [f"_w{w}" for w in range(n_nonseqs)]
    lines = ["def _loop(_n, _fn, _seqs, _bufs, _ns, _nits, _rows, _dtypes, _bad, _alloc, _at):"]
    for names, src in ((seqs, "_seqs"), (bufs, "_bufs"), (ns, "_ns")):
        if names:
            lines.append(f"    {', '.join(names)}, = {src}")
    for j in range(n_st):
        lines.append(f"    _r{j}, _d{j}, _c{j} = _rows[{j}], _dtypes[{j}], _b{j}[0]")
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
    for m in range(n_nit):
        lines.append(f"        _y{m} = _o[{n_st + m}]")
        lines.append(f"        if not _t: _n{m} = _nits[{m}] = _alloc({m}, _y{m})")
        lines.append(f"        _n{m}[_t] = _y{m}")
    lines.append("    finally:")
    lines.append("        _at[0] = _t")
    for j in range(n_st):
        if store_last[j]:
            lines.append(f"    _b{j}[0] = _c{j}")
    lines.append("    return _t")
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
    return env["_loop"]  # type: ignore[no-any-return]
