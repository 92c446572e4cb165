"""ScalarType filtering, constants, operators and NEP 50 promotion of Python numbers."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import theon
from theon import scalar as ts
from theon.graph.basic import Variable
from theon.scalar.type import all_dtypes

from .opspec import compile_fn


class TestFilter:
    def test_exact_dtype_passes_through(self) -> None:
        v = np.float32(1.5)
        assert ts.float32.filter(v) is v
        assert ts.float32.filter(v, strict=True) is v

    def test_zero_d_array_becomes_scalar(self) -> None:
        r = ts.int16.filter(np.array(3, dtype="int16"), strict=True)
        assert type(r) is np.int16 and r == 3

    def test_strict_refuses_other_dtypes(self) -> None:
        with pytest.raises(TypeError, match=r"expected a float32 scalar.*float64"):
            ts.float32.filter(np.float64(1.0), strict=True)
        with pytest.raises(TypeError, match="float64"):
            ts.float64.filter(1.0, strict=True)

    @pytest.mark.parametrize("dtype", all_dtypes)
    def test_result_has_exact_dtype(self, dtype: str) -> None:
        r = ts.get_scalar_type(dtype).filter(1)
        assert type(r) is np.dtype(dtype).type

    def test_exact_conversions_allowed(self) -> None:
        assert ts.int8.filter(3.0) == 3
        assert ts.int8.filter(np.int64(-128)) == -128
        assert ts.uint8.filter(True) == 1
        assert ts.float64.filter(np.int32(7)) == 7.0
        assert ts.float32.filter(np.float64(0.5)) == 0.5
        assert ts.complex64.filter(1 + 2j) == 1 + 2j
        assert ts.float64.filter(complex(2.0, 0.0)) == 2.0

    def test_lossy_conversions_refused(self) -> None:
        with pytest.raises(TypeError, match=r"ScalarType\(int8\) cannot hold 3.5"):
            ts.int8.filter(3.5)
        with pytest.raises(TypeError, match="int8"):
            ts.int8.filter(300)
        with pytest.raises(TypeError, match="uint8"):
            ts.uint8.filter(-1)
        with pytest.raises(TypeError, match="float32"):
            ts.float32.filter(np.float64(0.1))
        with pytest.raises(TypeError, match="float64"):
            ts.float64.filter(1 + 1j)
        with pytest.raises(TypeError):
            ts.int64.filter(float("nan"))
        with pytest.raises(TypeError):
            ts.float64.filter(2**60 + 1)  # not representable as float64

    def test_allow_downcast(self) -> None:
        assert ts.int8.filter(3.7, allow_downcast=True) == 3
        assert ts.float32.filter(np.float64(0.1), allow_downcast=True) == np.float32(0.1)
        assert ts.uint8.filter(257, allow_downcast=True) == 1

    def test_python_float_may_round_to_narrow_float(self) -> None:
        # allow_downcast=None: Python floats are weak, as in NumPy
        assert ts.float32.filter(0.1) == np.float32(0.1)
        with pytest.raises(TypeError):
            ts.float32.filter(0.1, allow_downcast=False)

    def test_non_scalars_refused(self) -> None:
        with pytest.raises(TypeError, match=r"shape \(2,\)"):
            ts.float64.filter([1.0, 2.0])
        with pytest.raises(TypeError, match="str"):
            ts.float64.filter("1.0")
        with pytest.raises(TypeError, match="symbolic"):
            ts.float64.filter(ts.float64("x"))

    def test_is_valid_value(self) -> None:
        assert ts.float64.is_valid_value(np.float64(1))
        assert not ts.float64.is_valid_value(1.0)
        assert not ts.float64.is_valid_value(np.float32(1))

    @settings(max_examples=50, deadline=None)
    @given(st.integers(-(2**70), 2**70), st.sampled_from(all_dtypes[:9]))
    def test_int_filter_matches_range(self, v: int, dtype: str) -> None:
        info = np.iinfo(dtype) if dtype != "bool" else None
        t = ts.get_scalar_type(dtype)
        ok = v in (0, 1) if info is None else info.min <= v <= info.max
        if ok:
            assert t.filter(v) == v
        else:
            with pytest.raises(TypeError):
                t.filter(v)


class TestTypeIdentity:
    def test_equality_and_hash(self) -> None:
        assert ts.ScalarType("float64") == ts.float64
        assert hash(ts.ScalarType("float64")) == hash(ts.float64)
        assert ts.ScalarType("float32") != ts.float64
        assert ts.get_scalar_type(np.float64) is ts.float64
        assert str(ts.float64) == "ScalarType(float64)"

    def test_unsupported_dtype(self) -> None:
        with pytest.raises(TypeError, match="datetime64"):
            ts.ScalarType("datetime64[s]")

    def test_pickle(self) -> None:
        assert pickle.loads(pickle.dumps(ts.int8)) == ts.int8

    def test_values_eq(self) -> None:
        assert ts.float64.values_eq(np.float64("nan"), np.float64("nan"))
        assert not ts.float64.values_eq(np.float64(1), np.float64(1 + 1e-12))
        assert ts.float64.values_eq_approx(np.float64(1), np.float64(1 + 1e-12))
        assert not ts.float64.values_eq_approx(np.float64(1), np.float64(1.1))
        assert not ts.float64.values_eq_approx(np.float64("inf"), np.float64(1e308))

    def test_constant_signature_separates_signed_zero(self) -> None:
        a, b = ts.constant(0.0), ts.constant(-0.0)
        assert a.signature() != b.signature()
        assert ts.constant(np.nan).signature() == ts.constant(np.nan).signature()
        assert ts.constant(1.0).signature() != ts.constant(1.0, dtype="float32").signature()


class TestVariables:
    def test_make_variable(self) -> None:
        x = ts.float64("x")
        assert isinstance(x, ts.ScalarVariable) and x.name == "x" and x.dtype == "float64"

    def test_constant_dtype_inference(self) -> None:
        assert ts.constant(2).type == ts.int64
        assert ts.constant(2.0).type == ts.float64
        assert ts.constant(True).type == ts.bool_
        assert ts.constant(1j).type == ts.complex128
        assert ts.constant(np.float32(1)).type == ts.float32
        c = ts.constant(2, dtype="float32")
        assert type(c.data) is np.float32 and str(c) == "2.0"

    def test_as_scalar(self) -> None:
        x = ts.float64("x")
        assert ts.as_scalar(x) is x
        assert ts.as_scalar(3.0).type == ts.float64
        with pytest.raises(TypeError, match="Generic"):
            ts.as_scalar(theon.Generic()("g"))

    def test_operators_build_ops(self) -> None:
        x, y = ts.float64("x"), ts.float64("y")
        cases = {
            x + y: "add",
            1 + x: "add",
            x - y: "sub",
            2 - x: "sub",
            x * y: "mul",
            x / y: "true_div",
            1 / x: "true_div",
            x // y: "int_div",
            x % y: "mod",
            x**y: "pow",
            2**x: "pow",
            -x: "neg",
            abs(x): "abs",
            x < y: "lt",
            x <= y: "le",
            x > y: "gt",
            x >= y: "ge",
        }
        for v, name in cases.items():
            assert str(v.owner.op) == name
        b = ts.bool_("b")
        assert str((b & b).owner.op) == "and_"
        assert str((b | True).owner.op) == "or_"
        assert str((b ^ b).owner.op) == "xor"
        assert str((~b).owner.op) == "invert"
        assert str(x.astype("int32").owner.op) == "convert_to_int32"
        # reflected operand order
        z = 2 - x
        assert z.owner.inputs[1] is x

    def test_no_truth_value(self) -> None:
        x = ts.float64("x")
        with pytest.raises(TypeError, match="truth value"):
            bool(x < 1.0)

    def test_identity_comparison_not_overloaded(self) -> None:
        x = ts.float64("x")
        assert x == x and x != ts.float64("x")
        assert isinstance(hash(x), int)
        assert isinstance(x, Variable)


class TestPromotion:
    @pytest.mark.parametrize(
        ("dtype", "value", "expected"),
        [
            ("float32", 1.5, "float32"),
            ("float16", 2.0, "float16"),
            ("int8", 1.5, "float64"),
            ("int8", 3, "int8"),
            ("uint8", 3, "uint8"),
            ("bool", 3, "int64"),
            ("bool", True, "bool"),
            ("float32", 2, "float32"),
            ("complex64", 1.5, "complex64"),
            ("float32", 1j, "complex64"),
            ("int32", 1j, "complex128"),
        ],
    )
    def test_python_numbers_are_weak(self, dtype: str, value: object, expected: str) -> None:
        x = ts.get_scalar_type(dtype)("x")
        z = ts.add(x, value)
        assert z.type.dtype == expected
        assert z.type.dtype == str(np.add(np.zeros(1, dtype), value).dtype)
        # the reflected form too
        assert ts.add(value, x).type.dtype == expected

    def test_numpy_scalars_are_strong(self) -> None:
        x = ts.float32("x")
        assert (x + np.float64(1.0)).type == ts.float64

    def test_all_python_numbers(self) -> None:
        assert ts.add(1, 2).type == ts.int64
        assert ts.add(1, 2.0).type == ts.float64
        assert ts.true_div(1, 2).type == ts.float64

    def test_out_of_range_python_int(self) -> None:
        x = ts.int8("x")
        with pytest.raises(OverflowError, match="1000.*int8.*add"):
            x + 1000
        # comparisons accept it, as NumPy 2 does
        f = compile_fn([x], [x < 1000, x > -1000, ts.eq(x, 1000)])
        assert [bool(v) for v in f(np.int8(5))] == [True, True, False]

    def test_upcast(self) -> None:
        assert ts.upcast("int8", "uint8") == "int16"
        assert ts.upcast("int64", "uint64") == "float64"
        assert ts.upcast("float32", "int32") == "float64"
        assert ts.upcast("bool") == "bool"
