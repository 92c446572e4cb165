"""The JAX backend: ``mode="JAX"`` runs a whole graph as one ``jax.jit`` function.

Each Op is translated by a ``functools.singledispatch`` rule
(:func:`theon.link.jax.dispatch.jax_funcify`) that lives outside the Op, in
this package; Ops never import jax.  jax itself is imported only when a
function is linked in this mode (the ``theon[jax]`` extra).
"""
