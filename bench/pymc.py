"""PyMC on theon against PyMC on PyTensor: the model set of ``bench/pymc_models.py``.

    python bench/pymc.py --theon <pymc-on-theon-venv>/bin/python \\
        --pytensor <pymc-venv>/bin/python [--models a,b] [--no-sample] [--scaling 1000,4000]

Columns, each its own process (``bench/pymc_worker.py``):

- ``theon``: PyMC through ``theon.compat.alias("pytensor")``, theon's default mode;
- ``pytensor``: PyMC on PyTensor, its default mode (the C backend);
- ``pytensor-numba``: the same with ``mode="NUMBA"`` in every compile PyMC makes.

The table gives, per model: ``compile_logp`` plus ``compile_dlogp`` (s), one
logp-and-gradient call as NUTS makes it (µs), ``pm.sample`` wall time (500 tune + 500
draws, 2 chains, ``cores=1``, compile included), the largest r-hat, and theon's
agreement with PyTensor: the largest relative difference of logp and dlogp at the
initial point and at a random point, and the largest distance between posterior
means in Monte Carlo standard errors. ``--scaling`` times ``compile_logp`` plus
``compile_dlogp`` of a hierarchical model with that many scalar random variables.
Results go to ``bench/results/pymc.md`` and ``.jsonl``.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
WORKER = HERE / "pymc_worker.py"


def run_column(python: str, engine: str, mode: str, args: argparse.Namespace,
               extra: list[str]) -> list[dict[str, Any]]:
    cmd = [python, str(WORKER), "--engine", engine, "--mode", mode, *extra]
    if args.models:
        cmd += ["--models", args.models]
    if not args.sample:
        cmd.append("--no-sample")
    print(f"== {engine} {mode or 'default'}: {' '.join(cmd[2:])}", file=sys.stderr, flush=True)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout,
                          cwd=tempfile.gettempdir())  # (not bench/: pymc.py would shadow pymc)
    recs = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    if proc.returncode != 0:
        print(proc.stderr[-3000:], file=sys.stderr)
    print(f"   {len(recs)} records in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    return recs


def rel_diff(a: Any, b: Any) -> float:
    a = [a] if isinstance(a, (int, float)) else a
    b = [b] if isinstance(b, (int, float)) else b
    if len(a) != len(b):
        return math.inf
    return max((abs(x - y) / max(abs(y), 1e-12) for x, y in zip(a, b)), default=0.0)


def posterior_distance(p: dict[str, Any], q: dict[str, Any]) -> float:
    """The largest |mean_p - mean_q| over the variables, in combined standard errors."""
    out = 0.0
    for k, a in p.items():
        b = q.get(k)
        if b is None:
            continue
        se = math.hypot(a["mcse"], b["mcse"]) or 1e-12
        out = max(out, abs(a["mean"] - b["mean"]) / se)
    return out


def fmt(x: Any, spec: str) -> str:
    if x is None:
        return "—"
    if isinstance(x, float) and math.isinf(x):
        return "inf"
    return format(x, spec)


def table(cols: dict[str, list[dict[str, Any]]]) -> list[str]:
    by = {c: {r["model"]: r for r in recs} for c, recs in cols.items()}
    names = list(dict.fromkeys(r["model"] for recs in cols.values() for r in recs
                               if "scaling" not in r))
    heads = list(cols)
    lines = [
        "| model | " + " | ".join(f"compile s ({c})" for c in heads) + " | "
        + " | ".join(f"logp+grad µs ({c})" for c in heads) + " | "
        + " | ".join(f"sample s ({c})" for c in heads) + " | "
        + " | ".join(f"max r-hat ({c})" for c in heads)
        + " | logp/dlogp rel. diff | posterior means (MCSE) |",
        "|---" * (2 + 4 * len(heads) + 1) + "|",
    ]
    for n in names:
        row = [by[c].get(n, {}) for c in heads]
        cells = [n]
        for key, spec in (("compile_s", ".2f"), ("logp_dlogp_call_us", ".1f"),
                          ("sample_s", ".1f")):
            cells += [r.get("error") and "error" or fmt(r.get(key), spec) for r in row]
        cells += [fmt(max((v["rhat"] for v in r.get("posterior", {}).values()), default=None),
                      ".3f") for r in row]
        t, ref = by.get("theon", {}).get(n), by.get("pytensor", {}).get(n)
        if t and ref and "error" not in t and "error" not in ref:
            d = max(rel_diff(t[k], ref[k]) for k in
                    ("logp_init", "dlogp_init", "logp_rand", "dlogp_rand"))
            cells.append(f"{d:.1e}")
            cells.append(fmt(posterior_distance(t["posterior"], ref["posterior"]), ".1f")
                         if "posterior" in t and "posterior" in ref else "—")
        else:
            cells += ["—", "—"]
        lines.append("| " + " | ".join(cells) + " |")
    errors = [(c, r["model"], r["error"]) for c, recs in cols.items() for r in recs
              if "error" in r]
    if errors:
        lines += ["", "Errors:", ""]
        lines += [f"- {c} / {m}: `{e[:300]}`" for c, m, e in errors]
    return lines


def tiers(recs: list[dict[str, Any]]) -> list[str]:
    """theon's call time on tier 0, then once the whole graph's tier-1 compile (started in
    the background after ``config.tier1_graph_calls`` calls) is done, and its outcome."""
    recs = [r for r in recs if "tier1_graph" in r]
    if not recs:
        return []
    lines = ["", "theon's logp+grad call before and after its whole-graph tier 1 (numba, "
             "compiled in the background; the table's theon column is the second):", "",
             "| model | tier 0 µs | tier 1 µs | waited for tier 1 s | whole-graph tier |",
             "|---|---|---|---|---|"]
    for r in recs:
        state = r["tier1_graph"]
        lines.append(f"| {r['model']} | {fmt(r.get('logp_dlogp_call_tier0_us'), '.1f')} | "
                     f"{fmt(r.get('logp_dlogp_call_us'), '.1f')} | "
                     f"{fmt(r.get('tier1_wait_s'), '.1f')} | {state[:120]} |")
    return lines


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--theon", default=sys.executable, help="python of the PyMC-on-theon venv")
    p.add_argument("--pytensor", default="", help="python of the PyMC-on-PyTensor venv")
    p.add_argument("--no-numba", dest="numba", action="store_false")
    p.add_argument("--models", default="")
    p.add_argument("--no-sample", dest="sample", action="store_false")
    p.add_argument("--scaling", default="", help="sizes of the scalar hierarchical model")
    p.add_argument("--timeout", type=float, default=7200)
    p.add_argument("--out", default=str(HERE / "results" / "pymc.md"))
    args = p.parse_args(argv)

    cols: dict[str, list[dict[str, Any]]] = {}
    cols["theon"] = run_column(args.theon, "theon", "", args, [])
    if args.pytensor:
        cols["pytensor"] = run_column(args.pytensor, "pytensor", "", args, [])
        if args.numba:
            cols["pytensor-numba"] = run_column(args.pytensor, "pytensor", "NUMBA", args, [])
    scaling: list[dict[str, Any]] = []
    for n in [int(s) for s in args.scaling.split(",") if s]:
        for col, py, eng in (("theon", args.theon, "theon"), ("pytensor", args.pytensor,
                                                             "pytensor")):
            if py:
                recs = run_column(py, eng, "", argparse.Namespace(
                    models="", sample=False, timeout=args.timeout), ["--scaling", str(n)])
                scaling += [{**r, "column": col} for r in recs]

    lines = [
        "# PyMC 5.28.5 on theon and on PyTensor",
        "",
        f"Run of {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on "
        f"{platform.machine()}, Python {platform.python_version()}: "
        "`python bench/pymc.py --theon <theon-venv>/bin/python "
        "--pytensor <pymc-venv>/bin/python`.",
        "",
        *table(cols),
        *tiers(cols.get("theon", [])),
    ]
    if scaling:
        lines += ["", "Compile time of logp and gradient, hierarchical model of n scalar "
                  "random variables:", "", "| n | column | compile s |", "|---|---|---|"]
        lines += [f"| {r['scaling']} | {r['column']} | "
                  f"{r.get('error') and 'error' or fmt(r.get('compile_s'), '.2f')} |"
                  for r in scaling]
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n")
    with out.with_suffix(".jsonl").open("w") as fh:
        for c, recs in cols.items():
            for r in recs:
                fh.write(json.dumps({**r, "column": c}) + "\n")
        for r in scaling:
            fh.write(json.dumps(r) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
