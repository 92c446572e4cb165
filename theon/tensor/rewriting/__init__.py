"""The tensor rewrites: importing this package registers them in ``theon.rewriting.rewrite_db``.

- :mod:`.useless`: ``x*1``, ``x+0``, identity reshape/dimshuffle/cast, ``x.T.T``, ``--x``;
- :mod:`.canonicalize`: flat sums and products (``x*y/y -> x``, ``x-x -> zeros``),
  dimshuffle lifting, nested reductions;
- :mod:`.stabilize`: ``log1p``, ``expm1``, ``softplus``, ``log_softmax``, ``logsumexp``;
- :mod:`.specialize`: ``x**2 -> sqr`` and other powers, ``sum(x*y) -> dot``;
- :mod:`.blas`: ``z + a*dot(x, y) -> gemm``;
- shape, fusion and inplace rewrites live in their own modules when present.

Elemwise nodes are indexed by their scalar op too, so a rewrite tracking
``theon.scalar.add`` sees every ``Elemwise(add)`` node.

>>> from theon.rewriting import rewrite_db
>>> import theon.tensor.rewriting
>>> "local_mul_canonizer" in rewrite_db
True
"""

import importlib as _importlib

from theon.rewriting import register_track_key as _register_track_key
from theon.tensor.elemwise import Elemwise as _Elemwise

_register_track_key(_Elemwise, lambda op: op.scalar_op)

from theon.tensor.rewriting import (  # noqa: E402
    blas,
    canonicalize,
    specialize,
    stabilize,
    useless,
)

__all__ = ["blas", "canonicalize", "specialize", "stabilize", "useless"]

# Written beside these (by another part of the project); registered when present.
for _name in ("shape", "fusion", "inplace"):
    _full = f"theon.tensor.rewriting.{_name}"
    try:
        globals()[_name] = _importlib.import_module(_full)
    except ModuleNotFoundError as _e:
        if _e.name != _full:
            raise
    else:
        __all__.append(_name)
