"""Run one script as N processes of one JAX program, on this machine: ``python -m theon.launch``.

::

    python -m theon.launch -n 2 train.py --lr 0.1     # two processes, ids 0 and 1

The launcher picks a free TCP port on the loopback interface, starts N copies of
the script with the environment variables below set, prefixes each line they print
with ``[i]`` (their process id), and waits.  When a process exits with an error, the
others are stopped (SIGTERM, then SIGKILL) and the launcher exits with that
process's status; with ``--timeout`` it stops them all after that many seconds
(status 124).  Each process starts in a session of its own, so stopping it stops
its children too.

In the script, :func:`initialize` reads those variables and calls
``jax.distributed.initialize``; without them (a plain ``python train.py``) it does
nothing and the script runs as one process.  On a cluster, set the same three
variables from the scheduler (``docs/scale.md``), or call
``jax.distributed.initialize`` yourself:

``THEON_COORDINATOR_ADDRESS``
    ``host:port`` of process 0, reachable from every process;
``THEON_NUM_PROCESSES``
    how many processes take part;
``THEON_PROCESS_ID``
    this process's id, ``0 .. THEON_NUM_PROCESSES - 1``.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from typing import IO, Any

__all__ = ["ENV_ADDRESS", "ENV_NUM_PROCESSES", "ENV_PROCESS_ID", "initialize", "launch", "main"]

ENV_ADDRESS = "THEON_COORDINATOR_ADDRESS"
ENV_NUM_PROCESSES = "THEON_NUM_PROCESSES"
ENV_PROCESS_ID = "THEON_PROCESS_ID"

#: seconds a stopped process gets between SIGTERM and SIGKILL
_GRACE = 3.0


def _env_int(name: str) -> int:
    raw = os.environ[name]
    try:
        return int(raw)
    except ValueError:
        raise ValueError(f"{name}={raw!r} is not an integer") from None


def initialize(coordinator_address: str | None = None, num_processes: int | None = None,
               process_id: int | None = None, *, heartbeat_timeout_s: int = 10,
               initialization_timeout_s: int = 60, shutdown_timeout_s: int = 300) -> int:
    """Join this process to a multi-process JAX program (``jax.distributed.initialize``).

    The arguments default to the environment variables ``THEON_COORDINATOR_ADDRESS``,
    ``THEON_NUM_PROCESSES`` and ``THEON_PROCESS_ID`` (set by ``python -m theon.launch``
    or by you from a cluster's scheduler).  When none is given and the variables are
    unset, nothing is done: the program runs as one process.

    On the CPU (``JAX_PLATFORMS=cpu`` or no accelerator), cross-process collectives
    need an implementation: gloo is selected (``jax_cpu_collectives_implementation``).

    Parameters
    ----------
    heartbeat_timeout_s
        After how many seconds without a heartbeat jax's coordination service
        declares a process dead, and the others fail instead of waiting.
    initialization_timeout_s
        How long to wait for every process to join.
    shutdown_timeout_s
        How long a process that has finished waits at exit for the others to finish
        (jax's shutdown barrier; jax's default).

    Returns
    -------
    int
        This process's id (0 when running alone).

    Examples
    --------
    >>> import os
    >>> os.environ.get("THEON_NUM_PROCESSES") is None or initialize() >= 0
    True
    """
    if coordinator_address is None and ENV_ADDRESS in os.environ:
        coordinator_address = os.environ[ENV_ADDRESS]
    if num_processes is None and ENV_NUM_PROCESSES in os.environ:
        num_processes = _env_int(ENV_NUM_PROCESSES)
    if process_id is None and ENV_PROCESS_ID in os.environ:
        process_id = _env_int(ENV_PROCESS_ID)
    given = (coordinator_address, num_processes, process_id)
    if all(v is None for v in given):
        return 0
    if any(v is None for v in given):
        raise ValueError(
            "theon.launch.initialize: the coordinator address, the process count and the "
            f"process id go together; got address={coordinator_address!r}, "
            f"num_processes={num_processes!r}, process_id={process_id!r} (set "
            f"{ENV_ADDRESS}, {ENV_NUM_PROCESSES} and {ENV_PROCESS_ID})"
        )
    assert num_processes is not None and process_id is not None
    if not 0 <= process_id < num_processes:
        raise ValueError(f"theon.launch.initialize: process id {process_id} is not in "
                         f"0..{num_processes - 1}")
    import jax

    platforms = os.environ.get("JAX_PLATFORMS", "") or str(jax.config.jax_platforms or "")
    if platforms in ("", "cpu") or platforms.startswith("cpu"):
        # without it, XLA's CPU client cannot run a collective across processes
        jax.config.update("jax_cpu_collectives_implementation", "gloo")
    jax.distributed.initialize(
        coordinator_address=coordinator_address, num_processes=num_processes,
        process_id=process_id, initialization_timeout=initialization_timeout_s,
        heartbeat_timeout_seconds=heartbeat_timeout_s,
        shutdown_timeout_seconds=shutdown_timeout_s,
    )
    return process_id


def free_port() -> int:
    """A TCP port on 127.0.0.1 free at the time of the call."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _forward(stream: IO[str], prefix: str, out: IO[str], lock: threading.Lock) -> None:
    for line in iter(stream.readline, ""):
        with lock:
            out.write(prefix + line if line.endswith("\n") else prefix + line + "\n")
            out.flush()
    stream.close()


def _die_with_launcher() -> None:
    """In a child, before it runs the script: on Linux, ask the kernel to kill it when
    the launcher dies (``PR_SET_PDEATHSIG``), so a launcher killed by SIGKILL leaves no
    process behind."""
    if sys.platform.startswith("linux"):
        import ctypes

        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # 1: PR_SET_PDEATHSIG


def _stop(procs: Sequence[subprocess.Popen[str]]) -> None:
    """SIGTERM to each running process's session, then SIGKILL after a grace period."""
    for p in procs:
        if p.poll() is None:
            try:
                os.killpg(p.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
    end = time.monotonic() + _GRACE
    for p in procs:
        try:
            p.wait(max(0.0, end - time.monotonic()))
        except subprocess.TimeoutExpired:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.wait()


def launch(argv: Sequence[str], n: int, timeout: float | None = None,
           port: int | None = None, env: dict[str, str] | None = None,
           stdout: IO[str] | None = None, stderr: IO[str] | None = None) -> int:
    """Run ``argv`` (a command: ``[sys.executable, "script.py", ...]``) as ``n`` processes
    of one distributed program on loopback; the exit status (0 when all succeed, else
    that of the first process to fail; 124 after ``timeout`` seconds)."""
    if n < 1:
        raise ValueError(f"theon.launch: -n must be at least 1, got {n}")
    out = stdout if stdout is not None else sys.stdout
    err = stderr if stderr is not None else sys.stderr
    base = dict(os.environ if env is None else env)
    base[ENV_ADDRESS] = f"127.0.0.1:{port if port is not None else free_port()}"
    base[ENV_NUM_PROCESSES] = str(n)
    base.setdefault("PYTHONUNBUFFERED", "1")
    lock = threading.Lock()
    procs: list[subprocess.Popen[str]] = []
    threads: list[threading.Thread] = []
    rc = 0
    try:
        for i in range(n):
            penv = dict(base)
            penv[ENV_PROCESS_ID] = str(i)
            p = subprocess.Popen(list(argv), env=penv, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True, start_new_session=True,
                                 preexec_fn=_die_with_launcher)
            procs.append(p)
            for stream, dest in ((p.stdout, out), (p.stderr, err)):
                assert stream is not None
                t = threading.Thread(target=_forward, args=(stream, f"[{i}] ", dest, lock),
                                     daemon=True)
                t.start()
                threads.append(t)
        deadline = None if timeout is None else time.monotonic() + timeout
        running = set(range(n))
        while running:
            for i in sorted(running):
                code = procs[i].poll()
                if code is None:
                    continue
                running.discard(i)
                if code != 0:
                    rc = code if code > 0 else 128 - code
                    with lock:
                        err.write(f"theon.launch: process {i} exited with status {code}; "
                                  f"stopping the other {len(running)}\n")
                    running.clear()
                    break
            if running and deadline is not None and time.monotonic() > deadline:
                with lock:
                    err.write(f"theon.launch: timed out after {timeout:g} s; stopping "
                              f"processes {sorted(running)}\n")
                rc = 124
                break
            if running:
                time.sleep(0.05)
    finally:
        _stop(procs)
        for t in threads:
            t.join(timeout=_GRACE)
    return rc


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="python -m theon.launch",
        description="Run a Python script as N processes of one jax.distributed program "
                    "on this machine (loopback).")
    ap.add_argument("-n", "--num-processes", type=int, required=True,
                    help="how many processes to start")
    ap.add_argument("--timeout", type=float, default=None,
                    help="stop every process after this many seconds (exit status 124)")
    ap.add_argument("--port", type=int, default=None,
                    help="the coordinator's port on 127.0.0.1 (default: a free one)")
    ap.add_argument("script", help="the Python script to run")
    ap.add_argument("args", nargs=argparse.REMAINDER, help="its arguments")
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: ``python -m theon.launch -n N [--timeout S] script.py [args]``."""
    ns: Any = _parser().parse_args(argv)

    def _terminated(signum: int, frame: Any) -> None:
        raise SystemExit(128 + signum)  # so that launch() stops the processes on its way out

    signal.signal(signal.SIGTERM, _terminated)
    return launch([sys.executable, ns.script, *ns.args], ns.num_processes,
                  timeout=ns.timeout, port=ns.port)


if __name__ == "__main__":
    sys.exit(main())
