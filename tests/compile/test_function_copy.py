"""``Function.copy``: which storage a copy shares with its original (PyTensor's semantics).

A copy reads and updates the original's shared variables, except those swapped
for others; arguments' defaults and state inputs are its own; ``share_memory``
only decides whether the linked code is reused; ``delete_updates`` drops the
updates but still reads the live shared values.
"""

import copy

import numpy as np
import pytest

import theon
import theon.tensor as tt
from theon.compile.io import In

MODES = ["FAST_RUN", "FAST_COMPILE", "REFERENCE"]


def _accumulator(mode):
    """``f(i) = x[i] + y + z + m`` updating z += 1 and m += 2 (y only read)."""
    i = tt.lscalar("i")
    xs = theon.shared(np.arange(10.0), name="xs")
    y = theon.shared(1.0, name="y")
    z = theon.shared(2.0, name="z")
    m = theon.shared(0.0, name="m")
    f = theon.function([i], xs[i] + y + z + m, updates=[(z, z + 1), (m, m + 2)], mode=mode)
    return f, y, z, m


@pytest.mark.parametrize("mode", MODES)
def test_copy_with_swap_still_updates_the_shared_variables_not_swapped(mode):
    f, y, z, m = _accumulator(mode)
    y2, z2 = theon.shared(3.0, name="y2"), theon.shared(4.0, name="z2")
    g = f.copy(swap={y: y2, z: z2})
    assert float(f(1)) == 1 + 1 + 2 + 0
    assert float(g(1)) == 1 + 3 + 4 + 2
    assert float(g(2)) == 2 + 3 + 5 + 4
    assert m.get_value() == 6  # both functions update m: three calls
    assert z.get_value() == 3 and z2.get_value() == 6  # each its own z
    assert y.get_value() == 1 and y2.get_value() == 3  # read only
    assert g[z2] == 6 and g[m] == 6 and f[z] == 3
    with pytest.raises(KeyError):
        g[z]  # the copy's input is z2
    # the original keeps its own storage and still works
    assert float(f(0)) == 0 + 1 + 3 + 6 and z.get_value() == 4 and z2.get_value() == 6


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("share_memory", [False, True])
def test_copy_updates_the_originals_shared_variables(mode, share_memory):
    state = theon.shared(0, name="state")
    inc = tt.lscalar("inc")
    acc = theon.function([inc], state, updates=[(state, state + inc)], mode=mode)
    acc(10)
    twin = acc.copy(share_memory=share_memory)
    assert int(twin(100)) == 10 and state.get_value() == 110
    assert int(acc(1)) == 110 and state.get_value() == 111
    assert (twin._runner is acc._runner) == share_memory


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("share_memory", [False, True])
def test_copy_has_its_own_state_inputs_and_defaults(mode, share_memory):
    x, s, a = tt.dscalar("x"), tt.dscalar("s"), tt.dscalar("a")
    f = theon.function(
        [x, In(a, value=1.0, name="a"), In(s, value=0.0, update=s + a * x, mutable=True)],
        s + a * x, mode=mode,
    )
    g = f.copy(share_memory=share_memory)
    assert g["a"] == f["a"] and g["s"] == f["s"]
    assert float(g(2.0)) == float(f(2.0)) == 2.0  # same starting state
    g["a"] = 5.0
    assert float(g(1.0)) == 2.0 + 5.0 and float(f(1.0)) == 2.0 + 1.0
    assert float(f["s"]) == 3.0 and float(g["s"]) == 7.0 and f["a"] == 1.0


@pytest.mark.parametrize("mode", MODES)
def test_copy_without_updates_reads_the_live_shared_values(mode):
    state = theon.shared(0, name="state")
    inc = tt.lscalar("inc")
    acc = theon.function([inc], state, updates=[(state, state + inc)], mode=mode)
    acc(10)
    null = acc.copy(delete_updates=True)
    assert int(null(9000)) == 10 and state.get_value() == 10
    acc(5)
    assert int(null(9000)) == 15 and state.get_value() == 15
    state.set_value(-1)
    assert int(null(0)) == -1


def test_copy_module_copy_is_function_copy():
    state = theon.shared(0, name="state")
    inc = tt.lscalar("inc")
    acc = theon.function([inc], state, updates=[(state, state + inc)])
    twin = copy.copy(acc)
    assert twin is not acc and twin.maker.fgraph is acc.maker.fgraph  # not recompiled
    twin(3)
    assert state.get_value() == 3
