"""theon.loop: carry-style loops (like jax.lax.scan) on the Scan Op, against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import theon
import theon.tensor as tt
from theon.scan.loop import flatten, unflatten
from theon.scan_module import until

VM = theon.Mode(linker="vm", optimizer=None)


def test_loop_equals_scan_on_the_same_recurrence():
    xs, a, h0 = tt.dvector("xs"), tt.dscalar("a"), tt.dscalar("h0")
    hs_scan, _ = theon.scan(lambda x, h, a: a * h + x, sequences=xs, outputs_info=h0,
                            non_sequences=a)
    last, hs_loop = theon.loop(lambda h, x: (a * h + x, a * h + x), h0, xs)
    f = theon.function([xs, a, h0], [hs_scan, hs_loop, last])
    xv = np.array([1.0, -2.0, 0.5, 3.0])
    h, ref = 0.25, []
    for x in xv:
        h = 0.7 * h + x
        ref.append(h)
    s, lp, la = f(xv, 0.7, 0.25)
    np.testing.assert_allclose(s, ref)
    np.testing.assert_allclose(lp, ref)
    np.testing.assert_allclose(la, ref[-1])
    assert hs_loop.owner.op.__class__ is hs_scan.owner.inputs[0].owner.op.__class__


def test_pytree_carry_and_xs():
    xs = {"a": tt.dvector("a"), "b": tt.dtensor3("b")}
    init = (tt.dscalar("s"), [tt.dvector("v")])

    def step(carry, x):
        s, (v,) = carry
        s2 = s + x["a"]
        v2 = v * x["a"] + x["b"].sum(axis=0)
        return (s2, [v2]), {"s": s2, "pair": (v2, x["a"] * 2)}

    (s_f, (v_f,)), ys = theon.loop(step, init, xs)
    f = theon.function([xs["a"], xs["b"], init[0], init[1][0]],
                       [s_f, v_f, ys["s"], ys["pair"][0], ys["pair"][1]])
    rng = np.random.default_rng(0)
    av, bv, sv, vv = rng.normal(size=4), rng.normal(size=(4, 2, 3)), 0.5, rng.normal(size=3)
    s, v, rs, rv = sv, vv, [], []
    for t in range(4):
        s = s + av[t]
        v = v * av[t] + bv[t].sum(axis=0)
        rs.append(s)
        rv.append(v)
    out = f(av, bv, sv, vv)
    np.testing.assert_allclose(out[0], s)
    np.testing.assert_allclose(out[1], v)
    np.testing.assert_allclose(out[2], rs)
    np.testing.assert_allclose(out[3], rv)
    np.testing.assert_allclose(out[4], 2 * av)


def test_reverse_keeps_ys_aligned_with_xs():
    xs = tt.dvector("xs")
    c, ys = theon.loop(lambda c, x: (c * 10 + x, c), tt.constant(0.0), xs, reverse=True)
    f = theon.function([xs], [c, ys])
    cv, yv = f(np.array([1.0, 2.0, 3.0]))
    # visits 3, 2, 1: carries 0 -> 3 -> 32 -> 321; ys[i] is the carry before visiting xs[i]
    assert cv == 321.0
    np.testing.assert_array_equal(yv, [32.0, 3.0, 0.0])


def test_length_without_xs_and_until():
    c, ys = theon.loop(lambda c, _: (c * 2, c), tt.constant(1.0), length=5)
    f = theon.function([], [c, ys], mode=VM)
    cv, yv = f()
    assert cv == 32.0
    np.testing.assert_array_equal(yv, [1.0, 2.0, 4.0, 8.0, 16.0])
    c2, ys2 = theon.loop(lambda c, _: (c * 2, c, until(c * 2 > 10)), tt.constant(1.0),
                         length=100)
    cv, yv = theon.function([], [c2, ys2])()
    assert cv == 16.0
    np.testing.assert_array_equal(yv, [1.0, 2.0, 4.0, 8.0])


def test_zero_steps_gives_the_initial_carry():
    xs = tt.dvector("xs")
    c, ys = theon.loop(lambda c, x: (c + x, c), tt.constant(5.0), xs)
    cv, yv = theon.function([xs], [c, ys])(np.zeros(0))
    assert cv == 5.0 and yv.shape == (0,)


def test_loop_gradient():
    def f(xs, w):
        c, _ = theon.loop(lambda h, x: (tt.tanh(w * h + x), None), tt.constant(0.1), xs)
        return c

    theon.verify_grad(f, [np.array([0.3, -0.2, 0.9]), np.array(0.8)],
                      rng=np.random.default_rng(7))


def test_errors_name_the_carry():
    xs = tt.dvector("xs")
    with pytest.raises(TypeError, match=r"carry\['n'\].*int"):
        theon.loop(lambda c, x: ({"n": c["n"] + x}, None), {"n": tt.constant(0)}, xs)
    with pytest.raises(TypeError, match="structure"):
        theon.loop(lambda c, x: ((c, c), None), tt.constant(0.0), xs)
    with pytest.raises(ValueError, match="length"):
        theon.loop(lambda c, x: (c, None), tt.constant(0.0))
    with pytest.raises(TypeError, match=r"\(carry, y\)"):
        theon.loop(lambda c, x: c, tt.constant(0.0), xs)


def test_flatten_roundtrip():
    tree = {"z": [1, (2, 3)], "a": {"k": 4}}
    leaves, tdef = flatten(tree)
    assert leaves == [4, 1, 2, 3]
    assert unflatten(tdef, leaves) == tree
