"""Compiled functions called from several threads at once; a call with updates is atomic.

(That a call which raises changes nothing is in test_atomic_updates.py.)

The threads start together at a barrier and call many times; the interpreter
switches threads as often as it can meanwhile.  Assertions are on values only.
"""

import sys
import threading

import numpy as np
import pytest

import theon
import theon.tensor as tt
from theon.config import change_flags

MODES = ["FAST_RUN", "FAST_COMPILE", "REFERENCE"]
THREADS = 4


@pytest.fixture(autouse=True)
def frequent_thread_switches():
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(old)


def run_threads(work, n=THREADS):
    """Run ``work(t)`` in ``n`` threads started together; their results, errors re-raised."""
    barrier = threading.Barrier(n)
    results = [None] * n
    errors = []

    def target(t):
        try:
            barrier.wait()
            results[t] = work(t)
        except BaseException as e:  # re-raised in the calling thread
            errors.append(e)

    threads = [threading.Thread(target=target, args=(t,)) for t in range(n)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    if errors:
        raise errors[0]
    return results


@pytest.mark.parametrize("mode", MODES)
def test_concurrent_calls_lose_no_updates(mode):
    calls = 1000
    state = theon.shared(np.int64(0), name="state")
    vec = theon.shared(np.zeros(50), name="vec")
    inc = tt.lscalar("inc")
    f = theon.function([inc], state, updates=[(state, state + inc), (vec, vec + 1.0)], mode=mode)
    seen = run_threads(lambda t: [int(f(1)) for _ in range(calls)])
    total = THREADS * calls
    assert state.get_value() == total
    assert vec.get_value().tolist() == [float(total)] * 50
    # each call read the value the previous one stored: all old values are distinct
    assert sorted(v for s in seen for v in s) == list(range(total))


@pytest.mark.parametrize("mode", MODES)
def test_copies_updating_one_shared_variable_lose_no_updates(mode):
    calls = 1000
    state = theon.shared(np.int64(0), name="state")
    f = theon.function([], state, updates=[(state, state + 1)], mode=mode)
    fns = [f, f.copy(), f.copy(share_memory=True), f.copy(delete_updates=True)]
    run_threads(lambda t: [fns[t]() for _ in range(calls)])
    assert state.get_value() == 3 * calls  # the copy without updates adds nothing


@pytest.mark.parametrize("mode", MODES)
def test_concurrent_calls_without_updates_get_their_own_results(mode):
    x = tt.dvector("x")
    f = theon.function([x], [tt.exp(x).sum() * 2 + x.mean(), (x * 3)[1:], x.shape[0]],
                       mode=mode)
    args = [np.full(5 + k, float(k)) for k in range(THREADS)]

    def work(t):
        bad = 0
        for _ in range(200):
            a = args[t]
            s, tail, n = f(a)
            ok = (np.isclose(s, np.exp(a).sum() * 2 + a.mean()) and n == len(a)
                  and np.array_equal(tail, a[1:] * 3))
            bad += not ok
        return bad

    assert run_threads(work) == [0] * THREADS


def test_concurrent_calls_of_threaded_block_kernels():
    """Fused kernels that split each call over the shared worker pool, from 4 threads."""
    x, y = tt.dvector("x"), tt.dvector("y")
    with change_flags(elemwise_block=64, elemwise_parallel_threshold=100, elemwise_threads=2):
        f = theon.function([x, y], [tt.exp(-x * x) * tt.sin(y) + tt.log1p(x * x), x * y + 1])
    rng = np.random.default_rng(5)
    args = [(rng.normal(size=3000 + k), rng.normal(size=3000 + k)) for k in range(THREADS)]
    want = [[np.exp(-a * a) * np.sin(b) + np.log1p(a * a), a * b + 1] for a, b in args]

    def work(t):
        return sum(not all(np.allclose(g, w, rtol=1e-14) for g, w in zip(f(*args[t]), want[t]))
                   for _ in range(50))

    assert run_threads(work) == [0] * THREADS


def test_default_linker_calls_take_no_lock():
    """A function without updates from the default linker runs concurrently, unlocked."""
    x = tt.dscalar("x")
    s = theon.shared(1.0, name="s")
    f = theon.function([x], x * s + 1)
    assert "_acq" not in f._call_source
    g = theon.function([x], x, updates=[(s, s + x)])
    assert "_acq0()" in g._call_source


@pytest.mark.parametrize("mode", MODES)
def test_readers_never_see_a_half_written_update(mode):
    n = 200_000
    w = theon.shared(np.zeros(n), name="w")
    step = theon.function([], [], updates=[(w, w + 1.0)], mode=mode)
    read = theon.function([], [w.min(), w.max()], mode=mode)

    def work(t):
        if t == 0:
            for _ in range(60):
                step()
            return []
        return [tuple(map(float, read())) for _ in range(60)]

    torn = [mm for r in run_threads(work, 3) for mm in r if mm[0] != mm[1]]
    assert not torn
    assert w.get_value().min() == w.get_value().max() == 60.0


def test_set_value_waits_for_a_call_that_updates_the_variable():
    s = theon.shared(np.int64(0), name="s")
    f = theon.function([], s, updates=[(s, s + 1)])
    c = s.container
    assert c.lock.acquire(blocking=False)  # as a call in progress would
    done = threading.Event()

    def setter():
        s.set_value(100)
        done.set()

    th = threading.Thread(target=setter)
    th.start()
    assert not done.wait(0.05) and s.get_value() == 0
    c.lock.release()
    th.join()
    assert s.get_value() == 100 and int(f()) == 100 and s.get_value() == 101
