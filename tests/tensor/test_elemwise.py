"""Elemwise and DimShuffle: every elementwise function against NumPy/SciPy, shapes, grads."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
import scipy.special as sps

import theon
import theon.tensor as tt
from tests.tensor.core_checks import MODE, check_infer_shape, run
from theon.gradient import verify_grad
from theon.tensor.elemwise import DimShuffle, Elemwise


@dataclass
class Case:
    fn: Any
    ref: Callable[..., Any]
    nin: int = 1
    domain: str = "any"
    grad: bool = True
    dtype_ref: Callable[..., Any] | None = None
    ints: bool = True  # defined on integer inputs


def _exp_rule(*a: np.ndarray) -> np.ndarray:
    return np.exp(a[0])


def _log1mexp(x: Any) -> Any:
    return np.log(-np.expm1(x))


CASES: dict[str, Case] = {
    "add": Case(tt.add, np.add, 2),
    "add3": Case(tt.add, lambda a, b, c: a + b + c, 3),
    "sub": Case(tt.sub, np.subtract, 2),
    "mul": Case(tt.mul, np.multiply, 2),
    "mul3": Case(tt.mul, lambda a, b, c: a * b * c, 3),
    "true_div": Case(tt.true_div, np.true_divide, 2, "nonzero2"),
    "int_div": Case(tt.int_div, np.floor_divide, 2, "nonzero2", grad=False),
    "mod": Case(tt.mod, np.remainder, 2, "nonzero2", grad=False),
    "pow": Case(tt.pow, np.power, 2, "pow"),
    "neg": Case(tt.neg, np.negative),
    "abs": Case(tt.abs, np.absolute, 1, "nonzero"),
    "sign": Case(tt.sign, np.sign, grad=False),
    "reciprocal": Case(tt.reciprocal, lambda x: np.true_divide(1, x), 1, "nonzero",
                       dtype_ref=lambda x: np.true_divide(x, x)),
    "sqr": Case(tt.sqr, np.square),
    "sqrt": Case(tt.sqrt, np.sqrt, 1, "pos"),
    "maximum": Case(tt.maximum, np.maximum, 2, "distinct2"),
    "minimum": Case(tt.minimum, np.minimum, 2, "distinct2"),
    "exp": Case(tt.exp, np.exp),
    "exp2": Case(tt.exp2, np.exp2),
    "expm1": Case(tt.expm1, np.expm1),
    "log": Case(tt.log, np.log, 1, "pos"),
    "log2": Case(tt.log2, np.log2, 1, "pos"),
    "log10": Case(tt.log10, np.log10, 1, "pos"),
    "log1p": Case(tt.log1p, np.log1p, 1, "pos"),
    "sin": Case(tt.sin, np.sin),
    "cos": Case(tt.cos, np.cos),
    "tan": Case(tt.tan, np.tan, 1, "unit"),
    "arcsin": Case(tt.arcsin, np.arcsin, 1, "unit"),
    "arccos": Case(tt.arccos, np.arccos, 1, "unit"),
    "arctan": Case(tt.arctan, np.arctan),
    "arctan2": Case(tt.arctan2, np.arctan2, 2, "nonzero2"),
    "sinh": Case(tt.sinh, np.sinh),
    "cosh": Case(tt.cosh, np.cosh),
    "tanh": Case(tt.tanh, np.tanh),
    "arcsinh": Case(tt.arcsinh, np.arcsinh),
    "arccosh": Case(tt.arccosh, np.arccosh, 1, "gt1"),
    "arctanh": Case(tt.arctanh, np.arctanh, 1, "unit"),
    "floor": Case(tt.floor, np.floor, 1, "nonint", grad=False),
    "ceil": Case(tt.ceil, np.ceil, 1, "nonint", grad=False),
    "trunc": Case(tt.trunc, np.trunc, 1, "nonint", grad=False),
    "round_half_to_even": Case(tt.round_half_to_even, np.round, 1, "nonint", grad=False),
    "lt": Case(tt.lt, np.less, 2, grad=False),
    "gt": Case(tt.gt, np.greater, 2, grad=False),
    "le": Case(tt.le, np.less_equal, 2, grad=False),
    "ge": Case(tt.ge, np.greater_equal, 2, grad=False),
    "eq": Case(tt.eq, np.equal, 2, grad=False),
    "neq": Case(tt.neq, np.not_equal, 2, grad=False),
    "isnan": Case(tt.isnan, np.isnan, grad=False),
    "isinf": Case(tt.isinf, np.isinf, grad=False),
    "isfinite": Case(tt.isfinite, np.isfinite, grad=False),
    "logical_and": Case(tt.logical_and, np.logical_and, 2, grad=False),
    "logical_or": Case(tt.logical_or, np.logical_or, 2, grad=False),
    "logical_xor": Case(tt.logical_xor, np.logical_xor, 2, grad=False),
    "logical_not": Case(tt.logical_not, np.logical_not, grad=False),
    "erf": Case(tt.erf, sps.erf, dtype_ref=_exp_rule),
    "erfc": Case(tt.erfc, sps.erfc, dtype_ref=_exp_rule),
    "erfinv": Case(tt.erfinv, sps.erfinv, 1, "unit", dtype_ref=_exp_rule),
    "erfcinv": Case(tt.erfcinv, sps.erfcinv, 1, "zero_two", dtype_ref=_exp_rule),
    "gamma": Case(tt.gamma, sps.gamma, 1, "pos", dtype_ref=_exp_rule),
    "gammaln": Case(tt.gammaln, sps.gammaln, 1, "pos", dtype_ref=_exp_rule),
    "psi": Case(tt.psi, sps.psi, 1, "pos", dtype_ref=_exp_rule),
    "sigmoid": Case(tt.sigmoid, sps.expit, dtype_ref=_exp_rule),
    "softplus": Case(tt.softplus, lambda x: np.logaddexp(0, x), dtype_ref=_exp_rule),
    "log1mexp": Case(tt.log1mexp, _log1mexp, 1, "neg", dtype_ref=_exp_rule, ints=False),
    "switch": Case(tt.switch, lambda c, a, b: np.where(c, a, b), 3, "cond3"),
    "clip": Case(tt.clip, np.clip, 3, "clip3"),
    "second": Case(tt.second, lambda a, b: np.broadcast_to(b, np.broadcast_shapes(
        a.shape, b.shape)).copy(), 2, "any", dtype_ref=lambda a, b: b),
}

rng = np.random.default_rng(1234)


def sample(domain: str, k: int, shape: tuple[int, ...], dtype: str) -> np.ndarray:
    """Input ``k`` of a case, inside the op's domain."""
    is_int = dtype.startswith(("int", "uint"))
    if dtype == "bool":
        return rng.random(shape) > 0.5
    if domain == "cond3" and k == 0:
        return rng.random(shape) > 0.5
    if domain == "clip3" and k > 0:
        lo, hi = (-1.0, 0.0) if k == 1 else (0.5, 1.5)
        v = rng.uniform(lo, hi, shape)
    elif domain in ("pos", "gt1") or (domain == "pow" and k == 0):
        v = rng.uniform(1.1 if domain == "gt1" else 0.2, 3.0, shape)
    elif domain == "pow":
        v = rng.uniform(-2.0, 2.0, shape)
        if is_int:
            v = rng.integers(0, 3, shape)
    elif domain == "unit":
        v = rng.uniform(-0.9, 0.9, shape)
    elif domain == "zero_two":
        v = rng.uniform(0.1, 1.9, shape)
    elif domain == "neg":
        v = rng.uniform(-3.0, -0.1, shape)
    elif domain == "nonint":
        v = rng.uniform(-3.0, 3.0, shape)
        v = np.where(np.abs(v - np.round(v)) < 0.05, v + 0.2, v)
    elif domain in ("nonzero",) or (domain == "nonzero2" and k == 1):
        v = rng.uniform(0.5, 3.0, shape) * rng.choice([-1, 1], shape)
    elif domain == "distinct2":
        v = rng.uniform(-3.0, 3.0, shape) + 10.0 * k
        v = v * rng.choice([-1, 1], shape)
    else:
        v = rng.uniform(-3.0, 3.0, shape)
    if is_int:
        v = np.round(v)
        if domain in ("nonzero",) or (domain == "nonzero2" and k == 1):
            v = np.where(v == 0, 1, v)
        if domain in ("unit",):
            v = np.zeros(shape)
    return np.asarray(v).astype(dtype)


SHAPES = {  # (static shapes, runtime shapes) per arity
    1: [((None, None), (3, 4))],
    2: [((None, None), (3, 4)), ((1, None), (1, 4))],
    3: [((None, None), (3, 4)), ((1, None), (1, 4)), ((None, 1), (3, 1))],
}


def _build(case: Case, dtype: str, empty: bool = False) -> tuple[list[Any], list[np.ndarray]]:
    vars_, vals = [], []
    for k, (st, rt) in enumerate(SHAPES[case.nin]):
        dt = dtype
        if case.domain == "cond3" and k == 0:
            dt = "bool"
        if empty:
            rt = tuple(0 if s is None else s for s in st)
            rt = (0,) + rt[1:] if rt[0] != 1 else rt
        vars_.append(tt.TensorType(dt, st)(f"x{k}"))
        vals.append(sample(case.domain, k, rt, dt))
    return vars_, vals


def _tol(dtype: str) -> float:
    return {"float16": 2e-3, "float32": 2e-5}.get(dtype, 1e-10)


@pytest.mark.parametrize(
    "name,dtype",
    [(n, d) for n in sorted(CASES) for d in ("float64", "float32", "int32")
     if d != "int32" or CASES[n].ints],
)
def test_against_numpy(name: str, dtype: str) -> None:
    case = CASES[name]
    vars_, vals = _build(case, dtype)
    out = case.fn(*vars_)
    with np.errstate(all="ignore"):
        ref = np.asarray(case.ref(*vals))
        dref = np.asarray((case.dtype_ref or case.ref)(*vals))
    assert out.dtype == str(dref.dtype), (name, out.dtype, dref.dtype)
    got = run(vars_, out, *vals)
    assert got.dtype == dref.dtype
    assert got.shape == ref.shape
    tol = _tol(str(dref.dtype))
    np.testing.assert_allclose(got, ref.astype(got.dtype), rtol=tol, atol=tol)
    check_infer_shape(out, vars_, vals)


@pytest.mark.parametrize("name", ["add", "mul3", "exp", "switch", "lt", "second", "clip"])
def test_empty_arrays(name: str) -> None:
    case = CASES[name]
    vars_, vals = _build(case, "float64", empty=True)
    out = case.fn(*vars_)
    got = run(vars_, out, *vals)
    ref = np.asarray(case.ref(*vals))
    assert got.shape == ref.shape and got.dtype == ref.dtype
    check_infer_shape(out, vars_, vals)


@pytest.mark.parametrize("name", sorted(n for n, c in CASES.items() if c.grad))
def test_grad(name: str) -> None:
    case = CASES[name]
    vars_, vals = _build(case, "float64")
    if case.domain == "cond3":
        cond = vals[0]
        verify_grad(lambda a, b: case.fn(cond, a, b), vals[1:], rng=rng, mode=MODE)
        return
    verify_grad(case.fn, vals, rng=rng, mode=MODE)


@pytest.mark.parametrize("name", ["add", "mul", "exp", "pow", "true_div", "sigmoid", "switch"])
def test_rop(name: str) -> None:
    case = CASES[name]
    vars_, vals = _build(case, "float64")
    out = case.fn(*vars_)
    evs = [tt.TensorType("float64", v.type.shape)() for v in vars_]
    ev_vals = [rng.normal(size=v.shape) for v in vals]
    r = out.owner.op.R_op(vars_, [None if v.dtype == "bool" else e
                                  for v, e in zip(vars_, evs)])[0]
    got = run(vars_ + evs, r, *vals, *ev_vals)
    # reference: finite differences along the eval points
    eps = 1e-6
    f = theon.function(vars_, out, mode="REFERENCE")
    plus = [v + eps * e if v.dtype != bool else v for v, e in zip(vals, ev_vals)]
    minus = [v - eps * e if v.dtype != bool else v for v, e in zip(vals, ev_vals)]
    np.testing.assert_allclose(got, (f(*plus) - f(*minus)) / (2 * eps), rtol=1e-5, atol=1e-6)


class TestElemwiseOp:
    def test_props_and_names(self) -> None:
        from theon import scalar as ts

        assert Elemwise(ts.add) == tt.add
        assert hash(Elemwise(ts.add)) == hash(tt.add)
        assert Elemwise(ts.add, {0: 0}) != tt.add
        assert str(Elemwise(ts.add, {0: 0})) == "Elemwise{add,inplace}"
        assert str(tt.mul) == "Elemwise{mul,no_inplace}"
        assert Elemwise.__props__ == ("scalar_op", "inplace_pattern")
        assert Elemwise(ts.add, {0: 1}).destroy_map == {0: [1]}
        import pickle

        assert pickle.loads(pickle.dumps(Elemwise(ts.mul, {0: 1}))) == Elemwise(ts.mul, {0: 1})

    def test_broadcast_dimshuffles_lower_rank_inputs(self) -> None:
        m, v = tt.dmatrix("m"), tt.dvector("v")
        out = m + v
        ds = out.owner.inputs[1]
        assert isinstance(ds.owner.op, DimShuffle) and ds.owner.op.new_order == ("x", 0)
        mv, vv = rng.normal(size=(2, 3)), rng.normal(size=3)
        np.testing.assert_allclose(run([m, v], out, mv, vv), mv + vv)

    def test_static_shape_propagation(self) -> None:
        a = tt.TensorType("float64", (3, None, 1))("a")
        b = tt.TensorType("float64", (None, 4, 1))("b")
        assert (a + b).type.shape == (3, 4, 1)
        c = tt.TensorType("float64", (1, 5))("c")
        assert (c * tt.dmatrix()).type.shape == (None, 5)
        assert (c * tt.drow()).type.shape == (1, 5)

    def test_build_time_broadcast_error_names_both_shapes(self) -> None:
        a = tt.TensorType("float64", (3, 4))("a")
        b = tt.TensorType("float64", (5, 4))("b")
        with pytest.raises(ValueError) as e:
            a + b
        msg = str(e.value)
        assert "(3, 4)" in msg and "(5, 4)" in msg and "'a'" in msg and "'b'" in msg
        with pytest.raises(ValueError, match="cannot broadcast"):
            tt.constant([1.0, 2.0]) + tt.constant([1.0, 2.0, 3.0])

    def test_runtime_broadcast_of_undeclared_dim_refused(self) -> None:
        """An argument of length 1 broadcasts (NumPy's rule); a value computed in the graph
        whose type does not declare length 1 does not."""
        a, b = tt.dvector("a"), tt.dvector("b")
        f = theon.function([a, b], a + b, mode="REFERENCE")
        np.testing.assert_array_equal(f(np.ones(3), np.array([2.0])), 3 * np.ones(3))
        np.testing.assert_array_equal(f(np.ones(3), np.ones(3)), 2 * np.ones(3))
        g = theon.function([a, b], a[:1] + b, mode="REFERENCE")
        with pytest.raises(ValueError, match="broadcastable"):
            g(np.ones(3), np.ones(3))

    def test_inplace_perform(self) -> None:
        from theon import scalar as ts

        x, y = tt.dvector("x"), tt.dvector("y")
        node = Elemwise(ts.add, {0: 0}).make_node(x, y)
        xv, yv = np.array([1.0, 2.0]), np.array([10.0, 20.0])
        cell: list[Any] = [None]
        node.op.perform(node, [xv, yv], [cell])
        assert cell[0] is xv and xv.tolist() == [11.0, 22.0]
        # an impl-based op (no plain ufunc) also writes into the buffer
        node = Elemwise(ts.clip, {0: 0}).make_node(x, 0.0, 15.0)
        node.op.perform(node, [xv, np.float64(0.0), np.float64(15.0)], [cell])
        assert cell[0] is xv and xv.tolist() == [11.0, 15.0]

    def test_inplace_needs_matching_type(self) -> None:
        from theon import scalar as ts

        with pytest.raises(TypeError, match="overwrite"):
            Elemwise(ts.add, {0: 0})(tt.drow("r"), tt.dmatrix("m"))
        with pytest.raises(TypeError, match="overwrite"):
            Elemwise(ts.true_div, {0: 0})(tt.ivector("i"), tt.ivector("j"))

    def test_perform_returns_arrays_of_declared_dtype(self) -> None:
        x = tt.fscalar("x")
        out = run([x], tt.exp(x) + 1.0, np.float32(0.5))
        assert type(out) is np.ndarray and out.dtype == np.float32 and out.shape == ()

    def test_wrong_arity_and_dtype(self) -> None:
        with pytest.raises(TypeError, match="takes 1 inputs"):
            tt.exp(tt.dvector(), tt.dvector())
        with pytest.raises(TypeError, match="cannot be applied"):
            tt.sub(tt.tensor("bool", shape=(None,)), tt.tensor("bool", shape=(None,)))

    @pytest.mark.parametrize(("build", "op", "k"), [
        (lambda x: x + "a", "add", 1), (lambda x: "a" * x, "mul", 0),
        (lambda x: x - [1, "b"], "sub", 1), (lambda x: tt.maximum(x, object()), "maximum", 1),
    ])
    def test_an_operand_that_is_not_a_tensor_is_named(self, build, op, k) -> None:
        """Issue 29 item 13: ``x + "a"`` names the Op, the operand, and the variable it
        was combined with (NumPy refuses these too)."""
        with pytest.raises(TypeError):
            np.add(np.ones(2), "a")
        x = tt.dmatrix("x")
        with pytest.raises(TypeError) as err:
            build(x)
        msg = str(err.value)
        assert msg.startswith(f"Elemwise{{{op},no_inplace}}: input {k}, ")
        assert "is not a tensor, a number or an array (with 'x' (TensorType(float64" in msg

    def test_grad_unbroadcasts(self) -> None:
        m = tt.dmatrix("m")
        r = tt.drow("r")
        c = tt.dcol("c")
        s = tt.dscalar("s")
        cost = (m * r + c * s).sum()
        gm, gr, gc, gs = theon.grad(cost, [m, r, c, s])
        assert gr.type.shape[0] == 1 and gc.type.shape[1] == 1 and gs.type.ndim == 0
        mv, rv, cv = rng.normal(size=(3, 4)), rng.normal(size=(1, 4)), rng.normal(size=(3, 1))
        out = run([m, r, c, s], [gm, gr, gc, gs], mv, rv, cv, 2.0)
        np.testing.assert_allclose(out[0], np.broadcast_to(rv, (3, 4)))
        np.testing.assert_allclose(out[1], mv.sum(0, keepdims=True))
        np.testing.assert_allclose(out[2], np.full((3, 1), 8.0))
        np.testing.assert_allclose(out[3], cv.sum() * 4)

    def test_float32_grad_stays_float32(self) -> None:
        x = tt.fvector("x")
        g = theon.grad((tt.exp(x) * 2.0 + x**2).sum(), x)
        assert g.dtype == "float32"

    def test_integer_inputs_disconnected(self) -> None:
        from theon.graph.null_type import DisconnectedType

        i, x = tt.ivector("i"), tt.dvector("x")
        out = i * x
        gi, gx = out.owner.op.L_op([i, x], [out], [tt.dvector("g")])
        assert isinstance(gi.type, DisconnectedType)
        assert gx.type == tt.dvector


class TestDimShuffle:
    def test_perform_is_a_view(self) -> None:
        x = tt.TensorType("float64", (None, 1, None))("x")
        y = x.dimshuffle(2, "x", 0)
        assert y.type.shape == (None, 1, None)
        node = y.owner
        xv = rng.normal(size=(2, 1, 3))
        cell: list[Any] = [None]
        node.op.perform(node, [xv], [cell])
        np.testing.assert_array_equal(cell[0], xv[:, 0, :].T[:, None, :])
        assert np.shares_memory(cell[0], xv)
        assert node.op.view_map == {0: [0]}

    @pytest.mark.parametrize("order,in_shape", [
        (("x", "x"), ()), ((), (1, 1)), ((1, 0), (2, 3)), (("x", 0, "x"), (3,)),
        ((0, 2), (2, 1, 3)), ((2, "x", 0), (2, 1, 4)), ((0, 1), (2, 3)),
    ])
    def test_against_numpy(self, order: tuple, in_shape: tuple[int, ...]) -> None:
        static = tuple(1 if s == 1 else None for s in in_shape)
        x = tt.TensorType("float32", static)("x")
        y = DimShuffle(len(in_shape), order)(x)
        xv = rng.normal(size=in_shape).astype("float32")
        kept = [o for o in order if o != "x"]
        drop = tuple(d for d in range(len(in_shape)) if d not in kept)
        ref = xv.squeeze(axis=drop) if drop else xv
        rank = {d: r for r, d in enumerate(sorted(kept))}
        ref = ref.transpose([rank[d] for d in kept]) if kept else ref
        ref = ref.reshape(tuple(1 if o == "x" else in_shape[o] for o in order))
        out = run([x], y, xv)
        assert out.dtype == np.float32 and out.shape == ref.shape
        np.testing.assert_array_equal(out, ref)
        check_infer_shape(y, [x], [xv])
        verify_grad(lambda a: DimShuffle(len(in_shape), order)(a), [xv.astype("float64")],
                    rng=rng, mode=MODE)

    def test_str_and_props(self) -> None:
        assert str(DimShuffle(0, ("x", "x"))) == "DimShuffle{x,x}"
        assert DimShuffle(2, [1, 0]) == DimShuffle(2, (1, 0))
        assert DimShuffle.__props__ == ("input_ndim", "new_order")

    def test_errors(self) -> None:
        with pytest.raises(ValueError, match="static length"):
            tt.dmatrix("m").dimshuffle(0)
        with pytest.raises(ValueError, match="twice"):
            DimShuffle(2, (0, 0))
        with pytest.raises(ValueError, match="not an input dimension"):
            DimShuffle(1, (1,))
        with pytest.raises(TypeError, match="expects a 2-d"):
            DimShuffle(2, (1, 0))(tt.dvector())
        with pytest.raises(TypeError, match="ints or 'x'"):
            DimShuffle(1, ("y",))

    def test_rop(self) -> None:
        x = tt.dmatrix("x")
        y = x.T
        ev = tt.dmatrix("ev")
        r = y.owner.op.R_op([x], [ev])[0]
        ev_v = rng.normal(size=(2, 3))
        np.testing.assert_array_equal(run([x, ev], r, np.zeros((2, 3)), ev_v), ev_v.T)


def test_composite_ignoring_an_input_still_broadcasts() -> None:
    """An op whose result does not read every input still gets the broadcast shape."""
    import theon
    import theon.scalar as ts
    from theon.scalar.composite import Composite

    a, b = ts.float64("a"), ts.float64("b")
    comp = Composite([a, b], [ts.exp(a)])
    x = tt.TensorType("float64", shape=(1, None))("x")
    m = tt.dmatrix("m")
    out = Elemwise(comp)(x, m)
    xv, mv = np.zeros((1, 3)), np.ones((4, 3))
    for mode in ("REFERENCE", "FAST_RUN"):
        res = theon.function([x, m], out, mode=mode)(xv, mv)
        np.testing.assert_array_equal(res, np.ones((4, 3)))


@pytest.mark.parametrize("sop, dtype", [("neg", "float64"), ("neg", "float32"),
                                        ("neg", "int64"), ("sqr", "complex128")])
def test_inplace_perform_on_a_strided_view(sop: str, dtype: str) -> None:
    """An inplace ufunc not proven safe on a strided buffer (``np.negative`` is wrong
    there in NumPy 2.4 for column strides of 4 and 8 elements) is computed out of place
    and copied: the result is NumPy's, and it is still written into the buffer."""
    import theon.scalar as ts

    op = Elemwise(getattr(ts, sop), {0: 0})
    x = tt.TensorType(dtype, shape=(None,))("x")
    node = op.make_node(x)
    ufunc = {"neg": np.negative, "sqr": np.square}[sop]
    for cols in range(1, 18):
        base = (rng.normal(size=(9, cols)) * 10).astype(dtype)
        if dtype.startswith("complex"):
            base = base + 1j * rng.normal(size=(9, cols))
        v = base[:, cols // 2]
        ref = ufunc(v)
        cell: list[Any] = [None]
        op.perform(node, [v], [cell])
        np.testing.assert_array_equal(cell[0], ref)
        assert np.shares_memory(cell[0], base)
        np.testing.assert_array_equal(base[:, cols // 2], ref)


@pytest.mark.parametrize("mode", ["FAST_RUN", "vm"])
def test_negated_column_of_log_softmax(mode: str) -> None:
    """The issue's example: ``-(log_softmax(z)[:, 3])`` on a 5x8 matrix negates a view
    with a stride of 8 elements in place."""
    from theon.compile.mode import Mode

    m = Mode(linker="vm", optimizer="fast_run") if mode == "vm" else mode
    z = tt.dmatrix("z")
    f = theon.function([z], -(tt.special.log_softmax(z, axis=-1)[:, 3]), mode=m)
    for cols in (8, 4, 5, 16):
        zv = np.random.default_rng(cols).normal(size=(5, cols))
        np.testing.assert_allclose(f(zv), -sps.log_softmax(zv, axis=-1)[:, 3], rtol=1e-13)


def test_dimshuffle_subclass_written_for_pytensors_c_backend() -> None:
    """PyMC defines ``MeasurableDimShuffle`` with ``c_func_file =
    str(DimShuffle.get_path(Path(DimShuffle.c_func_file)))``: it must be definable, and
    behave as a DimShuffle."""
    from pathlib import Path

    from theon.tensor.elemwise import DimShuffle

    class Marked(DimShuffle):
        c_func_file = str(DimShuffle.get_path(Path(DimShuffle.c_func_file)))

    assert Path(Marked.c_func_file).is_absolute()
    assert DimShuffle.get_path(Path("/abs/file.c")) == Path("/abs/file.c")
    v = tt.dvector("v")
    np.testing.assert_array_equal(Marked(1, ("x", 0))(v).eval({v: [1.0, 2.0]}), [[1.0, 2.0]])
