"""Blockwise, vectorize and vectorize_graph: values against NumPy loops over the batch,
gradients with verify_grad, shapes without computing, and the reference VM."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

import theon
import theon.tensor as tt
from theon.gradient import Rop, grad, verify_grad
from theon.graph.basic import Apply
from theon.graph.op import Op
from theon.graph.replace import vectorize_graph
from theon.graph.traversal import toposort
from theon.graph.vectorize import VectorizeFallbackWarning
from theon.tensor.blockwise import Blockwise, parse_signature, vectorize

SEED = 20261125


class MatVec(Op):
    """``A @ b`` for one matrix and one vector (a core Op written for these tests)."""

    __props__ = ()
    gufunc_signature = "(m,n),(n)->(m)"

    def make_node(self, a, b):
        a, b = tt.as_tensor_variable(a), tt.as_tensor_variable(b)
        assert a.type.ndim == 2 and b.type.ndim == 1
        return Apply(self, [a, b], [tt.TensorType("float64", shape=(a.type.shape[0],))()])

    def perform(self, node, inputs, out):
        a, b = inputs
        assert a.ndim == 2 and b.ndim == 1  # the core Op only ever sees one block
        out[0][0] = np.dot(a, b)

    def infer_shape(self, node, shapes):
        return [(shapes[0][0],)]

    def grad(self, inputs, g):
        a, b = inputs
        (gz,) = g
        return [tt.outer(gz, b), tt.dot(gz, a)]

    def R_op(self, inputs, eval_points):
        a, b = inputs
        ea, eb = eval_points
        terms = []
        if ea is not None:
            terms.append(tt.dot(ea, b))
        if eb is not None:
            terms.append(tt.dot(a, eb))
        return [sum(terms[1:], terms[0])]


class Inv(Op):
    """``inv(A)`` with ``numpy.linalg.inv`` (raises LinAlgError on a singular block)."""

    __props__ = ()

    def make_node(self, a):
        a = tt.as_tensor_variable(a)
        return Apply(self, [a], [a.type()])

    def perform(self, node, inputs, out):
        out[0][0] = np.linalg.inv(inputs[0])

    def L_op(self, inputs, outputs, g):
        (ainv,) = outputs
        return [-tt.dot(tt.dot(ainv.T, g[0]), ainv.T)]


class MinMax(Op):
    """Two outputs: the min and the max of a vector (no infer_shape: the signature says)."""

    __props__ = ()

    def make_node(self, x):
        x = tt.as_tensor_variable(x)
        return Apply(self, [x], [tt.dscalar(), tt.dscalar()])

    def perform(self, node, inputs, out):
        out[0][0] = np.asarray(inputs[0].min())
        out[1][0] = np.asarray(inputs[0].max())


def _t(shape, name, static=False):
    return tt.TensorType("float64", shape=shape if static else (None,) * len(shape))(name)


def _loop(fn, *arrays_and_ndims):
    """NumPy reference: ``fn`` on each block, batch dims broadcast."""
    arrays = [a for a, _ in arrays_and_ndims]
    cores = [k for _, k in arrays_and_ndims]
    batch = np.broadcast_shapes(*(a.shape[: a.ndim - k] for a, k in zip(arrays, cores)))
    full = [np.broadcast_to(a, batch + a.shape[a.ndim - k:]) for a, k in zip(arrays, cores)]
    rows = [fn(*(a[idx] for a in full)) for idx in np.ndindex(*batch)]
    return np.array(rows).reshape(batch + np.shape(rows[0]))


BATCH_CASES = [
    # (A shape, b shape): different batch ranks, size-1 batch dims, no batch on one side
    ((3, 2, 4), (4,)),
    ((2, 3, 2, 4), (3, 4)),
    ((1, 2, 4), (5, 4)),
    ((3, 1, 2, 4), (1, 2, 4)),
    ((2, 4), (3, 4)),
]


@pytest.mark.parametrize("mode", ["FAST_RUN", "REFERENCE"])
@pytest.mark.parametrize(("ashape", "bshape"), BATCH_CASES)
def test_values_match_a_numpy_loop(ashape, bshape, mode):
    rng = np.random.default_rng(SEED)
    A, b = _t(ashape, "A"), _t(bshape, "b")
    y = Blockwise(MatVec())(A, b)
    av, bv = rng.normal(size=ashape), rng.normal(size=bshape)
    expected = _loop(np.dot, (av, 2), (bv, 1))
    assert y.type.ndim == expected.ndim
    got = theon.function([A, b], y, mode=mode)(av, bv)
    np.testing.assert_allclose(got, expected, rtol=1e-13)


@pytest.mark.parametrize(("ashape", "bshape"), BATCH_CASES)
def test_static_batch_shapes_broadcast(ashape, bshape):
    y = Blockwise(MatVec())(_t(ashape, "A", True), _t(bshape, "b", True))
    nb = len(y.type.shape) - 1
    batch = np.broadcast_shapes(ashape[:-2], bshape[:-1])
    assert y.type.shape == (*batch, ashape[-2]) and nb == len(batch)


def test_incompatible_static_batch_shapes_are_refused():
    with pytest.raises(ValueError, match="do not broadcast"):
        Blockwise(MatVec())(_t((3, 2, 4), "A", True), _t((2, 4), "b", True))


def test_mismatched_run_time_batch_shapes_raise():
    A, b = _t((3, 2, 4), "A"), _t((2, 4), "b")
    f = theon.function([A, b], Blockwise(MatVec())(A, b), mode="REFERENCE")
    with pytest.raises(ValueError) as info:
        f(np.ones((3, 2, 4)), np.ones((2, 4)))
    assert "do not broadcast" in "".join(getattr(info.value, "__notes__", []))


def test_no_batch_dims_gives_the_core_op():
    A, b = tt.dmatrix("A"), tt.dvector("b")
    y = Blockwise(MatVec())(A, b)
    assert isinstance(y.owner.op, MatVec)


def test_too_few_dims_is_a_clear_error():
    with pytest.raises(TypeError, match="fewer than its 2 core dimensions"):
        Blockwise(MatVec())(tt.dvector("A"), tt.dvector("b"))


def test_signature_parsing():
    assert parse_signature("(m,m),(m)->(m)") == ((("m", "m"), ("m",)), (("m",),))
    assert parse_signature("()->(),()") == (((),), ((), ()))
    with pytest.raises(ValueError, match="not a gufunc signature"):
        parse_signature("(m,m)(m)->(m)")
    with pytest.raises(ValueError, match="gufunc_signature"):
        Blockwise(Inv())


def test_props_and_pickle():
    op = Blockwise(MatVec())
    assert op == Blockwise(MatVec(), "(m,n),(n)->(m)") and hash(op) == hash(Blockwise(MatVec()))
    assert op != Blockwise(MatVec(), "(a,b),(b)->(a)")
    A, b = tt.dtensor3("A"), tt.dvector("b")
    f = theon.function([A, b], op(A, b))
    g = pickle.loads(pickle.dumps(f))
    av, bv = np.ones((2, 3, 4)), np.arange(4.0)
    np.testing.assert_allclose(g(av, bv), f(av, bv))


def test_dprint_shows_the_loop():
    A, b = tt.dtensor3("A"), tt.dvector("b")
    text = theon.printing.debugprint(Blockwise(MatVec())(A, b), file="str")
    assert "Blockwise{MatVec, (m,n),(n)->(m)}" in text


def test_empty_batch():
    A, b = tt.dtensor3("A"), tt.dvector("b")
    f = theon.function([A, b], Blockwise(MatVec())(A, b), mode="REFERENCE")
    out = f(np.ones((0, 3, 4)), np.ones(4))
    assert out.shape == (0, 3) and out.dtype == np.float64
    x = tt.dmatrix("x")
    lo, hi = Blockwise(MinMax(), "(n)->(),()")(x)
    lo_v, hi_v = theon.function([x], [lo, hi], mode="REFERENCE")(np.ones((0, 5)))
    assert lo_v.shape == hi_v.shape == (0,)


def test_two_outputs():
    rng = np.random.default_rng(SEED)
    x = tt.dtensor3("x")
    lo, hi = Blockwise(MinMax(), "(n)->(),()")(x)
    xv = rng.normal(size=(2, 3, 5))
    got = theon.function([x], [lo, hi])(xv)
    np.testing.assert_array_equal(got[0], xv.min(-1))
    np.testing.assert_array_equal(got[1], xv.max(-1))


def test_infer_shape_does_not_compute_the_op():
    A, b = _t((2, 3, 4, 5), "A"), _t((3, 5), "b")
    y = Blockwise(MatVec())(A, b)
    f = theon.function([A, b], y.shape)
    assert not any(isinstance(n.op, Blockwise) for n in f.maker.fgraph.toposort())
    np.testing.assert_array_equal(f(np.ones((2, 3, 4, 5)), np.ones((3, 5))), [2, 3, 4])
    # size-1 batch dims of one input take the other's length
    A1 = _t((1, 4, 5), "A1", static=True)
    g = theon.function([A1, b], Blockwise(MatVec())(A1, b).shape)
    np.testing.assert_array_equal(g(np.ones((1, 4, 5)), np.ones((3, 5))), [3, 4])
    # no core infer_shape: the signature's names give the lengths
    x = tt.dtensor3("x")
    lo, _ = Blockwise(MinMax(), "(n)->(),()")(x)
    h = theon.function([x], lo.shape)
    assert not any(isinstance(n.op, Blockwise) for n in h.maker.fgraph.toposort())
    np.testing.assert_array_equal(h(np.ones((2, 3, 5))), [2, 3])


@pytest.mark.parametrize(("ashape", "bshape"), BATCH_CASES)
def test_grad_matvec(ashape, bshape):
    rng = np.random.default_rng(SEED)
    verify_grad(lambda a, b: Blockwise(MatVec())(a, b),
                [rng.normal(size=ashape), rng.normal(size=bshape)], rng=rng)


def test_grad_values_sum_over_broadcast_batch():
    """d sum(A_k @ b) / db = sum_k A_k^T 1: the batch reduction is in the gradient."""
    rng = np.random.default_rng(SEED)
    A, b = tt.dtensor3("A"), tt.dvector("b")
    gb = grad(Blockwise(MatVec())(A, b).sum(), b)
    av = rng.normal(size=(4, 3, 2))
    np.testing.assert_allclose(theon.function([A, b], gb)(av, np.ones(2)), av.sum((0, 1)))


def _well_conditioned(rng, shape):
    n = shape[-1]
    return rng.normal(size=shape) * 0.3 + np.eye(n) * 2


def test_grad_inv_batched_and_extreme():
    rng = np.random.default_rng(SEED)
    verify_grad(lambda a: Blockwise(Inv(), "(m,m)->(m,m)")(a),
                [_well_conditioned(rng, (2, 3, 3, 3))], rng=rng)
    # large and small entries (scaled well-conditioned matrices)
    for scale in (1e-3, 1e3):
        a = _well_conditioned(rng, (2, 3, 3)) * scale
        verify_grad(lambda x, s=scale: Blockwise(Inv(), "(m,m)->(m,m)")(x) * s, [a], rng=rng)


def test_inv_values_and_error_names_the_batch_index():
    rng = np.random.default_rng(SEED)
    X = tt.dtensor3("X")
    f = theon.function([X], Blockwise(Inv(), "(m,m)->(m,m)")(X))
    xv = _well_conditioned(rng, (3, 4, 4))
    np.testing.assert_allclose(f(xv), np.linalg.inv(xv), rtol=1e-12)
    xv[1] = 0.0
    with pytest.raises(np.linalg.LinAlgError) as info:
        f(xv)
    assert "at batch index (1,)" in "".join(getattr(info.value, "__notes__", []))


def test_rop_matches_numpy():
    rng = np.random.default_rng(SEED)
    A, b, V = tt.dtensor3("A"), tt.dvector("b"), tt.dtensor3("V")
    y = Blockwise(MatVec())(A, b)
    jv = Rop(y, A, V)
    av, bv, vv = rng.normal(size=(2, 3, 4)), rng.normal(size=4), rng.normal(size=(2, 3, 4))
    got = theon.function([A, b, V], jv, on_unused_input="ignore")(av, bv, vv)
    np.testing.assert_allclose(got, vv @ bv, rtol=1e-13)
    W = tt.dvector("W")
    jw = Rop(y, b, W)  # the tangent of the unbatched input, broadcast over the batch
    got = theon.function([A, b, W], jw, on_unused_input="ignore")(av, bv, bv)
    np.testing.assert_allclose(got, av @ bv, rtol=1e-13)
    # the Op's own R_op, both tangents at once
    [both] = y.owner.op.R_op([A, b], [V, W])
    wv = rng.normal(size=4)
    got = theon.function([A, b, V, W], both)(av, bv, vv, wv)
    np.testing.assert_allclose(got, vv @ bv + av @ wv, rtol=1e-13)


def test_reference_vm_matches_default_linker():
    rng = np.random.default_rng(SEED)
    A, b = tt.dtensor4("A"), tt.dmatrix("b")
    y = Blockwise(MatVec())(A, b)
    cost = (tt.tanh(y) ** 2).sum()
    outs = [y, *grad(cost, [A, b])]
    av, bv = rng.normal(size=(2, 3, 4, 5)), rng.normal(size=(3, 5))
    fast = theon.function([A, b], outs)(av, bv)
    ref = theon.function([A, b], outs, mode="REFERENCE")(av, bv)
    for x, r in zip(fast, ref):
        np.testing.assert_allclose(x, r, rtol=1e-12)


# --------------------------------------------------------------------------- vectorize
def test_vectorize_matches_a_numpy_loop():
    rng = np.random.default_rng(SEED)

    def affine(m, v, c):
        return tt.tanh(tt.dot(m, v) + c), (m * m).sum()

    batched = vectorize(affine, "(m,n),(n),()->(m),()")
    M, v, c = tt.dtensor3("M"), tt.dmatrix("v"), tt.dscalar("c")
    y, s = batched(M, v, c)
    mv, vv = rng.normal(size=(4, 2, 3)), rng.normal(size=(1, 3))
    got_y, got_s = theon.function([M, v, c], [y, s])(mv, vv, 0.5)
    np.testing.assert_allclose(got_y, _loop(lambda m, w: np.tanh(m @ w + 0.5),
                                            (mv, 2), (vv, 1)), rtol=1e-13)
    np.testing.assert_allclose(got_s, (mv * mv).sum((1, 2)), rtol=1e-13)


def test_vectorize_checks_the_signature():
    with pytest.raises(TypeError, match="the signature says 0"):
        vectorize(lambda v: v * 2, "(n)->()")(tt.dmatrix("X"))
    with pytest.raises(TypeError, match="takes 1 inputs"):
        vectorize(lambda v: v, "(n)->(n)")(tt.dmatrix("X"), tt.dmatrix("Y"))


def test_vectorize_graph_several_batch_dims_broadcast():
    """Replacements with 2 and 1 batch axes broadcast, aligned on the right."""
    rng = np.random.default_rng(SEED)
    v, c = tt.dvector("v"), tt.dvector("c")
    out = tt.dot(tt.exp(v), c) + v[0] * c.sum()
    V, C = tt.dtensor3("V"), tt.dmatrix("C")
    bo = vectorize_graph(out, {v: V, c: C})
    assert bo.type.ndim == 2
    vv, cv = rng.normal(size=(2, 3, 4)), rng.normal(size=(3, 4))
    got = theon.function([V, C], bo)(vv, cv)
    expected = _loop(lambda a, b: np.dot(np.exp(a), b) + a[0] * b.sum(), (vv, 1), (cv, 1))
    np.testing.assert_allclose(got, expected, rtol=1e-13)
    assert not any(isinstance(n.op, Blockwise) for n in toposort([bo]))


class NoRuleCube(Op):
    __props__ = ()

    def make_node(self, x):
        x = tt.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, out):
        assert inputs[0].ndim == node.inputs[0].type.ndim
        out[0][0] = inputs[0] ** 3

    def grad(self, inputs, g):
        return [3.0 * inputs[0] ** 2 * g[0]]


def test_vectorize_graph_falls_back_to_a_visible_blockwise():
    rng = np.random.default_rng(SEED)
    v = tt.dvector("v")
    out = NoRuleCube()(v * 2.0).sum()
    V = tt.dtensor3("V")
    with pytest.warns(VectorizeFallbackWarning, match="NoRuleCube"):
        bo = vectorize_graph(out, {v: V})
    assert "Blockwise{NoRuleCube" in theon.printing.debugprint(bo, file="str")
    vv = rng.normal(size=(2, 3, 4))
    np.testing.assert_allclose(theon.function([V], bo)(vv), ((2 * vv) ** 3).sum(-1),
                               rtol=1e-13)
    # the batched graph differentiates (the Blockwise's gradient, itself batched)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", VectorizeFallbackWarning)
        verify_grad(lambda x: vectorize_graph(out, {v: x}), [vv], rng=rng)


def test_vectorize_graph_of_a_blockwise_adds_batch_dims():
    rng = np.random.default_rng(SEED)
    A, b = tt.dtensor3("A"), tt.dvector("b")
    y = Blockwise(MatVec())(A, b)
    B = tt.dmatrix("B")
    yb = vectorize_graph(y, {b: B})  # b gets a batch axis of its own, in front of A's
    av, bv = rng.normal(size=(3, 2, 4)), rng.normal(size=(5, 4))
    got = theon.function([A, B], yb)(av, bv)
    expected = np.stack([av @ bv[k] for k in range(5)])
    np.testing.assert_allclose(got, expected, rtol=1e-13)


class StackInv(Inv):
    """``Inv`` that also runs whole stacks in one ``numpy.linalg.inv`` call."""

    calls: list[tuple[int, ...]] = []

    def perform_batched(self, node, inputs, batch):
        StackInv.calls.append(batch)
        if batch == (5,):  # decline: the block-by-block loop runs instead
            return None
        return [np.linalg.inv(inputs[0])]


@pytest.mark.parametrize("shape", [(3, 2, 4, 4), (5, 4, 4)])
def test_a_core_op_may_run_the_whole_batch_at_once(shape):
    rng = np.random.default_rng(4)
    av = rng.normal(size=shape) + 4 * np.eye(4)
    a = tt.TensorType("float64", shape=(None,) * len(shape))("a")
    StackInv.calls.clear()
    f = theon.function([a], Blockwise(StackInv(), "(m,m)->(m,m)")(a))
    np.testing.assert_allclose(f(av), np.linalg.inv(av), rtol=1e-12)
    assert StackInv.calls == [shape[:-2]]
