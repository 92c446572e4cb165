"""``verify_grad``: check symbolic gradients against central finite differences.

The check is done on a random projection of the output, ``cost = sum(out * r)``
with ``r`` uniform in [0.5, 1.5), so one scalar gradient covers every output
element.  Each input element is perturbed by ``+/- eps``; the numeric
derivative ``(cost(x + h) - cost(x - h)) / (2h)`` (with ``h`` the perturbation
actually representable in the input's dtype) is compared with the symbolic one.

>>> import numpy as np, theon.tensor as tt
>>> verify_grad(lambda x: tt.sin(x) * x, [np.array([0.5, 1.0])])  # silent: it agrees
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

__all__ = ["GradientError", "verify_grad"]

# default finite-difference step and tolerances per dtype
_EPS = {"float64": 1e-7, "float32": 1e-3, "float16": 1e-1}
_TOL = {"float64": 1e-4, "float32": 1e-2, "float16": 5e-2}


class GradientError(AssertionError):
    """A symbolic gradient disagrees with finite differences (raised by :func:`verify_grad`).

    Attributes
    ----------
    arg
        Index of the input whose gradient is wrong.
    err_pos
        Index (tuple) of the worst element in that input.
    abs_err, rel_err
        The largest absolute and relative errors over that input.
    abs_tol, rel_tol
        The tolerances used.

    >>> from theon.gradient.ops import ZeroGrad
    >>> try:
    ...     verify_grad(lambda x: ZeroGrad()(x) ** 2, [np.array([1.0, 2.0])])
    ... except GradientError as e:
    ...     print("wrong gradient for input", e.arg)
    wrong gradient for input 0
    """

    def __init__(
        self,
        arg: int,
        err_pos: tuple[int, ...],
        shape: tuple[int, ...],
        analytic: float,
        numeric: float,
        abs_err: float,
        rel_err: float,
        abs_tol: float,
        rel_tol: float,
        test: int,
    ) -> None:
        self.arg = arg
        self.err_pos = err_pos
        self.shape = shape
        self.val1 = analytic
        self.val2 = numeric
        self.abs_err = abs_err
        self.rel_err = rel_err
        self.abs_tol = abs_tol
        self.rel_tol = rel_tol
        self.test = test
        super().__init__(str(self))

    def __str__(self) -> str:
        return (
            f"verify_grad: the gradient with respect to input {self.arg} (shape {self.shape}) "
            f"disagrees with finite differences: max abs error {self.abs_err:.6g} "
            f"(tol {self.abs_tol:g}), max rel error {self.rel_err:.6g} (tol {self.rel_tol:g}); "
            f"worst at index {self.err_pos}: symbolic {self.val1:.10g} vs numeric "
            f"{self.val2:.10g}"
        )


def _as_rng(rng: Any) -> Any:
    if rng is None:
        return np.random.default_rng(0)
    if isinstance(rng, (np.random.Generator, np.random.RandomState)) or rng is np.random:
        return rng  # np.random itself: Theano's tests pass the module (its global state)
    return np.random.default_rng(rng)


def _uniform(rng: Any, shape: tuple[int, ...]) -> np.ndarray:
    if isinstance(rng, np.random.Generator):
        return rng.random(shape)
    return np.asarray(rng.random_sample(shape))


def verify_grad(
    fun: Callable[..., Any],
    pt: Sequence[Any],
    n_tests: int = 2,
    rng: Any = None,
    eps: float | None = None,
    abs_tol: float | None = None,
    rel_tol: float | None = None,
    mode: Any = None,
    cast_to_output_type: bool = False,
    static_shape: bool = True,
) -> None:
    """Check ``theon.grad`` of ``fun`` at ``pt`` against central finite differences.

    Parameters
    ----------
    fun
        Takes one tensor variable per point and returns one tensor variable.
    pt
        The point: one array (or number) of floats per input.  Dimensions of
        length 1 are made broadcastable in the symbolic inputs.
    n_tests
        How many random projections of the output to check.
    rng
        A ``numpy.random.Generator`` / ``RandomState``, the module ``numpy.random``
        (its global state, as Theano's tests pass it) or a seed (default: seed 0).
    eps
        Finite-difference step (default by dtype: 1e-7 for float64, 1e-3 for float32).
    abs_tol, rel_tol
        An element fails when both errors exceed them (default 1e-4 for float64,
        1e-2 for float32).
    mode
        The compilation mode of both functions.
    cast_to_output_type
        Make the random projection of the output's dtype (else float64).
    static_shape
        ``False``: the symbolic inputs' lengths are all unknown (``None``), so inputs
        of length 1 broadcast at run time (NumPy's rule) instead of statically.

    Raises
    ------
    GradientError
        With the max absolute and relative errors and the input index.

    Examples
    --------
    >>> import numpy as np, theon.tensor as tt
    >>> verify_grad(lambda x: tt.exp(x) * x, [np.array([0.5, 1.0])])
    """
    points = _float_points(pt, n_tests)
    rng = _as_rng(rng)
    cost_fn, grad_fn, out_shape, out_dtype, proj_dtype = _compile_cost_and_grads(
        fun, points, mode, cast_to_output_type, static_shape)
    dtypes = [str(p.dtype) for p in points]
    if eps is None:
        eps = max(_EPS.get(d, 1e-7) for d in dtypes)
    tol_dtypes = [*dtypes, out_dtype]
    abs_tol = max(_TOL.get(d, 1e-4) for d in tol_dtypes) if abs_tol is None else abs_tol
    rel_tol = max(_TOL.get(d, 1e-4) for d in tol_dtypes) if rel_tol is None else rel_tol

    for test in range(n_tests):
        r = (_uniform(rng, out_shape) + 0.5).astype(proj_dtype)
        analytic = [np.asarray(g, dtype="float64") for g in grad_fn(*points, r)]
        for i, p in enumerate(points):
            numeric = _numeric_grad(cost_fn, points, i, r, eps)
            _compare(i, p, analytic[i], numeric, abs_tol, rel_tol, test)


def _float_points(pt: Sequence[Any], n_tests: int) -> list[np.ndarray]:
    """The point as arrays, refusing arguments that cannot be checked."""
    if not isinstance(pt, (list, tuple)):
        raise TypeError(f"verify_grad: pt must be a list of input values, got {type(pt).__name__}")
    if n_tests < 1:
        raise ValueError("verify_grad: n_tests must be at least 1")
    points = [np.array(p) for p in pt]
    for i, p in enumerate(points):
        if p.dtype.kind != "f":
            raise TypeError(
                f"verify_grad: input {i} has dtype {p.dtype}; gradients are checked only "
                "for floating-point inputs (pass float values)"
            )
    return points


def _compile_cost_and_grads(
    fun: Callable[..., Any], points: list[np.ndarray], mode: Any, cast_to_output_type: bool,
    static_shape: bool,
) -> tuple[Callable[..., Any], Callable[..., Any], tuple[int, ...], str, str]:
    """The compiled cost ``sum(fun(inputs) * projection)`` and its gradients, the
    output's shape at ``points``, its dtype, and the projection's dtype."""
    import theon.tensor as tt
    from theon.compile.pipeline import function
    from theon.config import config
    from theon.gradient.core import grad

    inputs = [
        tt.TensorType(str(p.dtype), shape=tuple(
            1 if s == 1 and static_shape else None for s in p.shape))(f"input_{i}")
        for i, p in enumerate(points)
    ]
    out = fun(*inputs)
    if isinstance(out, (list, tuple)):
        raise TypeError("verify_grad: fun must return a single variable (sum several outputs)")
    out = tt.as_tensor_variable(out)
    if out.type.dtype[:5] not in ("float", "compl"):
        raise TypeError(f"verify_grad: fun returned an output of dtype {out.type.dtype}")
    proj_dtype = out.type.dtype if cast_to_output_type else "float64"
    proj = tt.TensorType(proj_dtype, shape=(None,) * out.type.ndim)("random_projection")
    cost = (out * proj).sum()
    grads = grad(cost, inputs, disconnected_inputs="ignore")
    # the cost is called thousands of times for finite differences, which compare its
    # values at nearby points: one implementation throughout (no whole-graph tier 1
    # swapped in part way, whose last bits may differ)
    with config.change_flags(tier1_graph_calls=0):
        cost_fn = function([*inputs, proj], cost, mode=mode, on_unused_input="ignore")
    grad_fn = function([*inputs, proj], list(grads), mode=mode, on_unused_input="ignore")
    out_shape = np.shape(function(inputs, out, mode=mode, on_unused_input="ignore")(*points))
    return cost_fn, grad_fn, out_shape, out.type.dtype, proj_dtype


def _compare(i: int, p: np.ndarray, a: np.ndarray, numeric: np.ndarray, abs_tol: float,
             rel_tol: float, test: int) -> None:
    """Raise :class:`GradientError` where the gradient ``a`` of input ``i`` and the
    finite differences ``numeric`` differ by more than both tolerances."""
    if a.shape != p.shape:
        raise ValueError(
            f"verify_grad: the gradient of input {i} has shape {a.shape}, "
            f"the input has {p.shape}"
        )
    abs_err = np.abs(a - numeric)
    denom = np.abs(a) + np.abs(numeric)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel_err = np.where(denom > 0, abs_err / np.where(denom > 0, denom, 1), 0.0)
    bad = (abs_err > abs_tol) & (rel_err > rel_tol)
    bad |= ~np.isfinite(a) & np.isfinite(numeric)
    if bad.any():
        score = np.where(np.isfinite(abs_err), abs_err * bad, np.inf)
        pos = np.unravel_index(int(np.argmax(score)), a.shape) if a.ndim else ()
        raise GradientError(
            i,
            tuple(int(k) for k in pos),
            p.shape,
            float(a[pos]),
            float(numeric[pos]),
            float(np.nanmax(abs_err)),
            float(np.nanmax(rel_err)),
            abs_tol,
            rel_tol,
            test,
        )


def _numeric_grad(
    cost_fn: Callable[..., Any], points: list[np.ndarray], i: int, r: np.ndarray, eps: float
) -> np.ndarray:
    """Central finite differences of ``cost_fn`` with respect to ``points[i]``."""
    base = points[i]
    flat = base.reshape(-1)
    out = np.empty(flat.shape, dtype="float64")
    args = list(points)
    for k in range(flat.size):
        x0 = flat[k]
        xp = np.array(x0 + eps, dtype=base.dtype)
        xm = np.array(x0 - eps, dtype=base.dtype)
        h = float(xp) - float(xm)
        pp = flat.copy()
        pp[k] = xp
        args[i] = pp.reshape(base.shape)
        fp = float(cost_fn(*args, r))
        pm = flat.copy()
        pm[k] = xm
        args[i] = pm.reshape(base.shape)
        fm = float(cost_fn(*args, r))
        out[k] = (fp - fm) / h
    return out.reshape(base.shape)
