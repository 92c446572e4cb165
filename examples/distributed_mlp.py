"""Train an MLP data-parallel across processes, and check it against one process.

Each process takes its own rows of one synthetic batch (float64), and one theon
function, compiled with ``mode="JAX"`` and ``sharding=``, computes the loss and the
gradients over the whole batch and updates the shared weights, identically in every
process::

    python examples/distributed_mlp.py                     # one process, the whole batch
    python -m theon.launch -n 2 examples/distributed_mlp.py  # two processes, half each
    python examples/distributed_mlp.py --compare           # both, and the difference

``--compare`` trains in this process on the whole batch, then runs the same script as
2 processes through ``theon.launch``, and prints the largest difference of the loss
curves and of the final weights (it must be below 1e-10).  ``--time`` prints the
median time of one training step.  Without jax, the script says so and stops.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from typing import Any

import numpy as np

BATCH, N_IN, N_HIDDEN, N_OUT = 512, 32, 64, 4


def data() -> tuple[np.ndarray, np.ndarray]:
    """The whole batch: inputs and one-hot labels of a random linear rule."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(BATCH, N_IN))
    labels = np.argmax(X @ rng.normal(size=(N_IN, N_OUT)), axis=1)
    return X, np.eye(N_OUT)[labels]


def train(steps: int, lr: float = 0.5) -> dict[str, Any]:
    """Train for ``steps`` SGD steps in this process (one of several when launched by
    ``theon.launch``): the loss curve, the final weights and the step times (the first,
    which compiles, left out)."""
    import theon.launch

    pid = theon.launch.initialize()
    import jax
    from jax.sharding import PartitionSpec as P

    import theon
    import theon.tensor as T

    n_proc = jax.process_count()
    rng = np.random.default_rng(1)
    W1 = theon.shared(rng.normal(size=(N_IN, N_HIDDEN)) / np.sqrt(N_IN), name="W1")
    b1 = theon.shared(np.zeros(N_HIDDEN), name="b1")
    W2 = theon.shared(rng.normal(size=(N_HIDDEN, N_OUT)) / np.sqrt(N_HIDDEN), name="W2")
    b2 = theon.shared(np.zeros(N_OUT), name="b2")
    params = [W1, b1, W2, b2]
    X, Y = T.dmatrix("X"), T.dmatrix("Y")
    prob = T.special.softmax(T.dot(T.tanh(T.dot(X, W1) + b1), W2) + b2, axis=-1)
    loss = -T.mean(T.sum(Y * T.log(prob), axis=1))
    grads = theon.grad(loss, params)
    step = theon.function([X, Y], loss, mode="JAX",
                          updates=[(p, p - lr * g) for p, g in zip(params, grads)],
                          sharding={X: P("batch"), Y: P("batch")})
    Xall, Yall = data()
    rows = slice(pid * BATCH // n_proc, (pid + 1) * BATCH // n_proc)  # this process's rows
    Xl, Yl = Xall[rows], Yall[rows]
    losses, times = [], []
    for _ in range(steps):
        t0 = time.perf_counter()
        losses.append(float(step(Xl, Yl)))
        times.append(time.perf_counter() - t0)
    return {"pid": pid, "n_proc": n_proc, "losses": np.array(losses),
            "weights": [p.get_value() for p in params], "times": np.array(times[1:])}


def _save(res: dict[str, Any], path: str) -> None:
    np.savez(path, losses=res["losses"], times=res["times"],
             **{f"w{k}": w for k, w in enumerate(res["weights"])})


def compare(steps: int, n: int, timeout: float) -> float:
    """Train here on the whole batch and in ``n`` launched processes; the largest
    difference of the loss curves and final weights."""
    import theon.launch

    one = train(steps)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "run")
        rc = theon.launch.launch([sys.executable, __file__, "--steps", str(steps),
                                  "--out", out], n, timeout=timeout)
        if rc != 0:
            raise SystemExit(f"the {n}-process run failed (status {rc})")
        runs = [np.load(f"{out}.{pid}.npz") for pid in range(n)]
        diffs = {"loss curve": max(np.abs(r["losses"] - one["losses"]).max() for r in runs)}
        for k, w in enumerate(one["weights"]):
            diffs[f"weights {k}"] = max(np.abs(r[f"w{k}"] - w).max() for r in runs)
        t_n = [float(np.median(r["times"])) for r in runs]
    worst = max(diffs.values())
    print(f"loss: step 0 {one['losses'][0]:.6f}, step {steps - 1} {one['losses'][-1]:.6f}")
    for name, d in diffs.items():
        print(f"max |1 process - {n} processes| {name}: {d:.3g}")
    print(f"max difference: {worst:.3g}")
    print(f"one step: 1 process {1e3 * np.median(one['times']):.3f} ms, "
          f"{n} processes {1e3 * max(t_n):.3f} ms (median; slowest process)")
    return worst


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--out", help="save this process's run to OUT.<process id>.npz")
    ap.add_argument("--compare", action="store_true",
                    help="train here and in N launched processes, and compare")
    ap.add_argument("-n", type=int, default=2, help="processes for --compare")
    ap.add_argument("--timeout", type=float, default=300.0, help="for --compare")
    ap.add_argument("--time", action="store_true", help="print the median step time")
    ns = ap.parse_args(argv)
    try:
        import jax  # noqa: F401
    except ImportError:
        print("this example needs jax: pip install 'theon[jax]'")
        return 0
    if ns.compare:
        return 0 if compare(ns.steps, ns.n, ns.timeout) <= 1e-10 else 1
    res = train(ns.steps)
    print(f"process {res['pid']} of {res['n_proc']}: loss {res['losses'][0]:.6f} -> "
          f"{res['losses'][-1]:.6f}")
    if ns.time:
        print(f"one step: {1e3 * np.median(res['times']):.3f} ms (median)")
    if ns.out:
        _save(res, f"{ns.out}.{res['pid']}.npz")
    return 0


if __name__ == "__main__":
    sys.exit(main())
