import pytest

from theon.graph.basic import Apply
from theon.graph.features import (
    Feature,
    History,
    InconsistencyError,
    NodeFinder,
    ReplaceValidate,
)
from theon.graph.fg import FunctionGraph, MissingInputError, Output
from theon.graph.replace import equal_computations
from theon.graph.traversal import ancestors

from .toy import add, divmod_, ft, mul, neg


def graph():
    x, y = ft("x"), ft("y")
    a = add(x, y)
    out = mul(a, neg(a))
    return x, y, a, out


def test_clone_leaves_user_graph_untouched():
    x, y, a, out = graph()
    fg = FunctionGraph([x, y], [out])
    fx, fy = fg.inputs
    assert fx is not x and fg.outputs[0] is not out
    fa = fg.outputs[0].owner.inputs[0]
    fg.replace(fa, fx)
    assert out.owner.inputs[0] is a  # user's graph unchanged
    fg.check_integrity()


def test_clients_bookkeeping_through_replace():
    x, y, a, out = graph()
    fg = FunctionGraph([x, y], [out], clone=False)
    neg_node = out.owner.inputs[1].owner
    assert sorted(i for _, i in fg.clients[a]) == [0, 0]
    assert {c[0] for c in fg.clients[a]} == {out.owner, neg_node}
    z = mul(x, 3.0)
    fg.replace(a, z, reason="test")
    assert fg.clients[a] if a in fg.clients else True
    assert a not in fg.variables and a.owner not in fg.apply_nodes
    assert len(fg.clients[z]) == 2
    assert x in fg.variables and fg.clients[y] == []
    fg.check_integrity()
    # replacing an output
    w = neg(x)
    fg.replace(out, w)
    assert fg.outputs[0] is w and fg.clients[w] == [fg.get_output_client(0)]
    assert z not in fg.variables
    fg.check_integrity()


def test_replace_type_mismatch():
    from .toy import it

    x, y, a, out = graph()
    fg = FunctionGraph([x, y], [out], clone=False)
    with pytest.raises(TypeError, match="cannot replace"):
        fg.replace(a, it("i"))


def test_missing_input_names_variable():
    x, y, a, out = graph()
    with pytest.raises(MissingInputError, match="'y'"):
        FunctionGraph([x], [out])


def test_toposort_cache_invalidated():
    x, y, a, out = graph()
    fg = FunctionGraph([x, y], [out], clone=False)
    t1 = fg.toposort()
    assert fg.toposort() == t1
    fg.replace(a, neg(x))
    t2 = fg.toposort()
    assert t2 != t1 and len(t2) == 3 and str(t2[0].op) == "neg"


class Recorder(Feature):
    def __init__(self):
        self.events = []

    def on_attach(self, fgraph):
        self.events.append(("attach",))

    def on_detach(self, fgraph):
        self.events.append(("detach",))

    def on_import(self, fgraph, node, reason):
        self.events.append(("import", str(node.op), reason))

    def on_prune(self, fgraph, node, reason):
        self.events.append(("prune", str(node.op), reason))

    def on_change_input(self, fgraph, node, i, old, new, reason):
        self.events.append(("change", i, reason))

    def validate(self, fgraph):
        self.events.append(("validate",))


def test_feature_callbacks():
    x, y, a, out = graph()
    fg = FunctionGraph([x, y], [out], clone=False)
    rec = Recorder()
    fg.attach_feature(rec)
    fg.replace(a, neg(x), reason="r")
    kinds = [e[0] for e in rec.events]
    assert kinds[0] == "attach"
    assert ("import", "neg", "r") in rec.events
    assert ("prune", "add", "r") in rec.events
    assert kinds.count("change") == 2
    fg.execute_callbacks("validate")
    assert rec.events[-1] == ("validate",)
    fg.remove_feature(rec)
    assert rec.events[-1] == ("detach",)
    fg.replace(fg.outputs[0], x)
    assert rec.events[-1] == ("detach",)


def test_history_rollback():
    x, y, a, out = graph()
    fg = FunctionGraph([x, y], [out], clone=False)
    fg.attach_feature(History())
    before = fg.toposort()
    chk = fg.checkpoint()
    fg.replace(a, neg(y))
    fg.replace(fg.outputs[0], x)
    assert fg.outputs[0] is x
    fg.revert(chk)
    assert fg.outputs[0] is out and out.owner.inputs[0] is a
    assert fg.toposort() == before
    fg.check_integrity()


def test_replace_validate_reverts_on_failure():
    class Forbid(Feature):
        def validate(self, fgraph):
            if any(str(n.op) == "neg" and n.inputs[0].name == "y" for n in fgraph.apply_nodes):
                raise InconsistencyError("neg(y) is forbidden")

    x, y, a, out = graph()
    fg = FunctionGraph([x, y], [out], clone=False)
    fg.attach_feature(ReplaceValidate())
    fg.attach_feature(Forbid())
    with pytest.raises(InconsistencyError):
        fg.replace_validate(a, neg(y))
    assert out.owner.inputs[0] is a
    fg.check_integrity()
    fg.replace_validate(a, neg(x))
    assert out.owner.inputs[0] is not a


def test_multi_output_prune_keeps_sibling():
    x, y = ft("x"), ft("y")
    q, r = divmod_(x, y)
    fg = FunctionGraph([x, y], [q, r], clone=False)
    fg.replace(q, neg(x))
    assert r.owner in fg.apply_nodes
    fg.replace(r, x)
    assert r.owner not in fg.apply_nodes
    fg.check_integrity()


def test_node_finder_and_clone():
    x, y, a, out = graph()
    fg = FunctionGraph([x, y], [out])
    fg.attach_feature(NodeFinder())
    assert len(fg.get_nodes(add)) == 1
    fg2 = fg.clone()
    assert equal_computations(fg.outputs, fg2.outputs, fg.inputs, fg2.inputs)
    assert not set(fg2.apply_nodes) & set(fg.apply_nodes)


def test_import_node_and_constants():
    x = ft("x")
    fg = FunctionGraph([x], [add(x, 2.0)])
    assert any(getattr(v, "data", None) == 2.0 for v in fg.variables)
    fg.check_integrity()
    assert len(ancestors(fg.outputs)) == 3


def test_graph_without_apply():
    x = ft("x")
    fg = FunctionGraph([x], [x])
    (fx,) = fg.inputs
    assert fg.toposort() == [] and fg.outputs == [fx]
    ((node, i),) = fg.clients[fx]
    assert isinstance(node.op, Output) and node.op.idx == 0 and i == 0 and node.inputs == [fx]


def test_apply_outputs_need_owner_free():
    with pytest.raises(TypeError):
        Apply(add, [ft("x")], [neg(ft("y"))])
