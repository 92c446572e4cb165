"""Random numbers: symbolic draws from ``numpy.random.Generator`` (PyTensor 3's explicit form).

A draw takes a generator variable and returns the draw; with ``return_next_rng=True``
also the generator after it, which the caller stores back with an update:

>>> import numpy as np
>>> import theon
>>> import theon.tensor.random as tr
>>> rng = theon.shared(np.random.default_rng(7))
>>> next_rng, x = tr.uniform(0.0, 1.0, size=(2,), rng=rng, return_next_rng=True)
>>> f = theon.function([], x, updates={rng: next_rng})
>>> bool((f() != f()).all())
True

Without ``rng``, each draw gets a new shared generator (seeded by the operating
system) that updates itself.  Importing this package registers the shared
constructor for ``numpy.random.Generator`` values.
"""

from theon.compile.pipeline import register_graph_check as _register_graph_check
from theon.rewriting.db import register_rewrite_module as _register_rewrite_module
from theon.tensor.random import basic, checks, op, sampling, type
from theon.tensor.random.basic import *  # noqa: F403
from theon.tensor.random.op import RandomVariable
from theon.tensor.random.sampling import ChoiceRV, PermutationRV, choice, permutation, shuffle
from theon.tensor.random.type import (
    RandomGeneratorSharedVariable,
    RandomGeneratorType,
    random_generator_type,
    shared_rng,
)

__all__ = [
    "ChoiceRV",
    "PermutationRV",
    "RandomGeneratorSharedVariable",
    "RandomGeneratorType",
    "RandomVariable",
    "basic",
    "choice",
    "op",
    "permutation",
    "random_generator_type",
    "sampling",
    "shared_rng",
    "shuffle",
    "type",
]
__all__ += basic.__all__

_register_rewrite_module("theon.tensor.random.rewriting")
_register_graph_check(checks.warn_reused_rng)
