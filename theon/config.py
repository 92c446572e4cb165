"""theon's configuration: the only module that reads the environment.

Flags come from ``THEON_FLAGS`` (``"floatX=float32,mode=FAST_COMPILE"``) and can be
changed temporarily with :func:`change_flags` (a ``with`` block or a decorator).

Programs written for Theano, Aesara or PyTensor keep their settings:

* ``THEANO_FLAGS``, ``AESARA_FLAGS`` and ``PYTENSOR_FLAGS`` are read too, in that order,
  and ``THEON_FLAGS`` last, so a flag given twice takes the later value (``THEON_FLAGS``
  wins).  Before them, the rc files: ``~/.theanorc``, ``~/.aesararc``, ``~/.pytensorrc``
  and ``~/.theonrc`` (each with its ``.txt`` twin; ``$THEANORC``, ..., ``$THEONRC`` name
  other files, separated by ``os.pathsep``), read as Theano read its rc file: an INI
  file whose ``[global]`` section holds the plain flags and whose section ``[a.b]``
  holds flag ``a__b__name`` (``[gcc] cxxflags = -O3`` is ``gcc__cxxflags``); option
  names are case-insensitive; ``%(USER)s``, ``%(PID)s``, ... are interpolated.
* The flags of Theano's and PyTensor's C and GPU backends (``device``, ``cxx``,
  ``gcc__cxxflags``, ``blas__ldflags``, ``warn__*``, ``optimizer_including``, ...) are
  accepted and stored, and change nothing (theon has no C or GPU backend); one line at
  debug level (logger ``theon.config``) says so.  ``device=cuda*``, ``gpu*`` or
  ``opencl*`` gives one warning pointing to ``mode="JAX"``.  They read and write as
  attributes too, by section: ``config.warn.sum_div_dimshuffle_bug = False``.
* A flag that none of them ever had is an error naming it.

>>> from theon import config
>>> with config.change_flags(floatX="float32"):
...     config.floatX
'float32'
>>> config.gcc.cxxflags == config.gcc__cxxflags == ""
True
"""

from __future__ import annotations

import configparser
import contextlib
import logging
import os
import shlex
import warnings
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "Config", "change_flags", "config", "environ_value", "parse_flags", "read_rc_file",
]


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


def _linker(s: str) -> str:
    """A linker name; the C linkers of Theano and PyTensor (``cvm``, ``c|py``, ...)
    are theon's default linker, ``vm_nogc`` is ``vm``."""
    name = s.strip()
    if name in ("c", "cvm", "c|py", "c|py_nogc", "cvm_nogc"):
        return "auto"
    return "vm" if name == "vm_nogc" else name


_flag("linker", "auto", _linker,
      "default linker for named modes ('auto', 'py', 'vm'; Theano's C linkers mean 'auto')")
_flag("on_unused_input", "raise", _choice("raise", "warn", "ignore"),
      "what `function` does with an input the outputs do not need",
      ("raise", "warn", "ignore"))
_flag("compute_test_value", "off", _choice("off", "ignore", "warn", "raise", "pdb"),
      "kept for API compatibility; theon does not compute test values",
      ("off", "ignore", "warn", "raise", "pdb"))
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


def _progress(s: str) -> bool | str:
    low = str(s).strip().lower()
    return "auto" if low == "auto" else _bool(low)


_flag("progress", "auto", _progress,
      "show progress on stderr of long compiles, grads and first JAX calls (theon.progress): "
      "True, False, or 'auto' (when stderr is a terminal)", (True, False, "auto"))
_flag("progress_delay", 2.0, float,
      "seconds a compile, grad or first JAX call runs before its progress is shown")


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
_flag("tier1_graph_calls", 1000, int,
      "a graph whose every node numba takes is compiled whole by numba after this many "
      "calls (0: never; theon.link.tier1.nbgraph)")
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


#: The flags of Theano's, Aesara's and PyTensor's C and GPU backends (and the few others
#: theon has no use for), with their defaults: accepted from every source, stored, and
#: read back; they change nothing in theon.
_OLD_FLAGS: dict[str, Any] = {
    # devices: theon runs on the CPU (mode="JAX" runs on jax's devices)
    "device": "cpu", "init_gpu_device": "", "force_device": False, "contexts": "",
    "print_active_device": True, "enable_initial_driver_test": True,
    "assert_no_cpu_op": "ignore", "conv__assert_shape": False,
    # the C backend and its compile cache
    "cxx": "", "gcc__cxxflags": "", "gcc_version_str": "", "compiler_verbose": False,
    "nocleanup": False, "compiledir_format": "", "base_compiledir": "", "compiledir": "",
    "compile__wait": 5, "compile__timeout": 120, "blas__ldflags": "",
    "blas__check_openmp": True, "openmp": False, "openmp_elemwise_minsize": 200000,
    # rewriting (theon's rewrites are selected by Mode(optimizer=...)/including/excluding)
    "optimizer": "fast_run", "optimizer_excluding": "", "optimizer_including": "",
    "optimizer_requiring": "", "optimizer_verbose_ignore": "", "on_opt_error": "warn",
    "optdb__position_cutoff": float("inf"), "optdb__max_use_ratio": 8.0,
    "cycle_detection": "regular", "check_stack_trace": "off", "cache_optimizations": False,
    "metaopt__verbose": 0, "metaopt__optimizer_excluding": "",
    "metaopt__optimizer_including": "", "tensor__cmp_sloppy": 0,
    "tensor__local_elemwise_fusion": True, "gpu__local_elemwise_fusion": True,
    "tensor__insert_inplace_optimizer_validate_nb": -1,
    "experimental__local_alloc_elemwise": True,
    "experimental__local_alloc_elemwise_assert": True,
    "experimental__unpickle_gpu_on_cpu": False, "gpuelemwise__sync": True,
    # running, memory, checking, printing
    "allow_gc": True, "scan__allow_gc": False, "scan__allow_output_prealloc": True,
    "scan__debug": False, "vm__lazy": None, "check_input": True, "on_shape_error": "warn",
    "exception_verbosity": "low", "traceback__compile_limit": 0, "cast_policy": "custom",
    "int_division": "int", "deterministic": "default", "print_global_stats": False,
    "unpickle_function": True, "reoptimize_unpickled_function": False,
    "pickle_test_value": True, "print_test_value": False, "compute_test_value_opt": "off",
    "profile_optimizer": False, "profile_memory": False, "unittests__rseed": "666",
    "numba__fastmath": True, "numba__cache": True, "warn__ignore_bug_before": "0.9",
    **{f"numpy__seterr_{k}": "ignore" if k == "all" else "None"
       for k in ("all", "divide", "over", "under", "invalid")},
    **{f"DebugMode__{k}": v for k, v in (
        ("patience", 10), ("check_c", True), ("check_py", True), ("check_finite", True),
        ("check_strides", 0), ("warn_input_not_reused", True),
        ("check_preallocated_output", ""), ("check_preallocated_output_ndim", 4))},
    **{f"NanGuardMode__{k}": v for k, v in (
        ("nan_is_error", True), ("inf_is_error", True), ("big_is_error", True),
        ("action", "raise"))},
    **{f"profiling__{k}": v for k, v in (
        ("time_thunks", True), ("n_apply", 20), ("n_ops", 20), ("output_line_width", 512),
        ("min_memory_size", 1024), ("min_peak_memory", False), ("destination", "stderr"),
        ("debugprint", False), ("ignore_first_call", False))},
}
#: Families of old flags whose every member is accepted (``warn__*``: Theano's warnings
#: of its own past bugs; the GPU libraries' settings): an unset one reads as ``None``.
_OLD_FAMILIES = ("warn", "cmodule", "lib", "gpuarray", "dnn", "cuda", "nvcc", "magma", "ctc",
                 "pycuda", "cublas")
#: Sections inside a family (``config.dnn.conv.algo_fwd``).
_OLD_SECTIONS = ("dnn__conv",)
#: Old names of theon's own flags.
_RENAMED = {"traceback__limit": "traceback_limit"}
#: Where flags come from, lowest precedence first: rc files, then these variables.
_ENV_FLAGS = ("THEANO_FLAGS", "AESARA_FLAGS", "PYTENSOR_FLAGS", "THEON_FLAGS")
_RC_FILES = (("THEANORC", ".theanorc"), ("AESARARC", ".aesararc"),
             ("PYTENSORRC", ".pytensorrc"), ("THEONRC", ".theonrc"))
_GPU_DEVICES = ("cuda", "gpu", "opencl")

_log = logging.getLogger("theon.config")


def _in_family(name: str) -> bool:
    family, sep, rest = name.partition("__")
    return bool(sep) and bool(rest) and family in _OLD_FAMILIES


def _canonical(name: str) -> str | None:
    """The flag ``name`` stands for (old names of theon's flags renamed), or ``None``
    where neither theon nor Theano, Aesara or PyTensor ever had it."""
    if name in _FLAGS or name in _OLD_FLAGS or _in_family(name):
        return name
    return _RENAMED.get(name)


def _is_section(name: str) -> bool:
    """Whether ``config.<name>`` is a section of flags ``<name>__...``."""
    if name in _OLD_FAMILIES or name in _OLD_SECTIONS:
        return True
    return any(k.startswith(name + "__") for k in (*_FLAGS, *_OLD_FLAGS, *_RENAMED))


def _convert(name: str, text: str) -> Any:
    """Flag ``name``'s value from its text (an old flag: by the type of its default)."""
    if name in _FLAGS:
        return _FLAGS[name].convert(text.strip())
    default = _OLD_FLAGS.get(name)
    if isinstance(default, bool) or name.startswith("warn__"):  # (Theano's were booleans)
        return _bool(text)
    if isinstance(default, int):
        return int(text)
    if isinstance(default, float):
        return float(text)
    return text.strip()


def _known() -> str:
    return ", ".join(sorted(_FLAGS))


def _gpu_warning(name: str, value: Any, source: str) -> None:
    if isinstance(value, str) and value.strip().lower().startswith(_GPU_DEVICES):
        warnings.warn(
            f"{name}={value!r} ({source}): theon has no CUDA or OpenCL backend of its own "
            "and runs on the CPU; to run on a GPU, compile with mode=\"JAX\" "
            "(theon.function(..., mode=\"JAX\") or THEON_FLAGS=mode=JAX) with a GPU build "
            "of jax installed (docs/jax.md)",
            UserWarning,
            stacklevel=3,
        )


def environ_value(name: str) -> str | None:
    """An environment variable another library reads (``XLA_FLAGS``, say), for code
    that must take it into account (a cache key); theon's own settings are flags."""
    return os.environ.get(name)


def _default_cache_dir(env: Mapping[str, str]) -> str:
    """The disk cache's default directory, from the environment."""
    own = env.get("THEON_CACHE_DIR")
    if own:
        return str(own)
    xdg = env.get("XDG_CACHE_HOME")
    if xdg:
        return os.path.join(xdg, "theon")
    return os.path.join(os.path.expanduser("~"), ".cache", "theon")


def parse_flags(text: str, source: str = "THEON_FLAGS") -> dict[str, Any]:
    """Parse ``"a=1,b=x"`` into converted values; unknown names raise ``ValueError``.

    Entries are split at commas as a shell splits words (``gcc__cxxflags="-O3,-g"``
    keeps its comma); old names of theon's flags come back under theon's names.

    >>> parse_flags("floatX=float32, profile=True")
    {'floatX': 'float32', 'profile': True}
    >>> parse_flags("device=cpu,traceback__limit=3,warn__round=False")
    {'device': 'cpu', 'traceback_limit': 3, 'warn__round': False}
    """
    lexer = shlex.shlex(text, posix=True)
    lexer.whitespace = ","
    lexer.whitespace_split = True
    out: dict[str, Any] = {}
    for raw in lexer:
        item = raw.strip()
        if not item:
            continue
        if "=" not in item:
            raise ValueError(f"{source} entry {item!r} is not of the form name=value")
        given, _, value = item.partition("=")
        given = given.strip()
        name = _canonical(given)
        if name is None:
            raise ValueError(
                f"unknown {source} entry {given!r}: no flag of theon, Theano, Aesara or "
                f"PyTensor has that name; theon's flags: {_known()}")
        try:
            out[name] = _convert(name, value)
        except ValueError as e:
            raise ValueError(f"{source} entry {given}: {e}") from None
    return out


def _rc_paths(env: Mapping[str, str]) -> list[str]:
    """The rc files to read, lowest precedence first (see the module docstring)."""
    home = env.get("HOME") or os.path.expanduser("~")
    paths = []
    for var, base in _RC_FILES:
        spec = env.get(var) or f"~/{base}{os.pathsep}~/{base}.txt"
        for p in spec.split(os.pathsep):
            if p:
                paths.append(home + p[1:] if p.startswith("~") else p)
    return paths


class _CaseKeepingParser(configparser.ConfigParser):
    """An INI parser that keeps option names as written (flags are matched
    case-insensitively afterwards)."""

    def optionxform(self, optionstr: str) -> str:
        return optionstr


def read_rc_file(path: str, env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The flags an rc file sets, as Theano read ``~/.theanorc`` (missing file: none).

    ``[global]`` holds plain flags and ``[a.b]`` flag ``a__b__name``; option names are
    case-insensitive; ``%(USER)s``, ``%(LSCRATCH)s``, ``%(TMPDIR)s``, ``%(TEMP)s``,
    ``%(TMP)s`` and ``%(PID)s`` are interpolated.  An unknown flag raises
    ``ValueError`` naming the file, the section and the option.
    """
    env = os.environ if env is None else env
    home = env.get("HOME") or os.path.expanduser("~")
    tmp = env.get("TMPDIR", "/tmp")
    defaults = {"USER": env.get("USER", os.path.basename(home)), "LSCRATCH": env.get(
        "LSCRATCH", ""), "TMPDIR": tmp, "TEMP": env.get("TEMP", tmp),
        "TMP": env.get("TMP", tmp), "PID": str(os.getpid())}
    parser = _CaseKeepingParser(defaults=defaults)
    if not parser.read(path):
        return {}
    lower = {n.lower(): n for n in (*_FLAGS, *_OLD_FLAGS, *_RENAMED)}
    out: dict[str, Any] = {}
    for section in parser.sections():
        for key in parser[section]:
            if key in defaults:
                continue
            full = key if section == "global" else f"{section.replace('.', '__')}__{key}"
            name = _canonical(lower.get(full.lower(), full))
            if name is None:
                raise ValueError(
                    f"{path}: [{section}] {key}: no flag of theon, Theano, Aesara or "
                    f"PyTensor is named {full!r}; theon's flags: {_known()}")
            try:
                out[name] = _convert(name, parser.get(section, key))
            except ValueError as e:
                raise ValueError(f"{path}: [{section}] {key}: {e}") from None
    return out


class _Section:
    """``config.<section>``: the flags ``<section>__<name>`` as attributes
    (``config.warn.sum_div_dimshuffle_bug = False``)."""

    def __init__(self, owner: Config, prefix: str) -> None:
        object.__setattr__(self, "_owner", owner)
        object.__setattr__(self, "_prefix", prefix)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self._owner, f"{self._prefix}__{name}")

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._owner, f"{self._prefix}__{name}", value)

    def __repr__(self) -> str:
        return f"<theon.config section {self._prefix!r}>"


class Config:
    """Typed access to theon's flags; ``config.floatX``, ``config.mode``, ...

    >>> Config({"THEON_FLAGS": "floatX=float32"}).floatX
    'float32'
    >>> Config({"THEANO_FLAGS": "floatX=float32,device=cpu", "THEON_FLAGS": ""}).floatX
    'float32'
    """

    _values: dict[str, Any]

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        values = {name: f.default for name, f in _FLAGS.items()}
        env = os.environ if environ is None else environ
        values["cache_dir"] = _default_cache_dir(env)
        source: dict[str, str] = {}
        for path in _rc_paths(env):
            for name, v in read_rc_file(path, env).items():
                values[name], source[name] = v, path
        for var in _ENV_FLAGS:
            for name, v in parse_flags(env.get(var, ""), var).items():
                values[name], source[name] = v, var
        object.__setattr__(self, "_values", values)
        old = [n for n in source if n not in _FLAGS]
        if old:
            _log.debug("flags of Theano's and PyTensor's C and GPU backends, stored and "
                       "unused: %s", ", ".join(f"{n} ({source[n]})" for n in old))
        for name in ("device", "init_gpu_device"):
            if name in source:
                _gpu_warning(name, values[name], source[name])
                break

    def __getattr__(self, name: str) -> Any:
        values = object.__getattribute__(self, "_values")
        if name in values:
            return values[name]
        if name.startswith("_"):
            raise AttributeError(name)
        if name in _RENAMED:
            return values[_RENAMED[name]]
        if name in _OLD_FLAGS:
            return _OLD_FLAGS[name]
        if _is_section(name):
            return _Section(self, name)
        if _in_family(name):
            return None
        raise AttributeError(f"theon.config has no flag {name!r}; theon's flags: {_known()}")

    def __setattr__(self, name: str, value: Any) -> None:
        canon = _canonical(name)
        if canon is None:
            raise AttributeError(
                f"theon.config has no flag {name!r} (nor had Theano, Aesara or PyTensor); "
                f"theon's flags: {_known()}")
        flag = _FLAGS.get(canon)
        if flag is not None:
            if isinstance(value, str):
                try:
                    value = flag.convert(value)
                except ValueError as e:
                    raise ValueError(f"config.{name}: {e}") from None
            if flag.allowed is not None and value not in flag.allowed:
                raise ValueError(f"config.{name} must be one of {flag.allowed}, got {value!r}")
        else:
            _log.debug("config.%s = %r: stored, unused (theon has no C or GPU backend)",
                       name, value)
            if canon in ("device", "init_gpu_device"):
                _gpu_warning(name, value, f"config.{name}")
        self._values[canon] = value

    def __dir__(self) -> list[str]:
        return sorted({*_FLAGS, *_OLD_FLAGS, *_OLD_FAMILIES})

    def change_flags(
        self, *args: Mapping[str, Any], **kwargs: Any
    ) -> contextlib.AbstractContextManager[None]:
        """Temporarily set flags; see :func:`change_flags`."""
        return change_flags(*args, **kwargs)

    def describe(self) -> str:
        """One line per flag: name, value and meaning."""
        return "\n".join(f"{n} = {getattr(self, n)!r}  # {f.doc}" for n, f in _FLAGS.items())


config = Config()


@contextlib.contextmanager
def change_flags(*args: Mapping[str, Any], **kwargs: Any) -> Iterator[None]:
    """Set flags for the duration of a ``with`` block, or of each call of a function it
    decorates (PyTensor's ``@config.change_flags(compute_test_value="off")``).  Flags
    may also come as dicts (``change_flags({"floatX": "float32"})``).

    >>> with change_flags(floatX="float32"):
    ...     config.floatX
    'float32'
    >>> @change_flags(floatX="float16")
    ... def dtype():
    ...     return config.floatX
    >>> dtype(), config.floatX
    ('float16', 'float64')
    """
    for d in args:
        kwargs = {**d, **kwargs}
    old = {k: getattr(config, k) for k in kwargs}
    try:
        for k, v in kwargs.items():
            setattr(config, k, v)
        yield
    finally:
        for k, v in old.items():
            config._values[_canonical(k) or k] = v


def __getattr__(name: str) -> Any:
    # `theon.config.floatX` works whether `theon.config` is this module or the object.
    return getattr(config, name)
