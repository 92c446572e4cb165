"""OpFromGraph: values against NumPy, gradients (derived and overridden) with
verify_grad, R_op against NumPy Jacobian-vector products and finite differences,
infer_shape, nesting, shared variables, pickling, inlining, both linkers."""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import theon
import theon.tensor as tt
from theon.compile.mode import Mode
from theon.gradient import DisconnectedInputError, NullTypeGradError, hessian_vector_product
from theon.graph.null_type import DisconnectedType, NullType
from theon.opfromgraph import OpFromGraph
from theon.rewriting import record_rewrites, trace

LINKERS = ["py", "vm"]
ROOT = Path(__file__).resolve().parents[2]
RNG = np.random.default_rng(1313)


def mode_of(linker: str) -> Mode:
    return Mode(linker=linker)


def ofg_nodes(f: theon.compile.Function) -> list[object]:
    return [n for n in f.maker.fgraph.apply_nodes if isinstance(n.op, OpFromGraph)]


def fma_exp() -> OpFromGraph:
    """f(x, y) = x * y + exp(x) (two vector inputs)."""
    x, y = tt.dvector("x"), tt.dvector("y")
    return OpFromGraph([x, y], [x * y + tt.exp(x)], name="fma_exp")


# values ------------------------------------------------------------------------------
@pytest.mark.parametrize("linker", LINKERS)
def test_values_against_numpy(linker):
    x, y = tt.dmatrix("x"), tt.dvector("y")
    op = OpFromGraph([x, y], [tt.tanh(x) @ y, (x**2).sum(axis=0) - y], name="two")
    a, b = tt.dmatrix("a"), tt.dvector("b")
    o1, o2 = op(a, b)
    f = theon.function([a, b], [o1, o2, o1.sum() + 1.0], mode=mode_of(linker))
    av, bv = RNG.normal(size=(4, 3)), RNG.normal(size=3)
    r1, r2, r3 = f(av, bv)
    np.testing.assert_allclose(r1, np.tanh(av) @ bv)
    np.testing.assert_allclose(r2, (av**2).sum(axis=0) - bv)
    np.testing.assert_allclose(r3, (np.tanh(av) @ bv).sum() + 1.0)
    assert len(ofg_nodes(f)) == 1


@pytest.mark.parametrize("linker", LINKERS)
def test_output_that_is_an_input_is_a_copy(linker):
    x, y = tt.dvector("x"), tt.dvector("y")
    op = OpFromGraph([x, y], [x, x + y])
    a, b = tt.dvector("a"), tt.dvector("b")
    f = theon.function([a, b], op(a, b), mode=mode_of(linker))
    av = np.array([1.0, 2.0])
    same, total = f(av, np.array([3.0, 4.0]))
    np.testing.assert_array_equal(same, av)
    np.testing.assert_array_equal(total, [4.0, 6.0])
    same[0] = 100.0
    assert av[0] == 1.0


def test_inner_graph_compiled_once_and_reused():
    op = fma_exp()
    a, b = tt.dvector("a"), tt.dvector("b")
    assert len(op._inner) == 0
    f = theon.function([a, b], op(a, b), mode=mode_of("vm"))
    f(np.ones(2), np.ones(2))
    (node,) = ofg_nodes(f)
    fn = op.compiled_fn(node)
    assert fn is not None
    f(np.zeros(2), np.ones(2))
    # another function in the same mode reuses it; one in another mode compiles its own
    g = theon.function([a, b], op(b, a) * 2.0, mode=mode_of("vm"))
    np.testing.assert_allclose(g(np.ones(2), np.zeros(2)), 2 * (0 + np.exp(0.0)) * np.ones(2))
    assert op.compiled_fn(ofg_nodes(g)[0]) is fn and len(op._inner) == 1
    h = theon.function([a, b], op(a, b), mode=mode_of("py"))
    np.testing.assert_allclose(h(np.ones(2), np.zeros(2)), np.exp(1.0) * np.ones(2))
    assert op.compiled_fn(ofg_nodes(h)[0]) is not fn and len(op._inner) == 2


def test_identity_and_merge():
    x = tt.dvector("x")
    op1 = OpFromGraph([x], [x * 2.0])
    op2 = OpFromGraph([x], [x * 2.0])
    assert op1 == op1 and op1 != op2
    a = tt.dvector("a")
    f = theon.function([a], [op1(a), op1(a)])
    assert len(ofg_nodes(f)) == 1
    g = theon.function([a], [op1(a), op2(a)])
    assert len(ofg_nodes(g)) == 2
    r1, r2 = g(np.array([1.0, 3.0]))
    np.testing.assert_array_equal(r1, r2)


def test_input_type_errors_name_the_op_and_input():
    op = fma_exp()
    with pytest.raises(TypeError, match=r"OpFromGraph 'fma_exp': input 1 \(y\) must be of type "
                                        r"TensorType\(float64, shape=\(None,\)\), got 'm'"):
        op(tt.dvector("v"), tt.dmatrix("m"))
    with pytest.raises(TypeError, match="float32"):
        op(tt.dvector("v"), tt.fvector("w"))
    with pytest.raises(TypeError, match=r"takes 2 inputs \(x, y\), got 3"):
        op(tt.dvector("u"), tt.dvector("v"), tt.dvector("w"))
    # a more specific static shape is accepted as is
    out = op(tt.TensorType("float64", shape=(2,))("s"), tt.dvector("v"))
    assert out.type.ndim == 1


def test_bad_graph_errors():
    x, y = tt.dvector("x"), tt.dvector("y")
    with pytest.raises(ValueError, match=r"depend on 'y'.*add it to the inputs"):
        OpFromGraph([x], [x + y])
    with pytest.raises(ValueError, match="listed twice"):
        OpFromGraph([x, x], [x + 1.0])


# gradients ------------------------------------------------------------------------------
def test_grad_derived_against_numpy_and_verify_grad():
    op = fma_exp()
    a, b = tt.dvector("a"), tt.dvector("b")
    cost = (op(a, b) ** 2).sum()
    ga, gb = theon.grad(cost, [a, b])
    f = theon.function([a, b], [ga, gb])
    av, bv = RNG.normal(size=3), RNG.normal(size=3)
    val = av * bv + np.exp(av)
    ra, rb = f(av, bv)
    np.testing.assert_allclose(ra, 2 * val * (bv + np.exp(av)))
    np.testing.assert_allclose(rb, 2 * val * av)
    theon.verify_grad(lambda u, v: op(u, v), [av, bv], rng=np.random.default_rng(0))
    # extreme inputs: exp large, products of large magnitudes
    theon.verify_grad(lambda u, v: op(u, v), [np.array([-700.0, -30.0, 5.0]),
                                             np.array([1e3, -1e-8, 1e-3])],
                      rng=np.random.default_rng(1))


def test_grad_of_unused_output_and_connection_pattern():
    x, y = tt.dscalar("x"), tt.dscalar("y")
    op = OpFromGraph([x, y], [tt.sin(x), x * y])
    a, b = tt.dscalar("a"), tt.dscalar("b")
    s, p = op(a, b)
    assert op.connection_pattern(s.owner) == [[True, True], [False, True]]
    with pytest.raises(DisconnectedInputError):
        theon.grad(s, b)
    ga = theon.grad(s, a)
    assert float(ga.eval({a: 0.5, b: 2.0})) == pytest.approx(np.cos(0.5))
    gb = theon.grad(p, b)
    assert float(gb.eval({a: 0.5, b: 2.0})) == pytest.approx(0.5)


def test_second_derivative_through_ofg():
    x = tt.dscalar("x")
    op = OpFromGraph([x], [tt.exp(x) * tt.sin(x)])
    z = tt.dscalar("z")
    g = theon.grad(op(z), z)
    h = theon.grad(g, z)
    f = theon.function([z], [g, h])
    zv = 0.7
    r_g, r_h = f(zv)
    assert r_g == pytest.approx(np.exp(zv) * (np.sin(zv) + np.cos(zv)))
    assert r_h == pytest.approx(2 * np.exp(zv) * np.cos(zv))
    theon.verify_grad(lambda u: theon.grad(op(u), u), [np.array(zv)])


def test_lop_overrides_callable_is_used():
    x = tt.dvector("x")
    # a straight-through estimator: forward rounds, backward is the identity
    op = OpFromGraph([x], [tt.round(x)], lop_overrides=lambda ins, outs, gs: [gs[0]])
    a = tt.dvector("a")
    g = theon.grad((op(a) * tt.constant(np.array([1.0, 2.0, 3.0]))).sum(), a)
    np.testing.assert_array_equal(g.eval({a: np.array([0.2, 1.7, -2.4])}), [1.0, 2.0, 3.0])
    # an override equal to the true gradient passes verify_grad
    sq = OpFromGraph([x], [x**3], lop_overrides=lambda ins, outs, gs: [3 * ins[0] ** 2 * gs[0]])
    theon.verify_grad(sq, [np.array([-2.0, 0.5, 3.0])])


def test_lop_overrides_uses_the_outputs():
    x = tt.dvector("x")
    op = OpFromGraph([x], [tt.exp(x)], lop_overrides=lambda ins, outs, gs: [outs[0] * gs[0]])
    theon.verify_grad(op, [np.array([-3.0, 0.0, 4.0])])


def test_lop_overrides_list_entries():
    x, y, z = tt.dscalar("x"), tt.dscalar("y"), tt.dscalar("z")
    out = x * y + z * 2.0
    op = OpFromGraph(
        [x, y, z], [out],
        lop_overrides=[lambda ins, outs, gs: gs[0] * 10.0, None, DisconnectedType()],
    )
    a, b, c = tt.dscalar("a"), tt.dscalar("b"), tt.dscalar("c")
    o = op(a, b, c)
    ga, gb = theon.grad(o, [a, b])
    vals = {a: 2.0, b: 3.0, c: 5.0}
    assert float(ga.eval(vals)) == 10.0  # overridden
    assert float(gb.eval(vals)) == 2.0  # derived: d(x*y)/dy = x
    with pytest.raises(DisconnectedInputError):
        theon.grad(o, c)
    op_null = OpFromGraph([x, y, z], [out], lop_overrides=[None, NullType("no"), None])
    o2 = op_null(a, b, c)
    assert float(theon.grad(o2, a).eval(vals)) == 3.0
    with pytest.raises(NullTypeGradError):
        theon.grad(o2, b)


def test_lop_overrides_bad_entry_and_bad_length():
    x = tt.dscalar("x")
    a = tt.dscalar("a")
    op = OpFromGraph([x], [x * 2.0], lop_overrides=[3.0])
    with pytest.raises(TypeError, match=r"lop_overrides\[0\] must be a callable"):
        theon.grad(op(a), a)
    op2 = OpFromGraph([x], [x * 2.0], lop_overrides=lambda i, o, g: [g[0], g[0]])
    with pytest.raises(ValueError, match="returned 2 gradients for 1 inputs"):
        theon.grad(op2(a), a)


def test_grad_overrides_is_a_deprecated_alias():
    x = tt.dscalar("x")
    with pytest.warns(DeprecationWarning, match="grad_overrides"):
        op = OpFromGraph([x], [x**2], grad_overrides=lambda ins, gs: [gs[0] * 7.0])
    a = tt.dscalar("a")
    assert float(theon.grad(op(a), a).eval({a: 1.0})) == 7.0
    with pytest.raises(ValueError, match="not both"), warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        OpFromGraph([x], [x], grad_overrides=lambda i, g: g, lop_overrides=lambda i, o, g: g)


# R_op ----------------------------------------------------------------------------------
def test_rop_derived_against_jvp_and_finite_differences():
    op = fma_exp()
    a, b, va, vb = tt.dvector("a"), tt.dvector("b"), tt.dvector("va"), tt.dvector("vb")
    out = op(a, b)
    jv = theon.Rop(out, [a, b], [va, vb])
    assert any(isinstance(n.op, OpFromGraph) and n.op.name == "fma_exp.rop"
               for n in theon.graph.traversal.io_toposort([a, b, va, vb], [jv]))
    f = theon.function([a, b, va, vb], jv)
    av, bv, dav, dbv = (RNG.normal(size=4) for _ in range(4))
    got = f(av, bv, dav, dbv)
    np.testing.assert_allclose(got, (bv + np.exp(av)) * dav + av * dbv)

    def ref(u: np.ndarray, w: np.ndarray) -> np.ndarray:
        return u * w + np.exp(u)

    eps = 1e-6
    fd = (ref(av + eps * dav, bv + eps * dbv) - ref(av - eps * dav, bv - eps * dbv)) / (2 * eps)
    np.testing.assert_allclose(got, fd, rtol=1e-6, atol=1e-8)
    # a tangent for one input only
    only_a = theon.function([a, b, va], theon.Rop(out, a, va))(av, bv, dav)
    np.testing.assert_allclose(only_a, (bv + np.exp(av)) * dav)


def test_rop_overrides_callable_and_list():
    x = tt.dvector("x")
    op = OpFromGraph([x], [tt.sin(x)], rop_overrides=lambda ins, evs: [evs[0] * 5.0])
    a, v = tt.dvector("a"), tt.dvector("v")
    np.testing.assert_allclose(theon.Rop(op(a), a, v).eval({a: np.ones(2), v: np.ones(2)}),
                               [5.0, 5.0])
    op2 = OpFromGraph([x], [tt.sin(x), x * 2.0],
                      rop_overrides=[lambda ins, evs: evs[0] * 7.0, None])
    r1, r2 = theon.Rop(op2(a), a, v)
    vals = {a: np.array([0.3, 0.1]), v: np.array([1.0, 2.0])}
    np.testing.assert_allclose(r1.eval(vals), [7.0, 14.0])
    np.testing.assert_allclose(r2.eval(vals), [2.0, 4.0])


# infer_shape ------------------------------------------------------------------------------
def test_infer_shape_does_not_compute_the_op():
    x, y = tt.dmatrix("x"), tt.dvector("y")
    op = OpFromGraph([x, y], [tt.exp(x) @ x.T, tt.concatenate([y, y, y])])
    a, b = tt.dmatrix("a"), tt.dvector("b")
    o1, o2 = op(a, b)
    f = theon.function([a, b], [o1.shape, o2.shape])
    assert not ofg_nodes(f)
    s1, s2 = f(np.ones((4, 2)), np.ones(5))
    assert tuple(s1) == (4, 4) and tuple(s2) == (15,)


def test_infer_shape_when_the_shape_depends_on_a_value():
    n = tt.lscalar("n")
    x = tt.dvector("x")
    op = OpFromGraph([n, x], [tt.arange(n) * 1.0, x[1:]])
    m, a = tt.lscalar("m"), tt.dvector("a")
    o1, o2 = op(m, a)
    f = theon.function([m, a], [o1.shape, o2.shape])
    assert not ofg_nodes(f)
    s1, s2 = f(7, np.ones(4))
    assert tuple(s1) == (7,) and tuple(s2) == (3,)


# nesting and shared variables ------------------------------------------------------------
@pytest.mark.parametrize("linker", LINKERS)
def test_nested_ofg(linker):
    x, y = tt.dvector("x"), tt.dvector("y")
    inner = OpFromGraph([x, y], [x * y], name="inner")
    u = tt.dvector("u")
    outer = OpFromGraph([u], [inner(u, tt.exp(u)) + 1.0], name="outer")
    a = tt.dvector("a")
    out = outer(a).sum()
    f = theon.function([a], [out, theon.grad(out, a)], mode=mode_of(linker))
    av = np.array([-1.0, 0.0, 2.0])
    val, g = f(av)
    assert val == pytest.approx(np.sum(av * np.exp(av) + 1.0))
    np.testing.assert_allclose(g, np.exp(av) * (1 + av))
    theon.verify_grad(lambda v: outer(v), [av])


@pytest.mark.parametrize("linker", LINKERS)
def test_shared_variables_become_implicit_inputs(linker):
    w = theon.shared(np.array([1.0, 2.0]), name="w")
    x = tt.dvector("x")
    op = OpFromGraph([x], [x * w], name="scale")
    assert op.shared_inputs == [w] and len(op.inner_inputs) == 2
    a = tt.dvector("a")
    out = op(a)
    assert out.owner.inputs[1] is w
    cost = out.sum()
    f = theon.function([a], [out, *theon.grad(cost, [a, w])], mode=mode_of(linker))
    av = np.array([3.0, 4.0])
    r, ga, gw = f(av)
    np.testing.assert_array_equal(r, [3.0, 8.0])
    np.testing.assert_array_equal(ga, [1.0, 2.0])
    np.testing.assert_array_equal(gw, av)
    w.set_value(np.array([-1.0, 0.5]))
    np.testing.assert_array_equal(f(av)[0], [-3.0, 2.0])
    with pytest.raises(ValueError, match="strict=True"):
        OpFromGraph([x], [x * w], strict=True)


# pickling ---------------------------------------------------------------------------------
def test_pickle_op_and_function():
    op = fma_exp()
    a, b = tt.dvector("a"), tt.dvector("b")
    av, bv = np.array([0.5, 1.0]), np.array([2.0, -1.0])
    op2 = pickle.loads(pickle.dumps(op))
    assert str(op2) == "fma_exp" and op2 is not op
    np.testing.assert_allclose(theon.function([a, b], op2(a, b))(av, bv), av * bv + np.exp(av))
    out = op(a, b)
    f = theon.function([a, b], [out, theon.grad(out.sum(), a)])
    op(a, b).eval({a: av, b: bv})  # compiles the inner function: it is not pickled
    f2 = pickle.loads(pickle.dumps(f))
    for r, e in zip(f2(av, bv), f(av, bv), strict=True):
        np.testing.assert_allclose(r, e)
    np.testing.assert_allclose(f2(av, bv)[1], bv + np.exp(av))


def test_pickle_with_shared_variable():
    w = theon.shared(np.array([1.0, 2.0]), name="w")
    x = tt.dvector("x")
    op = OpFromGraph([x], [x + w])
    a = tt.dvector("a")
    f = theon.function([a], op(a))
    f2 = pickle.loads(pickle.dumps(f))
    np.testing.assert_array_equal(f2(np.zeros(2)), [1.0, 2.0])


# inlining -------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE"])
def test_inline_rewrite_fires(mode):
    x, y = tt.dvector("x"), tt.dvector("y")
    op = OpFromGraph([x, y], [x * y + tt.exp(x)], inline=True, name="inl")
    a, b = tt.dvector("a"), tt.dvector("b")
    out = op(a, b)
    with record_rewrites():
        f = theon.function([a, b], [out, theon.grad(out.sum(), a)], mode=mode)
    assert "inline_ofg_expansion" in {e.rewrite for e in trace(f)}
    assert not ofg_nodes(f)
    av, bv = np.array([0.5, 1.0]), np.array([2.0, -1.0])
    r, g = f(av, bv)
    np.testing.assert_allclose(r, av * bv + np.exp(av))
    np.testing.assert_allclose(g, bv + np.exp(av))
    # not inlined: the node stays
    op_kept = OpFromGraph([x, y], [x * y + tt.exp(x)])
    assert len(ofg_nodes(theon.function([a, b], op_kept(a, b), mode=mode))) == 1


def test_inline_exposes_the_inner_graph_to_rewrites():
    x = tt.dvector("x")
    op = OpFromGraph([x], [tt.exp(x)], inline=True)
    a = tt.dvector("a")
    f = theon.function([a], tt.log(op(a)))  # log(exp(a)) -> a once inlined
    ops = {type(n.op).__name__ for n in f.maker.fgraph.apply_nodes}
    assert "OpFromGraph" not in ops
    np.testing.assert_allclose(f(np.array([1.0, 2.0])), [1.0, 2.0])


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    st.lists(st.floats(-50, 50, allow_nan=False), min_size=1, max_size=5),
    st.floats(-10, 10, allow_nan=False),
)
def test_inline_differential(values, scale):
    """The inlined graph computes what the OpFromGraph node computes (reference VM)."""
    x, s = tt.dvector("x"), tt.dscalar("s")
    body = [tt.tanh(x * s) + tt.log1p(tt.exp(-tt.abs(x))), (x * s).sum()]
    kept, inl = OpFromGraph([x, s], body), OpFromGraph([x, s], body, inline=True)
    a, c = tt.dvector("a"), tt.dscalar("c")
    f_kept = theon.function([a, c], kept(a, c), mode=mode_of("vm"))
    f_inl = theon.function([a, c], inl(a, c))
    assert not ofg_nodes(f_inl)
    av = np.array(values)
    for r, e in zip(f_inl(av, scale), f_kept(av, scale), strict=True):
        np.testing.assert_allclose(r, e, rtol=1e-12, atol=1e-12)


def test_hessian_vector_product_through_ofg():
    x = tt.dvector("x")
    op = OpFromGraph([x], [(tt.sin(x) * x).sum()])
    a, p = tt.dvector("a"), tt.dvector("p")
    hv = hessian_vector_product(op(a), a, p)
    av, pv = np.array([0.3, -1.2, 2.0]), np.array([1.0, 0.5, -2.0])
    # d2/dx2 (x sin x) = 2 cos x - x sin x, a diagonal Hessian
    np.testing.assert_allclose(hv.eval({a: av, p: pv}), (2 * np.cos(av) - av * np.sin(av)) * pv)


def test_integer_output_gets_no_gradient():
    x = tt.dvector("x")
    op = OpFromGraph([x], [tt.argmax(x), (x**2).sum()])
    a = tt.dvector("a")
    i, sq = op(a)
    g = theon.grad(sq + tt.cast(i, "float64"), a)
    np.testing.assert_array_equal(g.eval({a: np.array([1.0, -3.0])}), [2.0, -6.0])


def test_mode_is_passed_to_the_inner_compile():
    x = tt.dvector("x")
    op = OpFromGraph([x], [x + 1.0], mode=Mode(linker="vm", optimizer=None))
    a = tt.dvector("a")
    np.testing.assert_array_equal(op(a).eval({a: np.zeros(2)}), [1.0, 1.0])
    assert op.fn.maker.mode.optimizer is None


def test_pickled_function_runs_in_a_fresh_process(tmp_path):
    x = tt.dvector("x")
    op = OpFromGraph([x], [tt.exp(x) - 1.0], name="expm1_ofg")
    a = tt.dvector("a")
    out = op(a)
    f = theon.function([a], [out, theon.grad(out.sum(), a)])
    path = tmp_path / "f.pkl"
    path.write_bytes(pickle.dumps(f))
    code = (
        "import pickle, numpy as np\n"
        f"f = pickle.loads(open({str(path)!r}, 'rb').read())\n"
        "import json\n"
        "v, g = f(np.array([0.0, 1.0]))\n"
        "print(json.dumps([v.tolist(), g.tolist()]))\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, cwd=ROOT)
    assert res.returncode == 0, res.stderr
    v, g = json.loads(res.stdout)
    np.testing.assert_allclose(v, np.expm1([0.0, 1.0]))
    np.testing.assert_allclose(g, np.exp([0.0, 1.0]))
