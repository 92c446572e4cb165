"""DebugMode: one deliberately broken toy Op (or rewrite) per contract, each caught with
a message naming the Op, the rewrite (when one is at fault) and this file's line; and
correct real programs (an MLP trained with updates, a scan) pass with the default
mode's values."""

import sys

import numpy as np
import pytest

import theon
import theon.tensor as tt
from theon.compile.debugmode import (
    BadDestroyMap,
    BadInferShape,
    BadOptimization,
    BadThunkOutput,
    BadViewMap,
    DebugMode,
    DebugModeError,
    InvalidValueError,
)
from theon.graph.basic import Apply
from theon.graph.op import Op
from theon.link.pyfunc.dispatch import py_emit
from theon.rewriting import graph_rewriter, in2out, node_rewriter
from theon.rewriting.basic import RewriteError
from theon.tensor.type import TensorType


def here():
    """``file:line`` of the caller (where a test builds the node)."""
    f = sys._getframe(1)
    return f"{f.f_code.co_filename}:{f.f_lineno}"


class _Unary(Op):
    """A float vector in, a float vector out (the output type of the input's)."""

    __props__ = ()

    def make_node(self, x):
        x = tt.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def infer_shape(self, node, shapes):
        return [shapes[0]]


class WrongPerform(_Unary):
    """perform adds 1.5, the py linker's code (the emitter below) adds 1."""

    def perform(self, node, inputs, out):
        out[0][0] = inputs[0] + 1.5


@py_emit.register(WrongPerform)
def _emit_wrong_perform(op, node, ctx):
    return [f"{ctx.out(0, fresh=True)} = {ctx.arg(0)} + 1.0"]


class UndeclaredInplace(_Unary):
    """Overwrites its input without a destroy_map."""

    def perform(self, node, inputs, out):
        (x,) = inputs
        x *= 2.0
        out[0][0] = x + 1.0


class UndeclaredView(_Unary):
    """Returns a view of its input without a view_map."""

    def perform(self, node, inputs, out):
        out[0][0] = inputs[0][::-1]


class WrongInferShape(_Unary):
    """Repeats each entry twice, but says the shape does not change."""

    def perform(self, node, inputs, out):
        out[0][0] = np.repeat(inputs[0], 2)


class WrongDtype(_Unary):
    """Declares the input's float64 type but returns float32."""

    def perform(self, node, inputs, out):
        out[0][0] = inputs[0].astype("float32")


class Correct(_Unary):
    """A correct Op: the reversed vector, copied."""

    def perform(self, node, inputs, out):
        out[0][0] = inputs[0][::-1].copy()


def _raises(kind, fn, *args):
    with pytest.raises(kind) as info:
        fn(*args)
    return str(info.value)


X = np.array([1.0, 2.0, 3.0])


def test_correct_toy_op_passes_and_matches_numpy():
    x = tt.dvector("x")
    f = theon.function([x], Correct()(x) * 2, mode="DebugMode")
    np.testing.assert_array_equal(f(X), X[::-1] * 2)


def test_wrong_perform_is_caught():
    x = tt.dvector("x")
    y, line = WrongPerform()(x), here()
    f = theon.function([x], y * 2, mode="DebugMode")
    msg = _raises(BadThunkOutput, f, X)
    assert "WrongPerform" in msg and "perform and the py linker's code disagree" in msg
    assert line in msg
    # the default mode silently runs the emitter's code
    np.testing.assert_allclose(theon.function([x], y)(X), X + 1.0)


def test_undeclared_inplace_is_caught():
    x = tt.dvector("x")
    y, line = UndeclaredInplace()(x), here()
    f = theon.function([x], tt.exp(x) + y, mode="DebugMode")
    msg = _raises(BadDestroyMap, f, X)
    assert "UndeclaredInplace" in msg and "overwrote its input 0" in msg
    assert "destroy_map {}" in msg and line in msg


def test_undeclared_view_is_caught():
    x = tt.dvector("x")
    y, line = UndeclaredView()(x), here()
    f = theon.function([x], y + x, mode="DebugMode")
    msg = _raises(BadViewMap, f, X)
    assert "UndeclaredView" in msg and "shares memory with its input 0" in msg
    assert line in msg


def test_wrong_infer_shape_is_caught():
    x = tt.dvector("x")
    y, line = WrongInferShape()(x), here()
    f = theon.function([x], y * 2, mode="DebugMode")
    msg = _raises(BadInferShape, f, X)
    assert "WrongInferShape" in msg and "(3,)" in msg and "(6,)" in msg
    assert line in msg
    # without the shape check the same function runs
    g = theon.function([x], y * 2, mode=DebugMode(check_shapes=False))
    np.testing.assert_array_equal(g(X), np.repeat(X, 2) * 2)


@node_rewriter([tt.exp])
def local_claim_length_one(fgraph, node):
    """Broken on purpose: exp(x) rebuilt with an output type claiming length 1."""
    (x,) = node.inputs
    if node.outputs[0].type.shape == (1,):
        return None
    claimed = TensorType("float64", shape=(1,))()
    return [Apply(node.op, [x], [claimed]).outputs[0]]


def test_type_changing_rewrite_is_caught():
    x = tt.dvector("x")
    y, line = tt.exp(x), here()
    mode = DebugMode(optimizer=in2out(local_claim_length_one))
    f = theon.function([x], y * 2, mode=mode)
    msg = _raises(BadOptimization, f, X)
    assert "local_claim_length_one" in msg and "shape=(1,)" in msg
    assert "exp" in msg and line in msg
    # the rewrite itself is accepted by the compiler: the claim is only wrong at run time
    assert any(n.outputs[0].type.shape == (1,) for n in f.maker.fgraph.apply_nodes)


@pytest.fixture
def broken_rewrite_registered():
    """local_claim_length_one in the rewrite database (specialize), removed afterwards."""
    from theon.compile.mode import preload
    from theon.rewriting import rewrite_db

    preload()
    rewrite_db.register("local_claim_length_one", local_claim_length_one,
                        "broken_on_purpose", phase="specialize")
    try:
        yield "broken_on_purpose"
    finally:
        rewrite_db.unregister("local_claim_length_one")
    assert "local_claim_length_one" not in rewrite_db


def test_type_changing_rewrite_in_the_database_is_caught(broken_rewrite_registered):
    x = tt.dvector("x")
    e, line = tt.exp(x), here()
    mode = DebugMode().including(broken_rewrite_registered)
    f = theon.function([x], e.sum(), mode=mode)
    msg = _raises(BadOptimization, f, X)
    assert "rewrite 'local_claim_length_one' changed the type" in msg and line in msg
    # DebugMode without the tag never runs it
    np.testing.assert_allclose(theon.function([x], e, mode="DebugMode")(X), np.exp(X))


@node_rewriter([tt.exp])
def local_exp_to_float32(fgraph, node):
    """Broken on purpose: changes the dtype."""
    return [tt.cast(node.inputs[0], "float32")]


def test_dtype_changing_rewrite_is_refused_naming_it():
    x = tt.dvector("x")
    y, line = tt.exp(x), here()
    with pytest.raises(RewriteError) as info:
        theon.function([x], y, mode=DebugMode(optimizer=in2out(local_exp_to_float32)))
    assert "local_exp_to_float32" in str(info.value) and line in str(info.value)


@node_rewriter([tt.log])
def local_log_to_log1p(fgraph, node):
    """Broken on purpose: log(x) -> log1p(x) is not an identity."""
    return [tt.log1p(node.inputs[0])]


def test_value_changing_rewrite_is_caught_naming_it():
    x = tt.dvector("x")
    y, line = tt.log(x), here()
    f = theon.function([x], y.sum(), mode=DebugMode(optimizer=in2out(local_log_to_log1p)))
    msg = _raises(BadOptimization, f, X)
    assert "rewrite 'local_log_to_log1p' replaced" in msg and line in msg
    assert "log1p" in msg


@graph_rewriter
def edit_exp_into_expm1_in_place(fgraph):
    """Broken on purpose: edits nodes instead of replacing them (nothing is recorded)."""
    for node in fgraph.apply_nodes:
        if node.op == tt.exp:
            node.op = tt.expm1


def test_unrecorded_graph_edit_is_caught_by_the_whole_graph_comparison():
    x = tt.dvector("x")
    f = theon.function([x], tt.exp(x).sum() * 2,
                       mode=DebugMode(optimizer=edit_exp_into_expm1_in_place))
    msg = _raises(BadOptimization, f, X)
    assert "output 0" in msg and "differs from the unrewritten graph" in msg
    before = float(msg.split("unrewritten: float64 array of shape (): ")[1].split()[0])
    after = float(msg.split("\n  rewritten: float64 array of shape (): ")[1].split()[0])
    np.testing.assert_allclose([before, after], [np.exp(X).sum() * 2, np.expm1(X).sum() * 2],
                               rtol=1e-6)


def test_value_of_the_wrong_dtype_is_caught():
    x = tt.dvector("x")
    y, line = WrongDtype()(x), here()
    f = theon.function([x], y + 1, mode="DebugMode")
    msg = _raises(InvalidValueError, f, X)
    assert "WrongDtype" in msg and "float32" in msg and line in msg


def test_nan_outputs_are_invalid_unless_allowed():
    x = tt.dvector("x")
    y, line = tt.log(x), here()
    f = theon.function([x], y, mode="DebugMode")
    with np.errstate(invalid="ignore"):
        msg = _raises(InvalidValueError, f, np.array([1.0, -1.0]))
    assert "not finite" in msg and line in msg
    g = theon.function([x], y, mode=DebugMode(check_isfinite=False))
    with np.errstate(invalid="ignore"):
        assert np.isnan(g(np.array([1.0, -1.0]))[1])


def test_names_and_registration():
    import theon.compile as tc

    assert tc.DebugMode is DebugMode and tc.debugmode.DebugMode is DebugMode
    assert issubclass(BadViewMap, DebugModeError)
    assert isinstance(theon.compile.get_mode("DEBUG_MODE"), DebugMode)
    m = DebugMode().excluding("fusion")
    assert isinstance(m, DebugMode)


# correct programs ------------------------------------------------------------------------
def _mlp(mode, steps=3):
    rng = np.random.default_rng(0)
    Xd = rng.normal(size=(8, 4))
    yd = (Xd.sum(axis=1) > 0).astype("float64")
    W1 = theon.shared(rng.normal(size=(4, 5)) * 0.5, name="W1")
    b1 = theon.shared(np.zeros(5), name="b1")
    w2 = theon.shared(rng.normal(size=5) * 0.5, name="w2")
    X_, y_ = tt.dmatrix("X"), tt.dvector("y")
    h = tt.tanh(X_.dot(W1) + b1)
    p = tt.nnet.sigmoid(h.dot(w2))
    loss = tt.nnet.binary_crossentropy(p, y_).mean() + 1e-3 * (W1 ** 2).sum()
    params = [W1, b1, w2]
    grads = theon.grad(loss, params)
    f = theon.function([X_, y_], [loss, p], mode=mode,
                       updates=[(q, q - 0.5 * g) for q, g in zip(params, grads)])
    outs = [f(Xd, yd) for _ in range(steps)]
    return outs, [q.get_value() for q in params]


def test_mlp_with_grad_and_updates_matches_default_mode():
    ref_outs, ref_params = _mlp(None)
    outs, params = _mlp("DebugMode")
    for (l0, p0), (l1, p1) in zip(ref_outs, outs):
        np.testing.assert_allclose(l1, l0, rtol=1e-10)
        np.testing.assert_allclose(p1, p0, rtol=1e-10)
    for a, b in zip(ref_params, params):
        np.testing.assert_allclose(b, a, rtol=1e-10)
    assert ref_outs[-1][0] < ref_outs[0][0]  # it trains


def test_scan_matches_default_mode_and_numpy():
    x = tt.dvector("x")
    a = tt.dscalar("a")
    ys, _ = theon.scan(lambda xt, prev, a: a * prev + xt, sequences=[x],
                       outputs_info=[tt.zeros_like(a)], non_sequences=[a])
    cost = ys.sum()
    outs = [ys, theon.grad(cost, a)]
    f = theon.function([x, a], outs, mode="DebugMode")
    g = theon.function([x, a], outs)
    xv = np.array([1.0, -2.0, 0.5, 3.0])
    got, want = f(xv, 0.7), g(xv, 0.7)
    for u, v in zip(got, want):
        np.testing.assert_allclose(u, v, rtol=1e-12)
    acc, ref = 0.0, []
    for t in xv:
        acc = 0.7 * acc + t
        ref.append(acc)
    np.testing.assert_allclose(got[0], ref, rtol=1e-12)


def test_broken_op_inside_a_scan_body_is_caught():
    x = tt.dmatrix("x")
    ys, _ = theon.scan(lambda xt: UndeclaredView()(xt) + 1, sequences=[x])
    file, n = here().rsplit(":", 1)
    f = theon.function([x], ys, mode="DebugMode")
    with pytest.raises(BadViewMap) as info:
        f(np.ones((3, 2)))
    assert "UndeclaredView" in str(info.value)
    assert f"{file}:{int(n) - 1} in <lambda>" in str(info.value)
    notes = "\n".join(getattr(info.value, "__notes__", []))
    assert "in step 0 of Scan" in notes
