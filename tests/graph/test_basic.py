import numpy as np
import pytest

from theon.graph.basic import Apply, Constant, Variable
from theon.graph.op import Op, OpContractError
from theon.graph.type import Generic, Type

from .toy import add, divmod_, ft, mul


def test_apply_sets_owner_and_index():
    x, y = ft("x"), ft("y")
    q, r = ft(), ft()
    node = Apply(divmod_, [x, y], [q, r])
    assert (q.owner, q.index, r.owner, r.index) == (node, 0, node, 1)
    assert node.inputs == [x, y]


def test_apply_rejects_non_variable_input():
    with pytest.raises(TypeError, match="input 1 of .* must be a Variable, got int"):
        Apply(add, [ft("x"), 3], [ft()])


def test_apply_rejects_owned_output():
    z = add(ft("x"), ft("y"))
    with pytest.raises(TypeError, match="already the output of another Apply"):
        Apply(mul, [ft("a"), ft("b")], [z])


def test_variable_fields_and_str():
    x = Variable(ft, name="x")
    assert (x.type, x.owner, x.index, x.name) == (ft, None, None, "x")
    x.tag.note = 1
    assert x.tag.note == 1
    z = add(x, 1.0)
    assert str(z) == "add.0"
    with pytest.raises(TypeError, match="must be a theon Type"):
        Variable(float)


def test_opaque_type_is_a_token_that_cannot_be_compiled():
    """Theano's Variable took any type object (Lasagne's tests make
    ``theano.Variable("myvariable")`` as a token); compiling it is a clear error."""
    import theon

    v = Variable("myvariable")
    assert v.type == "myvariable" and v.owner is None
    with pytest.raises(TypeError, match="not a theon Type"):
        theon.function([v], v)


def test_constant_filtered_set_once_and_readonly():
    c = Constant(ft, 2)
    assert c.data == 2.0 and isinstance(c.data, float)
    with pytest.raises(AttributeError, match="set only once"):
        c.data = 3.0
    with pytest.raises(ValueError, match="cannot have an owner"):
        c.owner = add.make_node(1.0, 2.0)
    arr = np.arange(3.0)
    ac = Constant(Generic(), arr)
    assert not ac.data.flags.writeable
    assert arr.flags.writeable  # the caller's array is untouched
    with pytest.raises(ValueError):
        ac.data[0] = 5
    assert c.owner is None


def test_constant_filter_refuses_bad_data():
    with pytest.raises(TypeError, match="exactly"):
        Constant(ft, "a")


def test_clone_variable_and_apply():
    x = ft("x")
    z = add(x, x)
    zc = z.clone()
    assert zc.owner is None and zc.type == z.type and zc.name == z.name
    node = z.owner.clone()
    assert node.op is z.owner.op and node.inputs == z.owner.inputs
    assert node.outputs[0] is not z and node.outputs[0].owner is node
    c = Constant(ft, 1.0, name="one")
    cc = c.clone()
    assert cc.data == 1.0 and cc.name == "one" and cc is not c


def test_eval():
    x, y = ft("x"), ft("y")
    z = mul(add(x, y), 2.0)
    assert z.eval({x: 1.0, y: 2.0}) == 6.0
    assert z.eval({"x": 2.0, "y": 2.0}) == 8.0
    assert add(Constant(ft, 1.0), 2.0).eval() == 3.0


def test_op_props_equality_and_str():
    class Scale(Op):
        __props__ = ("k",)

        def __init__(self, k):
            self.k = k

    assert Scale(2) == Scale(2) and hash(Scale(2)) == hash(Scale(2))
    assert Scale(2) != Scale(3)
    assert str(Scale(2)) == "Scale{k=2}"
    bare1, bare2 = Op(), Op()
    assert bare1 != bare2 and bare1 == bare1


def test_missing_methods_name_the_op():
    class Nothing(Op):
        __props__ = ()

    op = Nothing()
    for call in (lambda: op.make_node(), lambda: op.perform(None, [], []),
                 lambda: op.grad([], []), lambda: op.R_op([], []),
                 lambda: op.infer_shape(None, [])):
        with pytest.raises(OpContractError, match="Nothing"):
            call()
    assert op.do_constant_folding(None) is True
    assert op.destroy_map == {} and op.view_map == {}


def test_call_default_output_and_multi():
    class Two(Op):
        __props__ = ()
        default_output = 1

        def make_node(self, x):
            return Apply(self, [x], [ft(), ft()])

    x = ft("x")
    out = Two()(x)
    assert out.index == 1
    assert len(Two()(x, return_list=True)) == 2
    outs = divmod_(x, 2.0)
    assert isinstance(outs, list) and len(outs) == 2


def test_call_records_user_trace():
    z = add(ft("x"), 1.0)
    (fn, line, name) = z.tag.trace[0]
    assert fn.endswith("test_basic.py") and name == "test_call_records_user_trace"


def test_type_defaults():
    class Odd(Type):
        def filter(self, x, strict=False, allow_downcast=None):
            if x % 2 != 1:
                raise ValueError(f"{x} is even")
            return x

    t = Odd()
    assert t.is_valid_value(3) and not t.is_valid_value(4)
    assert t.values_eq(3, 3) and t.values_eq_approx(3, 3)
    v = t.make_variable("v")
    assert v.type == t and v.name == "v" and t("w").name == "w"
    c = t.filter_variable(5)
    assert isinstance(c, Constant) and c.data == 5
    assert t.filter_variable(v) is v
    with pytest.raises(TypeError, match="cannot convert variable"):
        t.filter_variable(ft("x"))
    assert t.convert_variable(ft("x")) is None
    assert Generic().filter(object) is object


def test_user_trace_skips_theon_generated_code() -> None:
    """Code theon generates (``<theon-call-N>``) is not the user's: the trace goes past it."""
    from theon.graph.basic import user_trace

    ns: dict = {"user_trace": user_trace}
    exec(compile("def gen():\n    return user_trace()\n", "<theon-call-99>", "exec"), ns)
    (file, line, fn), = ns["gen"]()
    assert file == __file__ and fn == "test_user_trace_skips_theon_generated_code"


def test_a_node_makes_its_tag_on_first_use():
    """Most nodes never get annotations: their Scratchpad is made when first read or set,
    and a copy of a node without one has none either."""
    from theon.graph.basic import Apply, Scratchpad
    from theon.graph.op import Op
    from theon.graph.type import Generic

    g = Generic()
    node = Apply(Op(), [g("a")], [g()])
    assert node._tag is None
    assert node.clone()._tag is None
    node.tag.note = "kept"
    assert isinstance(node._tag, Scratchpad)
    cp = node.clone()
    assert cp.tag.note == "kept" and cp.tag is not node.tag
    node.tag = Scratchpad()
    assert not node.tag.__dict__
