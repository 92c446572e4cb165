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
transformation of one, below), with the same parameters as NumPy's
``Generator`` methods and the same dtypes.  Where ``jax.random`` has no
distribution, it is built from ones it has:

- ``pareto(a)``: NumPy's Lomax form, ``jax.random.pareto(a) - 1``;
- ``weibull(a)``: ``jax.random.weibull_min(1, a)``;
- ``negative_binomial(n, p)``: ``poisson(gamma(n, (1 - p) / p))``;
- ``halfnormal``, ``cauchy``, ``laplace``, ``logistic``, ``gumbel``, ``lognormal``:
  ``loc + scale * standard draw`` (``exp`` of a normal);
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

__all__ = ["bits_to_generator", "generator_bits", "generator_to_key", "key_to_generator"]


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
    out = node.outputs[1].type.shape  # type: ignore[attr-defined]
    if what == "size" and all(s is not None for s in out):
        op = node.op
        nsupp = getattr(op, "ndim_supp", 0)
        return tuple(out[: len(out) - nsupp])
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


def _draws() -> dict[str, Callable[..., Any]]:
    import jax
    import jax.numpy as jnp

    jr = jax.random
    f64 = "float64"

    def poisson(key: Any, lam: Any, shape: tuple[int, ...]) -> Any:
        return jr.poisson(key, jnp.broadcast_to(_f64(lam), shape), shape, dtype="int64")

    return {
        "uniform": lambda k, p, s: _f64(p[0]) + (_f64(p[1]) - _f64(p[0]))
        * jr.uniform(k, s, dtype=f64),
        "normal": _loc_scale(_std("normal")),
        "standard_normal": lambda k, p, s: jr.normal(k, s, dtype=f64),
        "lognormal": lambda k, p, s: jnp.exp(_loc_scale(_std("normal"))(k, p, s)),
        "exponential": lambda k, p, s: _f64(p[0]) * jr.exponential(k, s, dtype=f64),
        "gamma": lambda k, p, s: jr.gamma(k, jnp.broadcast_to(_f64(p[0]), s), s, dtype=f64)
        * _f64(p[1]),
        "beta": lambda k, p, s: jr.beta(k, _f64(p[0]), _f64(p[1]), s, dtype=f64),
        "chisquare": lambda k, p, s: jr.chisquare(k, _f64(p[0]), s, dtype=f64),
        "standard_t": lambda k, p, s: jr.t(k, _f64(p[0]), s, dtype=f64),
        "cauchy": _loc_scale(_std("cauchy")),
        "laplace": _loc_scale(_std("laplace")),
        "logistic": _loc_scale(_std("logistic")),
        "gumbel": _loc_scale(_std("gumbel")),
        "pareto": lambda k, p, s: jr.pareto(k, _f64(p[0]), s, dtype=f64) - 1.0,
        "weibull": lambda k, p, s: jr.weibull_min(k, 1.0, _f64(p[0]), s, dtype=f64),
        "vonmises": _vonmises,
        "halfnormal": lambda k, p, s: _f64(p[0]) + _f64(p[1]) * jnp.abs(
            jr.normal(k, s, dtype=f64)),
        "bernoulli": lambda k, p, s: jr.bernoulli(k, _f64(p[0]), s).astype("int64"),
        "binomial": lambda k, p, s: jr.binomial(
            k, jnp.broadcast_to(_f64(p[0]), s), jnp.broadcast_to(_f64(p[1]), s), s,
            dtype=f64).astype("int64"),
        "poisson": lambda k, p, s: poisson(k, p[0], s),
        "geometric": lambda k, p, s: jr.geometric(k, _f64(p[0]), s, dtype="int64"),
        "negative_binomial": lambda k, p, s: poisson(
            jr.split(k)[1],
            jr.gamma(jr.split(k)[0], jnp.broadcast_to(_f64(p[0]), s), s, dtype=f64)
            * (1.0 - _f64(p[1])) / _f64(p[1]), s),
        "hypergeometric": _hypergeometric,
        "categorical": lambda k, p, s: jr.categorical(
            k, jnp.log(_f64(p[0])), axis=-1, shape=s).astype("int64"),
        "multinomial": lambda k, p, s: jr.multinomial(
            k, jnp.broadcast_to(_f64(p[0]), s), jnp.broadcast_to(
                _f64(p[1]), s + jnp.shape(p[1])[-1:]), shape=s + jnp.shape(p[1])[-1:],
            dtype=f64).astype("int64"),
        "dirichlet": lambda k, p, s: jr.dirichlet(k, _f64(p[0]), s, dtype=f64),
        "multivariate_normal": lambda k, p, s: jr.multivariate_normal(
            k, _f64(p[0]), _f64(p[1]), s, dtype=f64, method="svd"),
    }


_DRAWS: dict[str, Callable[..., Any]] = {}


@jax_funcify.register(RandomVariable)
def _random_variable(op: RandomVariable, node: Apply, **kw: Any) -> Callable[..., Any]:
    if not _DRAWS:
        _DRAWS.update(_draws())
    dtype = op.dtype
    method = op.method
    n_in = node.inputs[2] if method == "binomial" else None
    skip = 0  # parameters not passed to the drawer
    if isinstance(n_in, Constant) and np.all(np.asarray(n_in.data) == 1):
        method, skip = "bernoulli", 1  # a coin flip: jax.random.binomial's sampler is slower
    if method == "integers":
        draw = None
    else:
        draw = _DRAWS.get(method)
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


@jax_funcify.register(ChoiceRV)
def _choice(op: ChoiceRV, node: Apply, **kw: Any) -> Callable[..., Any]:
    dtype = node.outputs[1].type.dtype  # type: ignore[attr-defined]
    scalar_a = node.inputs[2].type.ndim == 0  # type: ignore[attr-defined]

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
    dtype = node.outputs[1].type.dtype  # type: ignore[attr-defined]
    scalar = node.inputs[1].type.ndim == 0  # type: ignore[attr-defined]

    def permutation(key: Any, x: Any) -> Any:
        import jax

        if scalar:
            (x,) = _static_ints(node, 1, x, "x") or (0,)
        nxt, sub = jax.random.split(_typed(key))
        return _raw(nxt), jax.random.permutation(sub, x, axis=0).astype(dtype)

    return permutation
