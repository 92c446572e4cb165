"""JAX rules for ``theon.scalar``: every scalar Op as a function of JAX arrays.

The rows of :mod:`theon.scalar.table` are data here too: a row's JAX function is
``jax.<row.jax>`` where the row names one (``jax.scipy.special.gammainc``), else
``jax.numpy.<row.numpy>`` (its one name in NumPy's namespaces), except for the rows of
:data:`JAX_EXCEPTIONS`, which maps each to a formula of jax functions.  A row whose
``jax`` is :class:`~theon.scalar.table.OnHost` (a Bessel function of real order, an
inverse incomplete gamma or beta function, a parameter derivative: jax has none, for
the reason the row gives) computes its own NumPy function on the host through
``jax.pure_callback``: it runs in ``mode="JAX"`` and under ``vmap``, but XLA cannot
fuse or differentiate it (theon differentiates graphs itself).  The hand
written ops (``Cast``, ``Clip``, ``Switch``, ``Reciprocal``, ``RoundHalfToEven``,
``PolyGamma``, ``Composite``) have a rule each.  A scalar function computes on
arrays, so ``Elemwise`` applies it to whole tensors
(:mod:`theon.backends.jax.tensor`).

Results are cast to the node's output dtype (:func:`scalar_node_fn`), so a
rule may compute in jax's dtype and still give exactly theon's types.

Imported by the JAX linker before its first link (registered by
``theon.scalar`` with ``register_linker_backend("jax", ...)``); jax itself is
imported when a rule is first asked for.

>>> sorted(JAX_EXCEPTIONS)[:3]
['betainc', 'chi2sf', 'erfcinv']
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from theon.backends.jax.host import host_call
from theon.graph.basic import Apply, Constant, Variable
from theon.link.jax.dispatch import jax_scalar_funcify
from theon.scalar.arith import Clip, Reciprocal, RoundHalfToEven
from theon.scalar.basic import Cast, ScalarOp
from theon.scalar.composite import Composite
from theon.scalar.logic import Switch
from theon.scalar.special import PolyGamma
from theon.scalar.table import OPS, ROW, ROWS, OnHost, OpRow
from theon.scalar.type import ScalarType, get_scalar_type
from theon.tensor.type import TensorType

_MUL = type(OPS["mul"])

__all__ = ["JAX_EXCEPTIONS", "jax_spelling", "scalar_node_fn"]


def _jax() -> tuple[Any, Any]:
    import jax
    import jax.numpy as jnp

    return jax, jnp


def softplus_of(z: Any, sign: int = 1) -> Any:
    """``softplus(sign * z)`` as ``max(sign * z, 0) + log1p(exp(-|z|))``: the formula of the
    row's NumPy function.  Written on ``z``, so ``softplus(z)`` and ``softplus(-z)`` (the
    log-likelihood of a logistic model has both) share ``log1p(exp(-|z|))`` in XLA."""
    _, jnp = _jax()
    x = z if sign > 0 else -z
    return jnp.maximum(x, 0) + jnp.log1p(jnp.exp(-jnp.abs(z)))


def sigmoid_of(z: Any, sign: int = 1) -> Any:
    """``sigmoid(sign * z)`` from ``t = exp(-|z|)``: ``1 / (1 + t)`` where ``sign * z >= 0``,
    ``t / (1 + t)`` elsewhere (no overflow; ``sigmoid(z)``, ``sigmoid(-z)`` and
    ``softplus(+-z)`` share ``t``)."""
    _, jnp = _jax()
    t = jnp.exp(-jnp.abs(z))
    r = 1 / (1 + t)
    x = z if sign > 0 else -z
    return jnp.where(x >= 0, r, t * r)


def _softplus() -> Callable[..., Any]:
    return softplus_of


def _log1mexp() -> Callable[..., Any]:
    _, jnp = _jax()
    ln2 = 0.6931471805599453
    return lambda x: jnp.where(x < -ln2, jnp.log1p(-jnp.exp(x)), jnp.log(-jnp.expm1(x)))


def _softsign() -> Callable[..., Any]:
    _, jnp = _jax()
    return lambda x: x / (1 + jnp.abs(x))


def _sigmoid() -> Callable[..., Any]:
    return sigmoid_of


def _erfcinv() -> Callable[..., Any]:
    # erfcinv(y) = -ndtri(y / 2) / sqrt(2): accurate for small y, where 1 - y is not
    import jax.scipy.special as jss

    def erfcinv(y: Any) -> Any:
        if y.dtype == "float16":  # (ndtri has no float16 version)
            return erfcinv(y.astype("float32")).astype("float16")
        return -jss.ndtri(y / 2) * 0.7071067811865476

    return erfcinv


def _identity() -> Callable[..., Any]:
    return lambda x: x


def _numpy_division(name: str) -> Callable[[], Callable[..., Any]]:
    """``jnp.<name>`` (``floor_divide``, ``remainder``) with NumPy's values where XLA's
    differ: an integer divisor 0 gives 0 (XLA's ``[1, -7, 0] // 0`` is ``[-2, -2, -1]``);
    a float quotient 0 has the sign of ``x / y`` and a float remainder 0 the sign of
    ``y`` (XLA's ``-1.5 // -2.0`` and ``-4.0 % 2.0`` are -0.0)."""

    def get() -> Callable[..., Any]:
        _, jnp = _jax()
        fn = getattr(jnp, name)

        def f(x: Any, y: Any) -> Any:
            res = fn(x, y)
            if jnp.issubdtype(res.dtype, jnp.floating):
                sign = jnp.true_divide(x, y) if name == "floor_divide" else y
                zero = jnp.zeros((), res.dtype)
                return jnp.where(res == 0, jnp.copysign(zero, sign).astype(res.dtype), res)
            if jnp.issubdtype(res.dtype, jnp.inexact):
                return res
            return jnp.where(jnp.asarray(y) == 0, jnp.zeros((), res.dtype), res)

        return f

    return get


def _jax_path(path: str) -> Callable[[], Callable[..., Any]]:
    """The maker of ``jax.<path>`` (``"scipy.special.gammainc"``), imported when made."""

    def get() -> Callable[..., Any]:
        import importlib

        module, _, name = f"jax.{path}".rpartition(".")
        fn: Callable[..., Any] = getattr(importlib.import_module(module), name)
        return fn

    get.__qualname__ = f"jax.{path}"
    return get


def _host_fn(name: str) -> Callable[..., Any]:
    """The op's own NumPy computation (``impl``) inside a traced function
    (:func:`~theon.backends.jax.host.host_call`), on the arguments broadcast together
    (``vmap`` batches it as a whole); the result has the op's output dtype."""
    op = OPS[name]

    def f(*args: Any) -> Any:
        _, jnp = _jax()
        args = tuple(jnp.asarray(a) for a in args)
        (out,) = op.output_types(*(get_scalar_type(str(a.dtype)) for a in args))
        shape = jnp.broadcast_shapes(*(a.shape for a in args))

        def host(*values: Any) -> list[Any]:
            with np.errstate(all="ignore"):
                return [np.asarray(op.impl(*values)).astype(out.dtype)]

        return host_call(host, [(shape, out.dtype)], *args, vectorized=True)[0]

    return f


def _on_host(name: str) -> Callable[[], Callable[..., Any]]:
    """The maker of the rule of a row jax cannot compute (:class:`OnHost`):
    :func:`_host_fn`."""

    def get() -> Callable[..., Any]:
        return _host_fn(name)

    get.__qualname__ = f"on_host({name})"
    return get


#: XLA's incomplete gamma and beta functions lose accuracy as their parameters grow
#: (relative errors of 1e-10 at 1e5, 1e-2 and worse at 1e7..1e10 against SciPy) and
#: iterate for minutes at ``gammainc(1e16, 1e16)``; they also differ from SciPy at a
#: parameter of 0 or inf.  A call with any parameter outside ``(0, XLA_PARAM_LIMIT]`` in
#: absolute value is computed on the host by the op's own (SciPy) computation.
XLA_PARAM_LIMIT = 1e4


def _guarded(name: str, device: Callable[[], Callable[..., Any]],
             params: tuple[int, ...]) -> Callable[[], Callable[..., Any]]:
    """The maker of a rule that calls XLA's function (``device()``) while every parameter
    (the arguments at ``params``) is in its trusted range, and the host's otherwise
    (``lax.cond`` on the whole call: one branch runs).  The device branch sees 1 in
    place of an untrusted parameter, so it never runs with one."""

    def get() -> Callable[..., Any]:
        from jax import lax

        _, jnp = _jax()
        op, xla, host = OPS[name], device(), _host_fn(name)

        def f(*args: Any) -> Any:
            args = tuple(jnp.asarray(a) for a in args)
            (out,) = op.output_types(*(get_scalar_type(str(a.dtype)) for a in args))
            bad = functools.reduce(jnp.logical_or, [
                ~(jnp.abs(args[i]) <= XLA_PARAM_LIMIT) | (args[i] == 0) for i in params])

            def on_device(*xs: Any) -> Any:
                safe = [jnp.where(bad, jnp.ones_like(x), x) if i in params else x
                        for i, x in enumerate(xs)]
                shape = jnp.broadcast_shapes(*(x.shape for x in xs))
                return jnp.broadcast_to(jnp.asarray(xla(*safe)).astype(out.dtype), shape)

            return lax.cond(jnp.any(bad), host, on_device, *args)

        return f

    get.__qualname__ = f"guarded({name})"
    return get


def _chi2sf() -> Callable[..., Any]:
    import jax.scipy.special as jss

    return lambda x, k: jss.gammaincc(k / 2, x / 2)


def _owens_t() -> Callable[..., Any]:
    """jax's ``owens_t``, with SciPy's ``T(0, +-inf) = +-1/4`` (jax gives nan there)."""
    import jax.scipy.special as jss

    _, jnp = _jax()

    def f(h: Any, a: Any) -> Any:
        t = jss.owens_t(h, a)
        edge = (h == 0) & jnp.isinf(a)
        return jnp.where(edge, jnp.copysign(jnp.asarray(0.25, t.dtype), a), t)

    return f


def _xlogy0() -> Callable[..., Any]:
    """jax's ``xlogy``, with SciPy's ``xlogy(0, nan) = nan`` (jax gives 0)."""
    import jax.scipy.special as jss

    _, jnp = _jax()
    return lambda x, y: jnp.where(jnp.isnan(y), jnp.nan, jss.xlogy(x, y))


def _xlogx() -> Callable[..., Any]:
    import jax.scipy.special as jss

    return lambda x: jss.xlogy(x, x)


#: The rows whose JAX function is written here, by row name: a maker of the function.
#: Every other row is computed by its ``jax`` spelling (a function of the jax modules,
#: or its NumPy function on the host: :class:`~theon.scalar.table.OnHost`), or else by
#: ``jax.numpy.<row.numpy>`` (its one name in NumPy's namespaces).
JAX_EXCEPTIONS: dict[str, Callable[[], Callable[..., Any]]] = {
    # NumPy's values where XLA's differ (integer division by zero, signs of zeros)
    "int_div": _numpy_division("floor_divide"), "mod": _numpy_division("remainder"),
    "identity": _identity,  # (the row's numpy is ``copy``; a traced value needs none)
    # formulas of jax functions
    "erfcinv": _erfcinv, "sigmoid": _sigmoid, "softplus": _softplus,
    "log1mexp": _log1mexp, "softsign": _softsign,
    "chi2sf": _guarded("chi2sf", _chi2sf, (1,)), "xlogx": _xlogx,
    "owens_t": _owens_t, "xlogy0": _xlogy0,
    # XLA's functions with SciPy's values where its parameters are large, 0 or inf
    "gammainc": _guarded("gammainc", _jax_path("scipy.special.gammainc"), (0,)),
    "gammaincc": _guarded("gammaincc", _jax_path("scipy.special.gammaincc"), (0,)),
    "gammainc_grad": _guarded("gammainc_grad", _jax_path("lax.igamma_grad_a"), (0,)),
    "betainc": _guarded("betainc", _jax_path("scipy.special.betainc"), (0, 1)),
}


def jax_spelling(row: OpRow) -> str | Callable[[], Callable[..., Any]]:
    """How the JAX backend spells ``row``: the maker of :data:`JAX_EXCEPTIONS`, else of
    its ``jax`` spelling, else the ``jax.numpy`` name (its ``numpy``); a row with none of
    them has no JAX rule.

    >>> from theon.scalar.table import ROW
    >>> jax_spelling(ROW["true_div"]), jax_spelling(ROW["psi"]).__qualname__
    ('true_divide', 'jax.scipy.special.digamma')
    >>> jax_spelling(ROW["kv"]).__qualname__
    'on_host(kv)'
    """
    spec = JAX_EXCEPTIONS.get(row.name)
    if spec is not None:
        return spec
    if isinstance(row.jax, str):
        return _jax_path(row.jax)
    if isinstance(row.jax, OnHost):
        return _on_host(row.name)
    if row.numpy is None:
        raise KeyError(f"scalar row {row.name} has no JAX rule: it has no NumPy name (numpy=), "
                       "no jax= spelling and no entry in "
                       "theon.backends.jax.scalar.JAX_EXCEPTIONS")
    return row.numpy


def _row_fn(name: str) -> Callable[..., Any]:
    row = ROW[name]
    spec = jax_spelling(row)
    if isinstance(spec, str):
        _, jnp = _jax()
        fn: Callable[..., Any] = getattr(jnp, spec)
    else:
        fn = spec()
    if row.nin != -1:
        return fn
    binary = fn

    def folded(*args: Any) -> Any:  # a variadic add or mul: the left fold
        return binary(*args) if len(args) == 2 else functools.reduce(binary, args)

    return folded


def _register_rows() -> None:
    for row in ROWS:
        cls = type(OPS[row.name])
        # (a new row without a rule: tests/backends/jax/test_coverage.py fails)
        if row.numpy is None and row.jax is None and row.name not in JAX_EXCEPTIONS:
            continue  # pragma: no cover

        def rule(op: ScalarOp, _name: str = row.name) -> Callable[..., Any]:
            return _row_fn(_name)

        jax_scalar_funcify.register(cls, rule)


_register_rows()


@jax_scalar_funcify.register(Cast)
def _cast(op: Cast) -> Callable[..., Any]:
    _, jnp = _jax()
    dt = op.o_type.dtype
    return lambda x: jnp.asarray(x).astype(dt)


@jax_scalar_funcify.register(Clip)
def _clip(op: Clip) -> Callable[..., Any]:
    _, jnp = _jax()
    return lambda x, lo, hi: jnp.minimum(jnp.maximum(x, lo), hi)


@jax_scalar_funcify.register(Switch)
def _switch(op: Switch) -> Callable[..., Any]:
    _, jnp = _jax()
    return lambda c, a, b: jnp.where(c, a, b)


@jax_scalar_funcify.register(Reciprocal)
def _reciprocal(op: Reciprocal) -> Callable[..., Any]:
    _, jnp = _jax()
    return lambda x: jnp.true_divide(1, x)


@jax_scalar_funcify.register(RoundHalfToEven)
def _round_half_even(op: RoundHalfToEven) -> Callable[..., Any]:
    _, jnp = _jax()

    def f(x: Any) -> Any:
        x = jnp.asarray(x)
        if jnp.issubdtype(x.dtype, jnp.integer):
            return x
        return jnp.round(x)  # ties to even, as np.rint

    return f


@jax_scalar_funcify.register(PolyGamma)
def _polygamma(op: PolyGamma) -> Callable[..., Any]:
    import jax.scipy.special as jss

    return lambda n, x: jss.polygamma(n, x)


def _dtype(v: Variable) -> str:
    """The dtype of ``v``: a scalar (inside a Composite) or a tensor (under Elemwise)."""
    t = v.type
    assert isinstance(t, (ScalarType, TensorType)), f"{v} is neither a scalar nor a tensor"
    return t.dtype


def _cast_to(values: list[Any], outs: list[Variable]) -> list[Any]:
    _, jnp = _jax()
    res = []
    for v, o in zip(values, outs):
        dt = _dtype(o)
        v = jnp.asarray(v)
        if v.dtype != dt:
            v = v.astype(dt)
        res.append(v)
    return res


def _promote(op: Any, args: tuple[Any, ...], outputs: list[Variable]) -> tuple[Any, ...]:
    """``args`` cast to the type NumPy's ufunc loop computes in: the inputs' common type
    (jax promotes ``int32 * float32`` to float32, NumPy to float64), and for a float
    function of integers (``exp(int8)``, ``sigmoid(int64)``) the output's float type."""
    dts = [np.dtype(a.dtype) if hasattr(a, "dtype") else np.asarray(a).dtype for a in args]
    skip = set(getattr(op, "no_promote_inputs", ()))
    outs = {_dtype(o) for o in outputs}
    if len(outs) == 1:
        od = np.dtype(next(iter(outs)))
        if od.kind in "fc" and any(d.kind in "iub" for k, d in enumerate(dts) if k not in skip):
            if all(np.can_cast(d, od) or d.kind in "iub" for d in dts):
                return tuple(a if k in skip or dts[k] == od else _astype(a, od)
                             for k, a in enumerate(args))
    if len(set(dts)) < 2:
        return args
    common = np.result_type(*(d for k, d in enumerate(dts) if k not in skip))
    if not outs <= {common.name, "bool"}:
        return args  # the op decides its output type itself (second, shifts, ...)
    return tuple(a if k in skip or dts[k] == common else _astype(a, common)
                 for k, a in enumerate(args))


def _astype(a: Any, dt: Any) -> Any:
    _, jnp = _jax()
    return jnp.asarray(a).astype(dt)


def _times_zero(v: Any) -> Any:
    """``v * 0`` as IEEE computes it (a zero of ``v``'s sign; nan for inf and nan), in a
    form XLA cannot fold with a constant factor of ``v`` (``(x * 10) * 0 -> x * 0``)."""
    _, jnp = _jax()
    if jnp.iscomplexobj(v):  # (a + bj) * (0 + 0j) = (a*0 - b*0) + (a*0 + b*0)j
        re, im = _times_zero(jnp.real(v)), _times_zero(jnp.imag(v))
        return _complex(re - im, re + im)
    return jnp.where(jnp.isfinite(v), jnp.copysign(jnp.zeros((), v.dtype), v), jnp.nan)


def _complex(re: Any, im: Any) -> Any:
    """The complex array ``re + im * 1j`` (exact: no product with ``1j``)."""
    import jax.lax as lax

    return lax.complex(re, im)


def _mul_of_booleans(args: tuple[Any, ...], dtype: Any) -> Any:
    """The left-fold product of ``args`` in float or complex ``dtype``, a boolean factor
    ``b`` as NumPy multiplies by ``float(b)``: ``where(b, p, p * 0)``.  XLA simplifies
    ``p * float(b)`` to ``where(b, p, 0)``, which loses the sign of ``-2 * False`` and
    the nan of ``inf * False``."""
    _, jnp = _jax()
    acc: Any = None
    lead: Any = True  # the leading booleans, before the first other factor
    for a in args:
        a = jnp.asarray(a)
        if a.dtype == jnp.bool_:
            if acc is None:
                lead = jnp.logical_and(lead, a)
            else:
                acc = jnp.where(a, acc, _times_zero(acc))
        elif acc is None:
            a = a.astype(dtype)
            acc = a if lead is True else jnp.where(lead, a, _times_zero(a))  # 0*a is a*0
        else:
            acc = acc * a.astype(dtype)
    return jnp.asarray(lead).astype(dtype) if acc is None else acc


def scalar_node_fn(op: Any, outputs: list[Variable]) -> Callable[..., list[Any]]:
    """The function of JAX arrays computing scalar Op ``op`` elementwise, its results cast
    to the dtypes of ``outputs`` (a list even for one output)."""
    fn = jax_scalar_funcify(op)
    n_out = len(outputs)
    # (outputs are scalars in a Composite, tensors under Elemwise: both have a dtype)
    out_dt = np.dtype(getattr(outputs[0].type, "dtype", "O"))
    bool_mul = isinstance(op, _MUL) and out_dt.kind in "fc"

    def f(*args: Any) -> list[Any]:
        if bool_mul and any(getattr(a, "dtype", None) == np.bool_ for a in args):
            return _cast_to([_mul_of_booleans(args, out_dt)], outputs)
        res = fn(*_promote(op, args, outputs))
        vals = [res] if n_out == 1 else list(res)
        return _cast_to(vals, outputs)

    return f


@jax_scalar_funcify.register(Composite)
def _composite(op: Composite) -> Callable[..., Any]:
    _, jnp = _jax()
    steps: list[tuple[Apply, Callable[..., list[Any]]]] = [
        (node, scalar_node_fn(node.op, list(node.outputs))) for node in op.inner_nodes
    ]
    inputs = list(op.inputs)
    outputs = list(op.outputs)
    consts = {}
    for node, _ in steps:
        for v in node.inputs:
            if isinstance(v, Constant):
                consts[v] = v.data
    for v in outputs:
        if isinstance(v, Constant):
            consts[v] = v.data

    def f(*args: Any) -> Any:
        env: dict[Variable, Any] = {v: jnp.asarray(d) for v, d in consts.items()}
        env.update(zip(inputs, args))
        for node, fn in steps:
            env.update(zip(node.outputs, fn(*[env[v] for v in node.inputs])))
        res = [env[v] for v in outputs]
        return res[0] if len(res) == 1 else tuple(res)

    return f
