"""Optimization and root finding inside graphs, by SciPy, differentiable in the
parameters: ``minimize``, ``root``, ``minimize_scalar``, ``root_scalar`` (PyTensor 3's
``pytensor.tensor.optimize``).

``minimize(f, x)`` makes one Op whose inputs are ``x`` (the starting point: the value
``x`` has when the function runs) and the other free variables of ``f`` (its
parameters ``theta``, shared variables included), and whose outputs are the solution
``x*`` and SciPy's success flag.  The Op holds ``f``'s graph (and, as asked, its
gradient and Hessian) as an inner graph, compiled once per mode like an
``OpFromGraph``'s, and calls ``scipy.optimize`` from ``perform``.

The gradient of ``x*`` with respect to ``theta`` is the implicit function theorem's:
at the solution a condition ``g(x*, theta) = 0`` holds (``grad f`` for the
minimizations, the equations themselves for the roots), so
``dx*/dtheta = -(dg/dx)^-1 dg/dtheta``, and the gradient of a cost ``C`` is
``theta_bar = -(dg/dtheta)^T v`` with ``(dg/dx)^T v = x_bar``: one linear solve and
one vector-Jacobian product, built as graphs on the inner graph and evaluated at
``x*``.  The starting point gets no gradient (the solution does not depend on it
where the solver converges).

This module is in the control-flow layer (it builds gradients with ``theon.gradient``
and holds inner graphs), although it lives under ``theon.tensor`` as PyTensor's does.

>>> import numpy as np, theon, theon.tensor as tt
>>> x, a = tt.dscalar("x"), tt.dscalar("a")
>>> x_star, ok = minimize_scalar((x - a) ** 2, x)
>>> f = theon.function([x, a], [x_star, theon.grad(x_star, a)])
>>> [np.round(v, 6) for v in f(0.0, 3.0)]
[np.float64(3.0), np.float64(1.0)]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from theon.compile.compiled import Function
from theon.compile.inner import InnerCompiler
from theon.compile.mode import Mode
from theon.compile.pickling import dump_graph, load_graph
from theon.compile.pipeline import function
from theon.graph.basic import Apply, Constant, Variable
from theon.graph.fg import describe
from theon.graph.null_type import DisconnectedType, disconnected_type
from theon.graph.op import Op
from theon.graph.replace import clone_get_equiv, clone_replace
from theon.graph.traversal import graph_inputs, io_toposort
from theon.link.registry import register_linker_backend as _register_linker_backend
from theon.tensor.basic import as_tensor_variable, cast
from theon.tensor.type import TensorType, tensor_type
from theon.tensor.variable import TensorVariable

__all__ = [
    "MinimizeOp",
    "MinimizeScalarOp",
    "RootOp",
    "RootScalarOp",
    "ScipyWrapperOp",
    "minimize",
    "minimize_scalar",
    "root",
    "root_scalar",
]


def _flat_concat(vs: Sequence[Variable]) -> TensorVariable:
    from theon.tensor.joining import concatenate
    from theon.tensor.reshaping import flatten

    flat = [flatten(as_tensor_variable(v)) for v in vs]
    return flat[0] if len(flat) == 1 else concatenate(flat)


def _jacobian_matrix(g: TensorVariable, xs: Sequence[Variable]) -> TensorVariable:
    """The Jacobian of the vector ``g`` with respect to the variables ``xs``, flattened
    and side by side: ``len(g)`` by the total size of ``xs``."""
    from theon.gradient import jacobian
    from theon.tensor.joining import concatenate
    from theon.tensor.reshaping import reshape

    jacs = jacobian(g, list(xs), disconnected_inputs="ignore")
    cols = [reshape(j, [g.shape[0], -1], ndim=2) for j in jacs]
    return cols[0] if len(cols) == 1 else concatenate(cols, axis=1)


class ScipyWrapperOp(Op):
    """The common part of the solver Ops: an inner graph from ``(x..., theta...)`` to
    the function SciPy is given (and its derivatives), the condition ``g`` whose root
    the solution is, and the implicit-function gradient.

    Inputs: the starting points, then the parameters; outputs: the solutions, then the
    success flag (a 0-d bool).
    """

    __props__ = None  # each instance is its own Op (it holds its own graph)
    kind = "solver"

    def __init__(self, xs: Sequence[Variable], fn: Variable, derivs: Sequence[Variable],
                 condition: Variable, method: str, optimizer_kwargs: dict[str, Any] | None,
                 what: str) -> None:
        self.method = method
        self.optimizer_kwargs = dict(optimizer_kwargs or {})
        self.what = what
        given = set(xs)
        outs = [fn, *derivs, condition]
        params = [v for v in graph_inputs(outs, blockers=given)
                  if v not in given and not isinstance(v, Constant)]
        self.n_x = len(xs)
        self.n_derivs = len(derivs)
        memo: dict[Any, Any] = {v: v.type(v.name) for v in [*xs, *params]}
        equiv = clone_get_equiv([*xs, *params], outs, copy_inputs=False, copy_orphans=False,
                                memo=memo)
        self.outer_params: list[Variable] = params
        self.inner_inputs: list[Variable] = [memo[v] for v in [*xs, *params]]
        inner_outs = [equiv.get(o, o) for o in outs]
        self.inner_outputs: list[Variable] = inner_outs[:-1]
        self.condition: Variable = inner_outs[-1]
        self._inner: InnerCompiler[Function] = InnerCompiler(self._compile)

    def __str__(self) -> str:
        return f"{type(self).__name__}{{method={self.method!r}}}"

    # pickling: the inner graph is stored flat; the compiled forms are not kept
    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop("_inner", None)
        outs = [*self.inner_outputs, self.condition]
        state["inner_inputs"] = None
        state["condition"] = None
        state["inner_outputs"] = dump_graph(self.inner_inputs, outs,
                                            io_toposort(self.inner_inputs, outs))
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        graph = state.pop("inner_outputs")
        self.__dict__.update(state)
        ins, outs, _ = load_graph(graph)
        self.inner_inputs = ins
        self.inner_outputs, self.condition = outs[:-1], outs[-1]
        self._inner = InnerCompiler(self._compile)

    def _compile(self, mode: Mode) -> Function:
        return function(self.inner_inputs, self.inner_outputs, mode=mode, trust_input=True,
                        on_unused_input="ignore", name=self.what)

    def prepare_node(self, node: Apply, mode: Mode) -> None:
        """Compile the inner graph with the outer function's mode."""
        self._inner.prepare(node, mode)

    def make_node(self, *inputs: Any) -> Apply:
        if len(inputs) == self.n_x:
            inputs = (*inputs, *self.outer_params)
        if len(inputs) != len(self.inner_inputs):
            raise TypeError(f"{self.what}: takes {len(self.inner_inputs)} inputs, got "
                            f"{len(inputs)}")
        ins = [inner.type.filter_variable(v) for v, inner in zip(inputs, self.inner_inputs)]
        outs = [v.type() for v in self.inner_inputs[:self.n_x]]
        return Apply(self, ins, [*outs, TensorType("bool", shape=())()])

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        """The solutions depend on the parameters (not on the starting points); the
        success flag is not differentiable."""
        n_out = self.n_x + 1
        rows = [[False] * n_out for _ in range(self.n_x)]
        rows += [[True] * self.n_x + [False] for _ in node.inputs[self.n_x:]]
        return rows

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Variable]]) -> list[Any]:
        return [tuple(s) for s in input_shapes[:self.n_x]] + [()]

    # running ------------------------------------------------------------------------
    def _call(self, node: Apply, x_values: Sequence[np.ndarray],
              params: Sequence[Any]) -> list[Any]:
        fn = self._inner.get(node)
        out = fn(*x_values, *params)
        return out if isinstance(out, list) else [out]

    def _unpack(self, flat: np.ndarray, like: Sequence[np.ndarray]) -> list[np.ndarray]:
        out, k = [], 0
        for v in like:
            out.append(np.asarray(flat[k:k + v.size], dtype=v.dtype).reshape(v.shape))
            k += v.size
        return out

    def solve(self, node: Apply, x0: Sequence[np.ndarray],
              params: Sequence[Any]) -> tuple[np.ndarray, bool]:
        """SciPy's solution (flat) and success flag."""
        raise NotImplementedError

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        x0 = [np.asarray(v) for v in inputs[:self.n_x]]
        flat, ok = self.solve(node, x0, inputs[self.n_x:])
        for cell, value in zip(output_storage, self._unpack(np.asarray(flat).ravel(), x0)):
            cell[0] = value
        output_storage[self.n_x][0] = np.asarray(bool(ok))

    # differentiating ---------------------------------------------------------------
    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list[Any]:
        from theon.gradient import grad
        from theon.tensor.linalg import solve
        from theon.tensor.math import zeros_like

        xs_in = self.inner_inputs[:self.n_x]
        params_in = self.inner_inputs[self.n_x:]
        sols = outputs[:self.n_x]
        bars = [zeros_like(s) if isinstance(g.type, DisconnectedType) else g
                for s, g in zip(sols, output_grads[:self.n_x])]
        g = _flat_concat([self.condition])
        jac = _jacobian_matrix(g, xs_in)
        v_in = TensorType(tensor_type(g).dtype, shape=(None,))("v")
        diff_params = [p for p in params_in if tensor_type(p).dtype.startswith("float")]
        cost = -(g * v_in).sum()
        p_bars = grad(cost, diff_params, disconnected_inputs="ignore") if diff_params else []
        at = dict(zip(xs_in, sols)) | dict(zip(params_in, inputs[self.n_x:]))
        jac_at = clone_replace(jac, at)
        x_bar = cast(_flat_concat(bars), tensor_type(g).dtype)
        v = solve(jac_at.T, x_bar) if tensor_type(jac_at).shape != (1, 1) else \
            x_bar / jac_at[0]
        found = iter(clone_replace(list(p_bars), at | {v_in: v}) if p_bars else [])
        result: list[Any] = [disconnected_type() for _ in range(self.n_x)]
        for p, outer in zip(params_in, inputs[self.n_x:]):
            if p in diff_params:
                gp = next(found)
                dt = tensor_type(outer).dtype
                result.append(cast(gp, dt) if tensor_type(gp).dtype != dt else gp)
            else:
                result.append(disconnected_type())
        return result


def _kwargs_items(kwargs: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in kwargs.items() if k not in ("method", "jac", "hess")}


class MinimizeOp(ScipyWrapperOp):
    """``scipy.optimize.minimize`` of a scalar objective over one or more variables
    (packed into one vector for SciPy)."""

    kind = "minimize"

    def __init__(self, xs: Sequence[Variable], objective: Variable, method: str, jac: bool,
                 hess: bool, optimizer_kwargs: dict[str, Any] | None,
                 use_vectorized_jac: bool = False) -> None:
        from theon.gradient import grad

        g = grad(objective, list(xs), disconnected_inputs="ignore")
        g_flat = _flat_concat(g)
        derivs: list[Variable] = []
        if jac:
            derivs.append(g_flat)
        if hess:
            derivs.append(_jacobian_matrix(g_flat, xs))
        self.jac, self.hess = bool(jac), bool(hess)
        super().__init__(xs, objective, derivs, g_flat, method, optimizer_kwargs, "minimize")

    def solve(self, node: Apply, x0: Sequence[np.ndarray],
              params: Sequence[Any]) -> tuple[np.ndarray, bool]:
        from scipy import optimize

        def values(flat: np.ndarray) -> list[Any]:
            return self._call(node, self._unpack(flat, x0), params)

        def fun(flat: np.ndarray) -> Any:
            out = values(flat)
            if self.jac:
                return float(out[0]), np.asarray(out[1], dtype="float64")
            return float(out[0])

        def hess(flat: np.ndarray) -> np.ndarray:
            return np.asarray(values(flat)[-1], dtype="float64")

        start = np.concatenate([v.ravel() for v in x0]).astype("float64")
        res = optimize.minimize(fun, start, method=self.method, jac=self.jac or None,
                                hess=hess if self.hess else None,
                                **_kwargs_items(self.optimizer_kwargs))
        return np.asarray(res.x), bool(res.success)


class RootOp(ScipyWrapperOp):
    """``scipy.optimize.root`` of a system of equations (as many as unknowns)."""

    kind = "root"

    def __init__(self, xs: Sequence[Variable], equations: Variable, method: str, jac: bool,
                 optimizer_kwargs: dict[str, Any] | None,
                 use_vectorized_jac: bool = False) -> None:
        eq = _flat_concat([equations])
        derivs = [_jacobian_matrix(eq, xs)] if jac else []
        self.jac = bool(jac)
        super().__init__(xs, eq, derivs, eq, method, optimizer_kwargs, "root")

    def solve(self, node: Apply, x0: Sequence[np.ndarray],
              params: Sequence[Any]) -> tuple[np.ndarray, bool]:
        from scipy import optimize

        def fun(flat: np.ndarray) -> Any:
            out = self._call(node, self._unpack(flat, x0), params)
            if self.jac:
                return np.asarray(out[0], dtype="float64"), np.asarray(out[1], dtype="float64")
            return np.asarray(out[0], dtype="float64")

        start = np.concatenate([v.ravel() for v in x0]).astype("float64")
        res = optimize.root(fun, start, method=self.method, jac=self.jac,
                            **_kwargs_items(self.optimizer_kwargs))
        return np.asarray(res.x), bool(res.success)


class RootScalarOp(ScipyWrapperOp):
    """``scipy.optimize.root_scalar`` of one equation in one unknown."""

    kind = "root_scalar"

    def __init__(self, x: Variable, equation: Variable, method: str, jac: bool, hess: bool,
                 optimizer_kwargs: dict[str, Any] | None) -> None:
        from theon.gradient import grad

        derivs: list[Variable] = []
        if jac or hess:
            d1 = grad(equation, x)
            if jac:
                derivs.append(d1)
            if hess:
                derivs.append(grad(d1, x))
        self.jac, self.hess = bool(jac), bool(hess)
        super().__init__([x], equation, derivs, equation, method, optimizer_kwargs,
                         "root_scalar")

    def solve(self, node: Apply, x0: Sequence[np.ndarray],
              params: Sequence[Any]) -> tuple[np.ndarray, bool]:
        from scipy import optimize

        def values(v: float) -> list[Any]:
            return self._call(node, [np.asarray(v, dtype=x0[0].dtype)], params)

        kw = _kwargs_items(self.optimizer_kwargs)
        if self.jac:
            kw["fprime"] = lambda v: float(values(v)[1])
        if self.hess:
            kw["fprime2"] = lambda v: float(values(v)[-1])
        kw.setdefault("x0", float(x0[0]))
        res = optimize.root_scalar(lambda v: float(values(v)[0]), method=self.method, **kw)
        return np.asarray(res.root), bool(res.converged)


class MinimizeScalarOp(ScipyWrapperOp):
    """``scipy.optimize.minimize_scalar`` of a function of one variable."""

    kind = "minimize_scalar"

    def __init__(self, x: Variable, objective: Variable, method: str,
                 optimizer_kwargs: dict[str, Any] | None) -> None:
        from theon.gradient import grad

        super().__init__([x], objective, [], grad(objective, x), method, optimizer_kwargs,
                         "minimize_scalar")

    def solve(self, node: Apply, x0: Sequence[np.ndarray],
              params: Sequence[Any]) -> tuple[np.ndarray, bool]:
        from scipy import optimize

        def fun(v: float) -> float:
            return float(self._call(node, [np.asarray(v, dtype=x0[0].dtype)], params)[0])

        res = optimize.minimize_scalar(fun, method=self.method,
                                       **_kwargs_items(self.optimizer_kwargs))
        return np.asarray(res.x), bool(res.success)


# --------------------------------------------------------------------------- functions
def _variables(x: Any, what: str) -> tuple[list[TensorVariable], bool]:
    xs = [x] if isinstance(x, Variable) else list(x)
    out = []
    for v in xs:
        t = as_tensor_variable(v)
        if not t.type.dtype.startswith("float"):
            raise TypeError(f"{what}: the unknowns must be floats, got {describe(t)}")
        if isinstance(t, Constant):
            raise TypeError(f"{what}: an unknown must be a variable, got the constant "
                            f"{describe(t)}")
        out.append(t)
    return out, isinstance(x, Variable)


def _scalar_output(v: Any, what: str, name: str) -> TensorVariable:
    t = as_tensor_variable(v)
    if t.type.ndim != 0:
        raise ValueError(f"{what}: the {name} must be a scalar, got {describe(t)}")
    return t


def _apply(op: ScipyWrapperOp, xs: Sequence[Variable],
           single: bool) -> tuple[Any, TensorVariable]:
    outs: list[TensorVariable] = op(*xs, *op.outer_params, return_list=True)
    sols, ok = outs[:-1], outs[-1]
    return (sols[0] if single else tuple(sols)), ok


def minimize(objective: Any, x: Any, method: str = "BFGS", jac: bool = True,
             hess: bool = False, use_vectorized_jac: bool = False,
             optimizer_kwargs: dict[str, Any] | None = None) -> tuple[Any, TensorVariable]:
    """The ``x`` (one variable or a list) minimizing the scalar ``objective``, by
    ``scipy.optimize.minimize`` from the value ``x`` has when the function runs;
    returns the solution (a tuple for a list) and SciPy's success flag.  ``jac``/``hess``:
    give SciPy the gradient/Hessian (built symbolically); ``optimizer_kwargs`` go to
    ``scipy.optimize.minimize`` (``tol``, ``options``, ``bounds``, ...).  The solution
    is differentiable in the objective's other inputs (implicit function theorem).

    >>> import numpy as np, theon, theon.tensor as tt
    >>> x, c = tt.dvector("x"), tt.dvector("c")
    >>> x_star, ok = minimize(((x - c) ** 2).sum(), x)
    >>> f = theon.function([x, c], x_star)
    >>> np.round(f(np.zeros(2), np.array([1.0, -2.0])), 5)
    array([ 1., -2.])
    """
    xs, single = _variables(x, "minimize")
    f = _scalar_output(objective, "minimize", "objective")
    op = MinimizeOp(xs, f, method, jac, hess, optimizer_kwargs, use_vectorized_jac)
    return _apply(op, xs, single)


def root(equations: Any, variables: Any, method: str = "hybr", jac: bool = True,
         use_vectorized_jac: bool = False,
         optimizer_kwargs: dict[str, Any] | None = None) -> tuple[Any, TensorVariable]:
    """The ``variables`` where ``equations`` (as many as unknowns) are zero, by
    ``scipy.optimize.root`` from the values they have when the function runs; returns
    the solution and SciPy's success flag, the solution differentiable in the other
    inputs of the equations.

    >>> import numpy as np, theon, theon.tensor as tt
    >>> x, a = tt.dvector("x"), tt.dscalar("a")
    >>> x_star, ok = root(x ** 2 - a, x)
    >>> np.round(theon.function([x, a], x_star)(np.ones(2), 4.0), 6)
    array([2., 2.])
    """
    xs, single = _variables(variables, "root")
    eq = as_tensor_variable(equations)
    op = RootOp(xs, eq, method, jac, optimizer_kwargs, use_vectorized_jac)
    return _apply(op, xs, single)


def root_scalar(equation: Any, variable: Any, method: str = "secant", jac: bool = False,
                hess: bool = False,
                optimizer_kwargs: dict[str, Any] | None = None) -> tuple[Any, TensorVariable]:
    """The root of one equation in the scalar ``variable``, by
    ``scipy.optimize.root_scalar`` (``x0``: the variable's value when the function
    runs; a ``bracket`` and other arguments in ``optimizer_kwargs``); ``jac``/``hess``
    give it the first/second derivative.  Returns the root and whether it converged.

    >>> import numpy as np, theon, theon.tensor as tt
    >>> x, a = tt.dscalar("x"), tt.dscalar("a")
    >>> r, ok = root_scalar(x ** 3 - a, x, method="newton", jac=True)
    >>> float(np.round(theon.function([x, a], r)(1.0, 8.0), 6))
    2.0
    """
    (xv,), _ = _variables(variable, "root_scalar")
    if xv.type.ndim != 0:
        raise ValueError(f"root_scalar: the variable must be a scalar, got {describe(xv)}")
    eq = _scalar_output(equation, "root_scalar", "equation")
    op = RootScalarOp(xv, eq, method, jac, hess, optimizer_kwargs)
    return _apply(op, [xv], True)


def minimize_scalar(objective: Any, x: Any, method: str = "brent",
                    optimizer_kwargs: dict[str, Any] | None = None) -> tuple[Any, TensorVariable]:
    """The scalar ``x`` minimizing ``objective``, by ``scipy.optimize.minimize_scalar``
    (``bracket``, ``bounds``, ``tol``, ``options`` in ``optimizer_kwargs``; ``x``'s own
    value is not used).  Returns the minimizer and SciPy's success flag.

    >>> import numpy as np, theon, theon.tensor as tt
    >>> x = tt.dscalar("x")
    >>> m, ok = minimize_scalar((x - 1.5) ** 2, x)
    >>> float(np.round(m.eval({x: 0.0}), 6))
    1.5
    """
    (xv,), _ = _variables(x, "minimize_scalar")
    if xv.type.ndim != 0:
        raise ValueError(f"minimize_scalar: x must be a scalar, got {describe(xv)}")
    f = _scalar_output(objective, "minimize_scalar", "objective")
    op = MinimizeScalarOp(xv, f, method, optimizer_kwargs)
    return _apply(op, [xv], True)


# the JAX rules of these Ops (a host callback: scipy.optimize is not traceable)
_register_linker_backend("jax", "theon.backends.jax.optimize")
