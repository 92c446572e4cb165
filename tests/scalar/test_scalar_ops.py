"""Every scalar op against NumPy/SciPy: output dtypes, values, array impl and py_expr."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import pytest
import scipy.special as sps

from tests.seeding import stable_seed
from theon import scalar as ts
from theon.scalar.basic import ScalarOp
from theon.scalar.pyimpl import py_namespace
from theon.scalar.type import all_dtypes

from .opspec import SPECS, Spec, compile_fn, sample

NS = py_namespace()
EDGES = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 2.5, 3.0, 1e-300, 1e300, -1e300, 710.0, -750.0]
EDGES += [math.inf, -math.inf, math.nan]


def perform(op: ScalarOp, values: list[Any], dtypes: list[str]) -> list[Any]:
    """Run ``op.perform`` on a node built from variables of ``dtypes``."""
    node = op.make_node(*[ts.get_scalar_type(d)() for d in dtypes])
    storage: list[list[Any]] = [[None] for _ in node.outputs]
    op.perform(node, values, storage)
    return [s[0] for s in storage]


def assert_same(got: Any, want: Any, rtol: float, what: str) -> None:
    """Equal dtype, and equal value up to ``rtol`` (nan equals nan)."""
    want = np.asarray(want)
    assert np.asarray(got).dtype == want.dtype, (
        f"{what}: dtype {np.asarray(got).dtype} != {want.dtype}"
    )
    if want.dtype.kind in "fc":
        np.testing.assert_allclose(got, want, rtol=rtol, atol=0, equal_nan=True, err_msg=what)
    else:
        assert np.array_equal(got, want), f"{what}: {got} != {want}"


def _dtype_or_none(fn: Any, dtypes: tuple[str, ...]) -> str | None:
    try:
        with np.errstate(all="ignore"):
            return str(np.asarray(fn(*[np.zeros(1, dtype=d) for d in dtypes])).dtype)
    except (TypeError, ValueError):
        return None


def _out_or_none(op: ScalarOp, dtypes: tuple[str, ...]) -> str | None:
    try:
        node = op.make_node(*[ts.get_scalar_type(d)() for d in dtypes])
    except TypeError:
        return None
    return node.outputs[0].type.dtype  # type: ignore[no-any-return]


@pytest.mark.parametrize("name", sorted(SPECS))
def test_output_dtype_matches_numpy(name: str) -> None:
    spec = SPECS[name]
    ref = spec.dtype_ref or spec.ref
    dts = list(all_dtypes)
    if spec.nin == 3:  # keep the product small: every dtype in each slot, others varied less
        combos = set(itertools.product(dts, dts, ["bool", "int8", "float32", "float64"]))
        combos |= set(itertools.product(["bool", "float64", "int16"], dts, dts))
    else:
        combos = set(itertools.product(dts, repeat=spec.nin))
    mismatches = []
    for combo in sorted(combos):
        want = _dtype_or_none(ref, combo)
        got = _out_or_none(spec.op, combo)
        if want != got:
            mismatches.append((combo, got, want))
    assert not mismatches, f"{name}: (inputs, ours, numpy): {mismatches[:10]}"


def _value_dtypes(spec: Spec) -> list[str]:
    if spec.domain in ("int", "shift"):
        return ["int8", "int64", "uint8"] + (["bool"] if spec.domain == "int" else [])
    return ["float64", "float32", "float16"]


@pytest.mark.parametrize("name", sorted(SPECS))
def test_values_match_numpy(name: str) -> None:
    spec = SPECS[name]
    rng = np.random.default_rng(stable_seed(name))
    for dtype in _value_dtypes(spec):
        rtol = {"float64": 1e-13, "float32": 2e-6, "float16": 2e-3}.get(dtype, 0)
        for point in sample(spec, rng, 6):
            vals = [np.asarray(p).astype(dtype)[()] for p in point]
            if spec.domain == "switch":
                vals[0] = np.bool_(point[0])
                dts = ["bool", dtype, dtype]
            else:
                dts = [dtype] * spec.nin
            (got,) = perform(spec.op, vals, dts)
            with np.errstate(all="ignore"):
                if spec.dtype_ref is None:
                    want = spec.ref(*vals)
                else:  # special functions: np.exp's dtype rule, reference values in float64
                    want = np.asarray(spec.ref(*[np.float64(v) for v in vals]))
                    want = want.astype(spec.dtype_ref(*[np.asarray(v) for v in vals]).dtype)
            assert type(got) is np.asarray(want).dtype.type
            assert_same(got, want, rtol, f"{name}{tuple(vals)}")


@pytest.mark.parametrize("name", sorted(SPECS))
def test_impl_on_arrays(name: str) -> None:
    spec = SPECS[name]
    rng = np.random.default_rng(0)
    pts = sample(spec, rng, 16)
    for dtype in _value_dtypes(spec)[:2]:
        cols = [np.array([p[i] for p in pts]).astype(dtype) for i in range(spec.nin)]
        if spec.domain == "switch":
            cols[0] = cols[0].astype(bool)
        node = spec.op.make_node(*[ts.get_scalar_type(c.dtype)() for c in cols])
        out_dtype = node.outputs[0].type.dtype
        with np.errstate(all="ignore"):
            got = spec.op.impl(*cols)
            want = np.asarray(spec.ref(*cols))
        assert np.asarray(got).dtype == out_dtype, name
        rtol = 1e-13 if dtype == "float64" else 2e-6
        assert_same(got, want.astype(out_dtype), rtol, name)
        if spec.op.ufunc is not None and spec.op.ufunc_exact:
            with np.errstate(all="ignore"):
                assert np.asarray(spec.op.ufunc(*cols)).dtype == out_dtype


def _py_eval(op: ScalarOp, args: tuple[Any, ...]) -> Any:
    names = [f"a{i}" for i in range(len(args))]
    code = op.py_expr(*names)
    assert code is not None
    return eval(code, NS, dict(zip(names, args)))


def _same_float(got: Any, want: Any) -> bool:
    if isinstance(want, bool | np.bool_):
        return type(got) is bool and got == bool(want)
    if type(got) is not float:
        return False
    w = float(want)
    if math.isnan(w):
        return math.isnan(got)
    if got == w:
        return w != 0 or math.copysign(1, got) == math.copysign(1, w)
    return math.isfinite(w) and abs(got - w) <= 4e-16 * abs(w)


def _py_ok(spec: Spec, dtype: str) -> bool:
    try:
        node = spec.op.make_node(*[ts.get_scalar_type(dtype)() for _ in range(spec.nin)])
    except TypeError:
        return False
    return spec.op.py_expr_ok(node)


PY_OPS = sorted(n for n, s in SPECS.items() if s.op.py_expr(*["a"] * s.nin) is not None)


@pytest.mark.parametrize("name", PY_OPS)
def test_py_expr_matches_perform_on_edge_values(name: str) -> None:
    spec = SPECS[name]
    edges = EDGES if spec.nin < 3 else EDGES[::2]
    if _py_ok(spec, "float64"):
        bad = []
        for args in itertools.product(edges, repeat=spec.nin):
            if name == "pow" and args[1] == 0.5 and args[0] in (-0.0, -math.inf):
                continue  # NumPy itself differs here: scalar/array-scalar use sqrt, arrays pow
            (want,) = perform(spec.op, [np.float64(a) for a in args], ["float64"] * spec.nin)
            got = _py_eval(spec.op, args)
            if not _same_float(got, want):
                bad.append((args, got, want))
        assert not bad, f"{name}: (args, py, numpy): {bad[:8]}"
    # boolean inputs (logical/bitwise ops, switch's condition)
    if _py_ok(spec, "bool"):
        for args in itertools.product([False, True], repeat=spec.nin):
            (want,) = perform(spec.op, [np.bool_(a) for a in args], ["bool"] * spec.nin)
            got = _py_eval(spec.op, args)
            assert got == want and type(got) is type(want.item()), (name, args)


def test_py_expr_ok_rules() -> None:
    f32 = ts.float32()
    assert not ts.exp.py_expr_ok(ts.exp(f32).owner)
    assert ts.exp.py_expr_ok(ts.exp(ts.float64()).owner)
    assert not ts.add.py_expr_ok(ts.add(ts.bool_(), ts.bool_()).owner)
    assert ts.switch.py_expr_ok(ts.switch(ts.bool_(), ts.float64(), ts.float64()).owner)
    assert ts.cast(ts.bool_("b"), "float64").owner.op.py_expr("b") == "float(b)"
    assert ts.lt.py_expr_ok(ts.lt(ts.float64(), 1.0).owner)


@pytest.mark.parametrize(("src", "dst"), list(itertools.product(all_dtypes, repeat=2)))
def test_cast(src: str, dst: str) -> None:
    x = ts.get_scalar_type(src)("x")
    if src.startswith("complex") and not dst.startswith("complex"):
        # would drop the imaginary part: refused (PyTensor too), by cast and by the op
        with pytest.raises(TypeError, match="'x'.*imaginary part.*real"):
            ts.cast(x, dst)
        with pytest.raises(TypeError, match="imaginary part"):
            ts.Cast(dst)(x)
        return
    y = ts.cast(x, dst)
    if src == dst:
        assert y is x
        return
    assert y.type.dtype == dst and str(y.owner.op) == f"convert_to_{dst}"
    v = np.asarray(3).astype(src)[()] if src != "bool" else np.bool_(True)
    (got,) = perform(y.owner.op, [v], [src])
    with np.errstate(all="ignore"):
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = np.asarray(v).astype(dst)[()]
    assert type(got) is type(want) and got == want


def test_cast_identity_and_equality() -> None:
    assert ts.Cast(ts.float32) == ts.Cast("float32")
    assert hash(ts.Cast(ts.float32)) == hash(ts.Cast("float32"))
    assert ts.Cast(ts.float32) != ts.Cast(ts.float64)
    assert ts.cast(1.5, "float32").type == ts.float32


def test_op_identity() -> None:
    assert ts.add == type(ts.add)() and hash(ts.add) == hash(type(ts.add)())
    assert ts.add != ts.mul
    assert str(ts.add) == "add" and str(ts.true_div) == "true_div"
    assert ts.add.identity == 0 and ts.mul.identity == 1
    assert ts.maximum.identity == -np.inf and ts.minimum.identity == np.inf
    assert ts.and_.identity is True and ts.or_.identity is False
    assert ts.add.commutative and ts.add.associative
    assert not ts.sub.commutative
    assert ts.abs is ts.abs_
    assert ts.round is ts.round_half_to_even


def test_variadic_add_mul() -> None:
    x, y, z = ts.float32("x"), ts.int16("y"), ts.float64("z")
    s = ts.add(x, y, z)
    assert s.type == ts.float64
    f = compile_fn([x, y, z], [s, ts.mul(x, y, z)])
    a, m = f(np.float32(1.5), np.int16(2), 3.0)
    assert a == 6.5 and m == 9.0
    assert ts.add(x).type == ts.float32
    with pytest.raises(TypeError, match="at least one"):
        ts.add()


def test_type_errors_name_the_op() -> None:
    b = ts.bool_("b")
    with pytest.raises(TypeError, match=r"sub.*bool"):
        ts.sub(b, b)
    with pytest.raises(TypeError, match=r"erf.*complex"):
        ts.erf(ts.complex128("c"))
    with pytest.raises(TypeError, match=r"and_.*float64"):
        ts.and_(ts.float64(), ts.float64())
    with pytest.raises(TypeError, match="takes 1 inputs, got 2"):
        ts.exp(ts.float64(), ts.float64())


def test_semantics_details() -> None:
    f = compile_fn
    x = ts.float64("x")
    r = f([x], ts.round_half_to_even(x))
    assert [float(r(v)) for v in (2.5, 3.5, -0.5, -2.5)] == [2.0, 4.0, -0.0, -2.0]
    lo, hi = ts.float64("lo"), ts.float64("hi")
    c = f([x, lo, hi], ts.clip(x, lo, hi))
    assert c(5.0, 3.0, 1.0) == np.clip(5.0, 3.0, 1.0) == 1.0
    assert c(-5.0, 3.0, 1.0) == 1.0
    sp = f([x], ts.softplus(x))
    assert sp(1000.0) == 1000.0 and sp(-1000.0) == 0.0
    assert math.isclose(sp(0.0), math.log(2), rel_tol=1e-15)  # libms differ in the last bit
    l1 = f([x], ts.log1mexp(x))
    assert math.isclose(l1(-50.0), -math.exp(-50.0), rel_tol=1e-12)
    assert math.isclose(l1(-1e-20), math.log(1e-20), rel_tol=1e-12)
    assert l1(0.0) == -math.inf and math.isnan(l1(1.0))
    sg = f([x], ts.sigmoid(x))
    assert sg(-800.0) == 0.0 and sg(800.0) == 1.0
    i = ts.int8("i")
    assert f([i], ts.floor(i))(np.int8(-3)).dtype == np.int8
    with pytest.raises(ValueError, match="negative"):
        f([i], ts.pow(i, -1))(np.int8(2))


def test_polygamma() -> None:
    x = ts.float32("x")
    for n in range(4):
        y = ts.polygamma(n, x)
        assert y.type == ts.float32
        v = compile_fn([x], y)(np.float32(1.7))
        assert v.dtype == np.float32
        np.testing.assert_allclose(v, sps.polygamma(n, 1.7), rtol=1e-6)
    with pytest.raises(TypeError, match="integer"):
        ts.polygamma(ts.float64(), x)
    assert str(ts.tri_gamma(x).owner.op) == "polygamma"


def test_complex_ops() -> None:
    z = ts.complex128("z")
    f = compile_fn([z], [ts.abs(z), ts.real(z), ts.imag(z), ts.conj(z), ts.exp(z)])
    v = 3 + 4j
    got = f(v)
    assert [type(g) for g in got[:3]] == [np.float64] * 3
    assert got[0] == 5 and got[1] == 3 and got[2] == 4 and got[3] == 3 - 4j
    np.testing.assert_allclose(got[4], np.exp(v))
    assert ts.real(ts.float32()).type == ts.float32


def test_ops_and_rules_pickle() -> None:
    import pickle

    for obj in (ts.add, ts.erf, ts.switch, ts.Cast("int8"), ts.upcast_out, ts.bool_out):
        back = pickle.loads(pickle.dumps(obj))
        assert back == obj and str(back) == str(obj)
    assert pickle.loads(pickle.dumps(ts.upgrade_to_float)) is ts.upgrade_to_float
    assert ts.upgrade_to_float(ts.int16) == [ts.float32]
    assert ts.upgrade_to_float(ts.uint8, ts.float32) == [ts.float32]
    assert ts.complex_to_real(ts.complex64) == [ts.float32]
    assert ts.int_out(ts.float32) == [ts.int64]
