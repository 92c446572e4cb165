"""The scalar op table: classes built from rows, their names, the linker's spelling, lazy SciPy."""

from __future__ import annotations

import importlib
import pickle
import subprocess
import sys

import numpy as np
import pytest

import theon.scalar as ts
import theon.tensor as tt
import theon.tensor.math as tm
from theon.graph.null_type import DisconnectedType
from theon.link.pyfunc.dispatch import py_scalar_expr
from theon.link.registry import load_linker_backends
from theon.scalar import table
from theon.scalar.basic import BinaryScalarOp, UnaryScalarOp, partials

# every op class each family module had before the table, and must still export
FAMILIES = {
    "basic": "Add Exp Log Mul Neg Sub TrueDiv Cast",
    "arith": "Abs Ceil Clip Conj Floor Identity Imag IntDiv Maximum Minimum Mod Pow Real "
    "Reciprocal RoundHalfToEven Sign Sqr Sqrt Trunc",
    "logic": "AND EQ GE GT Invert IsFinite IsInf IsNan LE LT LeftShift LogicalAnd LogicalNot "
    "LogicalOr LogicalXor NEQ OR RightShift Switch XOR",
    "special": "Erf Erfc Erfcinv Erfinv Gamma GammaLn Log1mexp PolyGamma Psi Sigmoid Softplus "
    "Softsign",
    "transcendental": "ArcCos ArcCosh ArcSin ArcSinh ArcTan ArcTan2 ArcTanh Cos Cosh Exp2 "
    "Expm1 Log10 Log1p Log2 Sin Sinh Tan Tanh",
}


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_family_modules_export_their_classes(family: str) -> None:
    mod = importlib.import_module(f"theon.scalar.{family}")
    for cls_name in FAMILIES[family].split():
        cls = getattr(mod, cls_name)
        assert cls_name in mod.__all__
        assert isinstance(cls, type) and issubclass(cls, ts.ScalarOp), cls_name


@pytest.mark.parametrize("row", table.ROWS, ids=lambda r: r.name)
def test_row_class(row: table.OpRow) -> None:
    op = getattr(ts, row.name)
    cls = type(op)
    assert op is table.OPS[row.name]
    assert (cls.__name__, cls.__qualname__) == (row.cls, row.cls)
    assert cls.__module__ == "theon.scalar.rowops"
    assert getattr(ts.rowops, row.cls) is cls and cls.row is row
    assert str(op) == row.name and op.nin == row.nin
    assert cls() == op and hash(cls()) == hash(op)
    assert pickle.loads(pickle.dumps(op)) == op
    assert isinstance(op, {1: UnaryScalarOp, 2: BinaryScalarOp}.get(row.nin, ts.ScalarOp))


def test_scalar_aliases() -> None:
    assert ts.abs_ is ts.abs and ts.log1pexp is ts.softplus
    assert not hasattr(ts, "subtract")  # the NumPy names are tensor-level only


PY_ROWS = [r for r in table.ROWS if r.py is not None and r.nin != -1]


@pytest.mark.parametrize("row", PY_ROWS, ids=lambda r: r.name)
def test_linker_spells_an_op_as_its_row(row: table.OpRow) -> None:
    op = table.OPS[row.name]
    dtype = "bool" if row.py_ok is not None and "bool" in row.py_ok.__name__ else "float64"
    node = op.make_node(*[ts.get_scalar_type(dtype)() for _ in range(row.nin)])
    names = ["a", "b"][: row.nin]
    load_linker_backends("py")  # the py linker's scalar emitters (loaded on its first link)
    assert op.py_expr_ok(node)
    assert py_scalar_expr(op, node, names) == row.py.format(*names)


def test_variadic_rows_spell_their_operator() -> None:
    node = ts.add(ts.float64(), ts.float64(), ts.float64()).owner
    assert py_scalar_expr(ts.add, node, ["a", "b", "c"]) == "(a + b + c)"


def test_partials_disconnect_integer_inputs_without_asking() -> None:
    asked: list[str] = []

    def dx(gz, x, y, out):
        asked.append("x")
        return ts.mul(gz, y)

    def dy(gz, x, y, out):
        asked.append("y")
        return gz

    x, i = ts.float32("x"), ts.int64("i")
    gx, gi = partials(dx, dy)([x, i], [ts.mul(x, i)], [ts.float64("gz")])
    assert asked == ["x"]
    assert gx.type == x.type  # cast to the input's dtype
    assert isinstance(gi.type, DisconnectedType)


@pytest.mark.parametrize("row", table.ROWS, ids=lambda r: r.name)
def test_tensor_functions_come_from_rows(row: table.OpRow) -> None:
    fn = getattr(tm, row.tensor or row.name)
    assert isinstance(fn, tt.Elemwise) and fn.scalar_op is table.OPS[row.name]
    assert fn.__doc__.startswith(row.tdoc)
    for alias in row.aliases:
        assert getattr(tm, alias) is fn and getattr(tt, alias) is fn
        assert alias in tm.__all__
    if isinstance(row.ufunc, np.ufunc):
        assert tm._UFUNC_TO_OP[row.ufunc.__name__] is fn


def test_numpy_ufunc_on_a_variable_dispatches_to_the_row() -> None:
    x = tt.dvector("x")
    assert np.subtract(x, 1.0).owner.op is tm.subtract
    assert np.remainder(x, 2.0).owner.op is tm.mod


_LAZY = """
import sys
import theon, theon.tensor as tt
assert "scipy" not in sys.modules, "import theon.tensor loaded SciPy"
x = tt.dvector("x")
y = tt.erf(x) + tt.sigmoid(x) + tt.gammaln(x) + tt.polygamma(1, x) + tt.exp(x)
g = theon.grad(y.sum(), x)
assert "scipy" not in sys.modules, "building a graph loaded SciPy"
f = theon.function([x], [y, g])
f([0.5, 1.5])
assert "scipy.special" in sys.modules
"""


def test_scipy_loads_on_first_use_only() -> None:
    res = subprocess.run([sys.executable, "-c", _LAZY], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
