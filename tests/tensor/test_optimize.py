"""theon.tensor.optimize (issue 35): minimize, root, root_scalar, minimize_scalar against
scipy.optimize, and the gradients of their solutions (implicit function theorem) with
verify_grad and against closed forms."""

import numpy as np
import pytest
import scipy.optimize as so

import theon
import theon.tensor as tt
from theon.gradient import verify_grad
from theon.tensor import optimize

rng = np.random.default_rng(361)


def _at_start(fn, start, var):
    """``fn``'s solution with the unknown ``var`` fixed at ``start`` (verify_grad then
    differentiates with respect to the parameters only)."""
    def inner(*params):
        sol = fn(*params)
        return theon.clone_replace(sol, {var: tt.as_tensor(start)})
    return inner


@pytest.mark.parametrize("method", ["BFGS", "L-BFGS-B", "Newton-CG", "trust-exact"])
def test_minimize_matches_scipy_and_grads(method):
    x, c, s = tt.dvector("x"), tt.dvector("c"), tt.dscalar("s")
    hess = method in ("Newton-CG", "trust-exact")
    obj = s * ((x - c) ** 2).sum() + (x ** 4).sum()
    x_star, ok = optimize.minimize(obj, x, method=method, hess=hess,
                                   optimizer_kwargs={"tol": 1e-12})
    cv, sv = np.array([1.0, -2.0, 0.5]), 2.0
    got, success = theon.function([x, c, s], [x_star, ok])(np.zeros(3), cv, sv)
    ref = so.minimize(lambda v: sv * ((v - cv) ** 2).sum() + (v ** 4).sum(), np.zeros(3),
                      jac=lambda v: 2 * sv * (v - cv) + 4 * v ** 3,
                      hess=(lambda v: np.diag(2 * sv + 12 * v ** 2)) if hess else None,
                      method=method, tol=1e-12)
    assert bool(success) == ref.success and success.dtype == bool
    np.testing.assert_allclose(got, ref.x, atol=1e-9)
    # the solver's tolerance, not the gradient, limits finite differences: a wider step
    verify_grad(_at_start(lambda cc, ss: optimize.minimize(
        ss * ((x - cc) ** 2).sum() + (x ** 4).sum(), x, method=method, hess=hess,
        optimizer_kwargs={"tol": 1e-12})[0], np.zeros(3), x), [cv, np.array(sv)], rng=rng,
        eps=1e-4)


def test_minimize_closed_form_gradient():
    # argmin_x |A x - b|^2 = (A^T A)^-1 A^T b: d x*/d b = (A^T A)^-1 A^T
    x, b = tt.dvector("x"), tt.dvector("b")
    a = rng.normal(size=(5, 3))
    x_star, _ = optimize.minimize(((tt.dot(a, x) - b) ** 2).sum(), x,
                                  optimizer_kwargs={"tol": 1e-13})
    jac = theon.gradient.jacobian(x_star, b)
    got = theon.function([x, b], jac)(np.zeros(3), rng.normal(size=5))
    np.testing.assert_allclose(got, np.linalg.solve(a.T @ a, a.T), atol=1e-6)


def test_minimize_several_variables():
    x, y, c = tt.dvector("x"), tt.dmatrix("y"), tt.dscalar("c")
    obj = ((x - c) ** 2).sum() + ((y + 2 * c) ** 2).sum()
    (xs, ys), ok = optimize.minimize(obj, [x, y])
    f = theon.function([x, y, c], [xs, ys, theon.grad(xs.sum() + ys.sum(), c)])
    gx, gy, gc = f(np.zeros(2), np.zeros((2, 2)), 1.5)
    np.testing.assert_allclose(gx, [1.5, 1.5], atol=1e-6)
    np.testing.assert_allclose(gy, np.full((2, 2), -3.0), atol=1e-6)
    np.testing.assert_allclose(gc, 2 - 8, atol=1e-6)


@pytest.mark.parametrize(("method", "jac"), [("hybr", True), ("lm", True), ("hybr", False)])
def test_root_and_grads(method, jac):
    x, a = tt.dvector("x"), tt.dvector("a")
    eqs = tt.stack([x[0] ** 3 + x[1] - a[0], x[1] - x[0] ** 2 * a[1]])
    sol, ok = optimize.root(eqs, x, method=method, jac=jac, optimizer_kwargs={"tol": 1e-13})
    av = np.array([3.0, 0.5])
    got, success = theon.function([x, a], [sol, ok])(np.ones(2), av)
    ref = so.root(lambda v: [v[0] ** 3 + v[1] - av[0], v[1] - v[0] ** 2 * av[1]], np.ones(2),
                  tol=1e-13).x
    assert success
    np.testing.assert_allclose(got, ref, atol=1e-8)
    verify_grad(_at_start(lambda aa: optimize.root(
        tt.stack([x[0] ** 3 + x[1] - aa[0], x[1] - x[0] ** 2 * aa[1]]), x, method=method,
        jac=jac, optimizer_kwargs={"tol": 1e-13})[0], np.ones(2), x), [av], rng=rng)


@pytest.mark.parametrize(("method", "kw"), [
    ("secant", {}), ("newton", {"jac": True}), ("halley", {"jac": True, "hess": True}),
    ("brentq", {"optimizer_kwargs": {"bracket": (0.0, 5.0)}})])
def test_root_scalar(method, kw):
    x, a = tt.dscalar("x"), tt.dscalar("a")
    r, ok = optimize.root_scalar(x ** 3 - a, x, method=method, **kw)
    f = theon.function([x, a], [r, ok, theon.grad(r, a)])
    root, conv, g = f(1.0, 8.0)
    assert conv
    np.testing.assert_allclose(root, 2.0, rtol=1e-9)
    np.testing.assert_allclose(g, 1 / (3 * 4.0), rtol=1e-6)  # d a^(1/3) / da


@pytest.mark.parametrize(("method", "kw"), [("brent", {}), ("golden", {}),
                                            ("bounded", {"bounds": (0.0, 10.0)})])
def test_minimize_scalar(method, kw):
    x, a = tt.dscalar("x"), tt.dscalar("a")
    m, ok = optimize.minimize_scalar((x - a) ** 2 + tt.exp(x - a), x, method=method,
                                     optimizer_kwargs={**kw, "tol": 1e-10} if method != "bounded"
                                     else {**kw, "options": {"xatol": 1e-10}})
    f = theon.function([x, a], [m, ok, theon.grad(m, a)])
    got, success, g = f(0.0, 3.0)
    ref = so.minimize_scalar(lambda v: (v - 3.0) ** 2 + np.exp(v - 3.0)).x
    assert success
    np.testing.assert_allclose(got, ref, atol=1e-6)
    np.testing.assert_allclose(g, 1.0, atol=1e-5)  # the minimizer moves with a


def test_solvers_refuse_bad_unknowns():
    x = tt.dvector("x")
    with pytest.raises(TypeError, match="floats"):
        optimize.minimize((tt.ivector("i") ** 2).sum(), tt.ivector("i"))
    with pytest.raises(ValueError, match="scalar"):
        optimize.minimize(x ** 2, x)
    with pytest.raises(ValueError, match="scalar"):
        optimize.root_scalar(x ** 2, x)


def test_solver_inner_graph_runs_in_the_outer_mode():
    x, c = tt.dvector("x"), tt.dvector("c")
    xs, _ = optimize.minimize(((x - c) ** 2).sum(), x)
    for mode in ("FAST_RUN", "FAST_COMPILE", "REFERENCE"):
        f = theon.function([x, c], xs, mode=mode)
        np.testing.assert_allclose(f(np.zeros(2), np.array([1.0, 2.0])), [1.0, 2.0],
                                   atol=1e-6)


def test_solver_functions_pickle_and_infer_shape():
    import pickle

    x, c = tt.dmatrix("x"), tt.dmatrix("c")
    xs, ok = optimize.minimize(((x - c) ** 2).sum(), x)
    f = theon.function([x, c], [xs, theon.grad(xs.sum(), c)])
    g = pickle.loads(pickle.dumps(f))
    vals = (np.zeros((2, 3)), rng.normal(size=(2, 3)))
    for a, b in zip(f(*vals), g(*vals)):
        np.testing.assert_allclose(a, b)
    from tests.tensor.core_checks import check_infer_shape
    check_infer_shape(xs, [x, c], list(vals))
