"""Tier 1 knows a fused node's steps by the names the scalar op table gives them.

A step's name is its op's row's ``numpy`` (``theon.backends.py.fused.numpy_name``), the
name the JAX backend spells it by too (``theon.backends.jax.scalar``): tier 1's tables
of steps hold only such names, of rows the JAX backend computes as ``jax.numpy.<name>``.
"""

from __future__ import annotations

import numpy as np
import pytest

import theon.scalar as ts
from theon.backends.jax.scalar import JAX_EXCEPTIONS
from theon.backends.py.fused import composite_spec
from theon.link.tier1 import nbelem, vmath, xla
from theon.scalar.composite import Composite
from theon.scalar.table import ROWS

BY_NAME = {r.numpy: r for r in ROWS if r.numpy is not None}


@pytest.mark.parametrize(
    "table", ["xla.UFUNCS", "xla.SIMPLE", "nbelem.STEPS", "nbelem.SLOW", "vmath.FLOAT64"]
)
def test_tier1_names_are_rows_jax_computes_by_name(table: str) -> None:
    module, attr = table.split(".")
    names = getattr({"xla": xla, "nbelem": nbelem, "vmath": vmath}[module], attr)
    for name in names:
        row = BY_NAME.get(name)
        assert row is not None, f"{table}: {name!r} is no row's NumPy name"
        assert row.name not in JAX_EXCEPTIONS, f"{table}: {name!r} is a JAX exception"
        assert getattr(np, name) is row.ufunc, name


def test_fused_steps_are_named_by_their_rows() -> None:
    x, y = ts.float64("x"), ts.float64("y")
    comp = Composite([x, y], [ts.exp(ts.true_div(ts.add(x, y, x), ts.int_div(x, y)))])
    spec = composite_spec(comp)
    assert spec is not None
    names = {st.name for st in spec.steps}
    # np.true_divide.__name__ is "divide": the step carries the row's spelling
    assert {"add", "true_divide", "floor_divide", "exp"} == names
    assert xla.supports(spec) is False  # floor_divide is not compiled (NumPy's zeros)
    comp2 = Composite([x, y], [ts.exp(ts.true_div(ts.add(x, y, x), ts.sqrt(y)))])
    spec2 = composite_spec(comp2)
    assert spec2 is not None and xla.supports(spec2)


def test_a_step_of_an_op_of_no_row_has_no_name() -> None:
    x = ts.float64("x")
    spec = composite_spec(Composite([x], [ts.reciprocal(ts.exp(x))]))
    assert spec is not None
    assert [st.name for st in spec.steps] == ["exp", ""]
    assert not xla.supports(spec)
