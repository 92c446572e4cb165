"""The JAX rules (``jax_funcify``) of theon's Ops, one module per Op family.

Each Op family registers its module with ``register_linker_backend("jax", ...)``
when it is imported; the JAX linker (:mod:`theon.link.jax`) imports them before its
first link. jax itself is imported only when a rule runs. See ``docs/jax_rules.md``.
"""
