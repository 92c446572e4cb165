"""Theano's import path for random streams: ``theon.tensor.shared_randomstreams.RandomStreams``.

:class:`RandomStreams` takes ``size`` first, as Theano's did (see
:mod:`theon.tensor.random.utils`); each draw has its own shared generator with a
default update, so a compiled function gives fresh numbers at each call.

>>> import theon
>>> from theon.tensor.shared_randomstreams import RandomStreams
>>> srng = RandomStreams(seed=234)
>>> f = theon.function([], srng.uniform((2, 2)))
>>> bool((f() != f()).all())
True
"""

from theon.tensor.random.utils import RandomStream, RandomStreams

__all__ = ["RandomStream", "RandomStreams"]
