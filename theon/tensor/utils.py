"""Helpers for gufunc signatures (PyTensor's ``pytensor.tensor.utils`` names).

A signature such as ``"(m,n),(n)->(m)"`` names the core dimensions of each input and
output; Ops applied over leading batch dimensions (random variables, ``Blockwise``)
describe themselves with one.

>>> _parse_gufunc_signature("(m,n),(n)->(m)")
([('m', 'n'), ('n',)], [('m',)])
>>> safe_signature([0, 1], [1])
'(),(i10)->(o00)'
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["_parse_gufunc_signature", "safe_signature"]

_DIM = r"\w+"
_CORE = rf"\((?:{_DIM}(?:,{_DIM})*)?\)"
# the inputs may be none (a draw with no parameters: "->()"), the outputs not
_SIGNATURE = re.compile(rf"^(?:{_CORE}(?:,{_CORE})*)?->{_CORE}(?:,{_CORE})*$")
_CORE_DIMS = re.compile(r"\(([^()]*)\)")


def _parse_gufunc_signature(signature: str) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
    """The core dimension names of each input and of each output of ``signature``.

    Spaces are ignored.  Raises ``ValueError`` for text that is not a signature.

    >>> _parse_gufunc_signature("(), (n) -> (n)")
    ([(), ('n',)], [('n',)])
    >>> _parse_gufunc_signature("->()")
    ([], [()])
    """
    sig = signature.replace(" ", "")
    if not _SIGNATURE.match(sig):
        raise ValueError(
            f"not a valid gufunc signature: {signature!r} (e.g. '(m,n),(n)->(m)'; "
            "each argument's core dimensions in parentheses, at least one output)"
        )
    ins, outs = sig.split("->")

    def cores(text: str) -> list[tuple[str, ...]]:
        return [tuple(d for d in c.split(",") if d) for c in _CORE_DIMS.findall(text)]

    return cores(ins), cores(outs)


def safe_signature(core_inputs_ndim: Sequence[int], core_outputs_ndim: Sequence[int]) -> str:
    """A signature for the given numbers of core dimensions in which no two dimensions
    share a name (so nothing is assumed equal): input ``k``'s ``j``-th dimension is
    ``ikj``, output ``k``'s is ``okj``.

    >>> safe_signature([2], [0, 1])
    '(i00,i01)->(),(o10)'
    """

    def arg(prefix: str, k: int, nd: int) -> str:
        return "(" + ",".join(f"{prefix}{k}{j}" for j in range(nd)) + ")"

    ins = ",".join(arg("i", k, int(nd)) for k, nd in enumerate(core_inputs_ndim))
    outs = ",".join(arg("o", k, int(nd)) for k, nd in enumerate(core_outputs_ndim))
    return f"{ins}->{outs}"
