"""``RandomVariable``: the base class of random draws, subclassed per distribution.

A node takes ``(rng, size, *dist_params)`` and returns ``(next_rng, draw)``;
``default_output = 1``, so calling the Op gives the draw.  A distribution is a
subclass that declares, as class attributes, its ``name``, its ``signature`` (NumPy
gufunc style: ``"(),()->()"`` for two scalar parameters and a scalar draw,
``"(n),(n,n)->(n)"`` for a multivariate normal; ``ndim_supp`` and ``ndims_params``
follow from it, or give those two instead), its ``dtype`` (``"floatX"`` for
``config.floatX``) and ``rng_fn(rng, *params, size)``, which draws with a
``numpy.random.Generator``:

>>> import numpy as np
>>> import theon
>>> class TwiceNormalRV(RandomVariable):
...     name = "twice_normal"
...     signature = "(),()->()"
...     dtype = "floatX"
...     @classmethod
...     def rng_fn(cls, rng, loc, scale, size):
...         return 2.0 * rng.normal(loc, scale, size=size)
>>> twice_normal = TwiceNormalRV()
>>> rng = theon.shared(np.random.default_rng(0))
>>> x = twice_normal(1.0, 0.5, size=(3,), rng=rng)
>>> bool((x.eval() == 2.0 * np.random.default_rng(0).normal(1.0, 0.5, size=3)).all())
True

``perform`` copies the generator (unless the Op is ``inplace``), so the input
generator is never advanced.  Draws are never constant-folded; two nodes are merged
only when they read the same generator, in which case they give the same numbers anyway.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import numpy as np

from theon import config
from theon.graph.basic import Apply, Variable
from theon.graph.fg import describe
from theon.graph.null_type import disconnected_type, grad_undefined
from theon.graph.op import Op
from theon.tensor.basic import as_tensor_variable, constant
from theon.tensor.random.shapes import (
    _static_scalar,
    broadcast_static,
    explicit_expand_dims,
    is_none_size,
    normalize_size_param,
    static_size,
)
from theon.tensor.random.type import RandomType, copy_generator
from theon.tensor.shape import shape_scalars
from theon.tensor.type import TensorType
from theon.tensor.utils import _parse_gufunc_signature, safe_signature
from theon.tensor.variable import TensorVariable

__all__ = ["RNGConsumerOp", "RandomVariable", "parse_signature", "safe_signature"]

#: PyTensor's ``pytensor.tensor.utils`` helpers, kept here under the names this module had
parse_signature = _parse_gufunc_signature


class RNGConsumerOp(Op):
    """The base of Ops that read random generators: :meth:`update` says, for a node,
    which output is each generator input's next state."""

    def update(self, node: Apply) -> dict[Variable, Variable]:
        """``{generator input: the node's output that replaces it}``."""
        raise NotImplementedError(f"{type(self).__name__} must define update(node)")


#: the marker of a parameter without a default in ``RandomVariable._params``
REQUIRED: Any = type("Required", (), {"__repr__": lambda self: "REQUIRED"})()


class RandomVariable(RNGConsumerOp):
    """Draws of one distribution; see the module docstring for how to subclass.

    Props: ``name``, ``signature``, ``dtype`` (``None``: given at each call) and
    ``inplace`` (the node advances its input generator instead of a copy).
    """

    __props__: tuple[str, ...] = ("name", "signature", "dtype", "inplace")
    default_output = 1

    name: str
    signature: str | None = None
    ndim_supp: int
    ndims_params: Sequence[int]
    dtype: str | None = None
    inplace: bool = False
    _print_name: tuple[str, str] = ("RandomVariable", "\\operatorname{RandomVariable}")
    #: the parameters' names and defaults (``REQUIRED`` for none), in order: theon's
    #: calls bind keywords and defaults from it; ``None`` takes the parameters as given
    _params: tuple[tuple[str, Any], ...] | None = None

    def __init__(self, name: str | None = None, ndim_supp: int | None = None,
                 ndims_params: Sequence[int] | None = None, dtype: Any = None,
                 inplace: bool | None = None, signature: str | None = None) -> None:
        cls = type(self)
        nm = name if name is not None else getattr(cls, "name", None)
        if not isinstance(nm, str):
            raise TypeError(f"{cls.__name__}: a RandomVariable needs a name (a class "
                            "attribute or the 'name' argument)")
        self.name = nm
        sig = signature if signature is not None else getattr(cls, "signature", None)
        nsupp = ndim_supp if ndim_supp is not None else getattr(cls, "ndim_supp", None)
        nparams = ndims_params if ndims_params is not None else getattr(
            cls, "ndims_params", None)
        if sig is not None:
            ins, outs = parse_signature(sig)
            if len(outs) != 1:
                raise ValueError(f"{cls.__name__}: the signature {sig!r} must have one "
                                 "output")
            derived = (len(outs[0]), tuple(len(i) for i in ins))
            given = (nsupp if nsupp is not None else derived[0],
                     tuple(nparams) if nparams is not None else derived[1])
            if given != derived:
                raise ValueError(
                    f"{cls.__name__}: ndim_supp={given[0]} and ndims_params={given[1]} "
                    f"disagree with the signature {sig!r} (which gives {derived[0]} and "
                    f"{derived[1]})")
        elif nsupp is None or nparams is None:
            raise ValueError(f"{cls.__name__}: give a signature (e.g. '(),()->()'), or "
                             "ndim_supp and ndims_params")
        else:
            sig = safe_signature(list(nparams), [int(nsupp)])
            ins, outs = parse_signature(sig)
        self.signature = sig
        self.inputs_sig: list[tuple[str, ...]] = ins
        self.output_sig: tuple[str, ...] = outs[0]
        self.ndim_supp = len(outs[0])
        self.ndims_params = tuple(len(i) for i in ins)
        dt = dtype if dtype is not None else getattr(cls, "dtype", None)
        if dt is not None and dt != "floatX":
            dt = str(np.dtype(dt))
        self.dtype = dt
        self.inplace = bool(inplace if inplace is not None else getattr(cls, "inplace", False))
        if self.inplace:
            self.destroy_map = {0: [0]}

    def __str__(self) -> str:
        extra = [str(getattr(self, p)) for p in self.__props__
                 if p not in RandomVariable.__props__]
        parts = [str(self.dtype), *extra] + (["inplace"] if self.inplace else [])
        return f"{self.name}_rv{{{', '.join(parts)}}}"

    def clone(self, **changes: Any) -> RandomVariable:
        """The same distribution with some props changed (``dtype``, ``inplace``, ...).

        >>> from theon.tensor.random.basic import normal
        >>> normal.clone(inplace=True).inplace
        True
        """
        return type(self)(**{**self._props_dict(), **changes})

    # the parts of a node ----------------------------------------------------------
    def update(self, node: Apply) -> dict[Variable, Variable]:
        return {node.inputs[0]: node.outputs[0]}

    def rng_param(self, node: Apply) -> Variable:
        """The node's generator input."""
        return node.inputs[0]

    def size_param(self, node: Apply) -> Variable:
        """The node's ``size`` input (``NoneConst`` or an int64 vector)."""
        return node.inputs[1]

    def dist_params(self, node: Apply) -> list[Variable]:
        """The node's distribution parameters."""
        return list(node.inputs[2:])

    def batch_ndim(self, node: Apply) -> int:
        """The number of batch dimensions of the node's draw."""
        return cast(TensorVariable, node.outputs[1]).type.ndim - self.ndim_supp

    # drawing ----------------------------------------------------------------------
    def rng_fn(self, *args: Any, **kwargs: Any) -> Any:
        """``rng_fn(rng, *params, size)``: the draw, with NumPy (``size`` is None or a
        tuple).  By default the generator's method of the distribution's name."""
        rng, *rest = args
        method = getattr(rng, self.name, None)
        if method is None:
            raise NotImplementedError(
                f"{type(self).__name__}: define rng_fn(rng, *params, size); "
                f"numpy.random.Generator has no method {self.name!r}")
        return method(*rest, **kwargs)

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        rng, size, *params = inputs
        if not self.inplace:
            rng = copy_generator(rng)
        size_t = None if size is None else tuple(int(s) for s in size)
        draw_var = cast(TensorVariable, node.outputs[1])
        try:
            draw = self.rng_fn(rng, *params, size_t)
        except ValueError as e:
            raise ValueError(f"{self.name}: cannot draw {describe(draw_var)} with "
                             f"size={size_t} and parameters of shapes "
                             f"{[np.shape(p) for p in params]}: {e}") from e
        output_storage[0][0] = rng
        output_storage[1][0] = np.asarray(draw, dtype=draw_var.type.dtype)

    def do_constant_folding(self, node: Apply) -> bool:
        return False

    # building ---------------------------------------------------------------------
    def _bind(self, args: tuple[Any, ...], kwargs: dict[str, Any], size: Any
              ) -> tuple[list[Any], Any]:
        """The parameters in order (keywords and defaults filled in) and the size; one
        positional argument after the parameters is the size, as in NumPy."""
        spec = self._params
        if spec is None:
            if kwargs:
                raise TypeError(f"{self.name}() got unexpected arguments {sorted(kwargs)}")
            return list(args), size
        names = [n for n, _ in spec]
        if len(args) > len(names):
            if len(args) == len(names) + 1 and size is None:
                args, size = args[:-1], args[-1]
            else:
                raise TypeError(f"{self.name}() takes {len(names)} parameters {names} and "
                                f"size, got {len(args)} positional arguments")
        values = dict(zip(names, args))
        for k, v in kwargs.items():
            if k not in names or k in values:
                raise TypeError(f"{self.name}() got an unexpected or repeated argument {k!r}")
            values[k] = v
        params = []
        for pname, default in spec:
            if pname not in values and default is REQUIRED:
                raise TypeError(f"{self.name}() missing its parameter {pname!r}")
            params.append(values.get(pname, default))
        return params, size

    def _with_dtype(self, dtype: Any) -> RandomVariable:
        """This Op drawing in ``dtype`` (``None``: its own; ``"floatX"``: config.floatX)."""
        want = self.dtype if dtype is None else dtype
        if want is None:
            raise TypeError(f"{self.name}: the Op has no dtype; pass dtype=")
        want = str(config.floatX) if want == "floatX" else str(np.dtype(want))
        return self if want == self.dtype else self.clone(dtype=want)

    def __call__(self, *args: Any, size: Any = None, name: str | None = None,
                 rng: Any = None, dtype: Any = None, return_next_rng: bool = False,
                 **kwargs: Any) -> Any:
        """Draw: ``op(*dist_params, size=None, rng=None, dtype=None, name=None)``.

        Returns the draw, or ``(next_rng, draw)`` with ``return_next_rng=True``.
        Without ``rng`` the draw reads a new shared generator seeded by the operating
        system, which nothing updates (as in PyTensor): pass ``rng=`` for reproducible
        draws, and store ``next_rng`` back for fresh ones at each call.
        """
        params, size = self._bind(args, kwargs, size)
        op = self._with_dtype(dtype)
        next_rng, draw = Op.__call__(op, rng, size, *params, return_list=True)
        if name is not None:
            draw.name = name
        return (next_rng, draw) if return_next_rng else draw

    def make_node(self, rng: Any, size: Any, *dist_params: Any) -> Apply:
        size = normalize_size_param(size, self.name)
        rng = self._check_rng(rng)
        if len(dist_params) != len(self.ndims_params):
            raise TypeError(f"{self.name} takes {len(self.ndims_params)} parameters "
                            f"(signature {self.signature!r}), got {len(dist_params)}")
        params = [self._as_param(k, p) for k, p in enumerate(dist_params)]
        batch_shapes = [tuple(p.type.shape[: p.type.ndim - nd])
                        for p, nd in zip(params, self.ndims_params)]
        bshape = broadcast_static(batch_shapes)
        if bshape is None:
            raise ValueError(f"{self.name}: the parameters' shapes do not broadcast: "
                             + ", ".join(describe(p) for p in params))
        sizes = static_size(size)
        if sizes is None:
            out_batch = bshape
        else:
            for k, (p, bs) in enumerate(zip(params, batch_shapes)):
                if len(bs) > len(sizes) or any(
                    b not in (1, None) and o is not None and b != o
                    for b, o in zip(bs[::-1], sizes[::-1])
                ):
                    raise ValueError(
                        f"{self.name}: parameter {k} of batch shape {bs} does not broadcast "
                        f"to size {sizes}: {describe(p)}")
            out_batch = sizes
        op = self._with_dtype(None)
        params = explicit_expand_dims(params, self.ndims_params,
                                      None if sizes is None else len(sizes))
        out = TensorType(cast(str, op.dtype), shape=out_batch + self._static_supp(params))()
        return Apply(op, [rng, size, *params], [rng.type(), out])

    def _check_rng(self, rng: Any) -> Variable:
        if rng is None:
            from theon.tensor.random.variable import shared_rng

            return shared_rng(None)
        if isinstance(rng, np.random.Generator):
            raise TypeError(f"{self.name}: argument 'rng' must be a symbolic generator; wrap "
                            "the Generator with theon.shared(rng) or shared_rng(rng)")
        if not isinstance(rng, Variable) or not isinstance(rng.type, RandomType):
            shown = describe(rng) if isinstance(rng, Variable) else repr(rng)
            raise TypeError(f"{self.name}: argument 'rng' must be a random generator "
                            f"variable (theon.tensor.random.shared_rng(seed)), got {shown}")
        return rng

    def _as_param(self, k: int, p: Any) -> TensorVariable:
        v = as_tensor_variable(p)
        nd = self.ndims_params[k]
        if v.type.dtype[:1] not in ("f", "i", "u", "b"):
            raise TypeError(f"{self.name}: parameter {k} must be numeric, got {describe(v)}")
        if v.type.ndim < nd:
            raise ValueError(f"{self.name}: parameter {k} needs at least {nd} dimensions "
                             f"(signature {self.signature!r}), got {describe(v)}")
        return v

    # shapes -----------------------------------------------------------------------
    def _static_supp(self, params: Sequence[TensorVariable]) -> tuple[int | None, ...]:
        """The support shape known when building (``None`` where unknown)."""
        if not self.ndim_supp:
            return ()
        known: dict[str, int | None] = {d: int(d) if d.isdigit() else None
                                        for d in self.output_sig}
        for p, core in zip(params, self.inputs_sig):
            tail = p.type.shape[p.type.ndim - len(core):] if core else ()
            for dim, length in zip(core, tail):
                if known.get(dim, 0) is None and length is not None:
                    known[dim] = length
        out = tuple(known[d] for d in self.output_sig)
        if None in out and type(self)._supp_shape_from_params is not (
                RandomVariable._supp_shape_from_params):
            try:
                sym = self._supp_shape_from_params(params)
                out = tuple(o if o is not None else _static_scalar(as_tensor_variable(s))
                            for o, s in zip(out, sym))
            except (NotImplementedError, TypeError, ValueError):
                pass
        return out

    def _supp_shape_from_params(self, dist_params: Sequence[Variable],
                                param_shapes: Sequence[Sequence[Variable]] | None = None
                                ) -> list[Variable]:
        """The support shape (one draw's shape) from the parameters, by the signature:
        a named core dimension of the output is that dimension of the parameter that has
        it; a number is that length.  Subclasses whose support shape depends on values
        override this."""
        out: list[Variable] = []
        for dim in self.output_sig:
            if dim.isdigit():
                out.append(constant(np.int64(int(dim))))
                continue
            for k, core in enumerate(self.inputs_sig):
                if dim in core:
                    p = as_tensor_variable(dist_params[k])
                    shp = (list(param_shapes[k]) if param_shapes is not None
                           else shape_scalars(p.shape))
                    out.append(shp[len(shp) - len(core) + core.index(dim)])
                    break
            else:
                raise NotImplementedError(
                    f"{type(self).__name__}: the support dimension {dim!r} of the signature "
                    f"{self.signature!r} is in no parameter; define _supp_shape_from_params")
        return out

    def _infer_shape(self, size: Variable, dist_params: Sequence[Variable],
                     param_shapes: Sequence[Sequence[Variable]] | None = None
                     ) -> tuple[Variable, ...]:
        """The draw's shape as int64 scalars: ``size`` (or the parameters' broadcast batch
        shape) followed by the support shape."""
        supp = (tuple(self._supp_shape_from_params(dist_params, param_shapes=param_shapes))
                if self.ndim_supp else ())
        params = [as_tensor_variable(p) for p in dist_params]
        if not is_none_size(size):
            n = len(static_size(size) or ())
            for k, (p, nd) in enumerate(zip(params, self.ndims_params)):
                if p.type.ndim - nd > n:
                    raise ValueError(f"{self.name}: size of length {n} is shorter than the "
                                     f"batch dimensions of parameter {k}: {describe(p)}")
            return tuple(shape_scalars(size)) + supp
        shapes = (list(param_shapes) if param_shapes is not None
                  else [shape_scalars(p.shape) for p in params])
        batch = []
        for p, ps, nd in zip(params, shapes, self.ndims_params):
            ps = list(ps)
            batch.append([None if p.type.shape[i] == 1 else ps[i]
                          for i in range(p.type.ndim - nd)])
        nb = max((len(b) for b in batch), default=0)
        out: list[Variable] = []
        for d in range(nb):
            cands = [b[len(b) - nb + d] for b in batch if len(b) - nb + d >= 0]
            known = [c for c in cands if c is not None]
            if not known:
                out.append(constant(np.int64(1)))
                continue
            # an unknown length never broadcasts in a compiled graph: any one is the length;
            # a constant one is the most useful
            const = [c for c in known if _static_scalar(c) is not None]
            out.append((const or known)[0])
        return tuple(out) + supp

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Variable]]
                    ) -> list[Any]:
        _, size, *params = node.inputs
        return [None, self._infer_shape(size, params, param_shapes=input_shapes[2:])]

    # derivatives and batching ------------------------------------------------------
    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        why = ("a random draw has no gradient with respect to its parameters in theon "
               "(no reparameterization); write the draw as a transformation of a "
               "parameter-free one instead")
        return [disconnected_type(), disconnected_type()] + [
            grad_undefined(self, 2 + k, p, why) for k, p in enumerate(inputs[2:])
        ]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        return [None, None]

    def vectorize_node(self, node: Apply, inputs: list[Variable], batched: list[bool]
                       ) -> Any:
        """One more leading batch axis: the parameters batched (the others broadcast), and
        a given ``size`` extended by the batch length; the generator is not batched."""
        rng, size, *params = inputs
        if batched[0] or batched[1]:
            return None
        from theon.tensor.reshaping import shape_padleft

        new_params = [p if b else shape_padleft(p, 1)
                      for p, b in zip(params, batched[2:])]
        if not is_none_size(size):
            from theon.tensor.shape import make_vector

            lead = [shape_scalars(as_tensor_variable(p).shape)[0]
                    for p, b in zip(params, batched[2:]) if b]
            size = make_vector(lead[0], *shape_scalars(size))
        new = self.make_node(rng, size, *new_params)
        return list(new.outputs), [False, True]
