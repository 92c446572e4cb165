"""gc_paused: the collector is held back only while a compile runs, and restored after.

Python's thresholds belong to the whole process; these tests check that a compile
leaves them (and ``gc.isenabled()``) as it found them: when it raises, when it runs
in another thread, when compiles overlap, and when someone changes them meanwhile.
"""

from __future__ import annotations

import gc
import threading

import pytest

import theon
import theon.tensor as tt
from theon.compile.mode import Mode
from theon.graph.collector import PAUSED_GEN0, gc_paused


@pytest.fixture
def gc_state():
    """Known thresholds for the test; the process's own restored afterwards."""
    was, before = gc.isenabled(), gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    try:
        yield
    finally:
        (gc.enable if was else gc.disable)()
        gc.set_threshold(*before)


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
    assert gc.isenabled() is enabled and gc.get_threshold() == (700, 10, 10)
    with pytest.raises(TypeError):
        theon.grad(tt.dvector("v"), x)  # a non-scalar cost: grad raises
    assert gc.isenabled() is enabled and gc.get_threshold() == (700, 10, 10)


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
    assert gc.isenabled() and gc.get_threshold() == (700, 10, 10)


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
    assert gc.get_threshold() == (700, 10, 10)


def test_a_threshold_set_during_the_pause_is_kept(gc_state):
    with gc_paused():
        assert gc.get_threshold() == (PAUSED_GEN0, 10, 10)
        gc.set_threshold(2000, 20, 20)  # e.g. another thread tuning the collector
    assert gc.get_threshold() == (2000, 20, 20)
    with gc_paused():
        pass
    assert gc.get_threshold() == (2000, 20, 20)
