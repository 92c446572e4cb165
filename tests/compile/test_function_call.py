"""Function's generated call: every compiled function is a plain Function instance."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

import numpy as np
import pytest

import theon
import theon.tensor as tt
from theon.compile.compiled import Function
from theon.compile.io import In
from theon.graph.fg import MissingInputError


def test_compiled_functions_share_the_function_class():
    x, y = tt.dscalar("x"), tt.dvector("y")
    fs = [
        theon.function([x], x + 1.0),
        theon.function([x, y], x * y),
        theon.function([In(x, value=2.0)], x * 3.0),
        theon.function([], tt.constant(1.0)),
    ]
    assert all(type(f) is Function for f in fs)
    assert fs[0](1.0) == 2.0
    np.testing.assert_array_equal(fs[1](2.0, [1.0, 3.0]), [2.0, 6.0])
    np.testing.assert_array_equal(fs[1](y=[1.0], x=4.0), [4.0])
    assert fs[2]() == 6.0 and fs[2](x=1.0) == 3.0
    assert fs[3]() == 1.0


def test_argument_errors_name_the_input():
    x, y = tt.dscalar("x"), tt.dvector("y")
    f = theon.function([x, y], x * y)
    with pytest.raises(TypeError, match="missing argument 'y'"):
        f(1.0)
    with pytest.raises(TypeError, match="takes 2 arguments"):
        f(1.0, [1.0], 3)
    with pytest.raises(TypeError, match=r"bad argument 1 \(y\)"):
        f(1.0, "text")
    with pytest.raises(TypeError, match="given both by position and by keyword"):
        f(1.0, [1.0], x=2.0)


def test_changing_trust_input_regenerates_the_call():
    x = tt.dvector("x")
    f = theon.function([x], x * 2.0)
    assert "_f0" in f._call_source
    f.trust_input = True
    assert "_f0" not in f._call_source
    np.testing.assert_array_equal(f(np.ones(2)), [2.0, 2.0])


@pytest.mark.parametrize("linker", ["py", "vm"])
@pytest.mark.parametrize("static", [False, True], ids=["unknown length", "static length"])
def test_trust_input_names_an_argument_that_is_not_of_its_type(linker, static):
    """Issue 29 item 13: with trust_input=True a list is passed on unconverted (no check
    on the fast path); when the call then fails, the error names the argument, its type
    and what to do, with the original error as its cause."""
    x = tt.TensorType("float64", shape=(2,) if static else (None,))("x")
    y = tt.dvector("y")
    f = theon.function([x, y], (x * y).sum() + tt.shape(x)[0], trust_input=True,
                       mode=theon.Mode(linker=linker), name="f")
    assert f(np.array([1.0, 2.0]), np.array([3.0, 4.0])) == 13.0  # NumPy: 1*3 + 2*4 + 2
    with pytest.raises(TypeError) as err:
        f(np.array([1.0, 2.0]), [3.0, 4.0])
    msg = str(err.value)
    assert msg.startswith("argument 1 (y) of function 'f' is list [3.0, 4.0], not a value of "
                          "its type TensorType(float64, shape=(None,)): with trust_input=True")
    assert "the call failed with " in msg and "the input 'y' was built at" in msg
    assert err.value.__cause__ is not None
    if static:
        # nothing reads x's shape at run time, and NumPy's ufuncs take the list: it works
        assert f(x=[1.0, 2.0], y=np.array([3.0, 4.0])) == 13.0
    else:
        with pytest.raises(TypeError, match=r"^argument 0 \(x\) of function 'f' is list"):
            f(x=[1.0, 2.0], y=np.array([3.0, 4.0]))


def test_trust_input_leaves_other_errors_alone():
    """An error with arguments of the right types is not blamed on them."""
    x, y = tt.dvector("x"), tt.dvector("y")
    f = theon.function([x, y], x + y, trust_input=True)
    with pytest.raises(ValueError) as err:
        f(np.ones(2), np.ones(3))
    assert "argument" not in str(err.value) and "trust_input" not in str(err.value)


def test_a_function_is_freed_without_the_cyclic_collector():
    """The generated call reaches its Function weakly: no cycle keeps it alive."""
    x = tt.dscalar("x")
    f = theon.function([x], x + 1.0)
    ref = weakref.ref(f)
    was = gc.isenabled()
    gc.disable()
    try:
        del f
        assert ref() is None
    finally:
        if was:
            gc.enable()


def _line_of(marker: str) -> int:
    """The number of the (only) line of this file ending with ``# marker``."""
    lines = Path(__file__).read_text().splitlines()
    found = [k for k, ln in enumerate(lines, 1) if ln.rstrip().endswith(f"# {marker}")]
    assert len(found) == 1, marker
    return found[0]


def test_argument_errors_name_where_the_input_was_built():
    x = tt.dvector("x")  # ARG-X
    y = tt.dmatrix("y")  # ARG-Y
    f = theon.function([x, y], x + y.sum())
    name = "test_argument_errors_name_where_the_input_was_built"
    where_x = f"the input 'x' was built at {__file__}:{_line_of('ARG-X')} in {name}"
    where_y = f"the input 'y' was built at {__file__}:{_line_of('ARG-Y')} in {name}"
    with pytest.raises(TypeError, match=r"bad argument 0 \(x\).*ndim 1") as info:  # ndim
        f(np.ones((2, 2)), np.ones((2, 2)))
    assert str(info.value).endswith(where_x)
    with pytest.raises(TypeError, match=r"bad argument 1 \(y\)") as info:  # dtype
        f(np.ones(2), np.ones((2, 2), dtype=complex))
    assert str(info.value).endswith(where_y)
    with pytest.raises(TypeError, match="missing argument 'y'") as info:  # missing
        f(np.ones(2))
    assert str(info.value).endswith(where_y)
    with pytest.raises(TypeError, match="missing arguments 'x', 'y'") as info:
        f()
    assert where_x in str(info.value) and where_y in str(info.value)


def test_a_static_shape_error_names_where_the_input_was_built():
    x = tt.dvector("x", shape=(3,))  # SHAPED
    f = theon.function([x], x * 2)
    with pytest.raises(TypeError, match=r"bad argument 0 \(x\)") as info:
        f(np.ones(4))
    assert str(info.value).endswith(f"{__file__}:{_line_of('SHAPED')} in "
                                     "test_a_static_shape_error_names_where_the_input_was_built")


def test_input_variables_record_the_users_line():
    from theon.graph.type import Generic
    from theon.scalar import float64

    made = [tt.dvector("a"), tt.matrix("b"), tt.tensor("c", shape=(None,))]  # M1
    made += [*tt.dmatrices("d", "e"), Generic()("g"), float64("s")]  # M2
    for k, v in enumerate(made):
        (frame,) = v.tag.trace
        assert frame[:3] == (__file__, _line_of("M1" if k < 3 else "M2"),
                             "test_input_variables_record_the_users_line"), v
    # an unnamed variable records nothing (theon makes thousands of them compiling)
    assert "trace" not in tt.dvector().tag.__dict__
    # an Op's output records the line of the Op call, not of its make_node
    y = tt.exp(made[0])  # OP-CALL
    assert y.tag.trace[0][1] == _line_of("OP-CALL")


def test_a_missing_input_at_compile_time_names_where_it_was_built():
    x = tt.dvector("x")
    y = tt.dvector("y")  # NOT-GIVEN
    with pytest.raises(MissingInputError, match=f"test_function_call.py:{_line_of('NOT-GIVEN')}"):
        theon.function([x], x + y)
