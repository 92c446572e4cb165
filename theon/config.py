"""theon's configuration: the only module that reads the environment.

Flags come from ``THEON_FLAGS`` (``"floatX=float32,mode=FAST_COMPILE"``) and can be
changed temporarily with :func:`change_flags`.

>>> from theon import config
>>> with config.change_flags(floatX="float32"):
...     config.floatX
'float32'
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

__all__ = ["Config", "change_flags", "config", "environ_value", "parse_flags"]


@dataclass(frozen=True)
class _Flag:
    name: str
    default: Any
    convert: Callable[[str], Any]
    allowed: tuple[Any, ...] | None
    doc: str


def _choice(*values: str) -> Callable[[str], str]:
    def convert(s: str) -> str:
        if s not in values:
            raise ValueError(f"expected one of {values}, got {s!r}")
        return s

    return convert


def _bool(s: str) -> bool:
    low = s.strip().lower()
    if low in ("1", "true", "yes", "on"):
        return True
    if low in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"expected a boolean, got {s!r}")


_FLAGS: dict[str, _Flag] = {}


def _flag(
    name: str,
    default: Any,
    convert: Callable[[str], Any],
    doc: str,
    allowed: tuple[Any, ...] | None = None,
) -> None:
    _FLAGS[name] = _Flag(name, default, convert, allowed, doc)


_flag("floatX", "float64", _choice("float64", "float32", "float16"),
      "dtype of `scalar`, `vector`, ... and of Python floats made into tensors",
      ("float64", "float32", "float16"))
_flag("mode", "FAST_RUN", str, "default compilation mode name")
_flag("linker", "auto", str, "default linker for named modes ('auto', 'py', 'vm')")
_flag("on_unused_input", "raise", _choice("raise", "warn", "ignore"),
      "what `function` does with an input the outputs do not need",
      ("raise", "warn", "ignore"))
_flag("compute_test_value", "off", _choice("off", "ignore", "warn", "raise"),
      "kept for API compatibility; theon does not compute test values",
      ("off", "ignore", "warn", "raise"))
_flag("optimizer_verbose", False, _bool, "print every rewrite that fires")
_flag("trace_rewrites", False, _bool, "record which rewrites fired during each compile")
_flag("elemwise_threads", 0, int,
      "threads for fused elementwise kernels; 0 means the number of cores")
_flag("elemwise_block", 16384, int, "block size (elements) of fused elementwise kernels")
_flag("elemwise_parallel_threshold", 200_000, int,
      "below this many elements, fused kernels run on one thread")
_flag("traceback_limit", 8, int, "stack frames kept where a node is built (0 disables)")
_flag("warn_float64", "ignore", _choice("ignore", "warn", "raise"),
      "what to do when a float64 variable is created", ("ignore", "warn", "raise"))
_flag("profile", False, _bool, "profile every compiled function")


def _tier(s: str) -> int | str:
    low = str(s).strip().lower()
    if low in ("0", "1"):
        return int(low)
    if low == "auto":
        return "auto"
    raise ValueError(f"expected 0, 1 or 'auto', got {s!r}")


_flag("tier", "auto", _tier,
      "tier-1 kernels compiled in the background (docs/tier1.md): 0 (off), 1 (on), "
      "'auto' (on where a kernel compiler, jax or numba, is installed)", (0, 1, "auto"))
_flag("tier1_threshold", 1 << 17, int,
      "a fused elementwise node gets a tier-1 kernel once a call has this many elements")
_flag("tier1_small_threshold", 1024, int,
      "a fused float64 node with tanh gets a tier-1 numba kernel once a call has this many "
      "elements (below tier1_threshold)")
_flag("tier1_scan_steps", 1000, int,
      "a scan loop on Python numbers gets a tier-1 kernel once a call runs this many steps")
_flag("tier1_delay_ms", 50.0, float,
      "the background compiler starts a job this long after the call that asked for it")
_flag("tier1_autotune", True, _bool,
      "time a fused node's tier-1 kernel against tier 0 on its first call; keep the faster")
_flag("cache_dir", "", str,
      "theon's disk cache ($THEON_CACHE_DIR, else $XDG_CACHE_HOME/theon, else ~/.cache/theon); "
      "used only if no other user can write it (docs/caches.md)")
_flag("tier1_cache_mb", 512.0, float, "size bound (MiB) of the tier-1 kernel cache")
_flag("code_cache_mb", 64.0, float,
      "size bound (MiB) of the disk cache of generated code objects (0: no disk cache)")


def environ_value(name: str) -> str | None:
    """An environment variable another library reads (``XLA_FLAGS``, say), for code
    that must take it into account (a cache key); theon's own settings are flags."""
    return os.environ.get(name)


def _default_cache_dir(env: Any) -> str:
    """The disk cache's default directory, from the environment."""
    own = env.get("THEON_CACHE_DIR")
    if own:
        return str(own)
    xdg = env.get("XDG_CACHE_HOME")
    if xdg:
        return os.path.join(xdg, "theon")
    return os.path.join(os.path.expanduser("~"), ".cache", "theon")


def parse_flags(text: str) -> dict[str, Any]:
    """Parse ``"a=1,b=x"`` into converted values; unknown names raise ``ValueError``.

    >>> parse_flags("floatX=float32, profile=True")
    {'floatX': 'float32', 'profile': True}
    """
    out: dict[str, Any] = {}
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        if "=" not in item:
            raise ValueError(f"THEON_FLAGS entry {item!r} is not of the form name=value")
        name, _, value = item.partition("=")
        name = name.strip()
        if name not in _FLAGS:
            known = ", ".join(sorted(_FLAGS))
            raise ValueError(f"unknown THEON_FLAGS entry {name!r}; known flags: {known}")
        try:
            out[name] = _FLAGS[name].convert(value.strip())
        except ValueError as e:
            raise ValueError(f"THEON_FLAGS entry {name}: {e}") from None
    return out


class Config:
    """Typed access to theon's flags; ``config.floatX``, ``config.mode``, ...

    >>> Config({"THEON_FLAGS": "floatX=float32"}).floatX
    'float32'
    """

    def __init__(self, environ: dict[str, str] | None = None) -> None:
        values = {name: f.default for name, f in _FLAGS.items()}
        env = os.environ if environ is None else environ
        values["cache_dir"] = _default_cache_dir(env)
        values.update(parse_flags(env.get("THEON_FLAGS", "")))
        object.__setattr__(self, "_values", values)

    def __getattr__(self, name: str) -> Any:
        values = object.__getattribute__(self, "_values")
        try:
            return values[name]
        except KeyError:
            raise AttributeError(f"theon.config has no flag {name!r}") from None

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in _FLAGS:
            raise AttributeError(f"theon.config has no flag {name!r}")
        allowed = _FLAGS[name].allowed
        if allowed is not None and value not in allowed:
            raise ValueError(f"config.{name} must be one of {allowed}, got {value!r}")
        self._values[name] = value

    def __dir__(self) -> list[str]:
        return sorted(_FLAGS)

    def change_flags(self, **kwargs: Any) -> contextlib.AbstractContextManager[None]:
        """Temporarily set flags; see :func:`change_flags`."""
        return change_flags(**kwargs)

    def describe(self) -> str:
        """One line per flag: name, value and meaning."""
        return "\n".join(f"{n} = {getattr(self, n)!r}  # {f.doc}" for n, f in _FLAGS.items())


config = Config()


@contextlib.contextmanager
def change_flags(**kwargs: Any) -> Iterator[None]:
    """Set flags for the duration of a ``with`` block.

    >>> with change_flags(floatX="float32"):
    ...     config.floatX
    'float32'
    """
    old = {k: getattr(config, k) for k in kwargs}
    try:
        for k, v in kwargs.items():
            setattr(config, k, v)
        yield
    finally:
        for k, v in old.items():
            config._values[k] = v


def __getattr__(name: str) -> Any:
    # `theon.config.floatX` works whether `theon.config` is this module or the object.
    return getattr(config, name)
