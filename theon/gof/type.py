"""Theano's ``theano.gof.type``: :class:`Type` and :class:`Generic`.

>>> from theon.gof.type import Generic
>>> Generic()("x").name
'x'
"""

from theon.graph.type import Generic, Type

__all__ = ["Generic", "Type"]
