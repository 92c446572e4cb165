"""The explicit (PyTensor 3 style) API: shared generators, updates, inputs, rewrites, errors."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import theon
import theon.graph.traversal
import theon.tensor as tt
import theon.tensor.random as tr
from theon.compile.io import In
from theon.gradient.core import NullTypeGradError
from theon.tensor.random.op import RandomVariable


def _rv_nodes(f: theon.compile.compiled.Function) -> list[object]:
    return [n for n in f.maker.fgraph.toposort() if isinstance(n.op, RandomVariable)]


def test_shared_generator_is_a_copy() -> None:
    g = np.random.default_rng(5)
    state = g.bit_generator.state
    rng = theon.shared(g)
    assert isinstance(rng, tr.RandomGeneratorSharedVariable)
    assert rng.type == tr.random_generator_type
    assert rng.get_value(borrow=True) is not g
    nxt, x = tr.normal(size=(4,), rng=rng, return_next_rng=True)
    theon.function([], x, updates={rng: nxt})()
    assert g.bit_generator.state == state  # the caller's generator never moved
    assert rng.get_value().bit_generator.state != state


def test_update_gives_fresh_draws_and_a_seed_reproduces_them() -> None:
    def draws(seed: int) -> list[np.ndarray]:
        rng = tr.shared_rng(seed)
        nxt, x = tr.uniform(size=(3,), rng=rng, return_next_rng=True)
        f = theon.function([], x, updates={rng: nxt})
        return [f(), f()]

    a, b = draws(1)
    assert (a != b).all()
    g = np.random.default_rng(1)
    np.testing.assert_array_equal(np.concatenate([a, b]), g.uniform(size=6))
    np.testing.assert_array_equal(np.concatenate(draws(1)), np.concatenate([a, b]))


def test_without_update_the_draw_repeats() -> None:
    x = tr.normal(size=(3,), rng=tr.shared_rng(2))
    f = theon.function([], x)
    np.testing.assert_array_equal(f(), f())


def test_default_rng_is_a_new_generator_that_nothing_updates() -> None:
    """Without ``rng`` a draw reads a new OS-seeded shared generator with no update (as
    in PyTensor, so PyMC's update collection sees a plain shared generator)."""
    x = tr.normal(size=(3,))
    (rng,) = [v for v in theon.graph.traversal.graph_inputs([x])
              if isinstance(v, tr.RandomGeneratorSharedVariable)]
    assert rng.default_update is None
    f = theon.function([], x)
    np.testing.assert_array_equal(f(), f())
    want = np.random.default_rng(0).normal(size=3)
    rng.set_value(np.random.default_rng(0))
    np.testing.assert_array_equal(f(), want)
    # two unseeded draws get two generators: they are not merged
    a, b = tr.normal(size=(3,)), tr.normal(size=(3,))
    g = theon.function([], [a, b])
    assert len(_rv_nodes(g)) == 2
    va, vb = g()
    assert (va != vb).all()


def test_rng_as_an_input() -> None:
    rng_in = tr.random_generator_type("rng")
    nxt, x = tr.normal(1.0, 2.0, size=(3,), rng=rng_in, return_next_rng=True)
    for mutable in (False, True):
        f = theon.function([In(rng_in, mutable=mutable)], [nxt, x])
        g = np.random.default_rng(9)
        state = g.bit_generator.state
        g2, v = f(g)
        assert g.bit_generator.state == state  # not inplace: the input is untouched
        ref = np.random.default_rng(9)
        np.testing.assert_array_equal(v, ref.normal(1.0, 2.0, size=3))
        assert g2.bit_generator.state == ref.bit_generator.state


def test_two_draws_are_never_merged_or_folded() -> None:
    r1, r2 = tr.shared_rng(3), tr.shared_rng(4)
    a = tr.normal(0.0, 1.0, size=(2,), rng=r1)
    b = tr.normal(0.0, 1.0, size=(2,), rng=r2)
    f = theon.function([], [a, b])
    assert len(_rv_nodes(f)) == 2
    # a draw from a constant generator with constant parameters is not folded
    c = tr.normal(size=(2,), rng=tr.random_generator_type.make_constant(
        np.random.default_rng(0)))
    g = theon.function([], c)
    assert len(_rv_nodes(g)) == 1
    np.testing.assert_array_equal(g(), np.random.default_rng(0).normal(size=2))


def test_dtype() -> None:
    x = tr.normal(size=(2,), rng=tr.shared_rng(0), dtype="float32")
    assert x.dtype == "float32" and theon.function([], x)().dtype == np.float32
    with theon.config.change_flags(floatX="float32"):
        assert tr.uniform(size=(2,), rng=tr.shared_rng(0)).dtype == "float32"
    assert tr.poisson(size=(2,), rng=tr.shared_rng(0)).dtype == "int64"
    i = tr.integers(0, 5, size=(3,), rng=tr.shared_rng(0), dtype="int32")
    np.testing.assert_array_equal(theon.function([], i)(), np.random.default_rng(0).integers(
        0, 5, size=3, dtype="int32"))


def test_symbolic_size() -> None:
    n = tt.lscalar("n")
    x = tr.normal(size=(n, 2), rng=tr.shared_rng(0))
    assert x.type.shape == (None, 2)
    np.testing.assert_array_equal(theon.function([n], x)(3),
                                  np.random.default_rng(0).normal(size=(3, 2)))


def test_size_as_an_array_or_int() -> None:
    x = tr.normal(size=np.array([2, 3]), rng=tr.shared_rng(0))
    y = tr.normal(size=4, rng=tr.shared_rng(0))
    assert x.type.shape == (2, 3) and y.type.shape == (4,)


def test_errors() -> None:
    with pytest.raises(TypeError, match="argument 'size'"):
        tr.normal(size=2.5)
    with pytest.raises(TypeError, match="argument 'size'"):
        tr.normal(size="3")
    with pytest.raises(TypeError, match="argument 'size'"):
        tr.normal(size=tt.dvector("s"))
    with pytest.raises(ValueError, match="parameter 0 .* does not broadcast to size"):
        tr.normal(np.zeros(3), 1.0, size=(4,))
    with pytest.raises(ValueError, match="do not broadcast"):
        tr.normal(np.zeros(3), np.ones(4))
    with pytest.raises(TypeError, match="argument 'rng'"):
        tr.normal(rng=np.random.default_rng(0))
    with pytest.raises(TypeError, match="missing its parameter 'alpha'"):
        tr.beta(beta=2.0)
    with pytest.raises(TypeError, match="unexpected or repeated argument 'b'"):
        tr.beta(1.0, b=2.0)
    with pytest.raises(TypeError, match="numpy.random.Generator"):
        tr.shared_rng(0).set_value(3)


def test_grad_through_a_draw_is_an_error_naming_the_op() -> None:
    m = tt.dscalar("m")
    x = tr.normal(m, 1.0, size=(3,), rng=tr.shared_rng(0))
    with pytest.raises(NullTypeGradError, match="normal_rv"):
        theon.grad(x.sum(), m)
    # a parameter-free draw shifted by m has the usual gradient
    y = m + tr.normal(0.0, 1.0, size=(3,), rng=tr.shared_rng(0))
    assert theon.grad(y.sum(), m).eval({m: 1.0}) == 3.0


def test_pickled_shared_rng_keeps_its_state() -> None:
    rng = tr.shared_rng(11)
    nxt, x = tr.normal(size=(2,), rng=rng, return_next_rng=True)
    f = theon.function([], x, updates={rng: nxt})
    f()
    g = pickle.loads(pickle.dumps(f))
    np.testing.assert_array_equal(g(), f())


def test_lazy_attribute_and_props() -> None:
    assert tt.random is tr
    op = tr.multinomial
    assert (op.name, op.signature, op.ndim_supp, op.ndims_params, op.inplace) == (
        "multinomial", "(),(p)->(p)", 1, (0, 1), False)
    assert op == op.clone() and op != op.clone(dtype="int32")
    assert hash(op) == hash(op.clone()) and op.clone(inplace=True).destroy_map == {0: [0]}


def test_runtime_shape_error_names_the_draw() -> None:
    loc = tt.dvector("loc")
    x = tr.normal(loc, 1.0, size=(3,), rng=tr.shared_rng(0), name="noise")
    f = theon.function([loc], x)
    np.testing.assert_array_equal(f(np.zeros(3)), np.random.default_rng(0).normal(size=3))
    with pytest.raises(ValueError, match="normal: cannot draw 'noise'.*size=\\(3,\\)"):
        f(np.zeros(4))


def test_generator_variable_methods_thread_the_generator() -> None:
    """PyTensor 3's form: a generator variable's methods return ``(next_rng, draw)``."""
    r = tr.rng("r")
    r1, x = r.normal(1.0, 2.0, size=(3,))
    r2, y = r1.integers(0, 10, size=(2,))
    r3, z = r2.gamma(2.0, scale=3.0)
    f = theon.function([In(r, mutable=True)], [r3, x, y, z])
    g = np.random.default_rng(4)
    g_next, a, b, c = f(g)
    ref = np.random.default_rng(4)
    np.testing.assert_array_equal(a, ref.normal(1.0, 2.0, size=3))
    np.testing.assert_array_equal(b, ref.integers(0, 10, size=2))
    assert c == ref.gamma(2.0, 3.0)
    assert g_next.bit_generator.state == ref.bit_generator.state
    with pytest.raises(TypeError, match="argument 'rng' is implied"):
        r.normal(rng=r)


def test_shared_rng_forms_and_reseeding() -> None:
    g = np.random.default_rng(8)
    a, b = tr.shared_rng(g), tr.shared_rng(g, borrow=True)
    assert a.get_value(borrow=True) is not g and b.get_value(borrow=True) is g
    c, d = tr.shared_rng(seed=8, name="d"), tr.shared_rng(8)
    assert d.get_value().random() == c.get_value().random() == np.random.default_rng(8).random()
    nxt, x = c.normal(size=(2,))
    f = theon.function([], x, updates={c: nxt})
    first = f()
    assert not np.array_equal(f(), first)
    c.set_value(np.random.default_rng(8))  # reseed with a generator
    np.testing.assert_array_equal(f(), first)
    c.set_value(seed=8)  # or with a seed
    np.testing.assert_array_equal(f(), first)
    with pytest.raises(ValueError, match="give a generator or seed="):
        c.set_value()
    with pytest.raises(ValueError, match="not both"):
        tr.shared_rng(g, seed=1)
    with pytest.raises(ValueError, match="RandomState is not supported"):
        theon.shared(np.random.RandomState(0))


def test_normalize_size_param_forms() -> None:
    from theon.tensor.random.utils import normalize_size_param
    from theon.tensor.type_other import NoneConst

    assert normalize_size_param(None) is NoneConst
    assert normalize_size_param(NoneConst) is NoneConst
    n = tt.lscalar("n")
    s = normalize_size_param((n, np.int32(2)))
    assert s.type.shape == (2,) and s.type.dtype == "int64"
    np.testing.assert_array_equal(s.eval({n: 5}), [5, 2])
    m = tt.dmatrix("m")
    assert normalize_size_param(m.shape).type.shape == (2,)
    x = tr.normal(size=m.shape, rng=tr.shared_rng(0))
    assert theon.function([m], x)(np.zeros((2, 3))).shape == (2, 3)
    with pytest.raises(TypeError, match="known length"):
        normalize_size_param(tt.lvector("v"))


def test_vectorize_graph_batches_a_draw() -> None:
    """A batching rule, not a looping Blockwise: the batched parameter gives the draw a
    leading axis (a given size grows by it), drawn as NumPy would."""
    import warnings

    from theon.graph.replace import vectorize_graph

    mu, mus = tt.dscalar("mu"), tt.dvector("mus")
    x = tr.normal(mu, 1.0, size=(3,), rng=tr.shared_rng(0))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        xb = vectorize_graph(x, {mu: mus})
    assert isinstance(xb.owner.op, RandomVariable) and xb.type.shape == (None, 3)
    v = np.array([0.0, 100.0])
    np.testing.assert_array_equal(theon.function([mus], xb)(v), np.random.default_rng(0).normal(
        v[:, None], 1.0, size=(2, 3)))


def test_a_size_built_from_a_stack_of_scalars_keeps_its_known_lengths() -> None:
    """PyMC resizes a draw with ``pt.as_tensor([4, *old_shape])``: the lengths known when
    building stay in the draw's static shape."""
    m = tt.tensor("float64", shape=(None, 7), name="m")
    size = tt.as_tensor_variable([4, m.shape[0], m.shape[1], tt.lscalar("n")])
    x = tr.normal(size=size, rng=tr.shared_rng(0))
    assert x.type.shape == (4, None, 7, None)
    y = tr.normal(size=tt.cast(tt.as_tensor_variable([2, 5]), "int32"), rng=tr.shared_rng(0))
    assert y.type.shape == (2, 5)
    np.testing.assert_array_equal(y.eval(), np.random.default_rng(0).normal(size=(2, 5)))
