"""The rewrite trace: which rewrites fired during a compile, and on which nodes.

Recording is off by default and costs nothing then.  It is on while
``config.trace_rewrites`` is set, inside a :func:`record_rewrites` block, or when
the FunctionGraph already carries a ``rewrite_trace`` list.

>>> entry = TraceEntry("canonicalize", "local_mul_one", "mul(x, 1)", "mul.0 -> x")
>>> format_trace([entry])
'[canonicalize] local_mul_one: mul(x, 1)  (mul.0 -> x)'
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

from theon.graph.fg import FunctionGraph

__all__ = ["TraceEntry", "format_trace", "record_rewrites", "trace"]


class TraceEntry(NamedTuple):
    """One rewrite that fired: its phase, its name, the node, and the replacements."""

    phase: str
    rewrite: str
    node: str
    replacements: str


# Lists that :func:`record_rewrites` blocks collect into (innermost last).
_RECORDERS: list[list[TraceEntry]] = []


@contextlib.contextmanager
def record_rewrites() -> Iterator[list[TraceEntry]]:
    """Collect the trace of every compile made inside the block.

    Examples
    --------
    >>> with record_rewrites() as log:
    ...     pass  # theon.function(...) calls go here
    >>> log
    []
    """
    log: list[TraceEntry] = []
    _RECORDERS.append(log)
    try:
        yield log
    finally:
        _RECORDERS.remove(log)


def recording_active() -> bool:
    """Whether a :func:`record_rewrites` block is open."""
    return bool(_RECORDERS)


def publish(entries: Sequence[TraceEntry]) -> None:
    """Hand the entries of one finished compile to every open recorder."""
    for log in _RECORDERS:
        log.extend(entries)


def record(
    fgraph: FunctionGraph, rewrite: str, node: Any, pairs: Sequence[tuple[Any, Any]]
) -> None:
    """Append an entry for a fired rewrite to ``fgraph.rewrite_trace`` (and print if verbose)."""
    phase = fgraph._rewrite_phase or ""
    text = ", ".join(f"{_var_str(old)} -> {_var_str(new)}" for old, new in pairs)
    entry = TraceEntry(phase, rewrite, str(node), text)
    log = fgraph.rewrite_trace
    if log is not None:
        log.append(entry)
    if fgraph._rewrite_verbose:
        print(f"rewrite {format_trace([entry])}")


def _var_str(v: Any) -> str:
    owner = getattr(v, "owner", None)
    if owner is not None and getattr(v, "name", None) is None:
        return str(owner)
    return str(v)


def trace(f: Any) -> list[TraceEntry]:
    """The rewrites that fired when ``f`` (a Function or FunctionGraph) was compiled.

    Raises ``ValueError`` when the compile did not record a trace.

    Examples
    --------
    >>> from theon.graph.fg import FunctionGraph
    >>> from theon.graph.type import Generic
    >>> x = Generic()("x")
    >>> fg = FunctionGraph([x], [x], clone=False)
    >>> fg.rewrite_trace = []
    >>> trace(fg)
    []
    """
    fgraph = getattr(getattr(f, "maker", None), "fgraph", f)
    log = fgraph.rewrite_trace if isinstance(fgraph, FunctionGraph) else None
    if log is None:
        raise ValueError(
            f"{f!r} was compiled without a rewrite trace; compile it with "
            "config.trace_rewrites=True (THEON_FLAGS=trace_rewrites=1) or inside "
            "`with theon.rewriting.record_rewrites():`"
        )
    return list(log)


def format_trace(entries: Sequence[TraceEntry]) -> str:
    """One line per entry: ``[phase] rewrite: node  (old -> new)``."""
    lines = []
    for e in entries:
        head = f"[{e.phase}] " if e.phase else ""
        tail = f"  ({e.replacements})" if e.replacements else ""
        lines.append(f"{head}{e.rewrite}: {e.node}{tail}")
    return "\n".join(lines)
