"""Random numbers: symbolic draws from ``numpy.random.Generator``.

Two forms, backed by the same Ops; draws equal ``numpy.random.Generator``'s methods
on the same state.

**Explicit (PyTensor 3) form.**  A draw takes a generator variable; with
``return_next_rng=True`` it also returns the generator after it, which the caller
stores back with an update:

>>> import numpy as np
>>> import theon
>>> import theon.tensor as T
>>> import theon.tensor.random as tr
>>> rng = theon.shared(np.random.default_rng(7))       # or tr.shared_rng(7)
>>> next_rng, x = tr.normal(0.0, 1.0, size=(2,), rng=rng, return_next_rng=True)
>>> f = theon.function([], x, updates={rng: next_rng})
>>> bool((f() != f()).all())
True

**Stream (Theano) form.**  A stream makes a generator per draw, seeded from its own
seed, whose update is its *default update*: no updates to list, and ``seed(s)``
restarts the whole sequence (``theon.tensor.random.utils.RandomStream`` takes the
parameters first, ``theon.tensor.shared_randomstreams.RandomStreams`` and
``theon.sandbox.rng_mrg.MRG_RandomStreams`` take ``size`` first, as Theano's did):

>>> from theon.tensor.shared_randomstreams import RandomStreams
>>> srng = RandomStreams(seed=234)
>>> v = T.matrix("v")
>>> corrupted = srng.binomial(size=v.shape, n=1, p=0.7, dtype=theon.config.floatX) * v
>>> g = theon.function([v], corrupted)
>>> ones = np.ones((3, 4), dtype=theon.config.floatX)
>>> first = g(ones)
>>> bool((g(ones) != first).any())
True
>>> srng.seed(234)
>>> bool((g(ones) == first).all())
True

Without ``rng``, a function of this package gets a new shared generator (seeded by
the operating system) that updates itself.  Importing this package registers the
shared constructor for ``numpy.random.Generator`` values.
"""

from theon.compile.pipeline import register_graph_check as _register_graph_check
from theon.link.registry import register_linker_backend as _register_linker_backend
from theon.rewriting.db import register_rewrite_module as _register_rewrite_module
from theon.tensor.random import basic, checks, op, sampling, type, utils
from theon.tensor.random.basic import *  # noqa: F403
from theon.tensor.random.op import RandomVariable
from theon.tensor.random.sampling import ChoiceRV, PermutationRV, choice, permutation, shuffle
from theon.tensor.random.type import (
    RandomGeneratorSharedVariable,
    RandomGeneratorType,
    random_generator_type,
    shared_rng,
)
from theon.tensor.random.utils import RandomStream

__all__ = [
    "ChoiceRV",
    "PermutationRV",
    "RandomGeneratorSharedVariable",
    "RandomGeneratorType",
    "RandomStream",
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
    "utils",
]
__all__ += basic.__all__

_register_rewrite_module("theon.tensor.random.rewriting")
_register_graph_check(checks.warn_reused_rng)


# the JAX rules of these Ops (mode="JAX"), imported by the JAX linker before its first link
_register_linker_backend("jax", "theon.backends.jax.random")
