"""Symbolic shape inference: shapes known through ``infer_shape``, lazily and memoized.

:class:`ShapeFeature` gives every variable of a FunctionGraph a shape made of
int64 scalars: constants where the type knows them, otherwise what the owner's
``infer_shape`` says in terms of its inputs' shapes, and ``Shape_i(x)`` only at
graph inputs (or where an op cannot say).  Shapes are computed on demand and
cached; entries are dropped when the variables they mention leave the graph.

The rewrites use it so that ``function([x], g(x).shape)`` never computes ``g(x)``:

* ``Shape(x) -> MakeVector(s_0, ..., s_n)`` with the inferred ``s_i``;
* ``Shape_i{i}(x) -> s_i``.

>>> import theon, theon.tensor as tt
>>> x = tt.dmatrix("x")
>>> f = theon.function([x], tt.exp(x).dot(x.T).shape)
>>> sorted({type(n.op).__name__ for n in f.maker.fgraph.apply_nodes})
['MakeVector', 'Shape_i']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from theon.graph.basic import Apply, Constant, Variable
from theon.graph.features import AlreadyThere, Feature
from theon.graph.fg import FunctionGraph
from theon.graph.op import OpContractError
from theon.rewriting.basic import GraphRewriter, node_rewriter
from theon.rewriting.db import register_canonicalize, register_specialize
from theon.tensor.basic import as_tensor_variable, cast
from theon.tensor.shape import MakeVector, Shape, Shape_i, int64_constant
from theon.tensor.type import TensorType, tensor_type

__all__ = [
    "ShapeFeature",
    "ShapeOptimizer",
    "local_shape_i_inferred",
    "local_shape_to_vector",
    "shape_feature",
]

ShapeT = tuple[Variable, ...]


def _scalar_int64(v: Any) -> Variable:
    t = as_tensor_variable(v)
    if t.type.ndim != 0:
        raise TypeError(f"infer_shape returned a non-scalar shape entry {t}")
    if t.type.dtype != "int64":
        t = cast(t, "int64")
    return t


class ShapeFeature(Feature):
    """Lazily inferred, memoized symbolic shapes: ``shape_feature(fgraph).shape_of(var)``."""

    def __init__(self) -> None:
        self.cache: dict[Variable, ShapeT] = {}
        self.deps: dict[Variable, set[Variable]] = {}  # var -> cached vars mentioning it
        self._expr_mentions: dict[Variable, frozenset[Variable]] = {}
        self.fgraph: FunctionGraph | None = None

    def on_attach(self, fgraph: FunctionGraph) -> None:
        if fgraph.find_feature(ShapeFeature) is not None:
            raise AlreadyThere("a ShapeFeature is already attached")
        self.fgraph = fgraph

    def on_detach(self, fgraph: FunctionGraph) -> None:
        self.cache.clear()
        self.deps.clear()

    def on_prune(self, fgraph: FunctionGraph, node: Apply, reason: str | None) -> None:
        if self.cache or self.deps or self._expr_mentions:  # else nothing to forget
            for o in node.outputs:
                self._forget(o)

    def on_change_input(self, fgraph: FunctionGraph, node: Any, i: int, old: Variable,
                        new: Variable, reason: str | None) -> None:
        if (self.cache or self.deps or self._expr_mentions) and old not in fgraph.variables:
            self._forget(old)

    def _forget(self, var: Variable) -> None:
        self.cache.pop(var, None)
        self._expr_mentions.pop(var, None)
        for dep in self.deps.pop(var, ()):
            self.cache.pop(dep, None)

    def clone(self) -> ShapeFeature:
        return ShapeFeature()

    # ------------------------------------------------------------------------------
    def _leaf_shape(self, var: Variable) -> ShapeT:
        shape = tensor_type(var).shape
        out = []
        for k, s in enumerate(shape):
            out.append(int64_constant(s) if s is not None else Shape_i(k)(var))
        return tuple(out)

    def _mentions(self, shp: ShapeT) -> set[Variable]:
        """fgraph variables a shape expression reads (memoized per expression node)."""
        fg_vars = self.fgraph.variables if self.fgraph is not None else {}
        memo = self._expr_mentions
        found: set[Variable] = set()
        for root in shp:
            stack: list[tuple[Variable, bool]] = [(root, False)]
            while stack:
                v, done = stack.pop()
                if v in fg_vars:
                    memo[v] = frozenset((v,))
                    continue
                if v in memo:
                    continue
                if v.owner is None:
                    memo[v] = frozenset()
                    continue
                if not done:
                    stack.append((v, True))
                    stack.extend((i, False) for i in v.owner.inputs if i not in memo)
                    continue
                acc: set[Variable] = set()
                for i in v.owner.inputs:
                    acc |= memo.get(i, frozenset())
                memo[v] = frozenset(acc)
            found |= memo[root]
        return found

    def shape_of(self, var: Variable) -> ShapeT:
        """The shape of ``var`` as int64 scalar variables (constants where static)."""
        got = self.cache.get(var)
        if got is not None:
            return got
        if not isinstance(var.type, TensorType):
            raise TypeError(f"{var} of type {var.type} has no shape")
        # iterative: compute owners' input shapes before the owner
        stack: list[Variable] = [var]
        while stack:
            v = stack[-1]
            if v in self.cache:
                stack.pop()
                continue
            node = v.owner
            if node is None or isinstance(v, Constant) or all(
                s is not None for s in tensor_type(v).shape
            ):
                self._store(v, self._leaf_shape(v) if not isinstance(v, Constant)
                            else tuple(int64_constant(s) for s in v.data.shape))
                stack.pop()
                continue
            missing = [i for i in node.inputs
                       if isinstance(i.type, TensorType) and i not in self.cache]
            if missing:
                stack.extend(missing)
                continue
            stack.pop()
            self._infer_node(node)
            if v not in self.cache:
                self._store(v, self._leaf_shape(v))
        return self.cache[var]

    def _infer_node(self, node: Apply) -> None:
        in_shapes = [self.cache[i] if isinstance(i.type, TensorType) else ()
                     for i in node.inputs]
        try:
            outs = node.op.infer_shape(node, in_shapes)
        except (OpContractError, NotImplementedError, AttributeError):
            outs = None
        except (TypeError, ValueError):
            outs = None
        for k, o in enumerate(node.outputs):
            if not isinstance(o.type, TensorType):
                continue
            shp: ShapeT | None = None
            if outs is not None and k < len(outs) and outs[k] is not None:
                try:
                    entries = [_scalar_int64(s) for s in outs[k]]
                except TypeError:
                    entries = None
                if entries is not None and len(entries) == o.type.ndim:
                    # static knowledge of the output type wins
                    shp = tuple(
                        int64_constant(st) if st is not None else e
                        for e, st in zip(entries, o.type.shape)
                    )
            self._store(o, shp if shp is not None else self._leaf_shape(o))

    def _store(self, var: Variable, shp: ShapeT) -> None:
        self.cache[var] = shp
        for m in self._mentions(shp):
            if m is not var:
                self.deps.setdefault(m, set()).add(var)


def shape_feature(fgraph: FunctionGraph) -> ShapeFeature:
    """The graph's ShapeFeature, attached on first use."""
    sf = fgraph.find_feature(ShapeFeature)
    if sf is None:
        sf = ShapeFeature()
        fgraph.attach_feature(sf)
    return sf


class ShapeOptimizer(GraphRewriter):
    """A graph rewriter that only attaches a :class:`ShapeFeature` (PyTensor's), so
    the rewriters after it in a sequence can read shapes.

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> fg = FunctionGraph([x], [tt.exp(x)])
    >>> _ = ShapeOptimizer().rewrite(fg)
    >>> fg.find_feature(ShapeFeature) is not None
    True
    """

    name = "ShapeOpt"

    def add_requirements(self, fgraph: FunctionGraph) -> None:
        shape_feature(fgraph)

    def apply(self, fgraph: FunctionGraph) -> None:
        return None


def _depends_on(expr: Sequence[Variable], var: Variable) -> bool:
    stack = list(expr)
    seen: set[Variable] = set()
    while stack:
        v = stack.pop()
        if v is var:
            return True
        if v in seen:
            continue
        seen.add(v)
        if v.owner is not None:
            stack.extend(v.owner.inputs)
    return False


def _require_shapes(fgraph: FunctionGraph) -> None:
    """Attach the graph's ShapeFeature (the requirement of the rewrites below)."""
    shape_feature(fgraph)


@node_rewriter([Shape], requirements=[_require_shapes])
def local_shape_to_vector(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """shape(x) -> make_vector(s_0, ..., s_n), the shapes inferred without computing x."""
    (x,) = node.inputs
    shp = shape_feature(fgraph).shape_of(x)
    if x.owner is None and all(s.owner is not None and isinstance(s.owner.op, Shape_i)
                               and s.owner.inputs[0] is x for s in shp):
        return None  # nothing to gain: already the plain shape of an input
    if _depends_on(shp, node.outputs[0]):
        return None
    if not shp:
        return [int64_constant_vector(())]
    consts = [s for s in shp if isinstance(s, Constant)]
    if len(consts) == len(shp):
        return [int64_constant_vector(tuple(int(s.data) for s in consts))]
    return [MakeVector("int64")(*shp)]


register_specialize(local_shape_to_vector, "shape")
register_canonicalize(local_shape_to_vector, "fast_compile", "shape")


def int64_constant_vector(values: tuple[int, ...]) -> Variable:
    """A constant int64 vector."""
    import numpy as np

    from theon.tensor.basic import constant

    return constant(np.array(values, dtype=np.int64).reshape(len(values)))


@node_rewriter([Shape_i], requirements=[_require_shapes])
def local_shape_i_inferred(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """Shape_i{i}(x) -> s_i, the i-th inferred shape of x (x itself is not computed)."""
    (x,) = node.inputs
    if x.owner is None:
        return None
    op = node.op
    assert isinstance(op, Shape_i)  # (the rewrite tracks Shape_i)
    s = shape_feature(fgraph).shape_of(x)[op.i]
    if s.owner is not None and isinstance(s.owner.op, Shape_i) and s.owner.inputs[0] is x:
        return None
    if _depends_on((s,), node.outputs[0]):
        return None
    return [s]


register_specialize(local_shape_i_inferred, "shape")
register_canonicalize(local_shape_i_inferred, "fast_compile", "shape")
