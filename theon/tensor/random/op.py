"""``RandomVariable``: one Op class for every distribution of the table in ``basic.py``.

A node takes ``(rng, size, *params)`` and returns ``(next_rng, draw)``.  ``perform``
copies the generator (unless the Op is ``inplace``), so the input generator is never
advanced, and draws with ``numpy.random.Generator``: a draw equals NumPy's method on
a generator in the same state, draw for draw.  Being a pure function of its inputs,
two nodes are merged only when they read the same generator, in which case they would
give the same numbers anyway; draws are never constant-folded.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from theon.graph.basic import Apply, Constant, Variable
from theon.graph.fg import describe
from theon.graph.null_type import disconnected_type, grad_undefined
from theon.graph.op import Op
from theon.graph.type import Generic
from theon.tensor.arguments import as_int_tuple, int_value
from theon.tensor.basic import as_tensor_variable
from theon.tensor.random.type import copy_generator, random_generator_type
from theon.tensor.type import TensorType

__all__ = ["RandomVariable", "as_size", "broadcast_static", "none_size"]


def none_size() -> Constant:
    """The ``size`` input that means "no size: the parameters' broadcast shape"."""
    return Constant(Generic(), None, name="None")


def as_size(size: Any, op_name: str) -> Variable:
    """``size`` as an int64 vector of static length, or the None constant.

    Raises ``TypeError`` naming the argument for anything else.
    """
    if size is None or (isinstance(size, Constant) and size.data is None):
        return none_size()
    if isinstance(size, np.ndarray) or int_value(size) is not None:
        size = as_int_tuple(size, f"{op_name}: argument 'size'")
    if isinstance(size, (tuple, list)) and not any(
        isinstance(s, Variable) for s in size
    ):
        if any(int_value(s) is None for s in size):
            raise TypeError(f"{op_name}: argument 'size' must be None, an int or a tuple of "
                            f"ints, got {size!r}")
        lengths = as_int_tuple(size, f"{op_name}: argument 'size'")
        _check_lengths(lengths, size, op_name)
        return as_tensor_variable(np.asarray(lengths, dtype="int64").reshape(len(lengths)))
    if isinstance(size, (tuple, list)):
        from theon.tensor.basic import cast
        from theon.tensor.joining import stack

        parts = [as_tensor_variable(s) for s in size]
        for p in parts:
            if p.type.ndim != 0 or p.type.dtype[:3] not in ("int", "uin"):
                raise TypeError(f"{op_name}: argument 'size' must hold integer scalars, got "
                                f"{describe(p)}")
        out = cast(stack(parts), "int64")
        # the lengths known at build time, for the draw's static shape
        out.tag.static_size = tuple(int_value(s) for s in size)
        _check_lengths(out.tag.static_size, size, op_name)
        return out
    if isinstance(size, Variable):
        v = as_tensor_variable(size)
        if v.type.ndim != 1 or v.type.dtype[:3] not in ("int", "uin") or v.type.shape[0] is None:
            raise TypeError(f"{op_name}: argument 'size' must be an integer vector of known "
                            f"length, got {describe(v)}")
        return v
    raise TypeError(f"{op_name}: argument 'size' must be None, an int or a tuple of ints, "
                    f"got {type(size).__name__} {size!r}")


def _check_lengths(lengths: Sequence[int | None], size: Any, op_name: str) -> None:
    """``ValueError`` naming the argument when a length known now is negative."""
    if any(n is not None and n < 0 for n in lengths):
        raise ValueError(f"{op_name}: argument 'size' {tuple(size)!r} has a negative length; "
                         f"lengths must be >= 0")


def broadcast_static(shapes: Sequence[tuple[int | None, ...]]) -> tuple[int | None, ...] | None:
    """The broadcast of static shapes (``None`` = unknown), or None when they clash."""
    nd = max((len(s) for s in shapes), default=0)
    out: list[int | None] = []
    for d in range(nd):
        dims = [s[len(s) - nd + d] for s in shapes if len(s) - nd + d >= 0]
        known = {x for x in dims if x is not None and x != 1}
        if len(known) > 1:
            return None
        if known:
            out.append(known.pop())
        elif any(x is None for x in dims):
            out.append(None)
        else:
            out.append(1)
    return tuple(out)


class RandomVariable(Op):
    """Draws from ``numpy.random.Generator.<method>``.

    Props: ``name`` (the distribution), ``method`` (the Generator method, or a
    custom drawer's key), ``ndim_supp`` (dimensions of one draw), ``ndims_params``
    (core dimensions of each parameter), ``supp_param`` (the parameter whose last
    length is the support length, -1 for none), ``dtype``, ``inplace``.
    """

    __props__ = ("name", "method", "ndim_supp", "ndims_params", "supp_param", "dtype",
                 "inplace")
    default_output = 1

    def __init__(self, name: str, method: str, ndim_supp: int, ndims_params: tuple[int, ...],
                 dtype: str, supp_param: int = -1, inplace: bool = False,
                 numpy_batches: bool = True) -> None:
        self.name = name
        self.method = method
        self.ndim_supp = int(ndim_supp)
        self.ndims_params = tuple(int(n) for n in ndims_params)
        self.supp_param = int(supp_param)
        self.dtype = str(np.dtype(dtype))
        self.inplace = bool(inplace)
        self.numpy_batches = bool(numpy_batches)
        if inplace:
            self.destroy_map = {0: [0]}

    def __str__(self) -> str:
        return f"{self.name}_rv{{{self.dtype}{', inplace' if self.inplace else ''}}}"

    def clone_with(self, **changes: Any) -> RandomVariable:
        """The same Op with some props changed (e.g. ``dtype`` or ``inplace``)."""
        kw: dict[str, Any] = {p: getattr(self, p) for p in self.__props__}
        kw.update(changes)
        return RandomVariable(numpy_batches=self.numpy_batches, **kw)

    # building -----------------------------------------------------------------------
    def make_node(self, rng: Any, size: Any, *params: Any) -> Apply:
        if not isinstance(rng, Variable):
            rng = random_generator_type.make_constant(rng)
        if not isinstance(rng.type, type(random_generator_type)):
            raise TypeError(f"{self.name}: argument 'rng' must be a random generator variable "
                            f"(theon.shared(np.random.default_rng(seed))), got {describe(rng)}")
        size = size if isinstance(size, Variable) else as_size(size, self.name)
        if len(params) != len(self.ndims_params):
            raise TypeError(f"{self.name} takes {len(self.ndims_params)} parameters, got "
                            f"{len(params)}")
        pvars = [as_tensor_variable(p) for p in params]
        batch_shapes = []
        for k, (p, nd) in enumerate(zip(pvars, self.ndims_params)):
            if p.type.dtype[:1] not in ("f", "i", "u", "b"):
                raise TypeError(f"{self.name}: parameter {k} must be numeric, got {describe(p)}")
            if p.type.ndim < nd:
                raise ValueError(f"{self.name}: parameter {k} needs at least {nd} dimensions, "
                                 f"got {describe(p)}")
            batch_shapes.append(tuple(p.type.shape[: p.type.ndim - nd]))
        bshape = broadcast_static(batch_shapes)
        if bshape is None:
            raise ValueError(f"{self.name}: the parameters' shapes do not broadcast: "
                             + ", ".join(describe(p) for p in pvars))
        if isinstance(size, Constant) and size.data is None:
            out_batch: tuple[int | None, ...] = bshape
        else:
            n = size.type.shape[0]
            if isinstance(size, Constant):
                out_batch = tuple(int(s) for s in np.asarray(size.data))
            else:
                out_batch = getattr(size.tag, "static_size", (None,) * n)
            for k, (p, bs) in enumerate(zip(pvars, batch_shapes)):
                if len(bs) > len(out_batch) or any(
                    b not in (1, None) and o is not None and b != o
                    for b, o in zip(bs[::-1], out_batch[::-1])
                ):
                    raise ValueError(
                        f"{self.name}: parameter {k} of batch shape {bs} does not broadcast "
                        f"to size {out_batch}: {describe(p)}")
        supp: tuple[int | None, ...] = ()
        if self.ndim_supp:
            supp = (pvars[self.supp_param].type.shape[-1],)
        out = TensorType(self.dtype, shape=out_batch + supp)()
        return Apply(self, [rng, size, *pvars], [rng.type(), out])

    def do_constant_folding(self, node: Apply) -> bool:
        return False

    # computing ----------------------------------------------------------------------
    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        rng, size, *params = inputs
        if not self.inplace:
            rng = copy_generator(rng)
        size_t = None if size is None else tuple(int(s) for s in size)
        try:
            draw = self.draw(rng, params, size_t)
        except ValueError as e:
            raise ValueError(f"{self.name}: cannot draw {describe(node.outputs[1])} with "
                             f"size={size_t} and parameters of shapes "
                             f"{[np.shape(p) for p in params]}: {e}") from e
        output_storage[0][0] = rng
        output_storage[1][0] = np.asarray(draw, dtype=self.dtype)

    def batch_shape(self, params: Sequence[np.ndarray], size: tuple[int, ...] | None
                    ) -> tuple[int, ...]:
        if size is not None:
            return size
        return np.broadcast_shapes(*(np.shape(p)[: np.ndim(p) - nd]
                                     for p, nd in zip(params, self.ndims_params)))

    def draw(self, rng: np.random.Generator, params: Sequence[Any],
             size: tuple[int, ...] | None) -> Any:
        custom = CUSTOM_DRAWS.get(self.method)
        if custom is not None:
            return custom(self, rng, params, size)
        method = getattr(rng, self.method)
        batched = any(np.ndim(p) > nd for p, nd in zip(params, self.ndims_params))
        if self.numpy_batches or not batched:
            return method(*params, size=size)
        # NumPy takes only unbatched parameters here: one call per batch element, C order
        bshape = self.batch_shape(params, size)
        bparams = [np.broadcast_to(p, bshape + np.shape(p)[np.ndim(p) - nd:])
                   for p, nd in zip(params, self.ndims_params)]
        draws = [method(*(p[idx] for p in bparams)) for idx in np.ndindex(*bshape)]
        supp = np.shape(draws[0]) if draws else ()
        return np.asarray(draws).reshape(bshape + supp)

    # shapes and derivatives ----------------------------------------------------------
    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Variable]]
                    ) -> list[Any]:
        from theon.tensor.math import maximum

        size = node.inputs[1]
        params = node.inputs[2:]
        if isinstance(size, Constant) and size.data is None:
            bshapes = [tuple(input_shapes[2 + k])[: p.type.ndim - nd]
                       for k, (p, nd) in enumerate(zip(params, self.ndims_params))]
            stat = [tuple(p.type.shape[: p.type.ndim - nd])
                    for p, nd in zip(params, self.ndims_params)]
            nd_out = max((len(b) for b in bshapes), default=0)
            batch: list[Any] = []
            for d in range(nd_out):
                cands = [b[len(b) - nd_out + d] for b, s in zip(bshapes, stat)
                         if len(b) - nd_out + d >= 0 and s[len(s) - nd_out + d] != 1]
                if not cands:
                    batch.append(as_tensor_variable(np.int64(1)))
                    continue
                dim = cands[0]
                for c in cands[1:]:
                    dim = maximum(dim, c)
                batch.append(dim)
        else:
            batch = [size[i] for i in range(size.type.shape[0])]
        supp = [input_shapes[2 + self.supp_param][-1]] if self.ndim_supp else []
        return [None, tuple(batch + supp)]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        why = ("a random draw has no gradient with respect to its parameters in theon "
               "(no reparameterization); write the draw as a transformation of a "
               "parameter-free one instead")
        return [disconnected_type(), disconnected_type()] + [
            grad_undefined(self, 2 + k, p, why) for k, p in enumerate(inputs[2:])
        ]


# Distributions NumPy's Generator has no method for, or whose call differs:
# ``drawer(op, rng, params, size) -> ndarray``.
def _draw_categorical(op: RandomVariable, rng: np.random.Generator, params: Sequence[Any],
                      size: tuple[int, ...] | None) -> np.ndarray:
    """Same algorithm as ``Generator.choice(k, size, p=p)``: searchsorted in the cdf."""
    (p,) = params
    p = np.asarray(p, dtype=np.float64)
    bshape = op.batch_shape([p], size)
    cdf = np.cumsum(p, axis=-1)
    cdf /= cdf[..., -1:]
    u = rng.random(bshape)
    if p.ndim == 1:
        return np.asarray(cdf.searchsorted(u, side="right"))
    cdf_b = np.broadcast_to(cdf, bshape + p.shape[-1:])
    return (cdf_b <= u[..., None]).sum(axis=-1)


def _draw_halfnormal(op: RandomVariable, rng: np.random.Generator, params: Sequence[Any],
                     size: tuple[int, ...] | None) -> np.ndarray:
    """``loc + |N(0, scale)|``."""
    loc, scale = params
    shape = op.batch_shape(params, size)
    return np.asarray(loc + np.abs(rng.normal(0.0, scale, size=shape)))


def _draw_cauchy(op: RandomVariable, rng: np.random.Generator, params: Sequence[Any],
                 size: tuple[int, ...] | None) -> np.ndarray:
    """``loc + scale * standard_cauchy()``."""
    loc, scale = params
    shape = op.batch_shape(params, size)
    return np.asarray(loc + scale * rng.standard_cauchy(size=shape))


_local = threading.local()


def _scratch(shape: tuple[int, ...]) -> np.ndarray:
    """A float64 buffer of ``shape`` for this thread, reused by later calls (the
    uniforms of a coin flip never leave :func:`_binomial`).  A fresh 256 KB array
    each call costs about as much in page faults as drawing it: glibc hands such
    sizes back to the system when they are freed."""
    buf: np.ndarray | None = getattr(_local, "uniform", None)
    if buf is None or buf.shape != shape:
        buf = _local.uniform = np.empty(shape)
    return buf


def _binomial(rng: np.random.Generator, n: Any, p: Any, size: tuple[int, ...] | None,
              dtype: Any = np.int64) -> np.ndarray:
    """``rng.binomial(n, p, size)``, draw for draw; a coin flip (``n = 1``) five times faster.

    For ``n = 1`` and one ``p`` in ``(0, 1]`` NumPy's inversion algorithm reduces to:
    with ``r = min(p, 1 - p)`` (``r = 1 - p`` for ``p > 0.5``, the result then being
    ``1 - X``), ``qn = exp(log(1 - r))`` (libm, as NumPy's C code), one uniform ``U``
    per draw and ``X = U > qn``; it draws ``U`` again only when
    ``U - qn > r * qn / (1 - r)``, which rounding makes possible but rare.  The
    uniforms are ``rng.random``'s (the same ``next_double`` of the bit generator);
    when a draw would need a second uniform, the generator is rewound and NumPy
    draws instead.
    """
    if np.ndim(n) or np.ndim(p) or n != 1 or not 0.0 < p <= 1.0:
        return np.asarray(rng.binomial(n, p, size=size))
    pf = float(p)
    flip = pf > 0.5
    r = 1.0 - pf if flip else pf
    q = 1.0 - r
    qn = math.exp(math.log(q))
    state = rng.bit_generator.state
    u = rng.random(out=_scratch(size)) if size else np.asarray(rng.random(size))
    # ``U - qn`` grows with ``U``: only the largest uniform can need a second one
    if u.size and (u.max() - qn) > (r * qn) / q:
        rng.bit_generator.state = state
        return np.asarray(rng.binomial(n, p, size=size))
    x = u <= qn if flip else u > qn
    return x.astype(dtype)  # straight to the draw's dtype (0 and 1 are exact in any)


def _draw_binomial(op: RandomVariable, rng: np.random.Generator, params: Sequence[Any],
                   size: tuple[int, ...] | None) -> np.ndarray:
    """``Generator.binomial(n, p)`` (see :func:`_binomial`)."""
    return _binomial(rng, params[0], params[1], size, op.dtype)


def _draw_bernoulli(op: RandomVariable, rng: np.random.Generator, params: Sequence[Any],
                    size: tuple[int, ...] | None) -> np.ndarray:
    """``binomial(1, p)``."""
    return _binomial(rng, 1, params[0], size, op.dtype)


def _draw_integers(op: RandomVariable, rng: np.random.Generator, params: Sequence[Any],
                   size: tuple[int, ...] | None) -> np.ndarray:
    """``Generator.integers(low, high, size, dtype=op.dtype)`` (``high`` excluded)."""
    low, high = params
    return np.asarray(rng.integers(low, high, size=size, dtype=op.dtype))


def _draw_standard_normal(op: RandomVariable, rng: np.random.Generator, params: Sequence[Any],
                          size: tuple[int, ...] | None) -> np.ndarray:
    return np.asarray(rng.standard_normal(size=size))


#: methods whose numbers depend on the dtype they are drawn in (NumPy's ``integers``
#: draws in ``dtype``); the others draw in NumPy's own dtype and are cast after
DTYPE_DRAWS = frozenset({"integers"})

CUSTOM_DRAWS: dict[str, Callable[..., Any]] = {
    "categorical": _draw_categorical,
    "halfnormal": _draw_halfnormal,
    "cauchy": _draw_cauchy,
    "bernoulli": _draw_bernoulli,
    "binomial": _draw_binomial,
    "integers": _draw_integers,
    "standard_normal": _draw_standard_normal,
}
