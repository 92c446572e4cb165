"""The linalg rewrites: each fires on its pattern (and not off it), and a hypothesis
differential run compares the rewritten graph, the unrewritten one (REFERENCE mode)
and NumPy, in float64 and float32 (float32 graphs stay float32)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import theon
import theon.tensor as T
from tests.tensor.rewriting.helpers import op_names, rewrite
from theon.tensor import linalg as la
from theon.tensor.linalg.rewriting import structure

DTYPES = ["float64", "float32"]
HYP = settings(max_examples=25, deadline=None, derandomize=True)


def mat(dtype: str, name: str) -> Any:
    return T.TensorType(dtype, shape=(None, None))(name)


def vec(dtype: str, name: str) -> Any:
    return T.TensorType(dtype, shape=(None,))(name)


@st.composite
def problems(draw: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(X, general square G, b): G well conditioned, X any, b any; n from 1 to 6."""
    n = draw(st.integers(1, 6))
    seed = draw(st.integers(0, 2**31 - 1))
    scale = draw(st.sampled_from([1e-2, 1.0, 1e2]))
    r = np.random.default_rng(seed)
    x = r.normal(size=(n, n)) * scale
    g = (r.normal(size=(n, n)) + 3 * n * np.eye(n)) * scale
    b = r.normal(size=(n, 2)) * scale
    return x, g, b


def spd_of(x: Any, n_eye: Any) -> Any:
    """A symmetric positive-definite matrix built the way user code builds one."""
    return x @ x.T + n_eye * T.eye(x.shape[0], dtype=x.type.dtype)


def compare(inputs: list[Any], outputs: list[Any], values: list[np.ndarray],
            refs: list[np.ndarray], dtype: str) -> None:
    """Rewritten == unrewritten == NumPy, dtypes kept."""
    args = [v.astype(dtype) for v in values]
    fast = theon.function(inputs, outputs, on_unused_input="ignore")(*args)
    slow = theon.function(inputs, outputs, mode="REFERENCE", on_unused_input="ignore")(*args)
    tol = dict(rtol=1e-8, atol=1e-8) if dtype == "float64" else dict(rtol=3e-3, atol=3e-3)
    for f, s, r, o in zip(fast, slow, refs, outputs):
        assert np.asarray(f).dtype == np.asarray(s).dtype == np.dtype(o.type.dtype)
        assert o.type.dtype == dtype, "float32 graphs stay float32"
        scale = max(1.0, float(np.max(np.abs(r)))) if np.size(r) else 1.0
        np.testing.assert_allclose(f, s, rtol=tol["rtol"], atol=tol["atol"] * scale)
        np.testing.assert_allclose(f, r, rtol=tol["rtol"], atol=tol["atol"] * scale)


# each case: build(dtype) -> (inputs, outputs, the op names present / absent after rewriting,
# numpy reference from the values)
Case = Callable[[str], tuple[list[Any], list[Any], set[str], set[str], Callable[..., list[Any]]]]


def case_inv_dot(dtype: str) -> Any:
    g, b = mat(dtype, "G"), mat(dtype, "b")
    return ([g, b], [la.inv(g) @ b], {"Solve"}, {"MatrixInverse"},
            lambda x, gv, bv: [np.linalg.solve(gv, bv)])


def case_inv_dot_vec(dtype: str) -> Any:
    g, b = mat(dtype, "G"), mat(dtype, "b")
    return ([g, b], [la.inv(g) @ b[:, 0]], {"Solve"}, {"MatrixInverse"},
            lambda x, gv, bv: [np.linalg.solve(gv, bv[:, 0])])


def case_log_det(dtype: str) -> Any:
    g = mat(dtype, "G")
    return ([g], [T.log(la.det(g))], {"SLogDet"}, {"Det"},
            lambda x, gv, bv: [np.log(np.linalg.det(gv.astype("float64")))])


def case_log_det_negative(dtype: str) -> Any:
    g = mat(dtype, "G")
    return ([g], [T.log(la.det(-g[::-1]))], {"SLogDet"}, {"Det"},
            lambda x, gv, bv: [np.log(np.linalg.det(-gv[::-1].astype("float64")))])


def case_log_det_cholesky(dtype: str) -> Any:
    x = mat(dtype, "X")
    k = spd_of(x, 2.0)
    return ([x], [T.log(la.det(k)), la.cholesky(k)], {"Cholesky"}, {"Det", "SLogDet"},
            lambda xv, gv, bv: [np.linalg.slogdet(xv @ xv.T + 2 * np.eye(len(xv)))[1],
                                np.linalg.cholesky(xv @ xv.T + 2 * np.eye(len(xv)))])


def case_slogdet_cholesky(dtype: str) -> Any:
    x = mat(dtype, "X")
    k = spd_of(x, 2.0)
    sign, logdet = la.slogdet(k)
    return ([x], [sign, logdet, la.solve(k, x, assume_a="pos", lower=True)],
            {"Cholesky", "CholeskySolve"}, {"SLogDet", "Solve"},
            lambda xv, gv, bv: [*np.linalg.slogdet(xv @ xv.T + 2 * np.eye(len(xv))),
                                np.linalg.solve(xv @ xv.T + 2 * np.eye(len(xv)), xv)])


def case_det_cholesky(dtype: str) -> Any:
    g = mat(dtype, "G")
    k = g @ g.T
    return ([g], [la.det(la.cholesky(k)), la.det(la.cholesky(k, lower=False))],
            {"Cholesky"}, {"Det"},
            lambda xv, gv, bv: [np.prod(np.diag(np.linalg.cholesky(gv @ gv.T)))] * 2)


def case_det_of_symmetric_with_factor(dtype: str) -> Any:
    g = mat(dtype, "G")
    k = g @ g.T
    return ([g], [la.det(k), la.cholesky(k)], {"Cholesky"}, {"Det"},
            lambda xv, gv, bv: [np.linalg.det(gv @ gv.T), np.linalg.cholesky(gv @ gv.T)])


def case_det_diagonal(dtype: str) -> Any:
    x = mat(dtype, "X")
    d = 2.5 * T.eye(x.shape[0], dtype=dtype)
    tri = T.constant(np.triu(np.ones((3, 3), dtype=dtype) * 2))
    return ([x], [la.det(d), la.slogdet(d)[1], la.det(tri)],
            set(), {"Det", "SLogDet"},
            lambda xv, gv, bv: [2.5 ** len(xv), len(xv) * np.log(2.5), 8.0])


def case_slogdet_triangular(dtype: str) -> Any:
    g = mat(dtype, "G")
    s, ld = la.slogdet(-la.cholesky(g @ g.T).T)
    return ([g], [s, ld], {"Cholesky"}, {"SLogDet"},
            lambda xv, gv, bv: list(np.linalg.slogdet(-np.linalg.cholesky(gv @ gv.T).T)))


def case_chol_chol_t(dtype: str) -> Any:
    x = mat(dtype, "X")
    k = spd_of(x, 1.0)
    lo, up = la.cholesky(k), la.cholesky(k, lower=False)
    return ([x], [lo @ lo.T, up.T @ up], set(), {"Cholesky"},
            lambda xv, gv, bv: [xv @ xv.T + np.eye(len(xv))] * 2)


def case_chol_chol_t_unknown_symmetry(dtype: str) -> Any:
    g = mat(dtype, "G")
    lo = la.cholesky(g)  # only g's lower triangle is read
    return ([g], [T.dot(lo, lo.T)], set(), {"Cholesky"},
            lambda xv, gv, bv: [np.tril(gv) + np.tril(gv, -1).T])


def case_solve_triangular_known(dtype: str) -> Any:
    g, b = mat(dtype, "G"), mat(dtype, "b")
    lo = la.cholesky(g @ g.T)
    return ([g, b], [la.solve(lo, b), la.solve(lo.T, b[:, 0])], {"SolveTriangular"}, {"Solve"},
            lambda xv, gv, bv: [np.linalg.solve(np.linalg.cholesky(gv @ gv.T), bv),
                                np.linalg.solve(np.linalg.cholesky(gv @ gv.T).T, bv[:, 0])])


def case_triangular_dot(dtype: str) -> Any:
    g, b = mat(dtype, "G"), mat(dtype, "b")
    lo, up = la.cholesky(g @ g.T), la.cholesky(g @ g.T, lower=False)
    return ([g, b], [T.dot(lo.T, b), T.dot(lo, b) * 2.0, T.dot(up, b[:, ::-1])],
            {"TriMatMul"}, set(),
            lambda xv, gv, bv: [np.linalg.cholesky(gv @ gv.T).T @ bv,
                                np.linalg.cholesky(gv @ gv.T) @ bv * 2.0,
                                np.linalg.cholesky(gv @ gv.T).T @ bv[:, ::-1]])


def case_band_parts(dtype: str) -> Any:
    from theon.tensor.linalg._common import band_part

    x, g = mat(dtype, "X"), mat(dtype, "G")
    return ([x, g], [band_part(x, None, 0) + band_part(g, None, 0) + x,
                     band_part(x, 0, None, 0.5).T + band_part(g, None, 0, 0.5)],
            {"BandPart"}, set(),
            lambda xv, gv, bv: [np.tril(xv) + np.tril(gv) + xv,
                                (np.triu(xv) - 0.5 * np.diag(np.diag(xv))).T
                                + np.tril(gv) - 0.5 * np.diag(np.diag(gv))])


def case_solve_diagonal(dtype: str) -> Any:
    x, b = mat(dtype, "X"), mat(dtype, "b")
    d = 4.0 * T.eye(x.shape[0], dtype=dtype)
    return ([x, b], [la.solve(d, b), la.solve_triangular(d, b[:, 1], lower=True)],
            set(), {"Solve", "SolveTriangular"},
            lambda xv, gv, bv: [bv / 4.0, bv[:, 1] / 4.0])


def case_inv_inv(dtype: str) -> Any:
    g = mat(dtype, "G")
    return ([g], [la.inv(la.inv(g))], set(), {"MatrixInverse"}, lambda xv, gv, bv: [gv])


def case_transpose_symmetric(dtype: str) -> Any:
    x = mat(dtype, "X")
    r = (x ** 2).sum(axis=1)
    sq = r[:, None] + r[None, :] - 2.0 * x @ x.T
    k = T.exp(-1e-4 * sq) + la.inv(x @ x.T + T.eye(x.shape[0], dtype=dtype))
    return ([x], [k.T * 1.0], set(), set(),
            lambda xv, gv, bv: [np.exp(-1e-4 * ((xv[:, None, :] - xv[None, :, :]) ** 2).sum(-1))
                                + np.linalg.inv(xv @ xv.T + np.eye(len(xv)))])


CASES: list[Case] = [
    case_inv_dot, case_inv_dot_vec, case_log_det, case_log_det_negative,
    case_log_det_cholesky, case_slogdet_cholesky, case_det_cholesky,
    case_det_of_symmetric_with_factor, case_det_diagonal, case_slogdet_triangular,
    case_chol_chol_t, case_chol_chol_t_unknown_symmetry, case_solve_triangular_known,
    case_triangular_dot, case_band_parts,
    case_solve_diagonal, case_inv_inv, case_transpose_symmetric,
]


def _names(fg: Any) -> set[str]:
    out = set(op_names(fg))
    out |= {str(n.op) for n in fg.apply_nodes}
    return out


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", CASES, ids=[c.__name__[5:] for c in CASES])
def test_rewrite_fires(case: Case, dtype: str) -> None:
    inputs, outputs, present, absent, _ = case(dtype)
    fg = rewrite(inputs, outputs)
    names = _names(fg)
    assert present <= names, (present, names)
    assert not (absent & names), (absent, names)
    unrewritten = _names(rewrite(inputs, outputs, theon.rewriting.RewriteQuery(include=())))
    assert absent & unrewritten or not absent  # the pattern was there before


@pytest.mark.filterwarnings("ignore:invalid value encountered in log")  # log(det < 0)
@pytest.mark.filterwarnings("ignore:overflow encountered in cast")  # float32 det overflow
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", CASES, ids=[c.__name__[5:] for c in CASES])
@HYP
@given(problem=problems())
def test_rewrite_differential(case: Case, dtype: str,
                              problem: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
    inputs, outputs, _, _, ref = case(dtype)
    x, g, b = problem
    if case is case_det_diagonal:
        g = g[:1]  # unused
    values = {"X": x, "G": g, "b": b}
    args = [values[str(i.name)] for i in inputs]
    refs = ref(x, g, b)
    if dtype == "float32":  # the reference in float32-representable inputs
        refs = ref(x.astype("float32").astype("float64"), g.astype("float32").astype("float64"),
                   b.astype("float32").astype("float64"))
    compare(inputs, outputs, args, [np.asarray(r).astype(dtype) for r in refs], dtype)


def test_gradient_of_log_det_uses_the_cholesky_factor() -> None:
    """grad differentiates the stabilized cost: no inverse, no determinant."""
    x = mat("float64", "X")
    s = T.dscalar("s")
    k = spd_of(x, s)
    y = T.dvector("y")
    lo = la.cholesky(k)
    alpha = la.solve_triangular(lo.T, la.solve_triangular(lo, y, lower=True))
    cost = -0.5 * y @ alpha - 0.5 * T.log(la.det(k))
    gs = theon.grad(cost, s)
    f = theon.function([x, s, y], gs)
    names = _names(f.maker.fgraph)
    assert not names & {"MatrixInverse", "Det", "SLogDet"}, names
    xv = np.random.default_rng(0).normal(size=(5, 3))
    yv = np.random.default_rng(1).normal(size=5)
    kinv = np.linalg.inv(xv @ xv.T + 1.5 * np.eye(5))
    a = kinv @ yv
    want = 0.5 * a @ a - 0.5 * np.trace(kinv)
    np.testing.assert_allclose(f(xv, 1.5, yv), want, rtol=1e-10)
    theon.verify_grad(lambda xx, ss: -0.5 * T.log(la.det(spd_of(xx, ss)))
                      + la.cholesky(spd_of(xx, ss)).sum(), [xv, np.array(1.5)], rng=0)


def test_transpose_of_symmetric_is_dropped() -> None:
    x = mat("float64", "X")
    r = (x ** 2).sum(axis=1)
    k = T.exp(-(r[:, None] + r[None, :] - 2.0 * x @ x.T))
    outs = [k.T * 1.0]
    count = op_names(rewrite([x], outs))
    before = op_names(rewrite([x], outs, theon.rewriting.RewriteQuery(include=())))
    n = sum(v for k_, v in count.items() if k_ == "DimShuffle")
    assert n < sum(v for k_, v in before.items() if k_ == "DimShuffle")
    fg = rewrite([x], outs)
    assert sum(1 for nd in fg.apply_nodes if str(nd.op) == "DimShuffle{1,0}") == 1  # X.T only


def test_no_rewrite_without_the_structure() -> None:
    """A general matrix is not treated as symmetric or triangular."""
    g, b = mat("float64", "G"), vec("float64", "b")
    fg = rewrite([g, b], [la.det(g), la.solve(g, b), g.T, la.cholesky(g),
                          la.solve(g, b, assume_a="sym")])
    names = _names(fg)
    assert {"Det", "Solve{assume_a='gen', lower=False, b_ndim=1}", "DimShuffle{1,0}",
            "Solve{assume_a='sym', lower=False, b_ndim=1}"} <= names, names
    x = mat("float64", "X")
    assert structure(None, x @ x.T) == {"symmetric"}
    assert structure(None, x @ x) == frozenset()
    assert structure(None, (2.0 * x) @ (x.T * 3.0)) == {"symmetric"}
    assert structure(None, (2.0 * x) @ (x * 3.0).T) == {"symmetric"}
    assert structure(None, (2.0 * x) @ x) == frozenset()
    assert structure(None, la.cholesky(x)) == {"lower"}
    assert structure(None, la.cholesky(x).T * 2.0) == {"upper"}
    assert structure(None, la.cholesky(x) + 1.0) == frozenset()
    assert structure(None, T.eye(x.shape[0]) * 3.0) == {"symmetric", "lower", "upper"}
    r = x.sum(axis=0)
    assert structure(None, r[:, None] + r[None, :]) == {"symmetric"}
    assert structure(None, r[:, None] - r[None, :]) == frozenset()
    assert structure(None, T.exp(x @ x.T)) == {"symmetric"}
    assert structure(None, x + r) == frozenset()


# batched graphs: the same rewrites look through Blockwise ------------------------------
BATCH = 3


def _core_names(fg: Any) -> set[str]:
    """The op names of ``_names`` plus, for each Blockwise node, its core Op's."""
    from theon.tensor.blockwise import Blockwise

    out = _names(fg)
    for n in fg.apply_nodes:
        if isinstance(n.op, Blockwise):
            out.add(type(n.op.core_op).__name__)
            out.add(str(n.op.core_op))
    return out


def _batched(case: Case, dtype: str) -> tuple[list[Any], list[Any], set[str], set[str], Any]:
    """The case's graph built for one problem, batched over a leading axis of every
    input by ``vectorize_graph``."""
    from theon.graph.replace import vectorize_graph

    inputs, outputs, present, absent, ref = case(dtype)
    batched = [T.TensorType(dtype, shape=(None,) * (i.type.ndim + 1))(i.name) for i in inputs]
    outs = vectorize_graph(outputs, dict(zip(inputs, batched)))
    return batched, list(outs), present, absent, ref


BATCHED_CASES = [c for c in CASES if c is not case_det_diagonal]  # (constants: no batch)
# TriMatMul replaces a 2-D dot only: a batch of products stays one matmul call; and
# BandPart works on stacks itself (no Blockwise to look through; the values test runs)
FIRING_BATCHED = [c for c in BATCHED_CASES if c not in (case_triangular_dot, case_band_parts)]


@pytest.mark.parametrize("case", FIRING_BATCHED, ids=[c.__name__[5:] for c in FIRING_BATCHED])
def test_rewrite_fires_batched(case: Case) -> None:
    inputs, outputs, present, absent, _ = _batched(case, "float64")
    names = _core_names(rewrite(inputs, outputs))
    unrewritten = _core_names(rewrite(inputs, outputs, theon.rewriting.RewriteQuery(include=())))
    assert "Blockwise" in unrewritten or not (present | absent)  # the graph is batched
    assert present <= names, (present, names)
    assert not (absent & names), (absent, names)
    assert absent & unrewritten or not absent


@pytest.mark.filterwarnings("ignore:invalid value encountered in log")
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", BATCHED_CASES, ids=[c.__name__[5:] for c in BATCHED_CASES])
def test_rewrite_batched_values(case: Case, dtype: str) -> None:
    """The rewritten batched graph equals NumPy applied to each problem of the batch."""
    inputs, outputs, _, _, ref = _batched(case, dtype)
    rng = np.random.default_rng(7)
    n = 4
    xs = rng.normal(size=(BATCH, n, n))
    gs = rng.normal(size=(BATCH, n, n)) + 3 * n * np.eye(n)
    bs = rng.normal(size=(BATCH, n, 2))
    values = {"X": xs, "G": gs, "b": bs}
    args = [values[str(i.name)] for i in inputs]
    per = [ref(*(v.astype(dtype).astype("float64") for v in (xs[k], gs[k], bs[k])))
           for k in range(BATCH)]
    refs = [np.stack([np.asarray(p[j]) for p in per]).astype(dtype) for j in range(len(outputs))]
    compare(inputs, outputs, args, refs, dtype)


def test_structure_of_diagonal_terms() -> None:
    """A diagonal (AllocDiag) is symmetric and triangular; adding one keeps the facts."""
    from theon.tensor.alloc_diag import AddDiag, AllocDiag

    x, d = mat("float64", "X"), vec("float64", "d")
    assert structure(None, AllocDiag()(d)) == {"symmetric", "lower", "upper"}
    assert structure(None, AddDiag()(x @ x.T, d)) == {"symmetric"}
    assert structure(None, AddDiag()(x, d)) == frozenset()
    assert structure(None, AddDiag()(la.cholesky(x), d)) == {"lower"}


# shared LU factors (tag ``shared_lu``: mode="JAX" includes it, fast_run does not) -------
SHARED_LU = theon.rewriting.RewriteQuery(include=("fast_run", "shared_lu"),
                                         exclude=("fusion", "inplace"))


def _solve_pair(dtype: str, batched: bool = False, on_error: str = "raise") -> Any:
    """(inputs, [solve(G, b), solve(G^T, c)]) with vector right-hand sides."""
    nd = 3 if batched else 2
    g = T.TensorType(dtype, shape=(None,) * nd)("G")
    b, c = (T.TensorType(dtype, shape=(None,) * (nd - 1))(n) for n in "bc")
    gt = g.swapaxes(-1, -2)
    return [g, b, c], [la.solve(g, b, b_ndim=1), la.solve(gt, c, b_ndim=1, on_error=on_error)]


def _lu_solves(fg: Any) -> list[Any]:
    from theon.tensor.linalg.rewriting import core
    from theon.tensor.linalg.solvers import LUSolve

    return [core(n.op) for n in fg.apply_nodes if isinstance(core(n.op), LUSolve)]


@pytest.mark.parametrize("batched", [False, True])
def test_shared_lu_factors_one_matrix_for_both_solves(batched: bool) -> None:
    inputs, outputs = _solve_pair("float64", batched)
    fg = rewrite(inputs, outputs, SHARED_LU)
    names = _core_names(fg) if batched else _names(fg)
    assert "Solve" not in names
    assert sum("LUFactor" in str(n.op) for n in fg.apply_nodes) == 1
    assert sorted(op.trans for op in _lu_solves(fg)) == [0, 1]
    # fast_run alone keeps the solves (NumPy's batched solver beats a loop of lu_solve)
    assert "LUFactor" not in str([n.op for n in rewrite(inputs, outputs).apply_nodes])


def test_shared_lu_needs_two_solves_with_the_same_settings() -> None:
    g, b = mat("float64", "G"), vec("float64", "b")
    assert not _lu_solves(rewrite([g, b], [la.solve(g, b, b_ndim=1)], SHARED_LU))
    inputs, outputs = _solve_pair("float64", on_error="nan")
    assert not _lu_solves(rewrite(inputs, outputs, SHARED_LU))
    # a symmetric solve is not a general one
    outs = [la.solve(g, b, b_ndim=1), la.solve(g, b * 2, b_ndim=1, assume_a="sym")]
    assert len(_lu_solves(rewrite([g, b], outs, SHARED_LU))) == 0


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batched", [False, True])
@HYP
@given(problem=problems())
def test_shared_lu_differential(dtype: str, batched: bool,
                                problem: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
    """The rewritten graph (and its gradient) == the unrewritten one == NumPy."""
    from theon.compile.mode import Mode

    _, g, bm = problem
    inputs, outputs = _solve_pair(dtype, batched)
    gv, bv, cv = g, bm[:, 0], bm[:, 1]
    if batched:  # three problems: the matrix scaled, the right-hand sides shifted
        gv = np.stack([g, 2 * g, g[::-1].T + np.eye(len(g)) * np.abs(g).sum()])
        bv, cv = np.stack([bv, bv + 1, -bv]), np.stack([cv, cv * 3, cv - 1])
    cost = (outputs[0] * outputs[1]).sum()
    outputs = [*outputs, theon.grad(cost, inputs[0])]
    args = [v.astype(dtype) for v in (gv, bv, cv)]
    g64, b64, c64 = (a.astype("float64") for a in args)
    x = np.linalg.solve(g64, b64[..., None])[..., 0]
    y = np.linalg.solve(np.swapaxes(g64, -1, -2), c64[..., None])[..., 0]
    # d/dG sum(x * y): x = G^-1 b, y = G^-T c
    gx = np.linalg.solve(np.swapaxes(g64, -1, -2), y[..., None])[..., 0]
    gy = np.linalg.solve(g64, x[..., None])[..., 0]
    dg = -gx[..., :, None] * x[..., None, :] - y[..., :, None] * gy[..., None, :]
    mode = Mode(optimizer=SHARED_LU)
    fast = theon.function(inputs, outputs, mode=mode)
    assert _lu_solves(fast.maker.fgraph)
    slow = theon.function(inputs, outputs, mode="REFERENCE")
    tol = 1e-8 if dtype == "float64" else 3e-3
    for f, s, r in zip(fast(*args), slow(*args), [x, y, dg]):
        assert f.dtype == np.dtype(dtype)
        scale = max(1.0, float(np.max(np.abs(r))))
        np.testing.assert_allclose(f, s, rtol=tol, atol=tol * scale)
        np.testing.assert_allclose(f, r, rtol=tol, atol=tol * scale)


def _band_parts(fg: Any) -> list[Any]:
    from theon.tensor.linalg._common import BandPart

    return [n.op for n in fg.apply_nodes if isinstance(n.op, BandPart)]


def test_bands_of_a_sum_are_taken_once() -> None:
    """band(x) + band(g) -> band(x + g); band(x, 0, None)^T -> band(x^T, None, 0), which
    then joins the sum; a triangular solve's gradient (of L and of L^T) takes one band."""
    from theon.tensor.linalg._common import band_part

    x, g, y = mat("float64", "X"), mat("float64", "G"), vec("float64", "y")
    fg = rewrite([x, g], [band_part(x, None, 0) + band_part(g, None, 0) + x])
    assert len(_band_parts(fg)) == 1
    fg = rewrite([x, g], [band_part(x, 0, None).T + band_part(g, None, 0)])
    assert [(op.lower, op.upper) for op in _band_parts(fg)] == [(None, 0)]
    lo = la.cholesky(g @ g.T)
    cost = T.dot(y, la.solve_triangular(lo.T, la.solve_triangular(lo, y, lower=True)))
    fg = rewrite([g, y], [theon.grad(cost, g)])
    assert len(_band_parts(fg)) == 1  # the solves' gradients (CholeskyGrad takes no band)


def test_bands_are_not_combined_off_their_pattern() -> None:
    """Different bands or diagonal factors, a band read elsewhere too, a broadcast band:
    each band stays."""
    from theon.tensor.linalg._common import band_part

    x, g = mat("float64", "X"), mat("float64", "G")
    row = T.TensorType("float64", shape=(1, None))("row")
    assert len(_band_parts(rewrite([x, g], [band_part(x, None, 0) + band_part(g, 0, None)]))) == 2
    assert len(_band_parts(rewrite(
        [x, g], [band_part(x, None, 0, 0.5) + band_part(g, None, 0)]))) == 2
    shared = band_part(x, None, 0)
    assert len(_band_parts(rewrite([x, g], [shared + band_part(g, None, 0), shared * 2.0]))) == 2
    assert len(_band_parts(rewrite(
        [x, row], [band_part(x, None, 0) + band_part(row, None, 0)]))) == 2
    t = band_part(x, None, 0)
    assert len(_band_parts(rewrite([x], [t.T, t * 2.0]))) == 1  # read twice: not moved
