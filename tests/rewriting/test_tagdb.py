"""PyTensor's rewrite databases (EquilibriumDB, SequenceDB, LocalGroupDB, TopoDB, ProxyDB)
and queries, as PyMC's logprob module builds and nests them."""

import pytest

from theon.graph.fg import FunctionGraph
from theon.graph.rewriting.db import (
    EquilibriumDB,
    LocalGroupDB,
    ProxyDB,
    RewriteDatabase,
    RewriteDatabaseQuery,
    SequenceDB,
    TopoDB,
)
from theon.rewriting import (
    EquilibriumGraphRewriter,
    GraphRewriter,
    SequentialGraphRewriter,
    SequentialNodeRewriter,
    WalkingGraphRewriter,
    node_rewriter,
)

from .toy import add, exp, ft, ident, mul, neg


@node_rewriter([neg])
def neg_neg(fgraph, node):
    """neg(neg(x)) -> x"""
    x = node.inputs[0]
    if x.owner is not None and x.owner.op == neg:
        return [x.owner.inputs[0]]
    return None


@node_rewriter([ident])
def drop_ident(fgraph, node):
    """ident(x) -> x"""
    return [node.inputs[0]]


@node_rewriter([exp])
def exp_to_neg(fgraph, node):
    """exp(x) -> neg(x) (a toy: not math, but visible)"""
    return [neg(node.inputs[0])]


class Log(GraphRewriter):
    """Records each run (a graph rewriter doing nothing else)."""

    def __init__(self, log, tag):
        self.log, self.tag = log, tag

    def apply(self, fgraph):
        self.log.append(self.tag)


def test_tags_include_exclude_require_and_names():
    db = EquilibriumDB()
    db.name = "mydb"
    db.register("neg_neg", neg_neg, "basic", "a")
    db.register("drop_ident", drop_ident, "basic", "b")
    db.register("exp_to_neg", exp_to_neg, "other")

    def names(*tags):
        return sorted(r.name for r in db.query(*tags).rewriters)

    assert names("+basic") == ["drop_ident", "neg_neg"]
    assert names("+basic", "-a") == ["drop_ident"]
    assert names("+basic", "+other", "&b") == ["drop_ident"]
    assert names("+neg_neg") == ["neg_neg"]  # a name is a tag
    assert names("+mydb") == ["drop_ident", "exp_to_neg", "neg_neg"]  # so is the db's
    assert names(RewriteDatabaseQuery(include=["basic"], exclude=["b"])) == ["neg_neg"]
    assert "basic" in db and "neg_neg" in db and "nothing" not in db
    assert db["neg_neg"] is neg_neg and db["other"] is exp_to_neg
    with pytest.raises(ValueError, match="'\\+'"):
        db.query("basic")
    with pytest.raises(ValueError, match="already registered"):
        db.register("neg_neg", drop_ident)
    db.register("neg_neg", drop_ident, "basic", overwrite_existing=True)
    assert db["neg_neg"] is drop_ident
    with pytest.raises(TypeError, match="NodeRewriter"):
        db.register("f", lambda fgraph, node: None)


def test_equilibrium_db_rewrites_to_a_fixed_point():
    db = EquilibriumDB()
    db.register("neg_neg", neg_neg, "basic")
    db.register("drop_ident", drop_ident, "basic")
    rw = db.query("+basic")
    assert isinstance(rw, EquilibriumGraphRewriter)
    x = ft("x")
    # ident hides a neg(neg(.)) until it is dropped: only a fixed point gets to x
    fg = FunctionGraph([x], [neg(ident(neg(ident(x))))], clone=False)
    rw.rewrite(fg)
    assert fg.outputs[0] is x


def test_sequence_db_positions_cutoff_and_nesting():
    log = []
    seq = SequenceDB()
    seq.register("b", Log(log, "b"), "basic", position=2)
    seq.register("a", Log(log, "a"), "basic", position=2)  # ties: by name
    seq.register("c", Log(log, "c"), "basic")  # "last": after every position so far
    seq.register("first", Log(log, "first"), "basic", position=-1)
    seq.register("skipped", Log(log, "skipped"), "other", position=0)
    inner = SequenceDB()
    inner.register("inner", Log(log, "inner"), "basic")
    inner.register("inner_other", Log(log, "inner_other"), "other")
    seq.register("nested", inner, "basic", position=2.5)
    rw = seq.query(RewriteDatabaseQuery(include=["basic"]))
    assert isinstance(rw, SequentialGraphRewriter) and len(rw) == 5
    x = ft("x")
    rw.rewrite(FunctionGraph([x], [neg(x)]))
    # the nested database was queried with the same query
    assert log == ["first", "a", "b", "inner", "c"]
    log.clear()
    seq.query("+basic", position_cutoff=2).rewrite(FunctionGraph([x], [neg(x)]))
    assert log == ["first"]
    assert not SequenceDB().query("+basic")  # nothing selected: a false rewriter


def test_query_results_are_cached_until_a_registration():
    db = EquilibriumDB()
    db.register("neg_neg", neg_neg, "basic")
    outer = SequenceDB()
    outer.register("inner", db, "basic")
    first = outer.query("+basic")
    assert outer.query("+basic") is first
    db.register("drop_ident", drop_ident, "basic")  # the inner database changes
    again = outer.query("+basic")
    assert again is not first
    assert sorted(r.name for r in again.rewriters[0].rewriters) == ["drop_ident", "neg_neg"]


def test_local_group_and_topo_db():
    group = LocalGroupDB()
    group.register("neg_neg", neg_neg, "cleanup")
    group.register("drop_ident", drop_ident, "cleanup")
    node_rw = group.query("+cleanup")
    assert isinstance(node_rw, SequentialNodeRewriter)
    assert sorted(map(str, node_rw.tracks())) == ["ident", "neg"]
    walker = TopoDB(group, order="out_to_in", ignore_newtrees=True).query("+cleanup")
    assert isinstance(walker, WalkingGraphRewriter) and walker.order == "out_to_in"
    x = ft("x")
    fg = FunctionGraph([x], [add(ident(x), neg(neg(x)))], clone=False)
    walker.rewrite(fg)
    assert fg.outputs[0].owner.inputs == [x, x]
    # a ProxyDB queries the database it wraps
    proxied = ProxyDB(group).query("+cleanup")
    assert isinstance(proxied, SequentialNodeRewriter)


def test_apply_all_rewrites_chains_on_the_new_node():
    @node_rewriter([mul])
    def mul_to_add(fgraph, node):
        """mul(x, y) -> add(x, y) (a toy)"""
        return [add(*node.inputs)]

    @node_rewriter([add])
    def add_to_neg(fgraph, node):
        """add(x, y) -> neg(x) (a toy)"""
        return [neg(node.inputs[0])]

    x, y = ft("x"), ft("y")
    node = mul(x, y).owner
    first = SequentialNodeRewriter(mul_to_add, add_to_neg).transform(None, node)
    assert first[0].owner.op == add
    chained = SequentialNodeRewriter(mul_to_add, add_to_neg, apply_all_rewrites=True)
    assert chained.transform(None, node)[0].owner.op == neg


def test_base_database_query_lists_rewriters():
    db = RewriteDatabase()
    db.register("neg_neg", neg_neg, "basic")
    assert db.query("+basic") == [neg_neg]
