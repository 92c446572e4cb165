"""Pattern rows: the tensor rewrites that are a fixed tree match, written as data.

A :class:`PatternRow` names a rewrite, states its math, and gives its input and
output patterns (see :mod:`theon.rewriting.pattern`) and the phase it registers
in.  :func:`elemwise` is the input-pattern head for an Elemwise of a given
scalar op (tracked under that scalar op, so the rewrite is only tried on such
nodes).  What a row builds is fitted to the exact type, dtype and static shape,
of the output it replaces (:func:`~theon.tensor.rewriting.utils.fit`), or the
row does not fire.  The tables themselves live beside the hand-written rewrites
of their phase (``STABILIZE_ROWS`` in :mod:`.stabilize`, ``USELESS_ROWS`` in
:mod:`.useless`).

>>> import theon.scalar as ts, theon.tensor as tt
>>> from theon.graph.fg import FunctionGraph
>>> row = PatternRow("neg_neg", "neg(neg(x)) -> x",
...                  (elemwise(ts.neg), (elemwise(ts.neg), "x")), "x", "useless")
>>> rw = row_rewriter(row, __name__)
>>> rw.name, rw.__doc__, rw.tracks() == [ts.neg]
('neg_neg', 'neg(neg(x)) -> x', True)
>>> x = tt.dvector("x")
>>> fg = FunctionGraph([x], [-(-x)], clone=False)
>>> rw(fg, fg.outputs[0].owner)[fg.outputs[0]] is x
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from theon.graph.op import Op
from theon.rewriting import db
from theon.rewriting.basic import FromFunctionNodeRewriter
from theon.rewriting.pattern import OpMatcher, PatternNodeRewriter
from theon.tensor.elemwise import Elemwise
from theon.tensor.rewriting.utils import fit

__all__ = ["PatternRow", "PatternRowRewriter", "elemwise", "register_rows", "row_rewriter"]

#: How each phase name of a row registers (phases and default tags, as the decorators).
REGISTER: dict[str, Callable[..., Any]] = {
    "canonicalize": db.register_canonicalize,
    "stabilize": db.register_stabilize,
    "specialize": db.register_specialize,
    "useless": db.register_useless,
}


def elemwise(*sops: Any) -> OpMatcher:
    """An input-pattern head: a non-inplace Elemwise of one of ``sops``.

    Each of ``sops`` is a scalar op (matched as :func:`.utils.elemwise_node` does:
    the same op, or one of its class when it has no parameters) or a scalar op
    class (``isinstance``).

    >>> import theon.scalar as ts, theon.tensor as tt
    >>> m = elemwise(ts.exp, ts.expm1)
    >>> str(m), m.matches(tt.exp(tt.dvector()).owner.op)
    ('exp|expm1', True)
    """
    if not sops:
        raise ValueError("elemwise() needs at least one scalar op or scalar op class")

    def matches(op: Op) -> bool:
        if not isinstance(op, Elemwise) or op.inplace_pattern:
            return False
        sop = op.scalar_op
        for s in sops:
            if isinstance(s, type):
                if isinstance(sop, s):
                    return True
            elif sop is s or (type(sop) is type(s) and (not s.__props__ or sop == s)):
                return True
        return False

    label = "|".join(s.__name__ if isinstance(s, type) else str(s) for s in sops)
    return OpMatcher(matches, sops, label)


@dataclass(frozen=True)
class PatternRow:
    """One rewrite as data.

    Attributes
    ----------
    name
        The registered name (what traces, ``explain`` and queries use).
    math
        The rewrite's docstring: ``in -> out`` and the conditions.
    in_pattern, out_pattern
        Patterns of :class:`~theon.rewriting.pattern.PatternNodeRewriter`.
    phase
        A key of :data:`REGISTER`: ``"stabilize"``, ``"useless"``, ...
    tags
        Tags added to the phase's default ones.
    """

    name: str
    math: str
    in_pattern: Any
    out_pattern: Any
    phase: str
    tags: tuple[str, ...] = ()


class PatternRowRewriter(FromFunctionNodeRewriter):
    """The node rewriter of a :class:`PatternRow` (its function matches and builds).

    A FromFunctionNodeRewriter, as the hand-written rewrites are, so tools that
    wrap or trace ``fn`` treat both alike.
    """

    def __init__(self, row: PatternRow, pattern: PatternNodeRewriter, module: str) -> None:
        super().__init__(pattern.transform, pattern.tracks(), name=row.name)
        # named as the row, and defined where its table is
        self.__name__ = self.__qualname__ = row.name
        self.__doc__ = row.math
        self.__module__ = module
        self.row = row
        self.pattern = pattern


def row_rewriter(row: PatternRow, module: str) -> PatternRowRewriter:
    """The rewriter of ``row``, reported as defined in ``module``.

    Inner nodes of the match may have other clients (the rewrites keep them and
    compute the replacement beside them).
    """
    if row.phase not in REGISTER:
        raise ValueError(f"row {row.name}: unknown phase {row.phase!r}; one of {sorted(REGISTER)}")
    pattern = PatternNodeRewriter(
        row.in_pattern, row.out_pattern, allow_multiple_clients=True, name=row.name,
        fit=fit, doc=row.math,
    )
    return PatternRowRewriter(row, pattern, module)


def register_rows(rows: Sequence[PatternRow], module: str) -> dict[str, PatternRowRewriter]:
    """Register each row in its phase, in order; ``{name: rewriter}``."""
    out: dict[str, PatternRowRewriter] = {}
    for row in rows:
        rw = row_rewriter(row, module)
        REGISTER[row.phase](rw, *row.tags)
        out[row.name] = rw
    return out
