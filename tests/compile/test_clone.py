"""``theon.clone`` (Theano's ``theano.clone``, issue 32 item 1): values against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import theon
import theon.tensor as T
from theon.graph.basic import Constant
from theon.graph.traversal import graph_inputs


def free(v: object) -> set[object]:
    return {i for i in graph_inputs([v]) if not isinstance(i, Constant)}


def test_replace_by_dict_and_pairs_leaves_the_original() -> None:
    x, y = T.dvector("x"), T.dvector("y")
    out = T.exp(x).sum() + (x * 2).sum()
    a = theon.clone(out, replace={x: y})
    b = theon.clone(out, replace=[(x, y)])
    v = np.array([0.5, -1.0, 2.0])
    want = np.exp(v).sum() + 2 * v.sum()
    for got in (a, b):
        assert free(got) == {y}
        np.testing.assert_allclose(got.eval({y: v}), want, rtol=1e-14)
    assert free(out) == {x}  # the user's graph is untouched
    np.testing.assert_allclose(out.eval({x: v}), want, rtol=1e-14)


def test_a_new_value_containing_its_key_is_not_substituted_again() -> None:
    x = T.dvector("x")
    out = theon.clone(x + 1, replace={x: x * 2})
    np.testing.assert_allclose(out.eval({x: np.array([1.0, 3.0])}), [3.0, 7.0])


def test_list_and_tuple_outputs_keep_their_form() -> None:
    x, y = T.dscalar("x"), T.dscalar("y")
    lst = theon.clone([x + 1, x * 3], replace={x: y})
    tup = theon.clone((x + 1, x * 3), replace={x: y})
    assert isinstance(lst, list) and isinstance(tup, tuple)
    f = theon.function([y], list(tup))
    assert [float(v) for v in f(2.0)] == [3.0, 6.0]


def test_share_inputs_false_copies_inputs_and_shared_variables() -> None:
    x = T.dvector("x")
    s = theon.shared(np.array([1.0, 2.0]), name="s")
    out = (s * x).sum()
    kept = theon.clone(out)
    assert free(kept) == {x, s}
    copied = theon.clone(out, share_inputs=False)
    ins = list(free(copied))
    assert x not in ins and s not in ins and sorted(i.name for i in ins) == ["s", "x"]
    (x2,) = [i for i in ins if i.name == "x"]
    f = theon.function([x2], copied)
    assert float(f(np.array([1.0, 1.0]))) == 3.0
    s.set_value(np.array([10.0, 20.0]))  # the copy shares the storage
    assert float(f(np.array([1.0, 1.0]))) == 30.0


def test_copy_inputs_is_the_old_name_of_share_inputs() -> None:
    x = T.dscalar("x")
    with pytest.warns(DeprecationWarning, match="share_inputs"):
        out = theon.clone(x + 1, copy_inputs=False)
    assert x not in graph_inputs([out])


def test_strict_types_and_rebuilding_on_another_type() -> None:
    v, m = T.dvector("v"), T.dmatrix("m")
    out = (v * 2).sum()
    with pytest.raises(TypeError, match="strict=False"):
        theon.clone(out, replace={v: m})
    got = theon.clone(out, replace={v: m}, strict=False)
    assert float(got.eval({m: np.ones((2, 3))})) == 12.0


def test_values_that_are_not_variables_and_bad_arguments() -> None:
    x = T.dvector("x")
    out = theon.clone(x.sum(), replace={x: np.array([1.0, 2.0, 4.0])})
    assert float(out.eval()) == 7.0
    with pytest.raises(TypeError, match="dict or a list"):
        theon.clone(x, replace=3)
    with pytest.raises(TypeError, match="not a Variable"):
        theon.clone(x, replace={"x": x})
    with pytest.raises(TypeError, match="output 1"):
        theon.clone([x, 2.0])


def test_theano_paths() -> None:
    from theon.scan_module.scan_utils import clone

    assert clone is theon.clone
    x = T.dscalar("x")
    y = clone(x ** 2, replace={x: T.constant(3.0)})
    assert float(y.eval()) == 9.0
