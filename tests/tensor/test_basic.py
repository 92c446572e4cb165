"""Constants, as_tensor_variable, NumPy 2 weak-scalar promotion, cast, scalar <-> tensor."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import theon.tensor as tt
from tests.tensor.core_checks import run
from theon.config import change_flags
from theon.tensor.basic import (
    NotScalarConstantError,
    get_scalar_constant_value,
    weak_constant_dtype,
)

ALL_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
              "float16", "float32", "float64", "complex64", "complex128"]


class TestConstant:
    def test_python_scalars(self) -> None:
        assert tt.constant(2).type == tt.lscalar
        assert tt.constant(2.0).type == tt.dscalar
        assert tt.constant(True).dtype == "bool"
        assert tt.constant(1j).dtype == "complex128"
        with change_flags(floatX="float32"):
            assert tt.constant(2.0).dtype == "float32"
            assert tt.constant([1.5, 2.0]).dtype == "float32"
            assert tt.constant(np.float64(2.0)).dtype == "float64"  # NumPy scalars keep theirs

    def test_lists_and_arrays(self) -> None:
        c = tt.constant([[1, 2], [3, 4]])
        assert c.type == tt.TensorType("int64", (2, 2))
        a = np.arange(3, dtype="int16")
        c2 = tt.constant(a)
        assert c2.dtype == "int16" and c2.type.shape == (3,)
        assert not c2.data.flags.writeable
        assert a.flags.writeable  # the caller's array is not frozen
        a[0] = 7
        assert c2.data[0] == 0  # and the constant holds a copy

    def test_dtype_and_ndim(self) -> None:
        assert tt.constant(1, dtype="float32").type == tt.fscalar
        assert tt.constant([1, 2], ndim=2).type.shape == (1, 2)
        assert tt.constant([[5]], ndim=0).type.shape == ()
        with pytest.raises(ValueError, match="0-d"):
            tt.constant([1, 2, 3], ndim=0)

    def test_errors(self) -> None:
        with pytest.raises(TypeError, match="numeric"):
            tt.constant("abc")
        with pytest.raises(TypeError, match="symbolic"):
            tt.constant(tt.dvector())
        with pytest.raises(OverflowError):
            tt.constant(300, dtype="int8")

    def test_str(self) -> None:
        assert str(tt.constant(2.0)) == "TensorConstant{2.0}"
        assert str(tt.constant([1, 2])) == "TensorConstant{[1 2]}"
        assert len(str(tt.constant(np.arange(1000)))) < 60
        assert str(tt.constant(1.0, name="one")) == "one"

    def test_signature_merges_equal_constants(self) -> None:
        a, b = tt.constant([1.0, 2.0]), tt.constant([1.0, 2.0])
        assert a.signature() == b.signature()
        assert a.signature() != tt.constant([1.0, 2.5]).signature()
        assert tt.constant(1.0).signature() != tt.constant(1).signature()


class TestAsTensorVariable:
    def test_passthrough_and_wrap(self) -> None:
        x = tt.dvector("x")
        assert tt.as_tensor_variable(x) is x
        y = x + 1
        assert tt.as_tensor_variable(y.owner) is y
        c = tt.as_tensor_variable([1.0, 2.0], name="c")
        assert isinstance(c, tt.TensorConstant) and c.name == "c"
        assert tt.as_tensor is tt.as_tensor_variable

    def test_ndim_and_dtype(self) -> None:
        x = tt.dvector("x")
        assert tt.as_tensor_variable(x, ndim=2).type.shape == (1, None)
        r = tt.drow("r")
        assert tt.as_tensor_variable(r, ndim=1).type == tt.dvector
        with pytest.raises(ValueError, match="1-d"):
            tt.as_tensor_variable(tt.dmatrix("m"), ndim=1)
        assert tt.as_tensor_variable(x, dtype="float32").dtype == "float32"

    def test_scalar_variable(self) -> None:
        from theon import scalar as ts

        s = ts.float32("s")
        v = tt.as_tensor_variable(s)
        assert v.type == tt.fscalar
        assert np.asarray(run([s], v * 2, np.float32(1.5))) == 3.0

    def test_other_types_refused(self) -> None:
        from theon.graph.type import Generic

        with pytest.raises(TypeError, match="not a TensorType"):
            tt.as_tensor_variable(Generic()("g"))


class TestWeakScalars:
    """Python numbers in expressions follow NumPy 2 (NEP 50) promotion exactly."""

    def test_float32_graph_stays_float32(self) -> None:
        x = tt.fmatrix("x")
        y = (x * 2.0 + 1.5) / 3.0 - 0.5
        z = tt.exp(-(y**2)) * 0.1 + tt.maximum(y, 0.0) + tt.clip(y, 0, 1.5)
        assert y.dtype == "float32" and z.dtype == "float32"
        xv = np.ones((2, 2), dtype="float32")
        out = run([x], z, xv)
        assert out.dtype == np.float32
        assert (tt.fscalar() + 1.0).dtype == "float32"

    def test_examples(self) -> None:
        assert (tt.bvector() + 1).dtype == "int8"
        assert (tt.ivector() + 1.0).dtype == "float64"
        assert (tt.fvector() + 1j).dtype == "complex64"
        assert (tt.tensor("uint8", shape=(None,)) + 3).dtype == "uint8"
        assert (tt.tensor("bool", shape=(None,)) + 1).dtype == "int64"
        assert (tt.tensor("float16", shape=(None,)) * 2).dtype == "float16"
        assert (tt.bvector() / 2).dtype == "float64"

    def test_seed_int_constant_kept_when_harmless(self) -> None:
        e = tt.dscalar("x") + 1
        assert e.owner.inputs[1].type == tt.lscalar
        e32 = tt.fscalar("x") + 1
        assert e32.owner.inputs[1].dtype == "float32" and e32.dtype == "float32"

    def test_overflow(self) -> None:
        with pytest.raises(OverflowError, match="300"):
            tt.bvector() + 300
        with pytest.raises(OverflowError):
            tt.tensor("uint8", shape=(None,)) - (-1)
        # comparisons accept out-of-range Python ints, as NumPy 2 does
        b = tt.bvector("b")
        bv = np.array([1, -5], dtype="int8")
        np.testing.assert_array_equal(run([b], b < 1000, bv), bv < 1000)

    def test_weak_constant_dtype(self) -> None:
        assert weak_constant_dtype(1, ["float64"]) == "int64"
        assert weak_constant_dtype(1, ["float32"]) == "float32"
        assert weak_constant_dtype(1.0, ["int8"]) == "float64"
        assert weak_constant_dtype(1, []) == "int64"
        assert weak_constant_dtype(True, ["int8"]) == "bool"

    def test_switch_condition_not_promoted(self) -> None:
        c = tt.tensor("bool", shape=(None,))
        x = tt.fvector("x")
        assert tt.switch(c, x, 0).dtype == "float32"
        assert tt.where(c, 0.5, x).dtype == "float32"

    @settings(max_examples=150, deadline=None)
    @given(
        dtype=st.sampled_from(ALL_DTYPES),
        value=st.one_of(
            st.booleans(), st.integers(-300, 300), st.floats(-1e3, 1e3, allow_nan=False),
            st.complex_numbers(max_magnitude=10, allow_nan=False, allow_infinity=False),
        ),
        opname=st.sampled_from(["add", "sub", "mul", "true_div", "maximum", "lt", "eq", "pow"]),
        left=st.booleans(),
    )
    def test_matches_numpy(self, dtype: str, value: object, opname: str, left: bool) -> None:
        npf = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "true_div": np.true_divide,
               "maximum": np.maximum, "lt": np.less, "eq": np.equal, "pow": np.power}[opname]
        ttf = getattr(tt, opname)
        arr = np.array([1, 2], dtype=dtype)
        args_np = (value, arr) if left else (arr, value)
        try:
            with np.errstate(all="ignore"):
                ref = npf(*args_np)
        except (TypeError, OverflowError, ValueError) as e:
            ref_err: type[Exception] | None = type(e)
        else:
            ref_err = None
        x = tt.tensor(dtype, shape=(None,), name="x")
        args = (value, x) if left else (x, value)
        if ref_err is not None:
            # NumPy refuses: building (or running) must refuse too
            try:
                expr = ttf(*args)
                run([x], expr, arr)
            except (TypeError, OverflowError, ValueError):
                return
            pytest.fail(f"{opname}{args} should fail like NumPy ({ref_err})")
        expr = ttf(*args)
        assert expr.dtype == str(ref.dtype), (opname, dtype, value, expr.dtype, ref.dtype)
        out = run([x], expr, arr)
        assert out.dtype == ref.dtype
        np.testing.assert_allclose(out, ref, rtol=2e-3 if dtype in ("float16", "complex64")
                                   or "float16" in str(ref.dtype) else 1e-6)


class TestCast:
    def test_cast(self) -> None:
        x = tt.dvector("x")
        y = tt.cast(x, "int8")
        assert y.type == tt.bvector
        np.testing.assert_array_equal(run([x], y, np.array([1.7, -2.5, 300.0])),
                                      np.array([1.7, -2.5, 300.0]).astype("int8"))
        assert tt.cast(x, "float64") is x
        assert tt.cast(x, np.float32).dtype == "float32"
        assert tt.cast(x, tt.fvector).dtype == "float32"
        assert tt.cast(3, "float32").type == tt.fscalar
        with change_flags(floatX="float32"):
            assert tt.cast(x, "floatX").dtype == "float32"

    @pytest.mark.parametrize("src", ["complex64", "complex128"])
    @pytest.mark.parametrize("dst", ["float64", "float32", "int32", "bool"])
    def test_complex_to_real_raises(self, src: str, dst: str) -> None:
        """The issue's example: ``cast(cvector, 'float64')`` dropped the imaginary part
        silently; it raises, naming the variable, as PyTensor does."""
        c = tt.tensor(src, shape=(None,), name="c")
        with pytest.raises(TypeError, match="'c'.*imaginary part.*real()"):
            tt.cast(c, dst)
        with pytest.raises(TypeError, match="imaginary part"):
            c.astype(dst)
        with pytest.raises(TypeError, match="imaginary part"):
            tt.cast(np.array([1 + 2j], dtype=src), dst)
        # what the user means, said explicitly, is fine and matches NumPy
        cv = np.array([1.5 + 2j, -3 - 0.5j], dtype=src)
        for fn, ref in ((tt.real, np.real), (tt.imag, np.imag), (tt.abs, np.abs)):
            got = run([c], tt.cast(fn(c), dst), cv)
            np.testing.assert_array_equal(got, ref(cv).astype(dst))
        # complex to complex is no loss of the imaginary part
        wide = "complex128" if src == "complex64" else "complex64"
        np.testing.assert_allclose(run([c], tt.cast(c, wide), cv), cv.astype(wide), rtol=1e-6)

    def test_gradient_of_a_real_input_through_complex_ops(self) -> None:
        """Gradients reaching a real input from a complex graph take the real part
        explicitly (no silent cast): ``d real(x * (1+2j)) / dx = 1``."""
        import theon

        x = tt.dvector("x")
        g = theon.grad(tt.real(x * (1 + 2j)).sum(), x)
        assert g.dtype == "float64"
        np.testing.assert_array_equal(run([x], g, np.array([1.0, -2.0])), [1.0, 1.0])


class TestScalarTensor:
    def test_round_trip(self) -> None:
        from theon import scalar as ts

        s = ts.float64("s")
        t = tt.tensor_from_scalar(s)
        assert t.type == tt.dscalar
        back = tt.scalar_from_tensor(t * 2)
        assert back.type == ts.float64
        assert run([s], back, 1.5) == 3.0
        with pytest.raises(TypeError, match="0-d"):
            tt.scalar_from_tensor(tt.dvector())


class TestScalarConstantValue:
    def test_values(self) -> None:
        assert get_scalar_constant_value(tt.constant(3)) == 3
        assert get_scalar_constant_value(tt.constant([[2.0, 2.0]])) == 2.0
        c = tt.constant(2.0)
        assert get_scalar_constant_value(c.dimshuffle("x", "x")) == 2.0
        assert get_scalar_constant_value(tt.cast(c, "int32")).dtype == np.int32
        assert get_scalar_constant_value(5) == 5
        assert get_scalar_constant_value(tt.zeros_like(tt.dmatrix())) == 0.0
        with pytest.raises(NotScalarConstantError):
            get_scalar_constant_value(tt.dscalar())
        with pytest.raises(NotScalarConstantError):
            get_scalar_constant_value(tt.constant([1.0, 2.0]))


class TestAsTensorVariableDispatch:
    """``_as_tensor_variable``: PyTensor's extension point of ``as_tensor_variable``."""

    def test_a_registered_converter_is_used(self) -> None:
        from theon.tensor.basic import _as_tensor_variable

        class Table:  # a new container type, as pandas' objects are for PyMC
            def __init__(self, rows: list[list[float]]) -> None:
                self.rows = rows

            def to_numpy(self) -> np.ndarray:
                return np.asarray(self.rows)

        @_as_tensor_variable.register(Table)
        def _table(x: Table, name, ndim, **kwargs):
            return tt.as_tensor_variable(x.to_numpy(), name, ndim, **kwargs)

        t = Table([[1.0, 2.0], [3.0, 4.0]])
        v = tt.as_tensor_variable(t, name="t")
        assert isinstance(v, tt.TensorConstant) and v.name == "t"
        np.testing.assert_array_equal(v.data, t.to_numpy())
        assert tt.as_tensor_variable(t, dtype="float32").dtype == "float32"
        np.testing.assert_array_equal((tt.dmatrix("m") + t).eval({"m": np.ones((2, 2))}),
                                      t.to_numpy() + 1)

    def test_builtin_conversions_are_unchanged(self) -> None:
        from theon import scalar as ts

        x = tt.dvector("x")
        assert tt.as_tensor_variable(x) is x
        assert tt.as_tensor_variable(x.owner if x.owner else tt.exp(x).owner).owner.op == tt.exp
        assert tt.as_tensor_variable(ts.float32("s")).type == tt.fscalar
        assert tt.as_tensor_variable([x[0], 2.0]).type.shape == (2,)
        assert tt.as_tensor_variable(x, ndim=2).type.shape == (1, None)
        assert tt.as_tensor_variable(x, allow_xtensor_conversion=True) is x
        with pytest.raises(TypeError, match="unexpected keyword arguments \\['colour'\\]"):
            tt.as_tensor_variable(3.0, colour="red")
        with pytest.raises(TypeError, match="not a TensorType"):
            tt.as_tensor_variable(tt.type_other.NoneConst)
        with pytest.raises(TypeError, match="2 outputs"):
            from theon.graph.basic import Apply
            from theon.graph.op import Op

            class Two(Op):
                __props__ = ()

                def make_node(self, a):
                    return Apply(self, [a], [a.type(), a.type()])

            tt.as_tensor_variable(Two().make_node(x))


class TestUnderlyingScalarConstantValue:
    """Compared with the values NumPy computes for the same expressions."""

    def test_looks_through_shapes_allocs_and_elemwise(self) -> None:
        from theon.tensor.basic import get_underlying_scalar_constant_value as g

        x = tt.tensor("float64", shape=(None, 3, 4), name="x")
        assert g(x.shape[1]) == 3 and g(x.shape[-1]) == 4
        assert g(x.shape[1] * x.shape[2] - 2) == 3 * 4 - 2
        assert g(tt.alloc(2.5, x.shape[0], 3)) == 2.5
        assert g(tt.specify_shape(tt.constant(7), ())) == 7
        np.testing.assert_allclose(g(tt.exp(tt.constant(1.0)) + 1), np.exp(1.0) + 1)
        assert g(tt.eq(x.shape[2], 4)) == np.True_
        assert g(tt.constant([3, 3, 3])) == 3
        assert g(tt.as_tensor_variable([x.shape[1], 5])[1]) == 5
        assert g(tt.constant([1, 2, 9])[2]) == 9
        assert g(np.float32(1.5)).dtype == np.float32

    def test_what_is_not_known_raises_or_is_returned(self) -> None:
        from theon.tensor.basic import get_underlying_scalar_constant_value as g
        from theon.tensor.exceptions import NotScalarConstantError as Exc
        from theon.tensor.type_other import NoneConst

        x = tt.tensor("float64", shape=(None, 3), name="x")
        for v in (x.shape[0], tt.constant([1.0, 2.0]), tt.dscalar("s") + 1, NoneConst,
                  tt.alloc(tt.dscalar("t"), 2)):
            with pytest.raises(Exc):
                g(v)
        assert g(x.shape[0], raise_not_constant=False) is not None
        assert g(tt.exp(tt.constant(0.0)), only_process_constants=True,
                 raise_not_constant=False).owner is not None
        deep = tt.constant(1.0)
        for _ in range(5):
            deep = deep + 1
        assert g(deep) == 6.0
        with pytest.raises(Exc):
            g(deep, max_recur=2)

    def test_exception_is_the_tensor_exceptions_class(self) -> None:
        import theon.tensor.exceptions as exc

        assert NotScalarConstantError is exc.NotScalarConstantError
        assert tt.NotScalarConstantError is exc.NotScalarConstantError
        assert issubclass(exc.NotScalarConstantError, Exception)


def test_pytensor_basic_names_come_from_their_modules() -> None:
    import importlib

    import theon.tensor.basic as basic
    from theon.tensor import creation, joining

    shape = importlib.import_module("theon.tensor.shape")

    assert basic.Alloc is creation.Alloc and basic.AllocEmpty is creation.AllocEmpty
    assert basic.Join is joining.Join and basic.Split is joining.Split
    assert basic.MakeVector is shape.MakeVector and basic.switch is tt.switch
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        basic.nothing_here  # noqa: B018
