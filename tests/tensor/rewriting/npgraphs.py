"""Wider random graphs, built with :class:`~tests.tensor.rewriting.graphgen.Builder`.

Two profiles share the step kinds below:

- :func:`build_numpy_graph`: everything theon promises to compute like NumPy:
  elementwise math on float64, float32, int32, int64 and int8 inputs (unary and
  binary, transcendental, with constants), comparisons with ``where``/``switch``,
  reductions with axes and keepdims, ``dot``/``matmul``, reshape, dimshuffle,
  transpose, basic and advanced indexing, ``set_subtensor``/``inc_subtensor``,
  ``concatenate``, ``cumsum``/``cumprod``, softmax forms, casts, and the rewrite
  patterns of :mod:`tests.tensor.rewriting.graphgen` (``x/x``, ``log(exp(x))``,
  ...).  Input values include 0, +-inf, nan, large and tiny numbers.  The graph
  also draws the elementwise kernel flags (``Graph.flags``): often a tiny block
  and no parallel threshold, so small arrays run through the threaded block kernel.
- :func:`build_smooth_graph`: float64 only, smooth ops on safe domains (each
  op's argument is mapped into the op's domain when it is not in it), for the
  finite-difference gradient test.

The slow run's mix (``NUMPY_MIX_LONG``) adds var/std over axes of static length 1
(or ``axis=()``) of values with inf and nan, logsumexp of integers with their
extreme values, sometimes of an empty slice, and the functions of issue 35 (tril/triu,
trace, pad, logaddexp, quantile, ptp, nansum/nanmean, isposinf/isneginf,
round_half_away_from_zero: :mod:`tests.tensor.rewriting.npgraphs_ns`).

Arrays are never empty (an empty slice or mask is redrawn as a full one; the
empty slice of a logsumexp stays inside its step).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import theon.tensor as tt
from tests.tensor.rewriting import optable as ot
from tests.tensor.rewriting.graphgen import (
    BINARY,
    UNARY,
    Builder,
    Entry,
    Graph,
    Rejected,
    Shape,
    _inputs,
    broadcast_shape,
    dimshuffle_spec,
    pow_spec,
    softmax_form,
)
from tests.tensor.rewriting.npgraphs_ns import NS_KINDS
from tests.tensor.rewriting.optable import OpSpec, op

__all__ = ["NS_MIX", "NUMPY_MIX", "NUMPY_MIX_LONG", "build_numpy_graph", "build_smooth_graph"]

F_SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, 30.0, -30.0, 1e-12, 1e3, -1e3, 1e-300,
             np.inf, -np.inf, np.nan]
I_SPECIAL = {"int8": [0, -1, 127, -128], "int32": [0, -1, 2**31 - 1, -(2**31), 100],
             "int64": [0, -1, 2**62, -(2**63), 100]}
CONSTS = [0, 1, 2, 0.5, -1, 3, 0.25, 2.5, 10, -0.5]
CONST_OPS = [("+", "add"), ("-", "sub"), ("*", "mul"), ("/", "div"), ("r-", "sub"),
             ("r/", "div"), ("//", "floordiv"), ("%", "mod"), ("max", "maximum"),
             ("min", "minimum"), ("<", "lt"), ("==", "eq")]
POWERS = [0, 1, 2, 3, 4, 0.5, -1, -0.5, 10, 2.5, -2]
CASTS = ["float32", "float64", "int32", "int64", "int8", "uint8", "bool"]
# (elemwise_block, elemwise_parallel_threshold, elemwise_threads); None: the defaults
KERNEL_FLAGS: list[tuple[int, int, int] | None] = [None, (1, 0, 0), (3, 0, 2), (5, 0, 3),
                                                   (2, 4, 0)]


def _numpy_inputs() -> list[tuple[Any, Shape]]:
    return [
        (tt.dvector("v"), (4,)),
        (tt.TensorType("float64", shape=(4,))("p"), (4,)),
        (tt.TensorType("float32", shape=(3, 4))("q"), (3, 4)),
        (tt.dvector("w"), (4,)),
        (tt.dmatrix("m"), (3, 4)),
        (tt.TensorType("float64", shape=(1, None))("r"), (1, 4)),
        (tt.TensorType("float64", shape=(None, 1))("c"), (3, 1)),
        (tt.dscalar("s"), ()),
        (tt.fvector("f"), (4,)),
        (tt.fmatrix("g"), (3, 4)),
        (tt.ivector("i"), (4,)),
        (tt.lmatrix("l"), (3, 4)),
        (tt.TensorType("int8", shape=(None,))("b"), (4,)),
        (tt.dmatrix("n"), (5, 8)),
    ]


def _numpy_values(rng: np.random.Generator, inputs: list[tuple[Any, Shape]], special: bool
                  ) -> list[np.ndarray]:
    vals = []
    for v, shape in inputs:
        dt = v.type.dtype
        if dt.startswith("float"):
            x = (rng.normal(size=shape) * 2).astype(dt)
            pool = F_SPECIAL
        else:
            x = rng.integers(-5, 6, size=shape).astype(dt)
            pool = I_SPECIAL[dt]
        if special and rng.integers(0, 2):
            flat = x.reshape(-1)
            for _ in range(int(rng.integers(1, 3))):
                flat[rng.integers(0, flat.size)] = pool[rng.integers(0, len(pool))]
        vals.append(np.asarray(x))
    return vals


def _smooth_inputs() -> list[tuple[Any, Shape]]:
    """The float64 inputs of the rewrite test's graphs (no float32, no integers)."""
    return [(v, sh) for v, sh in _inputs() if v.type.dtype == "float64"]


class _Ctx:
    """The builder and the profile's rules for one graph."""

    def __init__(self, b: Builder, smooth: bool) -> None:
        self.b = b
        self.smooth = smooth

    def ok(self, e: Entry) -> bool:
        """Whether a new entry is usable (smooth profile: finite, moderate values)."""
        if not self.smooth:
            return True
        v = np.asarray(e.value, dtype="float64")
        return bool(np.all(np.isfinite(v)) and np.all(np.abs(v) < 1e4))

    def into(self, x: Entry, domain: str | None) -> Entry | None:
        """``x`` mapped into ``domain`` (smooth profile), or ``x`` itself when it is in it."""
        if not self.smooth or domain is None:
            return x
        if domain not in ot.DOMAINS:
            return None
        pred, wrap = ot.DOMAINS[domain]
        if np.all(pred(np.asarray(x.value))):
            return x
        for name, c in wrap:
            x = self.b.fn(name, x) if c is None else self.b.fn(name, x, c)
        return x if np.all(pred(np.asarray(x.value))) else None


def _numeric(e: Entry) -> bool:
    return e.kind in "iuf"


def _unary(cx: _Ctx, a: Entry) -> Entry | None:
    b = cx.b
    table = [o for o in ot.UNARY if a.kind in o.kinds and (o.domain or not cx.smooth)]
    if not table:
        return None
    spec = b.choice(table)
    x = cx.into(a, spec.domain)
    if x is None:
        return None
    b.steps.append(f"{spec.name}({a.var})")
    return b.ap(spec, x)


# the safe domain of the rewrite patterns' argument (binary: of the second), for the
# smooth profile; patterns not listed are not smooth there
PATTERN_DOMAINS = {
    "log(1+x)": "gt-1", "log(1-x)": "unit", "exp(x)-1": "small", "1-exp(x)": "small",
    "log(sigmoid)": "all", "log(1-sigmoid)": "all", "1-sigmoid": "all", "log(exp)": "small",
    "log1p(exp)": "small", "log(1-exp)": "neg", "x-x": "all", "x/x": "nonzero",
    "--x": "all", "x*1": "all", "x+0": "all", "2*x*3": "all",
    "add": "all", "sub": "all", "mul": "all", "div": "nonzero", "x*y/y": "nonzero",
    "x+y-y": "all", "x/y*y": "nonzero", "-x*-y": "all",
}


def _pattern(cx: _Ctx, a: Entry) -> Entry | None:
    """One of the rewrite patterns of :mod:`graphgen` (``log(1 + x)``, ``x*y/y``, ...)."""
    b = cx.b
    if a.kind not in "iuf":
        return None
    if b.coin():
        name, mac = b.choice(UNARY)
        if cx.smooth:
            x = cx.into(a, PATTERN_DOMAINS.get(name, "none"))
            if x is None:
                return None
            a = x
        b.steps.append(f"{name}({a.var})")
        return mac(b, a)
    name, mac2 = b.choice(BINARY)
    y = b.pick(lambda e: _numeric(e) and broadcast_shape(a, e) is not None)
    if y is None:
        return None
    if cx.smooth:
        y = cx.into(y, PATTERN_DOMAINS.get(name, "none"))
        if y is None:
            return None
    b.steps.append(f"{name}({a.var}, {y.var})")
    return mac2(b, a, y)


def _chain(cx: _Ctx, a: Entry) -> Entry | None:
    """``(a op y) op f(z)``: a sum or product of three terms, one computed (fusion makes
    it one kernel step over three operands)."""
    b = cx.b
    if a.kind != "f":
        return None
    y = b.pick(lambda e: e.kind == "f" and broadcast_shape(a, e) is not None)
    z = b.pick(lambda e: e.kind == "f" and broadcast_shape(a, e) is not None)
    assert y is not None and z is not None
    if broadcast_shape(a, y, z) is None:
        return None
    name = b.choice(["add", "mul", "sub", "div"])
    fn = b.choice(["exp", "tanh", "sin", "sigmoid", "sqr"])
    fz = cx.into(z, op(fn).domain)
    if fz is None:
        return None
    t: Entry | None = b.fn(fn, fz)
    if name == "div":
        t = cx.into(t, "nonzero")  # (smooth profile: a denominator away from 0)
        if t is None:
            return None
    b.steps.append(f"{name}({name}({a.var}, {y.var}), {fn}({z.var}))")
    return b.fn(name, b.fn("mul" if name == "div" else name, a, y), t)


def _binary(cx: _Ctx, a: Entry) -> Entry | None:
    b = cx.b
    table = [o for o in ot.BINARY if a.kind in o.kinds and (o.domain or not cx.smooth)]
    if not table:
        return None
    spec = b.choice(table)
    y = b.pick(lambda e: e.kind in spec.kinds and broadcast_shape(a, e) is not None)
    if y is None:
        return None
    args = [a, y]
    if cx.smooth and spec.domain_arg == -1:
        diff = np.abs(np.asarray(a.value) - np.asarray(y.value))
        if a.var is y.var or not np.all(ot.DOMAINS["apart"][0](diff)):
            return None
    elif cx.smooth:
        k = spec.domain_arg
        w = cx.into(args[k], spec.domain)
        if w is None:
            return None
        args[k] = w
    b.steps.append(f"{spec.name}({a.var}, {y.var})")
    return b.ap(spec, *args)


def _const(cx: _Ctx, a: Entry) -> Entry | None:
    b = cx.b
    if not _numeric(a):
        return None
    c = b.choice(CONSTS)
    sym, name = b.choice(CONST_OPS)
    if cx.smooth:
        if sym in ("//", "%", "max", "min", "<", "=="):
            return None
        if sym == "r/":
            x = cx.into(a, "nonzero")
            if x is None:
                return None
            a = x
        if sym == "/" and c == 0:
            return None
    b.steps.append(f"({a.var} {sym} {c})")
    if sym.startswith("r"):
        return b.fn(name, c, a)
    return b.fn(name, a, c)


def _pow(cx: _Ctx, a: Entry) -> Entry | None:
    b = cx.b
    if not _numeric(a):
        return None
    p = b.choice(POWERS)
    if a.kind != "f" and (p < 0 or p != int(p)):
        a = b.ap(ot.cast_spec("float64"), a)
    if cx.smooth and (p < 0 or p != int(p)):
        x = cx.into(a, "pos")
        if x is None:
            return None
        a = x
    b.steps.append(f"{a.var}**{p}")
    return b.ap(pow_spec(p), a)


def _compare(cx: _Ctx, a: Entry) -> Entry | None:
    b = cx.b
    if cx.smooth:
        return None
    spec = b.choice(ot.COMPARE)
    y = b.pick(lambda e: e.kind in spec.kinds and broadcast_shape(a, e) is not None)
    if y is None or a.kind not in spec.kinds:
        return None
    b.steps.append(f"{spec.name}({a.var}, {y.var})")
    return b.ap(spec, a, y)


def _where(cx: _Ctx, a: Entry) -> Entry | None:
    """``where(cond, a, y)``; cond a bool entry or a comparison of an input with 0."""
    b = cx.b
    y = b.pick(lambda e: broadcast_shape(a, e) is not None)
    assert y is not None
    shp = broadcast_shape(a, y)
    if cx.smooth:
        # a condition on an input, away from its boundary (no step crosses it)
        cond_src = b.pick(lambda e: e.index < b.n_inputs and np.all(np.abs(e.value) > 0.05))
        if cond_src is None:
            return None
        cond = b.fn("gt", cond_src, 0)
    else:
        cond = b.pick(lambda e: e.kind == "b")
        if cond is None or b.coin():
            src = b.pick(lambda e: _numeric(e))
            assert src is not None
            cond = b.fn(b.choice(["gt", "lt", "eq"]), src, b.choice([0, 1, 0.5]))
    for e in (a, y):
        if broadcast_shape(cond, e) is None:
            return None
    if broadcast_shape(cond, a, y) is None:
        return None
    spec = b.choice([ot.WHERE, ot.SWITCH])
    other: Any = y
    if not cx.smooth and b.coin():
        # TODO(finding-5): NumPy's where wraps -1 into an unsigned dtype; theon refuses
        other = b.choice([0, 1.5] if "u" in (a.kind, y.kind) else [0, 1.5, -1])
    b.steps.append(f"{spec.name}({cond.var}, {a.var}, {getattr(other, 'var', other)})"
                   f" shape {shp}")
    return b.ap(spec, cond, a, other)


def _reduce(cx: _Ctx, a: Entry) -> Entry | None:
    b = cx.b
    sh = a.shape
    if not sh:
        return None
    nd = len(sh)
    axes: list[Any] = [None, *range(nd), -1]
    if nd >= 2:
        axes.append((0, nd - 1))
    axis = b.choice(axes)
    keep = b.coin()
    names = ["sum", "prod", "max", "min", "mean", "any", "all"]
    if cx.smooth:
        names = ["sum", "prod", "max", "min", "mean"]
    name = b.choice(names)
    if axis is None:
        red = tuple(range(nd))
    elif isinstance(axis, tuple):
        red = axis
    else:
        red = (axis % nd,)
    n = int(np.prod([sh[d] for d in red]))
    b.steps.append(f"{name}({a.var}, axis={axis}, keepdims={keep})")
    return b.ap(ot.red_spec(name, axis, keep, n), a)


def _cum(cx: _Ctx, a: Entry) -> Entry | None:
    b = cx.b
    sh = a.shape
    if not sh or a.kind == "b" and cx.smooth:
        return None
    axis = b.choice([None, *range(len(sh))])
    name = b.choice(["cumsum", "cumprod"])
    n = int(np.prod(sh)) if axis is None else sh[axis]
    b.steps.append(f"{name}({a.var}, axis={axis})")
    return b.ap(ot.cum_spec(name, axis, n), a)


def _dot(cx: _Ctx, a: Entry) -> Entry | None:
    b = cx.b
    sh = a.shape
    if len(sh) not in (1, 2) or not _numeric(a):
        return None
    name = b.choice(["dot", "matmul"])
    y = b.pick(lambda e: _numeric(e) and len(e.shape) in (1, 2) and e.shape[0] == sh[-1])
    if y is None:
        return None
    if name == "matmul" and any(np.any(p.value == 0) and not np.all(np.isfinite(q.value))
                                for p, q in ((a, y), (y, a))):
        name = "dot"  # TODO(finding-7): matmul of <= 2-d is np.dot, which skips 0 * inf
    b.steps.append(f"{name}({a.var}, {y.var})")
    return b.ap(ot.dot_spec(name, sh[-1]), a, y)


_SHAPES = {1: [(), (1,), (1, 1)], 3: [(3,), (3, 1), (1, 3)],
           4: [(4,), (2, 2), (1, 4), (4, 1), (2, 1, 2)],
           12: [(12,), (2, 6), (6, 2), (4, 3), (3, 4), (2, 3, 2), (12, 1), (1, 12)],
           16: [(16,), (4, 4), (2, 8), (2, 2, 4)],
           40: [(40,), (8, 5), (4, 10), (2, 4, 5), (5, 8)]}


def _reshape(cx: _Ctx, a: Entry) -> Entry | None:
    b = cx.b
    size = int(np.prod(a.shape))
    opts = _SHAPES.get(size)
    if not opts:
        return None
    shape = b.choice(opts)
    form = b.choice(["tuple", "minus1", "flatten"])
    if form == "flatten" or not shape:
        spec = ot.shape_spec("flatten", lambda x: tt.flatten(x), lambda x: np.ravel(x), True)
    else:
        target = tuple(shape)
        if form == "minus1":
            k = b.draw(b.st.integers(0, len(target) - 1))
            target = target[:k] + (-1,) + target[k + 1:]
        spec = ot.shape_spec(f"reshape{target}", lambda x, t=target: tt.reshape(x, t),
                             lambda x, t=target: np.reshape(x, t), True)
    b.steps.append(f"{spec.name}({a.var})")
    return b.ap(spec, a)


def _dimshuffle(cx: _Ctx, a: Entry) -> Entry | None:
    b = cx.b
    nd = len(a.shape)
    perm = list(range(nd))
    if nd >= 2:
        b.draw.rng.shuffle(perm)
    order: list[Any] = [d for d in perm if not (a.var.type.shape[d] == 1 and b.coin())]
    if b.coin() or not order:
        order.insert(b.draw(b.st.integers(0, len(order))), "x")
    if b.coin() and nd >= 2:
        axes = tuple(perm)
        spec = ot.shape_spec(f"transpose{axes}", lambda x: tt.transpose(x, axes),
                             lambda x: np.transpose(x, axes), axes == tuple(range(nd)))
        b.steps.append(f"{spec.name}({a.var})")
        return b.ap(spec, a)
    b.steps.append(f"{a.var}.dimshuffle{tuple(order)}")
    return b.ap(dimshuffle_spec(tuple(order)), a)


def _basic_index(b: Builder, sh: Shape) -> tuple[Any, ...]:
    idx: list[Any] = []
    for d in range(b.draw(b.st.integers(1, len(sh)))):
        n = sh[d]
        t = b.choice(["int", "slice", "full"])
        if t == "int":
            idx.append(b.draw(b.st.integers(-n, n - 1)))
        elif t == "slice":
            sl = slice(b.choice([None, *range(-n, n)]), b.choice([None, *range(-n, n + 1)]),
                       b.choice([None, 1, 2, -1, -2]))
            idx.append(sl if len(range(*sl.indices(n))) else slice(None))
        else:
            idx.append(slice(None))
    return tuple(idx)


def _index_spec(b: Builder, a: Entry, smooth: bool = False
                ) -> tuple[OpSpec, list[Entry]] | None:
    """An indexing of ``a``: basic, constant integer arrays, a mask, or a data-dependent
    integer index (``x[i % n]``); the spec takes ``a`` and the listed extra entries."""
    sh = a.shape
    t = b.choice(["basic", "basic", "intarray", "two", "mask", "data"])
    if t == "basic":
        idx: Any = _basic_index(b, sh)
    elif t in ("intarray", "two"):
        d = b.draw(b.st.integers(0, len(sh) - 1)) if t == "intarray" else 0
        k = b.draw(b.st.integers(1, 5))
        arr = b.draw.rng.integers(-sh[d], sh[d], size=k)
        idx = (slice(None),) * d + (arr,)
        if t == "two" and len(sh) >= 2:
            idx = (arr, b.draw.rng.integers(-sh[1], sh[1], size=k))
    elif t == "mask":
        src = b.pick(lambda e: e.index < b.n_inputs and e.kind in "iuf" and e.shape
                     and e.shape == sh[: len(e.shape)])
        if src is None or not np.any(np.asarray(src.value) > 0):
            return None
        if smooth and np.any(np.abs(src.value) < 0.05):
            return None  # a finite-difference step could move the mask
        spec = ot.shape_spec("x[mask > 0]", lambda x, s: x[s > 0],
                             lambda x, s: np.asarray(x)[np.asarray(s) > 0])
        return spec, [src]
    else:
        src = b.pick(lambda e: e.kind in "iu" and len(e.shape) in (1, 2))
        if src is None:
            return None
        d = b.draw(b.st.integers(0, len(sh) - 1))
        k = b.fn("mod", src, sh[d])
        pre = (slice(None),) * d
        spec = ot.shape_spec(f"x[{pre} + (i % {sh[d]},)]", lambda x, j: x[pre + (j,)],
                             lambda x, j: np.asarray(x)[pre + (j,)])
        return spec, [k]
    full = all(isinstance(i, slice) and i == slice(None) for i in idx)
    spec = ot.shape_spec(f"x[{idx}]", lambda x: x[idx], lambda x: np.asarray(x)[idx], full)
    return spec, []


def _index(cx: _Ctx, a: Entry) -> Entry | None:
    got = _index_spec(cx.b, a, cx.smooth) if a.shape else None
    if got is None:
        return None
    spec, extra = got
    cx.b.steps.append(f"{spec.name} of {a.var}")
    return cx.b.ap(spec, a, *extra)


def _setinc(cx: _Ctx, a: Entry) -> Entry | None:
    """``set_subtensor``/``inc_subtensor`` through an index of ``a``."""
    b = cx.b
    got = _index_spec(b, a, cx.smooth) if a.shape else None
    if got is None:
        return None
    spec, extra = got
    target = np.shape(spec.ref(a.value, *[e.value for e in extra]))
    inc = b.coin()

    def fits(e: Entry) -> bool:
        try:
            ok = np.broadcast_shapes(e.shape, target) == target
        except ValueError:
            return False
        return ok and np.can_cast(e.dtype, a.dtype, "same_kind")

    y: Any = b.pick(fits)
    if y is None:
        return None
    tname = "inc" if inc else "set"
    get = spec.build

    def build(x: Any, v: Any, *ex: Any) -> Any:
        sub = get(x, *ex)
        return tt.inc_subtensor(sub, v) if inc else tt.set_subtensor(sub, v)

    def ref(x: Any, v: Any, *ex: Any) -> Any:
        out = np.array(x, copy=True)
        probe = np.arange(out.size).reshape(out.shape)
        where = spec.ref(probe, *ex)  # the flat positions the index selects
        vals = np.broadcast_to(np.asarray(v), np.shape(where))
        flat = out.reshape(-1)
        if inc:
            np.add.at(flat, np.asarray(where).reshape(-1), vals.reshape(-1))
        else:
            flat[np.asarray(where).reshape(-1)] = vals.reshape(-1)
        return flat.reshape(out.shape)

    # theon adds y cast to x's dtype, NumPy's ufunc.at in the wider dtype: with k
    # writes to one element, the backward error of a sum of k + 1 terms
    pos = np.asarray(spec.ref(np.arange(a.value.size).reshape(a.shape),
                              *[e.value for e in extra]))
    k = int(np.bincount(pos.reshape(-1)).max()) if pos.size else 0
    op_ = OpSpec(f"{tname}_subtensor[{spec.name}]", build, ref,
                 ot.Err(inp=k + 1) if inc and y.dtype != a.dtype else ot.EXACT,
                 kinds="iufb", domain="all")
    b.steps.append(f"{op_.name}({a.var}, {y.var})")
    return b.ap(op_, a, y, *extra)


def _concat(cx: _Ctx, a: Entry) -> Entry | None:
    b = cx.b
    sh = a.shape
    if not sh:
        return None
    axis = b.draw(b.st.integers(0, len(sh) - 1))

    def fits(e: Entry) -> bool:
        s = e.shape
        return len(s) == len(sh) and all(x == y for d, (x, y) in enumerate(zip(s, sh))
                                         if d != axis)

    parts = [a] + [p for p in (b.pick(fits), b.pick(fits) if b.coin() else None) if p]
    ax = axis if b.coin() else axis - len(sh)
    spec = ot.shape_spec(f"concatenate(axis={ax})", lambda *xs: tt.concatenate(xs, axis=ax),
                         lambda *xs: np.concatenate(xs, axis=ax))
    b.steps.append(f"{spec.name}({', '.join(str(p.var) for p in parts)})")
    return b.ap(spec, *parts)


def _softmax(cx: _Ctx, a: Entry) -> Entry | None:
    b = cx.b
    if not a.shape or a.kind != "f":
        return None
    axis = b.choice([-1, 0])
    form = b.choice(["manual", "op", "log_op", "logsumexp", "log_manual", "log_softmax",
                     "logsumexp_op"])
    if cx.smooth and form in ("manual", "log_manual", "logsumexp") and np.any(
            np.abs(a.value) > 30):
        return None
    b.steps.append(f"{form}({a.var}, axis={axis})")
    if form == "log_softmax":
        return b.ap(ot.softmax_spec("log_softmax", axis), a)
    if form == "logsumexp_op":
        return b.ap(ot.softmax_spec("logsumexp", axis), a)
    return softmax_form(b, a, form, axis)


def _cast(cx: _Ctx, a: Entry) -> Entry | None:
    b = cx.b
    dt = b.choice(CASTS)
    v = np.asarray(a.value)
    if a.kind == "f" and np.dtype(dt).kind in "iu":
        info = np.iinfo(dt)
        w = v.astype("float64")
        if not np.all(np.isfinite(w)) or np.any(w <= info.min - 1) or np.any(w >= info.max + 1):
            return None  # C casts of out-of-range floats differ between machines
    b.steps.append(f"cast({a.var}, {dt})")
    return b.ap(ot.cast_spec(dt), a)


def _unit_var(cx: _Ctx, a: Entry) -> Entry | None:
    """var / std over axes of static length 1 (or ``axis=()``), where NumPy's
    ``x - mean(x)`` is ``x - x``: nan for inf and nan entries."""
    b = cx.b
    if a.kind == "b":
        return None
    static = a.var.type.shape
    ones = [d for d, s in enumerate(static) if s == 1]
    axes: list[Any] = [()]
    if ones:
        axes += [ones[0], tuple(ones), ones[0] - len(static)]
    if len(ones) == len(static):
        axes.append(None)
    axis = b.choice(axes)
    name, ddof, keep = b.choice(["var", "std"]), b.choice([0, 0, 1]), b.coin()
    b.steps.append(f"{name}({a.var}, axis={axis}, ddof={ddof}, keepdims={keep})")
    return b.ap(ot.unit_var_spec(name, axis, ddof, keep), a)


def _int_logsumexp(cx: _Ctx, a: Entry) -> Entry | None:
    """logsumexp of integers (extreme values shift in float64, never in int64), sometimes
    of an empty slice (-inf)."""
    b = cx.b
    if a.kind not in "iub":
        return None
    nd = len(a.shape)
    empty = nd > 0 and b.coin()
    axis = b.choice([None, nd - 1, -1] if empty else [None, *range(nd), -1] if nd else [None])
    keep = b.coin()
    b.steps.append(f"logsumexp({a.var}{'[..., :0]' if empty else ''}, axis={axis}, "
                   f"keepdims={keep})")
    return b.ap(ot.int_logsumexp_spec(axis, keep, empty), a)


Kind = Callable[[_Ctx, Entry], Entry | None]
KINDS: dict[str, Kind] = {
    "unary": _unary, "pattern": _pattern, "binary": _binary, "chain": _chain,
    "const": _const, "pow": _pow,
    "compare": _compare, "where": _where, "reduce": _reduce, "cum": _cum, "dot": _dot,
    "reshape": _reshape, "dimshuffle": _dimshuffle, "index": _index, "setinc": _setinc,
    "concat": _concat, "softmax": _softmax, "cast": _cast,
    "unit_var": _unit_var, "int_logsumexp": _int_logsumexp,
    **NS_KINDS,
}
NUMPY_MIX = ["unary", "unary", "pattern", "binary", "binary", "chain", "const", "pow",
             "compare", "where", "reduce", "cum", "dot", "reshape", "dimshuffle", "index", "setinc",
             "concat", "softmax", "cast"]
# the slow run's mix adds the families of issue 29 (var/std over length-1 axes of
# non-finite values; logsumexp of extreme and empty integer arrays) and issue 35's
# functions (tests/tensor/rewriting/npgraphs_ns.py)
NUMPY_MIX_LONG = [*NUMPY_MIX, "unit_var", "int_logsumexp", *NS_KINDS]
# the CI run of issue 35's functions: each of them drawn about as often as the
# everyday steps together, which build what they read
NS_MIX = ["unary", "binary", "pattern", "reduce", "index", "dimshuffle", "setinc",
          *NS_KINDS, *NS_KINDS]
SMOOTH_MIX = ["unary", "unary", "pattern", "binary", "binary", "chain", "const", "pow",
              "where", "reduce", "cum", "dot", "reshape", "dimshuffle", "index", "setinc", "concat",
              "softmax"]


def _grow(b: Builder, cx: _Ctx, mix: list[str], n: int) -> None:
    for _ in range(n):
        kind = b.choice(mix)
        a = b.pick()
        assert a is not None
        try:
            new = KINDS[kind](cx, a)
        except Rejected as e:
            b.steps.append(f"(rejected by both: {e})")
            continue
        if new is not None and cx.ok(new):
            b.pool.append(new)


def _outputs(b: Builder, most: int = 4) -> list[Entry]:
    """The last entry, the other dead ends (entries nothing reads) and maybe one
    intermediate result, at most ``most``."""
    read = {a for st in b.program for a in st.args if isinstance(a, int) and st.op}
    ends = [e for e in b.pool[b.n_inputs: -1] if e.index not in read]
    chosen = [b.pool[-1]]
    inner = b.pool[b.n_inputs: -1]
    if inner and b.coin():  # an intermediate result that other steps read, too
        ends.append(b.choice(inner))
    for e in reversed(ends):
        if len(chosen) < most and all(e.var is not c.var for c in chosen):
            chosen.append(e)
    return chosen


def build_numpy_graph(seed: int, max_steps: int = 12, mix: list[str] = NUMPY_MIX) -> Graph:
    """The random NumPy-profile graph of ``seed`` (see the module docstring), its steps
    drawn from ``mix``."""
    rng = np.random.default_rng([seed, 1])
    inputs = _numpy_inputs()
    values = _numpy_values(rng, inputs, special=bool(rng.integers(0, 2)))
    b = Builder(seed, inputs, values)
    cx = _Ctx(b, smooth=False)
    _grow(b, cx, mix, b.draw(b.st.integers(1, max_steps)))
    g = b.graph(_outputs(b), shadow=False)
    _draw_flags(b, g)
    return g


def _draw_flags(b: Builder, g: Graph) -> None:
    """The elementwise kernel flags ``g`` is compiled under (often tiny blocks)."""
    flags = b.choice(KERNEL_FLAGS)
    if flags is not None:
        g.flags = dict(zip(("elemwise_block", "elemwise_parallel_threshold",
                            "elemwise_threads"), flags))


def build_smooth_graph(seed: int, max_steps: int = 6) -> Graph:
    """The random smooth float64 graph of ``seed`` (see the module docstring)."""
    rng = np.random.default_rng([seed, 2])
    inputs = _smooth_inputs()
    values = [np.asarray(rng.uniform(-1.5, 1.5, size=s)) for _, s in inputs]
    b = Builder(seed, inputs, values)
    cx = _Ctx(b, smooth=True)
    _grow(b, cx, SMOOTH_MIX, b.draw(b.st.integers(1, max_steps)))
    if len(b.pool) == b.n_inputs:
        b.pool.append(b.fn("exp", b.pool[0]))
        b.steps.append("exp(v)")
    g = b.graph(_outputs(b), shadow=False)
    _draw_flags(b, g)
    return g
