"""Theano's ``theano.gof.op``: the :class:`Op` base class.

>>> from theon.gof.op import Op
>>> import theon.graph.op
>>> Op is theon.graph.op.Op
True
"""

from theon.graph.op import Op

__all__ = ["Op"]
