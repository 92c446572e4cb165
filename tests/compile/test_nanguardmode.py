"""NanGuardMode: the first node producing NaN / inf / a huge value is named with its
inputs' statistics and the user's line; each flag works on its own; healthy models
(and scans) run silently with the default mode's values."""

import sys
import warnings

import numpy as np
import pytest

import theon
import theon.tensor as tt
from theon.compile.nanguardmode import NanGuardError, NanGuardMode, bad_values, value_stats


def here():
    f = sys._getframe(1)
    return f"{f.f_code.co_filename}:{f.f_lineno}"


def _regression(mode):
    """A heteroscedastic regression: the loss reads log(scale), scale = 1 + X v."""
    X, y = tt.dmatrix("X"), tt.dvector("y")
    w = theon.shared(np.array([0.5, -0.25]), name="w")
    v = theon.shared(np.array([0.1, 0.2]), name="v")
    resid = X.dot(w) - y
    scale = 1.0 + X.dot(v)
    logscale, line = tt.log(scale), here()
    loss = (logscale + resid ** 2 / scale).mean()
    params = [w, v]
    grads = theon.grad(loss, params)
    f = theon.function([X, y], loss, mode=mode,
                       updates=[(p, p - 0.1 * g) for p, g in zip(params, grads)])
    return f, line, params


def test_first_bad_node_is_the_log_on_the_users_line():
    f, line, _ = _regression(NanGuardMode(nan_is_error=True, inf_is_error=True,
                                          big_is_error=True))
    Xd = np.array([[1.0, 2.0], [-30.0, 1.0], [0.5, 0.5]])  # row 1: scale = -1.8
    with pytest.raises(NanGuardError) as info:
        f(Xd, np.zeros(3))
    msg = str(info.value)
    first = msg.splitlines()[0]
    assert first.startswith("NanGuardMode: NaN (1 of 3 values) in output 0 of node "
                            "Elemwise{log")
    # the first place named is the log's line, before any other node
    assert msg.index(line) < msg.index("in the compiled (rewritten) graph")
    assert "Elemwise{log" in msg.split("built at")[0]
    # the log's input: the scale, with its statistics
    scale = 1.0 + Xd @ np.array([0.1, 0.2])
    stats = msg.split("inputs:")[1].splitlines()[1]
    assert (f"float64 shape (3,): min {scale.min():.6g}, max {scale.max():.6g}, mean "
            f"{scale.mean():.6g}, 0 NaN, 0 inf") in stats
    assert isinstance(info.value, AssertionError)


def test_healthy_model_runs_silently_with_default_values():
    rng = np.random.default_rng(1)
    Xd, yd = rng.normal(size=(6, 2)) * 0.5, rng.normal(size=6)
    f, _, params = _regression(NanGuardMode(True, True, True))
    g, _, ref_params = _regression(None)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(3):
            np.testing.assert_allclose(f(Xd, yd), g(Xd, yd), rtol=1e-12)
    for p, q in zip(params, ref_params):
        np.testing.assert_allclose(p.get_value(), q.get_value(), rtol=1e-12)


@pytest.mark.parametrize("flags, bad", [
    ((True, False, False), {"nan"}),
    ((False, True, False), {"inf"}),
    ((False, False, True), {"big"}),
    ((True, True, True), {"nan", "inf", "big"}),
])
def test_each_flag_on_its_own(flags, bad):
    x = tt.dvector("x")
    f = theon.function([x], tt.exp(x) * 2, mode=NanGuardMode(*flags))
    cases = {  # (exp(x) * 2): NaN from NaN, inf from 1000, big (2.7e13) from 30
        "nan": np.array([0.0, np.nan]),
        "inf": np.array([0.0, 1000.0]),
        "big": np.array([0.0, 30.0]),
    }
    for kind, xv in cases.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if kind in bad:
                with pytest.raises(NanGuardError):
                    f(xv)
            else:
                f(xv)


def test_bad_input_is_named():
    x = tt.dvector("x")
    f = theon.function([x], x + 1, mode=NanGuardMode(True, True, True))
    with pytest.raises(NanGuardError) as info:
        f(np.array([1.0, np.inf]))
    msg = str(info.value)
    assert "inf (1 of 2 values) in the input 'x'" in msg
    assert "float64 shape (2,): min 1, max 1, mean 1, 0 NaN, 1 inf" in msg


def test_big_intermediate_is_named():
    x = tt.dvector("x")
    y, line = x * 1e6, here()
    f = theon.function([x], tt.sqrt(abs(y)), mode=NanGuardMode(True, True, True))
    with pytest.raises(NanGuardError) as info:
        f(np.array([1e5]))
    msg = str(info.value)
    assert msg.startswith("NanGuardMode: huge values, |x| > 1e+10 (1 of 1 values)")
    assert "Elemwise{mul" in msg.splitlines()[0] and line in msg


def test_integers_are_not_checked():
    x = tt.lvector("x")
    f = theon.function([x], x * 1000, mode=NanGuardMode(True, True, True))
    assert f(np.array([10 ** 12]))[0] == 10 ** 15


def test_nan_inside_a_scan_body():
    x = tt.dvector("x")
    line = here()
    ys, _ = theon.scan(lambda xt, acc: acc + tt.log(xt), sequences=[x],
                       outputs_info=[tt.constant(0.0)])
    f = theon.function([x], ys[-1], mode=NanGuardMode(True, True, True))
    assert np.isclose(f(np.array([1.0, np.e])), 1.0)
    with pytest.raises(NanGuardError) as info:
        f(np.array([1.0, -1.0, 2.0]))
    msg = str(info.value)
    assert "Elemwise{log" in msg.splitlines()[0]
    # the log's line, in the step function
    assert f"{line.rsplit(':', 1)[0]}:{int(line.rsplit(':', 1)[1]) + 1} in <lambda>" in msg
    notes = "\n".join(getattr(info.value, "__notes__", []))
    assert "in step 1 of Scan" in notes


def test_helpers_and_registration():
    assert bad_values(np.array([1.0, 2e10])) == "huge values, |x| > 1e+10 (1 of 2 values)"
    assert bad_values(np.array([1.0, np.inf]), inf=False) is None
    assert bad_values(np.array([5], dtype="int64")) is None
    assert value_stats(np.array([np.nan])) == "float64 shape (1,): no finite value, 1 NaN, 0 inf"
    import theon.compile as tc

    assert tc.NanGuardMode is NanGuardMode
    assert isinstance(tc.get_mode("NanGuardMode"), NanGuardMode)
    m = NanGuardMode(inf_is_error=False).excluding("fusion")
    assert isinstance(m, NanGuardMode) and not m.inf_is_error
