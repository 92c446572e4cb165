"""JAX rules of theon.backends.jax.basic (the identities of theon.compile.ops and the
checks of theon.tensor.raise_op), and of the Ops PyTensor's API added to the tensor
layer (AllocEmpty, the ``1`` subtensor Ops, Join/Split with an axis input), against
the reference VM."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("jax", reason="mode='JAX' needs jax (pip install 'theon[jax]')")

import theon
import theon.tensor as tt
from tests.backends.jax.helpers import assert_close, run_both
from theon.compile.ops import TypeCastingOp, deep_copy_op, view_op
from theon.graph.basic import Apply
from theon.link.jax.dispatch import DynamicShapeError
from theon.tensor.creation import AllocEmpty
from theon.tensor.joining import Join, Split
from theon.tensor.raise_op import Assert, CheckAndRaise
from theon.tensor.subtensor import AdvancedIncSubtensor1, AdvancedSubtensor1

rng = np.random.default_rng(5)


class Cast(TypeCastingOp):
    def make_node(self, x):
        return Apply(self, [x], [x.type()])


def test_identities_match_the_vm() -> None:
    x = tt.dmatrix("x")
    xv = rng.normal(size=(2, 3))
    outs = [view_op(x) * 2, deep_copy_op(x) + 1, Cast()(x) - 1]
    got, want = run_both([x], outs, [xv])
    assert_close(got, want, "identities")


def test_new_tensor_ops_match_the_vm() -> None:
    x, i, k = tt.dmatrix("x"), tt.lvector("i"), tt.lscalar("k")
    xv, iv = rng.normal(size=(3, 2)), np.array([2, 0, 2])
    outs = [
        AdvancedSubtensor1()(x, i),
        AdvancedIncSubtensor1()(x, np.ones(2), i),
        AdvancedIncSubtensor1(set_instead_of_inc=True)(x, 5.0, i),
        Join()(1, x, x),
        *Split(2)(x, 0, [1, 2], return_list=True),
        AllocEmpty("float64")(3, 2).shape,
    ]
    got, want = run_both([x, i], outs, [xv, iv])
    assert_close(got, want, "tensor ops")
    # an axis known only at run time cannot be static under jax.jit: a clear error
    got, want = run_both([x, k], [Join()(k, x, x)], [xv, 0])
    assert isinstance(got, DynamicShapeError) and "axis of a Join" in str(got)
    np.testing.assert_array_equal(want[0], np.concatenate([xv, xv]))


def test_checks_known_when_tracing_raise() -> None:
    x = tt.dvector("x")
    f = theon.function([x], Assert("two entries")(x, tt.eq(x.shape[0], 2)) * 2, mode="JAX")
    np.testing.assert_array_equal(f(np.array([1.0, 2.0])), [2.0, 4.0])
    with pytest.raises(AssertionError, match="two entries"):
        f(np.array([1.0, 2.0, 3.0]))


def test_checks_on_traced_values_are_skipped_with_a_warning() -> None:
    x = tt.dvector("x")
    out = CheckAndRaise(ValueError, "negative")(x, tt.all(x >= 0)) + 1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        f = theon.function([x], out, mode="JAX")
        res = f(np.array([-1.0, 2.0]))
    np.testing.assert_array_equal(res, [0.0, 3.0])
    assert any("is skipped" in str(w.message) for w in caught)


def test_as_op_runs_on_the_host_under_jax() -> None:
    """as_op's Python function under mode="JAX" (jax.pure_callback): the VM's values, with
    output shapes from static types or from infer_shape in either signature."""
    from theon.compile.ops import as_op

    @as_op(itypes=[tt.dvector], otypes=[tt.dvector],
           infer_shape=lambda fgraph, node, shapes: [shapes[0]])
    def reverse(v):
        return v[::-1].copy()

    @as_op(itypes=[tt.dmatrix], otypes=[tt.dvector],
           infer_shape=lambda node, shapes: [(shapes[0][0],)])
    def row_sums(a):
        return a.sum(axis=1)

    @as_op(itypes=[tt.dvector], otypes=[tt.TensorType("float64", shape=(2,))])
    def ends(v):
        return np.array([v[0], v[-1]])

    x, m = tt.dvector("x"), tt.dmatrix("m")
    xv, mv = rng.normal(size=5), rng.normal(size=(3, 4))
    outs = [reverse(x) * 2, row_sums(m), ends(x) + 1]
    got, want = run_both([x, m], outs, [xv, mv])
    assert_close(got, want, "as_op")
    np.testing.assert_array_equal(got[0], xv[::-1] * 2)
    np.testing.assert_allclose(got[1], mv.sum(axis=1), rtol=1e-15)


def test_as_op_without_known_output_shapes_names_the_op_under_jax() -> None:
    from theon.compile.ops import as_op

    @as_op(itypes=[tt.dvector], otypes=[tt.dvector])
    def positive(v):
        return v[v > 0]

    x = tt.dvector("x")
    f = theon.function([x], positive(x), mode="JAX")
    with pytest.raises(DynamicShapeError, match=r"FromFunctionOp\{positive\}.*infer_shape"):
        f(np.array([1.0, -1.0]))
