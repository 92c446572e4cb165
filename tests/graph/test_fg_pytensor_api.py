"""FunctionGraph's PyTensor API: Output nodes as output clients, the copy options,
importing missing inputs, removing outputs/nodes/inputs, and features' callbacks."""

import pytest

from theon.graph.basic import Constant
from theon.graph.features import AlreadyThere, Feature, InconsistencyError, ReplaceValidate
from theon.graph.fg import FunctionGraph, MissingInputError, Output
from theon.graph.traversal import ancestors

from .toy import add, ft, mul, neg


def test_outputs_are_read_by_output_nodes():
    x, y = ft("x"), ft("y")
    a = add(x, y)
    b = neg(a)
    fg = FunctionGraph([x, y], [b, a, b], clone=False)
    # a is read by neg and by output 1; b by outputs 0 and 2
    readers = {(type(n.op).__name__, getattr(n.op, "idx", None), i) for n, i in fg.clients[a]}
    assert readers == {("Unary", None, 0), ("Output", 1, 0)}
    assert [n.op.idx for n, _ in fg.clients[b]] == [0, 2]
    for k, out in enumerate(fg.outputs):
        node, i = fg.get_output_client(k)
        assert isinstance(node.op, Output) and node.op.idx == k and i == 0
        assert node.inputs == [out] and node.outputs == []
        assert node not in fg.apply_nodes and node not in fg.toposort()
    assert fg.get_clients(b) == list(fg.clients[b])
    fg.check_integrity()


def test_replacing_an_output_changes_its_output_node():
    x, y = ft("x"), ft("y")
    fg = FunctionGraph([x, y], [add(x, y)], clone=False)
    node, _ = fg.get_output_client(0)
    new = mul(x, y)
    fg.replace(fg.outputs[0], new)
    assert fg.outputs[0] is new and node.inputs == [new]
    assert fg.clients[new] == [(node, 0)]
    # the same through change_node_input on the Output node, as PyTensor rewrites do
    fg.change_node_input(node, 0, x)
    assert fg.outputs == [x] and len(fg.apply_nodes) == 0
    fg.check_integrity()


def test_copy_inputs_and_orphans():
    x = ft("x")
    c = Constant(ft, 2.0)
    out = mul(add(x, c), x)
    fg = FunctionGraph(outputs=[out], clone=True, copy_inputs=False, copy_orphans=False)
    assert fg.inputs == [x]  # inputs found from the outputs, kept themselves
    assert fg.outputs[0] is not out  # the nodes are copies
    assert c in fg.variables  # the constant is the same object
    fg2 = FunctionGraph([x], [out])  # the default copies both
    assert fg2.inputs[0] is not x and c not in fg2.variables
    fg.check_integrity()
    fg2.check_integrity()


def test_replace_all_import_missing():
    x, y, z = ft("x"), ft("y"), ft("z")
    fg = FunctionGraph([x, y], [add(x, y)], clone=False)
    with pytest.raises(MissingInputError, match="'z'"):
        fg.replace_all([(y, z)])
    fg.replace_all([(y, z)], import_missing=True)
    assert z in fg.inputs and fg.outputs[0].owner.inputs == [x, z]
    fg.check_integrity()


def test_add_output_import_missing():
    x, w = ft("x"), ft("w")
    fg = FunctionGraph([x], [neg(x)], clone=False)
    fg.add_output(add(x, w), import_missing=True)
    assert fg.inputs == [x, w] and fg.get_output_client(1)[0].op.idx == 1
    fg.check_integrity()


def test_remove_output_renumbers_the_later_ones():
    x, y = ft("x"), ft("y")
    a, b, c = neg(x), add(x, y), mul(x, y)
    fg = FunctionGraph([x, y], [a, b, c], clone=False)
    fg.remove_output(1)
    assert fg.outputs == [a, c] and b.owner not in fg.apply_nodes
    assert [fg.get_output_client(k)[0].op.idx for k in range(2)] == [0, 1]
    assert fg.clients[c] == [fg.get_output_client(1)]
    fg.check_integrity()


def test_remove_node_and_input_remove_what_depends_on_them():
    x, y = ft("x"), ft("y")
    a = neg(x)
    fg = FunctionGraph([x, y], [add(a, y), y, a], clone=False)
    fg.remove_node(a.owner)
    assert fg.outputs == [y] and not fg.apply_nodes
    fg.check_integrity()
    fg = FunctionGraph([x, y], [add(x, y), neg(y)], clone=False)
    fg.remove_input(0)
    assert fg.inputs == [y] and len(fg.outputs) == 1 and fg.outputs[0].owner.op == neg
    fg.check_integrity()


class Recorder(Feature):
    """Records every callback, in order."""

    def __init__(self):
        self.log = []

    def on_attach(self, fgraph):
        self.log.append("attach")

    def on_detach(self, fgraph):
        self.log.append("detach")

    def on_import(self, fgraph, node, reason):
        self.log.append(("import", node.op, reason))

    def on_prune(self, fgraph, node, reason):
        self.log.append(("prune", node.op, reason))

    def on_change_input(self, fgraph, node, i, var, new_var, reason=None):
        self.log.append(("change", str(node.op), i, str(var), str(new_var), reason))


def test_feature_callbacks_as_pytensor_sends_them():
    x, y = ft("x"), ft("y")
    a = add(x, y)
    fg = FunctionGraph([x, y], [neg(a)], clone=False)
    rec = Recorder()
    fg.attach_feature(rec)
    fg.replace(a, x, reason="test")
    # the neg node's input changed; add lost its last client and was pruned
    assert rec.log == ["attach", ("prune", add, "test"), ("change", "neg", 0, "add.0", "x",
                                                          "test")]
    rec.log.clear()
    fg.replace(fg.outputs[0], mul(x, y), reason="out")
    assert rec.log[0] == ("import", mul, "out")
    assert ("change", "output[0]", 0, "neg.0", "mul.0", "out") in rec.log
    fg.remove_feature(rec)
    assert rec.log[-1] == "detach"


class Once(Feature):
    def on_attach(self, fgraph):
        if any(isinstance(f, Once) for f in fgraph.features):
            raise AlreadyThere("one is enough")


def test_already_there_keeps_one_feature():
    x = ft("x")
    fg = FunctionGraph([x], [neg(x)], clone=False)
    fg.attach_feature(Once())
    fg.attach_feature(Once())
    assert sum(isinstance(f, Once) for f in fg.features) == 1


class NoNegOutput(Feature):
    """A validator: the output may not be computed by neg."""

    def validate(self, fgraph):
        if fgraph.outputs[0].owner is not None and fgraph.outputs[0].owner.op == neg:
            raise InconsistencyError("neg output")


def test_replace_validate_rolls_back():
    x, y = ft("x"), ft("y")
    out = add(x, y)
    fg = FunctionGraph([x, y], [out], clone=False, features=[ReplaceValidate(), NoNegOutput()])
    with pytest.raises(InconsistencyError):
        fg.replace_validate(out, neg(x))
    assert fg.outputs[0] is out and fg.get_output_client(0)[0].inputs == [out]
    fg.replace_validate(out, mul(x, y))
    assert fg.outputs[0].owner.op == mul
    fg.check_integrity()


def test_user_graph_untouched_and_ancestors():
    x = ft("x")
    out = neg(neg(x))
    fg = FunctionGraph([x], [out], clone=False)
    fg.replace(out, x)
    assert out.owner.inputs[0].owner.op == neg  # replacing does not edit nodes it drops
    assert ancestors(fg.outputs) == [x]


def test_clone_with_memo_substitutes_and_records():
    """PyMC's fgraph_from_model gives copies of some inputs in ``memo`` and reads the
    copies of every model variable from it afterwards."""
    x, y = ft("x"), ft("y")
    a = add(x, y)
    out = neg(a)
    y2 = ft("y2")
    memo = {y: y2}
    fg = FunctionGraph(outputs=[out, a], clone=True, memo=memo)
    # graph_inputs' order (PyTensor's: the last root first, a node's last input first)
    assert fg.inputs[0] is y2 and fg.inputs[1] is memo[x] and memo[x] is not x
    assert memo[out] is fg.outputs[0] and memo[a] is fg.outputs[1]
    assert memo[a.owner].inputs == [memo[x], y2] and memo[out.owner] in fg.apply_nodes
    fg.check_integrity()
    # a substituted variable with an owner is a leaf: its old graph is not copied
    z = ft("z")
    fg2 = FunctionGraph([x, z], [out], clone=True, copy_inputs=False, memo={a: z})
    assert [n.op for n in fg2.toposort()] == [neg] and fg2.outputs[0].owner.inputs == [z]
    fg2.check_integrity()
