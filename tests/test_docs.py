"""The documentation runs as written.

Every ```` ```python ```` block of ``README.md`` and ``docs/*.md`` (a page added later
is picked up by the glob) runs, each page's blocks in order in one namespace, in a
fresh process whose working directory is a temporary folder.  A block of ``>>>``
examples is checked by :mod:`doctest` (``ELLIPSIS`` on), any other block is executed.
A block whose first line is ``# template: not run`` is a deliberate template and is
not run.  A block that needs an optional component (see :data:`EXTRAS`) is skipped
with the reason when that component is absent, and the page's other blocks still run.

No page of the README, ``docs/`` or ``bench/results`` names a path of the machine it
was written on.

``python tests/test_docs.py PAGE [SKIP...]`` runs one page's blocks (but the blocks
numbered SKIP) and prints how many ran; the tests call it in a subprocess.
"""

from __future__ import annotations

import argparse
import ast
import doctest
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = "# template: not run"
FENCE = re.compile(r"^(?P<indent>[ \t]*)```python[ \t]*\n(?P<body>.*?)^(?P=indent)```[ \t]*$",
                   re.M | re.S)


def pages() -> list[str]:
    """The documentation pages, relative to the repository."""
    return ["README.md", *sorted(p.relative_to(ROOT).as_posix() for p in ROOT.glob("docs/*.md"))]


@dataclass(frozen=True)
class Block:
    """One ```` ```python ```` block: its first line in the page (1-based) and its code."""

    line: int
    code: str

    @property
    def is_doctest(self) -> bool:
        return any(s.lstrip().startswith(">>>") for s in self.code.splitlines())

    @property
    def is_template(self) -> bool:
        return self.code.lstrip().startswith(TEMPLATE)


def blocks(text: str) -> list[Block]:
    """The page's python blocks, unindented (a block may sit in a list item)."""
    found = []
    for m in FENCE.finditer(text):
        line = text.count("\n", 0, m.start("body")) + 1
        found.append(Block(line, textwrap.dedent(m.group("body"))))
    return found


@dataclass(frozen=True)
class Extra:
    """An optional component some blocks need: how to spot them, and whether it is here."""

    name: str
    used_by: re.Pattern[str]
    available: Callable[[], bool]
    install: str


def _have_module(name: str) -> bool:
    return importlib.util.find_spec(name) is not None


# (a block matching ``used_by`` needs the component)
EXTRAS = (
    Extra("jax", re.compile(r"\bimport jax\b|\bfrom jax\b|mode=[\"']JAX[\"']|\bsharding="),
          lambda: _have_module("jax"), "pip install 'theon[jax]'"),
    Extra("Graphviz's dot program",
          re.compile(r"\bpydotprint\((?![^)]*format=[\"'](?:dot|gv|raw)[\"'])"),
          lambda: shutil.which("dot") is not None,
          "apt-get install graphviz, or conda install graphviz"),
    Extra("headless Chromium", re.compile(r"\bplaywright\b"),
          lambda: _have_module("playwright") and (shutil.which("chromium") is not None
                                                  or shutil.which("chromium-browser") is not None),
          "pip install 'theon[screenshots]' and apt-get install chromium"),
)


def needs(block: Block) -> list[Extra]:
    return [e for e in EXTRAS if e.used_by.search(block.code)]


def names(block: Block) -> tuple[set[str], set[str]]:
    """The names ``block`` binds, and those it reads without binding them itself."""
    code = block.code
    if block.is_doctest:
        code = "".join(ex.source for ex in doctest.DocTestParser().get_examples(code))
    bound: set[str] = set()
    read: set[str] = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Name):
            (read if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(node.name)
    return bound, read - bound


def skipped(found: list[Block], missing: Callable[[Block], list[Extra]]) -> dict[int, str]:
    """The blocks to skip, each with the reason: those needing an extra that is
    ``missing``, and those reading a name that only a skipped block defined."""
    skip: dict[int, str] = {}
    defined: set[str] = set()
    lost: set[str] = set()
    for i, block in enumerate(found):
        if block.is_template:
            continue
        bound, read = names(block)
        absent = missing(block)
        if absent:
            skip[i] = "needs " + ", ".join(f"{e.name} ({e.install})" for e in absent)
        elif read & lost:
            skip[i] = f"uses {', '.join(sorted(read & lost))} of a skipped block"
        else:
            defined |= bound
            lost -= bound
            continue
        lost |= bound - defined
    return skip


def run_page(page: str, skip: set[int]) -> int:
    """Run ``page``'s blocks, but those numbered in ``skip``; the number run.

    Each block is compiled at its own lines of the page, so a traceback points into it.
    """
    path = ROOT / page
    namespace: dict[str, object] = {"__name__": "__main__"}
    ran = 0
    for i, block in enumerate(blocks(path.read_text())):
        if i in skip or block.is_template:
            continue
        where = f"{page}:{block.line} (block {i})"
        if block.is_doctest:
            test = doctest.DocTestParser().get_doctest(block.code, namespace, where, str(path),
                                                       block.line - 1)
            runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
            runner.run(test, clear_globs=False)
            namespace.update(test.globs)
            if runner.failures:
                raise AssertionError(f"{where}: {runner.failures} doctest example(s) failed")
        else:
            exec(compile("\n" * (block.line - 1) + block.code, str(path), "exec"), namespace)
        ran += 1
    return ran


def run_in_subprocess(page: str, skip: set[int], tmp_path: Path) -> int:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env.pop("THEON_FLAGS", None)
    proc = subprocess.run([sys.executable, str(Path(__file__)), page, *map(str, sorted(skip))],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=900)
    assert proc.returncode == 0, f"{page} failed:\n{proc.stdout[-6000:]}\n{proc.stderr[-6000:]}"
    return int(json.loads(proc.stdout.strip().splitlines()[-1])["ran"])


@pytest.mark.parametrize("page", pages())
def test_page_blocks_run(page: str, tmp_path: Path) -> None:
    found = blocks((ROOT / page).read_text())
    skip = skipped(found, lambda b: [e for e in needs(b) if not e.available()])
    to_run = [b for i, b in enumerate(found) if i not in skip and not b.is_template]
    if to_run:
        assert run_in_subprocess(page, set(skip), tmp_path) == len(to_run)
    if skip:
        why = "; ".join(f"block {i} (line {found[i].line}) {m}" for i, m in skip.items())
        pytest.skip(f"{page}: ran {len(to_run)} of {len(found)} blocks; {why}")


def _pages_with_extras() -> list[str]:
    return [p for p in pages() if any(needs(b) for b in blocks((ROOT / p).read_text()))]


@pytest.mark.parametrize("page", _pages_with_extras())
def test_page_runs_without_its_extras(page: str, tmp_path: Path) -> None:
    # where the extras are installed, the run without them is this one: the page's
    # blocks that need none, and use nothing of one that does, run on their own
    found = blocks((ROOT / page).read_text())
    if not all(e.available() for b in found for e in needs(b)):
        pytest.skip("an extra is absent here, so test_page_blocks_run already ran this")
    skip = skipped(found, needs)
    expected = sum(1 for i, b in enumerate(found) if i not in skip and not b.is_template)
    assert run_in_subprocess(page, set(skip), tmp_path) == expected


def test_blocks_are_found() -> None:
    text = "a\n```python\nx = 1\n```\n\n1. item\n\n   ```python\n   y = x\n   ```\n"
    assert blocks(text) == [Block(3, "x = 1\n"), Block(9, "y = x\n")]
    assert blocks("```python\n# template: not run\nf(...)\n```\n")[0].is_template
    assert blocks("```python\n>>> 1 + 1\n2\n```\n")[0].is_doctest
    assert [e.name for e in needs(Block(1, 'f = theon.function([x], y, mode="JAX")\n'))] == ["jax"]
    assert needs(Block(1, 'pydotprint(f, outfile="g.dot", format="dot")\n')) == []
    assert needs(Block(1, 'pydotprint(f, outfile="g.png")\n'))[0].name.startswith("Graphviz")
    page = [Block(1, "import numpy as np\nf = 1\n"), Block(5, "import jax\ng = f + 1\n"),
            Block(9, "print(g)\n"), Block(12, "f = 2\n"), Block(14, ">>> print(np, f)\n")]
    assert names(page[1]) == ({"jax", "g"}, {"f"})
    assert names(page[4]) == (set(), {"print", "np", "f"})
    assert skipped(page, needs) == {1: "needs jax (pip install 'theon[jax]')",
                                    2: "uses g of a skipped block"}


# a float printed to more digits than every libm agrees on
LONG_FLOAT = re.compile(r"\d\.\d{9,}")


def test_doctests_print_no_last_digits() -> None:
    # a doctest compares text, and transcendental functions differ between libms (and
    # NumPy's SIMD loops) in the last digits: a page's doctests round what they print
    for page in pages():
        for block in blocks((ROOT / page).read_text()):
            if block.is_doctest:
                for ex in doctest.DocTestParser().get_examples(block.code):
                    assert not LONG_FLOAT.search(ex.want), (page, block.line, ex.source, ex.want)


def test_templates_are_rare() -> None:
    found = [b for p in pages() for b in blocks((ROOT / p).read_text())]
    assert len(found) >= 25
    assert sum(b.is_template for b in found) <= len(found) // 10


# --- no paths of the machine the docs were written on --------------------------------------

# an absolute path under a machine's own folders (after a space, quote, bracket, `=`,
# `:` or the start of a line, so `https://host/home/` is not one), a Windows path,
# or an interpreter inside a pyenv/conda/virtualenv tree
MACHINE_PATH = re.compile(
    r"(?:^|[\s\"'`(\[=:,/])/(?:home|work|tmp|root|usr|opt|var|mnt|srv|scratch|data|nix|"
    r"private|Users|Volumes|run|media)/"
    r"|\b[A-Za-z]:\\\\?(?:Users|Program|Windows)"
    r"|\.pyenv/|\bpyenv/versions|/(?:mini|ana)conda3?/|site-packages/"
    r"|\bvenv[^\s/]*/lib/python",
    re.M,
)


def machine_path_files() -> list[str]:
    roots = [ROOT / "README.md", ROOT / "docs", ROOT / "bench" / "results"]
    files: list[Path] = []
    for r in roots:
        files.extend([r] if r.is_file() else sorted(p for p in r.rglob("*") if p.is_file()))
    return [p.relative_to(ROOT).as_posix() for p in files]


@pytest.mark.parametrize("name", machine_path_files())
def test_no_machine_paths(name: str) -> None:
    data = (ROOT / name).read_bytes()
    if b"\0" in data[:8192]:  # a picture
        return
    text = data.decode("utf-8", errors="replace")
    hits = [f"line {text.count(chr(10), 0, m.start()) + 1}: "
            f"{text[max(0, m.start() - 30):m.end() + 30]!r}" for m in MACHINE_PATH.finditer(text)]
    assert not hits, f"{name} names paths of a machine (write <placeholders>):\n" + "\n".join(hits)


def test_machine_paths_are_recognised() -> None:
    bad = ["python at /home/ann/x", "`/work/main/.venv/bin/python`", "(/tmp/tmpab:1)",
           "--peer=/opt/venv/bin/python", "~/.pyenv/versions/3.11.7/bin/python",
           "C:\\Users\\ann", "/usr/lib/python3/site-packages/x"]
    good = ["`.venv/bin/python -m pytest`", "<peer-venv>/bin/python", "https://graphviz.org/home/",
            "~/.cache/theon", "docs/jax.md", "tests/compat/x.py", "1/tmp"]
    assert all(MACHINE_PATH.search(s) for s in bad), [s for s in bad if not MACHINE_PATH.search(s)]
    assert not any(MACHINE_PATH.search(s) for s in good), [s for s in good
                                                          if MACHINE_PATH.search(s)]


def test_the_benchmark_runner_writes_placeholders(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(ROOT / "bench"))  # run.py imports its neighbours
    spec = importlib.util.spec_from_file_location("bench_run", ROOT / "bench" / "run.py")
    assert spec is not None and spec.loader is not None
    run = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "bench_run", run)  # its dataclasses look it up
    spec.loader.exec_module(run)
    args = argparse.Namespace(peer=["/home/ann/peers/bin/python"],
                              theon_at=["base=/work/ann/base"])
    text = run.public_paths(
        f"- `{sys.executable}`: Python 3.11\n- `/home/ann/peers/bin/python`: Python 3.11\n"
        "- command: `python bench/run.py --peer /home/ann/peers/bin/python --theon-at "
        f"base=/work/ann/base --out {ROOT}/bench/results/latest.md`\n"
        '{"error": "at /tmp/tmpqj9/x.py:1 for jit"} 0.38 µs/call, start / end: 1 / 2\n',
        run.placeholders(args))
    assert MACHINE_PATH.search(text) is None, text
    assert "`<peer-venv>/bin/python`" in text and "base=<base-worktree>" in text
    assert "--out bench/results/latest.md" in text and "at <path>/x.py:1" in text
    assert "0.38 µs/call, start / end: 1 / 2" in text


if __name__ == "__main__":
    print(json.dumps({"ran": run_page(sys.argv[1], {int(a) for a in sys.argv[2:]})}))
