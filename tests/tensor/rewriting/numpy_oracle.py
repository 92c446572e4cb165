"""Evaluate a graph's NumPy program (no theon involved) and judge theon's results by it.

The program (``Graph.program``, built beside the theon graph from the op table)
is evaluated in several *worlds*:

- **strict**: NumPy on the graph's own dtypes.  Its dtypes are the reference:
  theon's casting rules are NumPy 2's (``np.result_type``; Python numbers are
  weak, NEP 50), so ``int32 + float32`` is float64, ``float32 + 2.5`` float32,
  ``int8 + float32`` float32, ``sum(int32)`` int64, ``mean(int32)`` float64,
  ``exp(int8)`` float16 (:func:`~tests.tensor.rewriting.optable.float_of` for
  SciPy's functions).  Result dtypes must match exactly.
- **rounding runs** (4): strict, with every operation's float arguments and
  result moved by random signs times its error budget (``OpSpec.err``: none for
  an operation both sides compute with one correctly rounded IEEE operation on
  exact values, a few ulps for libm functions, ``n`` ulps of backward error for
  a sum of ``n`` terms); a result computed from moved values moves by 1 ulp (it
  may round either way); a sum (product) the canonicalizer may regroup moves by
  ``n eps sum(|term|)`` (``n`` ulps) for its ``n`` terms.  How far the runs move
  an entry (its *spread*) gives the tolerance, ``F * spread``: an entry computed
  exactly must agree bit for bit.  An integer or boolean entry may take any
  value a run gives it; an entry whose nan/inf status differs between runs is
  not compared in value (rounding decides it).
- **precise**: float64 results in extended precision (``np.longdouble``; float32
  results rounded to float32): a rewrite may be more accurate than NumPy
  (``log(1 + x) -> log1p(x)``, softmax without overflow, a float32 mean
  accumulated in float64).
- **identity** and **identity_deep**: precise, with the identities theon applies
  (README, "Numbers: what FAST_RUN computes"): sums and products in canonical form
  (``x - x -> 0``, ``x/x -> 1``, ``x*y/y -> x``, ``(x + y) - y -> x``,
  ``2*x*3 -> 6*x``), flattened through terms no other step reads (as theon
  does) or through all of them; equal steps merged and no-op steps dropped; the
  stabilizations (``log(exp(x)) -> x``, ``log(sigmoid(x)) -> -softplus(-x)``,
  softmax, logsumexp, ...: :func:`_stabilized`).  Two identity rounding runs
  give their spread.  Tolerance: ``F`` times the larger spread plus 8 ulps.

An entry is right when it matches one world: equal nan/inf status (a nan where
the world has nan, an inf of the same sign), and within the tolerance.
"""

from __future__ import annotations

import warnings
from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np

from tests.tensor.rewriting import optable as ot
from tests.tensor.rewriting.graphgen import Const, Graph, Step

__all__ = ["Oracle", "Verdict", "evaluate", "judge"]

F = 2.0  # safety factor on the spread of the rounding runs
K_PRECISE = 8.0  # ulps allowed against the precise / identity worlds
N_RUNS = 4  # rounding runs
SUM_FAMILY = {"add", "sub", "neg"}
PROD_FAMILY = {"mul", "div", "neg", "recip"}
EXT = np.longdouble


def _ext(x: Any) -> Any:
    a = np.asarray(x)
    return a.astype(EXT) if a.dtype.kind == "f" else a


def _eps(dtype: Any) -> float:
    dt = np.dtype(dtype)
    return float(np.finfo(dt).eps) if dt.kind == "f" else 0.0


def _jiggle(x: Any, ulps: float, eps: float, rng: np.random.Generator, floor: float = 0.0
            ) -> Any:
    """``x + s * ulps * eps * max(|x|, floor)`` with random signs ``s`` (finite floats only)."""
    a = np.asarray(x)
    if a.dtype.kind != "f" or ulps == 0 or eps == 0:
        return a
    s = rng.choice(np.array([-1.0, 1.0]), size=a.shape)
    delta = s * (ulps * eps) * np.maximum(np.abs(a), floor)
    return np.where(np.isfinite(a), a + delta, a).astype(a.dtype)


def _needed(prog: list[Step], outs: list[int]) -> list[int]:
    need = set(outs)
    for k in range(len(prog) - 1, -1, -1):
        if k in need:
            need.update(a for a in prog[k].args if isinstance(a, int) and prog[k].op)
    return sorted(need)


def _forms(prog: list[Step], ref: dict[int, Any], clients: Counter[int] | None
           ) -> tuple[dict[int, Any], ...]:
    """Canonical sum and product forms ``(pos, neg, const)`` of the family steps.

    Sums: ``add``, ``sub``, ``neg`` of any dtype but bool; products: ``mul``,
    ``div``, ``neg``, ``recip`` of floats (as theon's canonicalizers), on the
    steps of ``ref`` (their strict values: dtypes and shapes).  A term is
    flattened into its client when it has a form of the same kind and the same
    dtype and (with ``clients``) no other client: what the canonicalizer
    flattens.  Constants combine.  Terms are compared as theon sees them: steps
    computing the same thing are one term (theon merges them), a step that gives
    back its input (``flatten`` of a vector, ``--x``, ``(x + y) - y``) is that
    input, and ``x.dimshuffle('x', 0)`` is ``x`` (elementwise ops pad their
    inputs' dims on the left just so).
    """
    sums: dict[int, Any] = {}
    prods: dict[int, Any] = {}
    dtypes = {k: np.asarray(v).dtype for k, v in ref.items()}
    shapes = {k: np.shape(v) for k, v in ref.items()}
    canon: list[int] = []
    seen: dict[Any, int] = {}

    def same(a: int, b: int) -> bool:
        return shapes[a] == shapes[b] and dtypes[a] == dtypes[b]

    def atom(a: int) -> int:
        while prog[a].op is not None and prog[a].op.pads:  # type: ignore[union-attr]
            x = prog[a].args[0]
            if shapes[a] != (1,) * (len(shapes[a]) - len(shapes[x])) + shapes[x]:
                break  # it dropped a dim too
            a = x
        return canon[a]

    for k, st in enumerate(prog):
        canon.append(k)
        if k not in ref or st.op is None:
            continue
        x = st.args[0] if st.args and isinstance(st.args[0], int) else None
        if x is not None and st.op.noop_if_same and same(x, k):
            canon[k] = canon[x]
            continue
        if st.op.name in ("minimum", "maximum") and x is not None and len(st.args) == 2 \
                and isinstance(st.args[1], int) and canon[st.args[1]] == canon[x] \
                and same(x, k):
            canon[k] = canon[x]  # minimum(x, x) -> x (exact: nan and -0.0 stay)
            continue
        inner = prog[x] if x is not None else None
        if inner is not None and st.op.family == "neg" and inner.op is not None \
                and inner.op.family == "neg" and same(inner.args[0], k):
            canon[k] = canon[inner.args[0]]  # --x -> x
            continue
        if st.op.family == "mul" and Const(1) in st.args:
            y = st.args[1] if st.args[0] == Const(1) else st.args[0]
            if isinstance(y, int) and same(y, k):
                canon[k] = canon[y]  # x * 1 -> x (integers; float products below)
                continue
        key = (st.op.name, tuple(canon[a] if isinstance(a, int) else ("const", repr(a.value))
                                 for a in st.args))
        canon[k] = seen.setdefault(key, k)
        fam, dt = st.op.family, dtypes[k]
        if fam is None or dt.kind == "b" or canon[k] != k:
            continue
        if fam == "div" and _softmax_of(prog, k) is not None:
            continue  # stabilized into a softmax: a term of its own (see _stabilized)
        for forms, family, unit in ((sums, SUM_FAMILY, 0), (prods, PROD_FAMILY, 1)):
            if fam not in family or (forms is prods and dt.kind != "f"):
                continue
            parts = []
            for a in st.args:
                if isinstance(a, Const):
                    parts.append(([], [], a.value))
                elif a in forms and dtypes.get(a) == dt and (clients is None or clients[a] == 1):
                    parts.append(forms[a])
                else:
                    parts.append(([atom(a)], [], unit))
            with np.errstate(all="ignore"):
                forms[k] = _combine(fam, parts, forms is prods)
        own = sums if fam in ("add", "sub") else prods if fam != "neg" else None
        if own is not None and k in own:
            pos, neg = _cancel(*own[k][:2])
            neutral = 1 if own is prods else 0
            if len(pos) == 1 and not neg and own[k][2] == neutral and same(pos[0], k):
                canon[k] = pos[0]  # the sum or product is one of its terms
    return sums, prods


def _combine(fam: str, parts: list[Any], product: bool) -> Any:
    """The sum (product) form of ``fam`` applied to the forms ``parts``."""
    if fam == "neg":
        (p0, n0, c0), = parts
        return (p0, n0, -c0) if product else (n0, p0, -c0)
    if fam == "recip":
        (p0, n0, c0), = parts
        return (n0, p0, 1 / np.float64(c0))
    (p0, n0, c0), (p1, n1, c1) = parts
    if fam in ("add", "mul"):
        c = c0 * c1 if product else c0 + c1
        return (p0 + p1, n0 + n1, c)
    c = c0 / np.float64(c1) if product else c0 - c1  # sub, div
    return (p0 + n1, n0 + p1, c)


def _cancel(pos: list[int], neg: list[int]) -> tuple[list[int], list[int]]:
    both = Counter(pos) & Counter(neg)
    p, n = Counter(pos) - both, Counter(neg) - both
    return list(p.elements()), list(n.elements())


def _identity_value(form: Any, product: bool, env: dict[int, Any], like: np.ndarray
                    ) -> np.ndarray:
    """The canonical form evaluated on the identity world's terms, shaped like ``like``."""
    pos, neg, c = form
    pos, neg = _cancel(pos, neg)

    def term(a: int) -> Any:  # (terms are cast to the result's dtype, as by the op)
        return np.asarray(env[a]).astype(like.dtype)

    with np.errstate(all="ignore"):
        if product:
            total: Any = np.asarray(c, dtype=like.dtype)
            for a in pos:
                total = total * term(a)
            if neg:
                den: Any = np.ones((), like.dtype)
                for a in neg:
                    den = den * term(a)
                total = total / den
        else:
            total = None
            for a in pos:
                total = term(a) if total is None else total + term(a)
            for a in neg:
                total = -term(a) if total is None else total - term(a)
            if total is None:
                total = np.asarray(c)
            elif c != 0:  # (a negative constant subtracted: unsigned terms stay unsigned)
                total = total - (-c) if c < 0 else total + c
    return np.broadcast_to(np.asarray(total), like.shape).astype(like.dtype)


def _op_of(prog: list[Step], a: Any) -> str | None:
    """The op name of step ``a`` (None for a constant or an input)."""
    if not isinstance(a, int) or prog[a].op is None:
        return None
    return prog[a].op.name.split("(")[0]  # type: ignore[union-attr]


def _arg(prog: list[Step], a: Any, name: str) -> Any:
    """The first argument of step ``a`` when it is a ``name`` step, else None."""
    return prog[a].args[0] if _op_of(prog, a) == name else None


def _one_minus(prog: list[Step], a: Any, name: str) -> Any:
    """``z`` when step ``a`` is ``1 - name(z)`` (or ``log1p``'s ``-name(z)``), else None."""
    st = prog[a] if isinstance(a, int) else None
    if st is None or _op_of(prog, a) != "sub" or st.args[0] != Const(1):
        return None
    return _arg(prog, st.args[1], name)


def _softplus(z: Any) -> Any:
    return np.logaddexp(0, z)


def _log1mexp(z: Any) -> Any:
    return np.where(z > -np.log(2), np.log(-np.expm1(z)), np.log1p(-np.exp(z)))


def _stabilized(prog: list[Step], k: int, env: Any) -> Any:
    """Step ``k``'s value under the documented stabilizations, or None when none applies.

    ``log(exp(z)) -> z``, ``log(sigmoid(z)) -> -softplus(-z)``, ``log(1 + exp(z))``
    and ``log1p(exp(z)) -> softplus(z)``, ``log(1 - sigmoid(z)) -> -softplus(z)``,
    ``log(1 - exp(z))``, ``log1p(-exp(z))`` and ``log(-expm1(z)) -> log1mexp(z)``,
    ``log(sum(exp(z))) -> logsumexp(z)``, ``exp(z) / sum(exp(z))`` and
    ``log`` of it or of ``softmax(z)``: softmax / log_softmax (all evaluated
    in extended precision, shifted by the max where it is finite).  ``env(a)``: the
    value of step ``a`` (in a rounding run, moved by the stable form's backward error).
    """
    st = prog[k]
    name = _op_of(prog, k)
    a = st.args[0] if st.args else None
    if name == "div":
        sm = _softmax_of(prog, k)
        return None if sm is None else ot.stable_softmax(env(sm[0]), sm[1])
    if name == "log1p":
        if (z := _arg(prog, a, "exp")) is not None:
            return _softplus(env(z))
        inner = _arg(prog, a, "neg")
        if (z := _arg(prog, inner, "exp")) is not None:
            return _log1mexp(env(z))
        if (z := _arg(prog, inner, "sigmoid")) is not None:
            return -_softplus(env(z))
        return None
    if name != "log":
        return None
    for fn, z in (
        (lambda v: v, _arg(prog, a, "exp")),
        (lambda v: -_softplus(-v), _arg(prog, a, "sigmoid")),
        (lambda v: -_softplus(v), _one_minus(prog, a, "sigmoid")),
        (_log1mexp, _one_minus(prog, a, "exp")),
        (_log1mexp, _arg(prog, _arg(prog, a, "neg"), "expm1")),
    ):
        if z is not None:
            return fn(env(z))
    if _op_of(prog, a) == "add":
        x, y = prog[a].args
        for c, e in ((x, y), (y, x)):
            if c == Const(1) and (z := _arg(prog, e, "exp")) is not None:
                return _softplus(env(z))
    if _op_of(prog, a) == "sum" and (z := _arg(prog, prog[a].args[0], "exp")) is not None:
        p = dict(prog[a].op.params)  # type: ignore[union-attr]
        return ot.stable_logsumexp(env(z), p["axis"], p["keepdims"])
    if _op_of(prog, a) == "softmax":
        z, axis = prog[a].args[0], dict(prog[a].op.params)["axis"]  # type: ignore[union-attr]
        v = env(z)
        return v - ot.stable_logsumexp(v, axis, keepdims=True)
    sm = _softmax_of(prog, a) if _op_of(prog, a) == "div" else None
    if sm is not None:
        v = env(sm[0])
        return v - ot.stable_logsumexp(v, sm[1], keepdims=True)
    return None


def _softmax_of(prog: list[Step], k: Any) -> tuple[int, Any] | None:
    """``(z, axis)`` when step ``k`` is ``exp(z) / sum(exp(z), axis, keepdims=True)``."""
    num, den = prog[k].args
    z = _arg(prog, num, "exp")
    if z is None or _op_of(prog, den) != "sum":
        return None
    p = dict(prog[den].op.params)  # type: ignore[union-attr]
    if not p["keepdims"] or _arg(prog, prog[den].args[0], "exp") != z:
        return None
    return z, p["axis"]


def _reassociated(val: Any, fam: str, k: int, forms: tuple[dict[int, Any], ...],
                  env: dict[int, Any], eps: float, rng: np.random.Generator) -> Any:
    """``val`` moved by the rounding of its sum (product) tree computed in another order:
    ``n`` terms give ``n eps sum(|term|)`` (``n`` ulps of the product)."""
    sums, prods = forms
    if fam in ("add", "sub") and k in sums:
        pos, neg, c = sums[k]
        with np.errstate(all="ignore"):
            scale: Any = abs(c)
            for a in (*pos, *neg):
                scale = scale + np.abs(env[a])
        n = len(pos) + len(neg) + (c != 0)
        v = np.asarray(val)
        sgn = rng.choice(np.array([-1.0, 1.0]), size=v.shape)
        moved = v + sgn * (n * eps) * np.broadcast_to(scale, v.shape)
        return np.where(np.isfinite(v) & np.isfinite(moved), moved, v).astype(v.dtype)
    if fam in ("mul", "div", "recip") and k in prods:
        pos, neg, c = prods[k]
        return _jiggle(val, len(pos) + len(neg) + 1, eps, rng)
    return val


def _chains(prog: list[Step], dtypes: dict[int, np.dtype[Any]]) -> set[int]:
    """Float steps of a sum or product tree with another such step (reassociable)."""
    out: set[int] = set()
    for k, st in enumerate(prog):
        if st.op is None or st.op.family is None or dtypes.get(k, np.dtype("b")).kind != "f":
            continue
        for a in st.args:
            if isinstance(a, int) and prog[a].op is not None and prog[a].op.family:  # type: ignore[union-attr]
                fa = {prog[a].op.family, st.op.family}  # type: ignore[union-attr]
                if fa <= SUM_FAMILY or fa <= PROD_FAMILY:
                    out.update((k, a))
    return out


def evaluate(g: Graph, world: str = "strict", rng: np.random.Generator | None = None,
             ref: dict[int, Any] | None = None,
             values: list[Any] | None = None) -> dict[int, Any]:
    """Every needed step's value in ``world``: "strict", "precise", "identity" (sums and
    products flattened through terms no other step reads, as theon does) or
    "identity_deep" (flattened through every term).

    With ``rng``, a rounding run: every operation's arguments and result move by
    random signs times its error budget (in ulps of the step's strict dtype).
    ``ref``: the strict values (every world but strict needs them); ``values``:
    other input values than the graph's.
    """
    dtypes = {k: np.asarray(v).dtype for k, v in ref.items()} if ref else None
    prog = g.program
    precise = world in ("precise", "identity", "identity_deep")
    needed = _needed(prog, g.outs)
    clients: Counter[int] = Counter(g.outs)
    for k in needed:
        clients.update(a for a in prog[k].args if isinstance(a, int) and prog[k].op)
    sums, prods = ({}, {})
    if world.startswith("identity") and ref:
        sums, prods = _forms(prog, ref, clients if world == "identity" else None)
    rounding_forms = _forms(prog, ref, None) if rng is not None and ref else ({}, {})
    inexact: set[int] = set()  # steps that rounding may move (rounding runs)
    chains = _chains(prog, dtypes) if rng is not None and dtypes else set()
    env: dict[int, Any] = {}
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for k in needed:
            st = prog[k]
            if st.op is None:
                x = np.asarray((g.values if values is None else values)[st.args[0]])
                env[k] = _ext(x) if precise else x
                continue
            eps = _eps(dtypes[k]) if dtypes else 0.0
            args = [a.value if isinstance(a, Const) else env[a] for a in st.args]
            if precise:
                args = [a if isinstance(st_a, Const) else _ext(a)
                        for a, st_a in zip(args, st.args)]
            if rng is not None and st.op.err.inp:
                args = [a if isinstance(st_a, Const) else
                        _jiggle(a, st.op.err.inp, _eps(dtypes[st_a]) if dtypes else 0, rng)
                        for a, st_a in zip(args, st.args)]
            fn = st.op.precise if precise and st.op.precise else st.op.ref
            val = np.asarray(fn(*args))
            fam = st.op.family
            alt = None
            if world.startswith("identity") and dtypes and dtypes[k].kind == "f":
                def value(a: int, k: int = k) -> Any:
                    if rng is None:
                        return env[a]
                    return _jiggle(env[a], ot.LOG_COMPOSITE.inp, _eps(dtypes[k]), rng)

                alt = _stabilized(prog, k, value)
            if alt is not None:
                val = np.broadcast_to(np.asarray(alt), val.shape).astype(val.dtype)
            elif fam in ("add", "sub") and k in sums:
                val = _identity_value(sums[k], False, env, val)
            elif fam in ("mul", "div", "recip") and k in prods:
                val = _identity_value(prods[k], True, env, val)
            if precise and dtypes and dtypes[k].kind == "f" and dtypes[k].itemsize < 8:
                # a float32 (float16) result is rounded to its dtype in every world:
                # only float64 results are kept extended
                val = val.astype(dtypes[k]).astype(EXT)
            if rng is not None:
                if k in chains or st.op.err != ot.EXACT or any(
                        isinstance(a, int) and a in inexact for a in st.args):
                    inexact.add(k)
                # a result computed from inexact values may round either way: 1 ulp
                out = max(st.op.err.out, 1.0) if k in inexact else 0.0
                val = _jiggle(val, out, eps, rng, st.op.err.floor)
                if k in chains:
                    val = _reassociated(val, fam, k, rounding_forms, env, eps, rng)
            env[k] = val
    return env


@dataclass
class Verdict:
    """The outcome for one output: which entries no world explains, and the worlds."""

    bad: np.ndarray
    worlds: dict[str, np.ndarray]
    tol: np.ndarray
    undecided: int = 0  # entries accepted only because rounding decides their nan/inf status


def _same_status(t: np.ndarray, w: np.ndarray) -> np.ndarray:
    return (np.isnan(t) == np.isnan(w)) & (np.isposinf(t) == np.isposinf(w)) & (
        np.isneginf(t) == np.isneginf(w))


def _close(t: np.ndarray, w: np.ndarray, tol: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        fin = np.isfinite(t) & np.isfinite(w)
        diff = np.abs(t.astype(EXT) - w.astype(EXT))
        return _same_status(t, w) & (~fin | (diff <= tol))


class Oracle:
    """The worlds of a graph (computed once) and the verdict on theon's outputs."""

    def __init__(self, g: Graph, seed: int = 0) -> None:
        self.g = g
        strict = evaluate(g)
        self.ref = strict
        self.strict = [np.asarray(strict[k]) for k in g.outs]
        rng = np.random.default_rng([seed, 7])
        self.runs = [[np.asarray(r[k]) for k in g.outs]
                     for r in (evaluate(g, "strict", rng, strict) for _ in range(N_RUNS))]
        prec = evaluate(g, "precise", ref=strict)
        self.precise = [np.asarray(prec[k]) for k in g.outs]
        ident = evaluate(g, "identity", ref=strict)
        self.identity = [np.asarray(ident[k]) for k in g.outs]
        deep = evaluate(g, "identity_deep", ref=strict)
        self.identity_deep = [np.asarray(deep[k]) for k in g.outs]
        self.precise_runs = [[np.asarray(r[k]) for k in g.outs] for r in (
            evaluate(g, "identity", rng, strict) for _ in range(2))]

    def judge(self, k: int, got: np.ndarray) -> Verdict:
        """Which entries of theon's output ``k`` (dtype and shape already equal) no world
        explains."""
        with np.errstate(all="ignore"):
            return self._judge(k, got)

    def _judge(self, k: int, got: np.ndarray) -> Verdict:
        s = self.strict[k]
        t = np.asarray(got)
        worlds = {"strict": s, "precise": self.precise[k].astype(s.dtype),
                  "identity": self.identity[k].astype(s.dtype),
                  "identity_deep": self.identity_deep[k].astype(s.dtype)}
        for j, r in enumerate(self.runs):
            worlds[f"run{j}"] = r[k]
        for j, r in enumerate(self.precise_runs):
            worlds[f"identity_run{j}"] = r[k].astype(s.dtype)
        if s.dtype.kind not in "fc":
            ok = np.zeros(s.shape, dtype=bool)
            for w in worlds.values():
                ok |= t == w
            return Verdict(~ok, worlds, np.zeros(s.shape))
        eps = _eps(s.dtype)
        with np.errstate(all="ignore"):
            spread = np.zeros(s.shape, dtype=EXT)
            for run in self.runs:
                r = run[k]
                fin = np.isfinite(r) & np.isfinite(s)
                spread = np.maximum(spread, np.where(fin, np.abs(r.astype(EXT) - s), 0))
            pspread = np.zeros(s.shape, dtype=EXT)
            ident = self.identity[k]
            for run in self.precise_runs:
                r = run[k]
                fin = np.isfinite(r) & np.isfinite(ident)
                pspread = np.maximum(pspread, np.where(fin, np.abs(r.astype(EXT) - ident), 0))
            tiny = np.finfo(s.dtype).smallest_normal
            tol = F * spread
            ptol = F * np.maximum(spread, pspread) + tiny
        ok = np.zeros(s.shape, dtype=bool)
        for name, w in worlds.items():
            if name.startswith(("precise", "identity")):
                with np.errstate(all="ignore"):
                    rel = K_PRECISE * eps * np.nan_to_num(np.abs(w.astype(EXT)))
                ok |= _close(t, w, ptol + rel)
            else:
                ok |= _close(t, w, tol)
        # an entry whose nan/inf status rounding decides is not compared in value
        undecided = np.zeros(s.shape, dtype=bool)
        for run in self.runs:
            undecided |= ~_same_status(run[k], s)
        return Verdict(~(ok | undecided), worlds, tol, int(np.sum(undecided & ~ok)))


def judge(g: Graph, got: list[np.ndarray], seed: int = 0) -> list[str]:
    """Problems of theon's outputs ``got`` for graph ``g`` (empty: all right)."""
    oracle = Oracle(g, seed)
    problems: list[str] = []
    for k, (t, s) in enumerate(zip(got, oracle.strict)):
        t = np.asarray(t)
        if t.dtype != s.dtype:
            problems.append(f"output {k}: dtype {t.dtype}, NumPy gives {s.dtype}")
            continue
        if t.shape != s.shape:
            problems.append(f"output {k}: shape {t.shape}, NumPy gives {s.shape}")
            continue
        v = oracle.judge(k, t)
        if v.bad.any():
            idx = [tuple(int(i) for i in p) for p in np.argwhere(v.bad)[:3]]
            lines = [f"output {k} ({t.dtype}) differs at {idx}:"]
            for p in idx:
                lines.append(f"  at {p}: theon {t[p]!r}; " + ", ".join(
                    f"{n} {w[p]!r}" for n, w in v.worlds.items()
                    if n in ("strict", "precise", "identity")) + f"; tol {float(v.tol[p]):.3g}")
            problems.append("\n".join(lines))
    return problems
