"""PyTensor's ``optdb``: rewrites registered PyTensor's way run in ``theon.function``.

Each test registers rewrites the way PyTensor's documentation does (a
``node_rewriter``, then ``optdb[...].register`` or ``optdb.register(..., position=)``)
and checks the compiled function's graph and values.
"""

import pytest

import theon
from theon.compile import optdb as compile_optdb
from theon.compile.mode import optdb
from theon.graph.features import ReplaceValidate
from theon.graph.fg import FunctionGraph
from theon.graph.rewriting.basic import GraphRewriter, node_rewriter, out2in
from theon.rewriting import PHASES, OptDB, RewriteDatabase, rewrite_db, rewrite_graph
from theon.rewriting.optdb import phase_of_position

from .toy import Unary, add, ft, mul, true_div

twice = Unary("twice", lambda a: 2 * a)


@node_rewriter([twice])
def local_twice_to_add(fgraph, node):
    """twice(x) -> x + x"""
    (x,) = node.inputs
    return [add(x, x)]


class Simplify(GraphRewriter):
    """(x * y) / y -> x and (y * x) / y -> x, over the whole graph."""

    def add_requirements(self, fgraph):
        fgraph.attach_feature(ReplaceValidate())

    def apply(self, fgraph):
        for node in fgraph.toposort():
            if node.op != true_div:
                continue
            num, den = node.inputs
            if num.owner is not None and num.owner.op == mul:
                a, b = num.owner.inputs
                if den is b:
                    fgraph.replace_validate(node.outputs[0], a)
                elif den is a:
                    fgraph.replace_validate(node.outputs[0], b)


def ops_of(f):
    """The compiled graph's Ops, but the copies of outputs that are inputs."""
    return sorted(str(n.op) for n in f.maker.fgraph.apply_nodes
                  if type(n.op).__name__ != "DeepCopyOp")


@pytest.fixture
def registered():
    names = []

    def register(where, name, rewriter, *tags, **kw):
        where.register(name, rewriter, *tags, **kw)
        names.append(name)

    yield register
    for name in names:
        rewrite_db.unregister(name)


def test_node_rewriter_in_the_canonicalize_database(registered):
    assert compile_optdb is optdb
    x = ft("x")
    before = theon.function([x], twice(x))
    assert ops_of(before) == ["twice"] and before(1.5) == 3.0
    registered(optdb["canonicalize"], "local_twice_to_add", local_twice_to_add, "fast_run")
    f = theon.function([x], twice(x))
    assert ops_of(f) == ["add"] and f(1.5) == 3.0
    assert rewrite_db["local_twice_to_add"].phases == ("canonicalize",)
    # a query excluding it by name, as PyMC builds its canonicalization
    fg = FunctionGraph([x], [twice(x)])
    optdb.query("+canonicalize", "-local_twice_to_add").rewrite(fg)
    assert [str(n.op) for n in fg.toposort()] == ["twice"]
    optdb.query("+canonicalize").rewrite(fg)
    assert [str(n.op) for n in fg.toposort()] == ["add"]
    # FAST_COMPILE runs the fast_compile tag, which this rewrite does not have
    assert ops_of(theon.function([x], twice(x), mode="FAST_COMPILE")) == ["twice"]


def test_graph_rewriter_at_a_position(registered):
    x, y = ft("x"), ft("y")
    out = true_div(mul(x, y), y)
    assert ops_of(theon.function([x, y], out)) == ["mul", "true_div"]
    registered(optdb, "simplify", Simplify(), "fast_run", position=0.5)
    assert rewrite_db["simplify"].phases == ("merge1",)
    f = theon.function([x, y], [out, true_div(mul(y, x), y)])
    assert ops_of(f) == [] and f(3.0, 4.0) == [3.0, 3.0]


def test_register_canonicalize_and_rewrite_graph():
    from theon.rewriting import register_canonicalize

    x = ft("x")
    register_canonicalize(local_twice_to_add)
    try:
        out = rewrite_graph(twice(x), include=("canonicalize",))
        assert out.owner.op == add and out.owner.inputs == [x, x]
        kept = rewrite_graph(twice(x), include=("canonicalize",), exclude=("local_twice_to_add",))
        assert kept.owner.op == twice
        fg = FunctionGraph([x], [twice(x)])
        assert rewrite_graph(fg, include=("canonicalize",)) is fg
        assert fg.outputs[0].owner.op == add
        custom = rewrite_graph(twice(x), include=("specialize",),
                               custom_rewrite=out2in(local_twice_to_add))
        assert custom.owner.op == add
    finally:
        rewrite_db.unregister("local_twice_to_add")


def test_positions_map_to_phases():
    db = RewriteDatabase(PHASES)
    opt = OptDB(db)
    assert phase_of_position(-1, db) == "merge1"
    assert phase_of_position(0.5, db) == "merge1"
    assert phase_of_position(49.2, db) == "fusion"
    assert phase_of_position(60, db) == "inplace"
    assert phase_of_position(100, db) == "merge2"
    assert db.phases == [p.name for p in PHASES]  # no phase added for those
    assert phase_of_position(1.2, db) == "after_canonicalize"
    assert phase_of_position(1.7, db) == "after_stabilize"
    assert phase_of_position(3, db) == "after_specialize"
    assert db.phases == ["merge1", "canonicalize", "after_canonicalize", "stabilize",
                         "after_stabilize", "specialize", "after_specialize", "fusion",
                         "inplace", "merge2"]
    opt.register("late", Simplify(), "fast_run")  # position "last": the end
    assert db["late"].phases == ("merge2",)
    assert "late" in opt and "canonicalize" in opt and "nothing" not in opt
    assert isinstance(opt["late"], Simplify)
    with pytest.raises(TypeError, match="position_cutoff"):
        opt.query("+fast_run", position_cutoff=1)


def test_unknown_phase_and_tags():
    with pytest.raises(KeyError, match="no rewrite"):
        OptDB(RewriteDatabase(PHASES))["no_such_phase_or_rewrite"]
    with pytest.raises(ValueError, match="'\\+'"):
        optdb.query("canonicalize")


def test_use_db_name_as_tag_false_runs_only_when_named():
    """PyMC registers its parameter-check rewrites this way: a query of the phase does
    not run them, a mode naming them does."""
    optdb["canonicalize"].register("local_twice_to_add", local_twice_to_add,
                                   use_db_name_as_tag=False)
    try:
        x = ft("x")
        fg = FunctionGraph([x], [twice(x)])
        optdb.query("+canonicalize").rewrite(fg)
        assert fg.outputs[0].owner.op == twice
        assert ops_of(theon.function([x], twice(x))) == ["twice"]
        mode = theon.compile.mode.get_default_mode()
        query = mode.provided_optimizer.including("local_twice_to_add")
        f = theon.function([x], twice(x), mode=theon.Mode(linker=mode.linker, optimizer=query))
        assert ops_of(f) == ["add"] and f(2.0) == 4.0
    finally:
        rewrite_db.unregister("local_twice_to_add")


def test_mode_register_adds_graph_rewriters():
    import theon.compile.mode as mode_module

    x, y = ft("x"), ft("y")
    mode = mode_module.FAST_COMPILE.register((Simplify(), -1))
    assert mode.extra_rewriters[0][1] == -1 and mode_module.FAST_COMPILE.extra_rewriters == ()
    f = theon.function([x, y], true_div(mul(x, y), y), mode=mode)
    assert ops_of(f) == [] and f(5.0, 2.0) == 5.0
    # including/excluding keep the added rewriters
    assert mode.excluding("merge").extra_rewriters == mode.extra_rewriters


def test_track_keys_apply_to_the_exact_class_only():
    """``register_track_key(Wrap, ...)`` lets a rewrite tracking the wrapped op see
    ``Wrap`` nodes; a subclass of ``Wrap`` is another op (PyMC's MeasurableElemwise is
    not an addition for theon's canonicalizer)."""
    from theon.graph.basic import Apply
    from theon.graph.op import Op
    from theon.rewriting import RewriterIndex, register_track_key
    from theon.rewriting.basic import _TRACK_KEYS, _TRACK_KEYS_VERSION

    class Wrap(Op):
        __props__ = ("inner",)

        def __init__(self, inner):
            self.inner = inner

        def make_node(self, x):
            return Apply(self, [x], [x.type()])

    class SubWrap(Wrap):
        pass

    register_track_key(Wrap, lambda op: op.inner)
    try:
        index = RewriterIndex([local_twice_to_add])
        assert index.candidates(Wrap(twice)) == (local_twice_to_add,)
        assert index.candidates(SubWrap(twice)) == ()
    finally:
        del _TRACK_KEYS[Wrap]
        _TRACK_KEYS_VERSION[0] += 1


def test_pytensor_optimizer_names():
    """PyTensor's optimizer names as queries: ``minimum_compile`` (PyMC's cheap
    evaluation mode) runs no rewrite, ``o3`` is fast_run without inplace."""
    x = ft("x")
    out = add(mul(x, 1.0), 0.0)
    f = theon.function([x], out, mode=theon.Mode(optimizer="minimum_compile"))
    assert ops_of(f) == ["add", "mul"] and f(2.0) == 2.0
    q = theon.Mode(optimizer="o3").provided_optimizer
    assert q.include == ("fast_run",) and q.exclude == ("inplace",)
