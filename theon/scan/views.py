"""``map``, ``reduce``, ``foldl``, ``foldr`` and ``filter``: common loops written with
:func:`~theon.scan.basic.scan` (PyTensor's ``pytensor.scan.views``).

>>> import numpy as np, theon, theon.tensor as tt
>>> x = tt.dvector("x")
>>> sq = map(lambda v: v * v, x, return_updates=False)
>>> total = reduce(lambda v, acc: acc + v, x, tt.constant(0.0), return_updates=False)
>>> f = theon.function([x], [sq, total])
>>> [r.tolist() for r in f(np.array([1.0, 2.0, 3.0]))]
[[1.0, 4.0, 9.0], 6.0]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from theon.scan.basic import scan

__all__ = ["filter", "foldl", "foldr", "map", "reduce"]


def map(
    fn: Callable[..., Any],
    sequences: Any,
    non_sequences: Any = None,
    truncate_gradient: int = -1,
    go_backwards: bool = False,
    mode: Any = None,
    name: str | None = None,
    return_updates: bool = True,
) -> Any:
    """``fn`` applied to each step's values of ``sequences``, stacked: a :func:`scan`
    with no output fed back (the arguments are :func:`scan`'s).

    >>> import numpy as np, theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> map(lambda v, c: v + c, x, non_sequences=[tt.constant(1.0)],
    ...     return_updates=False).eval({x: np.array([1.0, 2.0])})
    array([2., 3.])
    """
    return scan(fn, sequences=sequences, outputs_info=[], non_sequences=non_sequences,
                truncate_gradient=truncate_gradient, go_backwards=go_backwards, mode=mode,
                name=name, return_updates=return_updates)


def reduce(
    fn: Callable[..., Any],
    sequences: Any,
    outputs_info: Any,
    non_sequences: Any = None,
    go_backwards: bool = False,
    mode: Any = None,
    name: str | None = None,
    return_updates: bool = True,
) -> Any:
    """The last value of each output of a :func:`scan` (only the last step's values are
    kept when compiled).

    >>> import numpy as np, theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> reduce(lambda v, acc: acc * v, x, tt.constant(1.0),
    ...        return_updates=False).eval({x: np.array([2.0, 3.0, 4.0])})
    array(24.)
    """
    res = scan(fn, sequences=sequences, outputs_info=outputs_info,
               non_sequences=non_sequences, go_backwards=go_backwards, truncate_gradient=-1,
               mode=mode, name=name, return_updates=return_updates)
    outs, upd = res if return_updates else (res, None)
    last = [o[-1] for o in outs] if isinstance(outs, (list, tuple)) else outs[-1]
    return (last, upd) if return_updates else last


def foldl(
    fn: Callable[..., Any],
    sequences: Any,
    outputs_info: Any,
    non_sequences: Any = None,
    mode: Any = None,
    name: str | None = None,
    return_updates: bool = True,
) -> Any:
    """:func:`reduce` from the first step to the last."""
    return reduce(fn, sequences, outputs_info, non_sequences, go_backwards=False, mode=mode,
                  name=name, return_updates=return_updates)


def foldr(
    fn: Callable[..., Any],
    sequences: Any,
    outputs_info: Any,
    non_sequences: Any = None,
    mode: Any = None,
    name: str | None = None,
    return_updates: bool = True,
) -> Any:
    """:func:`reduce` from the last step to the first.

    >>> import numpy as np, theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> foldr(lambda v, acc: acc * 10 + v, x, tt.constant(0.0),
    ...       return_updates=False).eval({x: np.array([1.0, 2.0, 3.0])})
    array(321.)
    """
    return reduce(fn, sequences, outputs_info, non_sequences, go_backwards=True, mode=mode,
                  name=name, return_updates=return_updates)


def filter(
    fn: Callable[..., Any],
    sequences: Any,
    non_sequences: Any = None,
    go_backwards: bool = False,
    mode: Any = None,
    name: str | None = None,
) -> Any:
    """The rows of ``sequences`` for which ``fn`` (a boolean per step, or one per
    sequence) is true.

    >>> import numpy as np, theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> filter(lambda v: v > 1.5, x).eval({x: np.array([1.0, 2.0, 3.0])})
    array([2., 3.])
    """
    mask = scan(fn, sequences=sequences, outputs_info=None, non_sequences=non_sequences,
                go_backwards=go_backwards, mode=mode, name=name, return_updates=False)
    seqs = sequences if isinstance(sequences, (list, tuple)) else None
    if isinstance(mask, (list, tuple)):
        if seqs is None or len(mask) != len(seqs):
            raise ValueError(
                f"filter: fn returned {len(mask)} masks; give as many sequences "
                "in a list (one mask per sequence)")
        return [s[m] for s, m in zip(seqs, mask)]
    if seqs is not None:
        return [s[mask] for s in seqs]
    return sequences[mask]
