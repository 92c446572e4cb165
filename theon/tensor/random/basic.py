"""The distributions, as a table of rows, and their public functions.

Each row gives a distribution's name, the ``numpy.random.Generator`` method (or the
key of a custom drawer in ``op.CUSTOM_DRAWS``), its parameters with their defaults
and core dimensions, the dimensions of one draw and where its length comes from, and
the kind of its output (``"float"``: ``config.floatX``; ``"int"``: int64).  One
:class:`~theon.tensor.random.op.RandomVariable` instance is made per row, and one
public function ``name(*params, size=None, rng=None, dtype=None,
return_next_rng=False)``.

Parameters follow NumPy's ``Generator`` methods (``gamma(shape, scale)``,
``exponential(scale)``, ``pareto(a)`` is NumPy's Lomax form, ``weibull(a)`` the
one-parameter form).  Where NumPy has no method: ``cauchy(loc, scale)`` is
``loc + scale * standard_cauchy()``, ``halfnormal(loc, scale)`` is
``loc + |normal(0, scale)|``, ``bernoulli(p)`` is ``binomial(1, p)``,
``categorical(p)`` equals ``choice(len(p), p=p)`` draw for draw.  Float draws are
computed in float64, as NumPy does, and cast to ``dtype``.

With ``rng=None`` a new shared generator ``np.random.default_rng()`` (seeded by the
operating system, as NumPy does: not reproducible) is made for the draw, with the
draw's next generator as its default update, so a compiled function gives fresh
numbers at each call.  For reproducible draws pass ``rng=shared_rng(seed)``.

>>> import theon
>>> rng = shared_rng(0)
>>> next_rng, x = normal(0.0, 1.0, size=(3,), rng=rng, return_next_rng=True)
>>> f = theon.function([], x, updates={rng: next_rng})
>>> a, b = f(), f()
>>> a.shape, bool((a != b).all())
((3,), True)
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from theon import config
from theon.graph.basic import Variable
from theon.tensor.random.op import RandomVariable, as_size
from theon.tensor.random.type import random_generator_type, shared_rng

__all__ = ["DISTRIBUTIONS", "RV_OPS", "draw_outputs", "resolve_rng"]

_REQ = object()  # a parameter without a default


class Dist(NamedTuple):
    name: str
    method: str
    params: tuple[tuple[str, Any], ...]  # (name, default or _REQ)
    ndims_params: tuple[int, ...]
    kind: str  # "float" or "int"
    ndim_supp: int = 0
    supp_param: int = -1
    numpy_batches: bool = True
    example: str = ""  # parameters for the docstring's example


def _p(*names: str, **defaults: Any) -> tuple[tuple[str, Any], ...]:
    return tuple((n, defaults.get(n, _REQ)) for n in names)


DISTRIBUTIONS: tuple[Dist, ...] = (
    Dist("uniform", "uniform", _p("low", "high", low=0.0, high=1.0), (0, 0), "float",
         example="2.0, 5.0"),
    Dist("normal", "normal", _p("loc", "scale", loc=0.0, scale=1.0), (0, 0), "float",
         example="1.0, 2.0"),
    Dist("standard_normal", "standard_normal", (), (), "float"),
    Dist("lognormal", "lognormal", _p("mean", "sigma", mean=0.0, sigma=1.0), (0, 0), "float",
         example="0.5, 0.7"),
    Dist("exponential", "exponential", _p("scale", scale=1.0), (0,), "float", example="2.0"),
    Dist("gamma", "gamma", _p("shape", "scale", scale=1.0), (0, 0), "float", example="2.5, 1.5"),
    Dist("beta", "beta", _p("a", "b"), (0, 0), "float", example="2.0, 3.0"),
    Dist("chisquare", "chisquare", _p("df"), (0,), "float", example="4.0"),
    Dist("standard_t", "standard_t", _p("df"), (0,), "float", example="5.0"),
    Dist("cauchy", "cauchy", _p("loc", "scale", loc=0.0, scale=1.0), (0, 0), "float",
         example="1.0, 2.0"),
    Dist("laplace", "laplace", _p("loc", "scale", loc=0.0, scale=1.0), (0, 0), "float",
         example="1.0, 2.0"),
    Dist("logistic", "logistic", _p("loc", "scale", loc=0.0, scale=1.0), (0, 0), "float",
         example="1.0, 2.0"),
    Dist("gumbel", "gumbel", _p("loc", "scale", loc=0.0, scale=1.0), (0, 0), "float",
         example="1.0, 2.0"),
    Dist("pareto", "pareto", _p("a"), (0,), "float", example="3.0"),
    Dist("weibull", "weibull", _p("a"), (0,), "float", example="1.5"),
    Dist("vonmises", "vonmises", _p("mu", "kappa"), (0, 0), "float", example="0.0, 2.0"),
    Dist("halfnormal", "halfnormal", _p("loc", "scale", loc=0.0, scale=1.0), (0, 0), "float",
         example="1.0, 2.0"),
    Dist("bernoulli", "bernoulli", _p("p"), (0,), "int", example="0.3"),
    Dist("binomial", "binomial", _p("n", "p"), (0, 0), "int", example="10, 0.3"),
    Dist("poisson", "poisson", _p("lam", lam=1.0), (0,), "int", example="3.0"),
    Dist("geometric", "geometric", _p("p"), (0,), "int", example="0.3"),
    Dist("negative_binomial", "negative_binomial", _p("n", "p"), (0, 0), "int", example="5, 0.4"),
    Dist("hypergeometric", "hypergeometric", _p("ngood", "nbad", "nsample"), (0, 0, 0), "int",
         example="7, 5, 6"),
    Dist("categorical", "categorical", _p("p"), (1,), "int", example="[0.2, 0.8]"),
    Dist("multinomial", "multinomial", _p("n", "pvals"), (0, 1), "int", 1, 1,
         example="10, [0.2, 0.8]"),
    Dist("dirichlet", "dirichlet", _p("alpha"), (1,), "float", 1, 0, False, example="[1.0, 2.0]"),
    Dist("multivariate_normal", "multivariate_normal", _p("mean", "cov"), (1, 2), "float",
         1, 0, False, example="[0.0, 1.0], [[1.0, 0.0], [0.0, 1.0]]"),
    Dist("integers", "integers", _p("low", "high"), (0, 0), "int", example="2, 7"),
)


def _default_dtype(kind: str) -> str:
    return str(config.floatX) if kind == "float" else "int64"


RV_OPS: dict[str, RandomVariable] = {
    d.name: RandomVariable(d.name, d.method, d.ndim_supp, d.ndims_params, "float64"
                           if d.kind == "float" else "int64", d.supp_param,
                           numpy_batches=d.numpy_batches)
    for d in DISTRIBUTIONS
}


def resolve_rng(rng: Any, name: str) -> tuple[Variable, bool]:
    """The generator variable for a draw, and whether it was made here (``rng=None``)."""
    if rng is None:
        return shared_rng(None, name=f"{name}_rng"), True
    if isinstance(rng, np.random.Generator):
        raise TypeError(f"{name}: argument 'rng' must be a symbolic generator; wrap the "
                        "Generator with theon.shared(rng) or shared_rng(seed)")
    if not isinstance(rng, Variable) or rng.type != random_generator_type:
        raise TypeError(f"{name}: argument 'rng' must be a random generator variable, got "
                        f"{rng!r}")
    return rng, False


def draw_outputs(op: Any, rng: Any, name: str, inputs: list[Any], return_next_rng: bool
                 ) -> Any:
    """Apply ``op`` to ``(rng, *inputs)``; with a fresh rng, give it its default update."""
    rng_var, fresh = resolve_rng(rng, name)
    next_rng, draw = op(rng_var, *inputs, return_list=True)
    if fresh:
        rng_var.default_update = next_rng  # type: ignore[attr-defined]
    return (next_rng, draw) if return_next_rng else draw


def _make_function(d: Dist) -> Any:
    base = RV_OPS[d.name]
    pnames = [n for n, _ in d.params]

    def fn(*args: Any, size: Any = None, rng: Any = None, dtype: Any = None,
           return_next_rng: bool = False, name: str | None = None, **kwargs: Any) -> Any:
        if len(args) > len(pnames):
            raise TypeError(f"{d.name}() takes {len(pnames)} parameters {pnames}, got "
                            f"{len(args)}")
        values = dict(zip(pnames, args))
        for k, v in kwargs.items():
            if k not in pnames or k in values:
                raise TypeError(f"{d.name}() got an unexpected or repeated argument {k!r}")
            values[k] = v
        params = []
        for pname, default in d.params:
            if pname not in values and default is _REQ:
                raise TypeError(f"{d.name}() missing its parameter {pname!r}")
            params.append(values.get(pname, default))
        dt = str(np.dtype(dtype)) if dtype is not None else _default_dtype(d.kind)
        op = base if dt == base.dtype else base.clone_with(dtype=dt)
        out = draw_outputs(op, rng, d.name, [as_size(size, d.name), *params],
                           return_next_rng)
        if name is not None:
            (out[1] if return_next_rng else out).name = name
        return out

    sig = ", ".join(n if dflt is _REQ else f"{n}={dflt!r}" for n, dflt in d.params)
    fn.__name__ = fn.__qualname__ = d.name
    fn.__module__ = "theon.tensor.random"
    args = f"{d.example}, " if d.example else ""
    shape = "(2, 3, 2)" if d.ndim_supp else "(2, 3)"
    fn.__doc__ = (
        f"Draws of ``{d.name}({sig})``, with ``size``, ``rng``, ``dtype`` and "
        "``return_next_rng`` as in the module's docstring.\n\n"
        f"The values equal ``numpy.random.Generator`` on the same state (see "
        "``theon.tensor.random.basic``); the output dtype is "
        f"{'config.floatX' if d.kind == 'float' else 'int64'} unless ``dtype`` says.\n\n"
        f"Examples\n--------\n>>> import theon.tensor.random as tr\n"
        f">>> tr.{d.name}({args}size=(2, 3), rng=tr.shared_rng(0)).eval().shape\n{shape}\n"
    )
    return fn


_FUNCTIONS = {d.name: _make_function(d) for d in DISTRIBUTIONS}
globals().update(_FUNCTIONS)
__all__ += list(_FUNCTIONS)
