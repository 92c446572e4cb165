"""The classes and ops that the rows of :mod:`theon.scalar.table` make, by name.

Written from the rows by ``python -m theon.scalar.declare``: do not edit.  The table
builds each row's class and op at import (``theon.scalar.table._NAMES``); this
module declares them one by one, so type checkers and readers see every name.  The
family modules (``theon.scalar.basic``, ``arith``, ``logic``, ``special``,
``transcendental``) and ``theon.scalar`` star-import it; :data:`FAMILY_ALL` lists
the names each family module exports.  The classes' ``__module__`` is this module,
so an op pickles by its class here.
"""

from __future__ import annotations

from theon.scalar.basic import BinaryScalarOp, ScalarOp, UnaryScalarOp
from theon.scalar.table import _NAMES, _Variadic

__all__ = [
    "AND",
    "Abs",
    "Add",
    "ArcCos",
    "ArcCosh",
    "ArcSin",
    "ArcSinh",
    "ArcTan",
    "ArcTan2",
    "ArcTanh",
    "BetaInc",
    "BetaIncGradA",
    "BetaIncGradB",
    "BetaIncInv",
    "Ceil",
    "Chi2SF",
    "Conj",
    "Cos",
    "Cosh",
    "EQ",
    "Erf",
    "Erfc",
    "Erfcinv",
    "Erfcx",
    "Erfinv",
    "Exp",
    "Exp2",
    "Expm1",
    "Floor",
    "GE",
    "GT",
    "Gamma",
    "GammaInc",
    "GammaIncC",
    "GammaIncCInv",
    "GammaIncGrad",
    "GammaIncInv",
    "GammaL",
    "GammaLn",
    "GammaU",
    "Hyp2F1",
    "Hyp2F1GradA",
    "Hyp2F1GradB",
    "Hyp2F1GradC",
    "I0",
    "I1",
    "Identity",
    "Imag",
    "IntDiv",
    "Invert",
    "IsFinite",
    "IsInf",
    "IsNan",
    "Iv",
    "Ive",
    "J0",
    "J1",
    "Jv",
    "Kn",
    "Kv",
    "Kve",
    "LE",
    "LT",
    "LeftShift",
    "Log",
    "Log10",
    "Log1mexp",
    "Log1p",
    "Log2",
    "LogicalAnd",
    "LogicalNot",
    "LogicalOr",
    "LogicalXor",
    "Maximum",
    "Minimum",
    "Mod",
    "Mul",
    "NEQ",
    "Neg",
    "OR",
    "Owens_t",
    "Pow",
    "Psi",
    "Real",
    "RightShift",
    "Sigmoid",
    "Sign",
    "Sin",
    "Sinh",
    "Softplus",
    "Softsign",
    "Sqr",
    "Sqrt",
    "Sub",
    "Tan",
    "Tanh",
    "TrueDiv",
    "Trunc",
    "XOR",
    "XlogX",
    "XlogY0",
    "abs",
    "abs_",
    "add",
    "and_",
    "arccos",
    "arccosh",
    "arcsin",
    "arcsinh",
    "arctan",
    "arctan2",
    "arctanh",
    "betainc",
    "betainc_grad_a",
    "betainc_grad_b",
    "betaincinv",
    "ceil",
    "chi2sf",
    "conj",
    "cos",
    "cosh",
    "eq",
    "erf",
    "erfc",
    "erfcinv",
    "erfcx",
    "erfinv",
    "exp",
    "exp2",
    "expm1",
    "floor",
    "floor_div",
    "gamma",
    "gammainc",
    "gammainc_grad",
    "gammaincc",
    "gammainccinv",
    "gammaincinv",
    "gammal",
    "gammaln",
    "gammau",
    "ge",
    "gt",
    "hyp2f1",
    "hyp2f1_grad_a",
    "hyp2f1_grad_b",
    "hyp2f1_grad_c",
    "i0",
    "i1",
    "identity",
    "imag",
    "int_div",
    "invert",
    "isfinite",
    "isinf",
    "isnan",
    "iv",
    "ive",
    "j0",
    "j1",
    "jv",
    "kn",
    "kv",
    "kve",
    "le",
    "left_shift",
    "log",
    "log10",
    "log1mexp",
    "log1p",
    "log1pexp",
    "log2",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "lt",
    "maximum",
    "minimum",
    "mod",
    "mul",
    "neg",
    "neq",
    "or_",
    "owens_t",
    "pow",
    "psi",
    "real",
    "right_shift",
    "sigmoid",
    "sign",
    "sin",
    "sinh",
    "softplus",
    "softsign",
    "sqr",
    "sqrt",
    "sub",
    "tan",
    "tanh",
    "true_div",
    "trunc",
    "xlogx",
    "xlogy0",
    "xor",
]

#: the names each family module of theon.scalar exports (in its __all__)
FAMILY_ALL: dict[str, list[str]] = {
    "basic": [
        "Add",
        "Exp",
        "Log",
        "Mul",
        "Neg",
        "Sub",
        "TrueDiv",
        "add",
        "exp",
        "log",
        "mul",
        "neg",
        "sub",
        "true_div",
    ],
    "arith": [
        "Abs",
        "Ceil",
        "Conj",
        "Floor",
        "Identity",
        "Imag",
        "IntDiv",
        "Maximum",
        "Minimum",
        "Mod",
        "Pow",
        "Real",
        "Sign",
        "Sqr",
        "Sqrt",
        "Trunc",
        "abs",
        "abs_",
        "ceil",
        "conj",
        "floor",
        "floor_div",
        "identity",
        "imag",
        "int_div",
        "maximum",
        "minimum",
        "mod",
        "pow",
        "real",
        "sign",
        "sqr",
        "sqrt",
        "trunc",
    ],
    "logic": [
        "AND",
        "EQ",
        "GE",
        "GT",
        "Invert",
        "IsFinite",
        "IsInf",
        "IsNan",
        "LE",
        "LT",
        "LeftShift",
        "LogicalAnd",
        "LogicalNot",
        "LogicalOr",
        "LogicalXor",
        "NEQ",
        "OR",
        "RightShift",
        "XOR",
        "and_",
        "eq",
        "ge",
        "gt",
        "invert",
        "isfinite",
        "isinf",
        "isnan",
        "le",
        "left_shift",
        "logical_and",
        "logical_not",
        "logical_or",
        "logical_xor",
        "lt",
        "neq",
        "or_",
        "right_shift",
        "xor",
    ],
    "special": [
        "BetaInc",
        "BetaIncGradA",
        "BetaIncGradB",
        "BetaIncInv",
        "Chi2SF",
        "Erf",
        "Erfc",
        "Erfcinv",
        "Erfcx",
        "Erfinv",
        "Gamma",
        "GammaInc",
        "GammaIncC",
        "GammaIncCInv",
        "GammaIncGrad",
        "GammaIncInv",
        "GammaL",
        "GammaLn",
        "GammaU",
        "Hyp2F1",
        "Hyp2F1GradA",
        "Hyp2F1GradB",
        "Hyp2F1GradC",
        "I0",
        "I1",
        "Iv",
        "Ive",
        "J0",
        "J1",
        "Jv",
        "Kn",
        "Kv",
        "Kve",
        "Log1mexp",
        "Owens_t",
        "Psi",
        "Sigmoid",
        "Softplus",
        "Softsign",
        "XlogX",
        "XlogY0",
        "betainc",
        "betainc_grad_a",
        "betainc_grad_b",
        "betaincinv",
        "chi2sf",
        "erf",
        "erfc",
        "erfcinv",
        "erfcx",
        "erfinv",
        "gamma",
        "gammainc",
        "gammainc_grad",
        "gammaincc",
        "gammainccinv",
        "gammaincinv",
        "gammal",
        "gammaln",
        "gammau",
        "hyp2f1",
        "hyp2f1_grad_a",
        "hyp2f1_grad_b",
        "hyp2f1_grad_c",
        "i0",
        "i1",
        "iv",
        "ive",
        "j0",
        "j1",
        "jv",
        "kn",
        "kv",
        "kve",
        "log1mexp",
        "log1pexp",
        "owens_t",
        "psi",
        "sigmoid",
        "softplus",
        "softsign",
        "xlogx",
        "xlogy0",
    ],
    "transcendental": [
        "ArcCos",
        "ArcCosh",
        "ArcSin",
        "ArcSinh",
        "ArcTan",
        "ArcTan2",
        "ArcTanh",
        "Cos",
        "Cosh",
        "Exp2",
        "Expm1",
        "Log10",
        "Log1p",
        "Log2",
        "Sin",
        "Sinh",
        "Tan",
        "Tanh",
        "arccos",
        "arccosh",
        "arcsin",
        "arcsinh",
        "arctan",
        "arctan2",
        "arctanh",
        "cos",
        "cosh",
        "exp2",
        "expm1",
        "log10",
        "log1p",
        "log2",
        "sin",
        "sinh",
        "tan",
        "tanh",
    ],
}

Add: type[_Variadic] = _NAMES["Add"]
add: _Variadic = _NAMES["add"]
Mul: type[_Variadic] = _NAMES["Mul"]
mul: _Variadic = _NAMES["mul"]
Sub: type[BinaryScalarOp] = _NAMES["Sub"]
sub: BinaryScalarOp = _NAMES["sub"]
TrueDiv: type[BinaryScalarOp] = _NAMES["TrueDiv"]
true_div: BinaryScalarOp = _NAMES["true_div"]
IntDiv: type[BinaryScalarOp] = _NAMES["IntDiv"]
int_div: BinaryScalarOp = _NAMES["int_div"]
floor_div: BinaryScalarOp = _NAMES["floor_div"]
Mod: type[BinaryScalarOp] = _NAMES["Mod"]
mod: BinaryScalarOp = _NAMES["mod"]
Pow: type[BinaryScalarOp] = _NAMES["Pow"]
pow: BinaryScalarOp = _NAMES["pow"]
Neg: type[UnaryScalarOp] = _NAMES["Neg"]
neg: UnaryScalarOp = _NAMES["neg"]
Abs: type[UnaryScalarOp] = _NAMES["Abs"]
abs: UnaryScalarOp = _NAMES["abs"]
abs_: UnaryScalarOp = _NAMES["abs_"]
Sign: type[UnaryScalarOp] = _NAMES["Sign"]
sign: UnaryScalarOp = _NAMES["sign"]
Sqr: type[UnaryScalarOp] = _NAMES["Sqr"]
sqr: UnaryScalarOp = _NAMES["sqr"]
Sqrt: type[UnaryScalarOp] = _NAMES["Sqrt"]
sqrt: UnaryScalarOp = _NAMES["sqrt"]
Maximum: type[BinaryScalarOp] = _NAMES["Maximum"]
maximum: BinaryScalarOp = _NAMES["maximum"]
Minimum: type[BinaryScalarOp] = _NAMES["Minimum"]
minimum: BinaryScalarOp = _NAMES["minimum"]
Identity: type[UnaryScalarOp] = _NAMES["Identity"]
identity: UnaryScalarOp = _NAMES["identity"]
Exp: type[UnaryScalarOp] = _NAMES["Exp"]
exp: UnaryScalarOp = _NAMES["exp"]
Exp2: type[UnaryScalarOp] = _NAMES["Exp2"]
exp2: UnaryScalarOp = _NAMES["exp2"]
Expm1: type[UnaryScalarOp] = _NAMES["Expm1"]
expm1: UnaryScalarOp = _NAMES["expm1"]
Log: type[UnaryScalarOp] = _NAMES["Log"]
log: UnaryScalarOp = _NAMES["log"]
Log2: type[UnaryScalarOp] = _NAMES["Log2"]
log2: UnaryScalarOp = _NAMES["log2"]
Log10: type[UnaryScalarOp] = _NAMES["Log10"]
log10: UnaryScalarOp = _NAMES["log10"]
Log1p: type[UnaryScalarOp] = _NAMES["Log1p"]
log1p: UnaryScalarOp = _NAMES["log1p"]
Sin: type[UnaryScalarOp] = _NAMES["Sin"]
sin: UnaryScalarOp = _NAMES["sin"]
Cos: type[UnaryScalarOp] = _NAMES["Cos"]
cos: UnaryScalarOp = _NAMES["cos"]
Tan: type[UnaryScalarOp] = _NAMES["Tan"]
tan: UnaryScalarOp = _NAMES["tan"]
ArcSin: type[UnaryScalarOp] = _NAMES["ArcSin"]
arcsin: UnaryScalarOp = _NAMES["arcsin"]
ArcCos: type[UnaryScalarOp] = _NAMES["ArcCos"]
arccos: UnaryScalarOp = _NAMES["arccos"]
ArcTan: type[UnaryScalarOp] = _NAMES["ArcTan"]
arctan: UnaryScalarOp = _NAMES["arctan"]
ArcTan2: type[BinaryScalarOp] = _NAMES["ArcTan2"]
arctan2: BinaryScalarOp = _NAMES["arctan2"]
Sinh: type[UnaryScalarOp] = _NAMES["Sinh"]
sinh: UnaryScalarOp = _NAMES["sinh"]
Cosh: type[UnaryScalarOp] = _NAMES["Cosh"]
cosh: UnaryScalarOp = _NAMES["cosh"]
Tanh: type[UnaryScalarOp] = _NAMES["Tanh"]
tanh: UnaryScalarOp = _NAMES["tanh"]
ArcSinh: type[UnaryScalarOp] = _NAMES["ArcSinh"]
arcsinh: UnaryScalarOp = _NAMES["arcsinh"]
ArcCosh: type[UnaryScalarOp] = _NAMES["ArcCosh"]
arccosh: UnaryScalarOp = _NAMES["arccosh"]
ArcTanh: type[UnaryScalarOp] = _NAMES["ArcTanh"]
arctanh: UnaryScalarOp = _NAMES["arctanh"]
Floor: type[UnaryScalarOp] = _NAMES["Floor"]
floor: UnaryScalarOp = _NAMES["floor"]
Ceil: type[UnaryScalarOp] = _NAMES["Ceil"]
ceil: UnaryScalarOp = _NAMES["ceil"]
Trunc: type[UnaryScalarOp] = _NAMES["Trunc"]
trunc: UnaryScalarOp = _NAMES["trunc"]
LT: type[BinaryScalarOp] = _NAMES["LT"]
lt: BinaryScalarOp = _NAMES["lt"]
GT: type[BinaryScalarOp] = _NAMES["GT"]
gt: BinaryScalarOp = _NAMES["gt"]
LE: type[BinaryScalarOp] = _NAMES["LE"]
le: BinaryScalarOp = _NAMES["le"]
GE: type[BinaryScalarOp] = _NAMES["GE"]
ge: BinaryScalarOp = _NAMES["ge"]
EQ: type[BinaryScalarOp] = _NAMES["EQ"]
eq: BinaryScalarOp = _NAMES["eq"]
NEQ: type[BinaryScalarOp] = _NAMES["NEQ"]
neq: BinaryScalarOp = _NAMES["neq"]
AND: type[BinaryScalarOp] = _NAMES["AND"]
and_: BinaryScalarOp = _NAMES["and_"]
OR: type[BinaryScalarOp] = _NAMES["OR"]
or_: BinaryScalarOp = _NAMES["or_"]
XOR: type[BinaryScalarOp] = _NAMES["XOR"]
xor: BinaryScalarOp = _NAMES["xor"]
Invert: type[UnaryScalarOp] = _NAMES["Invert"]
invert: UnaryScalarOp = _NAMES["invert"]
LeftShift: type[BinaryScalarOp] = _NAMES["LeftShift"]
left_shift: BinaryScalarOp = _NAMES["left_shift"]
RightShift: type[BinaryScalarOp] = _NAMES["RightShift"]
right_shift: BinaryScalarOp = _NAMES["right_shift"]
LogicalAnd: type[BinaryScalarOp] = _NAMES["LogicalAnd"]
logical_and: BinaryScalarOp = _NAMES["logical_and"]
LogicalOr: type[BinaryScalarOp] = _NAMES["LogicalOr"]
logical_or: BinaryScalarOp = _NAMES["logical_or"]
LogicalXor: type[BinaryScalarOp] = _NAMES["LogicalXor"]
logical_xor: BinaryScalarOp = _NAMES["logical_xor"]
LogicalNot: type[UnaryScalarOp] = _NAMES["LogicalNot"]
logical_not: UnaryScalarOp = _NAMES["logical_not"]
IsNan: type[UnaryScalarOp] = _NAMES["IsNan"]
isnan: UnaryScalarOp = _NAMES["isnan"]
IsInf: type[UnaryScalarOp] = _NAMES["IsInf"]
isinf: UnaryScalarOp = _NAMES["isinf"]
IsFinite: type[UnaryScalarOp] = _NAMES["IsFinite"]
isfinite: UnaryScalarOp = _NAMES["isfinite"]
Erf: type[UnaryScalarOp] = _NAMES["Erf"]
erf: UnaryScalarOp = _NAMES["erf"]
Erfc: type[UnaryScalarOp] = _NAMES["Erfc"]
erfc: UnaryScalarOp = _NAMES["erfc"]
Erfinv: type[UnaryScalarOp] = _NAMES["Erfinv"]
erfinv: UnaryScalarOp = _NAMES["erfinv"]
Erfcinv: type[UnaryScalarOp] = _NAMES["Erfcinv"]
erfcinv: UnaryScalarOp = _NAMES["erfcinv"]
Gamma: type[UnaryScalarOp] = _NAMES["Gamma"]
gamma: UnaryScalarOp = _NAMES["gamma"]
GammaLn: type[UnaryScalarOp] = _NAMES["GammaLn"]
gammaln: UnaryScalarOp = _NAMES["gammaln"]
Psi: type[UnaryScalarOp] = _NAMES["Psi"]
psi: UnaryScalarOp = _NAMES["psi"]
Sigmoid: type[UnaryScalarOp] = _NAMES["Sigmoid"]
sigmoid: UnaryScalarOp = _NAMES["sigmoid"]
Softplus: type[UnaryScalarOp] = _NAMES["Softplus"]
softplus: UnaryScalarOp = _NAMES["softplus"]
log1pexp: UnaryScalarOp = _NAMES["log1pexp"]
Log1mexp: type[UnaryScalarOp] = _NAMES["Log1mexp"]
log1mexp: UnaryScalarOp = _NAMES["log1mexp"]
Softsign: type[UnaryScalarOp] = _NAMES["Softsign"]
softsign: UnaryScalarOp = _NAMES["softsign"]
Erfcx: type[UnaryScalarOp] = _NAMES["Erfcx"]
erfcx: UnaryScalarOp = _NAMES["erfcx"]
Owens_t: type[BinaryScalarOp] = _NAMES["Owens_t"]
owens_t: BinaryScalarOp = _NAMES["owens_t"]
I0: type[UnaryScalarOp] = _NAMES["I0"]
i0: UnaryScalarOp = _NAMES["i0"]
I1: type[UnaryScalarOp] = _NAMES["I1"]
i1: UnaryScalarOp = _NAMES["i1"]
Iv: type[BinaryScalarOp] = _NAMES["Iv"]
iv: BinaryScalarOp = _NAMES["iv"]
Ive: type[BinaryScalarOp] = _NAMES["Ive"]
ive: BinaryScalarOp = _NAMES["ive"]
J0: type[UnaryScalarOp] = _NAMES["J0"]
j0: UnaryScalarOp = _NAMES["j0"]
J1: type[UnaryScalarOp] = _NAMES["J1"]
j1: UnaryScalarOp = _NAMES["j1"]
Jv: type[BinaryScalarOp] = _NAMES["Jv"]
jv: BinaryScalarOp = _NAMES["jv"]
Kv: type[BinaryScalarOp] = _NAMES["Kv"]
kv: BinaryScalarOp = _NAMES["kv"]
Kve: type[BinaryScalarOp] = _NAMES["Kve"]
kve: BinaryScalarOp = _NAMES["kve"]
Kn: type[BinaryScalarOp] = _NAMES["Kn"]
kn: BinaryScalarOp = _NAMES["kn"]
GammaInc: type[BinaryScalarOp] = _NAMES["GammaInc"]
gammainc: BinaryScalarOp = _NAMES["gammainc"]
GammaIncC: type[BinaryScalarOp] = _NAMES["GammaIncC"]
gammaincc: BinaryScalarOp = _NAMES["gammaincc"]
GammaIncInv: type[BinaryScalarOp] = _NAMES["GammaIncInv"]
gammaincinv: BinaryScalarOp = _NAMES["gammaincinv"]
GammaIncCInv: type[BinaryScalarOp] = _NAMES["GammaIncCInv"]
gammainccinv: BinaryScalarOp = _NAMES["gammainccinv"]
GammaL: type[BinaryScalarOp] = _NAMES["GammaL"]
gammal: BinaryScalarOp = _NAMES["gammal"]
GammaU: type[BinaryScalarOp] = _NAMES["GammaU"]
gammau: BinaryScalarOp = _NAMES["gammau"]
Chi2SF: type[BinaryScalarOp] = _NAMES["Chi2SF"]
chi2sf: BinaryScalarOp = _NAMES["chi2sf"]
GammaIncGrad: type[BinaryScalarOp] = _NAMES["GammaIncGrad"]
gammainc_grad: BinaryScalarOp = _NAMES["gammainc_grad"]
BetaInc: type[ScalarOp] = _NAMES["BetaInc"]
betainc: ScalarOp = _NAMES["betainc"]
BetaIncInv: type[ScalarOp] = _NAMES["BetaIncInv"]
betaincinv: ScalarOp = _NAMES["betaincinv"]
BetaIncGradA: type[ScalarOp] = _NAMES["BetaIncGradA"]
betainc_grad_a: ScalarOp = _NAMES["betainc_grad_a"]
BetaIncGradB: type[ScalarOp] = _NAMES["BetaIncGradB"]
betainc_grad_b: ScalarOp = _NAMES["betainc_grad_b"]
Hyp2F1: type[ScalarOp] = _NAMES["Hyp2F1"]
hyp2f1: ScalarOp = _NAMES["hyp2f1"]
Hyp2F1GradA: type[ScalarOp] = _NAMES["Hyp2F1GradA"]
hyp2f1_grad_a: ScalarOp = _NAMES["hyp2f1_grad_a"]
Hyp2F1GradB: type[ScalarOp] = _NAMES["Hyp2F1GradB"]
hyp2f1_grad_b: ScalarOp = _NAMES["hyp2f1_grad_b"]
Hyp2F1GradC: type[ScalarOp] = _NAMES["Hyp2F1GradC"]
hyp2f1_grad_c: ScalarOp = _NAMES["hyp2f1_grad_c"]
XlogX: type[UnaryScalarOp] = _NAMES["XlogX"]
xlogx: UnaryScalarOp = _NAMES["xlogx"]
XlogY0: type[BinaryScalarOp] = _NAMES["XlogY0"]
xlogy0: BinaryScalarOp = _NAMES["xlogy0"]
Real: type[UnaryScalarOp] = _NAMES["Real"]
real: UnaryScalarOp = _NAMES["real"]
Imag: type[UnaryScalarOp] = _NAMES["Imag"]
imag: UnaryScalarOp = _NAMES["imag"]
Conj: type[UnaryScalarOp] = _NAMES["Conj"]
conj: UnaryScalarOp = _NAMES["conj"]
