"""The JAX backend: ``mode="JAX"`` runs a whole graph as one ``jax.jit`` function.

Each Op is translated by a ``functools.singledispatch`` rule
(:func:`theon.link.jax.dispatch.jax_funcify`) that lives outside the Op, in
:mod:`theon.backends.jax`; Ops never import jax.  jax itself is imported only when a
function is linked in this mode (the ``theon[jax]`` extra).  See ``docs/jax.md``.

- :class:`JAXLinker` (``theon.link.jax.linker``): the linker, ``Mode(linker="jax")``;
- :func:`jax_funcify`, :func:`jax_scalar_funcify`, :func:`jax_typify`,
  :func:`jax_untypify` (``theon.link.jax.dispatch``): the rule registries;
- :func:`shard` (``theon.link.jax.sharding``): data-parallel placement of inputs.
"""

from theon.link.jax.dispatch import (
    MissingJAXRule,
    jax_funcify,
    jax_scalar_funcify,
    jax_typify,
    jax_untypify,
)
from theon.link.jax.linker import JAXLinker, JAXLinkError
from theon.link.jax.sharding import shard

__all__ = [
    "JAXLinkError",
    "JAXLinker",
    "MissingJAXRule",
    "jax_funcify",
    "jax_scalar_funcify",
    "jax_typify",
    "jax_untypify",
    "shard",
]
