"""Shared helpers of the whole-graph tier's tests (test_nbgraph*.py)."""

from __future__ import annotations

import warnings

import theon
from theon.link import tier1


def compiled(ins, outs, args, cache, mode=None):
    """``theon.function(ins, outs, mode=mode)`` after its whole-graph tier is compiled and
    verified on ``args`` (the test fails if it is not), with the tier-1 cache in
    ``cache`` and no timing (the tier is kept even where it is not faster)."""
    with theon.config.change_flags(tier1_graph_calls=1, tier1_autotune=False,
                                   cache_dir=cache, tier=1), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        f = theon.function(ins, outs, mode=mode)
        slot = f._runner.slot
        f(*args)  # (tier 0; the compile is asked for)
        assert tier1.wait(300)
        f(*args)  # (checked against tier 0)
    assert slot.state == "ready", (slot, slot.error)
    return f
