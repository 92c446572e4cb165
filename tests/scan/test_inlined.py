"""The step loop with the body inlined (theon.scan.steploop.inline_step_loop) and the
reuse of a Scan's large buffers (theon.scan.buffers): used where they apply, results
bit-identical to the generic loop, errors as the runner reports them, and no result a
caller holds is ever overwritten."""

from __future__ import annotations

import linecache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import theon
import theon.tensor as tt
from theon.scan import Scan
from theon.scan.buffers import MIN_BYTES
from theon.scan.op import _UNSET
from theon.scan.steploop import inline_step_loop, inline_step_loop_source, make_step_loop


def scan_nodes(f):
    return [n for n in f.maker.fgraph.toposort() if isinstance(n.op, Scan)]


def loop_text(loop):
    return "".join(linecache.getlines(loop.__code__.co_filename))


def rnn(n_in_loop_dot=True):
    xs, h0, w = tt.dtensor3("xs"), tt.dmatrix("h0"), tt.dmatrix("w")
    hs, _ = theon.scan(lambda x, h, w: tt.tanh(x + tt.dot(h, w)), sequences=xs,
                       outputs_info=h0, non_sequences=w)
    return [xs, h0, w], hs


def generic_results(f, args):
    """``f(*args)`` with every Scan of ``f`` on the loop that calls the runner."""
    nodes = scan_nodes(f)
    for n in nodes:
        i = n.op.info
        n.op.compiled_body(n).step_loop = make_step_loop(i.n_seqs, i.store_last, i.n_nit,
                                                         i.n_nonseqs)
    try:
        return f(*args)
    finally:
        for n in nodes:
            n.op.compiled_body(n).step_loop = _UNSET


def test_the_rnn_step_is_inlined_and_its_product_written_into_the_history():
    ins, hs = rnn()
    f = theon.function(ins, hs)
    rng = np.random.default_rng(0)
    args = [rng.normal(size=(7, 3, 4)), rng.normal(size=(3, 4)), rng.normal(size=(4, 4))]
    got = f(*args)
    (node,) = scan_nodes(f)
    loop = node.op.compiled_body(node).step_loop
    assert getattr(loop, "inlined", False)
    assert "out=_row0" in loop_text(loop)
    h, want = args[1], []
    for x in args[0]:
        h = np.tanh(x + h @ args[2])
        want.append(h)
    np.testing.assert_allclose(got, np.array(want), rtol=1e-12)
    np.testing.assert_array_equal(got, generic_results(f, args))


def test_the_rnn_gradient_is_bit_identical_to_the_generic_loop():
    ins, hs = rnn()
    loss = hs[-1].mean()
    f = theon.function(ins, [loss, *theon.grad(loss, ins[1:])])
    rng = np.random.default_rng(1)
    args = [rng.normal(size=(6, 2, 3)), rng.normal(size=(2, 3)), rng.normal(size=(3, 3))]
    got = f(*args)
    assert all(getattr(n.op.compiled_body(n).step_loop, "inlined", False)
               for n in scan_nodes(f))
    for g, w in zip(got, generic_results(f, args), strict=True):
        np.testing.assert_array_equal(g, w)


def test_an_error_is_reported_by_the_runner_and_the_body_stops_being_inlined():
    xs, h0, w = tt.dtensor3("xs"), tt.dmatrix("h0"), tt.dmatrix("w")
    hs, _ = theon.scan(lambda x, h, w: tt.dot(h, w) + x, sequences=xs, outputs_info=h0,
                       non_sequences=w)
    f = theon.function([xs, h0, w], hs)
    rng = np.random.default_rng(2)
    f(rng.normal(size=(3, 2, 2)), rng.normal(size=(2, 2)), rng.normal(size=(2, 2)))
    (node,) = scan_nodes(f)
    assert getattr(node.op.compiled_body(node).step_loop, "inlined", False)
    # a w that does not fit h: the product fails in step 0, reported with its node
    with pytest.raises(ValueError) as err:
        f(rng.normal(size=(3, 2, 2)), rng.normal(size=(2, 2)), rng.normal(size=(3, 2)))
    notes = "\n".join(getattr(err.value, "__notes__", []))
    assert "in step 0" in notes and "Dot" in notes
    loop = node.op.compiled_body(node).step_loop
    assert callable(loop) and not getattr(loop, "inlined", False)
    # and it still computes
    a = [rng.normal(size=(3, 2, 2)), rng.normal(size=(2, 2)), rng.normal(size=(2, 2))]
    h, want = a[1], []
    for x in a[0]:
        h = h @ a[2] + x
        want.append(h)
    np.testing.assert_allclose(f(*a), np.array(want), rtol=1e-12)


def test_a_body_of_another_shape_is_not_inlined():
    class R:
        source = "def run(i0):\n    return [i0]\n"
        fn = staticmethod(lambda i0: [i0])

    assert inline_step_loop(R(), 0, (False,), 0, 0) is None
    # a body using a name the loop defines, or assigning an argument
    src = ("def run(i0):\n    try:\n        {}\n        return [v0]\n"
           "    except Exception as _e:\n        raise\n")
    assert inline_step_loop_source(src.format("v0 = i0 + _t"), {}, 0, (False,), 0, 0) is None
    assert inline_step_loop_source(src.format("i0 = v0 = i0 * 2"), {}, 0, (False,), 0,
                                   0) is None
    assert inline_step_loop_source(src.format("v0 = i0 * 2"), {}, 0, (False,), 0, 0)


def test_a_value_that_is_not_the_product_is_copied_into_the_history():
    """The state starts as dot(h, w) in the row, but the body's value is a new array."""
    xs, h0, w = tt.dtensor3("xs"), tt.dmatrix("h0"), tt.dmatrix("w")
    hs, ys = theon.scan(lambda x, h, w: [tt.dot(h, w)[::-1] + x, tt.dot(h, w).sum(0)],
                        sequences=xs, outputs_info=[h0, None], non_sequences=w)[0]
    f = theon.function([xs, h0, w], [hs, ys])
    rng = np.random.default_rng(3)
    args = [rng.normal(size=(5, 3, 3)), rng.normal(size=(3, 3)), rng.normal(size=(3, 3))]
    got = f(*args)
    h, want, wy = args[1], [], []
    for x in args[0]:
        p = h @ args[2]
        wy.append(p.sum(0))
        h = p[::-1] + x
        want.append(h)
    np.testing.assert_allclose(got[0], np.array(want), rtol=1e-12)
    np.testing.assert_allclose(got[1], np.array(wy), rtol=1e-12)
    for g, w_ in zip(got, generic_results(f, args), strict=True):
        np.testing.assert_array_equal(g, w_)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(0, 6), b=st.integers(1, 3), k=st.integers(1, 4),
       body=st.sampled_from(["tanh", "affine", "two", "nit"]), seed=st.integers(0, 2**16))
def test_differential_inlined_against_generic_and_numpy(n, b, k, body, seed):
    rng = np.random.default_rng(seed)
    xs, h0, w = tt.dtensor3("xs"), tt.dmatrix("h0"), tt.dmatrix("w")
    steps = {
        "tanh": lambda x, h, w: tt.tanh(tt.dot(h, w) + x),
        "affine": lambda x, h, w: 0.5 * tt.dot(h, w) - x,
        "two": lambda x, h, w: [tt.dot(h, w) + x, None],
        "nit": lambda x, h, w: [tt.sin(tt.dot(h, w)) * x, (h * x).sum(1)],
    }
    np_steps = {
        "tanh": lambda x, h, w: (np.tanh(h @ w + x), None),
        "affine": lambda x, h, w: (0.5 * (h @ w) - x, None),
        "two": lambda x, h, w: (h @ w + x, None),
        "nit": lambda x, h, w: (np.sin(h @ w) * x, (h * x).sum(1)),
    }
    if body in ("two", "nit"):
        info = [h0, None] if body == "nit" else [h0]
        step = steps[body]
        outs, _ = theon.scan((lambda x, h, w: step(x, h, w)[:len(info)]) if body == "two"
                             else step, sequences=xs, outputs_info=info, non_sequences=w)
        outs = outs if isinstance(outs, list) else [outs]
    else:
        outs = [theon.scan(steps[body], sequences=xs, outputs_info=h0, non_sequences=w)[0]]
    f = theon.function([xs, h0, w], outs)
    args = [rng.normal(size=(n, b, k)), rng.normal(size=(b, k)), rng.normal(size=(k, k))]
    got = f(*args)
    for g, w_ in zip(got, generic_results(f, args), strict=True):
        np.testing.assert_array_equal(g, w_)
    h, hist, ys = args[1], [], []
    for x in args[0]:
        h, y = np_steps[body](x, h, args[2])
        hist.append(h)
        ys.append(y)
    np.testing.assert_allclose(got[0], np.array(hist).reshape(got[0].shape), rtol=1e-10,
                               atol=1e-12)
    if body == "nit":
        np.testing.assert_allclose(got[1], np.array(ys).reshape(got[1].shape), rtol=1e-10,
                                   atol=1e-12)


# -- buffer reuse -------------------------------------------------------------------------
def big_rnn_args(seed, n=None):
    rng = np.random.default_rng(seed)
    n = n or MIN_BYTES // (8 * 8 * 8) + 5  # a history above MIN_BYTES
    return [rng.normal(size=(n, 8, 8)), rng.normal(size=(8, 8)), 0.3 * rng.normal(size=(8, 8))]


def numpy_rnn(xs, h0, w):
    h, out = h0, []
    for x in xs:
        h = np.tanh(x + h @ w)
        out.append(h)
    return np.array(out)


def test_results_a_caller_holds_are_never_overwritten():
    ins, hs = rnn()
    f = theon.function(ins, [hs, hs[1:], hs[-1]])
    a, b = big_rnn_args(4), big_rnn_args(5)
    first = f(*a)
    second = f(*b)
    for got, args in ((first, a), (second, b)):
        want = numpy_rnn(*args)
        np.testing.assert_allclose(got[0], want, rtol=1e-12)
        np.testing.assert_allclose(got[1], want[1:], rtol=1e-12)
        np.testing.assert_allclose(got[2], want[-1], rtol=1e-12)


def test_a_view_kept_by_the_caller_keeps_the_buffer_out_of_reuse():
    ins, hs = rnn()
    f = theon.function(ins, theon.Out(hs[2:], borrow=True))
    a, b = big_rnn_args(6), big_rnn_args(7)
    view = f(*a)
    keep = view.copy()
    f(*b)
    np.testing.assert_array_equal(view, keep)


def test_an_internal_buffer_is_reused_from_one_call_to_the_next():
    ins, hs = rnn()
    f = theon.function(ins, hs[1:].sum(axis=0))
    (node,) = scan_nodes(f)
    seen = []

    class Spy:
        def __init__(self, real):
            self.real = real

        def empty(self, key, shape, dtype):
            arr = self.real.empty(key, shape, dtype)
            seen.append(arr.ctypes.data)
            return arr

    node.op._buffers = Spy(node.op._buffers)
    a, b = big_rnn_args(8), big_rnn_args(9)
    np.testing.assert_allclose(f(*a), numpy_rnn(*a)[1:].sum(0), rtol=1e-12)
    np.testing.assert_allclose(f(*b), numpy_rnn(*b)[1:].sum(0), rtol=1e-12)
    assert len(seen) == 2 and seen[0] == seen[1]


def test_reuse_across_threads_gives_each_call_its_own_buffer():
    import threading

    ins, hs = rnn()
    f = theon.function(ins, hs)
    sets = [big_rnn_args(s) for s in range(10, 16)]
    out: dict[int, np.ndarray] = {}

    def work(i: int) -> None:
        for _ in range(3):
            out[i] = f(*sets[i])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(sets))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i, args in enumerate(sets):
        np.testing.assert_allclose(out[i], numpy_rnn(*args), rtol=1e-12)


# -- non-sequences --------------------------------------------------------------------------
def test_a_transposed_matrix_non_sequence_is_read_c_ordered(monkeypatch):
    import theon.scan.op as scan_op

    made = []
    real = scan_op._c_ordered

    def spy(w):
        out = real(w)
        if out is not w:
            made.append(out.flags.c_contiguous)
        return out

    monkeypatch.setattr(scan_op, "_c_ordered", spy)
    h0, w = tt.dmatrix("h0"), tt.dmatrix("w")
    hs, _ = theon.scan(lambda h, wt: tt.tanh(tt.dot(h, wt)), outputs_info=h0,
                       non_sequences=w.T, n_steps=12)
    f = theon.function([h0, w], hs)
    rng = np.random.default_rng(20)
    a0, aw = rng.normal(size=(3, 4)), rng.normal(size=(4, 4))
    got = f(a0, aw)
    assert made == [True]
    h, want = a0, []
    for _ in range(12):
        h = np.tanh(h @ aw.T)
        want.append(h)
    np.testing.assert_allclose(got, np.array(want), rtol=1e-12)
    # a short loop reads the view as it is
    made.clear()
    f2 = theon.function([h0, w], theon.scan(lambda h, wt: h + wt, outputs_info=h0,
                                            non_sequences=w.T, n_steps=2)[0])
    b0 = rng.normal(size=(4, 4))
    np.testing.assert_allclose(f2(b0, aw)[-1], b0 + 2 * aw.T, rtol=1e-12)
    assert made == []


def test_buffer_cache_keeps_only_mid_sized_arrays_and_few_of_them():
    from theon.scan import buffers

    cache = buffers.BufferCache()
    small = cache.empty("a", (4,), np.float64)
    big = cache.empty("b", (buffers.MAX_BYTES // 8 + 1,), np.float64)
    assert small.shape == (4,) and big.nbytes > buffers.MAX_BYTES
    assert not cache._free  # neither is kept
    for k in range(buffers.MAX_ENTRIES + 3):
        cache.empty(("c", k), (buffers.MIN_BYTES // 8,), np.float64)
    assert len(cache._free) == buffers.MAX_ENTRIES
    cache.clear()
    assert not cache._free
