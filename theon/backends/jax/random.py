"""JAX rules for the random Ops of :mod:`theon.tensor.random`.

In ``mode="JAX"`` a random generator's value is a JAX PRNG key (threefry): the
key is made from the ``numpy.random.Generator`` when the function is called
(:func:`generator_to_key`, which does not advance the caller's generator) and a
generator is made back from the key the function returns
(:func:`key_to_generator`).  Across the jit boundary the key travels as its raw
data, two uint32 words in a NumPy array (:func:`generator_bits`,
:func:`bits_to_generator`), and the rules wrap it into a typed key (and back)
inside the trace: converting a key outside the jitted function is a jax dispatch
of its own each way, which after a large computation cost about 150 µs per call,
more than the whole rest of the round trip.  Each draw splits its input key into the key it draws
with and the next key, its ``next_rng`` output; so a shared generator updated
with ``next_rng`` (``updates={rng: next_rng}``, or the default update that
``RandomStream`` and ``rng=None`` set) gives fresh draws at each call, and the
same seed gives the same draws.

The numbers differ from NumPy's: each distribution is ``jax.random``'s (or a
transformation of one, below), with the parameters and dtypes of
:mod:`theon.tensor.random.basic`.  The rule of a distribution class serves its
subclasses too (PyMC's ``BetaClippedRV`` draws as ``BetaRV``); a ``RandomVariable``
subclass with no such ancestor has no JAX rule (``MissingJAXRule`` names it).  Where
``jax.random`` has no distribution, it is built from ones it has:

- ``pareto(b, scale)``: ``scale * jax.random.pareto(b)``;
- ``weibull(shape)``: ``jax.random.weibull_min(1, shape)``;
- ``invgamma(shape, scale)``: ``scale / gamma(shape)``; ``gengamma(alpha, p, lambd)``:
  ``lambd * gamma(alpha / p) ** (1 / p)``;
- ``negative_binomial(n, p)``: ``poisson(gamma(n, (1 - p) / p))``;
  ``betabinom(n, a, b)``: ``binomial(n, beta(a, b))``;
- ``halfnormal``, ``halfcauchy``, ``cauchy``, ``laplace``, ``logistic``, ``gumbel``,
  ``t``, ``lognormal``: ``loc + scale * standard draw`` (``|.|`` for the half ones,
  ``exp`` of a normal);
- ``triangular``, ``truncexpon``: the inverse CDF of a uniform; ``wald``: Michael,
  Schucany and Haas's transformation of a normal and a uniform;
- ``vonmises(mu, kappa)``: Best and Fisher's rejection sampler in a while loop;
- ``hypergeometric(ngood, nbad, nsample)``: ``nsample`` draws without replacement,
  one uniform per draw, in a while loop.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from theon.backends.jax.tensor import DynamicShapeError
from theon.graph.basic import Apply, Constant
from theon.link.jax.dispatch import jax_funcify
from theon.tensor.random.op import RandomVariable
from theon.tensor.random.sampling import ChoiceRV, PermutationRV, RowChoiceRV
from theon.tensor.type import tensor_type

__all__ = ["bits_to_generator", "generator_bits", "generator_to_key", "key_to_generator",
           "register_jax_draw"]


_M64 = (1 << 64) - 1
_M128 = (1 << 128) - 1
_MIX = 0x9E3779B97F4A7C15F39CC0605CEDC835  # an odd 128-bit constant


def generator_bits(rng: np.random.Generator) -> np.ndarray:
    """The key data (two uint32 words) that ``rng``'s state determines; ``rng`` is not
    advanced.  This is what a generator argument of a jitted function becomes.

    A ``PCG64`` generator (``default_rng``'s) gives its 128-bit state and increment
    mixed and folded to 64 bits: a dictionary read and a few integer operations, with
    no copy of the generator (this runs on every call, right after XLA's threads
    finished the previous one, where Python work is slowest).  Other bit generators
    give the first two 32-bit draws of a copy of the generator.

    >>> import numpy as np
    >>> a = generator_bits(np.random.default_rng(0))
    >>> a.dtype.name, a.shape, bool((a == generator_bits(np.random.default_rng(0))).all())
    ('uint32', (2,), True)
    >>> bool((a == generator_bits(np.random.default_rng(1))).all())
    False
    """
    bg = rng.bit_generator
    if type(bg) is np.random.PCG64:
        st = bg.state["state"]
        y = ((st["state"] * _MIX) & _M128) ^ st["inc"]
        x = (y ^ (y >> 64)) & _M64
        return np.array([x & 0xFFFFFFFF, x >> 32], dtype=np.uint32)
    from theon.tensor.random.type import copy_generator

    return copy_generator(rng).integers(0, 2**32, size=2, dtype=np.uint32)


def bits_to_generator(bits: Any) -> np.random.Generator:
    """A ``numpy.random.Generator`` (``PCG64``) seeded from key data (two uint32 words).

    >>> import numpy as np
    >>> g = bits_to_generator(np.array([1, 2], dtype=np.uint32))
    >>> isinstance(g, np.random.Generator)
    True
    """
    w = np.asarray(bits).reshape(-1)
    return np.random.Generator(np.random.PCG64(int(w[0]) | int(w[1]) << 32))


def generator_to_key(rng: np.random.Generator) -> Any:
    """A JAX PRNG key determined by ``rng``'s state (``rng`` is not advanced).

    >>> import numpy as np, pytest
    >>> jax = pytest.importorskip("jax")  # the example needs jax
    >>> a = generator_to_key(np.random.default_rng(0))
    >>> b = generator_to_key(np.random.default_rng(0))
    >>> bool((key_data(a) == key_data(b)).all())
    True
    """
    import jax

    bits = generator_bits(rng)
    return jax.random.wrap_key_data(jax.numpy.asarray(bits), impl="threefry2x32")


def key_data(key: Any) -> np.ndarray:
    """The key's two 32-bit words, as a NumPy array."""
    import jax

    return np.asarray(jax.random.key_data(key))


def key_to_generator(key: Any) -> np.random.Generator:
    """A ``numpy.random.Generator`` seeded from the key (so it maps back to a key); the
    same generator as :func:`bits_to_generator` of the key's data.

    >>> import numpy as np, pytest
    >>> jax = pytest.importorskip("jax")  # the example needs jax
    >>> g = key_to_generator(generator_to_key(np.random.default_rng(0)))
    >>> isinstance(g, np.random.Generator)
    True
    """
    return bits_to_generator(key_data(key))


def _typed(key: Any) -> Any:
    """The typed key of a generator value inside the trace (given as raw key data)."""
    import jax
    import jax.numpy as jnp

    if jnp.issubdtype(key.dtype, jax.dtypes.prng_key):
        return key
    return jax.random.wrap_key_data(key, impl="threefry2x32")


def _raw(key: Any) -> Any:
    """A generator value as it leaves a rule: the key's raw data."""
    import jax

    return jax.random.key_data(key)


def _register_types() -> None:
    """``jax_typify`` / ``jax_untypify`` for the generator type, once they exist."""
    from theon.link.jax import dispatch
    from theon.tensor.random.type import RandomGeneratorType

    typify = getattr(dispatch, "jax_typify", None)
    untypify = getattr(dispatch, "jax_untypify", None)
    if typify is not None:
        typify.register(RandomGeneratorType)(lambda t, value: generator_bits(value))
    if untypify is not None:
        untypify.register(RandomGeneratorType)(lambda t, value: bits_to_generator(value))


_register_types()


# -- static helpers ------------------------------------------------------------------
def _static_ints(node: Apply, i: int, value: Any, what: str) -> tuple[int, ...] | None:
    """The integers of input ``i`` known when tracing (None for the ``size=None``)."""
    v = node.inputs[i]
    data = v.data if isinstance(v, Constant) else value
    if data is None:
        return None
    try:
        return tuple(int(s) for s in np.asarray(data).reshape(-1))
    except Exception:
        pass
    out = tensor_type(node.outputs[1]).shape
    if what == "size" and all(s is not None for s in out):
        op = node.op
        nsupp = getattr(op, "ndim_supp", 0)
        return tuple(int(s) for s in out[: len(out) - nsupp] if s is not None)
    raise DynamicShapeError(
        f"mode='JAX': {node.op} has a {what} computed from a run-time value: under jax.jit the "
        f"shape of a draw must be known when tracing (give {what} as constants)")


def _batch(params: Sequence[Any], ndims: Sequence[int], size: tuple[int, ...] | None
           ) -> tuple[int, ...]:
    if size is not None:
        return size
    return tuple(np.broadcast_shapes(*(np.shape(p)[: np.ndim(p) - nd]
                                       for p, nd in zip(params, ndims))))


def _f64(x: Any) -> Any:
    import jax.numpy as jnp

    return jnp.asarray(x, dtype=jnp.float64)


# -- the distributions: draw(key, params, shape) in NumPy's dtype ------------------------
def _loc_scale(std: Callable[[Any, tuple[int, ...]], Any]) -> Callable[..., Any]:
    def draw(key: Any, p: Sequence[Any], shape: tuple[int, ...]) -> Any:
        loc, scale = p
        return _f64(loc) + _f64(scale) * std(key, shape)
    return draw


def _std(name: str) -> Callable[[Any, tuple[int, ...]], Any]:
    import jax

    fn = getattr(jax.random, name)
    return lambda key, shape: fn(key, shape, dtype="float64")


def _vonmises(key: Any, p: Sequence[Any], shape: tuple[int, ...]) -> Any:
    """Best and Fisher (1979): accept-reject on the wrapped Cauchy, vectorized."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    mu = jnp.broadcast_to(_f64(p[0]), shape)
    kappa = jnp.broadcast_to(_f64(p[1]), shape)
    small = kappa < 1e-8
    k = jnp.where(small, 1.0, kappa)
    tau = 1.0 + jnp.sqrt(1.0 + 4.0 * k * k)
    rho = (tau - jnp.sqrt(2.0 * tau)) / (2.0 * k)
    r = (1.0 + rho * rho) / (2.0 * rho)

    def cond(s: Any) -> Any:
        return jnp.logical_not(jnp.all(s[2]))

    def body(s: Any) -> Any:
        key, f, done = s
        key, k1, k2 = jax.random.split(key, 3)
        u1 = jax.random.uniform(k1, shape, dtype="float64")
        u2 = jax.random.uniform(k2, shape, dtype="float64", minval=1e-300)
        z = jnp.cos(jnp.pi * u1)
        fn = (1.0 + r * z) / (r + z)
        c = k * (r - fn)
        ok = (c * (2.0 - c) - u2 > 0) | (jnp.log(c / u2) + 1.0 - c >= 0)
        f = jnp.where(done, f, fn)
        return key, f, done | ok

    k0, k3, k4 = jax.random.split(key, 3)
    _, f, _ = lax.while_loop(cond, body, (k0, jnp.zeros(shape), jnp.zeros(shape, bool)))
    u3 = jax.random.uniform(k3, shape, dtype="float64")
    theta = jnp.where(u3 > 0.5, 1.0, -1.0) * jnp.arccos(jnp.clip(f, -1.0, 1.0))
    unif = jnp.pi * (2.0 * jax.random.uniform(k4, shape, dtype="float64") - 1.0)
    x = jnp.where(small, unif, theta) + mu
    return jnp.mod(x + jnp.pi, 2.0 * jnp.pi) - jnp.pi


def _hypergeometric(key: Any, p: Sequence[Any], shape: tuple[int, ...]) -> Any:
    """The good items among ``nsample`` drawn without replacement, one draw a step."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    good, bad, nsample = (jnp.broadcast_to(jnp.asarray(v, "int64"), shape) for v in p)
    m = jnp.max(nsample) if math.prod(shape) else jnp.asarray(0, "int64")

    def body(i: Any, s: Any) -> Any:
        g, b, count = s
        u = jax.random.uniform(jax.random.fold_in(key, i), shape, dtype="float64")
        active = i < nsample
        take = active & (u * (g + b) < g)
        return g - take, b - (active & ~take), count + take

    zero = jnp.zeros(shape, "int64")
    return lax.fori_loop(jnp.asarray(0, "int64"), m, body, (good, bad, zero))[2]


def _draws() -> dict[Any, Callable[..., Any]]:
    """``draw(key, params, shape)`` per distribution class (NumPy's dtype)."""
    import jax
    import jax.numpy as jnp

    import theon.tensor.random.basic as rb

    jr = jax.random
    f64 = "float64"

    def poisson(key: Any, lam: Any, shape: tuple[int, ...]) -> Any:
        return jr.poisson(key, jnp.broadcast_to(_f64(lam), shape), shape, dtype="int64")

    def gamma(key: Any, a: Any, shape: tuple[int, ...]) -> Any:
        return jr.gamma(key, jnp.broadcast_to(_f64(a), shape), shape, dtype=f64)

    def binomial(key: Any, n: Any, p: Any, shape: tuple[int, ...]) -> Any:
        return jr.binomial(key, jnp.broadcast_to(_f64(n), shape),
                           jnp.broadcast_to(_f64(p), shape), shape, dtype=f64).astype("int64")

    def triangular(key: Any, p: Sequence[Any], s: tuple[int, ...]) -> Any:
        left, mode, right = (_f64(v) for v in p)
        u = jr.uniform(key, s, dtype=f64)
        c = (mode - left) / (right - left)
        lo = left + jnp.sqrt(u * (right - left) * (mode - left))
        hi = right - jnp.sqrt((1.0 - u) * (right - left) * (right - mode))
        return jnp.where(u < c, lo, hi)

    def wald(key: Any, p: Sequence[Any], s: tuple[int, ...]) -> Any:
        """Michael, Schucany and Haas (1976): a normal and a uniform per draw."""
        mu, lam = _f64(p[0]), _f64(p[1])
        k1, k2 = jr.split(key)
        y = jr.normal(k1, s, dtype=f64) ** 2
        x = mu + mu * mu * y / (2.0 * lam) - mu / (2.0 * lam) * jnp.sqrt(
            4.0 * mu * lam * y + (mu * y) ** 2)
        u = jr.uniform(k2, s, dtype=f64)
        return jnp.where(u <= mu / (mu + x), x, mu * mu / x)

    def truncexpon(key: Any, p: Sequence[Any], s: tuple[int, ...]) -> Any:
        b, loc, scale = (_f64(v) for v in p)
        u = jr.uniform(key, s, dtype=f64)
        return loc + scale * -jnp.log1p(-u * -jnp.expm1(-b))

    def betabinom(key: Any, p: Sequence[Any], s: tuple[int, ...]) -> Any:
        k1, k2 = jr.split(key)
        prob = jr.beta(k1, _f64(p[1]), _f64(p[2]), s, dtype=f64)
        return binomial(k2, p[0], prob, s)

    def mvnormal(method: str) -> Callable[..., Any]:
        return lambda k, p, s: jr.multivariate_normal(
            k, _f64(p[0]), _f64(p[1]), s, dtype=f64, method=method)

    return {
        rb.UniformRV: lambda k, p, s: _f64(p[0]) + (_f64(p[1]) - _f64(p[0]))
        * jr.uniform(k, s, dtype=f64),
        rb.TriangularRV: triangular,
        rb.NormalRV: _loc_scale(_std("normal")),
        rb.LogNormalRV: lambda k, p, s: jnp.exp(_loc_scale(_std("normal"))(k, p, s)),
        rb.ExponentialRV: lambda k, p, s: _f64(p[0]) * jr.exponential(k, s, dtype=f64),
        rb.GammaRV: lambda k, p, s: gamma(k, p[0], s) * _f64(p[1]),
        rb.InvGammaRV: lambda k, p, s: _f64(p[1]) / gamma(k, p[0], s),
        rb.GenGammaRV: lambda k, p, s: _f64(p[2]) * gamma(k, _f64(p[0]) / _f64(p[1]), s)
        ** (1.0 / _f64(p[1])),
        rb.BetaRV: lambda k, p, s: jr.beta(k, _f64(p[0]), _f64(p[1]), s, dtype=f64),
        rb.StudentTRV: lambda k, p, s: _f64(p[1]) + _f64(p[2]) * jr.t(k, _f64(p[0]), s,
                                                                       dtype=f64),
        rb.CauchyRV: _loc_scale(_std("cauchy")),
        rb.HalfCauchyRV: lambda k, p, s: _f64(p[0]) + _f64(p[1]) * jnp.abs(
            jr.cauchy(k, s, dtype=f64)),
        rb.LaplaceRV: _loc_scale(_std("laplace")),
        rb.LogisticRV: _loc_scale(_std("logistic")),
        rb.GumbelRV: _loc_scale(_std("gumbel")),
        rb.ParetoRV: lambda k, p, s: _f64(p[1]) * jr.pareto(k, _f64(p[0]), s, dtype=f64),
        rb.WeibullRV: lambda k, p, s: jr.weibull_min(k, 1.0, _f64(p[0]), s, dtype=f64),
        rb.VonMisesRV: _vonmises,
        rb.WaldRV: wald,
        rb.TruncExponentialRV: truncexpon,
        rb.HalfNormalRV: lambda k, p, s: _f64(p[0]) + _f64(p[1]) * jnp.abs(
            jr.normal(k, s, dtype=f64)),
        rb.BernoulliRV: lambda k, p, s: jr.bernoulli(k, _f64(p[0]), s).astype("int64"),
        rb.BinomialRV: lambda k, p, s: binomial(k, p[0], p[1], s),
        rb.PoissonRV: lambda k, p, s: poisson(k, p[0], s),
        rb.GeometricRV: lambda k, p, s: jr.geometric(k, _f64(p[0]), s, dtype="int64"),
        rb.NegBinomialRV: lambda k, p, s: poisson(
            jr.split(k)[1], gamma(jr.split(k)[0], p[0], s) * (1.0 - _f64(p[1])) / _f64(p[1]),
            s),
        rb.BetaBinomialRV: betabinom,
        rb.HyperGeometricRV: _hypergeometric,
        rb.CategoricalRV: lambda k, p, s: jr.categorical(
            k, jnp.log(_f64(p[0])), axis=-1, shape=s).astype("int64"),
        rb.MultinomialRV: lambda k, p, s: jr.multinomial(
            k, jnp.broadcast_to(_f64(p[0]), s), jnp.broadcast_to(
                _f64(p[1]), s + jnp.shape(p[1])[-1:]), shape=s + jnp.shape(p[1])[-1:],
            dtype=f64).astype("int64"),
        rb.DirichletRV: lambda k, p, s: jr.dirichlet(k, _f64(p[0]), s, dtype=f64),
        # the multivariate normal's method is a prop: one entry per method below
        (rb.MvNormalRV, "cholesky"): mvnormal("cholesky"),
        (rb.MvNormalRV, "svd"): mvnormal("svd"),
        (rb.MvNormalRV, "eigh"): mvnormal("eigh"),
    }


_DRAWS: dict[Any, Callable[..., Any]] = {}
_USER_DRAWS: dict[type, Callable[..., Any]] = {}


def register_jax_draw(cls: type) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register the JAX draw of a ``RandomVariable`` subclass (and its subclasses):
    ``draw(key, params, shape)`` returns the draw of batch shape ``shape`` from a typed
    PRNG key; the rule splits the generator's key and threads the next one.

    >>> from theon.tensor.random.op import RandomVariable
    >>> class ShiftedExponentialRV(RandomVariable):
    ...     name = "shifted_exponential"
    ...     signature = "()->()"
    ...     dtype = "floatX"
    ...     @classmethod
    ...     def rng_fn(cls, rng, shift, size):
    ...         return shift + rng.exponential(size=size)
    >>> @register_jax_draw(ShiftedExponentialRV)
    ... def _draw(key, params, shape):
    ...     import jax
    ...     return params[0] + jax.random.exponential(key, shape, dtype="float64")
    """

    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        _USER_DRAWS[cls] = fn
        return fn

    return deco


def _draw_rule(op: RandomVariable) -> Callable[..., Any] | None:
    """The draw of the nearest class in ``op``'s MRO that has one (a subclass of a
    distribution draws as it does, as with ``singledispatch``); None for none."""
    if not _DRAWS:
        _DRAWS.update(_draws())
    for cls in type(op).__mro__:
        key: Any = (cls, getattr(op, "method", None)) if (cls, "cholesky") in _DRAWS else cls
        rule = _USER_DRAWS.get(cls) or _DRAWS.get(key)
        if rule is not None:
            return rule
    return None


@jax_funcify.register(RandomVariable)
def _random_variable(op: RandomVariable, node: Apply, **kw: Any) -> Callable[..., Any]:
    from theon.tensor.random.basic import BinomialRV, IntegersRV

    dtype = tensor_type(node.outputs[1]).dtype
    skip = 0  # parameters not passed to the drawer
    draw: Callable[..., Any] | None
    n_in = node.inputs[2]
    if isinstance(op, IntegersRV):
        draw = None
    elif (isinstance(op, BinomialRV) and isinstance(n_in, Constant)
          and np.all(np.asarray(n_in.data) == 1)):
        # a coin flip: jax.random.binomial's sampler is slower
        draw = lambda k, p, s: jax_bernoulli(k, p[0], s)  # noqa: E731
        skip = 1
    else:
        draw = _draw_rule(op)
        if draw is None:
            from theon.link.jax.dispatch import MissingJAXRule

            raise MissingJAXRule(op)

    def random_variable(key: Any, size: Any, *params: Any) -> Any:
        import jax
        import jax.numpy as jnp

        shape = _batch(params, op.ndims_params, _static_ints(node, 1, size, "size"))
        nxt, sub = jax.random.split(_typed(key))
        if draw is None:  # integers(low, high): high excluded, drawn in the output dtype
            out = jax.random.randint(sub, shape, params[0], params[1], dtype=dtype)
        else:
            out = draw(sub, params[skip:], shape)
        return _raw(nxt), jnp.asarray(out).astype(dtype)

    return random_variable


def jax_bernoulli(key: Any, p: Any, shape: tuple[int, ...]) -> Any:
    """``bernoulli(p)`` draws as int64."""
    import jax

    return jax.random.bernoulli(key, _f64(p), shape).astype("int64")


@jax_funcify.register(ChoiceRV)
def _choice(op: ChoiceRV, node: Apply, **kw: Any) -> Callable[..., Any]:
    dtype = tensor_type(node.outputs[1]).dtype
    scalar_a = tensor_type(node.inputs[2]).ndim == 0

    def choice(key: Any, size: Any, a: Any, *p: Any) -> Any:
        import jax

        shape = _static_ints(node, 1, size, "size") or ()
        if scalar_a:
            (a,) = _static_ints(node, 2, a, "a") or (0,)
        nxt, sub = jax.random.split(_typed(key))
        out = jax.random.choice(sub, a, shape, replace=op.replace, p=p[0] if p else None)
        return _raw(nxt), out.astype(dtype)

    return choice


@jax_funcify.register(RowChoiceRV)
def _row_choice(op: RowChoiceRV, node: Apply, **kw: Any) -> Callable[..., Any]:
    def row_choice(key: Any, n: Any, p: Any) -> Any:
        import jax

        (k,) = _static_ints(node, 1, n, "size") or (0,)
        nxt, sub = jax.random.split(_typed(key))
        keys = jax.random.split(sub, p.shape[0])

        def row(kk: Any, pr: Any) -> Any:
            return jax.random.choice(kk, p.shape[1], (k,), replace=op.replace, p=pr)

        return _raw(nxt), jax.vmap(row)(keys, p).astype("int64")

    return row_choice


@jax_funcify.register(PermutationRV)
def _permutation(op: PermutationRV, node: Apply, **kw: Any) -> Callable[..., Any]:
    dtype = tensor_type(node.outputs[1]).dtype
    scalar = tensor_type(node.inputs[1]).ndim == 0

    def permutation(key: Any, x: Any) -> Any:
        import jax

        if scalar:
            (x,) = _static_ints(node, 1, x, "x") or (0,)
        nxt, sub = jax.random.split(_typed(key))
        return _raw(nxt), jax.random.permutation(sub, x, axis=0).astype(dtype)

    return permutation
