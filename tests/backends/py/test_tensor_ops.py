"""The py linker against the reference VM on a table of tensor ops (theon.tensor API).

Ops with a dedicated emitter (Dot, Shape, Shape_i, reductions, DimShuffle,
scalar/tensor conversions) and ops run through ``perform`` alike.
"""

from __future__ import annotations

import numpy as np
import pytest

import theon.tensor as T
from tests.link.pyfunc_helpers import assert_same, call, runners
from theon.compile.ops import deep_copy_op, view_op
from theon.tensor.alloc_diag import AddDiag

rng = np.random.default_rng(0)

M = rng.normal(size=(3, 4))
M2 = rng.normal(size=(4, 2))
V = rng.normal(size=4)
V3 = rng.normal(size=3)
S = np.array(1.5)
IV = np.array([2, 0, 3, 1], dtype=np.int64)
Q4 = rng.normal(size=(4, 4))

# name -> (inputs, outputs builder, values)
TABLE = {
    "dot_mv": (lambda: [T.dmatrix("m"), T.dvector("v")], lambda m, v: [T.dot(m, v)], [M, V]),
    "dot_vv": (lambda: [T.dvector("a"), T.dvector("b")], lambda a, b: [T.dot(a, b)], [V, V]),
    "dot_mm": (lambda: [T.dmatrix("a"), T.dmatrix("b")], lambda a, b: [T.dot(a, b)], [M, M2]),
    "dot_int_float": (
        lambda: [T.lvector("a"), T.dvector("b")],
        lambda a, b: [T.dot(a, b)],
        [IV, V],
    ),
    "shape": (lambda: [T.dmatrix("m")], lambda m: [m.shape, m.shape[0] + 1], [M]),
    "sum_mean": (
        lambda: [T.dmatrix("m")],
        lambda m: [T.sum(m), T.sum(m, axis=0), T.mean(m, axis=1), T.prod(m)],
        [M],
    ),
    "max_min_arg": (
        lambda: [T.dmatrix("m")],
        lambda m: [T.max(m, axis=1), T.min(m), T.argmax(m, axis=0)],
        [M],
    ),
    "all_any": (lambda: [T.dmatrix("m")], lambda m: [T.all(m > 0), T.any(m > 1, axis=0)], [M]),
    "int_sum": (lambda: [T.lvector("i")], lambda i: [T.sum(i), T.prod(i)], [IV]),
    "transpose_expand": (
        lambda: [T.dmatrix("m")],
        lambda m: [m.T, m.dimshuffle(1, "x", 0), T.exp(m.T) + 1],
        [M],
    ),
    "row_broadcast": (
        lambda: [T.dmatrix("m"), T.dvector("v")],
        lambda m, v: [m * v + T.log(T.abs(v))],
        [M, V],
    ),
    "scalar_tensor": (
        lambda: [T.dscalar("s"), T.dvector("v")],
        lambda s, v: [v * s, T.exp(s) * 2 + s, T.sum(v) / s],
        [S, V],
    ),
    "softmax": (
        lambda: [T.dmatrix("m")],
        lambda m: [T.special.softmax(m, axis=-1), T.special.log_softmax(m, axis=1)],
        [M],
    ),
    "subtensor": (lambda: [T.dmatrix("m")], lambda m: [m[1], m[:, 1:3], m[0, 2] * 2], [M]),
    "advanced": (
        lambda: [T.dmatrix("m"), T.lvector("i")],
        lambda m, i: [m[:, i], T.set_subtensor(m[0], 0.0)],
        [M, IV],
    ),
    "reshape_join": (
        lambda: [T.dmatrix("m")],
        lambda m: [T.reshape(m, (4, 3)), T.concatenate([m, m], axis=0), T.flatten(m)],
        [M],
    ),
    "alloc_fill": (
        lambda: [T.dvector("v")],
        lambda v: [T.zeros_like(v), T.ones((2, 3)), T.fill(v, 3.0)],
        [V],
    ),
    "where_clip": (
        lambda: [T.dvector("v")],
        lambda v: [T.where(v > 0, v, -v), T.clip(v, -0.5, 0.5)],
        [V],
    ),
    "cast_int": (
        lambda: [T.dvector("v")],
        lambda v: [T.cast(v * 10, "int32"), T.cast(v > 0, "float32") + 1],
        [V],
    ),
    "float32": (
        lambda: [T.fvector("f")],
        lambda f: [T.exp(f) * 2, T.sum(f)],
        [V.astype(np.float32)],
    ),
    "cumsum_sort": (lambda: [T.dvector("v")], lambda v: [T.cumsum(v), T.sort(v)], [V]),
    "0d_chain": (
        lambda: [T.dscalar("a"), T.dscalar("b")],
        lambda a, b: [
            T.log1p(T.exp(-T.abs(a))) - 0.5 * ((a - b) / 2.0) ** 2,
            T.sigmoid(a) * b,
            T.switch(a > b, a, b),
        ],
        [S, np.array(-0.25)],
    ),
    "0d_int": (
        lambda: [T.lscalar("i"), T.dscalar("x")],
        lambda i, x: [i * 2 + 1, x * i, T.cast(i, "float64") / 3],
        [np.array(7), S],
    ),
    "shape_of_dying_value": (
        lambda: [T.dscalar("s"), T.fvector("f")],
        lambda s, f: [T.sum(T.minimum(f, s)) / T.cast(T.minimum(f, s).shape[0], "float64")],
        [S, V.astype(np.float32)],
    ),
    "0d_special": (
        lambda: [T.dscalar("a")],
        lambda a: [1.0 / a, T.log(a), T.exp(a * 1000.0), T.sqrt(a)],
        [np.array(0.0)],
    ),
    "reshape_const": (
        lambda: [T.dmatrix("m"), T.dvector("v")],
        lambda m, v: [m.reshape((4, -1)), m.reshape((-1,)) * 2.0, v[1:2].reshape(()),
                      T.exp(v[0:1].reshape(())) + v, m.T.reshape((2, 2, -1))],
        [M, V],
    ),
    "structural": (
        lambda: [T.dmatrix("m"), T.dvector("v"), T.dscalar("s")],
        lambda m, v, s: [
            view_op(m) * 2.0, deep_copy_op(v), T.stack([s, s * 2.0, T.sum(v)]),
            T.alloc(s, v.shape[0], 2), T.alloc(v, 3, v.shape[0]),
            T.alloc(T.constant(0.0), m.shape[1]),
        ],
        [M, V, S],
    ),
    "subtensor_const": (
        lambda: [T.dmatrix("m"), T.dvector("v")],
        lambda m, v: [m[1], m[1:, 2], m[2, 3], v[-1], m[::-1, ::2], m[0:2, 1] * 2.0],
        [M, V],
    ),
    "inc_subtensor_const": (
        lambda: [T.dmatrix("m"), T.dvector("v"), T.dscalar("s")],
        lambda m, v, s: [T.inc_subtensor(m[1], v), T.set_subtensor(m[1:, 2], s),
                         T.inc_subtensor(v[2], s), T.set_subtensor((v * 2)[-1], s),
                         T.inc_subtensor(T.exp(m)[0, 1:3], 1.0)],
        [M, V, S],
    ),
    "inc_subtensor_int_into_float": (
        lambda: [T.dvector("v"), T.lscalar("i")],
        lambda v, i: [T.inc_subtensor(v[1], i), T.set_subtensor((v + 1)[0], i)],
        [V, np.array(3, dtype=np.int64)],
    ),
    "join_stack": (
        lambda: [T.dvector("a"), T.dvector("b"), T.lvector("i")],
        lambda a, b, i: [T.stack([a, b, a * 2]), T.concatenate([a, b, i]),
                         T.join(1, a[:, None], b[:, None])],
        [V, V[::-1].copy(), IV],
    ),
    "scalar_operands": (
        lambda: [T.fvector("f"), T.dscalar("s"), T.lvector("i"), T.iscalar("k"), T.dmatrix("m"),
                 T.lscalar("j")],
        lambda f, s, i, k, m, j: [f * s, i + k, f * k, m - s * 2.0, T.maximum(m, s),
                                  (s + 1.0).dimshuffle("x") * (s * 3.0).dimshuffle("x"),
                                  i // j, T.exp(s) * m],
        [V3.astype("float32"), S, IV, np.array(3, dtype="int32"), M,
         np.array(2, dtype=np.int64)],
    ),
    "add_diag_layouts": (
        lambda: [T.dmatrix("q"), T.dvector("v")],
        lambda q, v: [AddDiag(inplace=True)(q * 2.0, v),  # C order
                      AddDiag(inplace=True)(q.T * 2.0, v),  # Fortran order
                      AddDiag(inplace=True)((q * 3.0)[::2, ::2], v[::2]),  # strided
                      AddDiag()(q, v)],
        [Q4, V],
    ),
    "matrix_vec_grad_like": (
        lambda: [T.dmatrix("X"), T.dvector("w"), T.dscalar("b")],
        lambda X, w, b: [T.sum(T.sigmoid(T.dot(X, w) + b) * 2.0), T.dot(X.T, T.tanh(T.dot(X, w)))],
        [M, V, S],
    ),
}


@pytest.mark.parametrize("name", sorted(TABLE))
def test_tensor_ops_match_vm(name):
    make_inputs, build, values = TABLE[name]
    ins = make_inputs()
    outs = build(*ins)
    fast, vm = runners(ins, outs)
    slow, _ = runners(ins, outs, float_path=False)
    want = call(vm, values)
    assert not isinstance(want, Exception), want
    assert_same(call(slow, values), want, where=name)
    assert_same(call(fast, values), want, maxulp=4, where=name)
    # a second call gives the same, and does not disturb the first call's results
    first = call(fast, values)
    kept = [np.array(o, copy=True) for o in first]
    again = call(fast, values)
    assert_same(again, want, maxulp=4, where=name)
    for a, k in zip(first, kept):
        assert np.array_equal(a, k, equal_nan=True)


def test_profile_records_tensor_nodes():
    class Rec:
        def __init__(self):
            self.nodes = []

        def record(self, node, seconds):
            self.nodes.append(node)

    m, v = T.dmatrix("m"), T.dvector("v")
    from theon.graph.fg import FunctionGraph
    from theon.link.pyfunc import PyLinker

    fg = FunctionGraph([m, v], [T.sum(T.exp(m) * v)])
    rec = Rec()
    run = PyLinker().make_function(fg, profile=rec)
    run(M, V)
    assert rec.nodes == fg.toposort()


@pytest.mark.parametrize(
    "name",
    [
        "dot_mv",
        "dot_vv",
        "dot_mm",
        "shape",
        "transpose_expand",
        "row_broadcast",
        "scalar_tensor",
        "0d_chain",
        "subtensor_const",
        "reshape_const",
        "structural",
        "inc_subtensor_const",
        "join_stack",
        "add_diag_layouts",
        "scalar_operands",
    ],
)
def test_core_ops_are_emitted_inline(name):
    """These graphs need no ``perform`` call: every node has a direct spelling."""
    make_inputs, build, _ = TABLE[name]
    ins = make_inputs()
    run, _ = runners(ins, build(*ins))
    assert "_perform" not in run.source, run.source


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int32"])
def test_inplace_negate_of_a_strided_column(dtype):
    """``-(exp(m)[:, j])`` negates a column view of a dead buffer in place: NumPy 2.4's
    ``np.negative(v, out=v)`` is wrong for column strides of 4 and 8 elements, so the
    emitted call checks the buffer and computes a new array there."""
    import theon

    m = T.matrix("m", dtype=dtype)
    for cols in range(1, 18):
        j = cols // 2
        f = theon.function([m], -((m * 3)[:, j]))
        src = f.maker.linker.make_function(f.maker.fgraph).source
        mv = (rng.normal(size=(9, cols)) * 10).astype(dtype)
        np.testing.assert_array_equal(f(mv), -(mv * 3)[:, j])
        assert "flags.forc" in src


# Gemm / Gemv emitter: the same values as perform (the reference VM), constants folded in
@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
@pytest.mark.parametrize("alpha, beta", [(1.0, 1.0), (2.0, 1.0), (1.0, -1.0), (0.5, 3.0),
                                         (1.0, 0.0), (0.0, 2.0)])
@pytest.mark.parametrize("kind", ["gemm", "gemv"])
def test_gemm_emitter_matches_perform(dtype: str, alpha: float, beta: float, kind: str) -> None:
    import theon
    import theon.tensor as tt
    from theon.compile.mode import Mode
    from theon.tensor.rewriting.blas import Gemm, Gemv

    rng = np.random.default_rng(3)
    zdim = 2 if kind == "gemm" else 1
    z = tt.tensor(dtype=dtype, shape=(None,) * zdim, name="z")
    x = tt.matrix("x", dtype=dtype)
    y = tt.tensor(dtype=dtype, shape=(None,) * zdim, name="y")
    op = Gemm() if kind == "gemm" else Gemv()
    out = op(z, tt.constant(alpha, dtype=dtype), x, y, tt.constant(beta, dtype=dtype))
    vals = [rng.normal(size=(4, 3) if zdim == 2 else (4,)),
            rng.normal(size=(4, 5)), rng.normal(size=(5, 3) if zdim == 2 else (5,))]
    vals = [v.astype(dtype) for v in vals]
    py = theon.function([z, x, y], out, mode=Mode(linker="py", optimizer=None))
    vm = theon.function([z, x, y], out, mode=Mode(linker="vm", optimizer=None))
    src = py._runner.source
    assert src is not None and "perform" not in src and "dot" in src
    got, want = py(*vals), vm(*vals)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    np.testing.assert_allclose(
        want, beta * vals[0] + alpha * np.dot(vals[1], vals[2]), rtol=1e-5, atol=1e-5
    )


def test_add_diag_of_a_non_square_matrix_raises_as_perform():
    m, v = T.dmatrix("m"), T.dvector("v")
    fast, vm = runners([m, v], [AddDiag(inplace=True)(m * 2.0, v)])
    got, want = call(fast, [M, V3]), call(vm, [M, V3])
    assert isinstance(want, ValueError)
    assert_same(got, want)
