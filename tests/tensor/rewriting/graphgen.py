"""Random tensor graphs for the differential and invariant tests (a hypothesis strategy).

A graph grows from a fixed set of inputs (vectors, a matrix, a row, a column, a
scalar, float32 and int32 vectors) by drawing operations whose operands fit:
elementwise unary and binary ops, constants (0, 1, 2, 0.5, -1), constant
powers, the stabilize and specialize patterns (``log(1+x)``, ``log(sigmoid(x))``,
``exp(x)/sum(exp(x))``, ``x*y/y``, ``z + a*dot(x, y)``, ...), dimshuffles,
reductions and dot products.  The runtime shape of every intermediate is tracked,
so only graphs that run are built.  Building is cheap: no compilation here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from hypothesis import strategies as st

import theon.tensor as tt
from theon.graph.basic import Variable
from theon.tensor.special import softmax

Shape = tuple[int, ...]


@dataclass
class Graph:
    """Inputs, outputs, input values, and a description of how it was built."""

    inputs: list[Variable]
    outputs: list[Variable]
    values: list[np.ndarray]
    steps: list[str] = field(default_factory=list)
    shadow: Graph | None = None

    def __repr__(self) -> str:
        return "Graph(" + "; ".join(self.steps) + ")"


def _inputs(f_dtype: str = "float32") -> list[tuple[Variable, Shape]]:
    return [
        (tt.dvector("v"), (4,)),
        (tt.dvector("w"), (4,)),
        (tt.dmatrix("m"), (3, 4)),
        (tt.TensorType("float64", shape=(1, None))("r"), (1, 4)),
        (tt.TensorType("float64", shape=(None, 1))("c"), (3, 1)),
        (tt.dscalar("s"), ()),
        (tt.vector("f", dtype=f_dtype), (4,)),
        (tt.ivector("i"), (4,)),
    ]


def _values(rng: np.random.Generator, special: bool) -> list[np.ndarray]:
    vals = [
        rng.normal(size=4) * 2,
        rng.normal(size=4) * 2,
        rng.normal(size=(3, 4)) * 2,
        rng.normal(size=(1, 4)) * 2,
        rng.normal(size=(3, 1)) * 2,
        np.asarray(rng.normal() * 2),
        (rng.normal(size=4) * 2).astype("float32"),
        rng.integers(-5, 6, size=4).astype("int32"),
    ]
    if special:
        pick = np.array([0.0, 1.0, -1.0, 30.0, -30.0, 1e-12])
        for k in (0, 2, 6):
            flat = vals[k].reshape(-1)
            idx = rng.integers(0, flat.size)
            flat[idx] = pick[rng.integers(0, pick.size)]
    return vals


def _is_float(v: Variable) -> bool:
    return str(v.type.dtype).startswith("float")  # type: ignore[attr-defined]


def _broadcastable(a: tuple[Any, ...], b: tuple[Any, ...]) -> Shape | None:
    """The result shape of an elementwise op on pool entries ``a`` and ``b`` (None: no)."""
    va, sa = a[0], a[-1]
    vb, sb = b[0], b[-1]
    nd = max(len(sa), len(sb))
    ta = (1,) * (nd - len(sa)) + tuple(va.type.shape)  # type: ignore[attr-defined]
    tb = (1,) * (nd - len(sb)) + tuple(vb.type.shape)  # type: ignore[attr-defined]
    ra = (1,) * (nd - len(sa)) + sa
    rb = (1,) * (nd - len(sb)) + sb
    out = []
    for x, y, stx, sty in zip(ra, rb, ta, tb):
        if x == y:
            out.append(x)
        elif x == 1 and stx == 1:
            out.append(y)
        elif y == 1 and sty == 1:
            out.append(x)
        else:
            return None
    return tuple(out)


UNARY: list[tuple[str, Callable[[Any], Any]]] = [
    ("neg", tt.neg), ("exp", tt.exp), ("log", tt.log), ("log1p", tt.log1p),
    ("expm1", tt.expm1), ("sigmoid", tt.sigmoid), ("softplus", tt.softplus), ("sqr", tt.sqr),
    ("sqrt", tt.sqrt), ("abs", tt.abs), ("tanh", tt.tanh), ("reciprocal", tt.reciprocal),
    ("copy", tt.tensor_copy),
    ("log(1+x)", lambda x: tt.log(1 + x)), ("log(1-x)", lambda x: tt.log(1 - x)),
    ("exp(x)-1", lambda x: tt.exp(x) - 1), ("1-exp(x)", lambda x: 1 - tt.exp(x)),
    ("log(sigmoid)", lambda x: tt.log(tt.sigmoid(x))),
    ("log(1-sigmoid)", lambda x: tt.log(1 - tt.sigmoid(x))),
    ("1-sigmoid", lambda x: 1 - tt.sigmoid(x)), ("log(exp)", lambda x: tt.log(tt.exp(x))),
    ("log1p(exp)", lambda x: tt.log1p(tt.exp(x))),
    ("log(1-exp)", lambda x: tt.log(1 - tt.exp(x))),
    ("x-x", lambda x: x - x), ("x/x", lambda x: x / x), ("--x", lambda x: tt.neg(tt.neg(x))),
    ("x*1", lambda x: x * 1), ("x+0", lambda x: x + 0), ("2*x*3", lambda x: 2 * x * 3),
]

BINARY: list[tuple[str, Callable[[Any, Any], Any]]] = [
    ("add", tt.add), ("sub", tt.sub), ("mul", tt.mul), ("div", tt.true_div),
    ("maximum", tt.maximum), ("minimum", tt.minimum),
    ("x*y/y", lambda x, y: x * y / y), ("x+y-y", lambda x, y: x + y - y),
    ("x/y*y", lambda x, y: (x / y) * y), ("-x*-y", lambda x, y: (-x) * (-y)),
]

CONSTS = [0, 1, 2, 0.5, -1, 2.0]
POWERS = [0, 1, 2, 3, 4, 0.5, -1, -0.5, 10, 2.5, -2]


class _Chooser:
    """Draws choices uniformly from a seeded generator (hypothesis draws only the seed,
    so every operation is equally likely, rather than biased toward the first ones)."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def __call__(self, strategy: Any) -> Any:
        kind, arg = strategy
        if kind == "int":
            lo, hi = arg
            return int(self.rng.integers(lo, hi + 1))
        if kind == "bool":
            return bool(self.rng.integers(0, 2))
        return arg[int(self.rng.integers(0, len(arg)))]


class _St:
    """The few strategy shapes the builder uses, for :class:`_Chooser`."""

    @staticmethod
    def integers(lo: int, hi: int) -> Any:
        return ("int", (lo, hi))

    @staticmethod
    def booleans() -> Any:
        return ("bool", None)

    @staticmethod
    def sampled_from(items: Any) -> Any:
        return ("sample", list(items))


@st.composite
def graphs(draw_h: Any, max_steps: int = 6) -> Graph:
    """A random graph that runs on its input values."""
    seed = draw_h(st.integers(0, 2**32 - 1))
    return build_graph(seed, max_steps)


def build_graph(seed: int, max_steps: int = 6) -> Graph:
    """The random graph of ``seed`` (at most ``max_steps`` operations).

    Its ``shadow`` is the same graph with the float32 input in float64 (same
    values): a more precise oracle for the float32 parts.
    """
    draw = _Chooser(seed)
    st = _St
    prim = _inputs("float32")
    shad = _inputs("float64")
    # pool entries: (variable, its shadow, runtime shape); choices look at the variable only
    pool: list[tuple[Any, Any, Shape]] = [(a, b, sh) for (a, sh), (b, _) in zip(prim, shad)]
    inputs = [v for v, _, _ in pool]
    special = draw(st.booleans())
    values = _values(draw.rng, special)
    steps: list[str] = [f"seed={seed}"]
    n = draw(st.integers(1, max_steps))

    def pick(pred: Callable[[tuple[Any, Any, Shape]], bool] = lambda e: True) -> Any:
        cands = [e for e in pool if pred(e)]
        if not cands:
            return None
        return cands[draw(st.integers(0, len(cands) - 1))]

    def ap(fn: Callable[..., Any], *ents: tuple[Any, Any, Shape], shape: Shape) -> Any:
        return (fn(*[e[0] for e in ents]), fn(*[e[1] for e in ents]), shape)

    for _ in range(n):
        kind = draw(st.sampled_from(
            ["unary", "unary", "binary", "binary", "const", "pow", "dimshuffle",
             "reduce", "softmax", "dot"]
        ))
        a = pick()
        av, _, ash = a
        new: Any = None
        if kind == "unary":
            name, fn = draw(st.sampled_from(UNARY))
            new = ap(fn, a, shape=ash)
            steps.append(f"{name}({av})")
        elif kind == "binary":
            name, fn = draw(st.sampled_from(BINARY))
            b = pick(lambda e, a=a: _broadcastable(a, e) is not None)
            shp = _broadcastable(a, b)
            assert shp is not None
            new = ap(fn, a, b, shape=shp)
            steps.append(f"{name}({av}, {b[0]})")
        elif kind == "const":
            c = draw(st.sampled_from(CONSTS))
            op = draw(st.sampled_from(["+", "-", "*", "/", "r-", "r/"]))
            fn1 = {"+": tt.add, "-": tt.sub, "*": tt.mul, "/": tt.true_div}.get(op)
            if fn1 is not None:
                new = ap(lambda x, fn1=fn1, c=c: fn1(x, c), a, shape=ash)
            else:
                fn2 = tt.sub if op == "r-" else tt.true_div
                new = ap(lambda x, fn2=fn2, c=c: fn2(c, x), a, shape=ash)
            steps.append(f"({av} {op} {c})")
        elif kind == "pow":
            p = draw(st.sampled_from(POWERS))
            if not _is_float(av) and (p < 0 or p != int(p)):
                a = ap(lambda x: tt.cast(x, "float64"), a, shape=ash)
            new = ap(lambda x, p=p: x**p, a, shape=ash)
            steps.append(f"{av}**{p}")
        elif kind == "dimshuffle":
            nd = len(ash)
            if nd == 2:
                opts = [(1, 0)]
                if av.type.shape[0] == 1:
                    opts.append((1,))
                if av.type.shape[1] == 1:
                    opts.append((0,))
            elif nd == 1:
                opts = [("x", 0), (0, "x")]
            else:
                opts = [("x",)]
            order = draw(st.sampled_from(opts))
            shp = tuple(1 if o == "x" else ash[o] for o in order)
            twice = draw(st.booleans()) and nd == 2 and order == (1, 0)
            new = ap(lambda x, o=order, t=twice: x.dimshuffle(*o).T if t else x.dimshuffle(*o),
                     a, shape=ash if twice else shp)
            steps.append(f"{av}.dimshuffle{order}" + (".T" if twice else ""))
        elif kind == "reduce" and ash:
            axis = draw(st.sampled_from([None, *range(len(ash))]))
            keep = draw(st.booleans())
            name, red = draw(st.sampled_from(
                [("sum", tt.sum), ("max", tt.max), ("mean", tt.mean), ("prod", tt.prod)]
            ))
            if keep:
                shp = tuple(1 if axis is None or d == axis else s for d, s in enumerate(ash))
            else:
                shp = tuple(s for d, s in enumerate(ash) if axis is not None and d != axis)
            new = ap(lambda x, r=red, ax=axis, k=keep: r(x, axis=ax, keepdims=k), a, shape=shp)
            steps.append(f"{name}({av}, axis={axis}, keepdims={keep})")
        elif kind == "softmax" and ash and _is_float(av):
            axis = draw(st.sampled_from([-1, 0]))
            form = draw(st.sampled_from(["manual", "op", "log_op", "logsumexp", "log_manual"]))

            def build(x: Any, form: str = form, axis: int = axis) -> Any:
                e = tt.exp(x)
                if form == "manual":
                    return e / tt.sum(e, axis=axis, keepdims=True)
                if form == "op":
                    return softmax(x, axis=axis)
                if form == "log_op":
                    return tt.log(softmax(x, axis=axis))
                if form == "log_manual":
                    return tt.log(e / tt.sum(e, axis=axis, keepdims=True))
                return tt.log(tt.sum(e, axis=axis))

            shp = ash if form != "logsumexp" else tuple(
                s for d, s in enumerate(ash) if d != axis % len(ash)
            )
            new = ap(build, a, shape=shp)
            steps.append(f"{form}({av}, axis={axis})")
        elif kind == "dot" and len(ash) in (1, 2) and av.type.dtype == "float64":
            b = pick(lambda e, ash=ash: len(e[2]) in (1, 2) and e[2] and e[2][0] == ash[-1]
                     and e[0].type.dtype == "float64"
                     and not (len(ash) == 1 and len(e[2]) == 1 and ash[0] == 1))
            if b is not None:
                shp = ash[:-1] + b[2][1:]
                z = pick(lambda e, shp=shp: e[2] == shp and _is_float(e[0]))
                if z is not None and shp and draw(st.booleans()):
                    scale = draw(st.sampled_from([1.0, 2.0, -1.0]))
                    new = ap(lambda x, y, w, k=scale: w + k * tt.dot(x, y), a, b, z, shape=shp)
                    steps.append(f"{z[0]} + {scale}*dot({av}, {b[0]})")
                else:
                    new = ap(tt.dot, a, b, shape=shp)
                    steps.append(f"dot({av}, {b[0]})")
        if new is not None:
            pool.append(new)
    chosen = [pool[-1]]
    if len(pool) > len(inputs) + 1 and draw(st.booleans()):
        extra = pool[draw(st.integers(len(inputs), len(pool) - 2))]
        if extra[0] is not chosen[0][0]:
            chosen.append(extra)
    shadow = Graph([e[1] for e in pool[: len(inputs)]], [e[1] for e in chosen],
                   [np.asarray(v, dtype="float64") if k == 6 else v for k, v in enumerate(values)],
                   steps)
    return Graph(inputs, [e[0] for e in chosen], values, steps, shadow=shadow)
