"""The rewrites written as pattern rows: each fires on its input pattern, keeps the
replaced output's type exactly, and gives NumPy's values (computed with stable NumPy
formulas) at extreme inputs, in float32 and float64.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

import theon
import theon.tensor as tt
from theon.compile.mode import Mode
from theon.graph.fg import FunctionGraph
from theon.rewriting.db import RewriteQuery, load_rewrite_modules, rewrite_db
from theon.tensor.rewriting.patterns import REGISTER, PatternRowRewriter
from theon.tensor.rewriting.stabilize import STABILIZE_ROWS
from theon.tensor.rewriting.useless import USELESS_ROWS
from theon.tensor.rewriting.utils import cast_op
from theon.tensor.special import softmax

Array = np.ndarray
ROWS = STABILIZE_ROWS + USELESS_ROWS


def _log1mexp(x: Array) -> Array:
    with np.errstate(all="ignore"):
        return np.where(x < -np.log(2), np.log1p(-np.exp(x)), np.log(-np.expm1(x)))


def _log_softmax(x: Array) -> Array:
    m = np.max(x, axis=-1, keepdims=True)
    return x - m - np.log(np.sum(np.exp(x - m), axis=-1, keepdims=True))


@dataclass(frozen=True)
class Case:
    """An input pattern of a row, built from ``x``, and its value in NumPy."""

    row: str
    build: Callable[[Any], Any]
    value: Callable[[Array], Array]
    points: tuple[tuple[float, ...], ...]


EXTREME = (-1000.0, -90.0, -40.0, -1.0, -1e-30, 0.0, 1e-30, 1.0, 40.0, 90.0, 1000.0)
NONPOSITIVE = (-1000.0, -90.0, -40.0, -1.0, -1e-5, -1e-20, -1e-40, 0.0)
SPECIAL = (-np.inf, -1e38, -1.0, -0.0, 0.0, 1e-40, 3.5, 1e38, np.inf, np.nan)
ROWS_2D = ((1000.0, 0.0, -1000.0), (-1000.0, -1000.0, -999.0), (90.0, 0.0, -90.0))

CASES: tuple[Case, ...] = (
    Case("local_log_exp", lambda x: tt.log(tt.exp(x)), lambda x: x, (EXTREME,)),
    Case("local_log1p_exp", lambda x: tt.log1p(tt.exp(x)), lambda x: np.logaddexp(0, x),
         (EXTREME,)),
    Case("local_log1p_neg_exp", lambda x: tt.log1p(-tt.exp(x)), _log1mexp, (NONPOSITIVE,)),
    Case("local_log_neg_expm1", lambda x: tt.log(-tt.expm1(x)), _log1mexp, (NONPOSITIVE,)),
    Case("local_log_sigmoid", lambda x: tt.log(tt.sigmoid(x)), lambda x: -np.logaddexp(0, -x),
         (EXTREME,)),
    Case("local_log1p_neg_sigmoid", lambda x: tt.log1p(-tt.sigmoid(x)),
         lambda x: -np.logaddexp(0, x), (EXTREME,)),
    Case("local_log_softmax", lambda x: tt.log(softmax(x.reshape((3, 3)), axis=-1)),
         lambda x: _log_softmax(x.reshape(3, 3)), (tuple(v for r in ROWS_2D for v in r),)),
    Case("local_neg_neg", lambda x: tt.neg(tt.neg(x)), lambda x: x, (SPECIAL,)),
    Case("local_useless_identity", lambda x: tt.tensor_copy(x), lambda x: x, (SPECIAL,)),
    Case("local_useless_cast", lambda x: cast_op(x.dtype)(x), lambda x: x, (SPECIAL,)),
    Case("local_reshape_reshape", lambda x: x[:6].reshape((2, 3)).reshape((3, 2)),
         lambda x: x[:6].reshape(3, 2), (SPECIAL,)),
)


def _tolerances(dtype: str) -> dict[str, float]:
    if dtype == "float32":
        return {"rtol": 2e-5, "atol": float(np.finfo(np.float32).tiny) * 4}
    return {"rtol": 1e-11, "atol": float(np.finfo(np.float64).tiny) * 4}


def test_every_row_has_a_case() -> None:
    assert sorted(c.row for c in CASES) == sorted(r.name for r in ROWS)


def test_rows_are_registered_under_their_names_with_their_math() -> None:
    load_rewrite_modules()
    for row in ROWS:
        entry = rewrite_db[row.name]
        rw = entry.rewriter
        assert isinstance(rw, PatternRowRewriter) and rw.row is row
        assert rw.name == row.name and rw.__doc__ == row.math and "->" in row.math
        assert "fast_run" in entry.tags
        want = {"stabilize": ("stabilize",), "useless": ("canonicalize", "specialize")}
        assert entry.phases == want[row.phase], row.name
        assert row.phase in REGISTER


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", CASES, ids=[c.row for c in CASES])
def test_row_fires_and_matches_numpy(case: Case, dtype: str) -> None:
    x = tt.vector("x", dtype=dtype)
    out = case.build(x)
    # the row itself fires on its input pattern, keeping the output's type exactly
    fg = FunctionGraph([x], [out], clone=True)
    got = rewrite_db[case.row].rewriter(fg, fg.outputs[0].owner)
    assert got, f"{case.row} did not fire on {out}"
    ((old, new),) = dict(got).items()
    assert new.type == old.type
    # compiled with this rewrite alone (it fires), and with all of FAST_RUN: NumPy's values
    alone = theon.function([x], out, mode=Mode(linker="vm", optimizer=RewriteQuery((case.row,))))
    assert alone.maker.fgraph.rewrite_stats.fires[case.row] >= 1
    fast = theon.function([x], out, mode="FAST_RUN")
    for p in case.points:
        xv = np.asarray(p, dtype=dtype)
        with np.errstate(all="ignore"):
            want = case.value(xv.astype("float64")).astype(dtype)
            for f in (alone, fast):
                value = f(xv)
                assert value.dtype == np.dtype(dtype)
                np.testing.assert_allclose(value, want, equal_nan=True, **_tolerances(dtype),
                                           err_msg=f"{case.row} at {xv}")


@pytest.mark.parametrize("dtype", ["int8", "int64", "bool"])
def test_rows_on_integer_inputs_keep_the_float_result_type(dtype: str) -> None:
    # sigmoid/exp of an integer is a float: the row's replacement is computed in that
    # float dtype (log(sigmoid(x)) negates x after casting it, so -x cannot wrap)
    x = tt.vector("x", dtype=dtype)
    xv = np.array([0, 1, 1] if dtype == "bool" else [-128 if dtype == "int8" else -2**63, -1, 0,
                                                    1, 127], dtype=dtype)
    for name, build, ref in (
        ("local_log_sigmoid", lambda v: tt.log(tt.sigmoid(v)), lambda a: -np.logaddexp(0, -a)),
        ("local_log1p_exp", lambda v: tt.log1p(tt.exp(v)), lambda a: np.logaddexp(0, a)),
    ):
        out = build(x)
        f = theon.function([x], out, mode="FAST_RUN")
        assert f.maker.fgraph.rewrite_stats.fires[name] == 1
        value = f(xv)
        assert value.dtype == np.dtype(out.type.dtype)
        want = ref(xv.astype("float64")).astype(out.type.dtype)
        np.testing.assert_allclose(value, want, **_tolerances(str(out.type.dtype)))


def test_rows_keep_static_shapes_and_other_clients() -> None:
    # an inner node with another client stays; the broadcastable pattern is kept
    x = tt.tensor(dtype="float32", shape=(1, None), name="x")
    e = tt.exp(x)
    f = theon.function([x], [tt.log1p(e), e], mode="FAST_RUN")
    assert f.maker.fgraph.rewrite_stats.fires["local_log1p_exp"] == 1
    assert [o.type for o in f.maker.fgraph.outputs] == [tt.log1p(e).type, e.type]
    xv = np.array([[-100.0, 0.0, 100.0]], dtype="float32")
    soft, ex = f(xv)
    with np.errstate(over="ignore"):
        np.testing.assert_allclose(soft, np.logaddexp(0, xv), rtol=2e-5)
        np.testing.assert_allclose(ex, np.exp(xv), rtol=2e-6)


def test_rows_leave_complex_results_alone() -> None:
    z = tt.vector("z", dtype="complex128")
    f = theon.function([z], tt.log(tt.exp(z)), mode="FAST_RUN")
    assert "local_log_exp" not in f.maker.fgraph.rewrite_stats.fires
    zv = np.array([1 + 4j], dtype="complex128")
    np.testing.assert_allclose(f(zv), np.log(np.exp(zv)))
