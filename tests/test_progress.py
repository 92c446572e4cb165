"""Progress on long work (``theon.progress``): compiling, ``grad`` and a JAX first call
show their phases, nodes done of the total and the elapsed time on stderr once the
work has run ``config.progress_delay`` seconds; here the delay is 0, so the display
shows at once.  With ``config.progress=False`` nothing is ever printed."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import theon
import theon.progress as progress
import theon.tensor as tt
from theon.config import change_flags

#: the rewrite phases of FAST_RUN, then inner graphs and linking
PHASES = ("graph", "merge1", "canonicalize", "stabilize", "specialize", "fusion", "inplace",
          "merge2", "inner graphs", "link")


def _cost(n: int = 30):
    xs = [tt.dscalar(f"x{i}") for i in range(n)]
    cost = sum((x * xs[i - 1]) ** 2 for i, x in enumerate(xs))
    cost.name = "cost"
    return xs, cost


def _plain(monkeypatch: pytest.MonkeyPatch) -> None:
    """Draw plain lines (as without tqdm installed)."""
    monkeypatch.setattr(progress, "_load_tqdm", lambda: None)
    monkeypatch.setattr(progress, "_said_install", False)


def test_compile_and_grad_show_their_phases(monkeypatch, capsys) -> None:
    _plain(monkeypatch)
    xs, cost = _cost()
    with change_flags(progress=True, progress_delay=0):
        grads = theon.grad(cost, xs)
        f = theon.function(xs, grads, name="big")
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert lines[0] == "theon: (pip install tqdm for a live progress display)"
    # one line per phase, in order: "task: phase done/total nodes, elapsed s"
    line = re.compile(r"theon: (.+?): (.+?)(?: (\d+)/(\d+) nodes)?, (\d+\.\d) s")
    parsed = [line.fullmatch(ln) for ln in lines[1:]]
    assert all(parsed), lines
    grad_phases = [m[2] for m in parsed if m[1] == "grad of cost"]
    assert grad_phases[-2:] == ["order", "backprop"]
    backprop = next(m for m in parsed if m[2] == "backprop")
    assert backprop[3] == backprop[4] and int(backprop[4]) >= 3 * len(xs)  # all done
    compiled = [m for m in parsed if m[1] == "compiling big"]
    assert [m[2] for m in compiled] == list(PHASES)
    for m in compiled:
        if m[4] is not None:
            assert m[3] == m[4] and int(m[4]) > 0, m[0]  # each phase ends with all done
    link = compiled[-1]
    assert int(link[4]) == len(f.maker.fgraph.apply_nodes)
    assert "\r" not in err and "\x1b" not in err  # plain lines: no terminal control codes
    # the function works as before
    vals = np.arange(1.0, len(xs) + 1)
    ref = [2 * v * (vals[i - 1] ** 2 + vals[(i + 1) % len(xs)] ** 2)
           for i, v in enumerate(vals)]
    np.testing.assert_allclose(f(*vals), ref)


def test_the_tqdm_display_shows_the_phases(capsys) -> None:
    pytest.importorskip("tqdm", reason="the live display needs tqdm: pip install 'theon[progress]'")
    xs, cost = _cost(10)
    with change_flags(progress=True, progress_delay=0):
        theon.function(xs, cost, name="small")
    err = capsys.readouterr().err
    states = [s.strip() for s in err.replace("\n", "\r").split("\r") if s.strip()]
    for name in PHASES:
        assert any(s.startswith(f"theon: compiling small: {name}") for s in states), name
    assert re.search(r"theon: compiling small: link (\d+)/\1 nodes \[00:\d\d\]", err)


def test_nothing_is_printed_when_progress_is_false(monkeypatch, capsys) -> None:
    xs, cost = _cost()
    with change_flags(progress=False, progress_delay=0):
        f = theon.function(xs, theon.grad(cost, xs))
        with progress.task("work") as t:
            assert t is None and progress.phase("p", 3) is None
    assert f is not None
    assert capsys.readouterr().err == ""
    # 'auto' shows it only when stderr is a terminal
    with change_flags(progress="auto", progress_delay=0):
        theon.function(xs, cost)
        assert capsys.readouterr().err == ""

        class Terminal(io.StringIO):
            def isatty(self) -> bool:
                return True

        term = Terminal()
        _plain(monkeypatch)
        monkeypatch.setattr(sys, "stderr", term)
        theon.function(xs, cost, name="tty")
    assert "theon: compiling tty: canonicalize" in term.getvalue()


def test_short_work_prints_nothing_before_the_delay(capsys) -> None:
    xs, cost = _cost()
    with change_flags(progress=True, progress_delay=3600):
        theon.function(xs, theon.grad(cost, xs))
    assert capsys.readouterr().err == ""


def test_a_long_single_step_is_shown_by_the_monitor(monkeypatch, capsys) -> None:
    """Work that reports nothing for a while (an XLA compile) is shown once it passes
    its delay, by the monitor thread."""
    _plain(monkeypatch)
    shown = threading.Event()
    with change_flags(progress=True):
        with progress.task("waiting", delay=0.01) as t:
            assert t is not None
            progress.phase("one long step")
            for _ in range(600):  # up to 60 s on a loaded machine; usually 0.25 s
                if t._display is not None:
                    shown.set()
                    break
                threading.Event().wait(0.1)
    assert shown.is_set()
    assert "theon: waiting: one long step" in capsys.readouterr().err


def test_a_jax_first_call_shows_its_trace_and_compile(monkeypatch, capsys) -> None:
    pytest.importorskip("jax", reason="mode='JAX' needs jax (pip install 'theon[jax]')")
    _plain(monkeypatch)
    x = tt.dvector("x")
    f = theon.function([x], tt.exp(x).sum() * 2, mode="JAX")
    capsys.readouterr()
    with change_flags(progress=True, progress_delay=0):
        assert f(np.ones(3)) == pytest.approx(6 * np.e)
        assert f(np.ones(4)) == pytest.approx(8 * np.e)  # a new shape: traced again
        f(np.ones(4))  # not a first call: nothing shown
    err = capsys.readouterr().err
    n = len(f.maker.fgraph.apply_nodes)
    trace = f"theon: first call (jax.jit): jax trace {n}/{n} nodes, "
    assert err.count(trace) == 2, err
    assert err.count("theon: first call (jax.jit): XLA compile, ") == 2, err


def test_the_flag_comes_from_theon_flags() -> None:
    script = textwrap.dedent("""
        import theon, theon.tensor as tt
        import theon.progress
        theon.progress._load_tqdm = lambda: None
        x = tt.dvector("x")
        theon.function([x], tt.exp(x).sum(), name="env")
    """)
    env = dict(os.environ, THEON_FLAGS="progress=True,progress_delay=0")
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, timeout=300, check=True)
    assert "theon: compiling env: canonicalize" in done.stderr
    env["THEON_FLAGS"] = "progress=False,progress_delay=0"
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, timeout=300, check=True)
    assert done.stderr == ""


def test_auto_shows_the_display_on_a_terminal() -> None:
    """``progress='auto'`` (the default) with stderr a terminal (here a pseudo-terminal
    of 100 columns): tqdm's line shows the phases."""
    pty = pytest.importorskip("pty", reason="needs a POSIX pseudo-terminal")
    pytest.importorskip("tqdm", reason="the live display needs tqdm: pip install 'theon[progress]'")
    import fcntl
    import select
    import struct
    import termios

    script = textwrap.dedent("""
        import theon, theon.tensor as tt
        x = tt.dvector("x")
        theon.function([x], tt.exp(x).sum(), name="tty")
    """)
    main, sub = pty.openpty()
    fcntl.ioctl(sub, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    env = dict(os.environ, THEON_FLAGS="progress=auto,progress_delay=0")
    proc = subprocess.Popen([sys.executable, "-c", script], stdin=sub, stdout=sub,
                            stderr=sub, env=env)
    os.close(sub)
    out = b""
    try:
        while True:
            ready, _, _ = select.select([main], [], [], 300)
            if not ready:
                break
            try:
                chunk = os.read(main, 4096)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            out += chunk
    finally:
        os.close(main)
        assert proc.wait(timeout=300) == 0
    text = out.decode(errors="replace")
    states = {s.strip() for s in text.replace("\n", "\r").split("\r")}
    assert any(s.startswith("theon: compiling tty: canonicalize") for s in states), text
    assert re.search(r"theon: compiling tty: link (\d+)/\1 nodes \[00:\d\d\]", text), text
