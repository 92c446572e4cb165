"""The Theano deep-learning tutorials (``examples/tutorials/``) run after the import rename.

Each script is the tutorial's code written against the Theano API with ``theano``
renamed ``theon``, on small synthetic data of the tutorials' shapes; each must train
(its cost falls) or, for HMC, sample (acceptance rate near its target, moments near
the target distribution's).  No warning may be raised along the way.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

TUTORIALS = Path(__file__).resolve().parents[1] / "examples" / "tutorials"
sys.path.insert(0, str(TUTORIALS))

# Theano's module paths, renamed: what the tutorials may import from theon
THEANO_PATHS = {"theon", "theon.tensor", "theon.tensor.nnet", "theon.tensor.signal",
                "theon.tensor.signal.pool", "theon.tensor.shared_randomstreams",
                "theon.sandbox.rng_mrg"}
SCRIPTS = sorted(p.stem for p in TUTORIALS.glob("*.py") if not p.stem.startswith("_"))


@pytest.fixture(autouse=True)
def _no_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


def _falls(costs: list[float]) -> bool:
    return bool(np.all(np.isfinite(costs))) and costs[-1] < costs[0]


@pytest.mark.parametrize("script", SCRIPTS)
def test_imports_are_theanos_renamed(script: str) -> None:
    tree = ast.parse((TUTORIALS / f"{script}.py").read_text())
    used = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            used |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            used.add(node.module)
    ours = {m for m in used if m.split(".")[0] == "theon"}
    assert ours <= THEANO_PATHS, ours - THEANO_PATHS


def test_logistic_regression_trains() -> None:
    import logistic_sgd

    res = logistic_sgd.sgd_optimization_mnist()
    assert _falls(res["costs"]) and res["costs"][-1] < 0.1 * res["costs"][0]
    assert res["test_error"] < 0.1  # held-out data of the same classes


def test_mlp_trains() -> None:
    import mlp

    assert _falls(mlp.test_mlp()["costs"])


def test_denoising_autoencoder_trains() -> None:
    import dA

    assert _falls(dA.test_dA()["costs"])


@pytest.mark.parametrize("persistent", [False, True], ids=["CD-2", "PCD-2"])
def test_rbm_trains(persistent: bool) -> None:
    """The monitoring cost is a log-likelihood proxy (reconstruction cross-entropy for
    CD, pseudo-likelihood for PCD): it rises as the RBM learns."""
    import rbm

    costs = rbm.test_rbm(persistent_chain=persistent)["costs"]
    assert _falls([-c for c in costs])


def test_lstm_trains() -> None:
    import lstm

    res = lstm.train_lstm(optimizer=lstm.sgd, lrate=2.0, max_epochs=15, n_train=320)
    assert _falls(res["costs"]) and res["costs"][-1] < 0.2
    assert res["train_error"] < 0.1


def test_lenet_trains() -> None:
    import convolutional_mlp

    assert _falls(convolutional_mlp.evaluate_lenet5()["costs"])


def test_hmc_samples_the_gaussian() -> None:
    import hmc

    res = hmc.sampler_on_nd_gaussian()
    assert 0.6 < res["acceptance_rate"] < 1.0  # the target is 0.9
    samples = res["samples"]
    np.testing.assert_allclose(samples.mean(axis=0), res["mu"], atol=0.3)
    np.testing.assert_allclose(np.cov(samples.T), res["cov"], atol=0.3)


def test_a_tutorial_runs_as_a_script() -> None:
    out = subprocess.run([sys.executable, str(TUTORIALS / "logistic_sgd.py")],
                         capture_output=True, text=True, check=True, cwd=TUTORIALS)
    assert "test error" in out.stdout
