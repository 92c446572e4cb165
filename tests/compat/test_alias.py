"""theon.compat: old module paths through one table, and ``alias()`` for whole processes.

``alias`` changes the import system of its process, so those tests run in a child.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
import textwrap

import pytest

import theon
from theon.compat import ALIASES, Namespace, resolve


def run_child(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True, text=True, timeout=120,
    )


@pytest.mark.parametrize("path", sorted(ALIASES))
def test_every_table_entry_imports_under_theon(path: str) -> None:
    """Each old path resolves to modules that exist (a typo in the table fails here)."""
    mod = importlib.import_module(f"theon.{path}")
    target = ALIASES[path]
    if isinstance(target, str):
        assert mod is importlib.import_module(target)
    else:
        assert isinstance(target, Namespace)
        for name in target.modules:
            importlib.import_module(name)
        for old, new in target.renames.items():
            m, _, attr = new.partition(":")
            assert getattr(mod, old) is getattr(importlib.import_module(m), attr)


def test_unlisted_paths_are_theon_paths() -> None:
    assert resolve("tensor.basic") == "theon.tensor.basic"
    assert resolve("") == "theon"
    assert resolve("gof.op") == "theon.graph.op"


def test_namespace_module_names_come_from_its_modules() -> None:
    import theon.compat.theano_graph as theano_graph
    import theon.gof as gof
    import theon.graph.basic
    import theon.graph.replace
    import theon.graph.traversal

    assert gof.Apply is theon.graph.basic.Apply
    assert gof.graph.inputs is theano_graph.inputs  # Theano's names and orders
    assert gof.graph.ancestors is theano_graph.ancestors
    assert gof.graph.variables is theano_graph.variables
    assert gof.graph.vars_between is theano_graph.vars_between
    assert gof.graph.orphans is theano_graph.orphans
    assert gof.graph.ops is theon.graph.traversal.applys_between
    assert gof.graph.clone is theon.graph.replace.clone
    assert "Apply" in dir(gof) and "inputs" in gof.graph.__all__
    with pytest.raises(AttributeError, match=r"'no_such_name'.*docs/migration.md"):
        gof.no_such_name  # noqa: B018


def test_a_real_module_wins_over_the_table() -> None:
    import theon.tensor

    assert importlib.import_module("theon.tensor") is theon.tensor
    assert importlib.util.find_spec("theon.no_such_module") is None


def test_alias_makes_the_old_package_theon() -> None:
    r = run_child(
        """
        import theon.compat, theon.tensor, theon.graph.traversal
        theon.compat.alias("pytensor", "theano")
        import pytensor, pytensor.tensor as pt, theano.tensor as T
        from pytensor.graph.traversal import graph_inputs
        from theano.gof.graph import inputs
        import theano.sandbox.rng_mrg
        assert pytensor is theon and pt is theon.tensor and T is theon.tensor
        import theon.compat.theano_graph
        assert graph_inputs is theon.graph.traversal.graph_inputs  # PyTensor's order
        assert inputs is theon.compat.theano_graph.inputs  # Theano's order
        assert pt.__spec__.name == "theon.tensor"  # theon's own spec is kept
        assert theon.compat.aliased() == ("pytensor", "theano")
        x = pt.dvector("x")
        print(pytensor.function([x], (x ** 2).sum())([1.0, 2.0]))
        """
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "5.0"


def test_alias_missing_module_names_it_and_points_to_the_docs() -> None:
    r = run_child(
        """
        import theon.compat
        theon.compat.alias("pytensor")
        import pytensor.link.c.cmodule
        """
    )
    assert r.returncode != 0
    assert "ModuleNotFoundError: No module named 'pytensor.link.c.cmodule'" in r.stderr
    assert "docs/migration.md" in r.stderr


def test_alias_after_the_real_package_was_imported_is_an_error() -> None:
    r = run_child(
        """
        import sys, types
        sys.modules["aesara"] = types.ModuleType("aesara")  # stands for the real one
        import theon.compat
        theon.compat.alias("aesara")
        """
    )
    assert r.returncode != 0
    assert "RuntimeError: alias('aesara') must run before anything imports aesara" in r.stderr


def test_alias_refuses_an_unknown_package() -> None:
    with pytest.raises(ValueError, match="theon aliases only theano, aesara, pytensor"):
        theon.compat.alias("tensorflow")


def test_importing_a_submodule_by_its_old_path_keeps_the_packages_function():
    """``pytensor.tensor.shape`` is a module and ``pt.shape`` a function (PyMC calls
    ``pt.shape(p)`` after importing ``pytensor.tensor.shape``): importing the old path of
    an already loaded theon module must not bind the module over the function."""
    res = run_child(
        "import theon.compat\n"
        "theon.compat.alias('pytensor')\n"
        "import pytensor.tensor as pt\n"
        "import pytensor.tensor.shape, pytensor.tensor.sort, pytensor.tensor.basic\n"
        "from pytensor.tensor.shape import specify_shape\n"
        "import sys, types, theon.tensor\n"
        "assert callable(pt.shape) and not isinstance(pt.shape, types.ModuleType)\n"
        "assert callable(pt.sort) and not isinstance(pt.sort, types.ModuleType)\n"
        "assert sys.modules['pytensor.tensor.shape'] is sys.modules['theon.tensor.shape']\n"
        "assert pt is theon.tensor and specify_shape is theon.tensor.specify_shape\n"
        "print('ok')\n"
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "ok"


def test_a_submodule_loaded_by_its_package_is_one_module_under_both_paths():
    """``import pytensor.scan.op`` when ``theon.scan`` loads ``theon.scan.op`` itself
    must give that module, not a second copy of it: a second copy has its own ``Scan``
    class, and PyMC's ``match op: case Scan()`` then misses theon's scans."""
    res = run_child(
        "import theon.compat\n"
        "theon.compat.alias('pytensor')\n"
        "import sys\n"
        "import pytensor.scan.op\n"
        "from pytensor.scan.op import Scan\n"
        "import theon.scan.op\n"
        "assert sys.modules['pytensor.scan.op'] is sys.modules['theon.scan.op']\n"
        "assert Scan is theon.scan.op.Scan\n"
        "import pytensor.tensor.random.op, pytensor.graph.fg, pytensor.compile.builders\n"
        "dups = [k for k, m in list(sys.modules.items()) if k.startswith('pytensor')\n"
        "        and m is not sys.modules.get(getattr(m, '__name__', k))]\n"
        "assert not dups, dups\n"
        "print('ok')\n"
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "ok"
