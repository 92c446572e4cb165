"""The tensor rewrites: importing this package registers them in ``theon.rewriting.rewrite_db``.

- :mod:`.useless`: ``x*1``, ``x+0``, identity reshape/dimshuffle/cast, ``x.T.T``, ``--x``;
- :mod:`.canonicalize`: flat sums and products (``x*y/y -> x``, ``x-x -> zeros``),
  dimshuffle lifting, nested reductions;
- :mod:`.stabilize`: ``log1p``, ``expm1``, ``softplus``, ``log_softmax``, ``logsumexp``;
- :mod:`.specialize`: ``x**2 -> sqr`` and other powers, ``sum(x*y) -> dot``;
- :mod:`.blas`: ``z + a*dot(x, y) -> gemm``;
- :mod:`.diagonal`: identity and diagonal matrices (a jacobian's unit seeds) as
  ``AllocDiag``/``AddDiag`` and row/column scalings;
- :mod:`.onehot`: the one-hot seed of ``grad(y[i], x)`` carried as one entry;
- :mod:`.joins`: a Join of small pieces built alike, as one operation on joined operands;
- :mod:`.shape`, :mod:`.fusion`, :mod:`.inplace`: shape, elementwise-fusion and
  inplace rewrites.

Elemwise nodes are indexed by their scalar op too, so a rewrite tracking
``theon.scalar.add`` sees every ``Elemwise(add)`` node.

>>> from theon.rewriting import rewrite_db
>>> import theon.tensor.rewriting
>>> "local_mul_canonizer" in rewrite_db
True
"""

from operator import attrgetter as _attrgetter

from theon.rewriting import register_track_key as _register_track_key
from theon.tensor.elemwise import Elemwise as _Elemwise

_register_track_key(_Elemwise, _attrgetter("scalar_op"))

# The import order is the registration order, which orders the rewrites within a phase.
# isort: off
from theon.tensor.rewriting import blas, canonicalize, specialize, stabilize, useless  # noqa: E402
from theon.tensor.rewriting import diagonal, onehot, joins  # noqa: E402
from theon.tensor.rewriting import shape, fusion, inplace  # noqa: E402
# isort: on

__all__ = [
    "blas",
    "canonicalize",
    "diagonal",
    "fusion",
    "inplace",
    "joins",
    "onehot",
    "shape",
    "specialize",
    "stabilize",
    "useless",
]
