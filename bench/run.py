"""Run the benchmark workloads for theon and its peers and write a markdown table.

    python bench/run.py [--peer PYTHON ...] [--only a,b] [--nv 100,300]
                        [--out bench/results/latest.md]

theon runs under this interpreter (``bench/workloads.py theon``); each ``--peer``
interpreter runs ``bench/workloads.py pytensor`` if PyTensor is importable there and
``bench/workloads_jax.py`` if JAX is.  Every library runs in its own subprocess, so a
crash or an import error only turns that column's cells into ``error``.  The first
``--nv`` value is used for the full run; ``big_graph_compile`` is repeated in a fresh
process for every further value.  Raw records are written next to the table
(``.jsonl``).  See bench/README.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import re
import resource
import shlex
import subprocess
import sys
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if __package__:
    from .workloads import WORKLOADS, selected
else:  # run as a script: bench/ is on sys.path
    from workloads import WORKLOADS, selected  # type: ignore[no-redef]

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
BIG_NAME = "big_graph_{nv}_vars_grad"

# (record name, metric) -> target for theon; NV=100 for big_graph
TARGETS: dict[tuple[str, str], float] = {
    ("scalar_overhead", "call_us"): 1.5,
    ("elemwise_chain_1e6", "call_us"): 8000.0,
    ("logreg_grad_1000x100", "call_us"): 45.0,
    ("mlp_train_step_128", "call_us"): 1200.0,
    ("big_graph_100_vars_grad", "call_us"): 40.0,
    ("scalar_overhead", "ttfr_s"): 0.02,
    ("logreg_grad_1000x100", "ttfr_s"): 0.05,
    ("mlp_train_step_128", "ttfr_s"): 0.08,
    ("big_graph_100_vars_grad", "ttfr_s"): 0.15,
    # issue 13 (see bench/README.md): ttfr <= 1/10 of PyTensor's (warm numba cache) and
    # <= 1/2 of JAX's, call <= JAX's on rnn_bptt, <= 2 us a step (10,000 steps) on
    # scan_small_steps
    ("rnn_bptt", "call_us"): 6500.0,
    ("rnn_bptt", "ttfr_s"): 0.056,
    ("scan_small_steps", "call_us"): 20000.0,
    ("scan_small_steps", "ttfr_s"): 0.015,
    # issue 15: ahead of PyTensor and within 1.5x of JAX (54.5 ms at the time: 1.5x is 82 ms)
    ("convnet_step_64", "call_us"): 80000.0,
    # issue 16: ahead of PyTensor (702 us at the time; JAX's BCOO 740 us)
    ("sparse_logreg_10000x1000", "call_us"): 700.0,
}
METRICS: dict[str, str] = {"call_us": "call", "ttfr_s": "ttfr", "compile_s": "compile"}

PROBE = """
import importlib.metadata as md, importlib.util as iu, json, platform, sys
def version(name):
    try:
        return md.version(name)
    except md.PackageNotFoundError:
        return getattr(__import__(name), "__version__", "?") if iu.find_spec(name) else None
info = {"executable": sys.executable, "python": platform.python_version()}
for name in ("numpy", "pytensor", "jax", "numba", "theon"):
    try:
        info[name] = version(name)
    except Exception as exc:
        info[name] = "error: " + repr(exc)[:100]
try:
    from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    info["numpy_simd"] = [f for f in __cpu_dispatch__ if __cpu_features__.get(f)]
except Exception as exc:
    info["numpy_simd"] = "error: " + repr(exc)[:100]
print(json.dumps(info))
"""

ISA = "native"  # set from --isa by main()

#: ``--isa`` levels: the environment that keeps NumPy, XLA and numba (so PyTensor's
#: numba backend too) below AVX-512 on a machine that has it.
ISA_ENV: dict[str, dict[str, str]] = {
    "native": {},
    "x86-64-v3": {
        "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR",
        "XLA_FLAGS": "--xla_cpu_max_isa=AVX2",
        "NUMBA_CPU_NAME": "haswell",
    },
}


@dataclass
class Column:
    """One library under one interpreter (and mode): a column of the table."""

    label: str
    python: str
    lib: str
    mode: str | None = None
    src: Path = ROOT  # the checkout whose theon this column imports (lib "theon" only)
    records: dict[str, dict[str, Any]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def command(self, only: Sequence[str]) -> list[str]:
        joined = ",".join(only)
        if self.lib == "jax":
            return [self.python, str(BENCH / "workloads_jax.py"), joined]
        return [self.python, str(BENCH / "workloads.py"), self.lib, self.mode or "", joined]


def probe(python: str) -> dict[str, Any]:
    env = dict(os.environ, **ISA_ENV[ISA])
    if python == sys.executable:  # theon is looked up in the checkout only for this one
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    try:
        out = subprocess.run(
            [python, "-c", PROBE],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
            cwd="/" if python != sys.executable else ROOT,
        )
        return json.loads(out.stdout.strip().splitlines()[-1])
    except Exception as exc:
        return {"executable": python, "error": repr(exc)[:200]}


def limit_memory(gib: float) -> Callable[[], None] | None:
    """A ``preexec_fn`` capping the child's address space (numba can eat > 20 GiB)."""
    if gib <= 0:
        return None
    limit = int(gib * 2**30)

    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return apply


def thread_env(threads: int | None) -> dict[str, str]:
    """Environment capping BLAS / OpenMP threads (``None``: leave the defaults)."""
    if threads is None:
        return {}
    names = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")
    return dict.fromkeys(names, str(threads))


def run_process(
    col: Column,
    cases: list[str],
    nv: int,
    timeout: float,
    mem_gib: float,
    blas_threads: int | None,
    log: bool,
) -> list[dict[str, Any]]:
    """Run ``cases`` of one column in a subprocess; a record for every case comes back."""
    env = dict(os.environ, NV=str(nv), **thread_env(blas_threads), **ISA_ENV[ISA])
    if col.lib == "theon":
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(col.src), env.get("PYTHONPATH")]))
        env["THEON_SRC"] = str(col.src)
    cmd = col.command(cases)
    if log:
        print(f"[{col.label}] NV={nv} $ {shlex.join(cmd)}", file=sys.stderr, flush=True)
    records: list[dict[str, Any]] = []
    timed_out = threading.Event()
    proc = subprocess.Popen(
        cmd,
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=limit_memory(mem_gib),
    )

    def kill() -> None:
        timed_out.set()
        proc.kill()

    stderr_chunks: list[str] = []
    reader = threading.Thread(target=lambda: stderr_chunks.append(proc.stderr.read()))  # type: ignore[union-attr]
    reader.start()
    timer = threading.Timer(timeout, kill)
    timer.start()
    try:
        for line in proc.stdout:  # type: ignore[union-attr]
            line = line.strip()
            if not line.startswith("{"):
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                continue
            records.append(rec)
            if log:
                print(f"[{col.label}] {line}", file=sys.stderr, flush=True)
        proc.wait()
    finally:
        timer.cancel()
        reader.join()
    seen = {rec.get("workload") for rec in records}
    stderr = "".join(stderr_chunks).strip()
    tail = stderr.splitlines()[-1] if stderr else ""
    if timed_out.is_set():
        why = f"timeout after {timeout:g}s"
    elif proc.returncode < 0:
        why = f"killed by signal {-proc.returncode} (memory cap {mem_gib:g} GiB): {tail}"[:300]
    else:
        why = f"exit {proc.returncode}: {tail}"[:300]
    for case in cases:
        if case not in seen:
            records.append({"lib": col.lib, "workload": case, "error": why})
    return records


# ---------------------------------------------------------------------------------
# formatting
# ---------------------------------------------------------------------------------


def fmt_value(metric: str, value: float) -> str:
    if metric == "call_us":
        if value < 1e3:
            return f"{value:.3g} µs"
        if value < 1e6:
            return f"{value / 1e3:.3g} ms"
        return f"{value / 1e6:.3g} s"
    return f"{value:.3g} s"


def fmt_ratio(ratio: float | None) -> str:
    return "–" if ratio is None else f"{ratio:.3g}×"


def value_of(col: Column, case: str, metric: str) -> float | None:
    rec = col.records.get(case)
    if not rec or "error" in rec or rec.get(metric) is None:
        return None
    return float(rec[metric])


def cell(col: Column, case: str, metric: str) -> str:
    rec = col.records.get(case)
    if rec is None:
        return "–"
    if "error" in rec:
        return "error"
    value = rec.get(metric)
    if value is None:
        return "–"
    text = fmt_value(metric, float(value))
    return text if rec.get("ok", True) else f"{text} (!)"


def ratio(num: float | None, den: float | None) -> float | None:
    if num is None or den is None or den <= 0:
        return None
    return num / den


def table(columns: list[Column], cases: list[str], nvs: list[int]) -> list[str]:
    theon = next((c for c in columns if c.lib == "theon" and c.src == ROOT), None)
    peers = [c for c in columns if c is not theon]
    head = ["workload", "metric", "target"]
    head += [c.label for c in columns]
    if theon is not None:
        head += [f"{c.label}/theon" for c in peers]
        head.append("theon meets target")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for case in cases:
        for metric, label in METRICS.items():
            target = TARGETS.get((case, metric))
            row = [case, label, "" if target is None else "≤ " + fmt_value(metric, target)]
            row += [cell(c, case, metric) for c in columns]
            if theon is not None:
                mine = value_of(theon, case, metric)
                row += [fmt_ratio(ratio(value_of(c, case, metric), mine)) for c in peers]
                met = "" if target is None or mine is None else ("yes" if mine <= target else "no")
                row.append(met)
            lines.append("| " + " | ".join(row) + " |")
    for small, large in zip(nvs, nvs[1:], strict=False):
        a, b = BIG_NAME.format(nv=small), BIG_NAME.format(nv=large)
        if a in cases and b in cases:
            row = [f"big_graph ttfr {large}/{small}", "ratio", ""]
            row += [
                fmt_ratio(ratio(value_of(c, b, "ttfr_s"), value_of(c, a, "ttfr_s")))
                for c in columns
            ]
            if theon is not None:
                row += [""] * (len(peers) + 1)
            lines.append("| " + " | ".join(row) + " |")
    if "elemwise_chain_1e6" in cases:
        row = ["elemwise_chain_1e6", "NumPy eager (same process)", ""]
        for c in columns:
            v = value_of(c, "elemwise_chain_1e6", "numpy_eager_us")
            row.append("–" if v is None else fmt_value("call_us", v))
        if theon is not None:
            row += [""] * (len(peers) + 1)
        lines.append("| " + " | ".join(row) + " |")
    return lines


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def cpu_flags() -> str:
    """The SIMD flags of /proc/cpuinfo that matter for the kernels (AVX2, FMA, AVX-512)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                have = set(line.split(":", 1)[1].split())
                keep = (
                    "sse4_2",
                    "avx",
                    "avx2",
                    "fma",
                    "avx512f",
                    "avx512dq",
                    "avx512bw",
                    "avx512vl",
                    "avx512_fp16",
                )
                return " ".join(f for f in keep if f in have)
    except OSError:
        pass
    return "?"


def mem_total() -> str:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return f"{int(line.split()[1]) / 2**20:.1f} GiB RAM"
    except (OSError, ValueError, IndexError):
        pass
    return "RAM ?"


# an absolute path (not a URL's: no `/` or `:` before it) with at least two components
ABSOLUTE_PATH = re.compile(r"(?<![\w.~<>:/-])/(?:[^\s/:'\"`()\[\],|]+/)+[^\s/:'\"`()\[\],|]*")


def placeholders(args: argparse.Namespace) -> dict[str, str]:
    """The machine's paths that the results would name, each with the placeholder
    written instead (README.md, docs/ and bench/results name no path of a machine)."""
    named = {sys.executable: Path(sys.executable).name}
    for index, python in enumerate(args.peer, start=1):
        venv = "peer-venv" if len(args.peer) == 1 else f"peer-venv-{index}"
        tail = Path(python).parts[-2:] if Path(python).parent.name == "bin" else ("python",)
        named[python] = f"<{venv}>/" + "/".join(tail)
    for spec in args.theon_at:
        label, _, where = spec.partition("=")
        named[where] = f"<{label}-worktree>"
    return named


def public_paths(text: str, named: dict[str, str]) -> str:
    """``text`` with the paths of ``named`` replaced by their placeholders, the checkout's
    by paths relative to it, and any other absolute path by ``<path>/`` and its last part.

    >>> public_paths("run /opt/v/bin/python at /tmp/ab/x.py:1, 1 / 2", {"/opt/v": "<v>"})
    'run <v>/bin/python at <path>/x.py:1, 1 / 2'
    """
    for path, placeholder in sorted(named.items(), key=lambda kv: -len(kv[0])):
        text = text.replace(path, placeholder)
    text = text.replace(str(ROOT) + "/", "").replace(str(ROOT), ".")
    return ABSOLUTE_PATH.sub(lambda m: "<path>/" + m.group(0).rsplit("/", 1)[-1], text)


def header(argv: Sequence[str], probes: dict[str, dict[str, Any]], load_start: float) -> list[str]:
    ncpu = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    now = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "# theon benchmark",
        "",
        f"- date: {now}",
        f"- machine: {ncpu} cores (nproc), {cpu_model()}, {mem_total()}, "
        f"{platform.system()} {platform.release()}",
        f"- CPU flags: {cpu_flags()}",
        f"- ISA used (`--isa`): {ISA}"
        + (
            f" (environment: {', '.join(f'{k}={v}' for k, v in ISA_ENV[ISA].items())})"
            if ISA_ENV[ISA]
            else " (everything the CPU has)"
        ),
        f"- load average (1 min) at start / end: {load_start:.2f} / {os.getloadavg()[0]:.2f}",
        f"- command: `{shlex.join(['python', 'bench/run.py', *argv])}`",
    ]
    for python, info in probes.items():
        if "error" in info:
            lines.append(f"- `{python}`: probe failed: {info['error']}")
            continue
        libs = ", ".join(
            f"{name} {info[name]}"
            for name in ("numpy", "theon", "pytensor", "numba", "jax")
            if info.get(name)
        )
        simd = info.get("numpy_simd")
        simd_text = f"; NumPy SIMD in use: {' '.join(simd)}" if isinstance(simd, list) else ""
        lines.append(f"- `{python}`: Python {info.get('python')}, {libs}{simd_text}")
    return lines


def footer(columns: list[Column]) -> list[str]:
    lines = [
        "",
        "call = median call time; ttfr = from the start of `function()` (JAX: `jax.jit`) to "
        "the first result; compile = time inside `function()` (JAX: trace+lower+compile). "
        "`peer/theon` > 1 means theon is faster. (!) = result check against NumPy failed. "
        "Targets are for theon; the big_graph targets are for NV=100.",
    ]
    errors = []
    for c in columns:
        by_message: dict[str, list[str]] = {}
        for case, rec in c.records.items():
            if "error" in rec:
                by_message.setdefault(str(rec["error"]), []).append(case)
        for message, failed in by_message.items():
            errors.append(f"- {c.label} / {', '.join(failed)}: `{message}`")
    extras = [
        f"- {c.label} / {case}: vectorize={rec['vectorize']}"
        for c in columns
        for case, rec in c.records.items()
        if "vectorize" in rec
    ]
    notes = [f"- {c.label}: {note}" for c in columns for note in c.notes]
    for title, items in (("Errors", errors), ("Jacobian", extras), ("Notes", notes)):
        if items:
            lines += ["", f"## {title}", "", *items]
    return lines


# ---------------------------------------------------------------------------------
# driver
# ---------------------------------------------------------------------------------


def split_list(values: Iterable[str] | None) -> list[str]:
    return [v for chunk in values or () for v in chunk.split(",") if v]


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument(
        "--peer",
        action="append",
        default=[],
        metavar="PYTHON",
        help="interpreter with pytensor and/or jax installed (repeatable)",
    )
    p.add_argument(
        "--only",
        action="append",
        metavar="A,B",
        help=f"workload keys or record names; keys: {', '.join(WORKLOADS)}",
    )
    p.add_argument(
        "--nv", action="append", metavar="N[,N]", help="big_graph variable counts (default 100,300)"
    )
    p.add_argument(
        "--libs", default="theon,pytensor,jax", help="libraries to run (default theon,pytensor,jax)"
    )
    p.add_argument("--theon-mode", default=None, help="mode passed to theon.function")
    p.add_argument(
        "--pytensor-mode",
        action="append",
        metavar="MODE",
        help="pytensor mode(s), one column each ('' = default); e.g. ,CVM",
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=1200.0,
        help="seconds allowed per subprocess (default 1200)",
    )
    p.add_argument(
        "--mem-limit",
        type=float,
        default=8.0,
        metavar="GIB",
        help="address-space cap per subprocess in GiB, 0 = none (default 8)",
    )
    p.add_argument(
        "--blas-threads",
        type=int,
        default=None,
        metavar="N",
        help="set OMP/OPENBLAS/MKL/NUMBA_NUM_THREADS=N for every run",
    )
    p.add_argument(
        "--theon-at",
        action="append",
        default=[],
        metavar="LABEL=DIR",
        help="an extra theon column importing theon from checkout DIR (e.g. an old commit's "
        "worktree), run with this checkout's workloads; repeatable",
    )
    p.add_argument(
        "--isa",
        choices=sorted(ISA_ENV),
        default="native",
        help="instruction-set level for every run: x86-64-v3 keeps NumPy, XLA and numba "
        "off AVX-512 (default native)",
    )
    p.add_argument("--out", default=str(ROOT / "bench" / "results" / "latest.md"))
    p.add_argument("--quiet", action="store_true", help="do not echo records to stderr")
    return p.parse_args(argv)


def make_columns(
    args: argparse.Namespace, probes: dict[str, dict[str, Any]], libs: set[str]
) -> list[Column]:
    columns: list[Column] = []
    if "theon" in libs:
        columns.append(Column("theon", sys.executable, "theon", args.theon_mode))
        if args.theon_mode:
            columns[-1].label = f"theon[{args.theon_mode}]"
    for spec in args.theon_at:
        label, _, where = spec.partition("=")
        if not where:
            raise SystemExit(f"--theon-at wants LABEL=DIR, got {spec!r}")
        columns.append(Column(label, sys.executable, "theon", args.theon_mode, Path(where)))
    pt_modes = [m or None for m in (args.pytensor_mode or [""])]
    for index, python in enumerate(args.peer, start=1):
        info = probes[python]
        suffix = f"#{index}" if len(args.peer) > 1 else ""
        if "pytensor" in libs and info.get("pytensor"):
            for mode in pt_modes:
                label = "pytensor" + (f"[{mode}]" if mode else "") + suffix
                columns.append(Column(label, python, "pytensor", mode))
        if "jax" in libs and info.get("jax"):
            columns.append(Column("jax" + suffix, python, "jax"))
    return columns


def main(argv: Sequence[str]) -> int:
    global ISA
    args = parse_args(argv)
    ISA = args.isa
    only = split_list(args.only)
    nvs = [int(v) for v in split_list(args.nv)] or [100, 300]
    libs = set(split_list([args.libs]))
    log = not args.quiet
    try:
        first_cases = [name for name, _ in selected(WORKLOADS, only, nvs[0])]
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 2
    big = any(name == BIG_NAME.format(nv=nvs[0]) for name in first_cases)
    cases = list(first_cases)
    if big:
        cases += [BIG_NAME.format(nv=nv) for nv in nvs[1:]]
    load_start = os.getloadavg()[0]
    pythons = list(dict.fromkeys([sys.executable, *args.peer]))
    probes = {py: probe(py) for py in pythons}
    columns = make_columns(args, probes, libs)
    for python in args.peer:
        info = probes[python]
        if "error" in info:
            print(f"peer {python}: probe failed: {info['error']}", file=sys.stderr)
        elif not info.get("pytensor") and not info.get("jax"):
            print(f"peer {python}: neither pytensor nor jax importable", file=sys.stderr)
    raw: list[dict[str, Any]] = []
    for col in columns:
        batches = [(first_cases, nvs[0])]
        if big:
            batches += [([BIG_NAME.format(nv=nv)], nv) for nv in nvs[1:]]
        for batch, nv in batches:
            recs = run_process(col, batch, nv, args.timeout, args.mem_limit, args.blas_threads, log)
            for rec in recs:
                if rec["workload"] == "startup" and "startup" in col.records:
                    continue  # each batch starts the library; the table shows the first
                rec.setdefault("nv", nv)
                rec["column"] = col.label
                col.records[rec["workload"]] = rec
            raw += recs
    lines = header(argv, probes, load_start) + [""] + table(columns, cases, nvs) + footer(columns)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    named = placeholders(args)
    out.write_text(public_paths("\n".join(lines) + "\n", named))
    out.with_suffix(".jsonl").write_text(public_paths("".join(json.dumps(r) + "\n" for r in raw),
                                                      named))
    print("\n".join(lines))
    print(f"\nwrote {out} and {out.with_suffix('.jsonl')}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
