"""No function in theon/ is over 100 lines, unless a comment at its top says why.

A long function is split into named steps.  Where one cannot be (say a table
written as code), a comment ``# long function: <why>`` at its top says why.
"""

import ast
import pathlib
import textwrap

import theon

ROOT = pathlib.Path(theon.__file__).parent
LIMIT = 100
MARK = "# long function:"


def long_functions(source: str, limit: int = LIMIT) -> list[tuple[str, int, int]]:
    """``(name, first line, length)`` of each function over ``limit`` lines (from ``def``
    to its last line) without a ``# long function: why`` comment at its top (before its
    first statement, or right after its docstring)."""
    lines = source.splitlines()
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        length = node.end_lineno - node.lineno + 1
        if length <= limit:
            continue
        # the lines before the first statement (after a multi-line signature), and
        # those between a docstring and the next statement
        top = lines[node.lineno - 1: node.body[0].lineno - 1]
        body = node.body
        if len(body) > 1 and isinstance(body[0], ast.Expr) and isinstance(
                getattr(body[0], "value", None), ast.Constant):
            top += lines[body[0].end_lineno: body[1].lineno - 1]
        said = any(ln.strip().startswith(MARK) and ln.strip()[len(MARK):].strip()
                   for ln in top)
        if not said:
            found.append((node.name, node.lineno, length))
    return found


def test_no_function_in_theon_is_over_100_lines():
    bad = []
    for path in sorted(ROOT.rglob("*.py")):
        for name, line, length in long_functions(path.read_text()):
            bad.append(f"{path.relative_to(ROOT.parent)}:{line} {name} ({length} lines)")
    assert not bad, (
        "functions over 100 lines (split them into named steps, or say why at their top "
        f"with '{MARK} <why>'):\n" + "\n".join(bad)
    )


def _function(n_lines: int, comment: str = "") -> str:
    body = "".join(f"    x{k} = {k}\n" for k in range(n_lines - 2 - bool(comment)))
    head = f"    {comment}\n" if comment else ""
    return f"def f(a,\n      b):\n{head}{body}"


def test_the_check_counts_lines_and_reads_the_comment():
    assert long_functions(_function(100)) == []
    assert long_functions(_function(101)) == [("f", 1, 101)]
    assert long_functions(_function(101, "# long function: one table, row by row")) == []
    # a mark without a reason, or a comment that is not the mark, does not count
    assert long_functions(_function(101, "# long function:")) == [("f", 1, 101)]
    assert long_functions(_function(101, "# a comment")) == [("f", 1, 101)]
    nested = "class C:\n" + textwrap.indent(_function(120), "    ")
    assert long_functions(nested) == [("f", 2, 120)]
    documented = _function(101).replace("):\n", '):\n    """Doc."""\n    # long function: why\n', 1)
    assert long_functions(documented) == []
