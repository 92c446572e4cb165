"""Theano's ``theano.tensor.nnet.nnet`` path: the softmax and cross-entropy functions.

Everything here is :mod:`theon.tensor.nnet.basic`; the module exists so that
``from theon.tensor.nnet.nnet import softmax`` (Theano's file layout) keeps working.

>>> import theon.tensor as T
>>> from theon.tensor.nnet.nnet import categorical_crossentropy, softmax
>>> softmax is T.nnet.softmax
True
"""

from theon.tensor.nnet.basic import *  # noqa: F403
from theon.tensor.nnet.basic import __all__ as __all__
