"""Every Op class of the packages whose JAX rules live in ``theon.link.jax.{control,
random, linalg, blockwise, sparse, nnet}`` has a rule: a new Op there without one
fails here.  (The scalar and core tensor Ops are checked by ``test_coverage.py``.)"""

from __future__ import annotations

import pytest

pytest.importorskip("jax", reason="mode='JAX' needs jax (pip install 'theon[jax]')")

from tests.backends.jax.opclasses import op_classes
from theon.graph.op import Op
from theon.link.jax.dispatch import jax_funcify

#: the packages (and modules) whose Ops get their rules from this part of the backend
PACKAGES = ("theon.scan", "theon.ifelse", "theon.opfromgraph", "theon.sparse", "theon.compile.ops",
            "theon.tensor.random", "theon.tensor.linalg", "theon.tensor.blockwise",
            "theon.tensor.nnet", "theon.tensor.signal")

#: base classes never applied themselves (their subclasses are)
ABSTRACT = {
    "theon.tensor.linalg._common.LinalgOp", "theon.tensor.linalg.solvers._SolveBase",
    "theon.tensor.linalg.misc._Lyapunov", "theon.tensor.random.sampling._RandomOp",
    "theon.tensor.random.op.RNGConsumerOp",
    "theon.tensor.nnet.abstract_conv._ConvBase", "theon.tensor.signal.pool._PoolBase",
    "theon.tensor.nnet.neighbours._NeibsBase",
    "theon.tensor.signal.pool.PoolGrad",
}


def _op_classes() -> list[type]:
    return op_classes(PACKAGES, ABSTRACT)


def _has_rule(cls: type) -> bool:
    return jax_funcify.dispatch(cls) is not jax_funcify.dispatch(object)


def test_every_op_class_of_these_packages_has_a_jax_rule():
    classes = _op_classes()
    names = {c.__name__ for c in classes}
    assert {"Scan", "IfElse", "OpFromGraph", "RandomVariable", "Blockwise", "Cholesky",
            "StructuredDot", "AbstractConv2d", "Pool"} <= names
    missing = [f"{c.__module__}.{c.__name__}" for c in classes if not _has_rule(c)]
    assert not missing, f"Op classes without a JAX rule: {missing}"


def test_the_check_sees_a_new_op_without_a_rule():
    class NewSparseOp(Op):
        __props__ = ()

    NewSparseOp.__module__ = "theon.sparse.brand_new"
    assert NewSparseOp in _op_classes()
    assert not _has_rule(NewSparseOp)
