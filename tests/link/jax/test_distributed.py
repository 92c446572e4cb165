"""A sharded mode="JAX" function run by 2 local processes of one ``jax.distributed`` program
(``python -m theon.launch -n 2``, loopback only, CPU devices with gloo collectives).

Each process passes its own rows of the batch; the results are checked against the
reference VM on the whole batch, in each process.  Every wait has a timeout, and the
launcher stops the processes when one fails or the time is up.  The launcher's own
behaviour (output prefixes, a failing process stops the others, the time bound) is
tested with plain Python scripts, without jax.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]

#: the bound on one 2-process run (the launcher's --timeout; pytest's wait is longer)
BOUND_S = 150


def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["JAX_PLATFORMS"] = "cpu"
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra)
    return env


def _launch(script: Path, n: int = 2, bound: float = BOUND_S,
            **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "theon.launch", "-n", str(n), "--timeout", str(bound),
         str(script)],
        env=_env(**env), capture_output=True, text=True, timeout=bound + 30, cwd=ROOT)


# -- the launcher (no jax needed) -------------------------------------------------------------
def test_launcher_prefixes_output_and_sets_the_process_variables(tmp_path: Path) -> None:
    script = tmp_path / "hello.py"
    script.write_text(textwrap.dedent("""
        import os, sys
        print("id", os.environ["THEON_PROCESS_ID"], "of", os.environ["THEON_NUM_PROCESSES"],
              "at", os.environ["THEON_COORDINATOR_ADDRESS"])
        print("to stderr", file=sys.stderr)
    """))
    res = _launch(script, n=3, bound=60)
    assert res.returncode == 0, res.stderr
    lines = sorted(res.stdout.splitlines())
    assert [ln.split()[:5] for ln in lines] == [
        [f"[{i}]", "id", str(i), "of", "3"] for i in range(3)]
    assert all(" at 127.0.0.1:" in ln for ln in lines)
    assert sorted(res.stderr.splitlines()) == [f"[{i}] to stderr" for i in range(3)]


def test_launcher_fails_when_one_process_fails_and_stops_the_others(tmp_path: Path) -> None:
    script = tmp_path / "one_fails.py"
    script.write_text(textwrap.dedent("""
        import os, sys, time
        if os.environ["THEON_PROCESS_ID"] == "1":
            sys.exit(3)
        print("waiting", flush=True)
        time.sleep(120)
        print("not stopped")
    """))
    t0 = time.monotonic()
    res = _launch(script, bound=60)
    assert time.monotonic() - t0 < 40
    assert res.returncode == 3
    assert "process 1 exited with status 3; stopping the other 1" in res.stderr
    assert "not stopped" not in res.stdout


def test_launcher_stops_everything_after_its_timeout(tmp_path: Path) -> None:
    script = tmp_path / "hangs.py"
    script.write_text("import time\ntime.sleep(120)\n")
    res = _launch(script, bound=2)
    assert res.returncode == 124
    assert "timed out after 2 s" in res.stderr


def test_initialize_without_the_variables_is_one_process(monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    import theon.launch

    for name in (theon.launch.ENV_ADDRESS, theon.launch.ENV_NUM_PROCESSES,
                 theon.launch.ENV_PROCESS_ID):
        monkeypatch.delenv(name, raising=False)
    assert theon.launch.initialize() == 0
    monkeypatch.setenv(theon.launch.ENV_NUM_PROCESSES, "2")
    with pytest.raises(ValueError, match="go together"):
        theon.launch.initialize()
    monkeypatch.setenv(theon.launch.ENV_ADDRESS, "127.0.0.1:1")
    monkeypatch.setenv(theon.launch.ENV_PROCESS_ID, "2")
    with pytest.raises(ValueError, match="process id 2 is not in 0..1"):
        theon.launch.initialize()


# -- theon functions over 2 processes ------------------------------------------------------
WORKER = textwrap.dedent("""
    import hashlib
    import numpy as np
    import theon.launch

    pid = theon.launch.initialize()
    import jax
    import theon
    import theon.tensor as T
    from jax.sharding import PartitionSpec as P

    assert jax.process_count() == 2 and len(jax.devices()) == 4, jax.devices()
    VM = theon.Mode(linker="vm")
    rng = np.random.default_rng(0)
    W1 = theon.shared(0.1 * rng.normal(size=(8, 16)), name="W1")
    W2 = theon.shared(0.1 * rng.normal(size=(16, 3)), name="W2")
    X, Y = T.dmatrix("X"), T.dmatrix("Y")
    prob = T.special.softmax(T.dot(T.tanh(T.dot(X, W1)), W2), axis=-1)
    per_example = -T.sum(Y * T.log(prob), axis=1)
    loss = per_example.mean()
    outs = [per_example, loss, *theon.grad(loss, [W1, W2])]
    Xv = rng.normal(size=(64, 8))
    Yv = np.eye(3)[rng.integers(0, 3, 64)]
    mine = slice(32 * pid, 32 * (pid + 1))           # this process's rows

    # values and gradients: equal the single-process function on the whole batch
    spec = {X: P("batch"), Y: P("batch")}
    f = theon.function([X, Y], outs, mode="JAX", sharding=spec)
    want = theon.function([X, Y], outs, mode=VM)(Xv, Yv)
    got = f(Xv[mine], Yv[mine])
    np.testing.assert_allclose(got[0], want[0][mine], rtol=1e-12, atol=1e-15)
    for g, w in zip(got[1:], want[1:]):
        assert g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-15)
    rep = f.sharding_report()
    assert rep.n_processes == 2 and rep.mesh == {"batch": 4}, rep
    assert rep.inputs[0].shape == (64, 8) and not rep.inputs[0].replicated
    assert rep.outputs[0].devices["cpu:0 (process 0)"] == "[0:16]", str(rep)
    assert all(o.replicated for o in rep.outputs[1:]), str(rep)
    print("VALUES-OK", flush=True)

    # 20 SGD steps: the shared weights stay equal in both processes and equal one process's
    def sgd(**kw):
        W = theon.shared(0.1 * np.random.default_rng(3).normal(size=(8, 3)), name="W")
        p = T.special.softmax(T.tanh(T.dot(X, W)), axis=-1)
        cost = -T.mean(T.sum(Y * T.log(p), axis=1))
        return theon.function([X, Y], cost, updates=[(W, W - 0.5 * theon.grad(cost, W))],
                              **kw), W
    (step, W), (ref_step, W_ref) = sgd(mode="JAX", sharding=spec), sgd(mode=VM)
    for k in range(20):
        c, c_ref = float(step(Xv[mine], Yv[mine])), float(ref_step(Xv, Yv))
        assert abs(c - c_ref) <= 1e-12 * abs(c_ref), (k, c, c_ref)
        digest = hashlib.sha256(W.get_value().tobytes()).hexdigest()[:16]
        print(f"STEP {k} {digest}", flush=True)
    np.testing.assert_allclose(W.get_value(), W_ref.get_value(), rtol=1e-12, atol=1e-15)
    print("SYNC-OK", flush=True)

    # errors: local rows of different lengths; a global batch the mesh cannot split
    try:
        f(Xv[mine][: 32 - pid], Yv[mine][: 32 - pid])
    except ValueError as e:
        assert "different shapes for the sharded input 'X'" in str(e), e
        assert "process 0: (32, 8), process 1: (31, 8)" in str(e), e
        print("UNEVEN-OK", flush=True)
    try:
        f(Xv[:3], Yv[:3])
    except ValueError as e:
        assert "input 'X' has length 6 on axis 0" in str(e), e
        assert "mesh axis 'batch' of size 4" in str(e), e
        print("INDIVISIBLE-OK", flush=True)
    got = f(Xv[mine], Yv[mine])          # and the function still works afterwards
    np.testing.assert_allclose(got[1], want[1], rtol=1e-12)
    print("AFTER-OK", flush=True)
""")


def test_two_processes_values_gradients_sync_and_errors(tmp_path: Path) -> None:
    pytest.importorskip("jax", reason="the multi-process tests need jax (pip install 'theon[jax]')")
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    # two CPU devices in each process: a mesh of 4 devices over 2 processes
    res = _launch(script, XLA_FLAGS="--xla_force_host_platform_device_count=2")
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-5000:]
    out = res.stdout.splitlines()
    for pid in (0, 1):
        for mark in ("VALUES-OK", "SYNC-OK", "UNEVEN-OK", "INDIVISIBLE-OK", "AFTER-OK"):
            assert f"[{pid}] {mark}" in out, (pid, mark, res.stdout[-3000:])
    steps = [[ln.split()[-1] for ln in out if ln.startswith(f"[{pid}] STEP ")]
             for pid in (0, 1)]
    assert len(steps[0]) == 20 and steps[0] == steps[1]   # bit for bit, at every step
    assert len(set(steps[0])) == 20                       # and the weights did move


DIES = textwrap.dedent("""
    import os, time
    import numpy as np
    import theon.launch

    pid = theon.launch.initialize(heartbeat_timeout_s=3)
    import theon
    import theon.tensor as T
    from jax.sharding import PartitionSpec as P

    W = theon.shared(np.ones((4, 2)), name="W")
    X = T.dmatrix("X")
    cost = T.dot(X, W).sum()
    f = theon.function([X], cost, updates=[(W, W - 0.01 * theon.grad(cost, W))],
                       mode="JAX", sharding={X: P("batch")})
    f(np.ones((3, 4)))
    print("FIRST-STEP", flush=True)
    if pid == 1:
        os._exit(7)                                  # dies without a word
    for _ in range(100000):
        f(np.ones((3, 4)))
        time.sleep(0.001)
    print("NEVER-FAILED", flush=True)
""")


def test_a_process_that_dies_makes_the_other_fail_within_the_bound(tmp_path: Path) -> None:
    pytest.importorskip("jax", reason="the multi-process tests need jax (pip install 'theon[jax]')")
    import theon.launch

    script = tmp_path / "dies.py"
    script.write_text(DIES)
    # no launcher (it would stop the survivor itself): two processes, as on a cluster
    env = _env(THEON_COORDINATOR_ADDRESS=f"127.0.0.1:{theon.launch.free_port()}",
               THEON_NUM_PROCESSES="2")
    procs = []
    try:
        for pid in (0, 1):
            procs.append(subprocess.Popen(
                [sys.executable, str(script)], env={**env, "THEON_PROCESS_ID": str(pid)},
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                start_new_session=True, cwd=ROOT))
        t0 = time.monotonic()
        out0, err0 = procs[0].communicate(timeout=120)
        waited = time.monotonic() - t0
        procs[1].communicate(timeout=30)
    finally:
        for p in procs:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait(10)
    assert procs[1].returncode == 7
    assert "FIRST-STEP" in out0 and "NEVER-FAILED" not in out0
    assert procs[0].returncode != 0
    # jax's coordination service names the dead process (heartbeat timeout), or the
    # collective fails first and theon's note says why
    assert ("another task died" in err0 or "heartbeat" in err0
            or "another process has probably stopped" in err0), err0[-3000:]
    assert waited < 100


@pytest.mark.skipif(not sys.platform.startswith("linux"),
                    reason="the launcher's children die with it on Linux (PR_SET_PDEATHSIG)")
def test_killing_the_launcher_leaves_no_process(tmp_path: Path) -> None:
    script = tmp_path / "sleeps.py"
    script.write_text("import os, time\nprint(os.getpid(), flush=True)\ntime.sleep(120)\n")
    launcher = subprocess.Popen(
        [sys.executable, "-m", "theon.launch", "-n", "2", "--timeout", "60", str(script)],
        env=_env(), stdout=subprocess.PIPE, text=True, cwd=ROOT)
    pids: list[int] = []
    try:
        assert launcher.stdout is not None
        pids = [int(launcher.stdout.readline().split()[1]) for _ in range(2)]
        launcher.kill()                                   # SIGKILL: no clean-up of its own
        launcher.wait(10)
        deadline = time.monotonic() + 10
        alive = pids
        while alive and time.monotonic() < deadline:
            time.sleep(0.1)
            alive = [p for p in pids if _running(p)]
        assert not alive, f"processes {alive} outlived the launcher"
    finally:
        if launcher.poll() is None:
            launcher.kill()
        for p in pids:
            if _running(p):
                os.kill(p, signal.SIGKILL)


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


def test_the_example_trains_the_same_in_two_processes_as_in_one() -> None:
    pytest.importorskip("jax", reason="the multi-process tests need jax (pip install 'theon[jax]')")
    res = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "distributed_mlp.py"), "--compare",
         "--steps", "5", "--timeout", str(BOUND_S)],
        env=_env(), capture_output=True, text=True, timeout=BOUND_S + 30, cwd=ROOT)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    line = next(ln for ln in res.stdout.splitlines() if ln.startswith("max difference: "))
    assert float(line.split()[-1]) <= 1e-10
