"""The rewrite database: named phases of tagged rewrites, and queries on them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["RewriteQuery", "resolve_rewriter"]


@dataclass(frozen=True)
class RewriteQuery:
    """Which registered rewrites a mode runs: by tag, plus explicit inclusions/exclusions."""

    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    require: tuple[str, ...] = ()

    @classmethod
    def named(cls, name: str) -> RewriteQuery:
        """The query behind a preset name (``"fast_run"``, ``"fast_compile"``)."""
        return cls(include=(name,))

    def including(self, *tags: str) -> RewriteQuery:
        return RewriteQuery(self.include + tags, self.exclude, self.require)

    def excluding(self, *tags: str) -> RewriteQuery:
        return RewriteQuery(self.include, self.exclude + tags, self.require)

    def requiring(self, *tags: str) -> RewriteQuery:
        return RewriteQuery(self.include, self.exclude, self.require + tags)


def resolve_rewriter(spec: Any) -> Callable[[Any], Any] | None:
    """The callable rewriting a FunctionGraph for a mode's optimizer spec."""
    if spec is None:
        return None
    if callable(spec) and not isinstance(spec, (str, RewriteQuery)):
        return spec
    return None
