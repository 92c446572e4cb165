"""The names the scalar op table makes are declared in the source, and exported where promised.

Each row's class and op are declared in ``theon.scalar.table``, exported by its family
module and by ``theon.scalar``, and its tensor functions are declared in
``theon.tensor.math``: the declarations are regions written by ``theon.scalar.declare``.
"""

from __future__ import annotations

import dataclasses
import importlib

import pytest

import theon.scalar as ts
import theon.tensor as tt
import theon.tensor.math as tm
from theon.scalar import declare, table
from theon.tensor.elemwise import Elemwise

ROWS = table.ROWS


def test_declared_regions_are_what_the_rows_give() -> None:
    stale = declare.check()
    assert not stale, f"run `python -m theon.scalar.declare` to rewrite {stale}"


def test_a_new_row_makes_the_check_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    row = dataclasses.replace(ROWS[-1], cls="Conj2", name="conj2", aliases=("conjugate2",))
    monkeypatch.setattr(declare, "ROWS", (*ROWS, row))
    assert set(declare.check()) == {
        "theon/scalar/table.py", "theon/scalar/arith.py", "theon/scalar/__init__.py",
        "theon/tensor/math.py",
    }


def test_a_region_cannot_go_missing() -> None:
    text = (declare.ROOT / "theon/scalar/arith.py").read_text()
    one = text.replace(declare.END, "", 1)
    with pytest.raises(ValueError, match="generated regions"):
        declare.render("theon/scalar/arith.py", one)


def test_every_row_has_a_known_family() -> None:
    assert {r.family for r in ROWS} == set(table.FAMILIES)
    with pytest.raises(ValueError, match="family"):
        dataclasses.replace(ROWS[0], family="misc")


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.name)
def test_row_is_declared_and_exported(row: table.OpRow) -> None:
    op = table.OPS[row.name]
    cls = type(op)
    scalar_aliases = [a for a in row.aliases if a in table.SCALAR_ALIASES]
    # the table module: the class and the op (pickling finds the class there)
    assert table.__dict__[row.cls] is cls and table.__dict__[row.name] is op
    assert table.__annotations__[row.cls] == f"type[{table.base_of(row).__name__}]"
    # the family module and theon.scalar
    family = importlib.import_module(f"theon.scalar.{row.family}")
    for name, obj in [(row.cls, cls), (row.name, op), *((a, op) for a in scalar_aliases)]:
        assert getattr(family, name) is obj and name in family.__all__, (row.family, name)
    for name in (row.name, *scalar_aliases):
        assert getattr(ts, name) is op and name in ts.__all__, name
    # theon.tensor.math's functions (and theon.tensor's, which has them all)
    for name in (row.tensor or row.name, *row.aliases):
        fn = tm.__dict__[name]
        assert isinstance(fn, Elemwise) and fn.scalar_op is op, name
        assert name in tm.__all__ and getattr(tt, name) is fn, name


def test_declared_names_are_only_the_rows() -> None:
    declared = {n for n in table.__annotations__ if n in table._NAMES}
    assert declared == set(table._NAMES)
    tensor_names = {n for r in ROWS for n in (r.tensor or r.name, *r.aliases)}
    assert {n for n, v in tm.__annotations__.items() if v == "Elemwise"} == tensor_names
