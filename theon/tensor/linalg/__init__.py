"""Linear algebra with gradients: ``theon.tensor.linalg``.

>>> import theon.tensor.linalg as la
>>> import theon.tensor as tt
>>> a = tt.dmatrix("a")
>>> la.eigvalsh(a).eval({a: [[2.0, 0.0], [0.0, 1.0]]})
array([1., 2.])
"""

from theon.tensor.linalg import misc, spectral
from theon.tensor.linalg.misc import *  # noqa: F403
from theon.tensor.linalg.spectral import *  # noqa: F403

__all__ = [*spectral.__all__, *misc.__all__]
