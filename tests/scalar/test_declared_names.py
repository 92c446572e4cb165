"""The names the scalar op table makes are declared in the source, and exported where promised.

Each row's class and op are declared in ``theon.scalar.rowops`` (the whole file written
by ``theon.scalar.declare``), exported by its family module and by ``theon.scalar``
(which star-import it), and its tensor functions are declared in a region of
``theon.tensor.math`` written by the same command.  Adding a row changes those two
files and nothing else.
"""

from __future__ import annotations

import dataclasses
import importlib
from pathlib import Path

import pytest

import theon.scalar as ts
import theon.tensor as tt
import theon.tensor.math as tm
from theon.scalar import declare, rowops, table
from theon.tensor.elemwise import Elemwise

ROWS = table.ROWS


def test_declared_regions_are_what_the_rows_give() -> None:
    stale = declare.check()
    assert not stale, f"run `python -m theon.scalar.declare` to rewrite {stale}"


def test_a_new_row_makes_the_check_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    row = dataclasses.replace(ROWS[-1], cls="Conj2", name="conj2", aliases=("conjugate2",))
    monkeypatch.setattr(declare, "ROWS", (*ROWS, row))
    assert set(declare.check()) == {"theon/scalar/rowops.py", "theon/tensor/math.py"}
    assert "Conj2: type[UnaryScalarOp]" in declare.rowops_source()
    assert '"conj2",' in declare.rowops_source()  # in __all__ and in arith's FAMILY_ALL


def test_a_region_cannot_go_missing() -> None:
    text = (declare.ROOT / "theon/tensor/math.py").read_text()
    one = text.replace(declare.END, "", 1)
    with pytest.raises(ValueError, match="generated regions"):
        declare.render("theon/tensor/math.py", one)


def test_write_rewrites_a_stale_copy(tmp_path: Path) -> None:
    """``python -m theon.scalar.declare`` (``write``) on a copy whose generated parts are
    stale or missing makes them what the rows give, and touches nothing else."""
    for p in (declare.ROWOPS, *declare.FILES):
        (tmp_path / p).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / p).write_text((declare.ROOT / p).read_text())
    (tmp_path / declare.ROWOPS).unlink()
    math_py = tmp_path / "theon/tensor/math.py"
    math_py.write_text(math_py.read_text().replace('\nerf: Elemwise = _ELEMWISE["erf"]', "", 1))
    assert set(declare.check(tmp_path)) == {declare.ROWOPS, "theon/tensor/math.py"}
    assert set(declare.write(tmp_path)) == {declare.ROWOPS, "theon/tensor/math.py"}
    assert declare.check(tmp_path) == []
    for p in (declare.ROWOPS, *declare.FILES):
        assert (tmp_path / p).read_text() == (declare.ROOT / p).read_text()


def test_every_row_has_a_known_family() -> None:
    assert {r.family for r in ROWS} == set(table.FAMILIES)
    with pytest.raises(ValueError, match="family"):
        dataclasses.replace(ROWS[0], family="misc")


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.name)
def test_row_is_declared_and_exported(row: table.OpRow) -> None:
    op = table.OPS[row.name]
    cls = type(op)
    scalar_aliases = [a for a in row.aliases if a in table.SCALAR_ALIASES]
    # the declaring module: the class and the op (pickling finds the class there)
    assert rowops.__dict__[row.cls] is cls and rowops.__dict__[row.name] is op
    assert cls.__module__ == rowops.__name__ == table.DECLARED_IN
    assert rowops.__annotations__[row.cls] == f"type[{table.base_of(row).__name__}]"
    assert {row.cls, row.name, *scalar_aliases} <= set(rowops.__all__)
    # the family module and theon.scalar
    family = importlib.import_module(f"theon.scalar.{row.family}")
    for name, obj in [(row.cls, cls), (row.name, op), *((a, op) for a in scalar_aliases)]:
        assert getattr(family, name) is obj and name in family.__all__, (row.family, name)
    for name, obj in [(row.cls, cls), (row.name, op), *((a, op) for a in scalar_aliases)]:
        assert getattr(ts, name) is obj and name in ts.__all__, name
    # theon.tensor.math's functions (and theon.tensor's, which has them all)
    for name in (row.tensor or row.name, *row.aliases):
        fn = tm.__dict__[name]
        assert isinstance(fn, Elemwise) and fn.scalar_op is op, name
        # (theon.tensor.xlogx is Theano's and PyTensor's module of that name, callable)
        in_tt = getattr(tt, name)
        assert name in tm.__all__ and (in_tt is fn or in_tt.__dict__.get(name) is fn), name


def test_declared_names_are_only_the_rows() -> None:
    assert set(rowops.__annotations__) - {"FAMILY_ALL"} == set(table._NAMES) == set(rowops.__all__)
    assert {n for names in rowops.FAMILY_ALL.values() for n in names} == set(table._NAMES)
    tensor_names = {n for r in ROWS for n in (r.tensor or r.name, *r.aliases)}
    assert {n for n, v in tm.__annotations__.items() if v == "Elemwise"} == tensor_names
