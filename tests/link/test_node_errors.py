"""A node that fails at run time names the lines of the user's code it comes from,
also when a rewrite made it (a fused node names every node it fused)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import theon
import theon.tensor as tt
from theon.compile.mode import Mode
from theon.link.basic import node_context

HERE = __file__
_LINES = Path(HERE).read_text().splitlines()


def line_of(marker: str) -> int:
    """The number of the (only) line of this file ending with ``# marker``."""
    found = [k for k, ln in enumerate(_LINES, 1) if ln.rstrip().endswith(f"# {marker}")]
    assert len(found) == 1, marker
    return found[0]


def notes_of(exc: BaseException) -> str:
    return "\n".join(getattr(exc, "__notes__", []))


@pytest.mark.parametrize("linker", ["py", "vm"])
def test_a_fused_node_names_the_lines_it_fused(linker):
    x = tt.dvector("x")
    y = tt.dvector("y")
    a = tt.exp(x) * tt.sin(y)  # FUSED-1
    e = a + x  # FUSED-2
    f = theon.function([x, y], e, mode=Mode(linker=linker))
    (node,) = f.maker.fgraph.toposort()
    assert "Composite" in str(node.op)  # one fused node
    with pytest.raises(ValueError) as info:  # lengths 3 and 4 do not broadcast
        f(np.ones(3), np.ones(4))
    notes = notes_of(info.value)
    assert "while computing Elemwise{Composite{" in notes
    assert "made by rewrites ([fusion] elemwise_fusion)" in notes
    assert f"{HERE}:{line_of('FUSED-1')} in test_a_fused_node_names_the_lines_it_fused: " \
        "exp, sin, mul" in notes
    assert f"{HERE}:{line_of('FUSED-2')} in test_a_fused_node_names_the_lines_it_fused: " \
        "add" in notes
    # the function still works on good arguments
    np.testing.assert_allclose(f(np.ones(2), np.zeros(2)), np.ones(2))


def test_a_gradient_node_names_its_forward_node():
    x = tt.dvector("x")
    w = tt.dmatrix("w")
    cost = tt.tanh(w.dot(x)).sum()  # FORWARD
    g = theon.grad(cost, x)  # BACKWARD
    f = theon.function([x, w], g)
    name = "test_a_gradient_node_names_its_forward_node"
    fwd = f"{HERE}:{line_of('FORWARD')} in {name}"
    bwd = f"{HERE}:{line_of('BACKWARD')} in {name}"
    # the gradient's Dot (w.T times the backpropagated vector), and the fused node
    # computing 1 - tanh(w x)**2, which the inplace phase then made in place
    grad_dot = f.maker.fgraph.outputs[0].owner
    assert node_context(grad_dot).endswith(
        f"the node was built at {bwd} (gradient of Dot built at {fwd})")
    (fused,) = [n for n in f.maker.fgraph.toposort() if "Composite" in str(n.op)]
    text = node_context(fused)
    assert "made by rewrites ([inplace] inplace_elemwise, [fusion] elemwise_fusion" in text
    assert f"  {bwd} (gradient of tanh built at {fwd}): " in text
    # and a run-time error in the forward Dot names the forward line
    with pytest.raises(ValueError) as info:  # w's columns do not match x
        f(np.ones(3), np.ones((2, 4)))
    assert notes_of(info.value).endswith(f"the node was built at {fwd}")


def test_many_places_are_cut_short():
    x = tt.dvector("x")
    y = tt.dvector("y")
    e = x
    for k in range(10):
        e = e * (y + k)  # one line, ten times: one place
    f = theon.function([x, y], e)
    with pytest.raises(ValueError) as info:
        f(np.ones(3), np.ones(4))
    notes = notes_of(info.value)
    assert notes.count("in test_many_places_are_cut_short: ") == 1
