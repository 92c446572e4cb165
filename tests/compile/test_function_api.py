"""Results belong to the caller, copy(), trust_input, stored values, profiling, errors."""

import io

import numpy as np
import pytest

import theon
from theon.compile.io import In, Out
from theon.compile.pipeline import UnusedInputError
from theon.compile.profiling import ProfileStats
from theon.compile.sharedvalue import SharedVariable
from theon.graph.basic import Constant
from theon.graph.fg import MissingInputError

from .toy import add_inplace, iadd, ineg, it, reverse, vadd, vmul, vneg, vt

MODES = ["REFERENCE", "FAST_RUN"]


@pytest.mark.parametrize("mode", MODES)
def test_results_never_alias_inputs_shared_or_each_other(mode):
    x = vt("x")
    s = SharedVariable("s", vt, np.arange(3.0))
    f = theon.function([x], [x, reverse(x), s, reverse(s), vneg(x), vneg(x)], mode=mode)
    arg = np.ones(3)
    outs = f(arg)
    ids = {id(o) for o in outs}
    assert len(ids) == len(outs)
    for o in outs:
        assert not np.shares_memory(o, arg)
        assert not np.shares_memory(o, s.get_value(borrow=True))
    for k, a in enumerate(outs):
        for b in outs[k + 1:]:
            assert not np.shares_memory(a, b)


@pytest.mark.parametrize("mode", MODES)
def test_kept_results_are_not_changed_by_later_calls(mode):
    x = vt("x")
    s = SharedVariable("s", vt, np.zeros(2))
    f = theon.function([x], [vadd(s, x), s], updates=[(s, vadd(s, x))], mode=mode)
    r1 = f(np.ones(2))
    r1_copy = [a.copy() for a in r1]
    r1[0][:] = 99  # mutating a result must not touch the shared value
    r2 = f(np.ones(2))
    for a, b in zip(r1_copy[1:], r1[1:]):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(r2[0], [2, 2])
    np.testing.assert_array_equal(r2[1], [1, 1])
    np.testing.assert_array_equal(s.get_value(), [2, 2])


def test_output_equal_to_update_value_is_copied():
    s = SharedVariable("s", vt, np.zeros(2))
    new = vadd(s, np.ones(2))
    f = theon.function([], new, updates=[(s, new)], mode="REFERENCE")
    r = f()
    assert not np.shares_memory(r, s.get_value(borrow=True))
    r[:] = -5
    np.testing.assert_array_equal(s.get_value(), [1, 1])


def test_update_from_argument_or_other_shared_is_copied():
    x = vt("x")
    a = SharedVariable("a", vt, np.zeros(2))
    b = SharedVariable("b", vt, np.ones(2))
    f = theon.function([x], [], updates=[(a, x), (b, reverse(a))], mode="REFERENCE")
    arg = np.array([3.0, 4.0])
    f(arg)
    assert not np.shares_memory(a.get_value(borrow=True), arg)
    assert not np.shares_memory(b.get_value(borrow=True), a.get_value(borrow=True))
    np.testing.assert_array_equal(b.get_value(), [0, 0])


def test_update_that_views_its_own_variable_is_not_copied():
    s = SharedVariable("s", vt, np.arange(3.0))
    f = theon.function([], [], updates=[(s, reverse(s))], mode="REFERENCE")
    old = s.get_value(borrow=True)
    f()
    assert np.shares_memory(s.get_value(borrow=True), old)
    np.testing.assert_array_equal(s.get_value(), [2, 1, 0])


def test_out_borrow_may_return_internal_storage():
    x = vt("x")
    f = theon.function([x], Out(reverse(x), borrow=True), mode="REFERENCE")
    arg = np.arange(3.0)
    assert np.shares_memory(f(arg), arg)
    g = theon.function([x], reverse(x), mode="REFERENCE")
    assert not np.shares_memory(g(arg), arg)


def test_protected_and_mutable_inputs_are_marked_on_the_graph():
    x, y = vt("x"), vt("y")
    s = SharedVariable("s", vt, np.zeros(2))
    r = SharedVariable("r", vt, np.zeros(2))
    f = theon.function([In(x, mutable=True), y], vadd(x, y), updates=[(s, vadd(s, r))],
                       mode="REFERENCE")
    fg = f.maker.fgraph
    names = {str(v) for v in fg.protected_inputs}
    # an updated shared variable is not overwritten in place: its new value is
    # stored when the call has finished (a failing call changes nothing)
    assert names == {"y", "r", "s"}
    assert {str(v) for v in fg.mutable_inputs} == {"x"}
    assert fg.update_mapping == {1: 2}


def test_user_inplace_graph_needs_accept_inplace():
    x, y = vt("x"), vt("y")
    with pytest.raises(TypeError, match="AddInplace.*accept_inplace"):
        theon.function([x, y], add_inplace(x, y))
    f = theon.function([In(x, mutable=True), y], add_inplace(x, y), accept_inplace=True,
                       mode="REFERENCE")
    np.testing.assert_array_equal(f(np.ones(2), np.ones(2)), [2, 2])


def test_accepted_inplace_graph_may_not_overwrite_protected_inputs():
    pytest.importorskip("theon.graph.destroyhandler")
    from theon.graph.features import InconsistencyError

    x, y = vt("xp"), vt("y")
    with pytest.raises(InconsistencyError, match="'xp'.*mutable"):
        theon.function([x, y], add_inplace(x, y), accept_inplace=True, mode="REFERENCE")


def test_trust_input_skips_filtering():
    x = it("x")
    f = theon.function([x], ineg(x))
    with pytest.raises(TypeError, match=r"argument 0 \(x\)"):
        f(2.5)
    t = theon.function([x], ineg(x), trust_input=True)
    assert t(2.5) == -2.5  # not checked: the caller's responsibility
    assert t(x=3) == -3
    t.trust_input = False
    with pytest.raises(TypeError):
        t(2.5)


def test_wrong_argument_kind_names_input():
    x = vt("vec")
    f = theon.function([x], vneg(x), name="negate")
    with pytest.raises(TypeError, match=r"argument 0 \(vec\) of function 'negate'.*ndim 2"):
        f(np.zeros((2, 2)))


def test_stored_values_by_name_and_variable():
    s = SharedVariable("s", it, 1)
    x = it("x")
    f = theon.function([In(x, value=3)], iadd(x, s))
    assert f["x"] == 3 and f[x] == 3 and f[s] == 1 and f["s"] == 1
    f["x"] = 4
    assert f() == 5
    f[s] = 10
    assert s.get_value() == 10
    with pytest.raises(TypeError, match="'x'"):
        f["x"] = 1.5
    with pytest.raises(KeyError, match="'nope'"):
        f["nope"]


def test_copy_shares_shared_variables_swap_and_share_memory():
    c = SharedVariable("c", it, 0)
    ro = SharedVariable("ro", it, 100)
    f = theon.function([], iadd(c, ro), updates=[(c, iadd(c, 1))])
    g = f.copy()
    assert g() == 100 and g() == 101
    assert c.get_value() == 2 and g[c] == 2  # the copy updates the shared variable
    ro.set_value(200)
    assert g() == 202  # read-only shared values stay shared
    assert f() == 203 and c.get_value() == 4
    c.set_value(0)
    h = f.copy(share_memory=True)
    assert h() == 200 and c.get_value() == 1
    d = SharedVariable("d", it, 50)
    k = f.copy(swap={c: d})  # a copy with its own state
    assert k() == 250 and d.get_value() == 51 and c.get_value() == 1
    with pytest.raises(TypeError, match="'?c'?.*type IntT"):
        f.copy(swap={c: SharedVariable("v", vt, np.zeros(1))})
    n = f.copy(delete_updates=True)
    assert n() == 201 and n() == 201 and c.get_value() == 1
    assert f.maker.fgraph is g.maker.fgraph  # no recompilation


def test_profile_collects_per_node_and_op_and_prints_summary():
    x = vt("x")
    y = vmul(vadd(x, x), vneg(x))
    f = theon.function([x], y, profile=True, name="prof")
    for _ in range(3):
        f(np.ones(4))
    p = f.profile
    assert isinstance(p, ProfileStats) and p.call_count == 3
    assert len(p.node_time) == len(f.maker.fgraph.apply_nodes) > 0
    assert all(n == 3 for n in p.node_calls.values())
    assert p.call_time >= p.node_total > 0
    buf = io.StringIO()
    p.summary(file=buf)
    text = buf.getvalue()
    assert "prof" in text and "calls: 3" in text and "%" in text
    rows = [ln for ln in text.splitlines() if ln.strip().endswith(("]", ")")) and "%" in ln]
    assert rows
    shares = [float(ln.split("%")[0]) for ln in text.split("Nodes, by time")[1].splitlines()[2:]
              if "%" in ln]
    assert shares == sorted(shares, reverse=True) and abs(sum(shares) - 100) < 1.0


def test_profile_object_can_be_shared():
    p = ProfileStats("both")
    x = it("x")
    f = theon.function([x], ineg(x), profile=p)
    g = theon.function([x], iadd(x, 1), profile=p)
    f(1)
    g(1)
    assert p.call_count == 2


def test_error_wrong_arity_names_inputs():
    x, y = it("x"), it("y")
    f = theon.function([x, y], iadd(x, y))
    with pytest.raises(TypeError, match="missing argument 'y'"):
        f(1)
    with pytest.raises(TypeError, match=r"takes 2 arguments \(x, y\), 3 given"):
        f(1, 2, 3)


def test_error_shared_variable_as_explicit_input():
    s = SharedVariable("w", it, 0)
    with pytest.raises(TypeError, match="'w'.*givens"):
        theon.function([s], iadd(s, 1))


def test_error_missing_input_names_it_and_hints_givens():
    x, y = it("x"), it("y")
    with pytest.raises(MissingInputError, match="'y'.*givens"):
        theon.function([x], iadd(x, y))


def test_error_constant_twice_unused():
    x, y = it("x"), it("y")
    with pytest.raises(TypeError, match="'k'.*constant|constant.*'k'"):
        theon.function([Constant(it, 1, name="k")], x)
    with pytest.raises(ValueError, match="'x'.*twice"):
        theon.function([x, x], x)
    with pytest.raises(UnusedInputError, match="'y'"):
        theon.function([x, y], x)


def test_outputs_none_or_empty_list():
    c = SharedVariable("c", it, 0)
    f = theon.function([], [], updates=[(c, iadd(c, 1))])
    assert f() == [] and c.get_value() == 1
    g = theon.function([], updates=[(c, iadd(c, 1))])
    assert g() == [] and c.get_value() == 2


def test_eval_with_shared_variables():
    s = SharedVariable("s", it, 4)
    assert iadd(s, 1).eval() == 5


def test_python_float_arguments_skip_filtering_without_changing_results():
    """0-d float64 inputs read only through float() accept Python floats as they are."""
    import numpy as np

    import theon.tensor as tt

    x, y = tt.dscalar("x"), tt.dscalar("y")
    f = theon.function([x, y], x * y + 1)
    assert 0 in f._runner.float_inputs and "type(a0) is not float" in f._call_source
    for args in [(2.0, 3.0), (np.float64(2.0), 3), (np.array(2.0), np.array(3.0)), (2, 3)]:
        r = f(*args)
        assert isinstance(r, np.ndarray) and r.dtype == np.float64 and r.shape == () and r == 7.0
    with pytest.raises(TypeError, match="argument 0"):
        f("a", 3.0)
    with pytest.raises(TypeError):
        f(np.ones(2), 3.0)
