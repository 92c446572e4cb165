"""``theon.ifelse``: values against NumPy, laziness in both linkers, gradients, rewrites, errors."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import theon
import theon.ifelse
import theon.tensor as tt
from theon.graph.basic import Apply
from theon.graph.op import Op
from theon.ifelse import IfElse, ifelse
from theon.rewriting import record_rewrites

rng = np.random.default_rng(13)

VM = theon.Mode(linker="vm", optimizer=None)
PY = theon.Mode(linker="py", optimizer=None)
MODES = {
    "vm": VM,
    "py": PY,
    "py-fast": "FAST_RUN",
    "vm-fast": theon.Mode(linker="vm", optimizer="fast_run"),
}


class Count(Op):
    """``2 * x``, counting its ``perform`` calls per tag (the probe of laziness)."""

    __props__ = ("tag",)
    calls: dict[str, int] = {}

    def __init__(self, tag: str) -> None:
        self.tag = tag

    def make_node(self, x):
        x = tt.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, out):
        Count.calls[self.tag] = Count.calls.get(self.tag, 0) + 1
        out[0][0] = np.asarray(inputs[0] * 2, dtype=node.outputs[0].type.dtype)

    def grad(self, inputs, grads):
        return [grads[0] * 2]

    def infer_shape(self, node, shapes):
        return [shapes[0]]


def counted(f, *args):
    Count.calls = {}
    out = f(*args)
    return out, dict(Count.calls)


def ifelse_nodes(f):
    return [n for n in f.maker.fgraph.apply_nodes if isinstance(n.op, IfElse)]


# module ---------------------------------------------------------------------------------


def test_importable_as_in_theano():
    assert theon.ifelse is theon.ifelse  # the module, reached as an attribute
    assert theon.ifelse.ifelse is ifelse
    assert callable(theon.ifelse.ifelse)


# values ---------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("cond", [True, False, 1, 0, 2.5, 0.0, -1])
def test_values_match_numpy(mode, cond):
    c = tt.scalar("c", dtype=np.asarray(cond).dtype.name)
    x, y = tt.dvector("x"), tt.dmatrix("y")
    xv, yv = rng.normal(size=3), rng.normal(size=(2, 3))
    a, b = ifelse(c, [tt.exp(x), y.sum(axis=0)], [x * 2.0, y[0]])
    f = theon.function([c, x, y], [a, b], mode=MODES[mode])
    got = f(cond, xv, yv)
    want = [np.exp(xv), yv.sum(axis=0)] if cond else [xv * 2.0, yv[0]]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-15)
        assert g.dtype == w.dtype


@pytest.mark.parametrize("mode", list(MODES))
def test_scalar_fast_path_and_its_numpy_rerun(mode):
    # 0-d float64 values on the py linker's Python-float path; log(0) and 1/0 make it rerun
    s, t = tt.dscalars("s", "t")
    out = ifelse(tt.gt(s, t), tt.log(s - t) * 2.0, 1.0 / (s - t) + tt.sqrt(t))
    f = theon.function([s, t], out, mode=MODES[mode])
    with np.errstate(all="ignore"):
        for sv, tv in [(3.0, 1.0), (1.0, 3.0), (2.0, 2.0), (1e300, -1e300), (0.0, 4.0)]:
            want = np.log(sv - tv) * 2.0 if sv > tv else 1.0 / np.float64(sv - tv) + np.sqrt(tv)
            got = f(sv, tv)
            np.testing.assert_allclose(got, want, rtol=1e-15)
            assert got.dtype == np.float64


def test_returns_the_container_kind():
    c, x = tt.bscalar("c"), tt.dvector("x")
    assert isinstance(ifelse(c, x, x * 2), theon.Variable)
    assert isinstance(ifelse(c, [x], [x * 2]), list)
    assert isinstance(ifelse(c, (x,), (x * 2,)), tuple)


def test_static_shapes_may_differ_and_the_output_keeps_the_common_ones():
    c = tt.bscalar("c")
    a = tt.tensor("float64", shape=(3, 4), name="a")
    b = tt.tensor("float64", shape=(5, 4), name="b")
    out = ifelse(c, a, b)
    assert out.type.shape == (None, 4)
    f = theon.function([c, a, b], out)
    assert f(1, np.ones((3, 4)), np.zeros((5, 4))).shape == (3, 4)
    assert f(0, np.ones((3, 4)), np.zeros((5, 4))).shape == (5, 4)


def test_literals_take_the_dtype_of_their_pair():
    c, x = tt.bscalar("c"), tt.fvector("x")
    out = ifelse(c, x, tt.zeros_like(x))
    assert out.dtype == "float32"
    s = tt.fscalar("s")
    out = ifelse(c, s, 0)
    assert out.dtype == "float32"
    assert theon.function([c, s], out)(0, 1.5) == 0.0


def test_results_never_alias_inputs():
    # the output *is* the taken value; the function still hands out its own copy
    c, x = tt.bscalar("c"), tt.dvector("x")
    for mode in MODES.values():
        f = theon.function([c, x], ifelse(c, x, x * 2), mode=mode)
        xv = np.ones(3)
        out = f(1, xv)
        out[0] = 7.0
        assert xv[0] == 1.0


# laziness -------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", list(MODES))
def test_only_the_taken_branch_is_computed(mode):
    c, x = tt.bscalar("c"), tt.dvector("x")
    shared = Count("shared")(x)
    out = ifelse(c, Count("then")(shared) + 1.0, Count("else")(shared).sum() * x)
    f = theon.function([c, x], out, mode=MODES[mode])
    xv = np.arange(3.0)
    got, calls = counted(f, 1, xv)
    np.testing.assert_allclose(got, 4 * xv + 1)
    assert calls == {"shared": 1, "then": 1}
    got, calls = counted(f, 0, xv)
    np.testing.assert_allclose(got, 4 * xv.sum() * xv)
    assert calls == {"shared": 1, "else": 1}


@pytest.mark.parametrize("mode", list(MODES))
def test_nested_ifelse_is_lazy_at_every_level(mode):
    c, d = tt.bscalars("c", "d")
    x = tt.dvector("x")
    inner = ifelse(d, Count("tt")(x), Count("tf")(x) + 1.0)
    out = ifelse(c, inner * 3.0, Count("f")(x) - 1.0)
    f = theon.function([c, d, x], out, mode=MODES[mode])
    xv = np.array([1.0, 2.0])
    for cv, dv, want, ran in [
        (1, 1, 6 * xv, {"tt": 1}),
        (1, 0, 3 * (2 * xv + 1), {"tf": 1}),
        (0, 1, 2 * xv - 1, {"f": 1}),
        (0, 0, 2 * xv - 1, {"f": 1}),
    ]:
        got, calls = counted(f, cv, dv, xv)
        np.testing.assert_allclose(got, want)
        assert calls == ran, (cv, dv)


@pytest.mark.parametrize("mode", list(MODES))
def test_condition_computed_from_values_and_used_elsewhere(mode):
    x = tt.dvector("x")
    cond = tt.gt(Count("cond")(x).sum(), 0)
    out = ifelse(cond, Count("then")(x), Count("else")(-x))
    f = theon.function([x], [out, cond], mode=MODES[mode])
    (got, cv), calls = counted(f, np.array([1.0, 2.0]))
    np.testing.assert_allclose(got, [2.0, 4.0])
    assert bool(cv) and calls == {"cond": 1, "then": 1}
    (got, cv), calls = counted(f, np.array([-1.0, -2.0]))
    np.testing.assert_allclose(got, [2.0, 4.0])
    assert not bool(cv) and calls == {"cond": 1, "else": 1}


def test_laziness_is_what_makes_it_differ_from_switch():
    # switch computes both sides (here: both counted), ifelse one
    c, x = tt.bscalar("c"), tt.dvector("x")
    f_switch = theon.function([c, x], tt.switch(c, Count("a")(x), Count("b")(x)), mode=PY)
    f_lazy = theon.function([c, x], ifelse(c, Count("a")(x), Count("b")(x)), mode=PY)
    assert counted(f_switch, 1, np.ones(2))[1] == {"a": 1, "b": 1}
    assert counted(f_lazy, 1, np.ones(2))[1] == {"a": 1}


@pytest.mark.parametrize("mode", list(MODES))
def test_inplace_in_a_branch_does_not_clobber_shared_values(mode):
    # y = exp(x) is read by both branches and returned: no branch may overwrite it
    c, x = tt.bscalar("c"), tt.dvector("x")
    y = tt.exp(x)
    out = ifelse(c, tt.sin(y) * 2.0 + y, tt.cos(y) - y)
    f = theon.function([c, x], [out, y, ifelse(c, y + 1.0, y - 1.0) * 3.0], mode=MODES[mode])
    xv = rng.normal(size=4)
    for cv in (1, 0):
        yv = np.exp(xv)
        want = np.sin(yv) * 2.0 + yv if cv else np.cos(yv) - yv
        got = f(cv, xv)
        np.testing.assert_allclose(got[0], want, rtol=1e-14)
        np.testing.assert_allclose(got[1], yv, rtol=1e-14)
        np.testing.assert_allclose(got[2], (yv + 1.0 if cv else yv - 1.0) * 3.0, rtol=1e-14)


# gradients ------------------------------------------------------------------------------


@pytest.mark.parametrize("cv", [1, 0])
def test_verify_grad_through_both_branches(cv):
    c = tt.constant(np.int8(cv))

    def fn(a, b):
        o1, o2 = ifelse(c, [tt.exp(a) * b, a.sum() * b], [tt.sin(b) * a, b ** 2])
        return o1 + o2

    theon.verify_grad(fn, [rng.normal(size=3), rng.normal(size=3)], rng=rng)
    theon.verify_grad(fn, [np.array([30.0, -30.0, 1e-8]), np.array([1e-8, 50.0, -50.0])], rng=rng)


@pytest.mark.parametrize("mode", ["vm", "py-fast"])
def test_grad_gives_zeros_to_the_untaken_branch(mode):
    c, a, b = tt.bscalar("c"), tt.dvector("a"), tt.dvector("b")
    cost = ifelse(c, (a ** 2).sum(), (b ** 3).sum())
    ga, gb = theon.grad(cost, [a, b])
    f = theon.function([c, a, b], [ga, gb], mode=MODES[mode])
    av, bv = np.array([1.0, 2.0]), np.array([3.0, -1.0, 2.0])
    got = f(1, av, bv)
    np.testing.assert_allclose(got[0], 2 * av)
    np.testing.assert_array_equal(got[1], np.zeros(3))
    got = f(0, av, bv)
    np.testing.assert_array_equal(got[0], np.zeros(2))
    np.testing.assert_allclose(got[1], 3 * bv ** 2)


def test_condition_is_disconnected():
    c, a = tt.dscalar("c"), tt.dvector("a")
    cost = ifelse(c, a.sum(), (a * 2).sum())
    with pytest.raises(theon.gradient.DisconnectedInputError):
        theon.grad(cost, c)
    g = theon.grad(cost, c, disconnected_inputs="ignore")
    assert float(g.eval({c: 1.0, a: np.ones(2)})) == 0.0


def test_second_derivative_through_ifelse():
    c, x = tt.bscalar("c"), tt.dscalar("x")
    y = ifelse(c, x ** 3, tt.sin(x))
    h = theon.grad(theon.grad(y, x), x)
    f = theon.function([c, x], h)
    assert f(1, 2.0) == pytest.approx(12.0)
    assert f(0, 2.0) == pytest.approx(-np.sin(2.0))


def test_R_op_matches_the_branch_derivative():
    c, x, v = tt.bscalar("c"), tt.dvector("x"), tt.dvector("v")
    w = tt.dvector("w")
    y = ifelse(c, x ** 2, tt.sin(x) * w)
    jv = theon.Rop(y, x, v)
    f = theon.function([c, x, v, w], jv)
    xv, vv, wv = rng.normal(size=3), rng.normal(size=3), rng.normal(size=3)
    np.testing.assert_allclose(f(1, xv, vv, wv), 2 * xv * vv, rtol=1e-14)
    np.testing.assert_allclose(f(0, xv, vv, wv), np.cos(xv) * wv * vv, rtol=1e-14)
    # forward mode used IfElse.R_op (not the transpose trick): the tangent is an ifelse
    assert isinstance(jv.owner.op, IfElse)


# shapes ---------------------------------------------------------------------------------


def test_infer_shape_when_branches_agree_needs_no_conditional():
    c, x = tt.bscalar("c"), tt.dmatrix("x")
    out = ifelse(c, Count("a")(x), Count("b")(x) + 1.0)
    f = theon.function([c, x], out.shape)
    assert not ifelse_nodes(f)
    got, calls = counted(f, 1, np.ones((2, 3)))
    assert tuple(got) == (2, 3) and calls == {}


@pytest.mark.parametrize("cv", [1, 0])
def test_infer_shape_of_different_branches_is_an_ifelse_of_shapes(cv):
    c, x, y = tt.bscalar("c"), tt.dmatrix("x"), tt.dmatrix("y")
    out = ifelse(c, Count("a")(x), Count("b")(y.T))
    node = out.owner
    shapes = node.op.infer_shape(node, [(), tt.shape_tuple(node.inputs[1]),
                                        tt.shape_tuple(node.inputs[2])])
    f = theon.function([c, x, y], list(shapes[0]), mode="FAST_RUN")
    xv, yv = np.ones((2, 3)), np.ones((4, 5))
    got, calls = counted(f, cv, xv, yv)
    assert tuple(int(g) for g in got) == ((2, 3) if cv else (5, 4))
    assert calls == {}  # shapes came from the inputs, no branch computed
    assert tuple(theon.function([c, x, y], out.shape)(cv, xv, yv)) == ((2, 3) if cv else (5, 4))


# rewrites -------------------------------------------------------------------------------


def fired(build_inputs, outputs, mode="FAST_RUN"):
    with record_rewrites() as log:
        f = theon.function(build_inputs, outputs, mode=mode)
    return f, {e.rewrite for e in log}


def test_constant_condition_removes_the_ifelse():
    x = tt.dvector("x")
    for cv, want in [(True, np.exp), (False, np.sin)]:
        f, names = fired([x], ifelse(tt.constant(cv), tt.exp(x), tt.sin(x)))
        assert "local_ifelse_constant_condition" in names
        assert not ifelse_nodes(f)
        np.testing.assert_allclose(f(np.arange(3.0)), want(np.arange(3.0)))


def test_shared_computation_is_lifted_out():
    c, x = tt.bscalar("c"), tt.dvector("x")
    a, b = ifelse(c, [Count("f")(x), x + 1.0], [Count("f")(x), x - 1.0])
    f, names = fired([c, x], [a, b])
    assert "local_ifelse_same_branches" in names
    (node,) = ifelse_nodes(f)
    assert len(node.outputs) == 1
    got, calls = counted(f, 0, np.ones(2))
    np.testing.assert_allclose(got[0], [2.0, 2.0])
    np.testing.assert_allclose(got[1], [0.0, 0.0])
    assert calls == {"f": 1}
    # a single output: no conditional left at all
    f, names = fired([c, x], ifelse(c, tt.exp(x) * 2.0, tt.exp(x) * 2.0))
    assert not ifelse_nodes(f)


def test_ifelse_on_the_same_condition_merge():
    c, x = tt.bscalar("c"), tt.dvector("x")
    a = ifelse(c, tt.exp(x), tt.sin(x))
    b = ifelse(c, tt.cos(x), x * 3.0)
    f, names = fired([c, x], [a, b])
    assert "local_ifelse_merge_same_condition" in names
    assert len(ifelse_nodes(f)) == 1
    nested = ifelse(c, ifelse(c, tt.exp(x), tt.sin(x)) + 1.0, ifelse(c, x, x * 2.0))
    g, names = fired([c, x], nested)
    assert "local_ifelse_nested_same_condition" in names
    xv = np.array([0.5, -1.0])
    np.testing.assert_allclose(g(1, xv), np.exp(xv) + 1.0)
    np.testing.assert_allclose(g(0, xv), xv * 2.0)


def test_merge_keeps_conditionals_under_other_branches_lazy():
    # b sits under d's then-branch: merging it with a (always run) would run it always
    c, d, x = tt.bscalar("c"), tt.bscalar("d"), tt.dvector("x")
    a = ifelse(c, Count("a1")(x), Count("a2")(x))
    b = ifelse(c, Count("b1")(x), Count("b2")(x))
    out = ifelse(d, b * 2.0, x)
    f = theon.function([c, d, x], [a, out])
    assert len(ifelse_nodes(f)) == 3
    _, calls = counted(f, 1, 0, np.ones(2))
    assert calls == {"a1": 1}


def test_unused_outputs_are_dropped():
    c, x = tt.bscalar("c"), tt.dvector("x")
    a, b = ifelse(c, [tt.exp(x), Count("b")(x)], [tt.sin(x), Count("b2")(x)])
    f, names = fired([c, x], a)
    assert "local_ifelse_unused_outputs" in names
    (node,) = ifelse_nodes(f)
    assert len(node.outputs) == 1
    got, calls = counted(f, 1, np.ones(2))
    np.testing.assert_allclose(got, np.exp(np.ones(2)))
    assert calls == {}


def _build(kind, c, x, y):
    if kind == 0:
        return ifelse(c, tt.exp(x) * y, tt.exp(x) * y)
    if kind == 1:
        return ifelse(c, tt.sin(x), y) + ifelse(c, y * 2.0, tt.cos(x))
    if kind == 2:
        return ifelse(c, ifelse(c, x + y, x - y), ifelse(c, x * y, tt.tanh(x)))
    if kind == 3:
        return ifelse(tt.constant(np.int8(1)), x * y, x / y) + ifelse(tt.constant(0.0), x, y)
    if kind == 4:
        a, b = ifelse(c, [tt.sqr(x), y], [y, tt.sqr(x)])
        return a - b
    return ifelse(c, [tt.exp(x), y * 2.0], [tt.cos(y), x])[0]  # an unused output


@settings(max_examples=40, deadline=None)
@given(
    kind=st.integers(0, 5),
    cv=st.integers(0, 1),
    xs=st.lists(st.floats(-20, 20), min_size=3, max_size=3),
    ys=st.lists(st.floats(-20, 20), min_size=3, max_size=3),
)
def test_rewritten_graphs_agree_with_the_unrewritten_vm(kind, cv, xs, ys):
    c, x, y = tt.bscalar("c"), tt.dvector("x"), tt.dvector("y")
    out = _build(kind, c, x, y)
    xv, yv = np.array(xs), np.array(ys)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = theon.function([c, x, y], out, mode=VM, on_unused_input="ignore")(cv, xv, yv)
        for mode in ("FAST_RUN", MODES["vm-fast"], PY):
            got = theon.function([c, x, y], out, mode=mode, on_unused_input="ignore")(cv, xv, yv)
            np.testing.assert_allclose(got, want, rtol=1e-13, atol=0)


# errors ---------------------------------------------------------------------------------


def test_type_mismatch_names_both_variables_and_types():
    c, x, m = tt.bscalar("c"), tt.dvector("x"), tt.dmatrix("m")
    with pytest.raises(TypeError) as e:
        ifelse(c, x, m)
    text = str(e.value)
    assert "'x'" in text and "'m'" in text and "float64, shape=(None,)" in text
    assert "shape=(None, None)" in text and "test_ifelse.py" in text
    with pytest.raises(TypeError, match="float32"):
        ifelse(c, x, tt.fvector("f"))


def test_condition_must_be_0d():
    x = tt.dvector("x")
    with pytest.raises(TypeError, match=r"'x'.*1 dimension.*test_ifelse.py"):
        ifelse(x, x, x)
    with pytest.raises(TypeError, match="complex"):
        ifelse(tt.cscalar("z"), x, x)


def test_branch_lengths_and_kinds_must_match():
    c, x = tt.bscalar("c"), tt.dvector("x")
    with pytest.raises(TypeError, match="2 values.*1"):
        ifelse(c, [x, x], [x])
    with pytest.raises(TypeError, match="both be single values or both lists"):
        ifelse(c, x, [x])
    with pytest.raises(TypeError, match="empty"):
        ifelse(c, [], [])


# the Theano tutorial's example, printing, pickling --------------------------------------


@pytest.mark.parametrize("linker", ["vm", "py"])
def test_theano_tutorial_ifelse_vs_switch(linker):
    # the tutorial's example, with smaller matrices and no timing
    a, b = tt.scalars("a", "b")
    x, y = tt.matrices("x", "y")
    z_switch = tt.switch(tt.lt(a, b), tt.mean(x), tt.mean(y))
    z_lazy = ifelse(tt.lt(a, b), tt.mean(x), tt.mean(y))
    f_switch = theon.function([a, b, x, y], z_switch, mode=theon.Mode(linker=linker))
    f_lazy = theon.function([a, b, x, y], z_lazy, mode=theon.Mode(linker=linker))
    xv = np.ones((100, 10), dtype=theon.config.floatX)
    yv = np.full((100, 10), 3.0, dtype=theon.config.floatX)
    for av, bv, want in [(0.0, 1.0, 1.0), (1.0, 0.0, 3.0)]:
        assert float(f_switch(av, bv, xv, yv)) == want
        assert float(f_lazy(av, bv, xv, yv)) == want


def test_dprint_shows_the_conditional():
    c, x = tt.bscalar("c"), tt.dvector("x")
    text = theon.dprint(ifelse(c, x, x * 2.0, name="pick"), file="str")
    first, cond = text.splitlines()[:2]
    assert first.startswith("if{pick}") and "|c " in cond
    assert str(IfElse(1)) == "if{}"


def test_pickled_function_keeps_working():
    c, x = tt.bscalar("c"), tt.dvector("x")
    f = theon.function([c, x], ifelse(c, tt.exp(x), x * 2.0, name="p"))
    g = pickle.loads(pickle.dumps(f))
    xv = np.array([0.0, 1.0])
    np.testing.assert_allclose(g(1, xv), np.exp(xv))
    np.testing.assert_allclose(g(0, xv), 2 * xv)
    assert IfElse(2, name="a") == IfElse(2, name="b")
    assert pickle.loads(pickle.dumps(IfElse(2, name="a"))).name == "a"
