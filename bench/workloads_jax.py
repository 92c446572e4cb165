"""The workloads of ``workloads.py`` written for JAX (``jax.jit``, float64, CPU).

Command line (same JSON line format as ``workloads.py``, with ``lib`` = ``jax``)::

    python bench/workloads_jax.py [ONLY]
    NV=100 python bench/workloads_jax.py big_graph_compile

For JAX ``compile_s`` is the time to trace, lower and compile the jitted function
(``jax.jit(fn).lower(*args).compile()``), and ``ttfr_s`` the time from ``jax.jit``
until the first result is ready (compile plus the first call).  ``call_us`` is the
median of calling the jitted function and waiting for its result.  The MLP step is
a pure function returning the new parameters, which are fed back for the check.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

if __package__:
    from .workloads import (
        CONV_LR,
        JAC_N,
        SCAN_STEPS,
        bsolve_data,
        bsolve_reference,
        chain_reference,
        convnet_data,
        convnet_reference_loss,
        gp_data,
        gp_reference,
        jacobian_matrix,
        jacobian_reference,
        median_call,
        print_record,
        rnn_data,
        rnn_reference,
        run_table,
        scan_small_reference,
        sparse_logreg_data,
        sparse_logreg_reference,
    )
else:  # run as a script: bench/ is on sys.path
    from workloads import (  # type: ignore[no-redef]
        CONV_LR,
        JAC_N,
        SCAN_STEPS,
        bsolve_data,
        bsolve_reference,
        chain_reference,
        convnet_data,
        convnet_reference_loss,
        gp_data,
        gp_reference,
        jacobian_matrix,
        jacobian_reference,
        median_call,
        print_record,
        rnn_data,
        rnn_reference,
        run_table,
        scan_small_reference,
        sparse_logreg_data,
        sparse_logreg_reference,
    )

Record = dict[str, Any]
Emit = Callable[[Record], None]


class JaxBench:
    def __init__(self, emit: Emit) -> None:
        t0 = time.perf_counter()
        import jax

        jax.config.update("jax_enable_x64", True)
        # the CPU unless JAX_PLATFORMS says otherwise (bench/gpu.sh sets it to cuda)
        jax.config.update("jax_platforms", os.environ.get("JAX_PLATFORMS") or "cpu")
        import jax.numpy as jnp

        self.jax = jax
        self.jnp = jnp
        self.emit = emit
        self.import_s = time.perf_counter() - t0

    def build(
        self, fn: Callable[..., Any], args: Sequence[Any]
    ) -> tuple[Callable[..., Any], float, float, Any]:
        """Jit, compile and run once: (blocking callable, compile_s, ttfr_s, first result)."""
        jax = self.jax
        t0 = time.perf_counter()
        jitted = jax.jit(fn)
        compiled = jitted.lower(*args).compile()
        t1 = time.perf_counter()
        result = jax.block_until_ready(compiled(*args))
        t2 = time.perf_counter()

        def call(*a: Any) -> Any:
            return jax.block_until_ready(jitted(*a))

        return call, t1 - t0, t2 - t0, result

    def record(
        self, name: str, compile_s: float, ttfr_s: float, call_s: float, ok: Any, **extra: Any
    ) -> None:
        self.emit(
            {
                "lib": "jax",
                "mode": None,
                "workload": name,
                "compile_s": round(compile_s, 4),
                "ttfr_s": round(ttfr_s, 4),
                "call_us": round(call_s * 1e6, 2),
                "ok": bool(ok),
                **extra,
            }
        )


def startup(b: JaxBench, nv: int) -> None:
    """Import, then the first (trivial) jitted function (see ``workloads.startup``)."""
    f, comp, ttfr, out = b.build(lambda x: x + 1, (2.0,))
    b.record("startup", b.import_s, b.import_s + ttfr, median_call(f, (2.0,)), out == 3.0)


def scalar_overhead(b: JaxBench, nv: int) -> None:
    args = (2.0, 3.0)
    f, comp, ttfr, out = b.build(lambda x, y: x * y + 1, args)
    b.record("scalar_overhead", comp, ttfr, median_call(f, args), np.allclose(out, 7.0))


def elemwise_chain(b: JaxBench, nv: int) -> None:
    jnp = b.jnp

    def chain(x: Any, y: Any) -> Any:
        return (
            jnp.exp(-(x**2)) * jnp.sin(y)
            + jnp.log1p(x**2)
            - jnp.tanh(y) / 2
            + jnp.sqrt(jnp.abs(x * y) + 1)
        )

    rng = np.random.default_rng(1)
    args = (rng.normal(size=1_000_000), rng.normal(size=1_000_000))
    f, comp, ttfr, out = b.build(chain, args)
    b.record(
        "elemwise_chain_1e6",
        comp,
        ttfr,
        median_call(f, args),
        np.allclose(out, chain_reference(*args)),
        numpy_eager_us=round(median_call(chain_reference, args) * 1e6, 1),
    )


def _logreg_step(b: JaxBench) -> Any:
    """The L2-regularized logistic-regression loss and its gradient wrt ``(w, bias)``: the
    step of ``logreg_grad`` (dense ``X``) and ``sparse_logreg`` (``X`` a JAX sparse array)."""
    jax, jnp = b.jax, b.jnp

    def loss(w: Any, bias: Any, X: Any, t: Any) -> Any:
        p = jax.nn.sigmoid(X @ w + bias)
        nll = -jnp.mean(t * jnp.log(p) + (1 - t) * jnp.log(1 - p))
        return nll + 0.01 * jnp.sum(w**2)

    vg = jax.value_and_grad(loss, argnums=(0, 1))

    def step(X: Any, t: Any, w: Any, bias: Any) -> Any:
        value, (gw, gb) = vg(w, bias, X, t)
        return value, gw, gb

    return step


def logreg_grad(b: JaxBench, nv: int) -> None:
    step = _logreg_step(b)
    rng = np.random.default_rng(2)
    Xv = rng.normal(size=(1000, 100))
    tv = (rng.random(1000) > 0.5).astype(np.float64)
    wv = 0.1 * rng.normal(size=100)
    args = (Xv, tv, wv, 0.1)
    f, comp, ttfr, out = b.build(step, args)
    prob = 1.0 / (1.0 + np.exp(-(Xv @ wv + 0.1)))
    gw_ref = Xv.T @ (prob - tv) / len(tv) + 0.02 * wv
    ok = np.allclose(out[1], gw_ref) and np.allclose(out[2], np.mean(prob - tv))
    b.record("logreg_grad_1000x100", comp, ttfr, median_call(f, args), ok)


def _mlp_data() -> tuple[tuple[np.ndarray, ...], np.ndarray, np.ndarray]:
    """The 784-256-10 MLP's initial parameters and one batch of 128 (``workloads._mlp_step``'s
    values, drawn in the same order)."""
    rng = np.random.default_rng(3)
    params = (
        0.05 * rng.normal(size=(784, 256)),
        np.zeros(256),
        0.05 * rng.normal(size=(256, 10)),
        np.zeros(10),
    )
    Xv = rng.normal(size=(128, 784))
    Yv = np.eye(10)[rng.integers(0, 10, size=128)]
    return params, Xv, Yv


def mlp_train_step(b: JaxBench, nv: int) -> None:
    jax, jnp = b.jax, b.jnp

    def loss(params: Any, X: Any, Y: Any) -> Any:
        W1, b1, W2, b2 = params
        hidden = jnp.tanh(X @ W1 + b1)
        prob = jax.nn.softmax(hidden @ W2 + b2, axis=-1)
        return -jnp.mean(jnp.sum(Y * jnp.log(prob), axis=1))

    vg = jax.value_and_grad(loss)

    def step(params: Any, X: Any, Y: Any) -> Any:
        value, grads = vg(params, X, Y)
        return value, tuple(q - 0.1 * g for q, g in zip(params, grads, strict=True))

    params, Xv, Yv = _mlp_data()
    f, comp, ttfr, (first_loss, params) = b.build(step, (params, Xv, Yv))
    later = first_loss
    for _ in range(5):
        later, params = f(params, Xv, Yv)
    ok = bool(np.isfinite(later)) and float(later) < float(first_loss)
    b.record("mlp_train_step_128", comp, ttfr, median_call(f, (params, Xv, Yv)), ok)


def dropout_mlp_step(b: JaxBench, nv: int) -> None:
    """``mlp_train_step`` with dropout (p = 0.5, inverted) on the hidden layer; the
    ``jax.random`` key is threaded through the step (split each call)."""
    jax, jnp = b.jax, b.jnp

    def loss(params: Any, X: Any, Y: Any, key: Any) -> Any:
        W1, b1, W2, b2 = params
        mask = jax.random.bernoulli(key, 0.5, (X.shape[0], W1.shape[1]))
        hidden = jnp.tanh(X @ W1 + b1) * mask * 2.0
        prob = jax.nn.softmax(hidden @ W2 + b2, axis=-1)
        return -jnp.mean(jnp.sum(Y * jnp.log(prob), axis=1))

    vg = jax.value_and_grad(loss)

    def step(params: Any, X: Any, Y: Any, key: Any) -> Any:
        key, sub = jax.random.split(key)
        value, grads = vg(params, X, Y, sub)
        return value, tuple(q - 0.1 * g for q, g in zip(params, grads, strict=True)), key

    params, Xv, Yv = _mlp_data()
    key = jax.random.PRNGKey(42)
    f, comp, ttfr, (first_loss, params, key) = b.build(step, (params, Xv, Yv, key))
    later = []
    for _ in range(10):
        value, params, key = f(params, Xv, Yv, key)
        later.append(float(value))
    ok = (all(np.isfinite(later)) and np.mean(later[-3:]) < float(first_loss)
          and len(set(later)) == len(later))
    b.record("dropout_mlp_step_128", comp, ttfr, median_call(f, (params, Xv, Yv, key)), ok)


def big_graph_compile(b: JaxBench, nv: int) -> None:
    jax, jnp = b.jax, b.jnp

    def logp(*xs: Any) -> Any:
        total = 0.0
        for i, x in enumerate(xs):
            scale = 1 + 0.001 * i
            z = (x - 0.01 * i) / scale
            total = total + (-0.5 * z**2 - jnp.log(scale) + jnp.log1p(jnp.exp(-jnp.abs(x))))
        return total

    vg = jax.value_and_grad(logp, argnums=tuple(range(nv)))

    def fn(*xs: Any) -> Any:
        value, grads = vg(*xs)
        return [value, *grads]

    args = [0.1] * nv
    f, comp, ttfr, out = b.build(fn, args)
    idx = np.arange(nv)
    g_ref = -(0.1 - 0.01 * idx) / (1 + 0.001 * idx) ** 2 - 1 / (1 + np.exp(0.1))
    ok = bool(np.isfinite(out[0])) and np.allclose(np.asarray(out[1:], dtype=float), g_ref)
    b.record(f"big_graph_{nv}_vars_grad", comp, ttfr, median_call(f, args, budget=0.5), ok)


def _jacobian_setup(b: JaxBench) -> tuple[Callable[[Any], Any], np.ndarray, np.ndarray]:
    A = jacobian_matrix()
    xv = np.random.default_rng(5).normal(size=JAC_N)
    jA = b.jnp.asarray(A)

    def y(x: Any) -> Any:
        return b.jnp.tanh(jA @ x) * x

    return y, xv, jacobian_reference(A, xv)


def jacobian_vectorized(b: JaxBench, nv: int) -> None:
    """``jax.jacrev``: vmap of the vector-jacobian product over the output basis."""
    y, xv, ref = _jacobian_setup(b)
    f, comp, ttfr, out = b.build(b.jax.jacrev(y), (xv,))
    ok = np.allclose(out, ref)
    b.record("jacobian_vectorized", comp, ttfr, median_call(f, (xv,)), ok, vectorize=True)


def jacobian_loop(b: JaxBench, nv: int) -> None:
    """One ``jax.grad`` per output element, stacked (the unvectorized form)."""
    jax, jnp = b.jax, b.jnp
    y, xv, ref = _jacobian_setup(b)

    def jac(x: Any) -> Any:
        return jnp.stack([jax.grad(lambda v, i=i: y(v)[i])(x) for i in range(JAC_N)])

    f, comp, ttfr, out = b.build(jac, (xv,))
    b.record("jacobian_loop", comp, ttfr, median_call(f, (xv,)), np.allclose(out, ref))


def rnn_bptt(b: JaxBench, nv: int) -> None:
    """The tanh RNN of ``workloads.rnn_bptt`` through ``jax.lax.scan``, with
    ``jax.value_and_grad`` for the loss and its gradient wrt (W_in, W_h, b)."""
    jax, jnp = b.jax, b.jnp

    def loss(params: Any, xs: Any, h0: Any) -> Any:
        w_in, w_h, bias = params

        def step(h: Any, x_t: Any) -> Any:
            h = jnp.tanh(x_t @ w_in + h @ w_h + bias)
            return h, None

        last, _ = jax.lax.scan(step, h0, xs)
        return jnp.mean(last)

    vg = jax.value_and_grad(loss)

    def fn(xs: Any, h0: Any, w_in: Any, w_h: Any, bias: Any) -> Any:
        value, grads = vg((w_in, w_h, bias), xs, h0)
        return (value, *grads)

    args = rnn_data()
    f, comp, ttfr, out = b.build(fn, args)
    ref = rnn_reference(*args)
    ok = all(np.allclose(o, r) for o, r in zip(out, ref, strict=True))
    b.record("rnn_bptt", comp, ttfr, median_call(f, args), ok)


def scan_small_steps(b: JaxBench, nv: int) -> None:
    """``x_{t+1} = x_t * a + sin(x_t)`` for 10,000 steps by ``jax.lax.scan``; the last
    ``x`` and its gradient wrt ``a``."""
    jax, jnp = b.jax, b.jnp

    def last(x0: Any, a: Any) -> Any:
        def step(x: Any, _: Any) -> Any:
            return x * a + jnp.sin(x), None

        x, _ = jax.lax.scan(step, x0, None, length=SCAN_STEPS)
        return x

    fn = jax.value_and_grad(last, argnums=1)
    args = (1.0, 0.5)
    f, comp, ttfr, out = b.build(fn, args)
    ok = np.allclose(np.asarray(out, dtype=float), scan_small_reference(*args))
    call_s = median_call(f, args)
    b.record("scan_small_steps", comp, ttfr, call_s, ok,
             per_step_us=round(call_s * 1e6 / SCAN_STEPS, 4))


def convnet_step(b: JaxBench, nv: int) -> None:
    """The LeNet-5 sized SGD step of ``workloads.convnet_step``: ``jax.lax.conv`` (the kernel
    flipped, a true convolution as in Theano), 2x2 max pooling by ``lax.reduce_window``,
    ``jax.value_and_grad`` and the SGD update in one ``jax.jit``."""
    jax, jnp = b.jax, b.jnp
    lax = jax.lax

    def conv(x: Any, w: Any) -> Any:
        return lax.conv_general_dilated(x, w[:, :, ::-1, ::-1], (1, 1), "VALID",
                                        dimension_numbers=("NCHW", "OIHW", "NCHW"))

    def pool(x: Any) -> Any:
        return lax.reduce_window(x, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")

    def loss(params: Any, X: Any, Y: Any) -> Any:
        W1, b1, W2, b2, W3, b3, W4, b4 = params
        h1 = jnp.tanh(pool(conv(X, W1)) + b1[None, :, None, None])
        h2 = jnp.tanh(pool(conv(h1, W2)) + b2[None, :, None, None])
        h3 = jnp.tanh(h2.reshape(X.shape[0], -1) @ W3 + b3)
        prob = jax.nn.softmax(h3 @ W4 + b4, axis=-1)
        return -jnp.mean(jnp.sum(Y * jnp.log(prob), axis=1))

    vg = jax.value_and_grad(loss)

    def step(params: Any, X: Any, Y: Any) -> Any:
        value, grads = vg(params, X, Y)
        return value, tuple(q - CONV_LR * g for q, g in zip(params, grads, strict=True))

    values, Xv, Yv = convnet_data()
    params = tuple(values.values())
    f, comp, ttfr, (first_loss, params) = b.build(step, (params, Xv, Yv))
    later = []
    for _ in range(5):
        value, params = f(params, Xv, Yv)
        later.append(float(value))
    ok = (np.isclose(float(first_loss), convnet_reference_loss(values, Xv, Yv))
          and all(np.isfinite(later)) and later[-1] < float(first_loss))
    b.record("convnet_step_64", comp, ttfr, median_call(f, (params, Xv, Yv), budget=3.0), ok,
             conv_api="lax.conv_general_dilated")


def sparse_logreg(b: JaxBench, nv: int) -> None:
    """``workloads.sparse_logreg`` with ``jax.experimental.sparse``: the design as a BCOO
    matrix (JAX's general sparse format; its BCSR ran 1.5x slower here), ``X @ w``."""
    from jax.experimental import sparse as jsparse

    step = _logreg_step(b)
    Xs, tv, wv, bias = sparse_logreg_data()
    args = (jsparse.BCOO.from_scipy_sparse(Xs), tv, wv, bias)
    f, comp, ttfr, out = b.build(step, args)
    ref = sparse_logreg_reference(Xs, tv, wv, bias)
    ok = all(np.allclose(o, r) for o, r in zip(out, ref, strict=True))
    b.record("sparse_logreg_10000x1000", comp, ttfr, median_call(f, args), ok,
             sparse_format="BCOO")


def gp_logp(b: JaxBench, nv: int) -> None:
    """``workloads.gp_logp``: Cholesky, triangular solves and log det(K) as twice the sum
    of the log of the Cholesky diagonal (JAX's idiom), ``jax.value_and_grad``."""
    jax, jnp = b.jax, b.jnp
    from jax.scipy.linalg import solve_triangular

    def logp(theta: Any, X: Any, y: Any) -> Any:
        ls, var, noise = theta
        r = (X**2).sum(axis=1)
        sq = r[:, None] + r[None, :] - 2.0 * X @ X.T
        K = var * jnp.exp(-0.5 * sq / ls**2) + noise * jnp.eye(X.shape[0])
        L = jnp.linalg.cholesky(K)
        alpha = solve_triangular(L.T, solve_triangular(L, y, lower=True), lower=False)
        return (-0.5 * y @ alpha - jnp.sum(jnp.log(jnp.diag(L)))
                - 0.5 * X.shape[0] * np.log(2 * np.pi))

    fn = jax.value_and_grad(logp)
    Xv, yv, theta = gp_data()
    args = (jnp.asarray(theta), Xv, yv)
    f, comp, ttfr, (value, grad) = b.build(fn, args)
    ok = np.allclose([float(value), *np.asarray(grad)], gp_reference(Xv, yv, *theta),
                     rtol=1e-6)
    b.record("gp_logp_500", comp, ttfr, median_call(f, args, budget=3.0), ok)


def batched_solve(b: JaxBench, nv: int) -> None:
    """``workloads.batched_solve``: ``jnp.linalg.solve`` on the stack, ``jax.value_and_grad``
    wrt ``A`` and ``b``."""
    jax, jnp = b.jax, b.jnp

    def cost(A: Any, rhs: Any, w: Any) -> Any:
        return (w * jnp.linalg.solve(A, rhs[..., None])[..., 0]).sum()

    fn = jax.value_and_grad(cost, argnums=(0, 1))
    args = bsolve_data()
    f, comp, ttfr, (value, (gA, gb)) = b.build(fn, args)
    ref = bsolve_reference(*args)
    ok = all(np.allclose(np.asarray(o), r) for o, r in zip((value, gA, gb), ref))
    b.record("batched_solve_1000x8", comp, ttfr, median_call(f, args, budget=2.0), ok)


Case = tuple[str, Callable[[JaxBench, int], None]]

WORKLOADS: dict[str, tuple[Case, ...]] = {
    "startup": (("startup", startup),),
    "scalar_overhead": (("scalar_overhead", scalar_overhead),),
    "elemwise_chain": (("elemwise_chain_1e6", elemwise_chain),),
    "logreg_grad": (("logreg_grad_1000x100", logreg_grad),),
    "mlp_train_step": (("mlp_train_step_128", mlp_train_step),),
    "dropout_mlp_step": (("dropout_mlp_step_128", dropout_mlp_step),),
    "big_graph_compile": (("big_graph_{nv}_vars_grad", big_graph_compile),),
    "jacobian_vectorized": (
        ("jacobian_vectorized", jacobian_vectorized),
        ("jacobian_loop", jacobian_loop),
    ),
    "rnn_bptt": (("rnn_bptt", rnn_bptt),),
    "scan_small_steps": (("scan_small_steps", scan_small_steps),),
    "convnet_step": (("convnet_step_64", convnet_step),),
    "sparse_logreg": (("sparse_logreg_10000x1000", sparse_logreg),),
    "gp_logp": (("gp_logp_500", gp_logp),),
    "batched_solve": (("batched_solve_1000x8", batched_solve),),
}


def run(
    only: Sequence[str] | None = None, nv: int | None = None, emit: Emit = print_record
) -> list[Record]:
    """Run the selected JAX workloads; returns (and emits) the records."""
    return run_table(WORKLOADS, JaxBench, "jax", None, only, nv, emit)


def main(argv: Sequence[str]) -> int:
    if argv and argv[0] in {"-h", "--help"}:
        print(__doc__)
        return 0
    only = [k for k in argv[0].split(",") if k] if argv else None
    run(only)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
