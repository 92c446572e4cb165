"""The py linker's emitters (``py_emit`` rules) for theon's scalar and tensor Ops.

``theon.scalar`` and ``theon.tensor`` register :mod:`.scalar` and :mod:`.tensor`
with ``register_linker_backend("py", ...)``; the py linker imports them before its
first link. :mod:`.fused` runs fused elementwise nodes as blocked kernels.
"""
