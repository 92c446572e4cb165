"""Lazy conditionals in the linkers: the schedule, and both linkers against a NumPy mirror.

The contract (``Op.lazy_conditional``, :func:`theon.graph.op.lazy_branches`) is
exercised with a bare Op of this file as well as with ``theon.ifelse``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import theon
import theon.tensor as tt
from theon.graph.basic import Apply
from theon.graph.fg import FunctionGraph
from theon.graph.op import Op, lazy_branches
from theon.graph.type import Generic
from theon.ifelse import ifelse
from theon.link.lazy import lazy_schedule, node_contexts
from theon.link.pyfunc import PyLinker
from theon.link.pyfunc.codegen import MAX_BRANCH_DEPTH
from theon.link.vm import VMLinker

LINKERS = {
    "vm": VMLinker(check_outputs=True),
    "py": PyLinker(),
    "py-numpy": PyLinker(float_path=False),
}


class Pick(Op):
    """A minimal lazy conditional on Generic values: ``a if c else b``."""

    __props__ = ()
    lazy_conditional = True

    def make_node(self, c, a, b):
        return Apply(self, [c, a, b], [Generic()()])

    def perform(self, node, inputs, out):
        out[0][0] = inputs[1] if inputs[0] else inputs[2]


class Log(Op):
    """Appends its tag to a shared log and returns ``x + 1`` (Generic values)."""

    __props__ = ("tag",)
    log: list[str] = []

    def __init__(self, tag):
        self.tag = tag

    def make_node(self, x):
        return Apply(self, [x], [Generic()()])

    def perform(self, node, inputs, out):
        Log.log.append(self.tag)
        out[0][0] = inputs[0] + 1


def test_lazy_branches_checks_the_arity():
    c = Generic()("c")
    node = Apply(Pick(), [c, c], [Generic()()])
    with pytest.raises(ValueError, match="2 \\* 1 \\+ 1 inputs"):
        lazy_branches(node)
    assert lazy_branches(Log("a")(c).owner) is None


def test_contexts_shared_exclusive_and_nested():
    c, d, x = (Generic()(n) for n in "cdx")
    shared = Log("shared")(x)
    inner = Pick()(d, Log("tt")(shared), Log("tf")(x))
    out = Pick()(c, inner, Log("f")(shared))
    fg = FunctionGraph([c, d, x], [out], clone=False)
    ctx, lazy = node_contexts(fg)
    outer_node, inner_node = out.owner, inner.owner
    assert lazy == {outer_node, inner_node}
    assert ctx[shared.owner] == ()
    assert ctx[inner_node] == ((outer_node, True),)
    assert ctx[inner_node.inputs[1].owner] == ((outer_node, True), (inner_node, True))
    assert ctx[inner_node.inputs[2].owner] == ((outer_node, True), (inner_node, False))
    assert ctx[outer_node.inputs[2].owner] == ((outer_node, False),)
    # a value that is also a graph output runs always
    fg2 = FunctionGraph([c, d, x], [out, inner], clone=False)
    assert node_contexts(fg2)[0][inner_node] == ()
    # a conditional at max_depth is run eagerly
    ctx1, lazy1 = node_contexts(fg, max_depth=1)
    assert lazy1 == {outer_node} and ctx1[inner_node.inputs[1].owner] == ((outer_node, True),)


@pytest.mark.parametrize("name", list(LINKERS))
def test_a_bare_lazy_op_runs_one_branch(name):
    c, d, x = (Generic()(n) for n in "cdx")
    shared = Log("shared")(x)
    inner = Pick()(d, Log("tt")(shared), Log("tf")(x))
    out = Pick()(c, inner, Log("f")(shared))
    run = LINKERS[name].make_function(FunctionGraph([c, d, x], [out]))
    for cv, dv, want, ran in [
        (1, 1, 3, ["shared", "tt"]), (1, 0, 2, ["shared", "tf"]), (0, 1, 3, ["shared", "f"]),
    ]:
        Log.log = []
        assert run(cv, dv, 1) == [want]
        assert Log.log == ran


@pytest.mark.parametrize("name", list(LINKERS))
def test_nesting_deeper_than_python_allows_still_runs(name):
    # (shared is needed under both branches of c: it runs first, always)
    # the py linker nests at most MAX_BRANCH_DEPTH `if` blocks, then runs both branches
    depth = MAX_BRANCH_DEPTH + 20
    c, x = tt.lscalar("c"), tt.dscalar("x")
    out = x
    for k in range(depth):
        out = ifelse(tt.gt(c, k), out * 2.0 + 1.0, out - 1.0)
    f = theon.function([c, x], out, mode=theon.Mode(linker=LINKERS[name], optimizer=None))
    for cv in (0, 3, depth + 1):
        want = 0.5
        for k in range(depth):
            want = want * 2.0 + 1.0 if cv > k else want - 1.0
        assert f(cv, 0.5) == want


def test_schedule_order_is_a_topological_order():
    c, x = tt.bscalar("c"), tt.dvector("x")
    y = tt.exp(x)
    out = ifelse(c, ifelse(tt.gt(y.sum(), 2), y * 2.0, y), tt.sin(y)) + y
    fg = FunctionGraph([c, x], [out])
    s = lazy_schedule(fg)
    assert s is not None and set(s.order) == set(fg.apply_nodes)
    seen: set = set()
    for node in s.order:
        assert all(v.owner is None or v.owner in seen for v in node.inputs)
        seen.add(node)


def test_an_inplace_op_in_one_branch_and_a_reader_in_the_other_stay_lazy():
    # the destroy handler orders the else-reader of exp(x) before the then-destroyer;
    # the two never both run, so that ordering does not pull either out of its branch
    c, x = tt.bscalar("c"), tt.dvector("x")
    y = tt.exp(x)
    f = theon.function([c, x], ifelse(c, y * 2.0, y + 1.0))
    fg = f.maker.fgraph
    destroyers = [n for n in fg.apply_nodes if n.op.destroy_map]
    assert destroyers and fg.orderings()
    ctx, _ = node_contexts(fg)
    (cond_node,) = [n for n in fg.apply_nodes if n.op.lazy_conditional]
    (destroyer,) = destroyers
    (reader,) = fg.orderings()[destroyer]
    assert ctx[destroyer] == ((cond_node, True),)
    assert ctx[reader] == ((cond_node, False),)
    xv = np.array([0.0, 1.0])
    np.testing.assert_allclose(f(1, xv), 2 * np.exp(xv))
    np.testing.assert_allclose(f(0, xv), np.exp(xv) + 1.0)


# random graphs against a NumPy mirror ---------------------------------------------------

_UNARY = [
    (tt.exp, np.exp), (tt.sin, np.sin), (tt.log, np.log), (lambda v: v * 2.0, lambda v: v * 2.0),
    (lambda v: 1.0 / v, lambda v: 1.0 / v), (tt.sqrt, np.sqrt),
]


def _random_graph(seed: int):
    """A random expression with nested ifelse on scalars and vectors, and its NumPy mirror."""
    r = np.random.default_rng(seed)
    s, t = tt.dscalars("s", "t")
    x = tt.dvector("x")
    # pools of (theon variable, numpy function of the inputs)
    scal = [(s, lambda e: e["s"]), (t, lambda e: e["t"])]
    vec = [(x, lambda e: e["x"])]
    for _ in range(int(r.integers(4, 12))):
        kind = int(r.integers(0, 4))
        pool = scal if r.random() < 0.5 else vec
        a, fa = pool[int(r.integers(len(pool)))]
        b, fb = pool[int(r.integers(len(pool)))]
        if kind == 0:
            op, npop = _UNARY[int(r.integers(len(_UNARY)))]
            pool.append((op(a), lambda e, fa=fa, npop=npop: npop(fa(e))))
        elif kind == 1:
            pool.append((a + b, lambda e, fa=fa, fb=fb: fa(e) + fb(e)))
        elif kind == 2 and vec is pool:
            pool = scal
            pool.append((a.sum(), lambda e, fa=fa: np.sum(fa(e))))
        else:
            cv, fc = scal[int(r.integers(len(scal)))]
            k = float(r.normal())
            pool.append((
                ifelse(tt.gt(cv, k), a, b),
                lambda e, fa=fa, fb=fb, fc=fc, k=k: fa(e) if fc(e) > k else fb(e),
            ))
    outs = [scal[-1], vec[-1]]
    if r.random() < 0.5:
        outs.append(scal[int(r.integers(len(scal)))])
    return [s, t, x], [o for o, _ in outs], [f for _, f in outs]


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), sv=st.floats(-3, 3), tv=st.floats(-3, 3))
def test_random_nested_ifelse_graphs_match_numpy_on_every_linker(seed, sv, tv):
    ins, outs, mirrors = _random_graph(seed)
    xv = np.array([0.5, -1.5, 2.0])
    env = {"s": np.float64(sv), "t": np.float64(tv), "x": xv}
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = [np.asarray(m(env), dtype=np.float64) for m in mirrors]
        modes = [theon.Mode(linker=lk, optimizer=None) for lk in LINKERS.values()]
        modes += ["FAST_RUN", theon.Mode(linker="vm", optimizer="fast_run")]
        for mode in modes:
            f = theon.function(ins, outs, mode=mode, on_unused_input="ignore")
            got = f(sv, tv, xv)
            for g, w in zip(got, want):
                np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-300)
                assert np.shape(g) == np.shape(w)
