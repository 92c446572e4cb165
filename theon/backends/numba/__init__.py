"""numba spellings of theon's Ops for the whole-graph tier (:mod:`theon.link.tier1.nbgraph`),
registered for the ``"numba"`` linker backend by the layers that define the Ops."""
