"""The Types of random generators.

:class:`RandomType` is the base of every generator type (what a random Op's ``rng``
input must be); :class:`RandomGeneratorType` holds a ``numpy.random.Generator``, and
its variables are :class:`~theon.tensor.random.variable.RandomGeneratorVariable`\\ s,
which draw through their methods.  Importing the package registers the shared
constructor for ``numpy.random.Generator`` values
(:func:`~theon.tensor.random.variable.generator_constructor`).

>>> import numpy as np
>>> rng = shared_rng(42, name="rng")
>>> rng.type, isinstance(rng.get_value(), np.random.Generator)
(RandomGeneratorType, True)
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from theon.graph.type import Type
from theon.tensor.random.variable import (
    RandomGeneratorSharedVariable,
    RandomGeneratorVariable,
    generator_constructor,
    shared_rng,
)

__all__ = [
    "RandomGeneratorSharedVariable",
    "RandomGeneratorType",
    "RandomType",
    "copy_generator",
    "generator_constructor",
    "random_generator_type",
    "shared_rng",
]


def copy_generator(rng: np.random.Generator) -> np.random.Generator:
    """An independent generator in ``rng``'s state (twice as fast as ``copy.deepcopy``;
    its bit generator's seed sequence is a new one, which only ``spawn`` reads).

    >>> g = np.random.default_rng(0)
    >>> h = copy_generator(g)
    >>> h is not g and h.random() == g.random()
    True
    """
    bg = rng.bit_generator
    new = type(bg).__new__(type(bg))
    try:
        new.__init__()  # type: ignore[misc]
        new.state = bg.state
    except (TypeError, ValueError):  # a bit generator that is not rebuilt this way
        return copy.deepcopy(rng)
    return np.random.Generator(new)


class RandomType(Type):
    """The base of the types of random generator values (a random Op's ``rng``)."""

    # no gradient flows into a generator (read by theon.grad)
    never_differentiable = True
    # Function.copy() gives the copy its own generator (read by theon.compile.compiled)
    state_copied_by_function_copy = True


class RandomGeneratorType(RandomType):
    """The type of a ``numpy.random.Generator`` value.

    >>> RandomGeneratorType().filter(np.random.default_rng(0)).random() < 1.0
    True
    """

    variable_type = RandomGeneratorVariable

    def filter(self, x: Any, strict: bool = False, allow_downcast: bool | None = None) -> Any:
        if isinstance(x, np.random.Generator):
            return x
        raise TypeError(
            f"{self} needs a numpy.random.Generator (e.g. np.random.default_rng(seed)), "
            f"got {type(x).__name__}"
        )

    def values_eq(self, a: Any, b: Any) -> bool:
        """Equal when both generators are in the same state (same bit generator and state)."""
        return bool(a.bit_generator.state == b.bit_generator.state)

    @staticmethod
    def may_share_memory(a: Any, b: Any) -> bool:
        """Whether two generators advance one bit generator."""
        return a.bit_generator is b.bit_generator

    def constant_signature(self, data: Any) -> Any:
        # two generator constants are the same only if they are the same object
        return (type(data), id(data))

    def __str__(self) -> str:
        return "RandomGeneratorType"


random_generator_type = RandomGeneratorType()
