"""The compiled :class:`Function`: argument binding, the call path, updates, copies.

Everything a call needs is worked out when the function is built.  The call
itself is generated code specialized on what the function needs (argument
filtering, shared inputs, updates, output copies, profiling), so a function that
needs none of it costs one Python call plus the linker's runner.

>>> import theon
>>> from theon.graph.type import Generic
>>> x = Generic()("x")
>>> f = theon.function([x], x)
>>> type(f) is Function, f([1])
(True, [1])
"""

from __future__ import annotations

import operator
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from theon.compile.io import In, Out
from theon.compile.mode import Mode
from theon.compile.sharedvalue import Container, SharedVariable, copy_value
from theon.graph.basic import Constant, Variable, format_trace
from theon.graph.fg import FunctionGraph, describe
from theon.graph.type import Generic
from theon.link.basic import Runner
from theon.link.source import Source

__all__ = [
    "Function",
    "FunctionMaker",
    "UnusedInputError",
    "copy_value",
    "outputs_needing_copy",
    "plan_copies",
]


class UnusedInputError(ValueError):
    """An input of ``function`` is not needed by any output."""


class FunctionMaker:
    """What went into a compiled function.

    ``fgraph`` is the rewritten graph: its inputs are the arguments, then the
    implicit inputs (state, shared variables); its outputs are the function's
    outputs, then the update values (``fgraph.update_mapping`` maps each update
    output to its input).  ``inputs`` are the ``In`` of ``fgraph.inputs``;
    ``outputs`` the ``Out`` of the function's outputs.
    """

    def __init__(
        self,
        fgraph: FunctionGraph,
        inputs: list[In],
        outputs: list[Out],
        mode: Mode,
        unpack_single: bool,
    ) -> None:
        self.fgraph = fgraph
        self.inputs = inputs
        self.outputs = outputs
        self.mode = mode
        self.unpack_single = unpack_single
        self.compile_time = 0.0

    @property
    def linker(self) -> Any:
        """The linker that made the function's runner."""
        return self.mode.linker


def _view_roots(v: Variable) -> set[Variable]:
    """The variables whose memory ``v`` may share, following view_map and destroy_map."""
    roots: set[Variable] = set()
    stack = [v]
    seen: set[Variable] = set()
    while stack:
        x = stack.pop()
        if x in seen:
            continue
        seen.add(x)
        owner = x.owner
        if owner is None:
            roots.add(x)
            continue
        op = owner.op
        idx = x.index if x.index is not None else 0
        alias = list(op.view_map.get(idx, ())) + list(op.destroy_map.get(idx, ()))
        if not alias:
            roots.add(x)
            continue
        stack.extend(owner.inputs[i] for i in alias)
    return roots


def plan_copies(
    fgraph: FunctionGraph, n_out: int, borrow: Sequence[bool], reused: Sequence[bool] = ()
) -> tuple[list[bool], dict[int, bool]]:
    """Which outputs and which update values must be copied.

    A returned value is copied unless borrowed when it may share memory with an
    input (argument or shared storage), a constant, an update value or an earlier
    output, or when the runner reuses its storage (``reused``).  An update value
    is copied when it may share memory with a constant, another input than the
    shared variable it updates, or another update value.

    >>> from theon.graph.type import Generic
    >>> x = Generic()("x")
    >>> plan_copies(FunctionGraph([x], [x]), 1, [False])
    ([True], {})
    """
    inputs = fgraph.inputs
    input_set = set(inputs)
    reused = list(reused) + [False] * (len(fgraph.outputs) - len(reused))
    claimed: set[Variable] = set()
    upd_copy: dict[int, bool] = {}
    for k in sorted(fgraph.update_mapping):
        roots = _view_roots(fgraph.outputs[k])
        own = inputs[fgraph.update_mapping[k]]
        bad = reused[k] or any(
            isinstance(r, Constant) or (r in input_set and r is not own) or r in claimed
            for r in roots
        )
        upd_copy[k] = bad
        if not bad:
            claimed |= roots
    out_copy: list[bool] = []
    for k in range(n_out):
        roots = _view_roots(fgraph.outputs[k])
        bad = reused[k] or any(
            r in input_set or isinstance(r, Constant) or r in claimed for r in roots
        )
        c = bad and not borrow[k]
        out_copy.append(c)
        if not c:
            claimed |= roots
    return out_copy, upd_copy


def outputs_needing_copy(fgraph: FunctionGraph, borrow: Sequence[bool]) -> list[bool]:
    """Which outputs must be copied so results never alias inputs, constants or each other.

    >>> from theon.graph.type import Generic
    >>> x = Generic()("x")
    >>> outputs_needing_copy(FunctionGraph([x], [x, x]), [False, True])
    [True, False]
    """
    return plan_copies(fgraph, len(borrow), borrow)[0]


# the specialized call path ---------------------------------------------------------
def _identity_filter(t: Any) -> bool:
    return type(t).filter is Generic.filter


def _build_call(
    owner: Function,
    n_args: int,
    filters: list[tuple[Any, bool, bool | None] | None],
    runner: Runner,
    implicit_cells: Sequence[list[Any]],
    update_plan: Sequence[tuple[int, list[Any], bool]],
    out_copy: Sequence[bool],
    unpack: bool,
    profile: Any,
    locks: Sequence[Any] = (),
    broadcast_dims: Sequence[tuple[int, tuple[int, ...]]] = (),
    trusted: bool = False,
) -> tuple[Callable[..., Any], str]:
    """A call function doing exactly what ``owner`` needs, unrolled, and its source.

    Everything it uses (the runner's function, filters, storage cells) is bound as
    a global of the generated code, so a call does no attribute or dict lookups on
    the Function.  ``owner`` itself is reached (weakly: no reference cycle) only
    to bind keyword arguments and to explain a refused argument.  ``locks`` are
    held, in order, from binding the arguments to storing the updates.  ``trusted``
    (``trust_input``): the arguments go unchecked, and a call that fails is explained by
    :meth:`Function._untrusted_argument` (in a ``try``, which costs nothing until then).
    """
    src = Source({"_runner": runner.fn, "_copy": copy_value, "_perf": time.perf_counter,
                  "_prof": profile, "self": weakref.proxy(owner), "_M": _MISSING})
    # The arguments are positional-only parameters defaulting to a marker: a call
    # with exactly the arguments binds them with no tuple or dict to unpack.
    a = [f"a{k}" for k in range(n_args)]
    s = _bind_lines(a)
    filtered, b = _filter_lines(src, a, filters, runner.float_inputs)
    s += filtered
    s += _run_lines(src, a, b, implicit_cells, broadcast_dims, profile, trusted)
    s += _update_lines(src, update_plan)
    # the locked part: acquire each lock, then run the rest under try/finally (one
    # try per lock, or one for all of them where Python's limit of 20 nested blocks
    # could be reached: a training function updating dozens of shared variables)
    if len(locks) > _NESTED_LOCKS:
        acquire, release = _lock_all(locks)
        src.define("_acq_all", acquire)
        src.define("_rel_all", release)
        s = ["    _acq_all()", "    try:", *("    " + ln for ln in s),
             "    finally:", "        _rel_all()"]
    for n in reversed(range(len(locks) if len(locks) <= _NESTED_LOCKS else 0)):
        src.define(f"_acq{n}", locks[n].acquire)
        src.define(f"_rel{n}", locks[n].release)
        s = [f"    _acq{n}()", "    try:", *("    " + ln for ln in s),
             "    finally:", f"        _rel{n}()"]
    params = "".join(f"{x}=_M, " for x in a) + ("/, " if a else "")
    s.append(_return_line(out_copy, unpack, bool(update_plan)))
    s.insert(0, f"def __call__({params}*rest, **kwargs):")
    src.add(*s)
    return src.function("__call__", "call"), src.text()


#: up to this many locks, the generated call nests one try/finally per lock
_NESTED_LOCKS = 4


def _lock_all(locks: Sequence[Any]) -> tuple[Callable[[], None], Callable[[], None]]:
    """Functions acquiring ``locks`` in order (releasing those taken if one acquire
    raises) and releasing them in reverse order."""
    order = tuple(locks)

    def acquire() -> None:
        taken = 0
        try:
            for lock in order:
                lock.acquire()
                taken += 1
        except BaseException:
            for lock in reversed(order[:taken]):
                lock.release()
            raise

    def release() -> None:
        for lock in reversed(order):
            lock.release()

    return acquire, release


def _bind_lines(a: list[str]) -> list[str]:
    """Lines binding a call that is not exactly the positional arguments ``a``."""
    n_args = len(a)
    if n_args:
        return [
            f"    if rest or kwargs or a{n_args - 1} is _M:",
            f"        given = tuple(v for v in ({', '.join(a)},) if v is not _M) + rest",
            f"        {', '.join(a)}, = self._bind(given, kwargs)",
        ]
    return ["    if rest or kwargs:", "        self._bind(rest, kwargs)"]


def _filter_lines(
    src: Source, a: list[str], filters: list[tuple[Any, bool, bool | None] | None],
    float_ok: frozenset[int],
) -> tuple[list[str], list[str]]:
    """Lines filtering the arguments, and the names of the filtered values.

    The runner reads the 0-d float64 inputs ``float_ok`` only through float(): a
    Python float needs no filtering there (the filter would box it only for the
    runner to unbox it).  Filtered values get new names: a refused argument is
    explained from the originals.
    """
    checks = [(k, f) for k, f in enumerate(filters) if f is not None]
    b = list(a)
    s: list[str] = []
    if checks:
        s.append("    try:")
        for k, (filt, strict, down) in checks:
            src.define(f"_f{k}", filt)
            src.define(f"_s{k}", strict)
            src.define(f"_d{k}", down)
            b[k] = f"b{k}"
            if k in float_ok and not strict:
                s.append(f"        b{k} = _f{k}(a{k}, _s{k}, _d{k}) "
                         f"if type(a{k}) is not float else a{k}")
            else:
                s.append(f"        b{k} = _f{k}(a{k}, _s{k}, _d{k})")
        s += [
            "    except (TypeError, ValueError) as e:",
            f"        raise self._arg_error(({', '.join(a)},), e) from None",
        ]
    return s, b


def _run_lines(
    src: Source, a: list[str], b: list[str], implicit_cells: Sequence[list[Any]],
    broadcast_dims: Sequence[tuple[int, tuple[int, ...]]], profile: Any, trusted: bool,
) -> list[str]:
    """Lines running the runner on the filtered arguments ``b`` and the implicit inputs'
    cells: ``outs``."""
    run: list[str] = []
    if broadcast_dims:
        # an argument of length 1 where its type does not say: NumPy broadcasting, by a
        # variant of the function compiled for those lengths (see _broadcast_call)
        test = " or ".join(f"{b[k]}.shape[{d}] == 1" for k, dims in broadcast_dims
                           for d in dims)
        run += [f"    if {test}:",
                f"        return self._broadcast_call(({', '.join(b)},))"]
    call_args = list(b)
    for k, cell in enumerate(implicit_cells):
        src.define(f"_c{k}", cell)
        call_args.append(f"_c{k}[0]")
    if profile is not None:
        run.append("    t0 = _perf()")
    run.append(f"    outs = _runner({', '.join(call_args)})")
    if profile is not None:
        run.append("    _prof.record_call(_perf() - t0)")
    if trusted and a:
        run = ["    try:", *("    " + ln for ln in run),
               "    except Exception as e:",
               f"        self._untrusted_argument(({', '.join(a)},), e)",
               "        raise"]
    return run


def _update_lines(src: Source, update_plan: Sequence[tuple[int, list[Any], bool]]
                  ) -> list[str]:
    """Lines storing the updates: every new value computed first, then all stored."""
    s: list[str] = []
    for n, (k, _, cp) in enumerate(update_plan):
        s.append(f"    u{n} = _copy(outs[{k}])" if cp else f"    u{n} = outs[{k}]")
    for n, (_, cell, _) in enumerate(update_plan):
        src.define(f"_u{n}", cell)
        s.append(f"    _u{n}[0] = u{n}")
    return s


def _return_line(out_copy: Sequence[bool], unpack: bool, updates: bool) -> str:
    """The line returning the outputs (copied where ``out_copy`` says)."""
    items = [f"_copy(outs[{k}])" if c else f"outs[{k}]" for k, c in enumerate(out_copy)]
    if unpack:
        return f"    return {items[0]}"
    if any(out_copy):
        return f"    return [{', '.join(items)}]"
    if updates:
        return f"    return outs[:{len(out_copy)}]"
    return "    return outs"


class UncheckedArgumentError(TypeError):
    """An argument of a ``trust_input=True`` function that is not a value of its type."""


def _short(value: Any) -> str:
    """``repr(value)``, cut to 60 characters."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _as_runner(runner: Any) -> Runner:
    """``runner`` as a :class:`Runner` (a linker may return a bare callable)."""
    if isinstance(runner, Runner):
        return runner
    return Runner(runner, list(getattr(runner, "order", ())),
                  reentrant=bool(getattr(runner, "reentrant", False)))


_CALL_DOC = "Run the function on ``args`` (and keyword arguments by input name)."


class Function:
    """A compiled function: call it with values for its inputs.

    Arguments are given positionally or by input name; inputs with a default may
    be left out.  ``f.maker.fgraph`` is the rewritten graph and ``f.maker.inputs``
    its ``In`` (the arguments, then the implicit inputs).  ``f[name_or_var]``
    reads the stored value of an input (default, state or shared value) and
    ``f[name_or_var] = v`` sets it.  Compiled functions pickle (see
    :mod:`theon.compile.pickling`) and :meth:`copy`.

    Threads: a compiled function may be called from several threads at once.

    - Calls do not share intermediate results.  The default linker keeps them in
      the locals of its generated code, so calls without updates run unlocked
      and in parallel; a function whose runner keeps them between steps (the
      reference VM, ``mode="REFERENCE"``) runs one call at a time, together with
      its ``copy(share_memory=True)``.
    - A call with updates is atomic.  It holds the locks of the shared variables
      and state inputs it updates from reading their values to storing the new
      ones: concurrent calls of functions updating the same variable lose no
      update, and ``set_value`` or ``f[name] = v`` wait for such a call.
    - New values are stored only when the call succeeds, into new memory (a
      call never writes into a shared variable's array): a call that raises
      changes no shared variable or state.
    - A call that only reads a shared variable takes no lock and sees its old
      or its new value, never a half-written one; when another thread's call
      updates several variables, it may see some old and some new.
    - Results belong to the caller (except ``Out(v, borrow=True)`` outputs);
      profiling counts may miss some of the concurrent calls.

    >>> import theon
    >>> from theon.compile.io import In
    >>> from theon.graph.type import Generic
    >>> x = Generic()("x")
    >>> f = theon.function([In(x, value=2)], x)
    >>> f(), f["x"], f(x=5)
    (2, 2, 5)
    """

    def __init__(
        self,
        maker: FunctionMaker,
        runner: Any,
        name: str | None = None,
        trust_input: bool = False,
        input_storage: list[Container] | None = None,
        profile: Any = None,
        runner_lock: Any = None,
        link_job: Any = None,
    ) -> None:
        self.maker = maker
        # how to compile the same graph on inputs with more static lengths of 1
        # (run-time broadcasting: see ``_broadcast_retry``), and those compiled so far
        self._link_job = link_job
        self._specialized: dict[tuple[Any, ...], Function] = {}
        self.name = name
        self._runner = runner = _as_runner(runner)
        self.profile = profile
        # a runner that keeps intermediates between its steps (the reference VM)
        # runs one call at a time; copies that share it share this lock
        self._runner_lock = None if runner.reentrant else (
            runner_lock if runner_lock is not None else threading.RLock())
        if input_storage is None:
            input_storage = [
                Container(i.variable.type, i.value if i.has_default else None, i.name,
                          i.strict, i.allow_downcast)
                if not isinstance(i.variable, SharedVariable) else i.variable.container
                for i in maker.inputs
            ]
        self.input_storage = input_storage
        self._trust_input = trust_input
        self._setup()

    # construction ------------------------------------------------------------------
    def _setup(self) -> None:
        """Precompute everything the call path needs and generate the call function."""
        maker = self.maker
        ins = maker.inputs
        fg = maker.fgraph
        explicit = [i for i in ins if not i.implicit]
        n = len(explicit)
        if any(i.implicit for i in ins[:n]):
            raise ValueError("the function's arguments must come before its implicit inputs")
        self._n_args = n
        self._names = {i.name: k for k, i in enumerate(explicit) if i.name is not None}
        self._filters = [self._make_filter(i) for i in explicit]
        self._implicit_cells = tuple(c.storage for c in self.input_storage[n:])
        self._n_out = n_out = len(maker.outputs)
        reused = self._runner.reuses_output_storage
        if isinstance(reused, bool):
            reused = [reused] * len(fg.outputs)
        out_copy, upd_copy = plan_copies(fg, n_out, [o.borrow for o in maker.outputs], reused)
        self._copy = out_copy
        self._update_plan = [
            (k, self.input_storage[j].storage, upd_copy[k])
            for k, j in sorted(fg.update_mapping.items())
        ]
        updated = {id(c): c for c in (self.input_storage[j] for j in fg.update_mapping.values())}
        locks = [c.lock for c in sorted(updated.values(), key=lambda c: c.order)]
        if self._runner_lock is not None:
            locks.append(self._runner_lock)
        self._unpack = maker.unpack_single
        filters = [
            None if self._trust_input or _identity_filter(i.variable.type)
            else (i.variable.type.filter, i.strict, i.allow_downcast)
            for i in explicit
        ]
        # the arguments' dimensions of unknown length, which may be 1 at run time and
        # broadcast (NumPy's rule): checked at each call
        self._bcast_dims = [
            (k, dims) for k, i in enumerate(explicit)
            if (dims := tuple(d for d, s in enumerate(getattr(i.variable.type, "shape", ()))
                              if s is None))
        ] if self._link_job is not None else []
        call, self._call_source = _build_call(
            self, n, filters, self._runner, self._implicit_cells, self._update_plan, out_copy,
            self._unpack, self.profile, locks, broadcast_dims=self._bcast_dims,
            trusted=self._trust_input,
        )
        call.__qualname__ = "Function.__call__"
        call.__doc__ = _CALL_DOC
        self._call = call

    @staticmethod
    def _make_filter(i: In) -> Any:
        filt = i.variable.type.filter
        strict = i.strict
        down = i.allow_downcast

        def f(value: Any) -> Any:
            return filt(value, strict, down)

        return f

    @property
    def trust_input(self) -> bool:
        """Whether arguments are passed to the graph unchecked (see ``function``)."""
        return self._trust_input

    @trust_input.setter
    def trust_input(self, value: bool) -> None:
        self._trust_input = bool(value)
        self._setup()

    def sharding_report(self, *args: Any) -> Any:
        """Where a function compiled with ``sharding=`` (``mode="JAX"``) places its inputs
        and outputs: shapes, shardings and each device's part, for the shapes of ``args``
        or of the last call; ``print()`` it for a table.  See
        :func:`theon.link.jax.sharding.sharding_report`."""
        from theon.link.jax.sharding import sharding_report

        return sharding_report(self, *args)

    # calling ---------------------------------------------------------------------
    if TYPE_CHECKING:
        def __call__(self, *args: Any, **kwargs: Any) -> Any:
            """Run the function on ``args`` (and keyword arguments by input name)."""
    else:
        # Python looks special methods up on the type: this property hands out the
        # instance's generated call function (``_call``), all in C, so a call costs
        # what a method of a class made for this function would.
        __call__ = property(operator.attrgetter("_call"), doc=_CALL_DOC)

    # run-time broadcasting -------------------------------------------------------
    def _broadcast_call(self, args: tuple[Any, ...]) -> Any:
        """Run ``args``, some of length 1 where their types do not say, on the variant of
        this function compiled with those lengths declared 1 (once per pattern): the
        graph is rebuilt on those types, so broadcasting and its gradient (summed back
        to the argument's length) are decided statically, as NumPy would compute them.
        The variant shares this function's inputs, shared variables and updates."""
        key = tuple(
            (k, hit) for k, dims in self._bcast_dims
            if (hit := tuple(d for d in dims if args[k].shape[d] == 1))
        )
        spec = self._specialized.get(key)
        if spec is None:
            spec = self._link_job.specialize(dict(key), self.input_storage)
            self._specialized[key] = spec
        return spec(*args)

    def _arg_error(self, args: Sequence[Any], e: Exception) -> Exception:
        """The error for the first argument its filter refuses, naming the input."""
        for k, (f, a) in enumerate(zip(self._filters, args)):
            try:
                f(a)
            except (TypeError, ValueError) as err:
                i = self.maker.inputs[k]
                where = f" of function {self.name!r}" if self.name else ""
                msg = f"bad argument {k} ({i.name or i.variable}){where}: {err}"
                msg += _built_at(i)
                return type(err)(msg) if isinstance(err, (TypeError, ValueError)) else \
                    TypeError(msg)
        return e

    def _untrusted_argument(self, args: Sequence[Any], e: Exception) -> None:
        """After a call with ``trust_input=True`` raised ``e``: a ``TypeError`` naming the
        first argument that is not a value of its input's type (arguments are passed on
        unconverted, so a list where an array is expected fails deep inside); returns,
        letting ``e`` stand, when every argument is one."""
        if isinstance(e, UncheckedArgumentError):
            return  # (raised by a variant of this function: it names the argument)
        for k, a in enumerate(args):
            i = self.maker.inputs[k]
            t = i.variable.type
            try:
                t.filter(a, strict=True)
            except (TypeError, ValueError):
                where = f" of function {self.name!r}" if self.name else ""
                raise UncheckedArgumentError(
                    f"argument {k} ({i.name or i.variable}){where} is {type(a).__name__} "
                    f"{_short(a)}, not a value of its type {t}: with trust_input=True "
                    f"arguments are passed on unchecked and unconverted, so each must "
                    f"already be one (convert it first, e.g. with numpy.asarray, or compile "
                    f"without trust_input); the call failed with {type(e).__name__}: {e}"
                    + _built_at(i)
                ) from e

    def _bind(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
        """Arguments in input order, from positions, keywords and stored defaults."""
        n = self._n_args
        ins = self.maker.inputs
        if len(args) > n:
            raise TypeError(
                f"function{' ' + repr(self.name) if self.name else ''} takes {n} "
                f"argument{'s' if n != 1 else ''} ({self._arg_names()}), {len(args)} given"
            )
        vals: list[Any] = list(args) + [_MISSING] * (n - len(args))
        for key, value in kwargs.items():
            k = self._names.get(key)
            if k is None:
                implicit = [i for i in ins[n:] if i.name == key]
                if implicit:
                    raise TypeError(
                        f"input {key!r} is implicit (its stored value is used) and cannot be "
                        f"given as an argument; set it with f[{key!r}] = value"
                    )
                raise TypeError(f"function has no input named {key!r} (inputs: "
                                f"{self._arg_names()})")
            if vals[k] is not _MISSING:
                raise TypeError(f"input {key!r} given both by position and by keyword")
            vals[k] = value
        for k, v in enumerate(vals):
            if v is _MISSING:
                i = ins[k]
                if i.has_default:
                    d = self.input_storage[k].storage[0]
                    vals[k] = copy_value(d) if i.mutable else d
                else:
                    absent = [ins[j] for j, w in enumerate(vals)
                              if w is _MISSING and not ins[j].has_default]
                    missing = [j.name or str(j.variable) for j in absent]
                    raise TypeError(
                        f"missing argument{'s' if len(missing) > 1 else ''} "
                        f"{', '.join(map(repr, missing))}: function takes {n} "
                        f"({self._arg_names()}), {len(args) + len(kwargs)} given"
                        + "".join(_built_at(j) for j in absent)
                    )
        return vals

    def _arg_names(self) -> str:
        return ", ".join(i.name or str(i.variable) for i in self.maker.inputs[: self._n_args])

    # stored values ------------------------------------------------------------------
    def _container_index(self, key: Any) -> int:
        ins = self.maker.inputs
        if isinstance(key, int):
            return key
        if isinstance(key, Variable):
            for k, i in enumerate(ins):
                if i.variable is key:
                    return k
            raise KeyError(f"{describe(key)} is not an input of this function")
        matches = [k for k, i in enumerate(ins) if i.name == key]
        if len(matches) == 1:
            return matches[0]
        if not matches:
            raise KeyError(f"this function has no input named {key!r}")
        raise KeyError(f"several inputs are named {key!r}; index by the variable instead")

    def __getitem__(self, key: Any) -> Any:
        """The stored value of an input (by name, Variable or position), not a copy."""
        return self.input_storage[self._container_index(key)].storage[0]

    def __setitem__(self, key: Any, value: Any) -> None:
        """Set the stored value (default, state or shared value) of an input, filtered."""
        k = self._container_index(key)
        try:
            self.input_storage[k].value = value
        except (TypeError, ValueError) as e:
            i = self.maker.inputs[k]
            raise type(e)(f"cannot store a value for input {describe(i.variable)}: {e}") from None

    # copies and pickling ------------------------------------------------------------
    def copy(
        self,
        share_memory: bool = False,
        swap: dict[SharedVariable, SharedVariable] | None = None,
        delete_updates: bool = False,
        name: str | None = None,
        profile: Any = None,
    ) -> Function:
        """A copy of this function, without recompiling.

        The copy reads and updates the same shared variables as this function
        (their storage is the variables' own), except those given in ``swap`` and
        those whose Type sets ``state_copied_by_function_copy`` (random generators):
        the copy gets its own copy of their current value.
        Arguments' defaults and state inputs (``In(value=..., update=...)``) start
        from this function's current values but are the copy's own: setting
        ``copy[name]`` or advancing the copy's state leaves this function alone.

        Parameters
        ----------
        share_memory
            ``True``: the copy reuses this function's linked code (and whatever
            storage for intermediate results it keeps).  ``False``: it gets its own.
            Which inputs are shared does not depend on it.
        swap
            ``{old_shared: new_shared}``: the copy reads and updates ``new_shared``
            in place of ``old_shared`` (same type required); give a copy its own
            state this way.
        delete_updates
            The copy computes the outputs only, without updates (it still reads
            the shared variables' current values).
        name, profile
            The copy's name and profiling (as in ``function``).

        >>> import theon
        >>> from theon.graph.type import Generic
        >>> x = Generic()("x")
        >>> theon.function([x], x).copy()(3)
        3
        """
        from theon.compile.pipeline import _make_profile

        maker = self.maker
        swap = dict(swap or {})
        for old, new in swap.items():
            if not any(i.variable is old for i in maker.inputs):
                raise ValueError(f"copy(swap=...): {old} is not a shared input of this function")
            if not isinstance(new, SharedVariable) or new.type != old.type:
                raise TypeError(
                    f"copy(swap=...): {old} can only be swapped for a shared variable of type "
                    f"{old.type}, got {new!r}" + (f" of type {new.type}" if
                                                  isinstance(new, Variable) else "")
                )
        fg = maker.fgraph
        if delete_updates and fg.update_mapping:
            fg = _without_updates(fg, len(maker.outputs))
        new_inputs: list[In] = []
        storage: list[Container] = []
        for i, c in zip(maker.inputs, self.input_storage):
            ni = In.__new__(In)
            ni.__dict__.update(i.__dict__)
            if delete_updates:
                ni.update = None
            if i.variable in swap:
                ni.variable = swap[i.variable]
                c = swap[i.variable].container
            elif not i.shared or getattr(i.variable.type, "state_copied_by_function_copy",
                                         False):
                # defaults and state are the copy's own; so is a shared value whose
                # Type asks for it (a random generator: the copy draws its own numbers)
                c = c.copy()
            new_inputs.append(ni)
            storage.append(c)
        new_maker = FunctionMaker(fg, new_inputs, maker.outputs, maker.mode, maker.unpack_single)
        prof = _make_profile(profile, name or self.name) if profile is not None else None
        if share_memory and fg is maker.fgraph and prof is None:
            runner, lock = self._runner, self._runner_lock
        else:
            runner, lock = maker.mode.linker.make_function(fg, profile=prof), None
        # the same graph and shared variables: the copy can specialize as this one does
        job = self._link_job if not swap and not delete_updates else None
        return Function(new_maker, runner, name=name or self.name, trust_input=self.trust_input,
                        input_storage=storage, profile=prof, runner_lock=lock, link_job=job)

    def __copy__(self) -> Function:
        """``copy.copy(f)`` is ``f.copy()``."""
        return self.copy()

    def __reduce__(self) -> tuple[Any, ...]:
        from theon.compile.pickling import function_state, load_function

        return (load_function, (function_state(self),))

    def __repr__(self) -> str:
        return f"<theon.Function {self.name or ''}({self._arg_names()})>"

    def dprint(self, **kwargs: Any) -> Any:
        """Print the compiled graph: :func:`theon.printing.dprint` of this function, with
        ``kwargs`` (``file="str"`` returns the text).

        >>> import theon, theon.tensor as tt
        >>> x = tt.dvector("x")
        >>> print(theon.function([x], tt.exp(x)).dprint(file="str"), end="")
        Elemwise{exp,no_inplace} [id A] ''
         |x [id B]
        """
        from theon.printing import dprint

        return dprint(self, **kwargs)




def _built_at(i: In) -> str:
    """``'\\nthe input 'x' was built at file:line in fn'``, or ``''`` when not known."""
    where = format_trace(getattr(i.variable.tag, "trace", None))
    return f"\nthe input {i.name or str(i.variable)!r} was built at {where}" if where else ""


def _without_updates(fg: FunctionGraph, n_out: int) -> FunctionGraph:
    """A copy of ``fg`` without its update outputs (refused if it overwrites inputs)."""
    from theon.compile.pickling import FixedOrder
    from theon.graph.replace import clone_get_equiv

    order = fg.toposort()
    inputs = set(fg.inputs)
    mutable = fg.mutable_inputs or set()
    for node in order:
        for ins in node.op.destroy_map.values():
            for i in ins:
                hit = [r for r in _view_roots(node.inputs[i]) if r in inputs and r in mutable]
                if hit:
                    raise ValueError(
                        f"copy(delete_updates=True): the compiled graph overwrites {hit[0]} in "
                        f"place ({node.op}), which is only safe with its update; compile a "
                        "new function without updates instead"
                    )
    equiv = clone_get_equiv(fg.inputs, fg.outputs[:n_out])
    new = FunctionGraph([equiv[v] for v in fg.inputs], [equiv[v] for v in fg.outputs[:n_out]],
                        clone=False)
    new.attach_feature(FixedOrder([equiv[n] for n in order if n in equiv]))
    new.mutable_inputs = set()
    new.protected_inputs = set(new.inputs)
    return new


_MISSING: Any = object()
