"""FunctionGraph: a graph with fixed inputs and outputs that rewrites may change.

It is the seeds' "Env".  It keeps a ``clients`` map (variable -> the
``(node, input index)`` pairs reading it; a :class:`Clients` behaves like a list of
them), imports nodes as they become reachable and prunes them when orphaned, and
tells its features about every change.  Output ``k`` is read by an :class:`Output`
node, ``Apply(Output(k), [out], [])``, as in PyTensor: ``fgraph.clients[out]``
holds ``(output_node, 0)``.  Output nodes are not in ``apply_nodes`` nor in
:meth:`FunctionGraph.toposort`; ``isinstance(node.op, Output)`` tells them apart.

>>> from theon.graph.type import Generic
>>> from theon.graph.op import Op
>>> from theon.graph.basic import Apply
>>> g = Generic(); op = Op()
>>> a = g("a"); out = g("out"); _ = Apply(op, [a], [out])
>>> fg = FunctionGraph([a], [out])
>>> len(fg.apply_nodes), fg.outputs[0] is out
(1, False)
>>> [(type(n.op).__name__, n.op.idx, i) for n, i in fg.clients[fg.outputs[0]]]
[('Output', 0, 0)]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from theon.graph.basic import Apply, Constant, Variable, format_trace
from theon.graph.clients import Client, Clients, Output, OutputList, output_node
from theon.graph.collector import gc_paused
from theon.graph.features import NOOP_CALLBACKS, AlreadyThere, Feature
from theon.graph.replace import clone_get_equiv, copy_nodes
from theon.graph.traversal import dfs_toposort, io_toposort

if TYPE_CHECKING:
    from theon.graph.destroyhandler import DestroyHandler

__all__ = ["Clients", "FunctionGraph", "MissingInputError", "Output"]

F = TypeVar("F", bound=Feature)


class ReplaceOne(Protocol):
    """``fgraph.replace_validate(var, new, reason=None)`` (see ReplaceValidate)."""

    def __call__(self, var: Variable, new: Variable, reason: str | None = None) -> None: ...


class ReplaceAll(Protocol):
    """``fgraph.replace_all_validate(pairs, reason=None)`` (see ReplaceValidate)."""

    def __call__(
        self, pairs: Sequence[tuple[Variable, Variable]], reason: str | None = None
    ) -> None: ...


class MissingInputError(ValueError):
    """An output depends on a variable that is not an input of the graph."""


def describe(var: Variable) -> str:
    """``'x' (TensorType(...)), built at file:line in fn`` for error messages."""
    trace = getattr(var.tag, "trace", None)
    where = format_trace(trace)
    text = f"'{var}' ({var.type})"
    return f"{text}, built at {where}" if where else text


class FunctionGraph:
    """A graph between ``inputs`` and ``outputs``, copied unless ``clone=False``.

    Parameters
    ----------
    inputs, outputs
        The graph's boundary.  Every owner-less, non-constant variable the outputs
        need must be among the inputs.
    features
        Features to attach.
    clone
        Copy the graph first, so the user's graph is never touched.
    copy_inputs, copy_orphans
        When cloning: copy the inputs, and the constants, too (PyTensor's options).
    memo
        When cloning: a dict of substitutions to start from (``{variable: its copy}``),
        filled with every copied variable and node (PyTensor's option).

    With ``inputs=None`` the inputs are the variables without owner the outputs need,
    constants excepted.
    """

    change_count: int = 0  # (see __init__)

    # Compile state --------------------------------------------------------------------
    # Facts the compile pipeline, the rewriters and the features record on the graph,
    # declared here so that every reader and writer is type-checked.  Set in __init__:
    #
    # ``mutable_inputs``: the inputs the compiled function may overwrite in place
    # (``In(mutable=True)``); None when nobody decided (then none may be).
    mutable_inputs: set[Variable] | None
    # ``protected_inputs``: the inputs no inplace rewrite may overwrite; None when
    # nobody decided (then all of them).
    protected_inputs: set[Variable] | None
    # ``rewrite_trace``: the :class:`~theon.rewriting.tracing.TraceEntry` list being
    # recorded, or None when the compile records no trace.
    rewrite_trace: list[Any] | None
    # ``rewrite_stats``: the :class:`~theon.rewriting.basic.RewriteStats` of the last
    # phased rewrite (None before).  Both types belong to ``theon.rewriting``, which
    # this layer does not import.
    rewrite_stats: object | None
    # ``_rewrite_phase``: the name of the rewrite phase running now (None between
    # phases); ``_rewrite_verbose``: print every rewrite that fires.
    _rewrite_phase: str | None
    _rewrite_verbose: bool
    # ``destroy_handler``: the attached :class:`~theon.graph.destroyhandler.DestroyHandler`.
    destroy_handler: DestroyHandler | None
    # ``memo``: caches of analyses that rewriters share while the graph is rewritten,
    # one entry per analysis (each entry checks ``change_count`` itself).
    memo: dict[str, Any]

    # Methods installed by features.  Absent until the feature is attached (so
    # ``hasattr(fgraph, "validate")`` tells whether a Validator is), removed with it.
    #: :class:`~theon.graph.features.History`: a checkpoint, and undoing the changes since.
    checkpoint: Callable[[], int]
    revert: Callable[[int], None]
    #: :class:`~theon.graph.features.Validator`: run the ``validate`` callbacks.
    validate: Callable[[], None]
    consistent: Callable[[], bool]
    #: :class:`~theon.graph.features.ReplaceValidate`: replace, validate or roll back.
    replace_validate: ReplaceOne
    replace_all_validate: ReplaceAll
    #: :class:`~theon.graph.features.NodeFinder`: the nodes applying an op.
    get_nodes: Callable[[Any], list[Apply]]
    #: :class:`~theon.graph.destroyhandler.DestroyHandler`: who destroys what.
    destroyers: Callable[[Variable], list[Apply]]
    has_destroyers: Callable[[Iterable[Variable]], bool]
    view_roots: Callable[[Variable], list[Variable]]

    def __init__(
        self,
        inputs: Sequence[Variable] | None = None,
        outputs: Sequence[Variable] | None = None,
        features: Iterable[Feature] | None = None,
        clone: bool = True,
        update_mapping: dict[int, int] | None = None,
        *,
        copy_inputs: bool = True,
        copy_orphans: bool = True,
        memo: dict[Any, Any] | None = None,
    ) -> None:
        if outputs is None:
            raise ValueError("FunctionGraph needs outputs")
        with gc_paused():
            self._init(inputs, list(outputs), features, clone, update_mapping, copy_inputs,
                       copy_orphans, memo)

    def _init(
        self,
        inputs: Sequence[Variable] | None,
        outputs: list[Variable],
        features: Iterable[Feature] | None,
        clone: bool,
        update_mapping: dict[int, int] | None,
        copy_inputs: bool,
        copy_orphans: bool,
        memo: dict[Any, Any] | None,
    ) -> None:
        """The body of ``__init__`` (the collector held back: see ``graph.collector``)."""
        if inputs is None:
            from theon.graph.traversal import graph_inputs

            inputs = [i for i in graph_inputs(outputs) if not isinstance(i, Constant)]
        inputs = list(inputs)
        self.inputs: list[Variable] = []
        self._input_set: set[Variable] = set()
        self.outputs: list[Variable] = OutputList()  # (index: see OutputList)
        # the Output node reading each output (see Output)
        self._output_nodes: list[Apply] = []
        self.apply_nodes: dict[Apply, None] = {}
        self.variables: dict[Variable, None] = {}
        self.clients: dict[Variable, Clients] = {}
        self._features: list[Feature] = []
        self._callbacks: dict[str, list[Any]] = {}
        self._by_kind: dict[type[Feature], Feature] = {}
        self._topo: list[Apply] | None = None
        # grows with every change (inputs, outputs, imports, prunes): a cheap "has the
        # graph changed since?" for caches
        self.change_count = 0
        self.update_mapping = dict(update_mapping or {})
        self.mutable_inputs = None
        self.protected_inputs = None
        self.rewrite_trace = None
        self.rewrite_stats = None
        self._rewrite_phase = None
        self._rewrite_verbose = False
        self.destroy_handler = None
        self.memo = {}
        if clone:
            self._import_copy(inputs, outputs, copy_inputs, copy_orphans, memo)
        else:
            for i in inputs:
                self.add_input(i)
            for o in outputs:
                self.add_output(o)
        for f in features or ():
            self.attach_feature(f)

    # structure -------------------------------------------------------------------
    def add_input(self, var: Variable, check: bool = True) -> None:
        """Add ``var`` as a graph input (``check``: refuse a variable with an owner or a
        constant)."""
        if var in self._input_set:
            return
        if check:
            if var.owner is not None:
                raise ValueError(f"graph input {var} has an owner ({var.owner.op})")
            if isinstance(var, Constant):
                raise TypeError(
                    f"constant {describe(var)} cannot be an input of a function: its value "
                    "is fixed"
                )
        self.inputs.append(var)
        self._input_set.add(var)
        self.variables[var] = None
        if var not in self.clients:
            self.clients[var] = Clients()

    def add_output(
        self, var: Variable, reason: str | None = None, import_missing: bool = False
    ) -> None:
        """Append ``var`` to the outputs (``import_missing``: owner-less variables it
        needs become inputs instead of raising :class:`MissingInputError`)."""
        self.import_var(var, reason=reason, import_missing=import_missing)
        node = output_node(len(self.outputs), var)
        self.outputs.append(var)
        self._output_nodes.append(node)
        self.clients[var][(node, 0)] = None
        self._topo = None
        self.change_count += 1

    def get_output_client(self, i: int) -> Client:
        """``(output_node, 0)``: the client that reads output ``i``.

        >>> from theon.graph.type import Generic
        >>> x = Generic()("x")
        >>> fg = FunctionGraph([x], [x], clone=False)
        >>> node, k = fg.get_output_client(0)
        >>> str(node.op), k, node.inputs[0] is x
        ('output[0]', 0, True)
        """
        return (self._output_nodes[i], 0)

    def get_clients(self, var: Variable) -> list[Client]:
        """The ``(node, input index)`` pairs reading ``var`` (a new list)."""
        return list(self.clients.get(var, ()))

    def add_client(self, var: Variable, new_client: Client) -> None:
        """Record that ``new_client`` reads ``var`` (bookkeeping only; the node's inputs
        are not changed)."""
        if var not in self.clients:
            self.clients[var] = Clients()
        self.clients[var][new_client] = None

    def import_var(
        self, var: Variable, reason: str | None = None, import_missing: bool = False
    ) -> None:
        """Bring ``var`` (and, through its owner, its whole missing subgraph) in.

        An owner-less, non-constant variable that is not an input raises
        :class:`MissingInputError`, or becomes an input with ``import_missing``.
        """
        if var in self.variables:
            return
        if var.owner is not None:
            self.import_node(var.owner, reason=reason, import_missing=import_missing)
            return
        if not isinstance(var, Constant) and var not in self._input_set:
            if import_missing:
                self.add_input(var)
                return
            raise MissingInputError(
                f"the graph needs {describe(var)}, which is not one of the function's inputs"
            )
        self.variables[var] = None
        if var not in self.clients:
            self.clients[var] = Clients()

    def import_node(
        self,
        node: Apply,
        check: bool = True,
        reason: str | None = None,
        import_missing: bool = False,
    ) -> None:
        """Import ``node`` and any of its ancestors not yet in the graph (``import_missing``:
        see :meth:`import_var`)."""
        apply_nodes = self.apply_nodes
        if node in apply_nodes:
            return
        input_set = self._input_set
        for v in node.inputs:
            o = v.owner
            if o is not None and o not in apply_nodes and v not in input_set:
                new_nodes = self._missing_nodes(node)
                break
        else:  # the usual case: a single new node on known variables
            new_nodes = [node]
        if import_missing:
            for n in new_nodes:
                for v in n.inputs:
                    if (v.owner is None and v not in self.variables
                            and not isinstance(v, Constant)):
                        self.add_input(v)
        self._add_nodes(new_nodes, check, reason)

    def _add_nodes(self, new_nodes: list[Apply], check: bool, reason: str | None) -> None:
        """Register ``new_nodes`` (dependencies first; their inputs known or among them)."""
        if check:
            for n in new_nodes:
                for v in n.inputs:
                    if (
                        v.owner is None
                        and v not in self.variables
                        and not isinstance(v, Constant)
                        and v not in self._input_set
                    ):
                        raise MissingInputError(
                            f"input {describe(v)} of {n.op} is needed but is not one of "
                            f"the function's inputs ({', '.join(map(str, self.inputs)) or 'none'})"
                        )
        on_import = self._callbacks.get("on_import", ())
        apply_nodes = self.apply_nodes
        variables = self.variables
        clients = self.clients
        for n in new_nodes:
            apply_nodes[n] = None
            for o in n.outputs:
                variables[o] = None
                if o not in clients:
                    clients[o] = Clients()
            for i, v in enumerate(n.inputs):
                cl = clients.get(v)
                if cl is None:
                    variables[v] = None
                    cl = clients[v] = Clients()
                elif v not in variables:
                    variables[v] = None
                cl[(n, i)] = None
            for fn in on_import:
                fn(self, n, reason)
        self._topo = None
        self.change_count += 1

    def _import_copy(
        self,
        inputs: list[Variable],
        outputs: list[Variable],
        copy_inputs: bool = True,
        copy_orphans: bool = True,
        memo: dict[Any, Any] | None = None,
    ) -> None:
        """Make this graph a copy of the graph between ``inputs`` and ``outputs``.

        The same as adding copies of the inputs, then of each output in turn (which
        imports its missing nodes, dependencies first), but in one walk: each
        node is copied when it is imported.  ``copy_inputs=False`` keeps the given
        inputs themselves, ``copy_orphans=False`` the constants; ``memo`` holds given
        copies and receives the others.
        """
        equiv: dict[Any, Any] = {} if memo is None else memo
        for i in inputs:
            if i not in equiv:
                equiv[i] = i.clone() if copy_inputs else i
        for i in inputs:
            self.add_input(equiv[i])
        input_set = set(inputs)
        for o in outputs:
            new = equiv.get(o)
            if new is None:
                if o.owner is None:  # a constant (or a missing input: import_var says so)
                    new = equiv[o] = o.clone() if copy_orphans else o
                else:
                    self._add_nodes(
                        copy_nodes(o.owner, equiv, input_set, copy_orphans), True, None
                    )
                    new = equiv[o]
            self.add_output(new)

    def _missing_nodes(self, node: Apply) -> list[Apply]:
        """``node`` and its ancestors not in the graph, dependencies first."""
        known = self.apply_nodes
        order: list[Apply] = []
        done: set[Apply] = set()
        stack: list[tuple[Apply, bool]] = [(node, False)]
        while stack:
            n, expanded = stack.pop()
            if expanded:
                if n not in done:
                    done.add(n)
                    order.append(n)
                continue
            if n in done:
                continue
            stack.append((n, True))
            for v in reversed(n.inputs):
                o = v.owner
                if o is not None and o not in known and o not in done and v not in self._input_set:
                    stack.append((o, False))
        return order

    def change_node_input(
        self,
        node: Apply,
        i: int,
        new_var: Variable,
        reason: str | None = None,
        import_missing: bool = False,
        check: bool = True,
    ) -> None:
        """Make input ``i`` of ``node`` be ``new_var`` (an :class:`Output` node: the output)."""
        old = node.inputs[i]
        if old is new_var:
            return
        # a replacement may be more specific (more static lengths known), never less
        if check and old.type is not new_var.type and not old.type.is_super(new_var.type):
            raise TypeError(
                f"cannot replace {old} of type {old.type} by {new_var} of type {new_var.type}"
                + (f" (reason: {reason})" if reason else "")
            )
        if new_var not in self.variables:
            self.import_var(new_var, reason=reason, import_missing=import_missing)
        op = node.op
        if type(op) is Output:
            self.outputs[op.idx] = new_var
        node.inputs[i] = new_var
        self.clients[new_var][(node, i)] = None
        self.remove_client(old, (node, i), reason=reason)
        self._topo = None
        self.change_count += 1
        for fn in self._callbacks.get("on_change_input", ()):
            fn(self, node, i, old, new_var, reason)

    change_input = change_node_input

    def remove_client(
        self,
        var: Variable,
        client: Client,
        reason: str | None = None,
        remove_if_empty: bool = False,
    ) -> None:
        """Drop ``client`` from ``var``'s clients, pruning what becomes unused.

        ``remove_if_empty`` (PyTensor's argument) is accepted: a variable left without
        clients is always removed here, unless it is an input of the graph.
        """
        stack: list[tuple[Variable, Client]] = [(var, client)]
        on_prune = self._callbacks.get("on_prune", ())
        clients = self.clients
        variables = self.variables
        apply_nodes = self.apply_nodes
        while stack:
            v, c = stack.pop()
            cl = clients[v]
            cl.pop(c, None)
            if cl:
                continue
            owner = v.owner
            if owner is None:
                if v not in self._input_set:
                    variables.pop(v, None)
                    del clients[v]
                continue
            if owner not in apply_nodes:
                continue
            outs = owner.outputs
            if len(outs) != 1 and any(clients.get(o) for o in outs):
                continue
            del apply_nodes[owner]
            for o in outs:
                variables.pop(o, None)
                clients.pop(o, None)
            for fn in on_prune:
                fn(self, owner, reason)
            for j, inp in enumerate(owner.inputs):
                stack.append((inp, (owner, j)))
        self._topo = None
        self.change_count += 1

    def remove_output(self, output_idx: int, reason: str | None = None) -> None:
        """Remove output ``output_idx`` (the later outputs move down one place), and prune
        what only it needed.

        >>> from theon.scalar import float64, neg
        >>> x = float64("x")
        >>> fg = FunctionGraph([x], [neg(x), x], clone=False)
        >>> fg.remove_output(0)
        >>> [str(o) for o in fg.outputs], len(fg.apply_nodes), str(fg.get_output_client(0)[0].op)
        (['x'], 0, 'output[0]')
        """
        var = self.outputs.pop(output_idx)
        node = self._output_nodes.pop(output_idx)
        # the later outputs' readers get their new positions
        for k in range(output_idx, len(self.outputs)):
            old_node = self._output_nodes[k]
            v = self.outputs[k]
            new_node = output_node(k, v)
            cl = self.clients[v]
            items = [(new_node, 0) if c == (old_node, 0) else c for c in cl]
            cl.clear()
            for c in items:
                cl[c] = None
            self._output_nodes[k] = new_node
        self.remove_client(var, (node, 0), reason=reason)
        self._topo = None
        self.change_count += 1

    def remove_node(self, node: Apply, reason: str | None = None) -> None:
        """Remove ``node`` and everything that depends on it, graph outputs included."""
        from theon.graph.traversal import ancestors

        if node not in self.apply_nodes:
            return
        outs = set(node.outputs)
        doomed = [k for k, o in enumerate(self.outputs)
                  if outs & set(ancestors([o], blockers=self._input_set))]
        for k in reversed(doomed):
            self.remove_output(k, reason=reason)

    def remove_input(self, input_idx: int, reason: str | None = None) -> None:
        """Remove input ``input_idx`` and everything that depends on it, outputs included."""
        from theon.graph.traversal import ancestors

        var = self.inputs[input_idx]
        doomed = [k for k, o in enumerate(self.outputs)
                  if var in ancestors([o], blockers=self._input_set)]
        for k in reversed(doomed):
            self.remove_output(k, reason=reason)
        self.inputs.pop(input_idx)
        self._input_set.discard(var)
        if not self.clients.get(var):
            self.clients.pop(var, None)
            self.variables.pop(var, None)
        self._topo = None
        self.change_count += 1

    def replace(
        self,
        var: Variable,
        new_var: Variable,
        reason: str | None = None,
        verbose: bool | None = None,
        import_missing: bool = False,
    ) -> None:
        """Replace every use of ``var`` by ``new_var`` (of an equal or convertible type)."""
        if var not in self.variables:
            return
        if var.type is not new_var.type and var.type != new_var.type:
            conv = var.type.convert_variable(new_var)
            if conv is None:
                raise TypeError(
                    f"cannot replace {var} of type {var.type} by {new_var} of type "
                    f"{new_var.type}" + (f" (reason: {reason})" if reason else "")
                )
            new_var = conv
        if var is new_var:
            return
        if verbose:
            print(f"rewrite {reason}: {var} -> {new_var}")
        for node, i in list(self.clients[var]):
            self.change_node_input(node, i, new_var, reason=reason, import_missing=import_missing)

    def replace_all(
        self, pairs: Iterable[tuple[Variable, Variable]], reason: str | None = None, **kw: Any
    ) -> None:
        """Apply :meth:`replace` to each ``(var, new_var)`` pair in turn."""
        for var, new in pairs:
            self.replace(var, new, reason=reason, **kw)

    # features --------------------------------------------------------------------
    def attach_feature(self, feature: Feature) -> None:
        """Attach ``feature`` and start sending it callbacks."""
        if feature in self._features:
            return
        on_attach = getattr(feature, "on_attach", None)
        if on_attach is not None:
            try:
                on_attach(self)
            except AlreadyThere:
                return
        self._features.append(feature)
        self._rebuild_callbacks()
        if _has_orderings(feature):
            self._topo = None  # a cached order predates the feature's orderings

    def remove_feature(self, feature: Feature) -> None:
        """Detach ``feature``."""
        if feature not in self._features:
            return
        self._features.remove(feature)
        self._rebuild_callbacks()
        if _has_orderings(feature):
            self._topo = None  # the cached order may follow the feature's orderings
        on_detach = getattr(feature, "on_detach", None)
        if on_detach is not None:
            on_detach(self)

    @property
    def features(self) -> list[Feature]:
        return list(self._features)

    def find_feature(self, kind: type[F]) -> F | None:
        """The attached feature that is an instance of ``kind`` (the first one), or None.

        >>> from theon.graph.type import Generic
        >>> from theon.graph.features import History
        >>> x = Generic()("x")
        >>> fg = FunctionGraph([x], [x], features=[History()])
        >>> type(fg.find_feature(History)).__name__, fg.find_feature(Feature) is not None
        ('History', True)
        """
        f = self._by_kind.get(kind)
        if isinstance(f, kind):
            return f
        for f in self._features:
            if isinstance(f, kind):
                return f
        return None

    def _rebuild_callbacks(self) -> None:
        cbs: dict[str, list[Any]] = {}
        by_kind: dict[type[Feature], Feature] = {}
        for f in self._features:
            by_kind.setdefault(type(f), f)
            for name in ("on_import", "on_prune", "on_change_input", "validate", "orderings"):
                fn = getattr(type(f), name, None)
                if fn is None or fn is NOOP_CALLBACKS.get(name):
                    continue
                cbs.setdefault(name, []).append(getattr(f, name))
        self._callbacks = cbs
        self._by_kind = by_kind

    def execute_callbacks(self, name: str, *args: Any) -> None:
        """Call ``name(fgraph, *args)`` on every feature that defines it."""
        fns = self._callbacks.get(name)
        if fns is None and name not in (
            "on_import", "on_prune", "on_change_input", "validate", "orderings"
        ):
            fns = [getattr(f, name) for f in self._features if hasattr(f, name)]
        for fn in fns or ():
            fn(self, *args)

    def collect_callbacks(self, name: str, *args: Any) -> dict[Feature, Any]:
        """``{feature: result}`` of ``name(fgraph, *args)`` for each feature defining it."""
        return {f: getattr(f, name)(self, *args) for f in self._features if hasattr(f, name)}

    # order -----------------------------------------------------------------------
    def orderings(self) -> dict[Apply, list[Apply]]:
        """Extra node orderings required by features (e.g. destroy-before-read)."""
        out: dict[Apply, list[Apply]] = {}
        for fn in self._callbacks.get("orderings", ()):
            for node, prereqs in fn(self).items():
                if prereqs:
                    out.setdefault(node, []).extend(prereqs)
        return out

    def toposort(self) -> list[Apply]:
        """The nodes in a deterministic dependency order (cached until the graph changes)."""
        if self._topo is None:
            orderings = self.orderings()
            if orderings:
                order = io_toposort(self.inputs, self.outputs, orderings)
            else:
                order = dfs_toposort(self.outputs)
            if len(order) != len(self.apply_nodes):
                # nodes kept alive only as clients of nothing reachable: keep them last
                seen = set(order)
                order.extend(n for n in self.apply_nodes if n not in seen)
            self._topo = order
        return list(self._topo)

    # checks and copies ---------------------------------------------------------------
    def check_integrity(self) -> None:
        """Raise ``AssertionError`` if the bookkeeping disagrees with the graph."""
        nodes = set(io_toposort(self.inputs, self.outputs))
        if nodes != set(self.apply_nodes):
            missing = nodes - set(self.apply_nodes)
            extra = set(self.apply_nodes) - nodes
            raise AssertionError(f"apply_nodes wrong: missing {missing}, extra {extra}")
        expected: dict[Variable, list[Client]] = {}  # plain lists, compared sorted
        for v in self.inputs:
            expected.setdefault(v, [])
        for n in nodes:
            for o in n.outputs:
                expected.setdefault(o, [])
            for i, v in enumerate(n.inputs):
                if v.owner is None and not isinstance(v, Constant) and v not in self._input_set:
                    raise AssertionError(f"{v} is used by {n.op} but is not an input")
                expected.setdefault(v, []).append((n, i))
        if len(self._output_nodes) != len(self.outputs):
            raise AssertionError("outputs and their Output nodes disagree in number")
        for i, (v, onode) in enumerate(zip(self.outputs, self._output_nodes)):
            if onode.inputs[0] is not v or onode.op != Output(i):
                raise AssertionError(f"output {i} ({v}) is not what its Output node reads")
            expected.setdefault(v, []).append((onode, 0))
        if set(expected) != set(self.variables):
            raise AssertionError(
                f"variables wrong: {set(expected) ^ set(self.variables)}"
            )
        for v, cl in expected.items():
            got = self.clients.get(v)
            if got is None or sorted(map(_ckey, got)) != sorted(map(_ckey, cl)):
                raise AssertionError(f"clients of {v} wrong: {got} != {cl}")

    def clone(self, check_integrity: bool = True) -> FunctionGraph:
        """A copy of this graph (features that can be cloned are cloned)."""
        return self.clone_get_equiv(check_integrity)[0]

    def clone_get_equiv(
        self, check_integrity: bool = True, attach_feature: bool = True
    ) -> tuple[FunctionGraph, dict[Any, Any]]:
        """A copy and the map from this graph's variables and nodes to the copy's."""
        equiv = clone_get_equiv(self.inputs, self.outputs)
        fg = FunctionGraph(
            [equiv[i] for i in self.inputs],
            [equiv[o] for o in self.outputs],
            clone=False,
            update_mapping=self.update_mapping,
        )
        if check_integrity:
            fg.check_integrity()
        if attach_feature:
            for f in self._features:
                try:
                    fg.attach_feature(f.clone())
                except (TypeError, NotImplementedError):
                    continue
        return fg, equiv

    def __str__(self) -> str:
        return f"FunctionGraph({', '.join(map(str, self.outputs))})"

    def __repr__(self) -> str:
        return str(self)

    def __contains__(self, item: object) -> bool:
        return item in self.variables or item in self.apply_nodes


def _has_orderings(feature: Any) -> bool:
    """Whether ``feature`` defines an ``orderings`` callback of its own."""
    fn = getattr(type(feature), "orderings", None)
    return fn is not None and fn is not NOOP_CALLBACKS.get("orderings")


def _ckey(c: Client) -> tuple[int, int]:
    return (id(c[0]), c[1])
