"""TensorType: construction, filter, relations between types, and the shortcuts."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import theon.tensor as tt
from theon.config import change_flags
from theon.tensor.type import TensorType


class TestConstruction:
    def test_shape_and_broadcastable(self) -> None:
        t = TensorType("float64", shape=(None, 1, 3))
        assert t.shape == (None, 1, 3)
        assert t.broadcastable == (False, True, False)
        assert t.ndim == 3
        assert t.dtype == "float64"

    def test_seed_broadcastable_spelling(self) -> None:
        t = TensorType(dtype="float64", broadcastable=(False, False))
        assert t == tt.dmatrix
        assert t.shape == (None, None)
        assert TensorType("int32", broadcastable=(True, False)) == tt.irow

    def test_dtype_normalized(self) -> None:
        assert TensorType(np.float32, shape=()).dtype == "float32"
        assert TensorType(np.dtype("int8"), shape=()).dtype == "int8"
        with change_flags(floatX="float32"):
            assert TensorType("floatX", shape=()).dtype == "float32"

    def test_bad_arguments(self) -> None:
        with pytest.raises(TypeError, match="not a NumPy dtype"):
            TensorType("nonsense", shape=())
        with pytest.raises(TypeError, match="unsupported dtype"):
            TensorType("U3", shape=())
        with pytest.raises(TypeError, match="needs a shape"):
            TensorType("float64")
        with pytest.raises(TypeError, match="ints >= 0 or None"):
            TensorType("float64", shape=(-1,))
        with pytest.raises(TypeError, match="ints >= 0 or None"):
            TensorType("float64", shape=(1.0,))
        with pytest.raises(TypeError, match="does not agree"):
            TensorType("float64", shape=(3,), broadcastable=(True,))

    def test_identity_is_props(self) -> None:
        a = TensorType("float64", shape=(None, 3))
        b = TensorType("float64", shape=[None, 3])
        assert a == b and hash(a) == hash(b)
        assert a != TensorType("float32", shape=(None, 3))
        assert a != TensorType("float64", shape=(None, None))
        assert TensorType.__props__ == ("dtype", "shape")

    def test_repr(self) -> None:
        assert repr(tt.dmatrix) == "TensorType(float64, shape=(None, None))"
        assert str(tt.irow) == "TensorType(int32, shape=(1, None))"
        assert str(tt.fvector) == "TensorType(float32, shape=(None,))"
        assert str(tt.lscalar) == "TensorType(int64, shape=())"
        assert str(tt.irow()) == "<TensorType(int32, shape=(1, None))>"

    def test_pickle(self) -> None:
        t = TensorType("int16", shape=(2, None))
        assert pickle.loads(pickle.dumps(t)) == t

    def test_clone(self) -> None:
        assert tt.dmatrix.clone(dtype="int8") == tt.bmatrix
        assert tt.dmatrix.clone(shape=(1, None)) == tt.drow
        assert tt.dmatrix.clone(broadcastable=(False, True)) == tt.dcol


class TestShortcuts:
    @pytest.mark.parametrize(
        "prefix,dtype",
        [("b", "int8"), ("w", "int16"), ("i", "int32"), ("l", "int64"), ("f", "float32"),
         ("d", "float64"), ("c", "complex64"), ("z", "complex128")],
    )
    def test_prefixes(self, prefix: str, dtype: str) -> None:
        shapes = {"scalar": (), "vector": (None,), "matrix": (None, None), "row": (1, None),
                  "col": (None, 1), "tensor3": (None,) * 3, "tensor4": (None,) * 4,
                  "tensor5": (None,) * 5}
        for kind, shape in shapes.items():
            t = getattr(tt, prefix + kind)
            assert isinstance(t, TensorType)
            assert t.dtype == dtype and t.shape == shape
            v = t("v")
            assert isinstance(v, tt.TensorVariable) and v.type is t and v.name == "v"
            assert t().name is None

    def test_floatx_factories_read_config_at_call(self) -> None:
        assert tt.matrix().type == tt.dmatrix
        with change_flags(floatX="float32"):
            assert tt.matrix("m").type == tt.fmatrix
            assert tt.scalar().dtype == "float32"
            assert tt.row().type.shape == (1, None)
        assert tt.vector(dtype="int32").type == tt.ivector
        assert tt.tensor3(shape=(2, None, 3)).type.shape == (2, None, 3)
        with pytest.raises(ValueError, match="entries"):
            tt.matrix(shape=(2,))

    def test_tensor(self) -> None:
        x = tt.tensor("int32", shape=(None, 3), name="x")
        assert x.type == TensorType("int32", (None, 3)) and x.name == "x"
        assert tt.tensor(shape=(2,)).dtype == "float64"
        assert tt.tensor(dtype="float32", broadcastable=(True,)).type.shape == (1,)
        with pytest.raises(TypeError, match="shape="):
            tt.tensor("float64")

    def test_plurals(self) -> None:
        a, b = tt.dmatrices("a", "b")
        assert a.name == "a" and b.type == tt.dmatrix
        x, y, z = tt.fvectors("x y z")
        assert (x.name, y.name, z.name) == ("x", "y", "z") and z.type == tt.fvector
        many = tt.iscalars(3)
        assert len(many) == 3 and all(v.type == tt.iscalar for v in many)
        assert tt.scalars("s").name == "s"


class TestFilter:
    def test_fast_path_returns_same_array(self) -> None:
        a = np.zeros((2, 3))
        assert tt.dmatrix.filter(a) is a
        assert tt.dmatrix.filter(a, strict=True) is a

    def test_seed_irow_constraints(self) -> None:
        # seed 002: irow holds int32 arrays of shape 1xN
        good = np.zeros((1, 5), dtype="int32")
        assert tt.irow.filter(good) is good
        with pytest.raises(TypeError, match=r"expected dtype int32, ndim 2, shape \(1, None\)"):
            tt.irow.filter(np.zeros((2, 5), dtype="int32"))
        with pytest.raises(TypeError, match="ndim"):
            tt.irow.filter(np.zeros(5, dtype="int32"))
        assert tt.irow.is_valid_value(good)
        assert not tt.irow.is_valid_value(np.zeros((2, 5), dtype="int32"))
        assert not tt.irow.is_valid_value(np.zeros((1, 5), dtype="int64"))

    def test_seed_dmatrix_constraints(self) -> None:
        assert tt.dmatrix.is_valid_value(np.zeros((4, 7)))
        assert not tt.dmatrix.is_valid_value(np.zeros((4, 7), dtype="float32"))
        assert not tt.dmatrix.is_valid_value(np.zeros(4))
        assert not tt.dmatrix.is_valid_value([[1.0]])

    def test_exact_casts_allowed(self) -> None:
        r = tt.dmatrix.filter([[1, 2], [3, 4]])
        assert r.dtype == np.float64 and r.tolist() == [[1, 2], [3, 4]]
        assert tt.dvector.filter(np.arange(3, dtype="int32")).dtype == np.float64
        assert tt.ivector.filter([1, 2]).dtype == np.int32  # values fit
        assert tt.bscalar.filter(np.int64(5)).dtype == np.int8
        assert tt.dscalar.filter(3).shape == ()

    def test_python_float_into_float32(self) -> None:
        assert tt.fscalar.filter(0.1).dtype == np.float32
        assert tt.fvector.filter([0.1, 0.2]).dtype == np.float32

    def test_lossy_refused_with_clear_message(self) -> None:
        with pytest.raises(TypeError) as e:
            tt.ivector.filter(np.array([1.5, 2.0]))
        msg = str(e.value)
        assert "int32" in msg and "float64" in msg and "ndim 1" in msg and "shape (2,)" in msg
        with pytest.raises(TypeError, match="may lose"):
            tt.fvector.filter(np.zeros(3))
        with pytest.raises(TypeError, match="exactly"):
            tt.ivector.filter([1.5])
        with pytest.raises(TypeError):
            tt.bscalar.filter(300)
        with pytest.raises(TypeError):
            tt.fscalar.filter(0.1, allow_downcast=False)

    def test_allow_downcast(self) -> None:
        r = tt.ivector.filter(np.array([1.7, -2.2]), allow_downcast=True)
        assert r.dtype == np.int32 and r.tolist() == [1, -2]
        assert tt.fvector.filter(np.zeros(3), allow_downcast=True).dtype == np.float32

    def test_strict(self) -> None:
        with pytest.raises(TypeError, match="strict"):
            tt.dvector.filter([1.0, 2.0], strict=True)
        with pytest.raises(TypeError, match="strict"):
            tt.dvector.filter(np.zeros(2, dtype="float32"), strict=True)

    def test_static_shape_checked(self) -> None:
        t = TensorType("float64", shape=(None, 3))
        t.filter(np.zeros((5, 3)))
        with pytest.raises(TypeError, match="shape"):
            t.filter(np.zeros((5, 4)))
        with pytest.raises(TypeError, match="shape"):
            t.filter([[1.0, 2.0]])

    def test_non_numeric_refused(self) -> None:
        with pytest.raises(TypeError):
            tt.dvector.filter(["a", "b"])
        with pytest.raises(TypeError):
            tt.dvector.filter(tt.dvector("v"))

    def test_subclass_becomes_ndarray(self) -> None:
        class Sub(np.ndarray):
            pass

        a = np.zeros(3).view(Sub)
        r = tt.dvector.filter(a)
        assert type(r) is np.ndarray

    def test_nan_in_exact_check(self) -> None:
        r = tt.fvector.filter(np.array([np.nan, 1.0], dtype="float16"))
        assert np.isnan(r[0]) and r.dtype == np.float32


class TestValuesAndRelations:
    def test_values_eq(self) -> None:
        t = tt.dvector
        assert t.values_eq(np.array([1.0, np.nan]), np.array([1.0, np.nan]))
        assert not t.values_eq(np.array([1.0]), np.array([1.0 + 1e-12]))
        assert not t.values_eq(np.zeros(2), np.zeros(3))

    def test_values_eq_approx(self) -> None:
        t = tt.dvector
        assert t.values_eq_approx(np.array([1.0, np.nan, np.inf]),
                                  np.array([1.0 + 1e-10, np.nan, np.inf]))
        assert not t.values_eq_approx(np.array([1.0]), np.array([1.1]))
        assert not t.values_eq_approx(np.array([np.inf]), np.array([-np.inf]))
        assert tt.fvector.values_eq_approx(np.float32([1.0]), np.float32([1.00001]))
        assert tt.ivector.values_eq_approx(np.int32([1, 2]), np.int32([1, 2]))
        assert not tt.ivector.values_eq_approx(np.int32([1, 2]), np.int32([1, 3]))

    def test_constant_signature(self) -> None:
        t = tt.dvector
        a = t.constant_signature(np.array([1.0, 2.0]))
        assert a == t.constant_signature(np.array([1.0, 2.0]))
        assert a != t.constant_signature(np.array([1.0, 3.0]))
        assert a != t.constant_signature(np.array([[1.0, 2.0]]))
        big = np.arange(1000.0)
        assert t.constant_signature(big) == t.constant_signature(big.copy())
        other = big.copy()
        other[500] = -1
        assert t.constant_signature(big) != t.constant_signature(other)
        hash(t.constant_signature(big))

    def test_is_super_and_convert_variable(self) -> None:
        specific = TensorType("float64", shape=(3,))
        assert tt.dvector.is_super(specific)
        assert not specific.is_super(tt.dvector)
        assert not tt.dvector.is_super(tt.fvector)
        y = specific("y")
        assert tt.dvector.convert_variable(y) is y
        assert tt.fvector.convert_variable(y) is None
        assert tt.dmatrix.convert_variable(y) is None
        v = tt.dvector("v")
        conv = specific.convert_variable(v)
        assert conv is not None and conv.type == specific
        assert TensorType("float64", (4,)).convert_variable(specific("z")) is None

    def test_filter_variable(self) -> None:
        c = tt.dvector.filter_variable([1, 2])
        assert isinstance(c, tt.TensorConstant) and c.type == tt.dvector
        with pytest.raises(TypeError, match="cannot convert"):
            tt.dvector.filter_variable(tt.fvector("f"))


class _PickledT(TensorType):
    """A TensorType subclass at module level (so that it pickles)."""


class TestSubclassInterning:
    """Interning is keyed by the class too: a subclass gets its own instances, and one
    created first does not change what ``TensorType(...)`` returns (issue 11, item 12)."""

    @pytest.mark.parametrize("subclass_first", [True, False])
    def test_both_orders(self, subclass_first: bool) -> None:
        class MyT(TensorType):
            pass

        shape = (None, 7) if subclass_first else (7, None)  # fresh keys for each order
        if subclass_first:
            sub, plain = MyT("float64", shape), TensorType("float64", shape)
        else:
            plain, sub = TensorType("float64", shape), MyT("float64", shape)
        assert type(sub) is MyT and type(plain) is TensorType
        assert sub is MyT("float64", shape) and plain is TensorType("float64", shape)
        assert sub is MyT(np.float64, list(shape))  # the other spellings intern too
        assert sub != plain and plain == TensorType("float64", shape)
        assert type(MyT("float64", shape)) is MyT
        assert type(TensorType("float64", shape)) is TensorType

    def test_subclass_keeps_its_class(self) -> None:
        import pickle

        t = _PickledT("float32", (3,))
        assert type(t.clone(dtype="int8")) is _PickledT
        back = pickle.loads(pickle.dumps(t))
        assert type(back) is _PickledT and back is t  # unpickling interns again
        assert str(t) == "_PickledT(float32, shape=(3,))"
        assert type(t("v").type) is _PickledT
        assert pickle.loads(pickle.dumps(tt.dvector.clone())) is TensorType("float64", (None,))

    def test_subclass_with_more_props_is_not_interned(self) -> None:
        class Tagged(TensorType):
            __props__ = ("dtype", "shape", "tag")

            def __init__(self, dtype: str, shape: tuple[int | None, ...], tag: str) -> None:
                super().__init__(dtype, shape)
                self.tag = tag

        a, b = Tagged("float64", (None,), "a"), Tagged("float64", (None,), "b")
        assert a is not b and (a.tag, b.tag) == ("a", "b")
        assert type(TensorType("float64", (None,))) is TensorType
