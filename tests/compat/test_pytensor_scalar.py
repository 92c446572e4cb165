"""PyTensor's scalar names under ``theon.compat.alias("pytensor")`` (issue 31).

``pytensor.scalar`` is ``theon.scalar``, ``pytensor.scalar.basic`` is
``theon.scalar.basic`` (which holds every op and op class, as PyTensor's does) and
``pytensor.scalar.math`` is an old path of the alias table (``theon.scalar.special``,
then ``theon.scalar``).  The names are PyTensor 3.0.7's, written here (no PyTensor
import): every one that PyMC 5.28.5 imports, and every other op or op class of those
modules except the omissions listed with their reasons.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

#: what PyMC 5.28.5 imports from each module (pymc/logprob, pymc/distributions, ...)
PYMC_IMPORTS = {
    "pytensor.scalar": """Abs Add ArcCosh ArcSinh ArcTanh Cosh Erf Erfc Erfcx Exp Exp2 Expm1
        Log Log1mexp Log1p Log2 Log10 Mul Pow Sigmoid Sinh Softplus Sqr Sqrt Tanh Switch
        switch sign UnaryScalarOp upgrade_to_float_no_complex""",
    "pytensor.scalar.basic": """Cast Ceil Clip Floor GE GT Invert LE LT Mul RoundHalfToEven
        clip identity""",
}

#: the other ops and op classes of PyTensor 3.0.7's three modules
PYTENSOR_OPS = {
    "pytensor.scalar.basic": """AND Abs Add ArcCos ArcCosh ArcSin ArcSinh ArcTan ArcTan2
        ArcTanh BinaryScalarOp Cast Ceil Clip Composite Conj Cos Cosh EQ Exp Exp2 Expm1 Floor
        GE GT Identity Imag IntDiv Invert IsInf IsNan LE LT Log Log10 Log1p Log2 Maximum
        Minimum Mod Mul NEQ Neg OR Pow Real Reciprocal RoundHalfToEven ScalarMaximum
        ScalarMinimum ScalarOp Sign Sin Sinh Sqr Sqrt Sub Switch Tan Tanh TrueDiv Trunc
        UnaryScalarOp XOR abs add and_ arccos arccosh arcsin arcsinh arctan arctan2 arctanh
        ceil clip conj convert_to_bool convert_to_complex128 convert_to_complex64
        convert_to_float16 convert_to_float32 convert_to_float64 convert_to_int16
        convert_to_int32 convert_to_int64 convert_to_int8 convert_to_uint16 convert_to_uint32
        convert_to_uint64 convert_to_uint8 cos cosh eq exp exp2 expm1 floor floor_div ge gt
        identity imag int_div invert isinf isnan le log log10 log1p log2 lt maximum minimum
        mod mul neg neq or_ pow real reciprocal round_half_to_even scalar_maximum
        scalar_minimum sign sin sinh sqr sqrt sub switch tan tanh true_div trunc xor""",
    "pytensor.scalar.math": """BetaInc BetaIncInv BinaryScalarOp Erf Erfc Erfcinv Erfcx
        Erfinv Gamma GammaInc GammaIncC GammaIncCInv GammaIncInv GammaL GammaLn GammaU Hyp2F1
        I0 I1 Ive J0 J1 Jv Kve Log1mexp Owens_t PolyGamma Psi ScalarOp Sigmoid Softplus
        UnaryScalarOp betainc betainc_grad betaincinv erf erfc erfcinv erfcx erfinv gamma
        gammainc gammainc_grad gammaincc gammaincc_grad gammainccinv gammaincinv gammal
        gammaln gammau hyp2f1 hyp2f1_grad i0 i1 ive j0 j1 jv kve log1mexp owens_t polygamma
        psi scalar_abs sigmoid softplus tri_gamma""",
}
PYTENSOR_OPS["pytensor.scalar"] = " ".join(PYTENSOR_OPS.values())

#: PyTensor's ops that theon's scalar modules deliberately lack, and why
OMITTED = {
    "Angle angle Complex complex ComplexFromPolar complex_from_polar":
        "complex numbers are built at the tensor level (theon.tensor: complex, angle)",
    "Deg2Rad deg2rad Rad2Deg rad2deg RoundHalfAwayFromZero round_half_away_from_zero":
        "tensor functions of theon.tensor.math written with other ops, not scalar ops",
    "Second second": "theon's Second belongs to theon.tensor.math (the fill of Theano)",
    "BinaryBitOp UnaryBitOp LogicalComparison FixedLogicalComparison":
        "PyTensor's intermediate base classes; theon's rows derive from UnaryScalarOp and "
        "BinaryScalarOp",
    "ScalarInnerGraphOp ScalarLoop Grad2F1Loop": "PyTensor's scalar loops; theon sums its "
        "series and continued fractions in NumPy (theon.scalar.specfun)",
    "TriGamma": "tri_gamma(x) is polygamma(1, x)",
    "COp": "the C backend",
}

_CHILD = """
import json, sys
import theon.compat
theon.compat.alias("pytensor")
import importlib
import theon.scalar, theon.scalar.basic, theon.scalar.special
wanted = json.loads(sys.argv[1])
missing, wrong = [], []
for module, names in wanted.items():
    mod = importlib.import_module(module)
    for name in names.split():
        try:
            obj = getattr(mod, name)
        except AttributeError:
            missing.append(f"{module}.{name}")
            continue
        # every object is theon's own: the one theon.scalar exports
        theirs = getattr(theon.scalar, name, None)
        if theirs is not None and obj is not theirs:
            wrong.append(f"{module}.{name}")
    # the from-import form PyMC uses
    exec(f"from {module} import {', '.join(names.split())}")
print(json.dumps({"missing": missing, "wrong": wrong}))
"""


def _resolve(wanted: dict[str, str]) -> dict[str, list[str]]:
    res = subprocess.run([sys.executable, "-c", textwrap.dedent(_CHILD), json.dumps(wanted)],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr[-3000:]
    out: dict[str, list[str]] = json.loads(res.stdout.strip().splitlines()[-1])
    return out


def test_every_scalar_name_pymc_imports_resolves() -> None:
    got = _resolve(PYMC_IMPORTS)
    assert got == {"missing": [], "wrong": []}


def test_pytensor_scalar_ops_resolve_except_the_listed_omissions() -> None:
    got = _resolve(PYTENSOR_OPS)
    assert got == {"missing": [], "wrong": []}
    omitted = {n for names in OMITTED for n in names.split()}
    assert not omitted & {n for v in PYTENSOR_OPS.values() for n in v.split()}


def test_pymc_scalar_op_subclass_runs() -> None:
    """PyMC's ``I0e`` (dist_math.py): a ``UnaryScalarOp`` built PyTensor's way, its
    gradient reading ``pytensor.scalar.sign``, lifted by ``Elemwise``."""
    code = """
    import theon.compat
    theon.compat.alias("pytensor")
    import numpy as np, scipy.special
    import pytensor, pytensor.tensor as pt
    from pytensor.scalar import UnaryScalarOp, upgrade_to_float_no_complex
    from pytensor.scalar.basic import Clip, clip as scalar_clip
    from pytensor.scalar.math import Erfcx, erfcx
    from pytensor.tensor.elemwise import Elemwise

    class I1e(UnaryScalarOp):
        def impl(self, x):
            return scipy.special.i1e(x)

    class I0e(UnaryScalarOp):
        def impl(self, x):
            return scipy.special.i0e(x)

        def grad(self, inp, grads):
            (x,), (gz,) = inp, grads
            return (gz * (i1e_scalar(x) - pytensor.scalar.sign(x) * i0e_scalar(x)),)

    i1e_scalar = I1e(upgrade_to_float_no_complex, name="i1e")
    i0e_scalar = I0e(upgrade_to_float_no_complex, name="i0e")
    i0e = Elemwise(i0e_scalar, name="Elemwise{i0e,no_inplace}")
    x = pt.dvector("x")
    f = pytensor.function([x], [i0e(x), pytensor.grad(i0e(x).sum(), x)])
    v = np.array([-2.0, 0.5, 3.0])
    val, g = f(v)
    assert np.allclose(val, scipy.special.i0e(v))
    assert np.allclose(g, scipy.special.i1e(v) - np.sign(v) * scipy.special.i0e(v))
    assert isinstance(pt.clip(x, 0, 1).owner.op.scalar_op, Clip)
    assert isinstance(pt.erfcx(x).owner.op.scalar_op, Erfcx) and erfcx is pt.erfcx.scalar_op
    print("ok")
    """
    res = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                         text=True, timeout=120)
    assert res.returncode == 0 and res.stdout.strip() == "ok", res.stderr[-3000:]
