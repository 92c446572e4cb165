"""Issue 15, item 4: user Ops written with PyTensor's method signatures behave exactly
like those written with the seed's (``infer_shape``, ``do_constant_folding``, ``L_op``,
PyTensor 3's ``pullback``/``pushforward``); the form is decided once, per class."""

from __future__ import annotations

import numpy as np
import pytest

import theon
import theon.tensor as pt
from theon.graph.basic import Apply
from theon.graph.op import Op

CALLS: list[str] = []


class _Scale(Op):
    """``y = 3 * x`` with a perform that records that it ran."""

    __props__ = ()

    def make_node(self, x):
        x = pt.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        CALLS.append(type(self).__name__)
        output_storage[0][0] = np.asarray(3.0 * inputs[0], dtype=node.outputs[0].dtype)


class SeedScale(_Scale):
    def infer_shape(self, node, input_shapes):
        return [input_shapes[0]]

    def do_constant_folding(self, node):
        return False

    def grad(self, inputs, output_grads):
        return [3.0 * output_grads[0]]

    def R_op(self, inputs, eval_points):
        return [None if eval_points[0] is None else 3.0 * eval_points[0]]


class PyTensorScale(_Scale):
    def infer_shape(self, fgraph, node, input_shapes):
        return [input_shapes[0]]

    def do_constant_folding(self, fgraph, node):
        return False

    def L_op(self, inputs, outputs, output_grads):
        return [3.0 * output_grads[0]]

    def R_op(self, inputs, eval_points):
        return [None if eval_points[0] is None else 3.0 * eval_points[0]]


class PyTensor3Scale(_Scale):
    def infer_shape(self, fgraph, node, input_shapes):
        return [input_shapes[0]]

    def do_constant_folding(self, fgraph, node):
        return False

    def pullback(self, inputs, outputs, output_grads):
        assert len(outputs) == 1  # the node's outputs are given
        return [3.0 * output_grads[0]]

    def pushforward(self, inputs, outputs, eval_points):
        return [3.0 * eval_points[0]]


STYLES = [SeedScale, PyTensorScale, PyTensor3Scale]


@pytest.mark.parametrize("cls", STYLES, ids=lambda c: c.__name__)
def test_infer_shape_is_used_by_the_shape_rewrites(cls) -> None:
    x = pt.dmatrix("x")
    y = cls()(x)
    f = theon.function([x], y.shape)
    assert not any(isinstance(n.op, _Scale) for n in f.maker.fgraph.toposort())
    CALLS.clear()
    np.testing.assert_array_equal(f(np.zeros((2, 5))), [2, 5])
    assert CALLS == []  # the op never ran: its shape came from infer_shape


@pytest.mark.parametrize("cls", STYLES, ids=lambda c: c.__name__)
def test_do_constant_folding_is_honoured(cls) -> None:
    y = cls()(pt.constant(np.array([1.0, 2.0])))
    f = theon.function([], y)
    assert any(isinstance(n.op, cls) for n in f.maker.fgraph.toposort())  # not folded
    CALLS.clear()
    np.testing.assert_array_equal(f(), [3.0, 6.0])
    assert CALLS == [cls.__name__]


def test_constant_folding_still_folds_when_allowed() -> None:
    class Foldable(PyTensorScale):
        def do_constant_folding(self, fgraph, node):
            assert fgraph is None
            return True

    f = theon.function([], Foldable()(pt.constant(np.array([1.0]))))
    assert not any(isinstance(n.op, _Scale) for n in f.maker.fgraph.toposort())
    np.testing.assert_array_equal(f(), [3.0])


@pytest.mark.parametrize("cls", STYLES, ids=lambda c: c.__name__)
def test_gradients_in_each_style(cls) -> None:
    op = cls()
    theon.verify_grad(lambda t: op(t) ** 2, [np.array([0.5, -1.0, 2.0])],
                      rng=np.random.default_rng(0))
    x, v = pt.dvector("x"), pt.dvector("v")
    jv = theon.gradient.Rop(op(x), x, v)
    np.testing.assert_allclose(jv.eval({x: [1.0, 2.0], v: [1.0, -1.0]}), [3.0, -3.0])
    # the Rop graph uses the Op's own forward rule, not the transpose trick
    assert not any(isinstance(n.op, _Scale) for n in theon.graph.traversal.toposort([jv]))


def test_the_form_is_decided_at_class_creation() -> None:
    assert getattr(PyTensorScale.infer_shape, "pytensor_signature", False)
    assert not getattr(SeedScale.infer_shape, "pytensor_signature", False)
    assert PyTensor3Scale.L_op is not Op.L_op and PyTensor3Scale.R_op is not Op.R_op
    node = PyTensorScale()(pt.dvector("x")).owner
    # called with the seed's arguments, as the rewrites call it
    assert node.op.do_constant_folding(node) is False
    assert len(node.op.infer_shape(node, [(3,)])[0]) == 1
