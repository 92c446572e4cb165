"""``theon.function``: compile a graph into a callable.

The graph is copied into a FunctionGraph (the user's graph is never
modified), rewritten according to the mode, and linked.

>>> from theon.graph.type import Generic
>>> from theon.graph.op import Op
>>> from theon.graph.basic import Apply
>>> class Add(Op):
...     __props__ = ()
...     def make_node(self, a, b):
...         return Apply(self, [a, b], [Generic()()])
...     def perform(self, node, inputs, out):
...         out[0][0] = inputs[0] + inputs[1]
>>> a, b = Generic()("a"), Generic()("b")
>>> f = function([a, b], Add()(a, b))
>>> f(1, 2), f(b=5, a=1)
(3, 6)
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from theon.compile.io import In, Out
from theon.compile.mode import Mode, get_mode
from theon.graph.basic import Constant, Variable
from theon.graph.fg import FunctionGraph, describe
from theon.graph.traversal import ancestors

__all__ = ["Function", "FunctionMaker", "UnusedInputError", "function"]


class UnusedInputError(ValueError):
    """An input of ``function`` is not needed by any output."""


class FunctionMaker:
    """What went into a compiled function: ``fgraph``, ``inputs`` (In), ``outputs``, ``mode``."""

    def __init__(
        self,
        fgraph: FunctionGraph,
        inputs: list[In],
        outputs: list[Out],
        mode: Mode,
        unpack_single: bool,
    ) -> None:
        self.fgraph = fgraph
        self.inputs = inputs
        self.outputs = outputs
        self.mode = mode
        self.unpack_single = unpack_single


def _as_in(x: Any) -> In:
    if isinstance(x, In):
        return x
    if isinstance(x, Variable):
        return In(x)
    raise TypeError(f"function inputs must be Variables or In instances, got {x!r}")


def _as_out(x: Any) -> Out:
    if isinstance(x, Out):
        return x
    if isinstance(x, Variable):
        return Out(x)
    raise TypeError(
        f"function outputs must be Variables or Out instances, got {type(x).__name__} {x!r}"
    )


def _check_inputs(ins: list[In], outs: list[Out], on_unused_input: str) -> None:
    seen: dict[Variable, int] = {}
    for k, i in enumerate(ins):
        v = i.variable
        if isinstance(v, Constant):
            raise TypeError(
                f"input {k} of function is constant {describe(v)}; a constant's value is "
                "fixed, so it cannot be an input (use a symbolic variable instead)"
            )
        if v.owner is not None and not i.shared:
            raise TypeError(
                f"input {k} of function, {describe(v)}, is computed by {v.owner.op}; "
                "inputs must be graph leaves (use givens= to substitute a computed value)"
            )
        if v in seen:
            raise ValueError(
                f"input {describe(v)} is given twice to function (positions {seen[v]} and {k})"
            )
        seen[v] = k
    needed = set(ancestors([o.variable for o in outs] + [i.update for i in ins if i.update]))
    for k, i in enumerate(ins):
        if i.variable in needed or i.implicit:
            continue
        msg = (
            f"input {k} of function, {describe(i.variable)}, is not used to compute any "
            "output; pass on_unused_input='ignore' (or 'warn') if this is intended"
        )
        if on_unused_input == "raise":
            raise UnusedInputError(msg)
        if on_unused_input == "warn":
            warnings.warn(msg, stacklevel=4)
        elif on_unused_input != "ignore":
            raise ValueError(f"on_unused_input must be 'raise', 'warn' or 'ignore', got "
                             f"{on_unused_input!r}")


def _view_root(v: Variable) -> Variable:
    """Follow view_map/destroy_map back to the variable whose memory ``v`` uses."""
    while v.owner is not None:
        op = v.owner.op
        idx = v.index
        alias = op.view_map.get(idx) or op.destroy_map.get(idx)
        if not alias:
            break
        v = v.owner.inputs[alias[0]]
    return v


def outputs_needing_copy(fgraph: FunctionGraph, borrow: Sequence[bool]) -> list[bool]:
    """Which outputs must be copied so results never alias inputs, constants or each other."""
    inputs = set(fgraph.inputs)
    roots_seen: set[Variable] = set()
    out = []
    for v, b in zip(fgraph.outputs, borrow):
        root = _view_root(v)
        shared = root in inputs or isinstance(root, Constant) or root in roots_seen
        roots_seen.add(root)
        out.append(shared and not b)
    return out


def copy_value(x: Any) -> Any:
    """An independent copy of a runtime value."""
    if isinstance(x, np.ndarray):
        return x.copy()
    if isinstance(x, (int, float, complex, bool, str, bytes, type(None), np.generic)):
        return x
    return copy.deepcopy(x)


class Function:
    """A compiled function: call it with values for its inputs.

    ``f.maker.fgraph`` is the rewritten graph, ``f.maker.inputs`` its ``In``s.
    """

    def __init__(self, maker: FunctionMaker, runner: Any, name: str | None = None,
                 trust_input: bool = False) -> None:
        self.maker = maker
        self.name = name
        self.trust_input = trust_input
        self._runner = runner
        ins = maker.inputs
        self._n_args = len(ins)
        self._names = {i.name: k for k, i in enumerate(ins) if i.name is not None}
        self._filters = [self._make_filter(k, i) for k, i in enumerate(ins)]
        borrow = [o.borrow for o in maker.outputs]
        self._copy = outputs_needing_copy(maker.fgraph, borrow)
        self._any_copy = any(self._copy)
        self._unpack = maker.unpack_single

    def _make_filter(self, k: int, i: In) -> Any:
        filt = i.variable.type.filter
        strict = i.strict
        down = i.allow_downcast

        def f(value: Any) -> Any:
            return filt(value, strict, down)

        return f

    def _arg_error(self, k: int, e: Exception) -> Exception:
        i = self.maker.inputs[k]
        where = f" of function {self.name!r}" if self.name else ""
        msg = f"bad argument {k} ({i.name or i.variable}){where}: {e}"
        return type(e)(msg) if isinstance(e, (TypeError, ValueError)) else TypeError(msg)

    def _bind(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
        n = self._n_args
        if len(args) > n:
            raise TypeError(
                f"function{' ' + repr(self.name) if self.name else ''} takes {n} "
                f"argument{'s' if n != 1 else ''} ({self._arg_names()}), {len(args)} given"
            )
        vals: list[Any] = list(args) + [_MISSING] * (n - len(args))
        for key, value in kwargs.items():
            k = self._names.get(key)
            if k is None:
                raise TypeError(f"function has no input named {key!r} (inputs: "
                                f"{self._arg_names()})")
            if vals[k] is not _MISSING:
                raise TypeError(f"input {key!r} given both by position and by keyword")
            vals[k] = value
        for k, v in enumerate(vals):
            if v is _MISSING:
                i = self.maker.inputs[k]
                if i.has_default:
                    vals[k] = i.value
                else:
                    missing = [self.maker.inputs[j].name or str(self.maker.inputs[j].variable)
                               for j, w in enumerate(vals) if w is _MISSING]
                    raise TypeError(
                        f"missing argument{'s' if len(missing) > 1 else ''} "
                        f"{', '.join(map(repr, missing))}: function takes {n} "
                        f"({self._arg_names()}), {len(args) + len(kwargs)} given"
                    )
        return vals

    def _arg_names(self) -> str:
        return ", ".join(i.name or str(i.variable) for i in self.maker.inputs)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if kwargs or len(args) != self._n_args:
            args = tuple(self._bind(args, kwargs))
        if not self.trust_input:
            try:
                args = tuple([f(a) for f, a in zip(self._filters, args)])
            except (TypeError, ValueError):
                for k, (f, a) in enumerate(zip(self._filters, args)):
                    try:
                        f(a)
                    except (TypeError, ValueError) as e:
                        raise self._arg_error(k, e) from None
                raise
        outs = self._runner(*args)
        if self._any_copy:
            outs = [copy_value(o) if c else o for o, c in zip(outs, self._copy)]
        if self._unpack:
            return outs[0]
        return outs

    def __repr__(self) -> str:
        return f"<theon.Function {self.name or ''}({self._arg_names()})>"


_MISSING: Any = object()


def function(
    inputs: Sequence[Any],
    outputs: Any = None,
    mode: str | Mode | None = None,
    updates: Any = None,
    givens: Any = None,
    no_default_updates: bool = False,
    accept_inplace: bool = False,
    name: str | None = None,
    rebuild_strict: bool = True,
    allow_input_downcast: bool | None = None,
    profile: Any = None,
    on_unused_input: str | None = None,
    trust_input: bool = False,
) -> Function:
    """Compile a callable computing ``outputs`` from ``inputs``.

    Parameters
    ----------
    inputs
        Variables (or ``In``) given as arguments, positionally or by name.
    outputs
        A Variable (the call returns a value) or a list (the call returns a list).
    mode
        A Mode or a mode name; ``None`` takes ``config.mode``.
    name
        A name used in error messages and profiles.
    on_unused_input
        ``'raise'``, ``'warn'`` or ``'ignore'`` for inputs no output needs.
    trust_input
        Skip argument filtering (faster; wrong arguments give wrong results or
        crashes instead of clear errors).

    Examples
    --------
    >>> from theon.graph.type import Generic
    >>> x = Generic()("x")
    >>> function([x], x)(5)
    5
    """
    if updates or givens:
        raise NotImplementedError("updates and givens are not supported yet")
    from theon.config import config

    if on_unused_input is None:
        on_unused_input = config.on_unused_input
    if not isinstance(inputs, (list, tuple)):
        raise TypeError(f"function inputs must be a list of Variables, got {inputs!r}")
    unpack = not isinstance(outputs, (list, tuple))
    out_list = [] if outputs is None else ([outputs] if unpack else list(outputs))
    ins = [_as_in(i) for i in inputs]
    if allow_input_downcast is not None:
        for i in ins:
            if i.allow_downcast is None:
                i.allow_downcast = allow_input_downcast
    outs = [_as_out(o) for o in out_list]
    _check_inputs(ins, outs, on_unused_input)
    m = get_mode(mode)
    fgraph = FunctionGraph([i.variable for i in ins], [o.variable for o in outs], clone=True)
    rewriter = m.get_rewriter()
    if rewriter is not None:
        rewriter(fgraph)
    runner = m.linker.make_function(fgraph, profile=None)
    maker = FunctionMaker(fgraph, ins, outs, m, unpack_single=unpack and bool(out_list))
    f = Function(maker, runner, name=name, trust_input=trust_input)
    if outputs is None or (not unpack and not out_list):
        f._unpack = False
    return f
