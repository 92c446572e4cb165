"""Benchmark workloads for a library with the Theano API (theon or pytensor).

Command line (prints one JSON object per line, one line per measured case)::

    python bench/workloads.py LIB [MODE] [ONLY]
    NV=100 python bench/workloads.py theon "" big_graph_compile

``LIB`` is ``theon`` or ``pytensor``; ``MODE`` is passed to ``function(mode=...)``
(empty string = library default); ``ONLY`` is a comma separated list of workload
keys (see ``WORKLOADS``).  ``NV`` (environment) sets the number of variables of the
``big_graph_compile`` workload (default 300).

From Python::

    from bench.workloads import run
    records = run("theon", only=["scalar_overhead"], nv=100)

Every record holds ``lib``, ``mode``, ``workload`` and either ``error`` or
``compile_s`` (seconds spent inside ``function()``), ``ttfr_s`` (seconds from the
start of ``function()`` until the first result is back), ``call_us`` (median
call time, microseconds) and ``ok`` (result agrees with a NumPy reference).
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import json
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

import numpy as np

Record = dict[str, Any]
Emit = Callable[[Record], None]

JAC_N = 100  # length of the vector in the jacobian workloads
MAX_SAMPLES = 200_000


def median_call(f: Callable[..., Any], args: Sequence[Any], budget: float = 1.0) -> float:
    """Median wall time (s) of ``f(*args)`` over ``budget`` seconds, after one warm-up call."""
    f(*args)
    samples: list[float] = []
    clock = time.perf_counter
    deadline = clock() + budget
    while clock() < deadline and len(samples) < MAX_SAMPLES:
        start = clock()
        f(*args)
        samples.append(clock() - start)
    return statistics.median(samples)


class Bench:
    """Holds the library under test and the helpers shared by all workloads."""

    def __init__(self, libname: str, mode: str | None, emit: Emit) -> None:
        self.libname = libname
        self.mode = mode or None
        self.emit = emit
        t0 = time.perf_counter()
        self.lib: ModuleType = importlib.import_module(libname)
        self.T: ModuleType = importlib.import_module(libname + ".tensor")
        #: seconds to import the library and its tensor module (see :func:`startup`)
        self.import_s = time.perf_counter() - t0

    # -- library feature lookup -------------------------------------------------
    def op(self, *names: str) -> Callable[..., Any]:
        """First attribute of ``tensor`` (or a dotted sub-module path) that exists."""
        for name in names:
            obj: Any = self.T
            try:
                for part in name.split("."):
                    obj = getattr(obj, part)
            except AttributeError:
                continue
            return obj
        raise AttributeError(f"{self.libname}.tensor has none of {names}")

    def jacobian_fn(self) -> Callable[..., Any]:
        for modname in (self.libname + ".gradient", self.libname):
            try:
                mod = importlib.import_module(modname)
            except ImportError:
                continue
            fn = getattr(mod, "jacobian", None)
            if fn is not None:
                return fn
        return self.op("jacobian")

    # -- measuring -----------------------------------------------------------------
    def build(
        self, inputs: list[Any], outputs: Any, args: Sequence[Any], **kw: Any
    ) -> tuple[Callable[..., Any], float, float, Any]:
        """Compile and run once: (function, compile_s, ttfr_s, first result)."""
        if self.mode:
            kw["mode"] = self.mode
        t0 = time.perf_counter()
        f = self.lib.function(inputs, outputs, **kw)
        t1 = time.perf_counter()
        result = f(*args)
        t2 = time.perf_counter()
        if self.libname == "theon" and importlib.util.find_spec("theon.link.tier1"):
            # theon's tier-1 kernels compile in the background while tier 0 serves calls
            # (docs/tier1.md): let them land before the call time is measured (an older
            # tree, a --theon-at column, has no tier 1)
            tier1 = importlib.import_module("theon.link.tier1")
            tier1.wait(120)
        return f, t1 - t0, t2 - t0, result

    def record(
        self, name: str, compile_s: float, ttfr_s: float, call_s: float, ok: Any, **extra: Any
    ) -> None:
        self.emit(
            {
                "lib": self.libname,
                "mode": self.mode,
                "workload": name,
                "compile_s": round(compile_s, 4),
                "ttfr_s": round(ttfr_s, 4),
                "call_us": round(call_s * 1e6, 2),
                "ok": bool(ok),
                **extra,
            }
        )


# ---------------------------------------------------------------------------------
# workloads; each takes a Bench, measures, and emits one or more records
# ---------------------------------------------------------------------------------


def startup(b: Bench, nv: int) -> None:
    """A fresh process's one-time cost: import, then the first (trivial) function.

    ``compile_s`` is the import of the library and its tensor module, ``ttfr_s``
    the import plus compiling and calling ``x + 1`` on a scalar.  It runs first,
    so what a library defers from its import to its first compile (theon loads
    its rewrites and linker emitters then; JAX starts its backend) is counted
    here, and the other workloads' ``ttfr`` is for a library already started.
    Only a dependency first needed by a later workload (SciPy, for theon's
    ``sigmoid``) is still charged to that workload.
    """
    x = b.T.dscalar("x")
    f, comp, ttfr, out = b.build([x], x + 1, (2.0,))
    b.record("startup", b.import_s, b.import_s + ttfr, median_call(f, (2.0,)), out == 3.0)


def scalar_overhead(b: Bench, nv: int) -> None:
    T = b.T
    a, c = T.dscalar("x"), T.dscalar("y")
    args = (2.0, 3.0)
    f, comp, ttfr, out = b.build([a, c], a * c + 1, args)
    b.record("scalar_overhead", comp, ttfr, median_call(f, args), np.allclose(out, 7.0))


def chain_reference(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    x2 = x * x
    return np.exp(-x2) * np.sin(y) + np.log1p(x2) - np.tanh(y) / 2 + np.sqrt(np.abs(x * y) + 1)


def elemwise_chain(b: Bench, nv: int) -> None:
    T = b.T
    absolute = b.op("abs", "abs_")
    x, y = T.dvector("x"), T.dvector("y")
    expr = T.exp(-(x**2)) * T.sin(y) + T.log1p(x**2) - T.tanh(y) / 2 + T.sqrt(absolute(x * y) + 1)
    rng = np.random.default_rng(1)
    args = (rng.normal(size=1_000_000), rng.normal(size=1_000_000))
    f, comp, ttfr, out = b.build([x, y], expr, args)
    b.record(
        "elemwise_chain_1e6",
        comp,
        ttfr,
        median_call(f, args),
        np.allclose(out, chain_reference(*args)),
        numpy_eager_us=round(median_call(chain_reference, args) * 1e6, 1),
    )


def logreg_grad(b: Bench, nv: int) -> None:
    T, lib = b.T, b.lib
    sigmoid = b.op("sigmoid", "nnet.sigmoid")
    X, t = T.dmatrix("X"), T.dvector("y")
    w, bias = T.dvector("w"), T.dscalar("b")
    p = sigmoid(T.dot(X, w) + bias)
    nll = -T.mean(t * T.log(p) + (1 - t) * T.log(1 - p))
    loss = nll + 0.01 * (w**2).sum()
    gw, gb = lib.grad(loss, [w, bias])
    rng = np.random.default_rng(2)
    Xv = rng.normal(size=(1000, 100))
    tv = (rng.random(1000) > 0.5).astype(np.float64)
    wv = 0.1 * rng.normal(size=100)
    args = (Xv, tv, wv, 0.1)
    f, comp, ttfr, out = b.build([X, t, w, bias], [loss, gw, gb], args)
    prob = 1.0 / (1.0 + np.exp(-(Xv @ wv + 0.1)))
    gw_ref = Xv.T @ (prob - tv) / len(tv) + 0.02 * wv
    gb_ref = np.mean(prob - tv)
    ok = np.allclose(out[1], gw_ref) and np.allclose(out[2], gb_ref)
    b.record("logreg_grad_1000x100", comp, ttfr, median_call(f, args), ok)


def _mlp_step(b: Bench, dropout: Any = None) -> tuple[Callable[..., Any], float, float, Any,
                                                      tuple[Any, ...]]:
    """The 784-256-10 tanh/softmax MLP SGD step, the hidden layer times ``dropout`` if given:
    (function, compile_s, ttfr_s, first loss, args)."""
    T, lib = b.T, b.lib
    softmax = b.op("special.softmax", "nnet.softmax", "softmax")
    rng = np.random.default_rng(3)
    W1 = lib.shared(0.05 * rng.normal(size=(784, 256)), name="W1")
    b1 = lib.shared(np.zeros(256), name="b1")
    W2 = lib.shared(0.05 * rng.normal(size=(256, 10)), name="W2")
    b2 = lib.shared(np.zeros(10), name="b2")
    X, Y = T.dmatrix("X"), T.dmatrix("Y")
    hidden = T.tanh(T.dot(X, W1) + b1)
    if dropout is not None:
        hidden = hidden * dropout
    prob = softmax(T.dot(hidden, W2) + b2, axis=-1)
    loss = -T.mean(T.sum(Y * T.log(prob), axis=1))
    params = [W1, b1, W2, b2]
    grads = lib.grad(loss, params)
    updates = [(q, q - 0.1 * g) for q, g in zip(params, grads, strict=True)]
    Xv = rng.normal(size=(128, 784))
    Yv = np.eye(10)[rng.integers(0, 10, size=128)]
    args = (Xv, Yv)
    f, comp, ttfr, first_loss = b.build([X, Y], loss, args, updates=updates)
    return f, comp, ttfr, first_loss, args


def mlp_train_step(b: Bench, nv: int) -> None:
    f, comp, ttfr, first_loss, args = _mlp_step(b)
    later = first_loss
    for _ in range(5):
        later = f(*args)
    ok = bool(np.isfinite(later)) and float(later) < float(first_loss)
    b.record("mlp_train_step_128", comp, ttfr, median_call(f, args), ok)


def dropout_mlp_step(b: Bench, nv: int) -> None:
    """``mlp_train_step`` with dropout (p = 0.5, inverted) on the hidden layer.

    The mask is ``<lib>.tensor.random.utils.RandomStream(42).binomial(n=1, p=0.5)``;
    its generator's default update goes with the function, so each call draws anew.
    """
    utils = importlib.import_module(b.libname + ".tensor.random.utils")
    mask = utils.RandomStream(42).binomial(n=1, p=0.5, size=(128, 256))
    f, comp, ttfr, first_loss, args = _mlp_step(b, mask * 2.0)
    later = [float(f(*args)) for _ in range(10)]
    # the loss falls, and the masks differ from call to call (the generator advances)
    ok = (all(np.isfinite(later)) and np.mean(later[-3:]) < float(first_loss)
          and len(set(later)) == len(later))
    b.record("dropout_mlp_step_128", comp, ttfr, median_call(f, args), ok,
             rng_api="RandomStream")


def big_graph_compile(b: Bench, nv: int) -> None:
    """Many small independent terms, like a log-density with many scalar parameters."""
    T, lib = b.T, b.lib
    xs = [T.dscalar(f"x{i}") for i in range(nv)]
    absolute = b.op("abs", "abs_")
    terms = []
    for i, x in enumerate(xs):
        scale = 1 + 0.001 * i
        z = (x - 0.01 * i) / scale
        terms.append(-0.5 * z**2 - T.log(scale) + T.log1p(T.exp(-absolute(x))))
    add = getattr(T, "add", None)
    logp = add(*terms) if add is not None else sum(terms[1:], terms[0])
    grads = lib.grad(logp, xs)
    args = [0.1] * nv
    f, comp, ttfr, out = b.build(xs, [logp, *grads], args)
    # d/dx of the term at x = 0.1 > 0: -(x - 0.01 i) / s_i**2 - sigmoid(-x)
    idx = np.arange(nv)
    g_ref = -(0.1 - 0.01 * idx) / (1 + 0.001 * idx) ** 2 - 1 / (1 + np.exp(0.1))
    ok = bool(np.isfinite(out[0])) and np.allclose(np.asarray(out[1:], dtype=float), g_ref)
    b.record(f"big_graph_{nv}_vars_grad", comp, ttfr, median_call(f, args, budget=0.5), ok)


def jacobian_matrix(n: int = JAC_N) -> np.ndarray:
    """The fixed matrix A of the jacobian workloads (deterministic)."""
    return np.random.default_rng(4).normal(size=(n, n)) / np.sqrt(n)


def jacobian_reference(A: np.ndarray, x: np.ndarray) -> np.ndarray:
    """d/dx of tanh(A @ x) * x."""
    t = np.tanh(A @ x)
    return ((1 - t**2) * x)[:, None] * A + np.diag(t)


def _jacobian_setup(b: Bench) -> tuple[Any, Any, np.ndarray, np.ndarray]:
    A = jacobian_matrix()
    xv = np.random.default_rng(5).normal(size=JAC_N)
    x = b.T.dvector("x")
    y = b.T.tanh(b.T.dot(b.T.constant(A), x)) * x
    return x, y, xv, jacobian_reference(A, xv)


def jacobian_vectorized(b: Bench, nv: int) -> None:
    """Jacobian of y = tanh(A @ x) * x through ``jacobian(y, x, vectorize=True)``."""
    x, y, xv, ref = _jacobian_setup(b)
    jac = b.jacobian_fn()
    try:
        vectorized = "vectorize" in inspect.signature(jac).parameters
    except (TypeError, ValueError):  # no introspectable signature
        vectorized = False
    J = jac(y, x, vectorize=True) if vectorized else jac(y, x)
    f, comp, ttfr, out = b.build([x], J, (xv,))
    ok = np.allclose(out, ref)
    b.record("jacobian_vectorized", comp, ttfr, median_call(f, (xv,)), ok, vectorize=vectorized)


def jacobian_loop(b: Bench, nv: int) -> None:
    """The same jacobian built as one ``grad(y[i], x)`` per output element, stacked."""
    x, y, xv, ref = _jacobian_setup(b)
    rows = [b.lib.grad(y[i], x) for i in range(JAC_N)]
    f, comp, ttfr, out = b.build([x], b.T.stack(rows), (xv,))
    b.record("jacobian_loop", comp, ttfr, median_call(f, (xv,)), np.allclose(out, ref))


# -- control flow (scan) ------------------------------------------------------------
RNN_T, RNN_BATCH, RNN_IN, RNN_HID = 200, 16, 32, 64
SCAN_STEPS = 10_000


def rnn_data() -> tuple[np.ndarray, ...]:
    """Inputs of ``rnn_bptt``: xs (T, batch, in), h0, W_in (in, hid), W_h (hid, hid), b."""
    rng = np.random.default_rng(6)
    xs = rng.normal(size=(RNN_T, RNN_BATCH, RNN_IN))
    h0 = np.zeros((RNN_BATCH, RNN_HID))
    w_in = rng.normal(size=(RNN_IN, RNN_HID)) / np.sqrt(RNN_IN)
    w_h = rng.normal(size=(RNN_HID, RNN_HID)) / np.sqrt(RNN_HID)
    bias = 0.1 * rng.normal(size=RNN_HID)
    return xs, h0, w_in, w_h, bias


def rnn_reference(
    xs: np.ndarray, h0: np.ndarray, w_in: np.ndarray, w_h: np.ndarray, bias: np.ndarray
) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
    """Loss ``mean(h_T)`` of ``h_t = tanh(x_t @ W_in + h_{t-1} @ W_h + b)`` and its
    gradients with respect to (W_in, W_h, b), by a forward loop and hand-written BPTT."""
    hs = [h0]
    for x in xs:
        hs.append(np.tanh(x @ w_in + hs[-1] @ w_h + bias))
    loss = float(hs[-1].mean())
    g_in, g_h, g_b = np.zeros_like(w_in), np.zeros_like(w_h), np.zeros_like(bias)
    dh = np.full_like(h0, 1.0 / h0.size)
    for t in range(len(xs), 0, -1):
        da = dh * (1.0 - hs[t] ** 2)
        g_in += xs[t - 1].T @ da
        g_h += hs[t - 1].T @ da
        g_b += da.sum(axis=0)
        dh = da @ w_h.T
    return loss, g_in, g_h, g_b


def rnn_bptt(b: Bench, nv: int) -> None:
    """A tanh RNN (hidden 64, input 32, 200 steps, batch 16) through ``scan``; the loss is
    the mean of the last hidden state, with its gradient wrt W_in, W_h and b (BPTT)."""
    T, lib = b.T, b.lib
    xs, h0, w_in, w_h, bias = (
        T.dtensor3("xs"), T.dmatrix("h0"), T.dmatrix("W_in"), T.dmatrix("W_h"), T.dvector("b"))

    def step(x_t: Any, h: Any, wi: Any, wh: Any, bb: Any) -> Any:
        return T.tanh(T.dot(x_t, wi) + T.dot(h, wh) + bb)

    hs, _ = lib.scan(step, sequences=xs, outputs_info=h0, non_sequences=[w_in, w_h, bias])
    loss = hs[-1].mean()
    grads = lib.grad(loss, [w_in, w_h, bias])
    args = rnn_data()
    f, comp, ttfr, out = b.build([xs, h0, w_in, w_h, bias], [loss, *grads], args)
    ref = rnn_reference(*args)
    ok = all(np.allclose(o, r) for o, r in zip(out, ref, strict=True))
    b.record("rnn_bptt", comp, ttfr, median_call(f, args), ok)


def scan_small_reference(x0: float, a: float, n: int = SCAN_STEPS) -> tuple[float, float]:
    """Last ``x`` of ``x_{t+1} = x_t * a + sin(x_t)`` and ``dx/da`` by forward-mode recurrence
    ``dx_{t+1}/da = x_t + (a + cos(x_t)) dx_t/da``."""
    x, dx = x0, 0.0
    for _ in range(n):
        x, dx = x * a + np.sin(x), x + (a + np.cos(x)) * dx
    return float(x), float(dx)


def scan_small_steps(b: Bench, nv: int) -> None:
    """A scalar recurrence of 10,000 steps and its gradient wrt ``a``: per-step overhead."""
    T, lib = b.T, b.lib
    x0, a = T.dscalar("x0"), T.dscalar("a")
    xs, _ = lib.scan(
        lambda x, aa: x * aa + T.sin(x), outputs_info=x0, non_sequences=a, n_steps=SCAN_STEPS)
    last = xs[-1]
    args = (1.0, 0.5)
    f, comp, ttfr, out = b.build([x0, a], [last, lib.grad(last, a)], args)
    ok = np.allclose(np.asarray(out, dtype=float), scan_small_reference(*args))
    call_s = median_call(f, args)
    b.record("scan_small_steps", comp, ttfr, call_s, ok,
             per_step_us=round(call_s * 1e6 / SCAN_STEPS, 4))


# -- convolutional network (LeNet-5 sized) -----------------------------------------
CONV_BATCH = 64
CONV_LR = 0.01
CONV_SHAPES = {  # parameter shapes of the LeNet-5 sized network of ``convnet_step``
    "W1": (20, 1, 5, 5), "b1": (20,), "W2": (50, 20, 5, 5), "b2": (50,),
    "W3": (800, 500), "b3": (500,), "W4": (500, 10), "b4": (10,),
}


def convnet_data() -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray]:
    """Parameters, images (64, 1, 28, 28) and one-hot labels (64, 10) of ``convnet_step``."""
    rng = np.random.default_rng(7)
    params = {}
    for name, shape in CONV_SHAPES.items():
        fan_in = shape[0] if len(shape) == 2 else int(np.prod(shape[1:]))
        params[name] = (rng.normal(size=shape) / np.sqrt(fan_in) if len(shape) > 1
                        else np.zeros(shape))
    X = rng.normal(size=(CONV_BATCH, 1, 28, 28))
    Y = np.eye(10)[rng.integers(0, 10, size=CONV_BATCH)]
    return params, X, Y


def convnet_reference_loss(params: dict[str, np.ndarray], X: np.ndarray, Y: np.ndarray) -> float:
    """The loss of the network by NumPy: convolutions as window sums with flipped kernels."""
    from numpy.lib.stride_tricks import sliding_window_view

    def conv(x: np.ndarray, w: np.ndarray) -> np.ndarray:
        win = sliding_window_view(x, w.shape[2:], axis=(2, 3))  # (N, C, H', W', kh, kw)
        return np.einsum("nchwij,ocij->nohw", win, w[:, :, ::-1, ::-1])

    def pool_tanh(x: np.ndarray, bias: np.ndarray) -> np.ndarray:
        n, c, h, w = x.shape
        pooled = x.reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))
        return np.tanh(pooled + bias[None, :, None, None])

    p = params
    h1 = pool_tanh(conv(X, p["W1"]), p["b1"])
    h2 = pool_tanh(conv(h1, p["W2"]), p["b2"])
    h3 = np.tanh(h2.reshape(len(X), -1) @ p["W3"] + p["b3"])
    z = h3 @ p["W4"] + p["b4"]
    z = z - z.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return float(-np.mean(np.sum(Y * logp, axis=1)))


def _conv_layers(b: Bench) -> tuple[Callable[..., Any], Callable[..., Any], str]:
    """``conv(x, w)`` (a true, 'valid' convolution) and ``pool(x)`` (2x2 max) for ``b.lib``.

    Theano's API (``tensor.nnet.conv2d``, ``tensor.signal.pool.pool_2d``) where the library
    has it; PyTensor 3 dropped both, so there the convolution is ``tensor.signal.convolve2d``
    batched over (image, filter) and summed over channels, and the pooling a reshape + max.
    """
    T = b.T
    try:
        conv2d = b.op("nnet.conv2d")
        pool_2d = importlib.import_module(b.libname + ".tensor.signal.pool").pool_2d
    except (AttributeError, ImportError):
        convolve2d = importlib.import_module(b.libname + ".tensor.signal").convolve2d

        def conv(x: Any, w: Any, ishape: tuple[int, ...]) -> Any:
            out = convolve2d(x[:, None, :, :, :], w[None, :, :, :, :], mode="valid")
            return out.sum(axis=2)

        def pool(x: Any, shape: tuple[int, ...]) -> Any:
            n, c, h, w = shape
            return T.max(x.reshape((n, c, h // 2, 2, w // 2, 2)), axis=(3, 5))

        return conv, pool, "signal.convolve2d"

    def conv_nnet(x: Any, w: Any, ishape: tuple[int, ...]) -> Any:
        return conv2d(x, w, input_shape=ishape, filter_shape=w.get_value().shape)

    def pool_nnet(x: Any, shape: tuple[int, ...]) -> Any:
        return pool_2d(x, ws=(2, 2), ignore_border=True)

    return conv_nnet, pool_nnet, "nnet.conv2d"


def convnet_step(b: Bench, nv: int) -> None:
    """LeNet-5 sized SGD step: conv 20@5x5, maxpool 2, tanh, conv 50@5x5, maxpool 2, tanh,
    dense 500 tanh, softmax 10; batch 64 of 1x28x28, float64.  ``ok``: the first loss
    equals a NumPy forward pass and the loss falls over 5 steps."""
    T, lib = b.T, b.lib
    softmax = b.op("special.softmax", "nnet.softmax", "softmax")
    conv, pool, api = _conv_layers(b)
    values, Xv, Yv = convnet_data()
    p = {k: lib.shared(v.copy(), name=k) for k, v in values.items()}
    X, Y = T.dtensor4("X"), T.dmatrix("Y")
    n = CONV_BATCH
    c1 = conv(X, p["W1"], (n, 1, 28, 28))
    h1 = T.tanh(pool(c1, (n, 20, 24, 24)) + p["b1"].dimshuffle("x", 0, "x", "x"))
    c2 = conv(h1, p["W2"], (n, 20, 12, 12))
    h2 = T.tanh(pool(c2, (n, 50, 8, 8)) + p["b2"].dimshuffle("x", 0, "x", "x"))
    h3 = T.tanh(T.dot(h2.reshape((n, 800)), p["W3"]) + p["b3"])
    prob = softmax(T.dot(h3, p["W4"]) + p["b4"], axis=-1)
    loss = -T.mean(T.sum(Y * T.log(prob), axis=1))
    params = list(p.values())
    grads = lib.grad(loss, params)
    updates = [(q, q - CONV_LR * g) for q, g in zip(params, grads, strict=True)]
    args = (Xv, Yv)
    f, comp, ttfr, first_loss = b.build([X, Y], loss, args, updates=updates)
    later = [float(f(*args)) for _ in range(5)]
    ok = (np.isclose(float(first_loss), convnet_reference_loss(values, Xv, Yv))
          and all(np.isfinite(later)) and later[-1] < float(first_loss))
    b.record("convnet_step_64", comp, ttfr, median_call(f, args, budget=3.0), ok, conv_api=api)


SPARSE_SHAPE = (10_000, 1_000)
SPARSE_DENSITY = 0.01


def sparse_logreg_data() -> tuple[Any, np.ndarray, np.ndarray, float]:
    """A 10,000 x 1,000 CSR design at 1% density, labels, weights and a bias."""
    import scipy.sparse as sp

    rng = np.random.default_rng(5)
    X = sp.random(*SPARSE_SHAPE, density=SPARSE_DENSITY, format="csr", random_state=rng,
                  data_rvs=rng.standard_normal)
    t = (rng.random(SPARSE_SHAPE[0]) > 0.5).astype(np.float64)
    w = 0.1 * rng.normal(size=SPARSE_SHAPE[1])
    return X, t, w, 0.1


def sparse_logreg_reference(X: Any, t: np.ndarray, w: np.ndarray, bias: float
                            ) -> tuple[float, np.ndarray, float]:
    """Loss and gradients of ``sparse_logreg`` with scipy.sparse and NumPy."""
    z = X @ w + bias
    p = 1.0 / (1.0 + np.exp(-z))
    loss = -np.mean(t * np.log(p) + (1 - t) * np.log(1 - p)) + 0.01 * np.sum(w**2)
    return float(loss), X.T @ (p - t) / len(t) + 0.02 * w, float(np.mean(p - t))


def sparse_logreg(b: Bench, nv: int) -> None:
    """Logistic regression loss and gradient (weights, bias) with a sparse CSR design
    (``<lib>.sparse.csr_matrix`` and ``<lib>.sparse.dot``); ``logreg_grad``'s loss.

    The product is written ``dot(X, w)`` with the weight vector; where the library's
    gradient of that fails (PyTensor 3.0.7: the pullback of its sparse ``dot`` with a
    vector calls the dense ``dot`` on the sparse operand), with the weights as a column,
    ``dot(X, w[:, None])[:, 0]``.  ``dot_form`` in the record says which ran."""
    T, lib = b.T, b.lib
    S = importlib.import_module(b.libname + ".sparse")
    sigmoid = b.op("sigmoid", "nnet.sigmoid")
    X, t = S.csr_matrix("X", dtype="float64"), T.dvector("y")
    w, bias = T.dvector("w"), T.dscalar("b")

    def graph(form: str) -> tuple[Any, Any, Any]:
        z = S.dot(X, w) if form == "vector" else S.dot(X, w[:, None])[:, 0]
        p = sigmoid(z + bias)
        nll = -T.mean(t * T.log(p) + (1 - t) * T.log(1 - p))
        loss = nll + 0.01 * (w**2).sum()
        return (loss, *lib.grad(loss, [w, bias]))

    try:
        form, outputs = "vector", graph("vector")
    except TypeError:
        form, outputs = "column", graph("column")
    args = sparse_logreg_data()
    f, comp, ttfr, out = b.build([X, t, w, bias], list(outputs), args)
    ref = sparse_logreg_reference(*args)
    ok = all(np.allclose(o, r) for o, r in zip(out, ref, strict=True))
    b.record("sparse_logreg_10000x1000", comp, ttfr, median_call(f, args), ok, dot_form=form)


GP_N = 500  # points of gp_logp
BSOLVE_BATCH, BSOLVE_N = 1000, 8  # systems of batched_solve


def gp_data() -> tuple[np.ndarray, np.ndarray, tuple[float, float, float]]:
    """Inputs (500, 2), targets (500,) and (lengthscale, variance, noise) of ``gp_logp``."""
    rng = np.random.default_rng(16)
    X = rng.uniform(-3, 3, size=(GP_N, 2))
    y = np.sin(X[:, 0]) * np.cos(X[:, 1]) + 0.1 * rng.normal(size=GP_N)
    return X, y, (1.3, 0.8, 0.1)


def gp_reference(X: np.ndarray, y: np.ndarray, ls: float, var: float, noise: float
                 ) -> tuple[float, float, float, float]:
    """The log marginal likelihood and its gradient wrt (ls, var, noise), by NumPy:
    d logp / d theta = 0.5 tr((alpha alpha^T - K^-1) dK/dtheta)."""
    sq = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    E = np.exp(-0.5 * sq / ls**2)
    K = var * E + noise * np.eye(len(X))
    Kinv = np.linalg.inv(K)
    alpha = Kinv @ y
    logp = (-0.5 * y @ alpha - 0.5 * np.linalg.slogdet(K)[1]
            - 0.5 * len(X) * np.log(2 * np.pi))
    W = np.outer(alpha, alpha) - Kinv
    dls = 0.5 * np.sum(W * var * E * sq / ls**3)
    return logp, dls, 0.5 * np.sum(W * E), 0.5 * np.trace(W)


def gp_logp(b: Bench, nv: int) -> None:
    """The log marginal likelihood of a Gaussian process (500 points, RBF kernel) and its
    gradient wrt lengthscale, variance and noise: Cholesky, two triangular solves and
    ``log(det(K))`` (which theon rewrites to the Cholesky diagonal)."""
    T, lib = b.T, b.lib
    cholesky = b.op("linalg.cholesky", "slinalg.cholesky")
    solve_triangular = b.op("linalg.solve_triangular", "slinalg.solve_triangular")
    det = b.op("linalg.det", "nlinalg.det")
    X, y = T.dmatrix("X"), T.dvector("y")
    ls, var, noise = T.dscalar("ls"), T.dscalar("var"), T.dscalar("noise")
    r = (X**2).sum(axis=1)
    sq = r[:, None] + r[None, :] - 2.0 * T.dot(X, X.T)
    K = var * T.exp(-0.5 * sq / ls**2) + noise * T.eye(X.shape[0])
    L = cholesky(K)
    alpha = solve_triangular(L.T, solve_triangular(L, y, lower=True), lower=False)
    logp = (-0.5 * T.dot(y, alpha) - 0.5 * T.log(det(K))
            - 0.5 * X.shape[0] * np.log(2 * np.pi))
    grads = lib.grad(logp, [ls, var, noise])
    Xv, yv, theta = gp_data()
    args = (Xv, yv, *theta)
    f, comp, ttfr, out = b.build([X, y, ls, var, noise], [logp, *grads], args)
    ok = np.allclose([float(o) for o in out], gp_reference(Xv, yv, *theta), rtol=1e-6)
    b.record("gp_logp_500", comp, ttfr, median_call(f, args, budget=3.0), ok)


def bsolve_data() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(A, b, w) of ``batched_solve``: 1000 well-conditioned 8x8 systems."""
    rng = np.random.default_rng(17)
    A = rng.normal(size=(BSOLVE_BATCH, BSOLVE_N, BSOLVE_N)) + 4 * np.eye(BSOLVE_N)
    return A, rng.normal(size=(BSOLVE_BATCH, BSOLVE_N)), rng.normal(size=(BSOLVE_BATCH, BSOLVE_N))


def bsolve_reference(A: np.ndarray, bv: np.ndarray, w: np.ndarray
                     ) -> tuple[float, np.ndarray, np.ndarray]:
    """cost = sum(w * solve(A, b)); d/db = A^-T w, d/dA = -(A^-T w) x^T."""
    x = np.linalg.solve(A, bv[..., None])[..., 0]
    gb = np.linalg.solve(np.swapaxes(A, -1, -2), w[..., None])[..., 0]
    return float((w * x).sum()), -gb[..., :, None] * x[..., None, :], gb


def batched_solve(b: Bench, nv: int) -> None:
    """``solve`` of 1000 batched 8x8 systems ``A x = b`` and the gradient of
    ``sum(w * x)`` wrt ``A`` and ``b``."""
    T, lib = b.T, b.lib
    solve = b.op("linalg.solve", "slinalg.solve")
    A, rhs, w = T.dtensor3("A"), T.dmatrix("b"), T.dmatrix("w")
    x = solve(A, rhs, b_ndim=1)
    cost = (w * x).sum()
    gA, gb = lib.grad(cost, [A, rhs])
    args = bsolve_data()
    f, comp, ttfr, out = b.build([A, rhs, w], [cost, gA, gb], args)
    ref = bsolve_reference(*args)
    ok = all(np.allclose(o, r) for o, r in zip(out, ref))
    b.record("batched_solve_1000x8", comp, ttfr, median_call(f, args, budget=2.0), ok)


Case = tuple[str, Callable[[Bench, int], None]]

# workload key -> the measured cases: (record name, with {nv} filled in; function)
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


def default_nv() -> int:
    return int(os.environ.get("NV") or 300)


def print_record(rec: Record) -> None:
    print(json.dumps(rec), flush=True)


def selected(table: dict[str, tuple[Any, ...]], only: Sequence[str] | None, nv: int) -> list[Any]:
    """The (record name, function) cases of ``table`` to run.

    ``only`` may name workload keys or record names; ``None`` or empty means all.
    ``startup`` always runs first, so every selection times a started library.
    """
    wanted = set(only or ())
    if wanted:
        wanted.add("startup")
    chosen: list[Any] = []
    known = set(table)
    for key, cases in table.items():
        for template, fn in cases:
            name = template.format(nv=nv)
            known.add(name)
            if not wanted or key in wanted or name in wanted:
                chosen.append((name, fn))
    if wanted - known:
        raise ValueError(f"unknown workloads {sorted(wanted - known)}; known: {list(table)}")
    return chosen


def run_table(
    table: dict[str, tuple[Any, ...]],
    make_bench: Callable[[Emit], Any],
    libname: str,
    mode: str | None,
    only: Sequence[str] | None,
    nv: int | None,
    emit: Emit,
) -> list[Record]:
    """Run the selected cases of ``table`` with the bench object ``make_bench(emit)``.

    A failing case, or a bench that cannot be made (library not importable), yields
    a record with an ``error`` field instead of measurements.
    """
    records: list[Record] = []

    def keep(rec: Record) -> None:
        records.append(rec)
        emit(rec)

    n = nv if nv is not None else default_nv()
    cases = selected(table, only, n)

    def failed(name: str, exc: BaseException) -> None:
        keep({"lib": libname, "mode": mode or None, "workload": name, "error": repr(exc)[:300]})

    try:
        bench = make_bench(keep)
    except Exception as exc:
        for name, _ in cases:
            failed(name, exc)
        return records
    for name, fn in cases:
        try:
            fn(bench, n)
        except Exception as exc:
            failed(name, exc)
    return records


def run(
    libname: str,
    mode: str | None = None,
    only: Sequence[str] | None = None,
    nv: int | None = None,
    emit: Emit = print_record,
) -> list[Record]:
    """Run the selected workloads for ``libname``; returns (and emits) the records."""

    def make(keep: Emit) -> Bench:
        return Bench(libname, mode, keep)

    return run_table(WORKLOADS, make, libname, mode, only, nv, emit)


def main(argv: Sequence[str]) -> int:
    if not argv or argv[0] in {"-h", "--help"}:
        print(__doc__)
        return 0 if argv else 2
    libname = argv[0]
    mode = argv[1] if len(argv) > 1 and argv[1] else None
    only = [k for k in argv[2].split(",") if k] if len(argv) > 2 else None
    if libname == "theon":  # make the checkout importable when run as a script
        # THEON_SRC: another checkout to measure (bench/run.py --theon-at)
        here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        root = os.environ.get("THEON_SRC") or here
        if root not in sys.path:
            sys.path.insert(0, root)
    run(libname, mode, only)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
