"""Every Op class of the scalar, tensor and gradient layers has a JAX rule, and every
row of the scalar table a ``jax.numpy`` spelling: a new Op without one fails here.

The Ops of ``theon.tensor.{linalg,random,nnet,signal,blockwise}`` get their rules
from the modules ``theon.link.jax.{linalg,random,nnet,blockwise}`` (also checked by
``test_rules_coverage.py``).
"""

from __future__ import annotations

import pytest

pytest.importorskip("jax", reason="mode='JAX' needs jax (pip install 'theon[jax]')")

from tests.backends.jax.opclasses import op_classes
from theon.backends.jax.scalar import JAX_EXCEPTIONS, jax_spelling
from theon.graph.op import Op
from theon.link.jax.dispatch import jax_funcify, jax_scalar_funcify
from theon.scalar.basic import ScalarOp
from theon.scalar.table import ROWS

#: base classes that are never applied themselves (their subclasses are)
ABSTRACT = {
    "theon.scalar.basic.ScalarOp", "theon.scalar.basic.UnaryScalarOp",
    "theon.scalar.basic.BinaryScalarOp", "theon.scalar.table._Variadic",
    "theon.tensor.basic.TensorOp", "theon.tensor.reduction._FixedReduce",
    "theon.tensor.reduction._MaxMin", "theon.tensor.reduction._Logical",
    "theon.tensor.sort._SortBase", "theon.tensor.special._AlongAxis",
    "theon.tensor.rewriting.blas._BlasOp", "theon.gradient.ops.GradModifier",
    # the bases of the Ops whose rules are in theon.link.jax.{linalg,random,nnet}
    "theon.tensor.linalg._common.LinalgOp", "theon.tensor.linalg.solvers._SolveBase",
    "theon.tensor.linalg.misc._Lyapunov", "theon.tensor.random.sampling._RandomOp",
    "theon.tensor.random.op.RNGConsumerOp",
    "theon.tensor.nnet.abstract_conv._ConvBase", "theon.tensor.signal.pool._PoolBase",
    "theon.tensor.nnet.neighbours._NeibsBase",
    "theon.tensor.signal.pool.PoolGrad",
}

def _op_classes() -> list[type]:
    return op_classes(("theon.scalar", "theon.tensor", "theon.gradient"), ABSTRACT)


def _has_rule(cls: type) -> bool:
    if issubclass(cls, ScalarOp):
        return jax_scalar_funcify.dispatch(cls) is not jax_scalar_funcify.dispatch(object)
    return jax_funcify.dispatch(cls) is not jax_funcify.dispatch(object)


def test_every_op_class_has_a_jax_rule():
    classes = _op_classes()
    assert len(classes) > 100  # the walk found the scalar rows and the tensor Ops
    missing = [f"{c.__module__}.{c.__name__}" for c in classes if not _has_rule(c)]
    assert not missing, f"Op classes without a JAX rule: {missing}"


def test_every_scalar_row_has_a_jax_spelling():
    import jax.numpy as jnp

    from theon.scalar.table import OnHost

    # the table of exceptions, else the row's jax= spelling (a jax function, or its NumPy
    # function on the host for a stated reason), else its own NumPy name
    for row in ROWS:
        spec = jax_spelling(row)
        if row.name in JAX_EXCEPTIONS:
            assert spec is JAX_EXCEPTIONS[row.name]
        elif isinstance(row.jax, str):
            assert not isinstance(spec, str) and callable(spec()), row.name
        elif isinstance(row.jax, OnHost):
            assert row.jax.why and not isinstance(spec, str), row.name
        else:
            assert spec == row.numpy and callable(getattr(jnp, spec)), row.name
    assert set(JAX_EXCEPTIONS) <= {r.name for r in ROWS}  # no entry for a row that is gone


def test_a_row_without_a_jax_spelling_is_named():
    import dataclasses

    row = dataclasses.replace(ROWS[0], name="brand_new", numpy=None)
    with pytest.raises(KeyError, match="brand_new"):
        jax_spelling(row)


def test_the_check_sees_a_new_op_without_a_rule():
    class BrandNewOp(Op):
        __props__ = ()

    BrandNewOp.__module__ = "theon.tensor.brand_new"
    try:
        assert not _has_rule(BrandNewOp)
        assert BrandNewOp in [c for c in _op_classes() if c is BrandNewOp]
    finally:
        del BrandNewOp
