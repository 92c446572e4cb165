"""The RandomVariable extension point, written the way PyTensor's (and PyMC's)
documentation writes a new distribution: a subclass with ``name``, ``signature``,
``ndim_supp``/``ndims_params``, ``dtype``, ``_print_name`` and ``rng_fn``, used
through ``__call__`` and ``make_node`` and read back with ``dist_params``,
``size_param`` and ``rng_param``.  Values are checked against NumPy drawing from a
generator with the same seed; in ``mode="JAX"`` (a different stream) in law against
the reference VM."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from scipy import stats

import theon
import theon.tensor as pt
from theon.compile.mode import Mode
from theon.tensor.random.op import RandomVariable
from theon.tensor.random.type import RandomType
from theon.tensor.random.utils import normalize_size_param
from theon.tensor.random.variable import shared_rng

SEED = 2027


class BlahRV(RandomVariable):
    name: str = "blah"
    # A numpy-style signature: the number and core dimensionality of each input and output
    signature: str = "(),()->()"
    # ... which these two repeat (PyTensor's older spelling; they must agree)
    ndim_supp = 0
    ndims_params = (0, 0)
    # "int64" for discrete variables, "floatX" for continuous ones
    dtype: str = "floatX"
    # A pretty text and LaTeX representation for the RV
    _print_name: tuple[str, str] = ("blah", "\\operatorname{blah}")

    # A custom signature and default values for the parameters
    def __call__(self, loc: Any = 0.0, scale: Any = 1.0, **kwargs: Any) -> Any:
        return super().__call__(loc, scale, **kwargs)

    # The Python code that produces samples: a NumPy Generator, the distribution
    # parameters, and, finally, the size
    @classmethod
    def rng_fn(cls, rng: np.random.Generator, loc: np.ndarray, scale: np.ndarray,
               size: tuple[int, ...] | None) -> np.ndarray:
        return loc + scale * rng.gumbel(size=size if size is not None else
                                                 np.broadcast_shapes(loc.shape, scale.shape))


blah = BlahRV()


def _blah_numpy(seed: int, loc: Any, scale: Any, size: Any) -> np.ndarray:
    g = np.random.default_rng(seed)
    shape = size if size is not None else np.broadcast_shapes(np.shape(loc), np.shape(scale))
    return loc + scale * g.gumbel(size=shape)


class VecNormalRV(RandomVariable):
    """A vector of normals sharing one scale: ``(n),()->(n)``."""

    name = "vec_normal"
    signature = "(n),()->(n)"
    dtype = "floatX"
    _print_name = ("VecNormal", "\\operatorname{VecNormal}")

    def rng_fn(self, rng: np.random.Generator, mu: np.ndarray, sigma: np.ndarray,
               size: tuple[int, ...] | None) -> np.ndarray:
        shape = None if size is None else (*size, mu.shape[-1])
        return rng.normal(mu, sigma[..., None], size=shape)


vec_normal = VecNormalRV()


def test_the_signature_gives_the_core_dimensions() -> None:
    assert (blah.ndim_supp, tuple(blah.ndims_params)) == (0, (0, 0))
    assert (vec_normal.ndim_supp, tuple(vec_normal.ndims_params)) == (1, (1, 0))

    class OldStyleRV(RandomVariable):  # no signature: ndim_supp and ndims_params
        name = "old_style"
        ndim_supp = 1
        ndims_params = (1, 0)
        dtype = "floatX"

    old = OldStyleRV()
    assert old.signature is not None and (old.ndim_supp, tuple(old.ndims_params)) == (1, (1, 0))

    class WrongRV(RandomVariable):
        name = "wrong"
        signature = "(),()->()"
        ndim_supp = 1
        dtype = "floatX"

    with pytest.raises(ValueError, match="WrongRV: ndim_supp=1 .* disagree with the signature"):
        WrongRV()


def test_call_draws_what_numpy_draws_from_the_same_seed() -> None:
    rng = theon.shared(np.random.default_rng(SEED))
    x = blah(1.0, 2.0, size=(3, 2), rng=rng)
    assert x.type.shape == (3, 2) and x.dtype == theon.config.floatX
    np.testing.assert_array_equal(x.eval(), _blah_numpy(SEED, 1.0, 2.0, (3, 2)))
    # defaults of the custom __call__, batched parameters, no size
    loc = pt.dvector("loc")
    y = blah(loc, rng=rng, name="y")
    f = theon.function([loc], y)
    v = np.array([0.0, 10.0, 20.0])
    np.testing.assert_array_equal(f(v), _blah_numpy(SEED, v, 1.0, None))
    assert y.name == "y"


def test_dist_params_size_param_rng_param() -> None:
    rng = shared_rng(SEED)
    mu, sigma = pt.dvector("mu"), pt.dscalar("sigma")
    next_rng, x = vec_normal(mu, sigma, size=(4,), rng=rng, return_next_rng=True)
    node = x.owner
    op = node.op
    assert op.rng_param(node) is rng and isinstance(rng.type, RandomType)
    assert op.size_param(node).type.shape == (1,)
    assert [p.type.ndim for p in op.dist_params(node)] == [2, 1]  # batch axes made explicit
    assert op.update(node) == {rng: next_rng}
    f = theon.function([mu, sigma], x, updates={rng: next_rng})
    m = np.array([0.0, 100.0, -100.0])
    want = np.random.default_rng(SEED).normal(m, 0.5, size=(4, 3))
    np.testing.assert_array_equal(f(m, 0.5), want)
    # the update advanced the generator: the next call continues NumPy's stream
    g = np.random.default_rng(SEED)
    g.normal(size=(4, 3))
    np.testing.assert_array_equal(f(m, 0.5), g.normal(m, 0.5, size=(4, 3)))


def test_make_node_and_the_inferred_shape() -> None:
    rng = shared_rng(SEED)
    mu = pt.dmatrix("mu")
    node = vec_normal.make_node(rng, None, mu, 2.0)
    next_rng, x = node.outputs
    assert node.op.dtype == theon.config.floatX  # "floatX" committed when building
    assert x.type.ndim == 2 and next_rng.type == rng.type
    f = theon.function([mu], x.shape)
    assert not any(isinstance(n.op, RandomVariable) for n in f.maker.fgraph.toposort())
    assert tuple(f(np.zeros((5, 3)))) == (5, 3)
    size = normalize_size_param((pt.lscalar("n"), 3))
    y = vec_normal.make_node(rng, size, pt.dvector("m"), 1.0).outputs[1]
    assert y.type.shape == (None, 3, None)
    with pytest.raises(ValueError, match="vec_normal: parameter 0 needs at least 1"):
        vec_normal(pt.dscalar("m"), 1.0, rng=rng)


def test_extra_props_dtype_and_inplace() -> None:
    class ShiftedRV(RandomVariable):
        name = "shifted"
        signature = "()->()"
        dtype = "floatX"
        __props__ = (*RandomVariable.__props__, "shift")

        def __init__(self, *args: Any, shift: float = 0.0, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.shift = shift

        def rng_fn(self, rng: np.random.Generator, lam: Any, size: Any) -> np.ndarray:
            return self.shift + rng.exponential(lam, size=size)

    a, b = ShiftedRV(shift=1.0), ShiftedRV(shift=2.0)
    assert a != b and a == ShiftedRV(shift=1.0) and hash(a) == hash(ShiftedRV(shift=1.0))
    assert a.clone(inplace=True).shift == 1.0 and a.clone(inplace=True).inplace
    x = b(3.0, size=(2,), rng=shared_rng(SEED), dtype="float32")
    assert x.dtype == "float32" and str(x.owner.op) == "shifted_rv{float32, 2.0}"
    want = 2.0 + np.random.default_rng(SEED).exponential(3.0, size=2)
    np.testing.assert_array_equal(x.eval(), want.astype("float32"))

    class NoDtypeRV(RandomVariable):
        name = "no_dtype"
        signature = "()->()"

    with pytest.raises(TypeError, match="no_dtype: the Op has no dtype"):
        NoDtypeRV()(1.0)
    assert NoDtypeRV()(1.0, dtype="int32", rng=shared_rng(0)).dtype == "int32"


def test_a_subclass_of_a_distribution_keeps_its_parameters() -> None:
    """PyMC's way: ``class BetaClippedRV(BetaRV)`` with its own ``rng_fn``."""
    import theon.tensor.random as tr

    class ClippedBetaRV(tr.BetaRV):
        @classmethod
        def rng_fn(cls, rng: np.random.Generator, a: Any, b: Any, size: Any) -> np.ndarray:
            return np.clip(rng.beta(a, b, size=size), 0.1, 0.9)

    x = ClippedBetaRV()(alpha=0.5, beta=0.5, size=(50,), rng=shared_rng(SEED))
    want = np.clip(np.random.default_rng(SEED).beta(0.5, 0.5, size=50), 0.1, 0.9)
    np.testing.assert_array_equal(x.eval(), want)
    assert isinstance(x.owner.op, tr.BetaRV)


def test_jax_mode_uses_a_registered_draw_and_names_a_missing_one() -> None:
    pytest.importorskip("jax", reason="mode='JAX' needs jax")
    from theon.backends.jax.random import register_jax_draw

    class LaplaceLikeRV(RandomVariable):
        name = "laplace_like"
        signature = "(),()->()"
        dtype = "floatX"

        @classmethod
        def rng_fn(cls, rng: np.random.Generator, loc: Any, scale: Any, size: Any) -> Any:
            return rng.laplace(loc, scale, size=size)

    laplace_like = LaplaceLikeRV()
    x = laplace_like(1.0, 2.0, size=(20_000,), rng=shared_rng(SEED))
    with pytest.raises(NotImplementedError, match=r"no JAX rule \(LaplaceLikeRV\)"):
        theon.function([], x, mode="JAX")

    @register_jax_draw(LaplaceLikeRV)
    def _laplace_like(key: Any, params: Any, shape: tuple[int, ...]) -> Any:
        import jax

        return params[0] + params[1] * jax.random.laplace(key, shape, dtype="float64")

    got = theon.function([], x, mode="JAX")()
    ref = theon.function([], x, mode=Mode(linker="vm"))()
    np.testing.assert_array_equal(ref, np.random.default_rng(SEED).laplace(1.0, 2.0, 20_000))
    assert got.shape == ref.shape and got.dtype == ref.dtype
    assert stats.ks_2samp(got, ref).pvalue > 1e-3
    assert stats.kstest(got, stats.laplace(1.0, 2.0).cdf).pvalue > 1e-3
