"""vectorize_graph rules, checked against evaluating the unbatched graph row by row."""

from __future__ import annotations

import numpy as np
import pytest

import theon
import theon.tensor as tt
from tests.seeding import stable_seed
from theon.gradient import grad, vectorize_graph
from theon.gradient.vectorize import LoopedApply
from theon.graph.traversal import toposort

MODE = "REFERENCE"
B = 3


def _var(shape, name):
    return tt.TensorType("float64", shape=(None,) * len(shape))(name)


CASES = {
    "elemwise_broadcast": (lambda v, c: tt.exp(v) * c.dimshuffle(0, "x") + 1.0, (2, 3), (2,)),
    "dimshuffle": (lambda v, c: v.dimshuffle(1, "x", 0) * 2.0, (2, 3), (1,)),
    "careduce": (lambda v, c: v.sum(axis=0) + v.max(axis=1).sum() + v.prod(), (2, 3), (1,)),
    "alloc": (lambda v, c: tt.alloc(v.sum(axis=0), 4, 3) * c[0], (2, 3), (1,)),
    "grad_unbroadcast": (
        lambda v, c: grad(None, c, known_grads={c * v: v}), (2, 3), (2, 1)
    ),
    "reshape_flatten": (lambda v, c: tt.reshape(v, (3, 2)) + tt.flatten(v)[1], (2, 3), (1,)),
    "shape": (lambda v, c: v * tt.cast(v.shape[1], "float64"), (2, 3), (1,)),
    "join_stack": (lambda v, c: tt.concatenate([v, c[:3] * 1.0]) + tt.stack([v, v]).flatten(),
                   (3,), (4,)),
    "split": (lambda v, c: tt.split(v, [1, 2], 2)[1] * 2.0, (3,), (1,)),
    "subtensor": (lambda v, c: v[1:, ::-1] * v[0, 1], (3, 3), (1,)),
    "inc_subtensor": (lambda v, c: tt.inc_subtensor(v[1:], c[:2]) + tt.set_subtensor(
        c[1:], v[0]).sum(), (3,), (3,)),
    "advanced": (lambda v, c: v[np.array([2, 0, 2])] + tt.inc_subtensor(
        c[np.array([0, 0, 1])], v[:3]).sum(), (4,), (2,)),
    "dot_mv": (lambda v, c: tt.dot(v, c), (2, 3), (3,)),
    "dot_vm": (lambda v, c: tt.dot(c, v), (2, 3), (2,)),
    "dot_vv": (lambda v, c: tt.dot(v, c), (3,), (3,)),
    "dot_mm": (lambda v, c: tt.dot(v, tt.outer(c, c)), (2, 3), (3,)),
    "matmul": (lambda v, c: tt.matmul(v, tt.outer(c, c)[None, :, :]), (2, 2, 3), (3,)),
    "einsum": (lambda v, c: tt.einsum("ij,j->i", v, c), (2, 3), (3,)),
    "softmax_cumsum": (lambda v, c: tt.special.softmax(v, axis=1) + tt.cumsum(v, axis=0),
                       (2, 3), (1,)),
    "sort": (lambda v, c: tt.sort(v * c) * tt.arange(4.0), (4,), (4,)),
    "make_vector": (lambda v, c: tt.cast(tt.stack([v[0], c[0], v.sum()]), "float64"), (3,),
                    (2,)),
}


def _check(name, batch_c):
    build, vshape, cshape = CASES[name]
    rng = np.random.default_rng(stable_seed(name))
    v, c = _var(vshape, "v"), _var(cshape, "c")
    out = build(v, c)
    V, C = _var((B, *vshape), "V"), _var((B, *cshape), "C")
    Vv = rng.normal(size=(B, *vshape))
    Cv = rng.normal(size=(B, *cshape)) if batch_c else rng.normal(size=cshape)
    repl = {v: V, c: C} if batch_c else {v: V}
    [bo], [flag] = vectorize_graph([out], repl)
    assert flag
    assert not any(isinstance(n.op, LoopedApply) for n in toposort([bo])), name
    got = theon.function([V, C if batch_c else c], bo, mode=MODE, on_unused_input="ignore")(
        Vv, Cv
    )
    f = theon.function([v, c], out, mode=MODE, on_unused_input="ignore")
    expected = np.stack([f(Vv[k], Cv[k] if batch_c else Cv) for k in range(B)])
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", sorted(CASES))
def test_rule_matches_row_by_row(name):
    _check(name, batch_c=False)


@pytest.mark.parametrize("name", sorted(CASES))
def test_rule_with_two_batched_inputs(name):
    _check(name, batch_c=True)


def test_outputs_not_depending_on_the_batch_are_returned_as_is():
    v, c = tt.dvector("v"), tt.dvector("c")
    out = tt.exp(c)
    [o], [flag] = vectorize_graph([out], {v: tt.dmatrix("V")})
    assert o is out and not flag
