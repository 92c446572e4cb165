"""Steps of the random NumPy graphs that draw from issue 35's functions (tril/triu,
trace, pad, logaddexp, quantile, ptp, nansum/nanmean, isposinf/isneginf,
round_half_away_from_zero, and the special functions against ``scipy.special``),
for the differential runs (``NS_MIX`` in CI, ``NUMPY_MIX_LONG`` in the slow run).

Each step takes the builder's context ``cx`` and one pool entry, and returns the new
entry (or None when the entry does not fit), as the steps of
:mod:`tests.tensor.rewriting.npgraphs` do; only the builder (``cx.b``) is read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.special as sc

import theon.tensor as tt
from tests.tensor.rewriting.graphgen import Entry, broadcast_shape
from tests.tensor.rewriting.optable import EXACT, TRANS, Err, OpSpec, shape_spec

__all__ = ["NS_KINDS"]


def _tri(cx: Any, a: Entry) -> Entry | None:
    b = cx.b
    if not a.shape:
        return None
    name, k = b.choice(["tril", "triu"]), b.choice([-1, 0, 1, 2])
    spec = shape_spec(f"{name}(k={k})", lambda x: getattr(tt, name)(x, k),
                      lambda x: getattr(np, name)(x, k))
    b.steps.append(f"{spec.name}({a.var})")
    return b.ap(spec, a)


def _trace(cx: Any, a: Entry) -> Entry | None:
    b = cx.b
    if len(a.shape) < 2 or a.kind == "b":
        return None
    off = b.choice([-1, 0, 1])
    n = min(a.shape[:2])
    spec = OpSpec(f"trace(offset={off})", lambda x: tt.trace(x, off),
                  lambda x: np.trace(x, off), Err(inp=n), kinds="iuf")
    b.steps.append(f"{spec.name}({a.var})")
    return b.ap(spec, a)


_GATHERS = ["constant", "edge", "wrap", "reflect", "symmetric", "maximum", "minimum"]


def _pad(cx: Any, a: Entry) -> Entry | None:
    b = cx.b
    if not a.shape:
        return None
    mode = b.choice(_GATHERS)
    width = tuple((b.choice([0, 1, 2, 5]), b.choice([0, 1, 3])) for _ in a.shape)
    if mode in ("maximum", "minimum") and a.kind == "b":
        return None
    spec = shape_spec(f"pad({width}, {mode})", lambda x: tt.pad(x, width, mode=mode),
                      lambda x: np.pad(x, width, mode=mode))
    b.steps.append(f"{spec.name}({a.var})")
    return b.ap(spec, a)


def _logaddexp(cx: Any, a: Entry) -> Entry | None:
    b = cx.b
    if a.kind == "b":
        return None
    y = b.pick(lambda e: e.kind in "iuf" and broadcast_shape(a, e) is not None)
    if y is None:
        return None
    spec = OpSpec("logaddexp", tt.logaddexp, np.logaddexp, TRANS, kinds="iuf")
    b.steps.append(f"logaddexp({a.var}, {y.var})")
    return b.ap(spec, a, y)


_PICKS = ["lower", "higher", "nearest", "inverted_cdf", "closest_observation"]


def _unit_axes(a: Entry, axis: Any) -> bool:
    """Whether every reduced axis has static length 1: a difference of two reductions
    over them is ``x - x``, which theon cancels to 0 (a documented identity, nan in
    NumPy for inf and nan), so those steps are not drawn there."""
    static = a.var.type.shape
    axes = range(len(static)) if axis is None else [axis % len(static)]
    return all(static[d] == 1 for d in axes)


def _quantile(cx: Any, a: Entry) -> Entry | None:
    b = cx.b
    if not a.shape or a.kind not in "iuf":
        return None
    method = b.choice([*_PICKS, "linear", "midpoint", "hazen"])
    q = b.choice([0.0, 0.25, 0.5, 1.0, [0.1, 0.9]])
    axis = b.choice([None, -1, 0])
    if method not in _PICKS and _unit_axes(a, axis):
        return None
    keep = b.coin()
    err = EXACT if method in _PICKS else Err(out=4.0, inp=1.0)

    def build(x: Any) -> Any:
        return tt.quantile(x, q, axis=axis, method=method, keepdims=keep)

    def ref(x: Any) -> Any:
        return np.quantile(x, q, axis=axis, method=method, keepdims=keep)

    spec = OpSpec(f"quantile({q}, axis={axis}, {method}, keepdims={keep})", build, ref, err,
                  kinds="iuf", params=(("axis", axis), ("keepdims", keep)))
    b.steps.append(f"{spec.name}({a.var})")
    return b.ap(spec, a)


def _ptp(cx: Any, a: Entry) -> Entry | None:
    b = cx.b
    if not a.shape or a.kind == "b":
        return None
    axis, keep = b.choice([None, 0, -1]), b.coin()
    if _unit_axes(a, axis):
        return None
    spec = OpSpec(f"ptp(axis={axis}, keepdims={keep})",
                  lambda x: tt.ptp(x, axis=axis, keepdims=keep),
                  lambda x: np.ptp(x, axis=axis, keepdims=keep), EXACT, kinds="iuf",
                  params=(("axis", axis), ("keepdims", keep)))
    b.steps.append(f"{spec.name}({a.var})")
    return b.ap(spec, a)


def _nanstat(cx: Any, a: Entry) -> Entry | None:
    b = cx.b
    if not a.shape or a.kind != "f":
        return None
    name, axis, keep = b.choice(["nansum", "nanmean"]), b.choice([None, 0, -1]), b.coin()
    n = int(np.prod(a.shape)) if axis is None else a.shape[axis]
    tfn: Callable[..., Any] = getattr(tt, name)
    nfn: Callable[..., Any] = getattr(np, name)
    spec = OpSpec(f"{name}(axis={axis}, keepdims={keep})",
                  lambda x: tfn(x, axis=axis, keepdims=keep),
                  lambda x: nfn(x, axis=axis, keepdims=keep),
                  Err(inp=n, out=1 if name == "nanmean" else 0), kinds="f",
                  params=(("axis", axis), ("keepdims", keep)))
    b.steps.append(f"{spec.name}({a.var})")
    return b.ap(spec, a)


def _round_away(x: Any) -> Any:
    x = np.asarray(x)
    if x.dtype.kind != "f":
        return x
    t = np.trunc(x)
    return np.where(np.abs(x - t) >= 0.5, t + np.sign(x), t).astype(x.dtype)


def _elementwise(cx: Any, a: Entry) -> Entry | None:
    b = cx.b
    if a.kind == "b":
        return None
    name = b.choice(["isposinf", "isneginf", "round_half_away_from_zero"])
    ref = _round_away if name == "round_half_away_from_zero" else getattr(np, name)
    spec = OpSpec(name, getattr(tt, name), ref, EXACT, kinds="iuf")
    b.steps.append(f"{name}({a.var})")
    return b.ap(spec, a)


# special functions of one array argument ``x`` and constant parameters: (name, the
# parameters drawn from, the SciPy reference of ``(x, *params)``, the argument order
# of theon's function: "x_first" or "x_last"); SciPy computes in the float dtype of
# ``x``, as theon does (float16 in float32, rounded; extended precision in float64)
_SPECIAL: list[tuple[str, list[tuple[float, ...]], Callable[..., Any], str]] = [
    ("erfcx", [()], sc.erfcx, "x_first"),
    ("i0", [()], sc.i0, "x_first"),
    ("i1", [()], sc.i1, "x_first"),
    ("j0", [()], sc.j0, "x_first"),
    ("j1", [()], sc.j1, "x_first"),
    ("gammainc", [(0.5,), (2.0,), (30.0,)], sc.gammainc, "x_last"),
    ("gammaincc", [(0.5,), (2.0,), (30.0,)], sc.gammaincc, "x_last"),
    ("owens_t", [(0.5,), (-2.0,)], sc.owens_t, "x_first"),
    ("iv", [(0.0,), (1.5,)], sc.iv, "x_last"),
    ("ive", [(0.0,), (2.5,)], sc.ive, "x_last"),
    ("jv", [(0.5,), (3.0,)], sc.jv, "x_last"),
    ("kv", [(0.5,), (2.0,)], sc.kv, "x_last"),
    ("kve", [(0.5,), (2.0,)], sc.kve, "x_last"),
    ("betainc", [(0.5, 2.0), (3.0, 3.0)], sc.betainc, "x_last"),
]
_SPECIAL_ERR = Err(out=16.0, inp=2.0)


def _special(cx: Any, a: Entry) -> Entry | None:
    b = cx.b
    if a.kind != "f":
        return None
    name, choices, sfn, order = b.choice(_SPECIAL)
    params = b.choice(choices)
    tfn: Callable[..., Any] = getattr(tt, name)

    def build(x: Any) -> Any:
        return tfn(x, *params) if order == "x_first" else tfn(*params, x)

    def ref(x: Any) -> Any:
        x = np.asarray(x)
        # SciPy has no float16 loops: float32's, rounded to float16 (theon's dtype);
        # the oracle's extended-precision world gets float64's
        work = {2: np.float32, 4: np.float32}.get(x.dtype.itemsize, np.float64)
        ps = [work(p) for p in params]
        xw = x.astype(work)
        out = sfn(xw, *ps) if order == "x_first" else sfn(*ps, xw)
        return np.asarray(out).astype(x.dtype)

    spec = OpSpec(f"{name}{params}", build, ref, _SPECIAL_ERR, kinds="f")
    b.steps.append(f"{spec.name}({a.var})")
    return b.ap(spec, a)


NS_KINDS: dict[str, Callable[[Any, Entry], Entry | None]] = {
    "tri": _tri, "trace": _trace, "pad": _pad, "logaddexp": _logaddexp,
    "quantile": _quantile, "ptp": _ptp, "nanstat": _nanstat, "ns_elementwise": _elementwise,
    "special": _special,
}
