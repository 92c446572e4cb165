"""The JAX linker against the reference VM on a table of tensor ops: the py linker's
table (``tests/backends/py/test_tensor_ops.py``) and the ops it does not reach.

Each graph runs unrewritten (``FunctionGraph`` + linker: every Op as built) and
through ``theon.function(..., mode="JAX")`` (the rewritten graph) against the VM.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("jax", reason="mode='JAX' needs jax (pip install 'theon[jax]')")

import theon
import theon.tensor as T
from tests.backends.jax.helpers import assert_close, run_both
from tests.backends.py.test_tensor_ops import TABLE as PY_TABLE
from theon.compile.mode import Mode
from theon.tensor.alloc_diag import AddDiag, AllocDiag
from theon.tensor.broadcast_grad import BroadcastGrad
from theon.tensor.creation import SumToShape
from theon.tensor.recurrence import LinearRecurrence
from theon.tensor.rewriting.blas import Gemm, Gemv
from theon.tensor.shape import MakeVector
from theon.tensor.sort import PutAlongAxis
from theon.tensor.subtensor import SliceLength

rng = np.random.default_rng(1)
M = rng.normal(size=(3, 4))
SQ = rng.normal(size=(3, 3))
V = rng.normal(size=4)
V3 = rng.normal(size=3)
IV = np.array([2, 0, 3, 1], dtype=np.int64)
I3 = np.array([1, 1, 0], dtype=np.int64)
T3 = rng.normal(size=(2, 3, 4))
F32 = rng.normal(size=(3, 4)).astype(np.float32)

EXTRA = {
    "inc_subtensor": (lambda: [T.dmatrix("m"), T.dvector("v")],
                      lambda m, v: [T.inc_subtensor(m[1:, ::2], v[:2]),
                                    T.set_subtensor(m[-1], v), T.inc_subtensor(m[0, 1], 5.0)],
                      [M, V]),
    "inc_subtensor_sym": (lambda: [T.dmatrix("m"), T.lscalar("i")],
                          lambda m, i: [m[i], T.inc_subtensor(m[i], 1.0), m[:, i]],
                          [M, np.array(2)]),
    "advanced_inc": (lambda: [T.dmatrix("m"), T.lvector("i")],
                     lambda m, i: [T.inc_subtensor(m[i[:2]], 1.0),
                                   T.set_subtensor(m[:, i], 0.0), m[i[:2], i[:2]]],
                     [M, IV]),
    "advanced_inc_repeat": (lambda: [T.dvector("v"), T.lvector("i")],
                            lambda v, i: [T.inc_subtensor(v[i], 1.0), v[i] * 2],
                            [V3, I3]),
    "bool_mask_constant": (lambda: [T.dvector("v")],
                           lambda v: [v[np.array([True, False, True, True])]], [V]),
    "creation": (lambda: [T.dmatrix("m")],
                 lambda m: [T.arange(5), T.arange(1, 7, 2, dtype="float64"), T.eye(3, 4, 1),
                            T.linspace(0.0, 1.0, 5), T.full((2, 2), 3.5),
                            T.zeros_like(m, dtype="int32"), T.ones((2,), dtype="bool")],
                 [M]),
    "alloc_diag": (lambda: [T.dvector("v"), T.dmatrix("s")],
                   lambda v, s: [AllocDiag()(v), AddDiag()(s, v[:3]), T.diag(v)],
                   [V, SQ]),
    "join_split": (lambda: [T.dmatrix("m"), T.dmatrix("n")],
                   lambda m, n: [T.concatenate([m, n], axis=1),
                                 *T.split(m, [1, 3], 2, axis=1), T.stack([m, n])],
                   [M, M * 2]),
    "reshape_dims": (lambda: [T.tensor3("t")],
                     lambda t: [t.reshape((4, 6)), t.dimshuffle(2, 0, 1), t.flatten(),
                                T.squeeze(t[:, :1, :]), T.expand_dims(t, 1), T.swapaxes(t, 0, 2)],
                     [T3]),
    "products": (lambda: [T.tensor3("t"), T.dmatrix("m")],
                 lambda t, m: [T.matmul(t, m.T), T.einsum("ijk,lk->ijl", t, m),
                               T.tensordot(t, m, axes=[[2], [1]]), T.outer(m[0], m[1])],
                 [T3, M]),
    "blas": (lambda: [T.dmatrix("z"), T.dmatrix("x"), T.dmatrix("y"), T.dvector("v")],
             lambda z, x, y, v: [Gemm()(z, 0.5, x, y, -2.0), Gemv()(v[:3], 2.0, x, y[:, 0], 1.5)],
             [SQ, M, M.T.copy(), V]),
    "blas_transposed": (lambda: [T.dmatrix("z"), T.dmatrix("m"), T.dmatrix("n"), T.dvector("v")],
                        lambda z, m, n, v: [Gemm()(z, 1.0, m.T, m, 0.5),
                                            Gemm()(z[:3, :3], 2.0, m, m.T, -1.0),
                                            Gemv()(v, 1.5, m.T, v[:3], 1.0),
                                            T.dot(m.T, n.T), T.dot(m.T, v[:3]),
                                            T.dot(n, m)],
                        [rng.normal(size=(4, 4)), M, rng.normal(size=(2, 3)), V]),
    "sorting": (lambda: [T.dmatrix("m"), T.lmatrix("i")],
                lambda m, i: [T.sort(m, axis=0), T.argsort(m, axis=1), T.sort(m, axis=None),
                              T.take_along_axis(m, i, axis=1),
                              PutAlongAxis(1)(m[:, :2], T.argsort(m[:, :2], axis=1)),
                              PutAlongAxis(1, accumulate=True)(m, i[:, :2], m[:, :2])],
                [M, np.argsort(M, axis=1)]),
    "extra_ops": (lambda: [T.dmatrix("m"), T.lvector("r")],
                  lambda m, r: [T.cumsum(m, axis=1), T.cumprod(m, axis=0), T.cumsum(m),
                                T.repeat(m, 2, axis=0), T.repeat(m, np.array([1, 0, 2, 1]), axis=1),
                                T.roll(m, 1, axis=1), T.flip(m, 0)],
                  [M, IV]),
    "reductions": (lambda: [T.dmatrix("m"), T.lmatrix("i"), T.bmatrix("b")],
                   lambda m, i, b: [T.max(m, axis=(0, 1)), T.argmax(m, axis=None),
                                    T.argmin(m, axis=1), T.prod(i, axis=0), T.sum(b),
                                    T.mean(m), T.var(m, axis=0), T.std(m),
                                    T.all(i, axis=1), T.any(i), T.sum(i, dtype="int32"),
                                    T.logsumexp(m, axis=1), T.max(b)],
                   [M, np.argsort(M, axis=1) - 1, (M * 3).astype(np.int8)]),
    "special_fns": (lambda: [T.dvector("v")],
                    lambda v: [T.erf(v), T.erfc(v), T.gammaln(T.abs(v) + 0.5),
                               T.psi(T.abs(v) + 0.5), T.softplus(v * 30), T.softsign(v),
                               T.log1mexp(-T.abs(v) - 0.01), T.erfinv(v / 3),
                               T.erfcinv(T.abs(v) / 3 + 0.01), T.sigmoid(v),
                               T.polygamma(1, T.abs(v) + 0.5), T.gamma(T.abs(v) + 0.5)],
                    [V]),
    # sigmoid(-z), softplus(-z) are computed from z, sharing exp(-|z|) with sigmoid(z)
    "logistic_pairs": (lambda: [T.dvector("z"), T.fvector("f")],
                       lambda z, f: [T.sigmoid(-z), T.softplus(-z), T.sigmoid(z),
                                     T.softplus(z), T.sigmoid(-f), T.softplus(-f),
                                     T.sigmoid(-(z * 2))],
                       [np.array([-800.0, -30.0, -1.0, -0.0, 0.0, 1e-300, 0.5, 30.0, 800.0]),
                        np.array([-90.0, -1.0, 0.0, 2.0, 90.0], dtype=np.float32)]),
    "shape_ops": (lambda: [T.dmatrix("m"), T.lscalar("n")],
                  lambda m, n: [T.specify_shape(m, (3, 4)) * 2, T.unbroadcast(m, 0),
                                MakeVector("int64")(n, m.shape[0], 3),
                                SliceLength((1, None, 2))(m.shape[1]),
                                T.second(m, 2.0), T.broadcast_to(m[0], (2, 4))],
                  [M, np.array(5)]),
    "grad_helpers": (lambda: [T.dmatrix("g"), T.drow("x"), T.dmatrix("h")],
                     lambda g, x, h: [BroadcastGrad()(g, x), SumToShape()(h, x.shape),
                                      LinearRecurrence(1)(g * 0.5, h),
                                      LinearRecurrence(0, reverse=True)(g * 0.5, h)],
                     [M, V[None, :], M * 3]),
    "float32_mix": (lambda: [T.fmatrix("f"), T.dmatrix("m"), T.ivector("i")],
                    lambda f, m, i: [f * m, T.exp(f), f.sum(axis=0), T.dot(f, f.T),
                                     i * 2.5, f + i[:3, None], T.cast(f, "int16"),
                                     T.special.softmax(f, axis=0)],
                    [F32, M, np.array([1, -2, 3], dtype=np.int32)]),
    "int_arith": (lambda: [T.lvector("a"), T.lvector("b")],
                  lambda a, b: [a // b, a % b, a * b - a, a / b, T.maximum(a, b), abs(a),
                                a & b, a | b, a ^ b, ~a, a < b, T.eq(a, b), a**2, T.sqr(b)],
                  [np.array([7, -7, 8, 0]), np.array([2, 3, -3, 5])]),
    "switch_clip_round": (lambda: [T.dvector("v")],
                          lambda v: [T.switch(v > 0, v, 0.0), T.clip(v, -0.3, 0.4),
                                     T.round(v * 4), T.floor(v), T.ceil(v), T.trunc(v),
                                     T.isnan(T.log(v)), T.isinf(1 / (v * 0)), 1.0 / v],
                          [np.array([0.125, -0.375, 2.5, -1.5])]),
    "complex": (lambda: [T.zvector("z")],
                lambda z: [T.real(z), T.imag(z), T.conj(z), z * z, T.abs(z), T.exp(z)],
                [np.array([1 + 2j, -0.5 + 0.25j])]),
}

ALL = {**{f"py_{k}": v for k, v in PY_TABLE.items()}, **EXTRA}


@pytest.mark.parametrize("name", sorted(ALL))
def test_unrewritten_graph_matches_vm(name):
    make_inputs, build, values = ALL[name]
    ins = make_inputs()
    outs = build(*ins)
    got, want = run_both(ins, outs, values)
    assert_close(got, want, where=name)


@pytest.mark.parametrize("name", sorted(ALL))
def test_function_in_jax_mode_matches_vm(name):
    make_inputs, build, values = ALL[name]
    ins = make_inputs()
    outs = build(*ins)
    kw = {"on_unused_input": "ignore", "accept_inplace": True}  # some rows build inplace ops
    fj = theon.function(ins, outs, mode="JAX", **kw)
    fv = theon.function(ins, outs, mode=Mode(linker="vm"), **kw)
    with np.errstate(all="ignore"):
        want = fv(*values)
    assert_close(fj(*values), want, where=name)
    assert_close(fj(*values), want, where=name + " (second call)")


def test_fused_composites_of_the_default_mode_match_vm():
    """Composite (what the fusion phase makes; mode="JAX" leaves fusion to XLA) through
    the JAX linker: the default mode's rewritten graph, inplace ops included."""
    x, y = T.dvector("x"), T.dvector("y")
    i = T.lvector("i")
    outs = [T.exp(-(x**2)) * T.sin(y) + T.log1p(x**2) - T.tanh(y) / 2 + T.sqrt(abs(x * y) + 1),
            T.switch(x > y, x * i, T.cast(i, "float32")), (x + 1) * (y - 2) / (x * x + 3)]
    f = theon.function([x, y, i], outs)
    fg = f.maker.fgraph
    assert any("Composite" in str(n.op) for n in fg.apply_nodes)
    from theon.link.jax import JAXLinker
    from theon.link.vm import VMLinker

    vals = [V, V[::-1].copy(), IV]
    got = JAXLinker().make_function(fg)(*[v.copy() for v in vals])
    want = VMLinker().make_function(fg)(*[v.copy() for v in vals])
    assert_close(got, want, where="fused")
