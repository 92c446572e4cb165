"""Theano's old ``theano.tensor.nnet.conv.conv2d`` spelling, on the abstract convolution.

It is a true convolution (the filters are flipped), ``border_mode`` ``'valid'`` or
``'full'``, with the shape hints ``image_shape`` and ``filter_shape``.

>>> import numpy as np
>>> import theon.tensor as tt
>>> from theon.tensor.nnet import conv
>>> x, w = tt.dtensor4("x"), tt.dtensor4("w")
>>> y = conv.conv2d(x, w, filter_shape=(2, 1, 3, 3), image_shape=(1, 1, 5, 5))
>>> y.eval({x: np.ones((1, 1, 5, 5)), w: np.ones((2, 1, 3, 3))}).shape
(1, 2, 3, 3)
"""

from __future__ import annotations

from typing import Any

from theon.graph.basic import Variable
from theon.tensor.nnet import abstract_conv

__all__ = ["conv2d"]


def conv2d(input: Any, filters: Any, image_shape: Any = None, filter_shape: Any = None,
           border_mode: str = "valid", subsample: Any = (1, 1), **kwargs: Any) -> Variable:
    """2-D convolution with Theano's old signature (``theano.tensor.nnet.conv.conv2d``).

    ``input`` is ``(N, C, H, W)``, ``filters`` ``(O, C, kh, kw)``; ``border_mode`` is
    ``'valid'`` or ``'full'``.  Old tuning keywords (``unroll_batch``, ``unroll_kern``,
    ``unroll_patch``, ``openmp``, ``verbose``, ...) are accepted and ignored.

    Examples
    --------
    >>> import numpy as np
    >>> import theon.tensor as tt
    >>> x, w = tt.dtensor4("x"), tt.dtensor4("w")
    >>> conv2d(x, w, border_mode="full").eval(
    ...     {x: np.ones((1, 1, 2, 2)), w: np.ones((1, 1, 2, 2))}).tolist()
    [[[[1.0, 2.0, 1.0], [2.0, 4.0, 2.0], [1.0, 2.0, 1.0]]]]
    """
    if border_mode not in ("valid", "full"):
        raise ValueError(f"conv.conv2d: border_mode must be 'valid' or 'full', got "
                         f"{border_mode!r} (theon.tensor.nnet.conv2d has 'half' and paddings)")
    ignored = {"unroll_batch", "unroll_kern", "unroll_patch", "openmp", "verbose", "version",
               "direction_hint", "imshp", "kshp", "nkern", "bsize"}
    unknown = set(kwargs) - ignored
    if unknown:
        raise TypeError(f"conv.conv2d got unexpected keyword arguments {sorted(unknown)}")
    return abstract_conv.conv2d(input, filters, input_shape=image_shape,
                                filter_shape=filter_shape, border_mode=border_mode,
                                subsample=subsample)
