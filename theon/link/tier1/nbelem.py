"""Tier-1 elementwise kernels compiled by numba, for fused nodes below XLA's size.

An XLA call costs tens of microseconds, so fused nodes of fewer than
``config.tier1_threshold`` elements stay on NumPy; but NumPy without AVX-512
computes float64 ``tanh`` one element at a time (about 9 ns each), which
dominates a small network's step (a 128 x 256 hidden layer: 290 us of ``tanh``)
and an RNN's loop.  A fused float64 node with a ``tanh`` step is compiled here
into one numba loop over the elements, with :func:`~.nbmath.vtanh` (which
vectorizes) for ``tanh`` and plain arithmetic for the other steps: 60 us for
that layer, and one pass over memory for the whole node.  A node of three or
more arithmetic steps (``tanh``'s gradient ``g * m * (1 - h**2)``) is compiled
too, for calls past the tier-0 block (:func:`min_size`): one pass instead of
one per step (122 against 30 us or less on the 128 x 256 layer).

Only steps whose NumPy semantics the loop reproduces are taken (:data:`STEPS`,
all on float64); anything else stays on tier 0.  The kernel is a whole-array
function (``whole = True``) of inputs of the output's shape, rows repeated along
the last axis (a bias) and numbers (:func:`input_kinds`); other layouts stay on
tier 0.
Its source goes through the loop compiler's disk cache
(:class:`~.loops.NumbaLoopCompiler`), so the next process loads the machine
code.  numba is imported by :func:`make_compiler`, on the background thread.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from theon.link.pyfunc.kernel import KConst, KernelSpec, KStep

__all__ = ["KINDS", "STEPS", "NumbaElemwiseCompiler", "WholeKernel", "input_kinds",
           "kernel_source", "make_compiler", "min_size", "supports"]

#: The float64 ufunc steps a kernel may have, by name (:class:`KStep`'s ``name``, the
#: scalar op's one name in NumPy's namespaces), as Python expressions of their operands.
STEPS: dict[str, str] = {
    "add": "({0} + {1})",
    "subtract": "({0} - {1})",
    "multiply": "({0} * {1})",
    "true_divide": "({0} / {1})",
    "negative": "(-{0})",
    "absolute": "abs({0})",
    "square": "({0} * {0})",
    "sqrt": "_math.sqrt({0})",
    # NumPy's maximum/minimum give NaN when either operand is NaN
    "maximum": "({0} if ({0} >= {1} or {0} != {0}) else {1})",
    "minimum": "({0} if ({0} <= {1} or {0} != {0}) else {1})",
    "tanh": "_vtanh({0})",
}
#: Steps worth a numba kernel: NumPy computes them one element at a time without AVX-512.
SLOW = frozenset({"tanh"})
#: A node without such a step is worth one from this many steps (one pass over memory
#: instead of one NumPy pass per step), on calls the tier-0 kernel would block.
MIN_STEPS = 3


class Unsupported(Exception):
    """The kernel has a step the numba loop does not reproduce."""


def _name(st: KStep) -> str:
    return st.name if isinstance(st.fn, np.ufunc) else ""


def _check(spec: KernelSpec, sig: Sequence[tuple[str, Any]]) -> None:
    for dt, _ in sig:
        if np.dtype(dt) != np.float64:
            raise Unsupported(f"input dtype {np.dtype(dt)}")
    names = [_name(st) for st in spec.steps]
    for st, name in zip(spec.steps, names):
        if name not in STEPS or np.dtype(st.dtype) != np.float64:
            raise Unsupported(f"step {name or st.fn!r} of dtype {st.dtype}")
        if st.fold and STEPS[name].count("{1}") != 1:
            raise Unsupported(f"folded step {name}")
        for a in st.args:
            if isinstance(a, KConst):
                v = np.asarray(a.value)
                if v.size != 1 or v.dtype.kind not in "fiub":
                    raise Unsupported(f"constant {a.value!r}")
    if not SLOW.intersection(names) and len(names) < MIN_STEPS:
        raise Unsupported("no step NumPy computes slowly, and fewer than 3 steps")
    for dt in spec.out_dtypes:
        if np.dtype(dt) != np.float64:
            raise Unsupported(f"output dtype {dt}")


def supports(spec: KernelSpec) -> bool:
    """Whether numba may compile ``spec`` (its steps; inputs are checked at compile
    time).  Needs no numba, so the linker asks it before making a slot.

    >>> from theon.link.pyfunc.kernel import KStep
    >>> supports(KernelSpec(2, [KStep(np.add, (0, 1), "float64", name="add"),
    ...                         KStep(np.tanh, (2,), "float64", name="tanh")], [3], ["float64"]))
    True
    >>> supports(KernelSpec(1, [KStep(np.exp, (0,), "float64", name="exp")], [1], ["float64"]))
    False
    """
    try:
        _check(spec, ())
    except Unsupported:
        return False
    return True


def min_size(spec: KernelSpec, small: int, block: int) -> int:
    """The fewest elements a call of ``spec`` needs to use its numba kernel: ``small``
    (``config.tier1_small_threshold``) with a slow step; otherwise past ``block``
    elements (``config.elemwise_block``), where tier 0 runs its blocked kernel: below
    that, NumPy on whole arrays is faster than a kernel call for arithmetic alone.

    >>> mul = KStep(np.multiply, (0, 0), "float64", name="multiply")
    >>> tanh = KStep(np.tanh, (1,), "float64", name="tanh")
    >>> min_size(KernelSpec(1, [mul, tanh], [2], ["float64"]), 1024, 16384)
    1024
    >>> min_size(KernelSpec(1, [mul, mul, mul], [1], ["float64"]), 1024, 16384)
    16385
    """
    if any(_name(st) in SLOW for st in spec.steps):
        return small
    return max(small, block + 1)


def _literal(value: Any) -> str:
    f = float(np.asarray(value).reshape(()))
    return repr(f) if math.isfinite(f) else f"float({str(f)!r})"


#: How a kernel reads an input: every element (``"f"``, the output's shape, C order),
#: one row repeated (``"r"``, a vector along the last axis), or one number (``"s"``).
KINDS = ("f", "r", "s")


def kernel_source(spec: KernelSpec, kinds: Sequence[str]) -> str:
    """The loop of ``spec`` as Python source numba compiles: ``kernel(R, C, x0, ...,
    o0, ...)`` writes the ``R * C`` elements of each flat output, reading each input
    as its kind says (:data:`KINDS`).

    >>> from theon.link.pyfunc.kernel import KStep
    >>> spec = KernelSpec(2, [KStep(np.add, (0, 1), "float64", name="add"),
    ...                       KStep(np.tanh, (2,), "float64", name="tanh")], [3], ["float64"])
    >>> print(kernel_source(spec, ["f", "r"]))
    def kernel(R, C, x0, x1, o0):
        for r in range(R):
            b = r * C
            for j in range(C):
                v0 = x0[b + j]
                v1 = x1[j]
                v2 = (v0 + v1)
                v3 = _vtanh(v2)
                o0[b + j] = v3
    <BLANKLINE>
    """
    n_in = spec.n_inputs
    xs = [f"x{k}" for k in range(n_in)]
    outs = [f"o{k}" for k in range(len(spec.outputs))]
    lines = [f"def kernel(R, C, {', '.join(xs + outs)}):", "    for r in range(R):",
             "        b = r * C", "        for j in range(C):"]
    index = {"f": "[b + j]", "r": "[j]", "s": ""}
    for k, kind in enumerate(kinds):
        lines.append(f"            v{k} = x{k}{index[kind]}")

    def ref(a: Any) -> str:
        return _literal(a.value) if isinstance(a, KConst) else f"v{a}"

    for j, st in enumerate(spec.steps):
        form = STEPS[_name(st)]
        args = [ref(a) for a in st.args]
        if st.fold and len(args) > 2:
            expr = form.format(args[0], args[1])
            for a in args[2:]:
                expr = form.format(expr, a)
        else:
            expr = form.format(*args)
        lines.append(f"            v{n_in + j} = {expr}")
    for k, r in enumerate(spec.outputs):
        lines.append(f"            o{k}[b + j] = {ref(r)}")
    return "\n".join(lines) + "\n"


def input_kinds(inputs: Sequence[Any], shape: tuple[int, ...]) -> tuple[str, ...] | None:
    """The kind (:data:`KINDS`) of each float64 input of a call with output ``shape``,
    or None when one fits none (a column, a strided array) or no input is whole.

    >>> a, v = np.zeros((2, 3)), np.zeros(3)
    >>> input_kinds([a, v, np.float64(1.0)], (2, 3)), input_kinds([v, v], (2, 3))
    (('f', 'r', 's'), None)
    """
    kinds: list[str] = []
    last = shape[-1] if shape else 1
    for a in inputs:
        if not isinstance(a, (np.ndarray, np.generic)) or a.dtype != np.float64:
            return None
        if a.size == 1:
            kinds.append("s")
        elif a.shape == shape and a.flags.c_contiguous:
            kinds.append("f")
        elif a.size == last and a.shape[-1:] == (last,) and a.flags.c_contiguous:
            kinds.append("r")
        else:
            return None
    return tuple(kinds) if "f" in kinds else None


class WholeKernel:
    """A compiled whole-array kernel: :meth:`run` gives the outputs of a shape from
    the inputs as the loop takes them (flat arrays and numbers, of the kinds it was
    compiled for: the caller, :class:`~theon.link.tier1.elemwise.Tier1Kernel`,
    checks them)."""

    whole = True
    autotune = True

    def __init__(self, fn: Callable[..., Any], kinds: tuple[str, ...], n_out: int) -> None:
        self.fn = fn
        self.kinds = kinds
        self.lead = kinds.index("f")  # an input with the output's shape
        self.plain = set(kinds) == {"f"}  # every input whole: one run of n elements
        self.n_out = n_out

    def run(self, args: Sequence[Any], shape: tuple[int, ...], n: int) -> list[np.ndarray]:
        C = n if "r" not in self.kinds else shape[-1] if shape else 1
        if self.n_out == 1:
            out = np.empty(shape)
            self.fn(n // C if C else 0, C, *args, out.reshape(-1))
            return [out]
        outs = [np.empty(shape) for _ in range(self.n_out)]
        self.fn(n // C if C else 0, C, *args, *[o.reshape(-1) for o in outs])
        return outs


class NumbaElemwiseCompiler:
    """Compiles :class:`KernelSpec` loops with numba; see the module docstring."""

    name = "numba"
    autotune = True

    def __init__(self) -> None:
        from theon.link.tier1.loops import make_compiler as loop_compiler
        from theon.link.tier1.nbmath import VERSION

        self.loops = loop_compiler()
        self.header = ["import math as _math",
                       f"from theon.link.tier1.nbmath import vtanh as _vtanh_py  # {VERSION}",
                       '_vtanh = numba.njit(inline="always", error_model="numpy")(_vtanh_py)']

    def compile_elemwise(self, spec: KernelSpec, sig: Sequence[tuple[str, str]],
                         size: int = 0) -> WholeKernel:
        """The loop kernel of ``spec`` for inputs of ``sig`` (``(dtype, kind)`` each;
        ``size`` is not needed)."""
        _check(spec, sig)
        kinds = tuple(k for _, k in sig)
        if not set(kinds) <= set(KINDS):
            raise Unsupported(f"input kinds {kinds}")
        sample = [0, 0, *[0.0 if k == "s" else np.zeros(0) for k in kinds],
                  *[np.zeros(0) for _ in spec.outputs]]
        fn = self.loops.compile_loop(self.header, kernel_source(spec, kinds), "kernel", sample,
                                     options="cache=True, nogil=True, error_model='numpy'")
        return WholeKernel(fn, kinds, len(spec.outputs))


def make_compiler() -> NumbaElemwiseCompiler:
    """The default compiler of small elementwise kernels (imports numba)."""
    return NumbaElemwiseCompiler()
