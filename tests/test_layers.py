"""The layer contract: no module of theon imports a layer above its own.

Every ``import`` is read with :mod:`ast`, the ones inside functions included
(a function-level import is a dependency all the same, only a later one), and
so are ``importlib.import_module("theon....")`` calls with a literal name.
Imports under ``if TYPE_CHECKING:`` are exempt: they never run.

A lower layer that needs something from a higher one gets it through a
registration hook instead (``register_rewrite_module``,
``register_linker_backend``, ``register_scalar_conversion``,
``shared_constructor``, ``register_track_key``): the higher layer registers
itself when it is imported.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import theon

ROOT = Path(theon.__file__).resolve().parent.parent

#: The layers, lowest first: a module may import its own layer and those below it.
#: A module belongs to the layer of the longest prefix of its name listed here.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    # settings, the helper with which higher layers register modules for later import,
    # and the progress display of long work, which the phases of every layer report to
    ("base", ("theon.config", "theon.plugins", "theon.progress")),
    # Variables, Apply nodes, Ops, Types, FunctionGraph: what every other layer is built of
    ("graph", ("theon.graph",)),
    # text for any graph; an Op's own text comes from the Op, so graph is all it needs
    ("printing", ("theon.printing",)),
    # the interactive HTML view of a graph (theon.d3viz): laid out in Python, drawn by an
    # inline script; it finds inner graphs through printing's protocol, shared variables
    # by duck typing, so graph and printing are all it needs
    ("html view", ("theon.d3viz",)),
    # rewriters and the rewrite database; the tensor rewrites register themselves;
    # theon.graph.rewriting re-exports them under PyTensor's module paths
    ("rewriting", ("theon.rewriting", "theon.graph.rewriting")),
    # the Linker protocol (theon.link.basic), its registry and the linkers themselves;
    # the emitters and JAX rules of the Ops are the backends layer (theon.backends)
    ("link", ("theon.link",)),
    # function(), Mode, shared variables: uses rewriting and link
    ("compile", ("theon.compile",)),
    # the scalar Ops (the elements that Elemwise lifts)
    ("scalar", ("theon.scalar",)),
    # TensorType and the tensor Ops; registers its shared constructor, rewrites, emitters
    ("tensor", ("theon.tensor",)),
    # the tensor rewrites, loaded by the first query of the rewrite database
    ("tensor.rewriting", ("theon.tensor.rewriting",)),
    # grad, jacobian, hessian, verify_grad: they build tensor graphs
    # (as_tensor_variable, arange, stack); the batching rules are in the graph
    # (theon.graph.vectorize) and tensor (theon.tensor.vectorize_rules) layers;
    # no Op needs gradient (Op.grad uses graph.null_type)
    ("gradient", ("theon.gradient",)),
    # the sparse type (scipy.sparse CSR/CSC values) and its Ops: built on graph and tensor;
    # above gradient because verify_grad_sparse is theon.verify_grad on sparse points.
    # Loaded only by ``import theon.sparse`` (it imports scipy.sparse)
    ("sparse", ("theon.sparse",)),
    # control flow: Ops holding inner graphs (ifelse, scan, loop, OpFromGraph, the
    # solvers of theon.tensor.optimize, which sits under theon.tensor as PyTensor's
    # does); they compile their inner graphs and differentiate through them
    (
        "control flow",
        ("theon.ifelse", "theon.scan", "theon.opfromgraph", "theon.tensor.optimize"),
    ),
    # how each Op runs on a backend: the py linker's emitters and the JAX rules
    # (theon.backends.py, theon.backends.jax); each imports the Ops it translates, and
    # no Op imports it: an Op family registers its rule modules by name with
    # register_linker_backend, and the linker imports them before its first link
    ("backends", ("theon.backends",)),
    # the package itself (theon.function, theon.shared, ...); theon.compat maps the old
    # module paths of Theano, Aesara and PyTensor (theon.gof, theon.sandbox.rng_mrg,
    # theon.scan_module, and alias("pytensor")) to theon's modules through one table
    ("top", ("theon", "theon.compat", "theon.demo")),
)

#: (importer, imported) pairs allowed to go upward, each with its reason.
EXCEPTIONS: dict[tuple[str, str], str] = {}


def layer_rank(module: str) -> int:
    """The index in LAYERS of ``module``'s layer (its longest listed prefix)."""
    best, rank = -1, -1
    for i, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            if (module == p or module.startswith(p + ".")) and len(p) > best:
                best, rank = len(p), i
    if rank < 0:
        raise KeyError(f"{module} is in no layer: add it to LAYERS in {__file__}")
    return rank


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_module(name: str, root: Path) -> bool:
    base = root.joinpath(*name.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def _type_checking_only(tree: ast.AST) -> set[int]:
    """ids of the import nodes under ``if TYPE_CHECKING:`` (never run)."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            test = node.test
            name = test.id if isinstance(test, ast.Name) else getattr(test, "attr", None)
            if name == "TYPE_CHECKING":
                skip.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    return skip


def imports_of(path: Path, root: Path) -> list[tuple[str, int]]:
    """The theon modules that the file at ``path`` imports: ``(module, line)`` pairs."""
    me = module_name(path, root)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    tree = ast.parse(path.read_text(), str(path))
    skip = _type_checking_only(tree)
    found: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            found += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                src = ".".join(base + ([node.module] if node.module else []))
            else:
                src = node.module or ""
            for a in node.names:  # ``from theon import tensor`` imports theon.tensor
                sub = f"{src}.{a.name}"
                found.append((sub if _is_module(sub, root) else src, node.lineno))
        elif (
            isinstance(node, ast.Call)
            and (getattr(node.func, "attr", None) or getattr(node.func, "id", None))
            in ("import_module", "__import__")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.append((node.args[0].value, node.lineno))
    return [(m, line) for m, line in found if m == "theon" or m.startswith("theon.")]


def upward_imports(root: Path) -> list[tuple[str, str, int]]:
    """``(importer, imported, line)`` for every import of a higher layer under ``root``."""
    out = []
    for path in sorted((root / "theon").rglob("*.py")):
        me = module_name(path, root)
        mine = layer_rank(me)
        for target, line in imports_of(path, root):
            if layer_rank(target) > mine:
                out.append((me, target, line))
    return out


def _describe(found: list[tuple[str, str, int]]) -> str:
    return "\n".join(
        f"  {a} (layer {LAYERS[layer_rank(a)][0]!r}, line {line}) imports {b} "
        f"(layer {LAYERS[layer_rank(b)][0]!r})"
        for a, b, line in found
    )


def test_no_module_imports_a_layer_above_its_own() -> None:
    found = [f for f in upward_imports(ROOT) if f[:2] not in EXCEPTIONS]
    assert not found, (
        "imports of a higher layer (register the higher module with a hook of the "
        "lower layer instead, or list the exception with its reason):\n" + _describe(found)
    )


def test_every_module_is_in_a_layer() -> None:
    for path in (ROOT / "theon").rglob("*.py"):
        layer_rank(module_name(path, ROOT))  # raises for a module in no layer


def test_every_exception_is_still_used() -> None:
    used = {f[:2] for f in upward_imports(ROOT)}
    assert set(EXCEPTIONS) <= used, f"stale exceptions: {set(EXCEPTIONS) - used}"


def test_the_check_catches_a_planted_violation(tmp_path: Path) -> None:
    """A copy of the layout with upward imports planted in graph: each one is reported."""
    pkg = tmp_path / "theon"
    for sub in ("graph", "tensor", "compile", "link/pyfunc"):
        (pkg / sub).mkdir(parents=True)
        (pkg / sub / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "tensor" / "basic.py").write_text("")
    (pkg / "link" / "pyfunc" / "tensor.py").write_text("")
    (pkg / "graph" / "planted.py").write_text(
        textwrap.dedent(
            """
            import importlib
            from typing import TYPE_CHECKING

            from theon.graph import op  # same layer: fine
            if TYPE_CHECKING:
                from theon.tensor.basic import Anything  # never runs: exempt

            def f():
                from theon.tensor import basic  # function-level: a dependency all the same

            def g():
                from ..compile import something  # relative: theon.compile

            def h():
                return importlib.import_module("theon.backends.py.tensor")

            import theon  # the top package
            """
        )
    )
    found = {(b, line) for a, b, line in upward_imports(tmp_path) if a == "theon.graph.planted"}
    assert found == {
        ("theon.tensor.basic", 10),
        ("theon.compile", 13),
        ("theon.backends.py.tensor", 16),
        ("theon", 18),
    }


def _modules_after(code: str) -> set[str]:
    """The theon modules in sys.modules after running ``code`` in a fresh interpreter."""
    script = code + "\nimport sys\nprint(*(m for m in sys.modules if m.startswith('theon')))"
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout  # (``-c`` puts the working directory, ROOT, first on sys.path)
    return set(out.split())


def _loaded_plugins(modules: set[str]) -> set[str]:
    return {
        m for m in modules
        if m.startswith(("theon.tensor.rewriting", "theon.link.pyfunc", "theon.backends"))
    }


def test_import_tensor_loads_no_rewrites_and_no_linker() -> None:
    assert _loaded_plugins(_modules_after("import theon.tensor")) == set()
    assert _loaded_plugins(_modules_after("import theon")) == set()


def test_first_compile_loads_them() -> None:
    code = "import theon, theon.tensor as tt\nx = tt.dvector('x')\ntheon.function([x], x + 1)"
    loaded = _loaded_plugins(_modules_after(code))
    assert {"theon.tensor.rewriting", "theon.backends.py.tensor"} <= loaded


def test_grad_stabilization_loads_the_rewrites() -> None:
    """theon.grad rewrites the cost with the stabilize phase: it must see the tensor rewrites."""
    code = textwrap.dedent(
        """
        import theon, theon.tensor as tt
        x = tt.dscalar("x")
        g = theon.grad(tt.log(1 + tt.exp(x)), x)
        assert "sigmoid" in theon.pprint(g), theon.pprint(g)
        """
    )
    assert "theon.tensor.rewriting" in _modules_after(code)
