"""numba spellings of theon's scalar ops: one expression on numbers per op, by the op's
``name`` (a table, :data:`SPELLINGS`), with the dtypes each spelling is exact for.

An expression gets its operands as names or literals (never expressions: they may be
repeated) and computes what the op's NumPy ufunc computes on those dtypes, nan and inf
included (``maximum`` propagates nan as ``np.maximum`` does; division by zero gives
inf/nan because the graph function is compiled with ``error_model='numpy'``).

>>> spell("add", ["a", "b", "c"], ["float64"] * 3, "float64")
'(a + b + c)'
>>> spell("gammaln", ["a"], ["float64"], "float64") is None
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

__all__ = ["ERFCX", "SPELLINGS", "spell"]

#: ``erfcx(x) = exp(x**2) * erfc(x)``: that product below 2 (erfc is not small there), and
#: above, the continued fraction ``1 / (sqrt(pi) * (x + (1/2) / (x + (2/2) / (x + ...))))``
#: to 64 terms (within 8 ulps of SciPy's ``erfcx`` everywhere; tested)
ERFCX = """def _erfcx(x):
    if x < 2.0:
        return math.exp(x * x) * math.erfc(x)
    t = x
    for n in range(64, 0, -1):
        t = x + (0.5 * n) / t
    return 1.0 / (1.7724538509055159 * t)"""

F = "float64"
_F = frozenset({F})
_INT = frozenset({"int64"})
_NUM = frozenset({F, "int64", "bool"})
_BOOL = frozenset({"bool"})


def _join(sep: str) -> Callable[[Sequence[str]], str]:
    return lambda a: "(" + f" {sep} ".join(a) + ")"


def _t(template: str) -> Callable[[Sequence[str]], str]:
    return lambda a: template.format(*a)


# name -> (expression builder, allowed input dtypes, allowed output dtypes)
#: Spellings of scalar ops by name: ``(builder, input dtypes, output dtypes)``, each
#: dtype set the dtypes for which the expression equals the op's NumPy result.
SPELLINGS: dict[str, tuple[Callable[[Sequence[str]], str], frozenset[str], frozenset[str]]] = {
    "add": (_join("+"), _F | _INT, _F | _INT),
    "mul": (_join("*"), _F | _INT, _F | _INT),
    "sub": (_t("({0} - {1})"), _F | _INT, _F | _INT),
    "neg": (_t("(-{0})"), _F | _INT, _F | _INT),
    "sqr": (_t("({0} * {0})"), _F | _INT, _F | _INT),
    "true_div": (_t("({0} / {1})"), _F | _INT, _F),
    "reciprocal": (_t("(1.0 / {0})"), _F, _F),
    "abs": (_t("abs({0})"), _F | _INT, _F | _INT),
    "exp": (_t("math.exp({0})"), _F, _F),
    "expm1": (_t("math.expm1({0})"), _F, _F),
    "log": (_t("np.log({0})"), _F, _F),
    "log1p": (_t("np.log1p({0})"), _F, _F),
    "log2": (_t("np.log2({0})"), _F, _F),
    "log10": (_t("np.log10({0})"), _F, _F),
    "sqrt": (_t("np.sqrt({0})"), _F, _F),
    "tanh": (_t("math.tanh({0})"), _F, _F),
    "sin": (_t("math.sin({0})"), _F, _F),
    "cos": (_t("math.cos({0})"), _F, _F),
    "erf": (_t("math.erf({0})"), _F, _F),
    "erfc": (_t("math.erfc({0})"), _F, _F),
    "erfcx": (_t("_erfcx({0})"), _F, _F),
    # scipy's expit, 1 / (1 + exp(-x)): 0 below about -709.78, where exp(-x) overflows
    # to inf (numba's exp, as NumPy's, overflows without raising)
    "sigmoid": (_t("(1.0 / (1.0 + math.exp(-{0})))"), _F, _F),
    # max(x, 0) + log1p(exp(-|x|)), theon's NumPy softplus, on each side of 0
    "softplus": (_t("({0} + np.log1p(math.exp(-{0})) if {0} > 0.0 "
                    "else np.log1p(math.exp({0})))"), _F, _F),
    # log(1 - exp(x)): log1p(-exp(x)) below -ln 2, log(-expm1(x)) above (-inf at 0, nan
    # above 0)
    "log1mexp": (_t("(np.log1p(-math.exp({0})) if {0} < -0.6931471805599453 "
                    "else np.log(-math.expm1({0})))"), _F, _F),
    "pow": (_t("({0} ** {1})"), _F, _F),
    "maximum": (_t("({0} if {0} >= {1} or {0} != {0} else {1})"), _F | _INT, _F | _INT),
    "minimum": (_t("({0} if {0} <= {1} or {0} != {0} else {1})"), _F | _INT, _F | _INT),
    "clip": (_t("({0} if {0} != {0} else ({1} if {0} < {1} else ({2} if {0} > {2} "
                "else {0})))"), _F, _F),
    "gt": (_t("({0} > {1})"), _NUM, _BOOL),
    "ge": (_t("({0} >= {1})"), _NUM, _BOOL),
    "lt": (_t("({0} < {1})"), _NUM, _BOOL),
    "le": (_t("({0} <= {1})"), _NUM, _BOOL),
    "eq": (_t("({0} == {1})"), _NUM, _BOOL),
    "neq": (_t("({0} != {1})"), _NUM, _BOOL),
    "and_": (_join("&"), _BOOL, _BOOL),
    "or_": (_join("|"), _BOOL, _BOOL),
    "invert": (_t("(not {0})"), _BOOL, _BOOL),
    "isnan": (_t("math.isnan({0})"), _F, _BOOL),
    "isinf": (_t("math.isinf({0})"), _F, _BOOL),
    "identity": (_t("{0}"), _NUM, _NUM),
    "convert_to_float64": (_t("float({0})"), _NUM, _F),
}


def spell(name: str, args: Sequence[str], in_dtypes: Sequence[str], out_dtype: str
          ) -> str | None:
    """The expression of scalar op ``name`` on ``args`` (of ``in_dtypes``) giving
    ``out_dtype``, or None where the table has none exact for those dtypes.  ``switch``
    and ``second`` take any dtypes their value operands share with the output."""
    if name == "switch":
        if in_dtypes[0] not in _NUM or in_dtypes[1] != out_dtype or in_dtypes[2] != out_dtype:
            return None
        return f"({args[1]} if {args[0]} else {args[2]})"
    if name == "convert_to_float64" and in_dtypes[0] == "bool" and out_dtype == F:
        return f"(1.0 if {args[0]} else 0.0)"
    if name == "convert_to_int64" and in_dtypes[0] in ("bool", "int64") and out_dtype == "int64":
        return f"(1 if {args[0]} else 0)" if in_dtypes[0] == "bool" else args[0]
    if name == "second":
        return args[1] if in_dtypes[1] == out_dtype else None
    row = SPELLINGS.get(name)
    if row is None:
        return None
    build, ins, outs = row
    if out_dtype not in outs or any(d not in ins for d in in_dtypes):
        return None
    if ins is not _NUM and ins is not _BOOL and len(set(in_dtypes)) > 1:
        return None  # (mixed int/float arithmetic: NumPy's promotion, not Python's)
    if outs == _F | _INT and out_dtype != in_dtypes[0]:
        return None
    return build(args)
