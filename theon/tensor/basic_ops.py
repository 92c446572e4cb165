"""Making arrays and joining them: the names of :mod:`theon.tensor.creation` and
:mod:`theon.tensor.joining`, kept importable from here.

>>> import theon.tensor as tt
>>> zeros((2, 3), dtype="int32").eval()
array([[0, 0, 0],
       [0, 0, 0]], dtype=int32)
>>> a = tt.dvector("a")
>>> concatenate([a, a]).eval({a: [1.0, 2.0]})
array([1., 2., 1., 2.])
"""

from theon.tensor.creation import (
    Alloc,
    ARange,
    Eye,
    Linspace,
    SumToShape,
    alloc,
    arange,
    broadcast_to,
    eye,
    full,
    full_like,
    identity,
    linspace,
    ones,
    sum_to_shape,
    zeros,
)
from theon.tensor.joining import (
    Join,
    Split,
    concatenate,
    flip,
    hstack,
    join,
    roll,
    split,
    stack,
    tile,
    vstack,
)
from theon.tensor.math import zeros_like as zeros_like  # old callers import it from here

__all__ = [
    "ARange",
    "Alloc",
    "Eye",
    "Join",
    "Linspace",
    "Split",
    "SumToShape",
    "alloc",
    "arange",
    "broadcast_to",
    "concatenate",
    "eye",
    "flip",
    "full",
    "full_like",
    "hstack",
    "identity",
    "join",
    "linspace",
    "ones",
    "roll",
    "split",
    "stack",
    "sum_to_shape",
    "tile",
    "vstack",
    "zeros",
]
