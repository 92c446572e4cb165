"""Declarative rewrites: ``in_pattern -> out_pattern``.

A pattern is

- a string, a pattern variable (``'x'``): it matches anything, and every use of
  one name must match the same variable (or equal constants);
- a tuple ``(op, *sub_patterns)``: a node whose op matches and whose inputs match
  the sub-patterns.  In an input pattern ``op`` is an Op (matched by equality),
  an Op class (``isinstance``), an :class:`OpMatcher` (a predicate with the
  dispatch keys to track) or a predicate ``op -> bool``; in an output pattern it
  is anything callable that builds a Variable (an Op, or a function like
  ``tt.mul``), or :class:`OpOf` ``(name)``: the op of the node that computed the
  binding ``name`` (so a row can carry an op's parameters through);
- a dict ``{"pattern": p, "constraint": fn, "name": n}``: ``p`` matches and
  ``fn(var)`` is true; with ``"name"``, the matched variable is also bound to
  ``n`` (an inner node, not only a leaf, can then be used in the output pattern);
- a Constant or a plain value (int, float, array): a Constant with that value.

>>> from theon.graph.type import Generic
>>> from theon.graph.op import Op
>>> from theon.graph.basic import Apply
>>> class Bin(Op):
...     __props__ = ("name",)
...     def __init__(self, name): self.name = name
...     def make_node(self, a, b): return Apply(self, [a, b], [Generic()()])
>>> mul, div = Bin("mul"), Bin("div")
>>> rw = PatternNodeRewriter((div, (mul, "x", "y"), "y"), "x")
>>> str(rw)
'(div, (mul, x, y), y) -> x'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from theon.graph.basic import Apply, Constant, Variable
from theon.graph.op import Op
from theon.rewriting.basic import NodeRewriter, Replacement, TrackEntry

if TYPE_CHECKING:
    from theon.graph.fg import FunctionGraph

__all__ = ["OpMatcher", "OpOf", "PatternNodeRewriter"]


class OpMatcher:
    """An input-pattern head: ops for which ``matches(op)`` is true.

    ``tracks`` are the dispatch keys (ops, op classes or keys registered with
    :func:`~theon.rewriting.basic.register_track_key`) under which a rewrite
    whose root has this head is tried, so it only sees nodes of the right op;
    ``label`` is how the head reads in a rewrite's description.

    >>> from theon.graph.op import Op
    >>> m = OpMatcher(lambda op: True, [Op], "anything")
    >>> str(m), m.tracks
    ('anything', (<class 'theon.graph.op.Op'>,))
    """

    __slots__ = ("matches", "tracks", "label")

    def __init__(
        self, matches: Callable[[Op], bool], tracks: Sequence[TrackEntry], label: str
    ) -> None:
        self.matches = matches
        self.tracks = tuple(tracks)
        self.label = label

    def __str__(self) -> str:
        return self.label

    __repr__ = __str__


class OpOf:
    """An output-pattern head: apply the op of the node that computed binding ``name``.

    >>> str(OpOf("r"))
    'op_of(r)'
    """

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __str__(self) -> str:
        return f"op_of({self.name})"

    __repr__ = __str__


class _PVar:
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


class _PNode:
    __slots__ = ("head", "args", "test")

    def __init__(self, head: Any, args: list[Any]) -> None:
        self.head = head
        self.args = args
        # the head's test of an op, chosen once (matching calls it on every try)
        self.test: Callable[[Op], bool] = _head_test(head)


class _PConst:
    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


class _PConstraint:
    __slots__ = ("pattern", "constraint")

    def __init__(self, pattern: Any, constraint: Callable[[Variable], bool]) -> None:
        self.pattern = pattern
        self.constraint = constraint


class _PNamed:
    __slots__ = ("pattern", "name")

    def __init__(self, pattern: Any, name: str) -> None:
        self.pattern = pattern
        self.name = name


def _compile(p: Any) -> Any:
    """Turn a user pattern into the internal form (checks its shape)."""
    if isinstance(p, str):
        return _PVar(p)
    if isinstance(p, dict):
        if "pattern" not in p:
            raise ValueError(f"pattern dict {p!r} needs a 'pattern' key")
        extra = set(p) - {"pattern", "constraint", "name"}
        if extra:
            raise ValueError(f"pattern dict {p!r} has unknown keys {sorted(extra)}")
        inner = _compile(p["pattern"])
        fn = p.get("constraint")
        if fn is not None:
            inner = _PConstraint(inner, fn)
        name = p.get("name")
        if name is not None:
            if not isinstance(name, str):
                raise TypeError(f"pattern dict {p!r}: 'name' must be a string")
            inner = _PNamed(inner, name)
        return inner
    if isinstance(p, tuple):
        if not p:
            raise ValueError("empty tuple in pattern")
        head = p[0]
        if not (callable(head) or isinstance(head, (OpMatcher, OpOf))):
            raise TypeError(f"pattern head {head!r} is not an Op, an Op class or a callable")
        return _PNode(head, [_compile(a) for a in p[1:]])
    if isinstance(p, Variable) and not isinstance(p, Constant):
        raise TypeError(f"pattern contains the symbolic variable {p}; use a name like 'x'")
    return _PConst(p)


def _heads(p: Any) -> list[Any]:
    """The heads of every node of the compiled pattern ``p``."""
    out: list[Any] = []
    stack = [p]
    while stack:
        q = stack.pop()
        while isinstance(q, (_PConstraint, _PNamed)):
            q = q.pattern
        if isinstance(q, _PNode):
            out.append(q.head)
            stack.extend(q.args)
    return out


def _head_test(head: Any) -> Callable[[Op], bool]:
    """How an input-pattern head tests an op."""
    if isinstance(head, OpMatcher):
        return head.matches
    if isinstance(head, Op):
        return lambda op: bool(head == op)
    if isinstance(head, type):
        return lambda op: isinstance(op, head)
    if isinstance(head, OpOf):
        return lambda op: False  # (rejected in input patterns by PatternNodeRewriter)
    return lambda op: bool(head(op))


def _const_equal(var: Variable, value: Any) -> bool:
    if not isinstance(var, Constant):
        return False
    if isinstance(value, Constant):
        if var.type != value.type:
            return False
        try:
            return bool(var.signature() == value.signature())
        except Exception:
            return False
    try:
        data = np.asarray(var.data)
        if data.size == 0 or data.dtype == object:
            return bool(var.data == value)
        return bool(np.all(data == value))
    except Exception:
        return False


def _bound_equal(a: Variable, b: Variable) -> bool:
    if a is b:
        return True
    if isinstance(a, Constant) and isinstance(b, Constant) and a.type == b.type:
        try:
            return bool(a.signature() == b.signature())
        except Exception:
            return False
    return False


def _describe(p: Any) -> str:
    if isinstance(p, str):
        return p
    if isinstance(p, dict):
        return _describe(p.get("pattern"))
    if isinstance(p, tuple):
        head = p[0]
        if isinstance(head, (OpMatcher, OpOf)):
            name = str(head)
        elif isinstance(head, type):
            name = head.__name__
        else:
            name = getattr(head, "__name__", str(head))
        return f"({', '.join([name, *(_describe(a) for a in p[1:])])})"
    return str(p)


class PatternNodeRewriter(NodeRewriter):
    """Replace what matches ``in_pattern`` by what ``out_pattern`` builds.

    Parameters
    ----------
    in_pattern, out_pattern
        Patterns (see the module docstring); ``out_pattern`` may use every name
        bound by ``in_pattern``.
    allow_multiple_clients
        Also match inner nodes whose outputs have other clients (their
        computation is then duplicated, not removed).
    name
        Defaults to ``"in -> out"``.
    tracks
        Overrides the ops tracked (default, also when empty as PyTensor's ``()``: the
        head of ``in_pattern``, or the ``tracks`` of an :class:`OpMatcher` head).
    fit
        ``fit(new, old)`` gives the built variable ``new`` with exactly the type
        of the matched output ``old``, or None to skip the rewrite (for instance
        a cast or broadcast the replacement needs).  By default the rewrite is
        skipped when the types differ and ``old``'s type cannot convert ``new``.
    doc
        The rewrite's docstring (its math); defaults to ``"in -> out"``.
    values_eq_approx, allow_cast
        PyTensor's arguments, accepted: a replacement of another type is cast when its
        type can convert it (see ``fit``), as PyTensor's ``allow_cast=True`` does.

    Examples
    --------
    >>> from theon.graph.op import Op
    >>> rw = PatternNodeRewriter((Op, "x"), "x", name="drop")
    >>> rw.name, rw.tracks()
    ('drop', [<class 'theon.graph.op.Op'>])
    """

    def __init__(
        self,
        in_pattern: Any,
        out_pattern: Any,
        allow_multiple_clients: bool = False,
        name: str | None = None,
        tracks: Sequence[TrackEntry] | None = None,
        fit: Callable[[Variable, Variable], Variable | None] | None = None,
        doc: str | None = None,
        *,
        get_nodes: Any = None,
        values_eq_approx: Any = None,
        allow_cast: bool = True,
    ) -> None:
        if get_nodes is not None:
            raise TypeError("PatternNodeRewriter: theon has no get_nodes; match the node "
                            "itself with the in_pattern")
        if not isinstance(in_pattern, (tuple, dict)):
            raise TypeError(f"in_pattern must be a tuple (op, ...) or a dict, got {in_pattern!r}")
        self.in_pattern = in_pattern
        self.out_pattern = out_pattern
        self._in = _compile(in_pattern)
        self._out = _compile(out_pattern)
        for head in _heads(self._in):
            if isinstance(head, OpOf):
                raise TypeError(f"{head} builds nodes: it belongs in an output pattern")
        for head in _heads(self._out):
            if isinstance(head, OpMatcher):
                raise TypeError(f"{head} matches ops: it belongs in an input pattern")
        root = self._in
        while isinstance(root, (_PConstraint, _PNamed)):
            root = root.pattern
        if not isinstance(root, _PNode):
            raise TypeError(f"in_pattern {in_pattern!r} must have an op at its root")
        self._root_head = root.head
        self._root_test = root.test
        # the root's node-pattern children: a cheap first rejection, before the walk
        self._child_tests: list[tuple[int, Callable[[Op], bool]]] = []
        if len(root.args) <= 8:
            for k, sub in enumerate(root.args):
                while isinstance(sub, (_PConstraint, _PNamed)):
                    sub = sub.pattern
                if isinstance(sub, _PNode):
                    self._child_tests.append((k, sub.test))
        if tracks:  # (PyTensor's default is (), meaning: the root's op)
            self._tracks = list(tracks)
        elif isinstance(root.head, OpMatcher):
            self._tracks = list(root.head.tracks)
        else:
            self._tracks = [root.head]
        self.allow_multiple_clients = allow_multiple_clients
        self.fit = fit
        self.name = name or f"{_describe(in_pattern)} -> {_describe(out_pattern)}"
        self.__doc__ = doc or f"{_describe(in_pattern)} -> {_describe(out_pattern)}"

    def tracks(self) -> list[TrackEntry]:
        return self._tracks

    # matching --------------------------------------------------------------------
    def match(self, fgraph: FunctionGraph | None, node: Apply) -> dict[str, Variable] | None:
        """The bindings of the pattern variables if ``node`` matches, else None."""
        if not self._root_test(node.op):
            return None
        inputs = node.inputs
        for k, test in self._child_tests:
            if k >= len(inputs):
                return None
            owner = inputs[k].owner
            if owner is None or not test(owner.op):
                return None
        binding: dict[str, Variable] = {}
        # explicit stack of (variable, pattern, is_root); constraints are checked
        # after the structure matched, in an order that sees every binding
        stack: list[tuple[Variable, Any, bool]] = [(node.outputs[0], self._in, True)]
        checks: list[tuple[Callable[[Variable], bool], Variable]] = []
        clients = (
            fgraph.clients if fgraph is not None and not self.allow_multiple_clients else None
        )
        while stack:
            var, pat, is_root = stack.pop()
            while isinstance(pat, (_PConstraint, _PNamed)):
                if isinstance(pat, _PNamed):
                    bound = binding.get(pat.name)
                    if bound is None:
                        binding[pat.name] = var
                    elif not _bound_equal(bound, var):
                        return None
                else:
                    checks.append((pat.constraint, var))
                pat = pat.pattern
            if isinstance(pat, _PVar):
                bound = binding.get(pat.name)
                if bound is None:
                    binding[pat.name] = var
                elif not _bound_equal(bound, var):
                    return None
            elif isinstance(pat, _PConst):
                if not _const_equal(var, pat.value):
                    return None
            else:
                owner = var.owner
                # (the root's op was tested above)
                if owner is None or not (is_root or pat.test(owner.op)):
                    return None
                if len(owner.inputs) != len(pat.args):
                    return None
                if not is_root and clients is not None and len(clients.get(var, ())) > 1:
                    return None
                for inp, sub in zip(reversed(owner.inputs), reversed(pat.args)):
                    stack.append((inp, sub, False))
        for fn, var in reversed(checks):
            if not fn(var):
                return None
        return binding

    # building --------------------------------------------------------------------
    def _build(self, binding: dict[str, Variable], node: Apply) -> Any:
        # post-order evaluation of the output pattern with an explicit stack
        results: list[Any] = []
        stack: list[tuple[Any, bool]] = [(self._out, False)]
        while stack:
            pat, done = stack.pop()
            while isinstance(pat, (_PConstraint, _PNamed)):
                pat = pat.pattern
            if isinstance(pat, _PVar):
                if pat.name not in binding:
                    raise KeyError(
                        f"out_pattern of {self.name} uses {pat.name!r}, which in_pattern "
                        "does not bind"
                    )
                results.append(binding[pat.name])
            elif isinstance(pat, _PConst):
                results.append(pat.value)
            elif done:
                n = len(pat.args)
                args = results[len(results) - n:] if n else []
                del results[len(results) - n:]
                results.append(self._head_op(pat.head, binding)(*args))
            else:
                stack.append((pat, True))
                for sub in reversed(pat.args):
                    stack.append((sub, False))
        out = results[0]
        if not isinstance(out, Variable):
            out = node.outputs[0].type.filter_variable(out)
        return out

    def _head_op(self, head: Any, binding: dict[str, Variable]) -> Any:
        """What an output-pattern head calls: itself, or the op an :class:`OpOf` names."""
        if not isinstance(head, OpOf):
            return head
        v = binding.get(head.name)
        if v is None or v.owner is None:
            raise KeyError(
                f"out_pattern of {self.name} uses {head}, but in_pattern binds no node "
                f"output called {head.name!r}"
            )
        return v.owner.op

    def transform(self, fgraph: FunctionGraph, node: Apply) -> Replacement:
        binding = self.match(fgraph, node)
        if binding is None:
            return None
        new = self._build(binding, node)
        old = node.outputs[0]
        if self.fit is not None:
            fitted = self.fit(new, old)
            if fitted is None:
                return None
            new = fitted
        elif new.type != old.type and old.type.convert_variable(new) is None:
            return None
        return {old: new}
