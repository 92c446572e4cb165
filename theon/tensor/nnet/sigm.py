"""Theano's ``theano.tensor.nnet.sigm`` path: the sigmoid family.

The functions are those of :mod:`theon.tensor.nnet.basic`; the module keeps
``from theon.tensor.nnet.sigm import hard_sigmoid`` (Theano's file layout) working.

>>> from theon.tensor.nnet.sigm import hard_sigmoid, sigmoid, ultra_fast_sigmoid
>>> import theon.tensor as T
>>> float(hard_sigmoid(T.constant(0.0)).eval())
0.5
"""

from theon.tensor.nnet.basic import (
    hard_sigmoid,
    sigmoid,
    sigmoid_binary_crossentropy,
    softplus,
    ultra_fast_sigmoid,
)

__all__ = [
    "hard_sigmoid",
    "sigmoid",
    "sigmoid_binary_crossentropy",
    "softplus",
    "ultra_fast_sigmoid",
]
