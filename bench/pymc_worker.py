"""Runs the PyMC model set (``bench/pymc_models.py``) in one process, one JSON line a case.

    python bench/pymc_worker.py --engine theon [--models a,b] [--no-sample]
    <pymc-venv>/bin/python bench/pymc_worker.py --engine pytensor [--mode NUMBA]

``--engine theon`` installs ``theon.compat.alias("pytensor")`` before importing PyMC;
``--engine pytensor`` runs PyMC on the PyTensor of its interpreter. ``bench/pymc.py``
starts one worker per column and writes the table.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
# bench/pymc.py (the runner) would shadow the pymc package: this folder leaves sys.path
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]


def _models() -> Any:
    """bench/pymc_models.py, loaded by path."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("pymc_models", HERE / "pymc_models.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _emit(rec: dict[str, Any]) -> None:
    print(json.dumps(rec, default=float), flush=True)


def _point_arrays(model: Any, point: dict[str, Any]) -> dict[str, np.ndarray]:
    return {k: np.asarray(v) for k, v in point.items()}


def _random_point(model: Any, seed: int) -> dict[str, np.ndarray]:
    ip = model.initial_point()
    rng = np.random.default_rng(seed)
    return {k: v + rng.uniform(-0.5, 0.5, size=np.shape(v)) for k, v in ip.items()}


def run_model(name: str, build: Any, args: argparse.Namespace) -> dict[str, Any]:
    import pymc as pm

    rec: dict[str, Any] = {"model": name}
    t0 = time.perf_counter()
    model = build()
    rec["build_s"] = time.perf_counter() - t0
    compile_kw: dict[str, Any] = {"mode": args.mode} if args.mode else {}

    t0 = time.perf_counter()
    logp_fn = model.compile_logp(**compile_kw)
    dlogp_fn = model.compile_dlogp(**compile_kw)
    rec["compile_s"] = time.perf_counter() - t0

    ip = model.initial_point()
    rp = _random_point(model, 7)
    rec["logp_init"] = float(logp_fn(ip))
    rec["dlogp_init"] = np.asarray(dlogp_fn(ip)).tolist()
    rec["logp_rand"] = float(logp_fn(rp))
    rec["dlogp_rand"] = np.asarray(dlogp_fn(rp)).tolist()

    # one logp-plus-gradient evaluation, as NUTS calls it
    t0 = time.perf_counter()
    vg = model.logp_dlogp_function(ravel_inputs=True, **compile_kw)
    vg.set_extra_values({})
    rec["logp_dlogp_compile_s"] = time.perf_counter() - t0
    x = np.concatenate([np.ravel(v) for v in ip.values()]) if ip else np.zeros(0)
    vg(x)

    def call_us(fn: Any = vg) -> float:
        n, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < 0.3:
            fn(x)
            n += 1
        return (time.perf_counter() - t0) / n * 1e6

    if args.engine == "theon":
        # tier 0 (a function compiled without the whole-graph tier); then the steady
        # state, once the whole graph's tier-1 compile (in the background, after
        # config.tier1_graph_calls calls) is done, where it applies
        import theon
        from theon.link import tier1

        with theon.config.change_flags(tier1_graph_calls=0):
            vg0 = model.logp_dlogp_function(ravel_inputs=True, **compile_kw)
        vg0.set_extra_values({})
        vg0(x)
        rec["logp_dlogp_call_tier0_us"] = call_us(vg0)
        for _ in range(int(theon.config.tier1_graph_calls)):
            vg(x)
        t0 = time.perf_counter()
        tier1.wait(600)
        rec["tier1_wait_s"] = time.perf_counter() - t0
        vg(x)  # (checked against tier 0)
        slot = getattr(vg._pytensor_function._runner, "slot", None)
        rec["tier1_graph"] = "none" if slot is None else (
            slot.state + (f": {slot.error}" if slot.error else ""))
    rec["logp_dlogp_call_us"] = call_us()

    if args.sample:
        with model:
            t0 = time.perf_counter()
            prior = pm.sample_prior_predictive(draws=50, random_seed=1)
            rec["prior_predictive_s"] = time.perf_counter() - t0
            rec["prior_vars"] = sorted(prior.prior.data_vars)
            t0 = time.perf_counter()
            mp = pm.find_MAP(progressbar=False, seed=2)
            rec["find_map_s"] = time.perf_counter() - t0
            rec["map"] = {k: np.asarray(v).tolist() for k, v in mp.items()
                          if k in model.named_vars and model.named_vars[k] in model.free_RVs}
            t0 = time.perf_counter()
            idata = pm.sample(
                draws=500, tune=500, chains=2, cores=1, random_seed=3,
                progressbar=False, compute_convergence_checks=False,
                compile_kwargs=compile_kw,
            )
            rec["sample_s"] = time.perf_counter() - t0
            import arviz as az

            summ = az.summary(idata, kind="all", round_to="none")
            rec["posterior"] = {
                k: {"mean": float(r["mean"]), "sd": float(r["sd"]),
                    "mcse": float(r["mcse_mean"]), "rhat": float(r["r_hat"])}
                for k, r in summ.iterrows()
            }
            t0 = time.perf_counter()
            pm.sample_posterior_predictive(idata, random_seed=4, progressbar=False)
            rec["posterior_predictive_s"] = time.perf_counter() - t0
    return rec


def run_scaling(n: int, args: argparse.Namespace) -> dict[str, Any]:
    """Build and compile (logp and gradient) the hierarchical model of ``n`` scalars."""
    pymc_models = _models()
    rec: dict[str, Any] = {"model": f"hierarchical_scalar_{n}", "scaling": n,
                           "engine": args.engine, "mode": args.mode}
    try:
        t0 = time.perf_counter()
        model = pymc_models.hierarchical_scalar(n)
        rec["build_s"] = time.perf_counter() - t0
        kw: dict[str, Any] = {"mode": args.mode} if args.mode else {}
        t0 = time.perf_counter()
        logp_fn = model.compile_logp(**kw)
        dlogp_fn = model.compile_dlogp(**kw)
        rec["compile_s"] = time.perf_counter() - t0
        ip = model.initial_point()
        rec["logp_init"] = float(logp_fn(ip))
        rec["dlogp_norm"] = float(np.linalg.norm(dlogp_fn(ip)))
    except Exception as exc:
        rec["error"] = f"{type(exc).__name__}: {exc}"[:2000]
    return rec


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--engine", choices=["theon", "pytensor"], required=True)
    p.add_argument("--mode", default="")
    p.add_argument("--models", default="")
    p.add_argument("--no-sample", dest="sample", action="store_false")
    p.add_argument("--scaling", type=int, default=0,
                   help="only time compile_logp + compile_dlogp of the scalar hierarchical "
                   "model of this many random variables")
    args = p.parse_args(argv)
    if args.engine == "theon":
        import theon.compat

        theon.compat.alias("pytensor")
    warnings.filterwarnings("ignore")
    pymc_models = _models()

    if args.scaling:
        _emit(run_scaling(args.scaling, args))
        return
    names = [n for n in args.models.split(",") if n] or list(pymc_models.MODELS)
    for name in names:
        try:
            rec = run_model(name, pymc_models.MODELS[name], args)
        except Exception as exc:  # report and go on with the next model
            rec = {"model": name, "error": f"{type(exc).__name__}: {exc}"[:2000]}
        rec["engine"] = args.engine
        rec["mode"] = args.mode
        _emit(rec)


if __name__ == "__main__":
    main()
