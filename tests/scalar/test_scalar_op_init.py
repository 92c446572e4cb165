"""``ScalarOp(output_types_preference, name)``: PyTensor's constructor, as PyMC's ``I1e``
and ``I0e`` use it (a subclass defining only ``impl``)."""

from __future__ import annotations

import pickle

import numpy as np
import scipy.special

import theon
import theon.tensor as tt
from theon.scalar.basic import UnaryScalarOp, upgrade_to_float, upgrade_to_float_nocomplex
from theon.tensor.elemwise import Elemwise


class I1e(UnaryScalarOp):
    """The exponentially scaled Bessel function of order 1, written the PyTensor way."""

    def impl(self, x: np.ndarray) -> np.ndarray:
        return np.asarray(scipy.special.i1e(x))


def test_constructor_sets_the_type_rule_and_name() -> None:
    op = I1e(upgrade_to_float_nocomplex, name="i1e")
    assert str(op) == "i1e" and op.output_types_preference is upgrade_to_float_nocomplex
    x = tt.ivector("x")
    y = Elemwise(op, name="Elemwise{i1e,no_inplace}")(x)
    assert y.dtype == "float64"  # int32 upgraded to a float by the given rule
    xv = np.array([-3, 0, 1, 40], dtype="int32")
    np.testing.assert_allclose(theon.function([x], y)(xv), scipy.special.i1e(xv), rtol=1e-12)


def test_constructor_arguments_survive_pickling() -> None:
    op = I1e(upgrade_to_float, name="i1e")
    back = pickle.loads(pickle.dumps(op))
    assert back.name == "i1e" and back.output_types_preference is upgrade_to_float
    assert back == op


def test_no_arguments_keeps_the_class_defaults() -> None:
    class Twice(UnaryScalarOp):
        name = "twice"
        output_types_preference = upgrade_to_float

        def impl(self, x: np.ndarray) -> np.ndarray:
            return np.asarray(2 * x)

    op = Twice()
    assert str(op) == "twice" and "_init_args" not in op.__dict__
