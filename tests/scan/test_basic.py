"""theon.scan against NumPy loops: the Theano tutorial's examples, taps, updates, errors."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import theon
import theon.tensor as tt
from theon.scan_module import until

VM = theon.Mode(linker="vm", optimizer=None)
PY = theon.Mode(linker="py")


def both(inputs, outputs, **kw):
    """The function compiled by the reference VM (no rewrites) and the default linker."""
    return [theon.function(inputs, outputs, mode=m, **kw) for m in (VM, PY)]


# the Theano tutorial's examples ----------------------------------------------------------
def test_power_of_A_by_iteration():
    A, k = tt.dvector("A"), tt.iscalar("k")
    result, updates = theon.scan(
        lambda prior, A: prior * A, outputs_info=tt.ones_like(A), non_sequences=A, n_steps=k
    )
    assert len(updates) == 0
    a = np.array([0.5, 2.0, -3.0, 1.5])
    for f in both([A, k], result[-1]):
        np.testing.assert_allclose(f(a, 5), a**5)
    for f in both([A, k], result):
        np.testing.assert_allclose(f(a, 4), np.stack([a**i for i in range(1, 5)]))


def test_polynomial_evaluation():
    coefficients, x = tt.dvector("coefficients"), tt.dscalar("x")
    components, _ = theon.scan(
        lambda c, power, x: c * x**power,
        sequences=[coefficients, tt.arange(1000)],
        non_sequences=x,
    )
    poly = components.sum()
    c = np.array([1.0, 0.0, 2.0, -1.5])
    ref = sum(ci * 3.0**i for i, ci in enumerate(c))
    for f in both([coefficients, x], poly):
        np.testing.assert_allclose(f(c, 3.0), ref)


def test_fibonacci_with_taps():
    x0, n = tt.dvector("x0"), tt.iscalar("n")
    fib, _ = theon.scan(
        lambda a, b: a + b, outputs_info=dict(initial=x0, taps=[-2, -1]), n_steps=n
    )
    ref = [0.0, 1.0]
    for _ in range(10):
        ref.append(ref[-2] + ref[-1])
    for f in both([x0, n], fib):
        np.testing.assert_array_equal(f(np.array([0.0, 1.0]), 10), ref[2:])


def test_three_taps_reads_the_right_rows():
    x0 = tt.dvector("x0")
    out, _ = theon.scan(
        lambda a, b, c: a + 10 * b + 100 * c,
        outputs_info=dict(initial=x0, taps=[-3, -2, -1]),
        n_steps=4,
    )
    ref = [1.0, 2.0, 3.0]
    for _ in range(4):
        ref.append(ref[-3] + 10 * ref[-2] + 100 * ref[-1])
    for f in both([x0], out):
        np.testing.assert_allclose(f(np.array([1.0, 2.0, 3.0, 99.0])), ref[3:])


def test_while_loop_powers_of_two():
    max_value = tt.dscalar("max_value")

    def power_of_2(previous, max_value):
        return previous * 2, until(previous * 2 > max_value)

    values, _ = theon.scan(
        power_of_2, outputs_info=tt.constant(1.0), non_sequences=max_value, n_steps=1024
    )
    for f in both([max_value], values):
        np.testing.assert_array_equal(f(45.0), [2.0, 4.0, 8.0, 16.0, 32.0, 64.0])
        np.testing.assert_array_equal(f(0.5), [2.0])


def test_while_loop_with_a_numeric_condition_stops_where_it_is_nonzero():
    # until(c) with a float or integer c: nonzero means stop (was a crash: the
    # condition became Python's True)
    x = tt.dvector("x")
    for cond in (lambda v: tt.floor(v / 100.0), lambda v: tt.cast(v > 100, "int8")):
        ys, _ = theon.scan(lambda v, c=cond: (v + 1.0, until(c(v))), sequences=x)
        for f in both([x], ys):
            xv = np.array([1.0, 2.0, 150.0, 3.0])
            stop = int(np.argmax(np.floor(xv / 100.0) != 0)) + 1  # NumPy: the first nonzero
            np.testing.assert_array_equal(f(xv), xv[:stop] + 1.0)
            np.testing.assert_array_equal(f(np.array([1.0, 2.0])), [2.0, 3.0])


def test_while_loop_stops_at_n_steps_and_keeps_nit_outputs():
    x = tt.dvector("x")
    ys, _ = theon.scan(lambda v: (v * v, until(v > 100)), sequences=x)
    for f in both([x], ys):
        np.testing.assert_array_equal(f(np.array([1.0, 2.0, 3.0])), [1.0, 4.0, 9.0])
        np.testing.assert_array_equal(f(np.array([1.0, 200.0, 3.0])), [1.0, 40000.0])


# sequences ------------------------------------------------------------------------------
def test_sequence_taps_and_go_backwards():
    s = tt.dvector("s")
    v = np.arange(6.0) ** 2
    fwd, _ = theon.scan(lambda a, b, c: a + 2 * b + 3 * c,
                        sequences=dict(input=s, taps=[-2, 0, 1]))
    bwd, _ = theon.scan(lambda a, b, c: a + 2 * b + 3 * c,
                        sequences=dict(input=s, taps=[-2, 0, 1]), go_backwards=True)
    ref = v[0:3] + 2 * v[2:5] + 3 * v[3:6]
    for f in both([s], [fwd, bwd]):
        a, b = f(v)
        np.testing.assert_allclose(a, ref)
        np.testing.assert_allclose(b, ref[::-1])


def test_go_backwards_recurrence():
    x = tt.dvector("x")
    out, _ = theon.scan(lambda v, h: 0.5 * h + v, sequences=x, outputs_info=tt.constant(0.0),
                        go_backwards=True)
    xv = np.array([1.0, 2.0, 4.0])
    h, ref = 0.0, []
    for v in xv[::-1]:
        h = 0.5 * h + v
        ref.append(h)
    for f in both([x], out):
        np.testing.assert_allclose(f(xv), ref)


def test_go_backwards_with_fewer_steps_reads_the_last_rows():
    """Theano reverses a sequence, then takes ``n_steps`` rows: the last ``n_steps`` rows,
    last first (theon took the first rows, reversed).  By hand: x = [1, 2, 4, 8, 16],
    n_steps = 3 reads 16, 8, 4; with taps [-1, 0] the windows (x[t-1], x[t]) are
    (1, 2) .. (8, 16) and the last three, last first, are (8, 16), (4, 8), (2, 4)."""
    x, n = tt.dvector("x"), tt.lscalar("n")
    out, _ = theon.scan(lambda v, h: h * 10 + v, sequences=x, outputs_info=tt.constant(0.0),
                        n_steps=n, go_backwards=True)
    pairs, _ = theon.scan(lambda a, b: a * 100 + b, sequences=dict(input=x, taps=[-1, 0]),
                          n_steps=3, go_backwards=True)
    xv = np.array([1.0, 2.0, 4.0, 8.0, 16.0])
    for f in both([x, n], out):
        np.testing.assert_allclose(f(xv, 3), [16.0, 168.0, 1684.0])
        np.testing.assert_allclose(f(xv, 5), [16.0, 168.0, 1684.0, 16842.0, 168421.0])
    for f in both([x], pairs):
        np.testing.assert_allclose(f(xv), [816.0, 408.0, 204.0])
    g = theon.function([x, n], theon.grad(out[-1], x))
    np.testing.assert_allclose(g(xv, 3), [0.0, 0.0, 1.0, 10.0, 100.0])


def test_matrix_sequence_and_several_outputs():
    X, W = tt.dmatrix("X"), tt.dmatrix("W")
    h0 = tt.dvector("h0")

    def step(x, h, W):
        new = tt.tanh(tt.dot(W, h) + x)
        return new, new.sum(), x * 2

    hs, sums, dbl = theon.scan(step, sequences=X, outputs_info=[h0, None, None],
                               non_sequences=W)[0]
    rng = np.random.default_rng(0)
    Xv, Wv, h0v = rng.normal(size=(5, 3)), rng.normal(size=(3, 3)), rng.normal(size=3)
    h, ref = h0v, []
    for x in Xv:
        h = np.tanh(Wv @ h + x)
        ref.append(h)
    for f in both([X, W, h0], [hs, sums, dbl]):
        a, b, c = f(Xv, Wv, h0v)
        np.testing.assert_allclose(a, ref)
        np.testing.assert_allclose(b, np.sum(ref, axis=1))
        np.testing.assert_allclose(c, 2 * Xv)


def test_n_steps_symbolic_truncates_sequences():
    x, n = tt.dvector("x"), tt.iscalar("n")
    out, _ = theon.scan(lambda v, acc: acc + v, sequences=x, outputs_info=tt.constant(0.0),
                        n_steps=n)
    for f in both([x, n], out):
        np.testing.assert_allclose(f(np.arange(1.0, 6.0), 3), [1.0, 3.0, 6.0])
        assert f(np.arange(1.0, 6.0), 0).shape == (0,)


def test_closure_variables_become_non_sequences():
    x, w = tt.dvector("x"), tt.dscalar("w")
    out, _ = theon.scan(lambda v: v * w + 1, sequences=x)
    for f in both([x, w], out):
        np.testing.assert_allclose(f(np.array([1.0, 2.0]), 3.0), [4.0, 7.0])


def test_computed_non_sequence_is_passed_once():
    x, W = tt.dvector("x"), tt.dmatrix("W")
    out, _ = theon.scan(lambda h, WT: tt.dot(WT, h), outputs_info=x, non_sequences=W.T,
                        n_steps=2)
    Wv = np.array([[1.0, 2.0], [3.0, 4.0]])
    for f in both([x, W], out[-1]):
        np.testing.assert_allclose(f(np.array([1.0, -1.0]), Wv),
                                   Wv.T @ (Wv.T @ np.array([1.0, -1.0])))


def test_return_list_and_single_output():
    x = tt.dvector("x")
    single, _ = theon.scan(lambda v: v + 1, sequences=x)
    listed, _ = theon.scan(lambda v: v + 1, sequences=x, return_list=True)
    assert isinstance(single, theon.Variable)
    assert isinstance(listed, list) and len(listed) == 1


# shared variables and updates -------------------------------------------------------------
def test_shared_variable_updates_come_back_and_apply():
    c = theon.shared(np.float64(1.0), name="c")
    x = tt.dvector("x")

    def step(v):
        return v * c, {c: c + v}  # each step sees the value updated by the previous one

    ys, upd = theon.scan(step, sequences=x)
    assert list(upd) == [c]
    f = theon.function([x], ys, updates=upd)
    out = f(np.array([1.0, 2.0, 3.0]))
    np.testing.assert_allclose(out, [1.0 * 1.0, 2.0 * 2.0, 3.0 * 4.0])
    assert c.get_value() == 7.0
    f(np.array([1.0]))
    assert c.get_value() == 8.0


def test_shared_variable_read_only_is_implicit_non_sequence():
    W = theon.shared(np.array([[2.0, 0.0], [0.0, 3.0]]), name="W")
    h0 = tt.dvector("h0")
    hs, upd = theon.scan(lambda h: tt.dot(W, h), outputs_info=h0, n_steps=3)
    assert len(upd) == 0
    f = theon.function([h0], hs[-1])
    np.testing.assert_allclose(f(np.array([1.0, 1.0])), [8.0, 27.0])
    W.set_value(np.eye(2))
    np.testing.assert_allclose(f(np.array([1.0, 1.0])), [1.0, 1.0])


# compiled once, linkers, import paths --------------------------------------------------------
def test_body_compiled_once_and_reused():
    x = tt.dvector("x")
    out, _ = theon.scan(lambda v, h: h + v, sequences=x, outputs_info=tt.constant(0.0))
    op = out.owner.inputs[0].owner.op
    f = theon.function([x], out)
    f(np.array([1.0]))
    runner = op.compiled_body().runner
    assert runner is not None
    f(np.array([1.0, 2.0]))
    theon.function([x], out * 2)(np.array([3.0]))
    assert op.compiled_body().runner is runner


def test_inner_graph_protocol():
    x = tt.dvector("x")
    out, _ = theon.scan(lambda v: v * 2, sequences=x)
    op = out.owner.op
    assert len(op.inner_inputs) == 1 and len(op.inner_outputs) == 1
    assert op.inner_outputs[0].owner is not None


@pytest.mark.parametrize(
    "first, second",
    [("import theon.scan.utils", "theon.scan"), ("import theon", "theon.scan")],
)
def test_scan_callable_and_package_in_either_import_order(first, second):
    code = (
        f"{first}\nimport theon, theon.tensor as tt\nimport theon.scan.utils\n"
        "x = tt.dvector('x')\n"
        f"o, u = {second}(lambda v: v + 1, sequences=x)\n"
        "from theon.scan.utils import until\nfrom theon.scan_module import scan, until as u2\n"
        "assert until is u2 and callable(theon.scan) and theon.loop is theon.scan.loop\n"
        "print(o.owner.op)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=str(__import__("pathlib").Path(theon.__file__).parent.parent))
    assert out.returncode == 0, out.stderr
    assert "Scan" in out.stdout


def test_import_theon_does_not_import_scan():
    code = "import sys, theon, theon.tensor; print('theon.scan' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=str(__import__("pathlib").Path(theon.__file__).parent.parent))
    assert out.stdout.strip() == "False", out.stderr


# errors -----------------------------------------------------------------------------------
def test_error_output_type_mismatch_names_both_types():
    x0 = tt.fvector("x0")
    with pytest.raises(TypeError) as e:
        theon.scan(lambda h: h * np.float64(2.0) + tt.dvector("d"), outputs_info=x0, n_steps=2)
    msg = str(e.value)
    assert "output 0" in msg and "float32" in msg and "float64" in msg and "x0" in msg


def test_error_sequence_shorter_than_n_steps():
    x, n = tt.dvector("myseq"), tt.iscalar("n")
    out, _ = theon.scan(lambda v: v + 1, sequences=x, n_steps=n)
    f = theon.function([x, n], out)
    with pytest.raises(ValueError, match="myseq.*2 entries.*3 steps"):
        f(np.array([1.0, 2.0]), 3)


def test_error_negative_n_steps():
    with pytest.raises(ValueError, match="n_steps"):
        theon.scan(lambda h: h, outputs_info=tt.dscalar(), n_steps=-1)
    n = tt.iscalar("n")
    out, _ = theon.scan(lambda h: h + 1, outputs_info=tt.constant(0.0), n_steps=n)
    with pytest.raises(ValueError, match="n_steps must be >= 0"):
        theon.function([n], out)(-2)


def test_error_wrong_taps():
    x0 = tt.dvector("x0")
    with pytest.raises(ValueError, match="negative"):
        theon.scan(lambda a: a, outputs_info=dict(initial=x0, taps=[1]), n_steps=2)
    with pytest.raises(ValueError, match="non-empty"):
        theon.scan(lambda a: a, outputs_info=dict(initial=x0, taps=[]), n_steps=2)
    with pytest.raises(TypeError):  # the step takes one argument, taps give it two
        theon.scan(lambda a: a, outputs_info=dict(initial=x0, taps=[-2, -1]), n_steps=2)
    f = theon.function(
        [x0], theon.scan(lambda a, b: a + b, outputs_info=dict(initial=x0, taps=[-3, -1]),
                         n_steps=2)[0])
    with pytest.raises(ValueError, match="3 steps back.*only 2 rows"):
        f(np.array([1.0, 2.0]))


def test_error_number_of_outputs():
    x = tt.dvector("x")
    with pytest.raises(ValueError, match="returned 2 outputs but outputs_info describes 1"):
        theon.scan(lambda v, h: [h + v, v], sequences=x, outputs_info=[tt.constant(0.0)])


def test_error_needs_n_steps():
    with pytest.raises(ValueError, match="n_steps"):
        theon.scan(lambda h: h, outputs_info=tt.dscalar())


def test_error_state_changes_shape_names_step():
    h0 = tt.dvector("h0")
    out, _ = theon.scan(lambda h: tt.concatenate([h, h]), outputs_info=h0, n_steps=3)
    with pytest.raises(ValueError, match="keep its shape"):
        theon.function([h0], out)(np.ones(2))


def test_body_on_both_linkers_agrees_with_numpy():
    """The body itself compiled by the reference VM and by the py linker (scan's mode=)."""
    X, W, h0 = tt.dmatrix("X"), tt.dmatrix("W"), tt.dvector("h0")
    rng = np.random.default_rng(3)
    Xv, Wv, h0v = rng.normal(size=(6, 3)), rng.normal(size=(3, 3)) * 0.5, rng.normal(size=3)
    h, ref = h0v, []
    for x in Xv:
        h = np.tanh(Wv @ h + x)
        ref.append(h)
    for m in (VM, PY):
        hs, _ = theon.scan(lambda x, h, W: tt.tanh(tt.dot(W, h) + x), sequences=X,
                           outputs_info=h0, non_sequences=W, mode=m)
        f = theon.function([X, W, h0], [hs, theon.grad(hs.sum(), W)], mode=m)
        out, gW = f(Xv, Wv, h0v)
        np.testing.assert_allclose(out, ref, rtol=1e-12)
        scan_nodes = [n for n in f.maker.fgraph.toposort() if type(n.op).__name__ == "Scan"]
        scan_ops = [n.op for n in scan_nodes]
        assert scan_ops and all(
            n.op.compiled_body(n).mode.linker.name == m.linker.name for n in scan_nodes)
        assert {op.mode.linker.name for op in scan_ops} == {m.linker.name}
        if m is VM:
            g_vm = gW
    np.testing.assert_allclose(gW, g_vm, rtol=1e-10)


@pytest.mark.parametrize("outputs_info", [[], ()])
def test_issue29_item5_empty_outputs_info_means_none(outputs_info):
    """Issue 29 item 5: ``outputs_info=[]`` is ``outputs_info=None``: no output is fed
    back (it raised ValueError)."""
    u = tt.dmatrix("u")
    uv = np.arange(12.0).reshape(4, 3)
    step = lambda r: [r * 2, r.sum()]  # noqa: E731
    got, _ = theon.scan(step, sequences=u, outputs_info=outputs_info)
    ref, _ = theon.scan(step, sequences=u, outputs_info=None)
    for f in both([u], got):
        a, b = f(uv)
        np.testing.assert_allclose(a, uv * 2)
        np.testing.assert_allclose(b, uv.sum(axis=1))
    np.testing.assert_allclose(theon.function([u], ref)(uv)[1], uv.sum(axis=1))
    one, _ = theon.scan(lambda r: r * 3, sequences=u, outputs_info=outputs_info)
    np.testing.assert_allclose(theon.function([u], one)(uv), uv * 3)


def test_scans_built_separately_from_the_same_step_are_equal_and_merge() -> None:
    """PyTensor compares Scans by layout, mode and body: ``equal_computations`` of two
    hessians built alike is True (PyMC's tests check it)."""
    import theon
    import theon.tensor as tt
    from theon.graph.replace import equal_computations

    x = tt.dvector("x")
    a, _ = theon.scan(lambda v: v * 2.0, sequences=[x])
    b, _ = theon.scan(lambda v: v * 2.0, sequences=[x])
    c, _ = theon.scan(lambda v: v * 3.0, sequences=[x])
    assert a.owner.op == b.owner.op and hash(a.owner.op) == hash(b.owner.op)
    assert a.owner.op != c.owner.op
    assert equal_computations([a], [b]) and not equal_computations([a], [c])
    f = theon.function([x], [a, b, c])
    xv = np.array([1.0, -2.0, 0.5])
    for out, k in zip(f(xv), (2.0, 2.0, 3.0)):
        np.testing.assert_array_equal(out, xv * k)
