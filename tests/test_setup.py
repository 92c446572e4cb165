"""The set-up the README promises: CI runs its two commands as written, and the extras
bring what they say."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def readme_commands() -> list[str]:
    """The quick start's shell commands, in order."""
    text = (ROOT / "README.md").read_text()
    quick = text[text.index("## Quick start"):]
    quick = quick[:quick.index("\n## ", 1)]
    return re.findall(r"```sh\n\s*(.+?)\n\s*```", quick)


def test_the_quick_start_has_the_demo_and_the_test_command() -> None:
    demo, tests = readme_commands()
    assert demo.endswith("-m theon.demo") and "pip install -q -e . " in demo
    assert tests.endswith("-m pytest") and "-e '.[test]'" in tests


def test_ci_runs_the_readme_test_command_as_written_first() -> None:
    ci = (ROOT / ".ci" / "run").read_text()
    _, tests = readme_commands()
    assert tests in ci
    # then every extra, and the suite again
    assert ci.index(tests) < ci.index("pip install -q -e '.[all]'") < ci.rindex("-m pytest")


def extras() -> dict[str, list[str]]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return dict(project["optional-dependencies"])


def test_all_brings_every_extra() -> None:
    found = extras()
    (req,) = found["all"]
    m = re.fullmatch(r"theon\[([a-z0-9_,-]+)\]", req)
    assert m, req
    # dev is the same tools as test
    assert set(m.group(1).split(",")) == set(found) - {"all", "dev"}
    assert sorted(found["dev"]) == sorted(found["test"])


def test_no_extra_brings_a_package_theon_never_uses() -> None:
    # pydotprint runs the `dot` program itself; pydot was an extra theon never imported
    found = extras()
    assert "graphviz" not in found and "html" not in found
    assert not any(r.startswith("pydot") for reqs in found.values() for r in reqs)
    sources = "\n".join(p.read_text() for p in (ROOT / "tests").rglob("*.py"))
    assert "import playwright" in sources or "playwright.sync_api" in sources
    assert found["screenshots"] == ["playwright>=1.40"]


def test_the_extras_the_docs_name_exist() -> None:
    found = extras()
    texts = [(ROOT / "README.md").read_text()]
    texts += [p.read_text() for p in sorted((ROOT / "docs").glob("*.md"))]
    texts += [p.read_text() for p in sorted((ROOT / "theon").rglob("*.py"))]
    texts += [p.read_text() for p in sorted((ROOT / "tests").rglob("*.py"))]
    named = {e for t in texts for group in re.findall(r"theon\[([a-z0-9_,-]+)\]", t)
             for e in group.split(",")}
    assert named and named <= set(found), named - set(found)
