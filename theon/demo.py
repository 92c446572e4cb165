"""A short tour: build a graph, print it, differentiate it, compile it and run it.

Run with ``python -m theon.demo``.
"""

from __future__ import annotations

import numpy as np


def main() -> None:
    """Build, print, compile and run a small graph.

    >>> main()  # doctest: +ELLIPSIS
    The graph of e = exp(-x**2) * sin(y) + log1p(x**2):
    ...
    f(x, y) = [0.69314718 0.59652054 0.84147098 0.99999343 1.02765901]
    NumPy    = [0.69314718 0.59652054 0.84147098 0.99999343 1.02765901]
    <BLANKLINE>
    d sum(e) / dx = [-1.         -0.42662302  0.          0.02315012  0.33097634]
    """
    import theon
    import theon.tensor as tt

    x = tt.dvector("x")
    y = tt.dvector("y")
    e = tt.exp(-(x**2)) * tt.sin(y) + tt.log1p(x**2)
    print("The graph of e = exp(-x**2) * sin(y) + log1p(x**2):")
    theon.dprint(e)

    f = theon.function([x, y], e)
    xv = np.linspace(-1.0, 1.0, 5)
    yv = np.linspace(0.0, 2.0, 5)
    print("\nAfter rewriting (what the compiled function runs):")
    theon.dprint(f)
    print("\nf(x, y) =", f(xv, yv))
    ref = np.exp(-(xv**2)) * np.sin(yv) + np.log1p(xv**2)
    print("NumPy    =", ref)

    gx = theon.grad(e.sum(), x)
    g = theon.function([x, y], gx)
    print("\nd sum(e) / dx =", g(xv, yv))


if __name__ == "__main__":
    main()
