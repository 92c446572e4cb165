"""Random tensor graphs for the differential and invariant tests (a hypothesis strategy).

A graph grows from a fixed set of inputs (vectors, a matrix, a row, a column, a
scalar, float32 and int32 vectors) by drawing operations whose operands fit:
elementwise unary and binary ops, constants (0, 1, 2, 0.5, -1), constant
powers, the stabilize and specialize patterns (``log(1+x)``, ``log(sigmoid(x))``,
``exp(x)/sum(exp(x))``, ``x*y/y``, ``z + a*dot(x, y)``, ...), dimshuffles,
reductions and dot products.  The runtime shape of every intermediate is tracked,
so only graphs that run are built.  Building is cheap: no compilation here.

Every operation is an entry of the op table (:mod:`tests.tensor.rewriting.optable`):
the builder (:class:`Builder`) applies it to the theon variables and, side by
side, to their NumPy values, and records it in the graph's NumPy program
(``Graph.program``), which :mod:`tests.tensor.rewriting.numpy_oracle` evaluates
without theon.  :mod:`tests.tensor.rewriting.npgraphs` grows wider graphs (indexing,
joining, casts, ...) with the same builder.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from hypothesis import strategies as st

import theon.tensor as tt
from tests.tensor.rewriting import optable as ot
from tests.tensor.rewriting.optable import OpSpec, op
from theon.graph.basic import Variable

Shape = tuple[int, ...]


@dataclass(frozen=True)
class Const:
    """A constant argument of a program step (a Python number: weak, as in theon)."""

    value: Any


@dataclass(frozen=True)
class Step:
    """One operation of a NumPy program: ``op.ref(*args)``.

    An ``int`` argument is the index of an earlier step, a :class:`Const` a
    constant.  ``op`` None: input number ``args[0]``.
    """

    op: OpSpec | None
    args: tuple[Any, ...]


@dataclass
class Graph:
    """Inputs, outputs, input values, and a description of how it was built.

    ``program`` computes the same graph with NumPy; ``outs`` are the program
    indices of the outputs.
    """

    inputs: list[Variable]
    outputs: list[Variable]
    values: list[np.ndarray]
    steps: list[str] = field(default_factory=list)
    shadow: Graph | None = None
    program: list[Step] = field(default_factory=list)
    outs: list[int] = field(default_factory=list)
    flags: dict[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        return "Graph(" + "; ".join(self.steps) + ")"


@dataclass
class Entry:
    """A pool entry: the theon variable, its float64 shadow, and its NumPy value."""

    var: Any
    shadow: Any
    index: int  # in the program
    value: np.ndarray

    @property
    def shape(self) -> Shape:
        return tuple(np.shape(self.value))

    @property
    def dtype(self) -> str:
        return str(self.var.type.dtype)

    @property
    def kind(self) -> str:
        return np.dtype(self.dtype).kind


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


def broadcast_shape(*ents: Entry) -> Shape | None:
    """The result shape of an elementwise op on ``ents`` (None: theon would reject it).

    A runtime length 1 broadcasts only where the static shape says 1.
    """
    nd = max(len(e.shape) for e in ents)
    out = []
    for d in range(nd):
        dims = []
        for e in ents:
            k = d - (nd - len(e.shape))
            if k < 0:
                dims.append((1, 1))
            else:
                dims.append((e.shape[k], e.var.type.shape[k]))
        sizes = {s for s, _ in dims}
        if len(sizes) == 1:
            out.append(sizes.pop())
            continue
        big = {s for s, stat in dims if stat != 1}
        if len(big) != 1:
            return None
        out.append(big.pop())
    return tuple(out)


class Rejected(Exception):
    """NumPy (and theon) reject an operation the generator drew: it is skipped."""


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


class Builder:
    """Grows a graph: a pool of entries, the NumPy program, and a description.

    ``ap(op, *args)`` applies a table op to entries and Python constants on both
    sides (and to the float64 shadow when there is one).
    """

    def __init__(self, seed: int, inputs: list[tuple[Variable, Shape]],
                 values: list[np.ndarray], shadow: list[tuple[Variable, Shape]] | None = None
                 ) -> None:
        self.seed = seed
        self.draw = _Chooser(seed)
        self.st = _St
        self.program: list[Step] = []
        self.pool: list[Entry] = []
        self.steps: list[str] = [f"seed={seed}"]
        self.values = values
        for k, (v, _) in enumerate(inputs):
            sv = shadow[k][0] if shadow is not None else None
            self.program.append(Step(None, (k,)))
            self.pool.append(Entry(v, sv, k, np.asarray(values[k])))
        self.n_inputs = len(inputs)

    def choice(self, items: Any) -> Any:
        return self.draw(self.st.sampled_from(items))

    def coin(self) -> bool:
        return bool(self.draw(self.st.booleans()))

    def pick(self, pred: Callable[[Entry], bool] = lambda e: True) -> Entry | None:
        cands = [e for e in self.pool if pred(e)]
        if not cands:
            return None
        return cands[self.draw(self.st.integers(0, len(cands) - 1))]

    def ap(self, spec: OpSpec, *args: Any) -> Entry:
        """``spec`` applied to entries / constants, in theon and NumPy, recorded.

        Raises :class:`Rejected` when NumPy rejects the operation (theon must then
        too: its error propagates when it does not).
        """
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                value = np.asarray(spec.ref(*[a.value if isinstance(a, Entry) else a
                                              for a in args]))
            except (TypeError, ValueError, OverflowError, IndexError) as e:
                try:
                    spec.build(*[a.var if isinstance(a, Entry) else a for a in args])
                except (TypeError, ValueError, OverflowError, IndexError):
                    raise Rejected(f"{spec.name}: {e}") from None
                raise AssertionError(f"NumPy rejects {spec.name} ({e}), theon does not"
                                     ) from None
        var = spec.build(*[a.var if isinstance(a, Entry) else a for a in args])
        shadow = None
        if all(not isinstance(a, Entry) or a.shadow is not None for a in args):
            shadow = spec.build(*[a.shadow if isinstance(a, Entry) else a for a in args])
        self.program.append(Step(spec, tuple(a.index if isinstance(a, Entry) else Const(a)
                                             for a in args)))
        return Entry(var, shadow, len(self.program) - 1, value)

    def fn(self, name: str, *args: Any) -> Entry:
        """``ap`` of the table op called ``name``."""
        return self.ap(op(name), *args)

    def graph(self, chosen: list[Entry], shadow: bool) -> Graph:
        """The finished graph with outputs ``chosen``."""
        ins = self.pool[: self.n_inputs]
        sg = None
        if shadow:
            sg = Graph([e.shadow for e in ins], [e.shadow for e in chosen],
                       [np.asarray(v, dtype="float64") if np.asarray(v).dtype == np.float32
                        else v for v in self.values], self.steps)
        return Graph([e.var for e in ins], [e.var for e in chosen], self.values, self.steps,
                     shadow=sg, program=self.program, outs=[e.index for e in chosen])


# patterns: (name, how to build it from table ops with a Builder ``b``) ----------------
Macro1 = Callable[[Builder, Entry], Entry]

UNARY: list[tuple[str, Macro1]] = [
    ("neg", lambda b, x: b.fn("neg", x)), ("exp", lambda b, x: b.fn("exp", x)),
    ("log", lambda b, x: b.fn("log", x)), ("log1p", lambda b, x: b.fn("log1p", x)),
    ("expm1", lambda b, x: b.fn("expm1", x)), ("sigmoid", lambda b, x: b.fn("sigmoid", x)),
    ("softplus", lambda b, x: b.fn("softplus", x)), ("sqr", lambda b, x: b.fn("sqr", x)),
    ("sqrt", lambda b, x: b.fn("sqrt", x)), ("abs", lambda b, x: b.fn("abs", x)),
    ("tanh", lambda b, x: b.fn("tanh", x)), ("reciprocal", lambda b, x: b.fn("reciprocal", x)),
    ("copy", lambda b, x: b.fn("copy", x)),
    ("log(1+x)", lambda b, x: b.fn("log", b.fn("add", 1, x))),
    ("log(1-x)", lambda b, x: b.fn("log", b.fn("sub", 1, x))),
    ("exp(x)-1", lambda b, x: b.fn("sub", b.fn("exp", x), 1)),
    ("1-exp(x)", lambda b, x: b.fn("sub", 1, b.fn("exp", x))),
    ("log(sigmoid)", lambda b, x: b.fn("log", b.fn("sigmoid", x))),
    ("log(1-sigmoid)", lambda b, x: b.fn("log", b.fn("sub", 1, b.fn("sigmoid", x)))),
    ("1-sigmoid", lambda b, x: b.fn("sub", 1, b.fn("sigmoid", x))),
    ("log(exp)", lambda b, x: b.fn("log", b.fn("exp", x))),
    ("log1p(exp)", lambda b, x: b.fn("log1p", b.fn("exp", x))),
    ("log(1-exp)", lambda b, x: b.fn("log", b.fn("sub", 1, b.fn("exp", x)))),
    ("x-x", lambda b, x: b.fn("sub", x, x)), ("x/x", lambda b, x: b.fn("div", x, x)),
    ("--x", lambda b, x: b.fn("neg", b.fn("neg", x))),
    ("x*1", lambda b, x: b.fn("mul", x, 1)), ("x+0", lambda b, x: b.fn("add", x, 0)),
    ("2*x*3", lambda b, x: b.fn("mul", b.fn("mul", 2, x), 3)),
]

Macro2 = Callable[[Builder, Entry, Entry], Entry]

BINARY: list[tuple[str, Macro2]] = [
    ("add", lambda b, x, y: b.fn("add", x, y)), ("sub", lambda b, x, y: b.fn("sub", x, y)),
    ("mul", lambda b, x, y: b.fn("mul", x, y)), ("div", lambda b, x, y: b.fn("div", x, y)),
    ("maximum", lambda b, x, y: b.fn("maximum", x, y)),
    ("minimum", lambda b, x, y: b.fn("minimum", x, y)),
    ("x*y/y", lambda b, x, y: b.fn("div", b.fn("mul", x, y), y)),
    ("x+y-y", lambda b, x, y: b.fn("sub", b.fn("add", x, y), y)),
    ("x/y*y", lambda b, x, y: b.fn("mul", b.fn("div", x, y), y)),
    ("-x*-y", lambda b, x, y: b.fn("mul", b.fn("neg", x), b.fn("neg", y))),
]

CONSTS = [0, 1, 2, 0.5, -1, 2.0]
POWERS = [0, 1, 2, 3, 4, 0.5, -1, -0.5, 10, 2.5, -2]
CONST_OPS = {"+": ("add", False), "-": ("sub", False), "*": ("mul", False),
             "/": ("div", False), "r-": ("sub", True), "r/": ("div", True)}


def pow_spec(p: Any) -> OpSpec:
    """``x ** p`` for a constant ``p``: integer powers become products of squares
    (``x**10 -> sqr(sqr(sqr(x))) * sqr(x)``), up to about ``|p|`` roundings."""
    exact = p in (0, 1, 2, -1, 0.5)
    err = ot.EXACT if exact else ot.Err(out=abs(p) + 2 if p == int(p) else 4.0)
    return OpSpec(f"pow({p})", lambda x: x**p, lambda x: x**p, err, domain="pos",
                  noop_if_same=p == 1)


def softmax_form(b: Builder, x: Entry, form: str, axis: int) -> Entry:
    """The softmax patterns of the stabilize rewrites, from table ops."""
    if form in ("op", "log_op"):
        s = b.ap(ot.softmax_spec("softmax", axis), x)
        return b.fn("log", s) if form == "log_op" else s
    e = b.fn("exp", x)
    n = int(np.prod([x.shape[axis]]))
    if form == "logsumexp":
        return b.fn("log", b.ap(ot.red_spec("sum", axis, False, n), e))
    s = b.fn("div", e, b.ap(ot.red_spec("sum", axis, True, n), e))
    return b.fn("log", s) if form == "log_manual" else s


def dimshuffle_spec(order: tuple[Any, ...], twice: bool = False) -> OpSpec:
    """``x.dimshuffle(*order)`` (then ``.T`` when ``twice``)."""
    def ref(x: Any) -> Any:
        x = np.asarray(x)
        keep = [o for o in order if o != "x"]
        drop = tuple(d for d in range(x.ndim) if d not in keep)
        y = np.squeeze(x, axis=drop) if drop else x
        rank = {d: k for k, d in enumerate(sorted(keep))}
        y = np.transpose(y, [rank[o] for o in keep]) if keep else y
        for k, o in enumerate(order):
            if o == "x":
                y = np.expand_dims(y, k)
        return y.T if twice else y

    def build(x: Any) -> Any:
        y = x.dimshuffle(*order)
        return y.T if twice else y

    same = order == tuple(range(len(order))) or (twice and order == (1, 0))
    m = len(order) - len([o for o in order if o != "x"])
    pads = not twice and order[:m] == ("x",) * m and order[m:] == tuple(range(len(order) - m))
    return ot.shape_spec(f"dimshuffle{order}" + (".T" if twice else ""), build, ref, same, pads)


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
    special = draw(_St.booleans())
    values = _values(draw.rng, special)
    b = Builder(seed, _inputs("float32"), values, shadow=_inputs("float64"))
    b.draw = draw
    n = draw(_St.integers(1, max_steps))
    for _ in range(n):
        new = _old_step(b)
        if new is not None:
            b.pool.append(new)
    chosen = [b.pool[-1]]
    if len(b.pool) > b.n_inputs + 1 and b.coin():
        extra = b.pool[draw(_St.integers(b.n_inputs, len(b.pool) - 2))]
        if extra.var is not chosen[0].var:
            chosen.append(extra)
    return b.graph(chosen, shadow=True)


def _old_step(b: Builder) -> Entry | None:
    """One operation of the rewrite-test mix."""
    kind = b.choice(["unary", "unary", "binary", "binary", "const", "pow", "dimshuffle",
                     "reduce", "softmax", "dot"])
    a = b.pick()
    assert a is not None
    av, ash = a.var, a.shape
    if kind == "unary":
        name, mac = b.choice(UNARY)
        b.steps.append(f"{name}({av})")
        return mac(b, a)
    if kind == "binary":
        name, mac2 = b.choice(BINARY)
        y = b.pick(lambda e: broadcast_shape(a, e) is not None)
        assert y is not None
        b.steps.append(f"{name}({av}, {y.var})")
        return mac2(b, a, y)
    if kind == "const":
        c = b.choice(CONSTS)
        sym = b.choice(list(CONST_OPS))
        name, rev = CONST_OPS[sym]
        b.steps.append(f"({av} {sym} {c})")
        return b.fn(name, c, a) if rev else b.fn(name, a, c)
    if kind == "pow":
        p = b.choice(POWERS)
        if not _is_float(av) and (p < 0 or p != int(p)):
            a = b.ap(ot.cast_spec("float64"), a)
        b.steps.append(f"{av}**{p}")
        return b.ap(pow_spec(p), a)
    if kind == "dimshuffle":
        nd = len(ash)
        if nd == 2:
            opts: list[tuple[Any, ...]] = [(1, 0)]
            if av.type.shape[0] == 1:
                opts.append((1,))
            if av.type.shape[1] == 1:
                opts.append((0,))
        elif nd == 1:
            opts = [("x", 0), (0, "x")]
        else:
            opts = [("x",)]
        order = b.choice(opts)
        twice = b.coin() and nd == 2 and order == (1, 0)
        b.steps.append(f"{av}.dimshuffle{order}" + (".T" if twice else ""))
        return b.ap(dimshuffle_spec(order, twice), a)
    if kind == "reduce" and ash:
        axis = b.choice([None, *range(len(ash))])
        keep = b.coin()
        name = b.choice(["sum", "max", "mean", "prod"])
        n = int(np.prod(ash)) if axis is None else ash[axis]
        b.steps.append(f"{name}({av}, axis={axis}, keepdims={keep})")
        return b.ap(ot.red_spec(name, axis, keep, n), a)
    if kind == "softmax" and ash and _is_float(av):
        axis = b.choice([-1, 0])
        form = b.choice(["manual", "op", "log_op", "logsumexp", "log_manual"])
        b.steps.append(f"{form}({av}, axis={axis})")
        return softmax_form(b, a, form, axis)
    if kind == "dot" and len(ash) in (1, 2) and av.type.dtype == "float64":
        y = b.pick(lambda e: len(e.shape) in (1, 2) and bool(e.shape)
                   and e.shape[0] == ash[-1] and e.dtype == "float64"
                   and not (len(ash) == 1 and len(e.shape) == 1 and ash[0] == 1))
        if y is None:
            return None
        shp = ash[:-1] + y.shape[1:]
        z = b.pick(lambda e: e.shape == shp and _is_float(e.var))
        d = ot.dot_spec("dot", ash[-1])
        if z is not None and shp and b.coin():
            scale = b.choice([1.0, 2.0, -1.0])
            b.steps.append(f"{z.var} + {scale}*dot({av}, {y.var})")
            return b.fn("add", z, b.fn("mul", scale, b.ap(d, a, y)))
        b.steps.append(f"dot({av}, {y.var})")
        return b.ap(d, a, y)
    return None
