"""OpFromGraph used PyTensor's way: shared variables and constants among the inputs,
a subclass written as PyTensor's documentation and PyMC's symbolic random variables
write one (class attributes, ``__init__(*args, ndim_supp, **kwargs)``, ``inline``,
``update(node)``, a ``make_node`` calling the base's), the ``fgraph``/``clone``/
``input_types`` attributes, and which rewrite queries inline it.  Values are checked
against NumPy, gradients with ``verify_grad``."""

from __future__ import annotations

import numpy as np
import pytest

import theon
import theon.tensor as tt
from theon.graph.op import HasInnerGraph
from theon.opfromgraph import OpFromGraph
from theon.rewriting.optdb import rewrite_graph
from theon.tensor.random.basic import normal
from theon.tensor.random.type import RandomGeneratorType

RNG = np.random.default_rng(4242)


# shared variables and constants as inputs ---------------------------------------------------
def test_shared_and_constant_inputs_are_explicit_inputs():
    x = tt.dvector("x")
    s = theon.shared(np.array([1.0, 2.0]), name="s")
    c = tt.constant(3.0)
    op = OpFromGraph([x, s, c], [x * s + c], name="xsc")
    # each is an input of the Op, a placeholder of its type in the inner graph
    assert len(op.inner_inputs) == 3 and op.shared_inputs == []
    assert s not in op.inner_inputs and c not in op.inner_inputs
    assert op.input_types == [x.type, s.type, c.type]
    assert op.output_types == [op.inner_outputs[0].type]
    a = tt.dvector("a")
    f = theon.function([a], op(a, s, c))
    av = np.array([0.5, -1.0])
    np.testing.assert_allclose(f(av), av * [1.0, 2.0] + 3.0)
    # the function reads the shared variable's current value
    s.set_value(np.array([-2.0, 4.0]))
    np.testing.assert_allclose(f(av), av * [-2.0, 4.0] + 3.0)
    # any variable of the type may stand in their place
    b, k = tt.dvector("b"), tt.dscalar("k")
    g = theon.function([a, b, k], op(a, b, k))
    bv = np.array([3.0, 5.0])
    np.testing.assert_allclose(g(av, bv, 0.25), av * bv + 0.25)
    # and all of them must be given (they are not implicit inputs)
    with pytest.raises(TypeError, match="takes 3 inputs"):
        op(a)


def test_computed_input_cuts_the_graph():
    """A computed variable among the inputs is where the inner graph starts (PyMC passes
    its component distributions' draws so)."""
    x = tt.dvector("x")
    e = tt.exp(x)
    op = OpFromGraph([e], [e * 2.0 + 1.0])
    assert not any(isinstance(n.op, type(e.owner.op)) and n.op == e.owner.op
                   for n in theon.graph.traversal.io_toposort(op.inner_inputs,
                                                              op.inner_outputs))
    a = tt.dvector("a")
    av = RNG.normal(size=3)
    np.testing.assert_allclose(theon.function([a], op(a))(av), av * 2.0 + 1.0)
    # applied to the computed variable itself, it computes the whole graph
    np.testing.assert_allclose(theon.function([x], op(e))(av), np.exp(av) * 2.0 + 1.0)


def test_shared_and_constant_inputs_gradients():
    x = tt.dvector("x")
    s = theon.shared(np.array([1.5, -0.5, 2.0]), name="s")
    op = OpFromGraph([x, s, tt.constant(2.0)], [tt.exp(x) * s + 2.0 * x])
    a = tt.dvector("a")
    ga = theon.grad(op(a, s, tt.constant(2.0)).sum(), a)
    av = RNG.normal(size=3)
    np.testing.assert_allclose(theon.function([a], ga)(av),
                               np.exp(av) * [1.5, -0.5, 2.0] + 2.0)
    # finite differences, through every input slot
    theon.verify_grad(lambda u, v, w: op(u, v, w), [av, RNG.normal(size=3), np.array(0.7)],
                      rng=np.random.default_rng(1))


def test_shared_input_with_strict():
    """``strict=True`` refuses a shared variable the graph reads without listing it, and
    accepts it listed (PyMC's symbolic random variables list their generators)."""
    x = tt.dscalar("x")
    s = theon.shared(2.0, name="s")
    with pytest.raises(ValueError, match="strict=True"):
        OpFromGraph([x], [x * s], strict=True)
    op = OpFromGraph([x, s], [x * s], strict=True)
    assert float(op(tt.constant(3.0), s).eval()) == 6.0


# a subclass written PyTensor's way ----------------------------------------------------------
class ShiftedNormalRV(OpFromGraph):
    """``mu + shift + normal(0, 1)`` drawn from a generator input, whose next state is
    the first output (a symbolic random variable, as PyMC writes them)."""

    extended_signature = "[rng],(),()->[rng],()"
    _print_name = ("ShiftedNormal", "\\operatorname{ShiftedNormal}")

    def __init__(self, *args, ndim_supp, **kwargs):
        self.ndim_supp = ndim_supp
        kwargs.setdefault("inline", True)
        kwargs.setdefault("strict", True)
        kwargs.setdefault("on_unused_input", "ignore")
        super().__init__(*args, **kwargs)

    def make_node(self, *inputs):
        # a subclass may check or convert before the base builds the node
        rng, mu, shift = inputs
        return super().make_node(rng, tt.as_tensor_variable(mu), tt.as_tensor_variable(shift))

    def update(self, node):
        return {node.inputs[0]: node.outputs[0]}

    @classmethod
    def rv_op(cls, mu, shift, rng):
        rng_, mu_, shift_ = RandomGeneratorType()("rng"), tt.dscalar("mu"), tt.dscalar("shift")
        next_rng, draw = normal(0.0, 1.0, rng=rng_).owner.outputs
        op = cls(inputs=[rng_, mu_, shift_], outputs=[next_rng, mu_ + shift_ + draw],
                 ndim_supp=0)
        return op(rng, mu, shift)


def _numpy_draws(seed, mus, shift):
    gen = np.random.default_rng(seed)
    return [m + shift + gen.normal(0.0, 1.0) for m in mus]


def test_subclass_pytensor_way_values_and_updates():
    rng = theon.shared(np.random.default_rng(7), name="rng")
    mu = tt.dscalar("mu")
    next_rng, draw = ShiftedNormalRV.rv_op(mu, 0.5, rng)
    node = draw.owner
    op = node.op
    assert isinstance(op, ShiftedNormalRV) and isinstance(op, HasInnerGraph)
    assert op.inline and op.is_inline and op.ndim_supp == 0
    assert op.update(node) == {rng: next_rng}
    f = theon.function([mu], draw, updates=op.update(node))
    got = [float(f(m)) for m in (0.0, 1.0, -3.0)]
    np.testing.assert_allclose(got, _numpy_draws(7, [0.0, 1.0, -3.0], 0.5))
    # the inherited infer_shape and L_op
    shp = op.infer_shape(node, [None, (), ()])
    assert shp[1] == ()
    g = theon.grad(draw, mu)
    assert float(theon.function([mu], g, updates=op.update(node))(2.0)) == 1.0


def test_subclass_fgraph_clone_and_substitution():
    """``op.fgraph``'s copies keep the inner inputs, so values can be substituted in a
    copy (PyMC's support points), and ``op.clone()`` is another Op of the same class."""
    rng = theon.shared(np.random.default_rng(3), name="rng")
    mu = tt.dscalar("mu")
    _, draw = ShiftedNormalRV.rv_op(mu, 2.0, rng)
    op, node = draw.owner.op, draw.owner
    fg = op.fgraph
    assert fg.inputs == op.inner_inputs and fg.outputs == op.inner_outputs
    copy_ = fg.clone()
    assert copy_.inputs[0] is op.inner_inputs[0] and copy_.outputs[1] is not op.inner_outputs[1]
    copy_.replace_all(tuple(zip(op.inner_inputs, node.inputs)), import_missing=True)
    out = copy_.outputs[1]
    gen = np.random.default_rng(3)
    np.testing.assert_allclose(float(theon.function([mu], out)(1.0)), 3.0 + gen.normal())
    # the Op's own inner graph is untouched
    assert op.inner_outputs[1].owner is not None
    assert all(v in op.inner_inputs for v in theon.graph.traversal.graph_inputs(
        op.inner_outputs) if not isinstance(v, theon.graph.basic.Constant))
    c = op.clone()
    assert type(c) is ShiftedNormalRV and c != op and c.ndim_supp == 0
    assert c.inner_inputs[0] is op.inner_inputs[0]
    assert c.inner_outputs[1] is not op.inner_outputs[1]


def test_inline_runs_in_fast_run_not_in_a_canonicalize_query():
    """``inline=True`` is expanded when a mode's rewrites run; a query of "canonicalize"
    alone (PyMC's on its log-probability graphs) keeps the node, as in PyTensor."""
    x = tt.dvector("x")
    op = OpFromGraph([x], [tt.exp(x) + 1.0], inline=True)
    a = tt.dvector("a")
    out = op(a)
    kept = rewrite_graph(out, include=("canonicalize",))
    assert isinstance(kept.owner.op, OpFromGraph)
    f = theon.function([a], out)
    assert not any(isinstance(n.op, OpFromGraph) for n in f.maker.fgraph.apply_nodes)
    av = RNG.normal(size=4)
    np.testing.assert_allclose(f(av), np.exp(av) + 1.0)


def test_subclass_with_shared_input_on_jax():
    """The JAX rule traces the inner graph in place (an inlined subclass, with a shared
    variable and a constant among its inputs)."""
    pytest.importorskip("jax")
    x = tt.dvector("x")
    s = theon.shared(np.array([2.0, -1.0, 0.5]), name="s")

    class Scaled(OpFromGraph):
        def __init__(self, *args, **kwargs):
            kwargs.setdefault("inline", False)
            super().__init__(*args, **kwargs)

    op = Scaled([x, s, tt.constant(1.0)], [tt.tanh(x) * s + 1.0])
    a = tt.dvector("a")
    f = theon.function([a], op(a, s, tt.constant(1.0)), mode="JAX")
    av = RNG.normal(size=3)
    np.testing.assert_allclose(f(av), np.tanh(av) * [2.0, -1.0, 0.5] + 1.0, rtol=1e-6)
