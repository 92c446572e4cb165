"""Rewrite provenance on toy graphs: what a fired rewrite records, and on which nodes."""

from __future__ import annotations

from pathlib import Path

from theon.graph.fg import FunctionGraph
from theon.rewriting import in2out, merge_rewriter, node_rewriter
from theon.rewriting.db import Phase, RewriteDatabase, RewriteQuery
from theon.rewriting.provenance import (
    Origin,
    Step,
    error_context,
    origins,
    provenance,
    steps,
)

from .toy import add, exp, ft, ident, neg, sub

_LINES = Path(__file__).read_text().splitlines()


def line_of(marker: str) -> int:
    """The number of the (only) line of this file ending with ``# marker``."""
    found = [k for k, ln in enumerate(_LINES, 1) if ln.rstrip().endswith(f"# {marker}")]
    assert len(found) == 1, marker
    return found[0]


@node_rewriter([add])
def local_add_neg(fgraph, node):
    """a + (-b) -> a - b"""
    a, b = node.inputs
    if b.owner is not None and b.owner.op == neg:
        return [sub(a, b.owner.inputs[0])]
    return None


@node_rewriter([sub])
def local_sub_to_add(fgraph, node):
    """exp(a) - b -> (-b) + exp(a)"""
    a, b = node.inputs
    if a.owner is not None and a.owner.op == exp:
        return [add(neg(b), a)]
    return None


@node_rewriter([ident])
def local_ident(fgraph, node):
    """ident(x) -> x"""
    return [node.inputs[0]]


def lines(p) -> set[int]:
    return {o.trace[0][1] for o in origins(p)}


def test_a_rewrite_records_the_nodes_it_consumed():
    x, y = ft("x"), ft("y")
    n = neg(y)  # NEG
    z = add(x, n)  # ADD
    out = exp(z)  # EXP
    fg = FunctionGraph([x, y], [out])
    in2out(local_add_neg)(fg)
    (made,) = [nd for nd in fg.apply_nodes if nd.op == sub]
    p = provenance(made)
    assert isinstance(p, Step) and (p.phase, p.rewrite) == ("", "local_add_neg")
    # the rewritten add first, then the neg that left the graph with it
    assert [o.op for o in origins(p)] == [add, neg]
    assert lines(p) == {line_of("ADD"), line_of("NEG")}
    # the exp was not rewritten: its Origin is read from it
    (e,) = [nd for nd in fg.apply_nodes if nd.op == exp]
    assert isinstance(provenance(e), Origin) and lines(provenance(e)) == {line_of("EXP")}


def test_a_node_still_read_elsewhere_was_not_consumed():
    x, y = ft("x"), ft("y")
    n = neg(y)
    z = add(x, n)  # ADD-ONLY
    fg = FunctionGraph([x, y], [exp(z), n])  # the neg is an output too: it stays
    in2out(local_add_neg)(fg)
    (made,) = [nd for nd in fg.apply_nodes if nd.op == sub]
    assert [o.op for o in origins(provenance(made))] == [add]
    assert lines(provenance(made)) == {line_of("ADD-ONLY")}


def test_rewrites_chain_and_record_their_phase():
    db = RewriteDatabase([Phase("first", "equilibrium"), Phase("second", "equilibrium")])
    db.register("local_add_neg", local_add_neg, "on", phase="first")
    db.register("local_sub_to_add", local_sub_to_add, "on", phase="second")
    x, y = ft("x"), ft("y")
    z = add(exp(x), neg(y))  # CHAIN
    fg = FunctionGraph([x, y], [z])
    db.query(RewriteQuery(include=("on",)))(fg)
    top = fg.outputs[0].owner
    assert top.op == add
    assert [(s.phase, s.rewrite) for s in steps(provenance(top))] == [
        ("second", "local_sub_to_add"), ("first", "local_add_neg")]
    assert lines(provenance(top)) == {line_of("CHAIN")}
    # the neg made with it shares its Step
    (made_neg,) = [nd for nd in fg.apply_nodes if nd.op == neg]
    assert provenance(made_neg) is provenance(top)
    # a copy of the graph keeps the records
    (cp_top,) = [nd for nd in fg.clone().apply_nodes if nd.op == add]
    assert provenance(cp_top) is provenance(top)


def test_a_replacement_by_an_existing_variable_records_nothing():
    x = ft("x")
    y = exp(ident(x))
    fg = FunctionGraph([x], [y])
    in2out(local_ident)(fg)
    (node,) = fg.apply_nodes
    assert node.op == exp and isinstance(provenance(node), Origin)


def test_merge_keeps_both_lines_unless_they_are_one():
    x = ft("x")
    a = exp(x)  # MERGE-1
    b = exp(x)  # MERGE-2
    fg = FunctionGraph([x], [add(a, b)])
    merge_rewriter(fg)
    (kept,) = [nd for nd in fg.apply_nodes if nd.op == exp]
    p = provenance(kept)
    assert isinstance(p, Step) and p.rewrite == "merge"
    assert lines(p) == {line_of("MERGE-1"), line_of("MERGE-2")}
    # duplicates built on one line merge without a record
    c, d = exp(x), exp(x)  # SAME-LINE
    fg = FunctionGraph([x], [add(c, d)])
    merge_rewriter(fg)
    (kept,) = [nd for nd in fg.apply_nodes if nd.op == exp]
    assert isinstance(provenance(kept), Origin)
    assert lines(provenance(kept)) == {line_of("SAME-LINE")}


def test_error_context_lists_each_place_once_and_cuts_long_lists():
    x = ft("x")
    p = Step("fusion", "f", tuple(
        Origin(op, (("m.py", k, "g"),)) for k in range(10) for op in (exp, neg)))
    node = exp(x).owner
    node.tag._provenance = p
    text = error_context(node, limit=3)
    assert text.splitlines() == [
        "the node was made by rewrites ([fusion] f) from nodes built at:",
        "  m.py:0 in g: exp, neg",
        "  m.py:1 in g: exp, neg",
        "  m.py:2 in g: exp, neg",
        "  ... and 7 more places (theon.explain(f) lists them all)",
    ]
