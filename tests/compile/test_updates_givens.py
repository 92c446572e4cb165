"""updates, givens, default updates and stateful/default In, on toy types."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import theon
from theon.compile.io import In
from theon.compile.sharedvalue import SharedVariable
from theon.graph.basic import Constant

from .toy import gt, iadd, imul, ineg, isub, it, vt


def counter(start=0, name="count"):
    return SharedVariable(name, it, start)


def test_counter_from_updates_returns_0_1_2():
    c = counter()
    f = theon.function([], c, updates=[(c, iadd(c, 1))])
    assert [f(), f(), f()] == [0, 1, 2]
    assert c.get_value() == 3


def test_updates_as_dict_and_with_arguments():
    acc = counter(10, "acc")
    x = it("x")
    f = theon.function([x], iadd(acc, x), updates={acc: iadd(acc, x)})
    assert f(1) == 11
    assert f(x=5) == 16
    assert acc.get_value() == 16


def test_updates_are_atomic_after_all_outputs():
    a, b = counter(1, "a"), counter(2, "b")
    # swap: each new value must be computed from the old values
    f = theon.function([], [a, b], updates=[(a, iadd(b, 0)), (b, iadd(a, 0))])
    assert f() == [1, 2]
    assert (a.get_value(), b.get_value()) == (2, 1)
    assert f() == [2, 1]
    assert (a.get_value(), b.get_value()) == (1, 2)


def test_updated_shared_variable_is_an_implicit_input_even_if_unused():
    c = counter(0)
    x = it("x")
    f = theon.function([x], ineg(x), updates=[(c, x)])
    assert f(7) == -7 and c.get_value() == 7
    assert any(i.variable is c for i in f.maker.inputs)


def test_shared_values_are_read_at_each_call():
    c = counter(1)
    x = it("x")
    f = theon.function([x], imul(x, c))
    assert f(3) == 3
    c.set_value(5)
    assert f(3) == 15


def test_constant_update_value_is_converted():
    c = counter(3)
    f = theon.function([], c, updates=[(c, 0)])
    assert f() == 3 and c.get_value() == 0


def test_bad_update_type_names_variable():
    c = counter(0, "steps")
    v = vt("v")
    with pytest.raises(TypeError, match="'steps'.*'v'|'v'.*'steps'"):
        theon.function([v], v, updates=[(c, v)])
    with pytest.raises(TypeError, match="'steps'"):
        theon.function([], c, updates=[(c, "not an int")])


def test_update_of_non_shared_variable_names_it():
    x = it("xin")
    with pytest.raises(TypeError, match="'xin'.*not a shared variable"):
        theon.function([x], x, updates=[(x, iadd(x, 1))])


def test_update_given_twice():
    c = counter(0, "twice")
    with pytest.raises(ValueError, match="'twice'.*twice"):
        theon.function([], c, updates=[(c, iadd(c, 1)), (c, iadd(c, 2))])


def test_bad_updates_argument():
    with pytest.raises(TypeError, match="entry 0 must be a .variable, value. pair"):
        theon.function([], counter(), updates=[1, 2])


def test_givens_substitutes_before_compiling():
    x, y = it("x"), it("y")
    out = iadd(x, 1)
    f = theon.function([y], out, givens={x: imul(y, 10)})
    assert f(2) == 21
    # the user's graph is untouched
    assert out.owner.inputs[0] is x


def test_givens_can_replace_by_a_shared_variable_and_pairs():
    x = it("x")
    s = counter(4, "s")
    f = theon.function([], iadd(x, x), givens=[(x, s)])
    assert f() == 8
    s.set_value(1)
    assert f() == 2


def test_givens_can_replace_a_shared_variable():
    s = counter(4, "s")
    y = it("y")
    f = theon.function([y], iadd(s, 1), givens={s: y})
    assert f(10) == 11
    assert not any(i.variable is s for i in f.maker.inputs)


def test_givens_applies_to_updates():
    c = counter(0, "c")
    step = it("step")
    d = it("d")
    f = theon.function([d], c, updates=[(c, iadd(c, step))], givens={step: imul(d, 2)})
    assert f(1) == 0 and f(3) == 2 and c.get_value() == 8


def test_givens_value_is_made_constant():
    x = it("x")
    f = theon.function([], iadd(x, 1), givens={x: 41})
    assert f() == 42


def test_bad_givens_type_names_variables():
    x = it("xint")
    v = vt("vec")
    with pytest.raises(TypeError, match="'xint'.*'vec'"):
        theon.function([v], iadd(x, 1), givens={x: v}, on_unused_input="ignore")
    with pytest.raises(TypeError, match="'xint'"):
        theon.function([], iadd(x, 1), givens={x: "text"})


def test_givens_errors():
    x = it("x")
    c = Constant(it, 3, name="three")
    with pytest.raises(TypeError, match="'three'.*constant"):
        theon.function([x], iadd(x, c), givens={c: x})
    with pytest.raises(ValueError, match="'x'.*input of the function.*givens"):
        theon.function([x], iadd(x, 1), givens={x: it("y")})
    with pytest.raises(TypeError, match="not a Variable"):
        theon.function([x], iadd(x, 1), givens={"x": x})


def test_default_update_is_used_unless_disabled():
    c = counter(0, "rng_state")
    c.default_update = iadd(c, 1)
    f = theon.function([], c)
    assert [f(), f()] == [0, 1]
    g = theon.function([], c, no_default_updates=True)
    assert [g(), g()] == [2, 2]
    h = theon.function([], c, no_default_updates=[c])
    assert h() == 2
    # explicit updates override the default one
    k = theon.function([], c, updates=[(c, iadd(c, 10))])
    assert [k(), k()] == [2, 12]


def test_default_updates_pull_in_further_shared_variables():
    a, b = counter(0, "a"), counter(100, "b")
    a.default_update = iadd(a, b)
    b.default_update = iadd(b, 1)
    f = theon.function([], a)
    assert f() == 0
    assert (a.get_value(), b.get_value()) == (100, 101)


def test_in_default_values_and_keywords():
    x, y = it("x"), it("y")
    f = theon.function([x, In(y, value=10)], isub(x, y))
    assert f(1) == -9
    assert f(1, 2) == -1
    assert f(y=3, x=1) == -2
    assert f(x=5) == -5
    g = theon.function([In(x, name="first", value=1), In(y, name="second", value=2)],
                       isub(x, y))
    assert g() == -1 and g(second=0) == 1 and g(5) == 3
    with pytest.raises(TypeError, match="no input named 'x'"):
        g(x=1)


def test_in_default_is_filtered_and_bad_default_named():
    x = it("x")
    f = theon.function([In(x, value=2.0)], ineg(x))
    assert f() == -2 and isinstance(f(), int)
    with pytest.raises(TypeError, match="'x'"):
        theon.function([In(x, value=2.5)], ineg(x))


def test_stateful_in_keeps_its_update():
    acc, x = it("acc"), it("x")
    f = theon.function([x, In(acc, value=0, update=iadd(acc, x))], iadd(acc, x))
    assert f(1) == 1 and f(2) == 3 and f(3) == 6
    assert f["acc"] == 6
    f["acc"] = 100
    assert f(1) == 101
    # an argument overrides the state for this call, and the update is stored
    assert f(1, 0) == 1 and f["acc"] == 1


def test_implicit_in_is_not_an_argument():
    n, x = it("n"), it("x")
    f = theon.function([x, In(n, value=5, implicit=True)], imul(x, n))
    assert f(2) == 10
    with pytest.raises(TypeError, match="'n' is implicit"):
        f(2, n=3)
    with pytest.raises(TypeError, match="takes 1 argument"):
        f(2, 3)
    f["n"] = 7
    assert f(2) == 14


def test_in_update_needs_value():
    x = it("x")
    with pytest.raises(ValueError, match="needs an initial value"):
        In(x, update=iadd(x, 1))


def test_allow_input_downcast():
    x = it("x")
    f = theon.function([x], ineg(x))
    with pytest.raises(TypeError, match=r"argument 0 \(x\)"):
        f(1.5)
    g = theon.function([x], ineg(x), allow_input_downcast=True)
    assert g(1.5) == -1


def test_generic_shared_state_object():
    s = theon.shared([], name="log")
    x = gt("x")

    from theon.graph.basic import Apply
    from theon.graph.op import Op

    class Append(Op):
        __props__ = ()

        def make_node(self, lst, v):
            return Apply(self, [lst, v], [gt()])

        def perform(self, node, inputs, out):
            out[0][0] = [*inputs[0], inputs[1]]

    f = theon.function([x], s, updates=[(s, Append()(s, x))])
    assert f(1) == [] and f(2) == [1]
    assert s.get_value() == [1, 2]


@settings(max_examples=25, deadline=None)
@given(
    perm=st.permutations(range(4)),
    steps=st.integers(1, 4),
    mode=st.sampled_from(["REFERENCE", "FAST_RUN"]),
)
def test_updates_see_only_old_values(perm, steps, mode):
    """Permuting shared values through updates is atomic, whatever the order."""
    vs = [counter(10 * k, f"v{k}") for k in range(4)]
    f = theon.function([], [iadd(v, 0) for v in vs],
                       updates=[(vs[k], iadd(vs[perm[k]], 1)) for k in range(4)], mode=mode)
    ref = [10 * k for k in range(4)]
    for _ in range(steps):
        assert f() == ref
        ref = [ref[perm[k]] + 1 for k in range(4)]
    assert [v.get_value() for v in vs] == ref
