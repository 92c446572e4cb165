"""Composite: a scalar op whose computation is a small inner graph of scalar ops.

The elementwise fusion rewrite collapses chains of Elemwise nodes into one
``Elemwise(Composite(...))``.  ``inner_nodes`` lists the inner Apply nodes in
dependency order, so a linker can emit one kernel for the whole chain;
:meth:`Composite.py_source` gives ready-made Python code for float64 scalars.

>>> from theon.scalar import float64, add, mul, exp
>>> x, y = float64("x"), float64("y")
>>> c = Composite([x, y], [add(mul(x, y), exp(x))])
>>> str(c)
'Composite{add(mul(i0, i1), exp(i0))}'
>>> float(c.impl(np.float64(0.0), np.float64(2.0)))
1.0
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from theon.graph.basic import Apply, Constant, Variable
from theon.graph.null_type import DisconnectedType, NullType, disconnected_type
from theon.graph.traversal import io_toposort
from theon.scalar.basic import ScalarOp, _discrete, _grad_as, add
from theon.scalar.type import ScalarType, as_scalar, constant, is_weak_scalar, scalar_type

__all__ = ["Composite"]

_walrus_ids = itertools.count()
# the longest inner expression the name writes out in place (longer ones get a name)
_MAX_INLINE = 200


def _scalar_op(node: Apply) -> ScalarOp:
    """The op of an inner node of a Composite: a ScalarOp (``Composite`` checks)."""
    return cast(ScalarOp, node.op)


class Composite(ScalarOp):
    """A scalar op computing ``outputs`` from ``inputs`` through an inner scalar graph.

    Parameters
    ----------
    inputs
        Scalar variables without owner: the inner graph's inputs.
    outputs
        Scalar variables computed from ``inputs`` and constants by scalar ops.

    The inner graph is cloned, so later changes to the given variables do not
    affect the op.  Two composites with the same computation are equal.

    >>> from theon.scalar.basic import add, mul
    >>> from theon.scalar.type import float64
    >>> x, y = float64("x"), float64("y")
    >>> op = Composite([x, y], [add(mul(x, y), 1.0)])
    >>> op.impl(np.float64(2.0), np.float64(3.0))
    np.float64(7.0)
    """

    __props__ = ("key",)
    inputs: list[Variable]
    inner_nodes: list[Apply]
    outputs: list[Variable]

    if TYPE_CHECKING:  # (one output or a list of them)

        def __call__(
            self, *inputs: Any, return_list: bool = False, name: str | None = None,
            **kwargs: Any,
        ) -> Any: ...

    def __init__(
        self, inputs: Sequence[Variable], outputs: Sequence[Variable], *, fresh: bool = False
    ) -> None:
        inputs = list(inputs)
        outputs = [as_scalar(o) for o in outputs]
        for i, v in enumerate(inputs):
            if not isinstance(v, Variable) or not isinstance(v.type, ScalarType):
                raise TypeError(f"Composite input {i} must be a scalar Variable, got {v!r}")
            if isinstance(v, Constant):
                raise TypeError(f"Composite input {i} is a constant ({v}); inline it instead")
        if len(set(inputs)) != len(inputs):
            raise ValueError("Composite inputs must be distinct variables")
        nodes = io_toposort(inputs, outputs)
        in_set = set(inputs)
        for node in nodes:
            if not isinstance(node.op, ScalarOp):
                raise TypeError(f"Composite inner node {node} has the non-scalar op {node.op}")
            for v in node.inputs:
                if v.owner is None and v not in in_set and not isinstance(v, Constant):
                    raise ValueError(
                        f"Composite output depends on {v} ({v.type}), which is not among its inputs"
                    )
        for o in outputs:
            if o.owner is None and o not in in_set and not isinstance(o, Constant):
                raise ValueError(f"Composite output {o} is neither computed nor an input")
        if fresh:
            # the caller built this inner graph for this op alone (fusion does): adopt it
            for i, v in enumerate(inputs):
                v.name = f"i{i}"
            self.inputs = inputs
            self.inner_nodes = nodes
            self.outputs = outputs
            self._finish()
            return
        # clone: fresh inputs i0.., each node rebuilt with the same op
        equiv: dict[Variable, Variable] = {}
        self.inputs = []
        for i, v in enumerate(inputs):
            nv = v.type.make_variable(f"i{i}")
            equiv[v] = nv
            self.inputs.append(nv)
        self.inner_nodes = []
        for node in nodes:
            new_ins = [equiv.get(v, v) for v in node.inputs]
            new_node = node.clone_with_new_inputs(new_ins, strict=True)
            self.inner_nodes.append(new_node)
            for old, new in zip(node.outputs, new_node.outputs):
                equiv[old] = new
        self.outputs = [equiv.get(o, o) for o in outputs]
        self._finish()

    def _finish(self) -> None:
        """Derived attributes, once ``inputs``, ``inner_nodes`` and ``outputs`` are set."""
        self.nin = len(self.inputs)
        self.nout = len(self.outputs)
        self.key = self._canonical_key()
        self._py_source_cache: dict[str, str | None] = {}

    @property
    def name(self) -> str:
        """``Composite{...}``, built on first use: fusion makes many that nobody prints."""
        text = self.__dict__.get("_name")
        if text is None:
            text = self.__dict__["_name"] = "Composite{" + self._pretty() + "}"
        return str(text)

    @name.setter
    def name(self, text: str) -> None:
        raise AttributeError(f"the name of {self} is its inner graph's")

    # identity and printing -----------------------------------------------------
    def _names(self) -> dict[Variable, str]:
        names: dict[Variable, str] = {v: f"i{k}" for k, v in enumerate(self.inputs)}
        for k, node in enumerate(self.inner_nodes):
            for j, o in enumerate(node.outputs):
                names[o] = f"t{k}" if len(node.outputs) == 1 else f"t{k}_{j}"
        return names

    def _canonical_key(self) -> str:
        """A string that two composites share exactly when they compute the same thing."""
        names = self._names()
        parts = ["in:" + ",".join(scalar_type(v).dtype for v in self.inputs)]

        def ref(v: Variable) -> str:
            if isinstance(v, Constant):
                return f"c[{scalar_type(v).dtype}:{np.asarray(v.data).tobytes().hex()}]"
            return names[v]

        for k, node in enumerate(self.inner_nodes):
            op = node.op
            opkey = f"{type(op).__module__}.{type(op).__qualname__}{op._props()!r}"
            outs = ",".join(scalar_type(o).dtype for o in node.outputs)
            parts.append(f"t{k}={opkey}({','.join(ref(v) for v in node.inputs)}):{outs}")
        parts.append("out:" + ",".join(ref(o) for o in self.outputs))
        return ";".join(parts)

    def _pretty(self) -> str:
        """``add(mul(i0, i1), exp(i0))``; values used twice are bound first (``t0=...; ``)."""
        uses: dict[Variable, int] = {}
        for node in self.inner_nodes:
            for v in node.inputs:
                uses[v] = uses.get(v, 0) + 1
        for o in self.outputs:
            uses[o] = uses.get(o, 0) + 1
        text: dict[Variable, str] = {v: f"i{k}" for k, v in enumerate(self.inputs)}
        lets: list[str] = []
        names = self._names()

        def show(v: Variable) -> str:
            if isinstance(v, Constant):
                return str(v.data.item())
            return text[v]

        for node in self.inner_nodes:
            expr = f"{node.op}({', '.join(show(v) for v in node.inputs)})"
            for j, o in enumerate(node.outputs):
                e = expr if len(node.outputs) == 1 else f"{expr}[{j}]"
                # a long expression is bound too, so that text does not nest without
                # bound (a chain of n ops would print in O(n**2) time)
                if uses.get(o, 0) > 1 or len(node.outputs) > 1 or len(e) > _MAX_INLINE:
                    lets.append(f"{names[o]}={e}")
                    text[o] = names[o]
                else:
                    text[o] = e
        body = ", ".join(show(o) for o in self.outputs)
        return "; ".join([*lets, body])

    def __str__(self) -> str:
        return self.name

    def __reduce__(self) -> Any:
        return (Composite, (self.inputs, self.outputs))

    # building --------------------------------------------------------------------
    def make_node(self, *inputs: Any) -> Apply:
        """An Apply on ``inputs``, whose types must equal the inner inputs' types."""
        if len(inputs) != self.nin:
            raise TypeError(f"{self} takes {self.nin} inputs, got {len(inputs)}")
        ins: list[Variable] = []
        for i, (x, inner) in enumerate(zip(inputs, self.inputs)):
            v = constant(x, dtype=scalar_type(inner).dtype) if is_weak_scalar(x) else as_scalar(x)
            if v.type != inner.type:
                raise TypeError(
                    f"input {i} of {self} must have type {inner.type}, got {v} of type {v.type}"
                )
            ins.append(v)
        return Apply(self, ins, [o.type.make_variable() for o in self.outputs])

    def output_types(self, *types: ScalarType) -> list[ScalarType]:
        if list(types) != [v.type for v in self.inputs]:
            raise TypeError(
                f"{self} takes inputs of types {[v.type for v in self.inputs]}, got {list(types)}"
            )
        return [scalar_type(o) for o in self.outputs]

    # computing ---------------------------------------------------------------------
    def impl(self, *values: Any) -> Any:
        """Evaluate the inner graph on NumPy scalars or arrays, op by op."""
        env: dict[Variable, Any] = dict(zip(self.inputs, values))
        for node in self.inner_nodes:
            args = [v.data if isinstance(v, Constant) else env[v] for v in node.inputs]
            r = _scalar_op(node).impl(*args)
            if len(node.outputs) == 1:
                env[node.outputs[0]] = r
            else:
                for o, rv in zip(node.outputs, r):
                    env[o] = rv
        res = tuple(o.data if isinstance(o, Constant) else env[o] for o in self.outputs)
        return res[0] if self.nout == 1 else res

    def py_source(self, fname: str = "composite") -> str | None:
        """Source of ``def fname(i0, i1, ...)`` computing the outputs on Python floats.

        None when some inner node has no valid ``py_expr`` (non-float64 dtypes, say).
        Run it with :func:`theon.scalar.pyimpl.py_namespace` as globals.
        """
        if fname in self._py_source_cache:
            return self._py_source_cache[fname]
        lines = self._py_lines("")
        src: str | None = None
        if lines is not None:
            body, outs = lines
            args = ", ".join(f"i{k}" for k in range(self.nin))
            ret = outs[0] if self.nout == 1 else "(" + ", ".join(outs) + ",)"
            src = "\n".join(
                [f"def {fname}({args}):", *(f"    {b}" for b in body), f"    return {ret}"]
            )
        self._py_source_cache[fname] = src
        return src

    def _py_lines(self, prefix: str) -> tuple[list[str], list[str]] | None:
        """Assignments ``name = expr`` for each inner node, and the output expressions."""
        names = {v: prefix + n for v, n in self._names().items()}
        body: list[str] = []

        def ref(v: Variable) -> str:
            if isinstance(v, Constant):
                return _py_literal(v.data)
            return names[v]

        for node in self.inner_nodes:
            op = _scalar_op(node)
            if not op.py_expr_ok(node) or len(node.outputs) != 1:
                return None
            e = op.py_expr(*[ref(v) for v in node.inputs])
            if e is None:
                return None
            body.append(f"{names[node.outputs[0]]} = {e}")
        return body, [ref(o) for o in self.outputs]

    def py_expr(self, *names: str) -> str | None:
        """One expression (intermediates bound with ``:=``); None for several outputs."""
        if self.nout != 1:
            return None
        prefix = f"_cmp{next(_walrus_ids)}_"
        lines = self._py_lines(prefix)
        if lines is None:
            return None
        body, outs = lines
        sub = {f"{prefix}i{k}": n for k, n in enumerate(names)}
        binds = []
        for b in body:
            target, expr = b.split(" = ", 1)
            binds.append(f"({target} := {_subst(expr, sub)})")
        return "(" + ", ".join([*binds, _subst(outs[0], sub)]) + ",)[-1]"

    def py_expr_ok(self, node: Apply) -> bool:
        if self.nout != 1:
            return False
        if any(
            scalar_type(v).dtype not in ("float64", "bool")
            for v in (*node.inputs, *node.outputs)
        ):
            return False
        return self.py_source() is not None

    # derivatives ---------------------------------------------------------------------
    def L_op(
        self,
        inputs: Sequence[Variable],
        outputs: Sequence[Variable],
        output_grads: Sequence[Variable],
    ) -> list[Any]:
        """Reverse mode through the inner graph, rebuilt on ``inputs``."""
        env: dict[Variable, Variable] = dict(zip(self.inputs, inputs))
        rebuilt: list[Apply] = []
        for node in self.inner_nodes:
            args = [v if isinstance(v, Constant) else env[v] for v in node.inputs]
            outs = node.op(*args, return_list=True)
            rebuilt.append(outs[0].owner)
            for o, no in zip(node.outputs, outs):
                env[o] = no
        # the node's own outputs stand for the inner values they equal (exp's L_op uses them)
        reuse = {
            env[o]: out for o, out in zip(self.outputs, outputs) if not isinstance(o, Constant)
        }
        grads: dict[Variable, Variable] = {}
        for o, g in zip(self.outputs, output_grads):
            if g is None or isinstance(g.type, DisconnectedType) or isinstance(o, Constant):
                continue
            _accumulate(grads, env[o], g)
        for node in reversed(rebuilt):
            ogs = [grads.get(o) for o in node.outputs]
            if all(g is None for g in ogs):
                continue
            filled = [
                g if g is not None else constant(0, dtype=scalar_type(o).dtype)
                for g, o in zip(ogs, node.outputs)
            ]
            node_outs = [reuse.get(o, o) for o in node.outputs]
            igs = node.op.L_op(node.inputs, node_outs, filled)
            for v, g in zip(node.inputs, igs):
                if g is None or isinstance(v, Constant) or isinstance(g.type, DisconnectedType):
                    continue
                _accumulate(grads, v, g)
        res: list[Any] = []
        for x in inputs:
            gx = grads.get(x)
            if gx is None or _discrete(x):
                res.append(disconnected_type())
            else:
                res.append(gx)
        return res

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        return self.L_op(inputs, self(*inputs, return_list=True), output_grads)


def _accumulate(grads: dict[Variable, Variable], v: Variable, g: Variable) -> None:
    """Add ``g`` into ``grads[v]``; a NullType gradient absorbs everything."""
    prev = grads.get(v)
    if prev is None or isinstance(g.type, NullType):
        grads[v] = g
    elif not isinstance(prev.type, NullType):
        grads[v] = _grad_as(add(prev, g), v)


def _py_literal(data: Any) -> str:
    """A Python literal for a float64/bool constant (``inf``/``nan`` are namespace names)."""
    if isinstance(data, np.bool_ | bool):
        return "True" if data else "False"
    f = float(data)
    if f != f:
        return "nan"
    if f in (float("inf"), float("-inf")):
        return "inf" if f > 0 else "(-inf)"
    return f"({f!r})"


def _subst(expr: str, sub: dict[str, str]) -> str:
    """Replace whole identifiers of ``sub`` in ``expr``."""
    import re

    if not sub:
        return expr
    pat = re.compile(r"\b(" + "|".join(re.escape(k) for k in sub) + r")\b")
    return pat.sub(lambda m: sub[m.group(1)], expr)
