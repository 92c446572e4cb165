"""printing.Print (PyTensor's pytensor.printing.Print, Theano's theano.printing.Print):
prints its message and value at run time, is not removed by rewrites, passes its input
through (issue 31's list, issue 32 item 4)."""

from __future__ import annotations

import numpy as np
import pytest

import theon
import theon.tensor as tt
from theon.printing import Print


def lines(capsys: pytest.CaptureFixture[str]) -> list[str]:
    return capsys.readouterr().out.splitlines()


@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE", "REFERENCE", "NO_REWRITES"])
def test_prints_message_and_value_on_every_call_and_passes_it_through(capsys, mode):
    x = tt.dvector("x")
    y = Print("x is")(x) * 2.0 + 1.0
    f = theon.function([x], y, mode=mode)
    for v in ([1.0, 2.0], [3.0]):
        a = np.array(v)
        np.testing.assert_array_equal(f(a), a * 2.0 + 1.0)
        assert lines(capsys) == [f"x is __str__ = {a}"]


def test_the_documented_way_with_attrs_and_global_fn(capsys):
    x = tt.dmatrix("x")
    f = theon.function([x], Print("m", attrs=("shape", "sum"))(x) + 1)
    a = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(f(a), a + 1)
    assert lines(capsys) == ["m shape = (2, 3)", "m sum = 15.0"]
    got = []
    g = theon.function([x], Print("c", global_fn=lambda op, v: got.append((op.message, v)))(x))
    np.testing.assert_array_equal(g(a), a)
    assert got[0][0] == "c" and np.array_equal(got[0][1], a)
    assert lines(capsys) == []


def test_no_rewrite_removes_it(capsys):
    """Not a useless identity, not constant-folded: a constant prints at each call."""
    x = tt.dscalar("x")
    f = theon.function([x], tt.log(1.0 + Print("p")(x)))
    assert any(isinstance(n.op, Print) for n in f.maker.fgraph.apply_nodes)
    assert f(1.0) == pytest.approx(np.log(2.0))
    assert lines(capsys) == ["p __str__ = 1.0"]
    c = Print("c")(tt.constant(3.0)) * x
    g = theon.function([x], c)
    assert [g(2.0), g(4.0)] == [6.0, 12.0]
    assert lines(capsys) == ["c __str__ = 3.0", "c __str__ = 3.0"]
    # the same Print on the same input twice is one node, printed once (merged)
    h = theon.function([x], Print("d")(x) + Print("d")(x))
    assert h(1.5) == 3.0 and lines(capsys) == ["d __str__ = 1.5"]


def test_gradient_is_the_outputs():
    x = tt.dvector("x")
    cost = (Print("g", global_fn=lambda op, v: None)(x) ** 2).sum()
    g = theon.function([x], theon.grad(cost, x))
    np.testing.assert_allclose(g(np.array([1.0, -2.0])), [2.0, -4.0])
    theon.verify_grad(lambda v: Print("v", global_fn=lambda op, val: None)(v) ** 3,
                      [np.array([0.5, 1.5])], rng=np.random.default_rng(0))


def test_props_shape_and_errors():
    assert Print("a") == Print("a") and hash(Print("a")) == hash(Print("a"))
    assert Print("a") != Print("b") and Print("a") != Print("a", attrs=("shape",))
    x = tt.dmatrix("x")
    p = Print("s")(x)
    assert p.type == x.type and p.owner.op.view_map == {0: [0]}
    shp = theon.function([x], p.shape, mode="FAST_RUN")
    np.testing.assert_array_equal(shp(np.zeros((2, 5))), [2, 5])
    with pytest.raises(TypeError, match=r"Print\('s'\) needs a symbolic variable"):
        Print("s")(3.0)


def test_jax_mode_prints_with_the_same_text(capsys):
    jax = pytest.importorskip("jax")
    x = tt.dvector("x")
    f = theon.function([x], Print("j")(x) * 3.0, mode="JAX")
    for v in ([1.0, 2.0], [4.0, 5.0]):
        a = np.array(v)
        np.testing.assert_allclose(f(a), a * 3.0)
        jax.effects_barrier()
        assert lines(capsys) == [f"j __str__ = {a}"]
