"""``mode="JAX"``: writes into a matrix's diagonal (``AddDiag``, ``x[i, i] (+)= y`` with
``i = arange(n)``) become selects on an iota mask instead of scatters, and the failure
guard of the linear-algebra rules reads the inputs only when an output is not finite.
Values against the reference VM and NumPy; the lowering checked on the jaxpr."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="mode='JAX' needs jax (pip install 'theon[jax]')")

import theon  # noqa: E402
import theon.tensor as tt  # noqa: E402
from theon.compile.mode import Mode  # noqa: E402
from theon.graph.fg import FunctionGraph  # noqa: E402
from theon.link.jax import JAXLinker  # noqa: E402
from theon.tensor.alloc_diag import AddDiag  # noqa: E402
from theon.tensor.linalg import solve_triangular  # noqa: E402

from .helpers import assert_close, run_both  # noqa: E402

VM = Mode(linker="vm")
RNG = np.random.default_rng(7)


def _jaxpr(ins, outs, values):
    fn = JAXLinker().funcify_fgraph(FunctionGraph(ins, outs))
    with jax.enable_x64(True):
        return str(jax.make_jaxpr(fn)(*values))


def _diag_graphs():
    x, v, s = tt.dmatrix("x"), tt.dvector("v"), tt.dscalar("s")
    i = tt.arange(x.shape[0])
    return [x, v, s], [
        AddDiag()(x, v),
        tt.inc_subtensor(x[i, i], v),
        tt.set_subtensor(x[i, i], v),
        tt.inc_subtensor(x[i, i], s),
        tt.set_subtensor(x[i, i], s),
        x[i, i] * 2.0,
    ]


def test_diagonal_writes_match_the_vm_and_numpy():
    ins, outs = _diag_graphs()
    xv, vv = RNG.normal(size=(4, 4)), RNG.normal(size=4)
    got, want = run_both(ins, outs, [xv, vv, 2.5])
    assert_close(got, want, "diagonal")
    # independently, by NumPy loops
    ref = [xv.copy() for _ in range(5)]
    for k in range(4):
        ref[0][k, k] += vv[k]
        ref[1][k, k] += vv[k]
        ref[2][k, k] = vv[k]
        ref[3][k, k] += 2.5
        ref[4][k, k] = 2.5
    for g, r in zip(got[:5], ref):
        np.testing.assert_allclose(g, r, rtol=1e-15)
    # NaN and inf off the diagonal stay where they are (a select, not x + 0 * ...)
    xn = xv.copy()
    xn[0, 1], xn[2, 3] = np.nan, np.inf
    got, want = run_both(ins, outs, [xn, vv, 2.5])
    assert_close(got, want, "diagonal with nan/inf")


def test_diagonal_writes_are_selects_not_scatters():
    ins, outs = _diag_graphs()
    text = _jaxpr(ins, outs[:5], [np.zeros((4, 4)), np.zeros(4), 0.0])
    assert "scatter" not in text
    assert "iota" in text and "select_n" in text


def test_other_index_patterns_still_scatter_and_match():
    x, v = tt.dmatrix("x"), tt.dvector("v")
    i = tt.arange(x.shape[0])
    j = tt.arange(x.shape[0])[::-1]
    outs = [tt.inc_subtensor(x[i, j], v), tt.set_subtensor(x[j, i], v),
            AddDiag()(x, v[:1])]
    xv, vv = RNG.normal(size=(5, 5)), RNG.normal(size=5)
    got, want = run_both([x, v], outs, [xv, vv])
    assert_close(got, want, "anti-diagonal")
    assert "scatter" in _jaxpr([x, v], outs[:2], [xv, vv])
    # a non-square matrix: its leading diagonal, by the scatter
    y = tt.dmatrix("y")
    k = tt.arange(y.shape[0])
    got, want = run_both([y, v], [tt.inc_subtensor(y[k, k], v[:3])],
                         [RNG.normal(size=(3, 5)), vv])
    assert_close(got, want, "non-square")


def test_gradient_through_the_diagonal_matches_verify_grad():
    def f(x, v):
        i = tt.arange(x.shape[0])
        return (tt.tanh(tt.inc_subtensor(x[i, i], v)) ** 2).sum()

    x, v = tt.dmatrix("x"), tt.dvector("v")
    cost = f(x, v)
    g = theon.grad(cost, [x, v])
    args = [RNG.normal(size=(3, 3)), RNG.normal(size=3)]
    fj = theon.function([x, v], g, mode="JAX")
    fv = theon.function([x, v], g, mode=VM)
    for a, b in zip(fj(*args), fv(*args)):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    theon.verify_grad(f, args, rng=np.random.default_rng(3))


def test_linalg_guard_reads_the_inputs_only_when_an_output_is_not_finite():
    a, b = tt.dmatrix("a"), tt.dmatrix("b")
    out = solve_triangular(a, b, lower=True)
    n = 6
    av = np.tril(RNG.normal(size=(n, n))) + 4 * np.eye(n)
    text = _jaxpr([a, b], [out], [av, RNG.normal(size=(n, 2))])
    top = text.split("cond[")[0]
    # the top level checks the output only; the inputs' check sits in the cond's branch
    assert top.count("is_finite") == 1 and "cond[" in text
    f = theon.function([a, b], out, mode="JAX")
    bv = RNG.normal(size=(n, 2))
    np.testing.assert_allclose(f(av, bv), np.linalg.solve(av, bv), rtol=1e-12)
    # finite inputs, singular matrix: NaN; a non-finite input: passed through as computed
    sing = av.copy()
    sing[2, 2] = 0.0
    assert np.isnan(f(sing, bv)).all()
    bad = bv.copy()
    bad[0, 0] = np.inf
    r = f(av, bad)
    assert np.isfinite(r[:, 1]).all() and not np.isfinite(r[:, 0]).all()
