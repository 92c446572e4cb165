"""theon.tensor.utils: gufunc signatures read as NumPy reads them."""

from __future__ import annotations

import pytest
from numpy.lib._function_base_impl import _parse_gufunc_signature as numpy_parse

from theon.tensor.utils import _parse_gufunc_signature, safe_signature

SIGNATURES = ["(m,n),(n)->(m)", "()->()", "(),(),()->()", "(a,b,c)->(c),(a,b)",
              "(n),(n)->()", "(i00,i01)->(),(o10)"]


@pytest.mark.parametrize("sig", SIGNATURES)
def test_parse_matches_numpy(sig: str) -> None:
    assert _parse_gufunc_signature(sig) == numpy_parse(sig)


def test_parse_ignores_spaces_and_takes_no_inputs() -> None:
    assert _parse_gufunc_signature("( m , n ) -> ( m )") == ([("m", "n")], [("m",)])
    assert _parse_gufunc_signature("->()") == ([], [()])  # a draw without parameters


@pytest.mark.parametrize("bad", ["(m)(n)->()", "x", "(a)->", "(a->()", "(a),->()"])
def test_parse_refuses_non_signatures(bad: str) -> None:
    with pytest.raises(ValueError, match="not a valid gufunc signature"):
        _parse_gufunc_signature(bad)


def test_safe_signature_names_every_dimension_once() -> None:
    sig = safe_signature([0, 2, 1], [1, 0])
    assert sig == "(),(i10,i11),(i20)->(o00),()"
    ins, outs = _parse_gufunc_signature(sig)
    assert [len(c) for c in ins] == [0, 2, 1] and [len(c) for c in outs] == [1, 0]
    names = [d for core in ins + outs for d in core]
    assert len(names) == len(set(names))
