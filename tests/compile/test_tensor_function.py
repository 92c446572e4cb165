"""The function API on tensors: shared arrays, SGD updates, errors naming variables."""

import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import theon

tt = pytest.importorskip("theon.tensor")

MODES = ["REFERENCE", "FAST_RUN"]


def test_shared_infers_tensor_types():
    w = theon.shared(np.zeros((2, 3)), name="w")
    assert w.type == tt.TensorType("float64", shape=(None, None))
    c = theon.shared(0, name="c")
    assert c.type == tt.TensorType("int64", shape=())
    assert theon.shared(np.float32(1.5)).type.dtype == "float32"
    assert theon.shared({"not": "an array"}).type == theon.Generic()


@pytest.mark.parametrize("mode", MODES)
def test_tensor_counter(mode):
    c = theon.shared(0, name="c")
    f = theon.function([], c, updates=[(c, c + 1)], mode=mode)
    assert [int(f()), int(f()), int(f())] == [0, 1, 2]


def test_set_value_wrong_ndim_or_dtype_names_variable():
    s = theon.shared(np.zeros(3), name="weights")
    with pytest.raises(TypeError, match="'weights'.*ndim"):
        s.set_value(np.zeros((2, 2)))
    with pytest.raises(TypeError, match="'weights'"):
        s.set_value(np.zeros(3, dtype="complex128"))
    s.set_value(np.arange(5.0))  # a free length may change
    assert s.get_value().shape == (5,)
    i = theon.shared(np.zeros(2, dtype="int32"), name="idx")
    with pytest.raises(TypeError, match="'idx'"):
        i.set_value(np.array([0.5, 1.5]))


def test_set_value_copies_unless_borrowed():
    s = theon.shared(np.zeros(2), name="s")
    v = np.ones(2)
    s.set_value(v)
    v[0] = 7
    assert s.get_value()[0] == 1
    s.set_value(v, borrow=True)
    assert s.get_value(borrow=True) is v


def test_wrong_argument_ndim_names_input():
    x = tt.dvector("xs")
    f = theon.function([x], x * 2, name="double")
    with pytest.raises(TypeError, match=r"argument 0 \(xs\) of function 'double'.*ndim"):
        f(np.zeros((2, 2)))


def test_bad_update_type_names_shared_variable():
    s = theon.shared(np.zeros(3), name="params")
    x = tt.fvector("x")
    with pytest.raises(TypeError, match="'params'.*float32"):
        theon.function([x], x, updates=[(s, x)])
    m = tt.dmatrix("m")
    with pytest.raises(TypeError, match="'params'.*'m'"):
        theon.function([m], m, updates=[(s, m)])


def test_bad_givens_type_names_variables():
    x = tt.dvector("x")
    y = tt.fvector("y32")
    with pytest.raises(TypeError, match="'x'.*'y32'"):
        theon.function([y], x * 2, givens={x: y})


def test_givens_with_shared_data_minibatch():
    data = theon.shared(np.arange(10.0), name="data")
    i = tt.lscalar("i")
    x = tt.dvector("x")
    f = theon.function([i], (x * 2).sum(), givens={x: data[i * 2:(i + 1) * 2]})
    assert float(f(0)) == 2.0 and float(f(3)) == 26.0


@pytest.mark.parametrize("mode", MODES)
def test_tensor_results_safe_to_keep_and_mutate(mode):
    x = tt.dvector("x")
    s = theon.shared(np.zeros(3), name="s")
    f = theon.function([x], [x, s, s + x, x.T], updates=[(s, s + x)], mode=mode)
    arg = np.ones(3)
    first = f(arg)
    kept = [a.copy() for a in first]
    for a in first:
        assert not np.shares_memory(a, arg)
        assert not np.shares_memory(a, s.get_value(borrow=True))
        a[...] = -1  # the caller owns them
    np.testing.assert_array_equal(arg, np.ones(3))
    np.testing.assert_array_equal(s.get_value(), np.ones(3))
    second = f(arg)
    np.testing.assert_array_equal(second[1], np.ones(3))
    np.testing.assert_array_equal(kept[2], np.ones(3))


@pytest.mark.parametrize("mode", MODES)
def test_sgd_on_shared_parameters_decreases_loss(mode):
    rng = np.random.default_rng(0)
    x = tt.dmatrix("x")
    y = tt.dvector("y")
    w = theon.shared(np.zeros(3), name="w")
    b = theon.shared(0.0, name="b")
    pred = (x * w).sum(axis=1) + b
    loss = ((pred - y) ** 2).mean()
    gw, gb = theon.grad(loss, [w, b])
    f = theon.function([x, y], loss, updates=[(w, w - 0.1 * gw), (b, b - 0.1 * gb)], mode=mode)
    xv = rng.normal(size=(64, 3))
    yv = xv @ np.array([1.0, -2.0, 0.5]) + 0.3
    losses = [float(f(xv, yv)) for _ in range(30)]
    assert all(b_ < a for a, b_ in zip(losses, losses[1:]))
    assert losses[-1] < 0.1 * losses[0]
    np.testing.assert_allclose(w.get_value(), [1.0, -2.0, 0.5], atol=0.3)


def _mlp_available():
    try:
        X = tt.dmatrix("X")
        W = theon.shared(np.zeros((2, 2)))
        p = tt.special.softmax(tt.dot(X, W), axis=-1)
        theon.grad(tt.log(p).sum(), [W])
    except (AttributeError, NotImplementedError, ImportError):
        return False
    return True


def test_mlp_train_step_loss_decreases():
    """``w_mlp_train_step`` of the shared workloads (shared parameters, SGD updates)."""
    if not _mlp_available():
        pytest.skip("matrix products / softmax not available in theon.tensor yet")
    T = tt
    rng = np.random.default_rng(0)
    X = T.dmatrix("X")
    Y = T.dmatrix("Y")
    W1 = theon.shared(rng.normal(size=(784, 256)) * 0.05, name="W1")
    b1 = theon.shared(np.zeros(256), name="b1")
    W2 = theon.shared(rng.normal(size=(256, 10)) * 0.05, name="W2")
    b2 = theon.shared(np.zeros(10), name="b2")
    h = T.tanh(T.dot(X, W1) + b1)
    logits = T.dot(h, W2) + b2
    p = T.special.softmax(logits, axis=-1)
    loss = -T.mean(T.sum(Y * T.log(p), axis=1))
    params = [W1, b1, W2, b2]
    grads = theon.grad(loss, params)
    f = theon.function([X, Y], loss, updates=[(q, q - 0.1 * g) for q, g in zip(params, grads)])
    Xv = rng.normal(size=(128, 784))
    Yv = np.eye(10)[rng.integers(0, 10, 128)]
    init = [q.get_value() for q in params]
    l0 = float(f(Xv, Yv))
    losses = [float(f(Xv, Yv)) for _ in range(5)]
    assert np.isfinite(losses[-1]) and losses[-1] < l0
    assert all(not np.allclose(q.get_value(), v) for q, v in zip(params, init))
    # the first loss against an independent NumPy reference
    h0 = np.tanh(Xv @ init[0] + init[1])
    z = h0 @ init[2] + init[3]
    z = z - z.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    np.testing.assert_allclose(l0, -(Yv * logp).sum(axis=1).mean(), rtol=1e-10)


def test_tensor_function_pickles_in_subprocess(tmp_path):
    x = tt.dvector("x")
    w = theon.shared(np.array([1.0, 2.0]), name="w")
    f = theon.function([x], (w * x).sum(), updates=[(w, w + x)])
    path = tmp_path / "f.pkl"
    path.write_bytes(pickle.dumps(f))
    ref = f.copy()
    expected = []
    for v in ([1.0, 1.0], [0.5, -1.0]):
        expected.append([float(ref(np.array(v))), ref[w].tolist()])
    code = textwrap.dedent(f"""
        import json, pickle
        import numpy as np
        f = pickle.load(open({str(path)!r}, "rb"))
        w = [i.variable for i in f.maker.inputs if i.shared][0]
        res = []
        for v in ([1.0, 1.0], [0.5, -1.0]):
            res.append([float(f(np.array(v))), w.get_value().tolist()])
        print(json.dumps(res))
    """)
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    import json

    assert json.loads(out.stdout) == expected


def test_profile_summary_on_tensor_graph(capsys):
    x = tt.dvector("x")
    f = theon.function([x], tt.exp(x).sum() + (x * x).sum(), profile=True, name="p")
    for _ in range(2):
        f(np.ones(100))
    f.profile.summary()
    text = capsys.readouterr().out
    assert "Function profile: p" in text and "calls: 2" in text
    assert f.profile.op_stats() and all(r[2] >= 2 for r in f.profile.op_stats())


# issue 29 item 7: a computed variable as an input -------------------------------------
@pytest.mark.parametrize("mode", MODES)
def test_issue29_item7_intermediate_variable_as_input_cuts_its_ancestors(mode):
    """``W = W0 + 2; function([M, W], (M + W).sum())``: ``W`` stands for its value and
    ``W0`` is not needed (Theano's behaviour; it raised TypeError).  Values against
    NumPy, with the argument ``W`` taken as given (not recomputed from anything)."""
    M, W0 = tt.dmatrix("M"), tt.dmatrix("W0")
    W = W0 + 2
    W.name = "W"
    f = theon.function([M, W], (M + W).sum(), mode=mode)
    rng = np.random.default_rng(7)
    m, w = rng.normal(size=(2, 3)), rng.normal(size=(2, 3))
    np.testing.assert_allclose(f(m, w), (m + w).sum())
    np.testing.assert_allclose(f(M=m, W=w), (m + w).sum())
    assert not any(v.name == "W0" for v in f.maker.fgraph.variables)
    # a shared variable above the cut is not an implicit input, and not updated
    s = theon.shared(np.full((2, 3), 10.0), name="s")
    s.default_update = s + 1
    W2 = W0 * s
    g = theon.function([M, W2], M * W2, mode=mode)
    assert len(g.maker.fgraph.inputs) == 2
    np.testing.assert_allclose(g(m, w), m * w)
    np.testing.assert_allclose(s.get_value(), 10.0)
    # what the outputs need above the cut through another path is still needed
    h = theon.function([M, W, W0], M + W + W0, mode=mode)
    np.testing.assert_allclose(h(m, w, m), m + w + m)
    with pytest.raises(theon.graph.fg.MissingInputError, match="W0"):
        theon.function([M], (M + W).sum(), mode=mode)


@pytest.mark.parametrize("mode", MODES)
def test_issue29_item7_computed_input_with_givens_grad_and_runtime_broadcast(mode):
    """Givens stop at the computed input; a gradient with respect to it; a length that
    broadcasts at run time (the function is rebuilt on the computed input)."""
    M, W0, k = tt.dmatrix("M"), tt.dmatrix("W0"), tt.dscalar("k")
    W = W0 * k
    W.name = "W"
    rng = np.random.default_rng(8)
    m, w = rng.normal(size=(2, 3)), rng.normal(size=(2, 3))
    f = theon.function([M, W], (M * W).sum(), givens={k: M.sum()}, mode=mode)
    np.testing.assert_allclose(f(m, w), (m * w).sum())
    g = theon.function([M, W], theon.grad((M * W).sum(), W), mode=mode)
    np.testing.assert_allclose(g(m, w), m)
    v0 = tt.dvector("v0")
    v = v0 * 2
    h = theon.function([M, v], M + v, mode=mode)
    np.testing.assert_allclose(h(m, np.array([7.0])), m + 7.0)
    np.testing.assert_allclose(h(m, np.arange(3.0)), m + np.arange(3.0))


def test_an_output_that_is_an_input_or_a_constant_is_a_deep_copy_node() -> None:
    """PyTensor's compiled graph copies such an output with a ``DeepCopyOp`` node (PyMC
    counts the nodes); the result is a new array, never the caller's."""
    import numpy as np

    import theon
    import theon.tensor as tt
    from theon.compile.ops import DeepCopyOp

    x, y = tt.dvector("x"), tt.dvector("y")
    f = theon.function([x, y], [x, tt.constant(2.0), x + y])
    ops = sorted(type(n.op).__name__ for n in f.maker.fgraph.apply_nodes)
    assert ops.count("DeepCopyOp") == 2 and len(ops) == 3
    a = np.array([1.0, 2.0])
    ra, rc, rs = f(a, a)
    assert ra is not a and not np.shares_memory(ra, a)
    np.testing.assert_array_equal(ra, a)
    assert float(rc) == 2.0
    np.testing.assert_array_equal(rs, 2 * a)
    assert all(isinstance(n.op, DeepCopyOp) or n.outputs[0] is f.maker.fgraph.outputs[2]
               for n in f.maker.fgraph.apply_nodes)
