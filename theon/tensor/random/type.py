"""The Type of NumPy random generators, and shared generators.

Importing this module registers :func:`generator_constructor` with
:func:`theon.compile.sharedvalue.shared`, so ``theon.shared(np.random.default_rng(0))``
gives a :class:`RandomGeneratorSharedVariable`.  Values are copied on the way in
(unless ``borrow=True``), so a caller's generator is never advanced by theon.

>>> import numpy as np
>>> rng = shared_rng(42, name="rng")
>>> rng.type, isinstance(rng.get_value(), np.random.Generator)
(RandomGeneratorType, True)
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from theon.compile.sharedvalue import SharedVariable, shared_constructor
from theon.graph.type import Type

__all__ = [
    "RandomGeneratorSharedVariable",
    "RandomGeneratorType",
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


class RandomGeneratorType(Type):
    """The type of a ``numpy.random.Generator`` value.

    >>> RandomGeneratorType().filter(np.random.default_rng(0)).random() < 1.0
    True
    """

    # no gradient flows into a generator (read by theon.grad)
    never_differentiable = True
    # Function.copy() gives the copy its own generator (read by theon.compile.compiled)
    state_copied_by_function_copy = True

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

    def constant_signature(self, data: Any) -> Any:
        # two generator constants are the same only if they are the same object
        return (type(data), id(data))

    def __str__(self) -> str:
        return "RandomGeneratorType"


random_generator_type = RandomGeneratorType()


class RandomGeneratorSharedVariable(SharedVariable):
    """A shared variable holding a ``numpy.random.Generator``."""


@shared_constructor
def generator_constructor(
    value: Any,
    name: str | None = None,
    strict: bool = False,
    allow_downcast: bool | None = None,
    borrow: bool = False,
    shape: Any = None,
    **kwargs: Any,
) -> RandomGeneratorSharedVariable:
    """A shared variable for a ``numpy.random.Generator`` (a copy unless ``borrow=True``).

    Declines (``TypeError``) any other value.

    >>> g = np.random.default_rng(3)
    >>> s = generator_constructor(g)
    >>> s.get_value(borrow=True) is g
    False
    """
    if not isinstance(value, np.random.Generator):
        raise TypeError(f"not a numpy.random.Generator: {type(value).__name__}")
    if kwargs or shape is not None:
        raise TypeError("a shared random generator takes no shape or other arguments, got "
                        f"{sorted(kwargs) + (['shape'] if shape is not None else [])}")
    if not borrow:
        value = copy.deepcopy(value)
    return RandomGeneratorSharedVariable(name, random_generator_type, value, strict,
                                         allow_downcast)


def shared_rng(seed: Any = None, name: str | None = None) -> RandomGeneratorSharedVariable:
    """A shared variable holding ``np.random.default_rng(seed)``.

    Parameters
    ----------
    seed
        Anything ``np.random.default_rng`` accepts; ``None`` seeds from the operating
        system's entropy (not reproducible).
    name
        The variable's name.

    Examples
    --------
    >>> a, b = shared_rng(1), shared_rng(1)
    >>> a.get_value().random() == b.get_value().random()
    True
    """
    return generator_constructor(np.random.default_rng(seed), name=name, borrow=True)
