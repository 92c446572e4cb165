"""A call with updates is atomic: one that raises changes no shared variable or state."""

import numpy as np
import pytest

import theon
import theon.tensor as tt

MODES = ["FAST_RUN", "FAST_COMPILE", "REFERENCE"]


@pytest.mark.parametrize("mode", MODES)
def test_a_call_that_raises_changes_no_shared_variable(mode):
    s = theon.shared(np.zeros(5), name="s")
    t = theon.shared(np.zeros(5), name="t")
    i = tt.lscalar("i")
    x = tt.dvector("x")
    new_s = s + 1
    # the error comes after the new value of s is computed
    f = theon.function([i, x], new_s[i], updates=[(s, new_s), (t, t + x)], mode=mode)
    with pytest.raises(IndexError):
        f(10, np.ones(5))
    with pytest.raises(ValueError):
        f(0, np.ones(3))  # t + x cannot broadcast
    assert s.get_value().tolist() == [0.0] * 5 and t.get_value().tolist() == [0.0] * 5
    assert float(f(4, np.ones(5))) == 1.0
    assert s.get_value().tolist() == [1.0] * 5 and t.get_value().tolist() == [1.0] * 5


@pytest.mark.parametrize("mode", MODES)
def test_a_failing_call_keeps_state_inputs(mode):
    from theon.compile.io import In

    acc, i = tt.dvector("acc"), tt.lscalar("i")
    new = acc + 1
    f = theon.function([i, In(acc, value=np.zeros(3), update=new, mutable=True)], new[i],
                       mode=mode)
    with pytest.raises(IndexError):
        f(7)
    assert f["acc"].tolist() == [0.0] * 3
    assert float(f(0)) == 1.0 and f["acc"].tolist() == [1.0] * 3


@pytest.mark.parametrize("n", [3, 40])
def test_many_updated_shared_variables(n):
    """A training step updating dozens of shared variables (Lasagne's recurrent example
    with adagrad: parameters and accumulators) compiles, updates each one, releases every
    lock even when a call raises, and stays atomic."""
    xs = [theon.shared(np.full(2, float(k)), name=f"p{k}") for k in range(n)]
    i = tt.lscalar("i")
    f = theon.function([i], tt.stack([x[i] for x in xs]).sum(),
                       updates=[(x, x + 1) for x in xs])
    assert float(f(1)) == sum(range(n))
    with pytest.raises(IndexError):
        f(5)
    assert [float(x.get_value()[0]) for x in xs] == [k + 1.0 for k in range(n)]
    g = theon.function([], [], updates=[(xs[0], xs[0] * 2)])  # the locks were released
    g()
    assert xs[0].get_value().tolist() == [2.0, 2.0]
