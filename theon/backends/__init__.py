"""How each Op runs on a backend: the py linker's emitters and the JAX rules.

These modules are one layer, above every Op family and below the public package
(``tests/test_layers.py``): each imports the Ops it translates, and no Op imports
them. An Op family registers its rule modules by name with
:func:`theon.link.registry.register_linker_backend` when it is imported, and the
linker imports them before its first link. The linkers themselves (the dispatch
tables ``py_emit`` and ``jax_funcify``, code generation, ``jax.jit``) are in
:mod:`theon.link`.

- :mod:`theon.backends.py`: ``py_emit`` rules, the generated Python of each scalar
  and tensor Op (``scalar``, ``tensor``, and ``fused`` for fused elementwise nodes);
- :mod:`theon.backends.jax`: ``jax_funcify`` rules for ``mode="JAX"``, one module per
  Op family (``scalar``, ``tensor``, ``gradient``, ``control``, ``random``,
  ``linalg``, ``blockwise``, ``sparse``, ``nnet``).
"""
