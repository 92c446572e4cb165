"""gc_paused: the collector is held back while theon works, and restored after.

Python's thresholds belong to the whole process; these tests check that a compile
leaves them (and ``gc.isenabled()``) as it found them once the collector next runs
(the pause lingers until then, so that consecutive calls share it): when it
raises, when it runs in another thread, when compiles overlap, and when someone
changes them meanwhile.
"""

from __future__ import annotations

import gc
import threading

import pytest

import theon
import theon.tensor as tt
from theon.compile.mode import Mode
from theon.graph.collector import LINGER_GEN0, PAUSED_GEN0, gc_paused, gc_resume


@pytest.fixture
def gc_state():
    """Known thresholds for the test; the process's own restored afterwards."""
    was, before = gc.isenabled(), gc.get_threshold()
    gc_resume()
    gc.set_threshold(700, 10, 10)
    try:
        yield
    finally:
        gc_resume()
        (gc.enable if was else gc.disable)()
        gc.set_threshold(*before)


def _lingers_then_restored() -> bool:
    """The thresholds are the lingering pause's, still after one run of the collector
    (theon was at work since the run before), and the next run restores them."""
    lingering = gc.get_threshold() == (LINGER_GEN0, 10, 10)
    gc.collect(0)
    lingering = lingering and gc.get_threshold() == (LINGER_GEN0, 10, 10)
    gc.collect(0)
    return lingering and gc.get_threshold() == (700, 10, 10)


def _failing_mode() -> Mode:
    def optimizer(fgraph):
        raise RuntimeError("rewrite failed")

    return Mode(linker="py", optimizer=optimizer)


@pytest.mark.parametrize("enabled", [True, False])
def test_restored_after_a_compile_that_raises(gc_state, enabled):
    (gc.enable if enabled else gc.disable)()
    x = tt.dscalar("x")
    with pytest.raises(RuntimeError, match="rewrite failed"):
        theon.function([x], x + 1, mode=_failing_mode())
    assert gc.isenabled() is enabled and _lingers_then_restored()
    with pytest.raises(TypeError):
        theon.grad(tt.dvector("v"), x)  # a non-scalar cost: grad raises
    assert gc.isenabled() is enabled and _lingers_then_restored()


def test_restored_after_compiles_in_another_thread(gc_state):
    errors: list[BaseException] = []

    def work():
        x = tt.dscalar("x")
        try:
            assert theon.function([x], x + 1)(1.0) == 2.0
            theon.function([x], x * 2, mode=_failing_mode())
        except RuntimeError as e:
            errors.append(e)

    t = threading.Thread(target=work)
    t.start()
    t.join()
    assert [str(e) for e in errors] == ["rewrite failed"]
    assert gc.isenabled() and _lingers_then_restored()


def test_overlapping_pauses_restore_when_the_last_ends(gc_state):
    inside, release = threading.Event(), threading.Event()

    def hold():
        with gc_paused():
            inside.set()
            release.wait(10)

    t = threading.Thread(target=hold)
    t.start()
    inside.wait(10)
    try:
        x = tt.dscalar("x")
        theon.function([x], x + 1)  # starts and ends while the other thread holds
        assert gc.get_threshold() == (PAUSED_GEN0, 10, 10)
    finally:
        release.set()
        t.join()
    assert _lingers_then_restored()


def test_a_threshold_set_during_the_pause_is_kept(gc_state):
    with gc_paused():
        assert gc.get_threshold() == (PAUSED_GEN0, 10, 10)
        gc.set_threshold(2000, 20, 20)  # e.g. another thread tuning the collector
    assert gc.get_threshold() == (2000, 20, 20)
    with gc_paused():
        pass
    assert gc.get_threshold() == (LINGER_GEN0, 20, 20)
    gc.set_threshold(3000, 30, 30)  # set while the pause lingers: kept, and saved next time
    gc.collect(0)
    assert gc.get_threshold() == (3000, 30, 30)
    with gc_paused():
        assert gc.get_threshold() == (PAUSED_GEN0, 30, 30)
    gc_resume()
    assert gc.get_threshold() == (3000, 30, 30)


def test_consecutive_pauses_share_one_until_the_collector_runs(gc_state):
    """The pause lingers between blocks (one saved setting), and the collector's own
    runs, not only an explicit ``gc.collect()``, end it: the second with no block
    begun since the first."""
    for _ in range(3):
        with gc_paused():
            assert gc.get_threshold() == (PAUSED_GEN0, 10, 10)
        assert gc.get_threshold() == (LINGER_GEN0, 10, 10)
    runs = []

    def seen(phase, info):
        runs.append(phase)

    gc.callbacks.append(seen)
    try:
        kept = [[] for _ in range(3 * LINGER_GEN0)]  # containers: the collector runs
    finally:
        gc.callbacks.remove(seen)
    assert len(kept) == 3 * LINGER_GEN0 and runs.count("start") >= 2
    assert gc.get_threshold() == (700, 10, 10)
    with gc_paused():
        pass
    gc_resume()  # at once, without a collection
    assert gc.get_threshold() == (700, 10, 10)


def test_building_graphs_shares_the_pause(gc_state):
    """FunctionGraph and rewrite_graph hold the collector back too (PyMC calls them once
    per random variable, between calls of its own)."""
    from theon.graph.fg import FunctionGraph
    from theon.rewriting import rewrite_graph

    seen = []

    class Spy:
        def on_attach(self, fgraph):
            seen.append(gc.get_threshold())

    x = tt.dscalar("x")
    FunctionGraph([x], [x * 2], features=[Spy()])
    assert seen == [(PAUSED_GEN0, 10, 10)] and _lingers_then_restored()
    assert rewrite_graph(x * 1) is x
    assert _lingers_then_restored()
