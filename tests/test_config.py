"""Flags from Theano-, Aesara- and PyTensor-era settings (issue 32 item 5).

Each source is tested in a child process started with the environment variable (or the
rc file in its ``HOME``) set, since flags are read once, when ``theon.config`` is imported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

import theon
from theon.config import Config, change_flags, config, parse_flags, read_rc_file

_FLAG_VARS = ("THEON_FLAGS", "THEANO_FLAGS", "AESARA_FLAGS", "PYTENSOR_FLAGS",
              "THEANORC", "AESARARC", "PYTENSORRC", "THEONRC")


def run_child(code: str, home: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter with only ``env``'s flag variables set and
    ``HOME`` at ``home`` (so no rc file of the machine's user is read)."""
    base = {k: v for k, v in os.environ.items() if k not in _FLAG_VARS}
    base.update(HOME=str(home), **env)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=base,
                          capture_output=True, text=True, timeout=120)


# The child prints the flags asked for as JSON, and records the warnings and the
# debug lines of theon.config made while theon is imported.
PROBE = """
import json, logging, sys, warnings
lines = []
class Keep(logging.Handler):
    def emit(self, record):
        lines.append(record.getMessage())
log = logging.getLogger("theon.config")
log.setLevel(logging.DEBUG)
log.addHandler(Keep())
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import theon
names = sys.argv[1:] or {names!r}
print(json.dumps({{"flags": {{n: getattr(theon.config, n) for n in names}},
                   "warnings": [str(w.message) for w in caught],
                   "debug": lines}}))
"""


def probe(home: Path, names: list[str], **env: str) -> dict[str, Any]:
    r = run_child(PROBE.format(names=names), home, **env)
    assert r.returncode == 0, r.stderr
    out: dict[str, Any] = json.loads(r.stdout.strip().splitlines()[-1])
    return out


def test_theano_pytensor_and_aesara_flags_are_read(tmp_path: Path) -> None:
    for var in ("THEANO_FLAGS", "AESARA_FLAGS", "PYTENSOR_FLAGS", "THEON_FLAGS"):
        got = probe(tmp_path, ["floatX", "on_unused_input"],
                    **{var: "floatX=float32,on_unused_input=warn"})
        assert got["flags"] == {"floatX": "float32", "on_unused_input": "warn"}, var
        assert got["warnings"] == [] and got["debug"] == []


def test_theon_flags_win_then_pytensor_aesara_theano(tmp_path: Path) -> None:
    got = probe(tmp_path, ["floatX"], THEANO_FLAGS="floatX=float32",
                THEON_FLAGS="floatX=float16")
    assert got["flags"] == {"floatX": "float16"}
    got = probe(tmp_path, ["floatX", "mode"], THEANO_FLAGS="floatX=float32,mode=FAST_COMPILE",
                PYTENSOR_FLAGS="floatX=float16")
    assert got["flags"] == {"floatX": "float16", "mode": "FAST_COMPILE"}
    got = probe(tmp_path, ["floatX"], THEANO_FLAGS="floatX=float32",
                AESARA_FLAGS="floatX=float16")
    assert got["flags"] == {"floatX": "float16"}


def test_backend_flags_are_stored_with_one_debug_line(tmp_path: Path) -> None:
    flags = ('device=cpu,cxx=,gcc__cxxflags="-O3 -fno-unwind-tables,-g",'
             "blas__ldflags=-lopenblas,warn__sum_div_dimshuffle_bug=False,"
             "optimizer_including=local_remove_all_assert,allow_gc=False,"
             "dnn__conv__algo_fwd=time_once,traceback__limit=3,linker=cvm")
    got = probe(tmp_path, ["device", "cxx", "gcc__cxxflags", "blas__ldflags",
                           "warn__sum_div_dimshuffle_bug", "optimizer_including",
                           "allow_gc", "dnn__conv__algo_fwd", "traceback_limit", "linker"],
                THEANO_FLAGS=flags)
    assert got["flags"] == {
        "device": "cpu", "cxx": "", "gcc__cxxflags": "-O3 -fno-unwind-tables,-g",
        "blas__ldflags": "-lopenblas", "warn__sum_div_dimshuffle_bug": False,
        "optimizer_including": "local_remove_all_assert", "allow_gc": False,
        "dnn__conv__algo_fwd": "time_once", "traceback_limit": 3, "linker": "auto"}
    assert got["warnings"] == []
    assert len(got["debug"]) == 1
    line = got["debug"][0]
    assert "gcc__cxxflags (THEANO_FLAGS)" in line and "device" in line


@pytest.mark.parametrize("device", ["cuda", "cuda0", "gpu", "gpu1", "opencl0:0"])
def test_a_gpu_device_warns_once_pointing_to_jax(tmp_path: Path, device: str) -> None:
    got = probe(tmp_path, ["device", "floatX"],
                THEANO_FLAGS=f"device={device},floatX=float32,init_gpu_device={device}")
    assert got["flags"] == {"device": device, "floatX": "float32"}
    (msg,) = got["warnings"]
    assert f"device='{device}'" in msg and 'mode="JAX"' in msg and "THEANO_FLAGS" in msg


@pytest.mark.parametrize("var", ["THEANO_FLAGS", "THEON_FLAGS", "PYTENSOR_FLAGS"])
def test_a_flag_nobody_had_is_an_error_naming_it(tmp_path: Path, var: str) -> None:
    r = run_child("import theon", tmp_path, **{var: "floatX=float32,warn_sum_bug=1"})
    assert r.returncode != 0
    assert f"unknown {var} entry 'warn_sum_bug'" in r.stderr
    r = run_child("import theon", tmp_path, **{var: "floatX=float128"})
    assert r.returncode != 0 and f"{var} entry floatX" in r.stderr


def test_rc_files_are_read_as_theano_read_them(tmp_path: Path) -> None:
    (tmp_path / ".theanorc").write_text(textwrap.dedent("""
        [global]
        floatX = float32
        FLOATX = float32
        device = cpu
        mode = FAST_COMPILE
        [gcc]
        cxxflags = -O3 -L%(USER)s
        [warn]
        sum_div_dimshuffle_bug = False
        [dnn.conv]
        algo_fwd = time_once
        [DebugMode]
        check_py = False
    """))
    (tmp_path / ".theonrc").write_text("[global]\nmode = FAST_RUN\n")
    names = ["floatX", "device", "mode", "gcc__cxxflags", "warn__sum_div_dimshuffle_bug",
             "dnn__conv__algo_fwd", "DebugMode__check_py"]
    got = probe(tmp_path, names, USER="someone")
    assert got["flags"] == {
        "floatX": "float32", "device": "cpu", "mode": "FAST_RUN",  # .theonrc wins
        "gcc__cxxflags": "-O3 -Lsomeone", "warn__sum_div_dimshuffle_bug": False,
        "dnn__conv__algo_fwd": "time_once", "DebugMode__check_py": False}
    assert len(got["debug"]) == 1
    # the variables win over the rc files
    got = probe(tmp_path, ["floatX", "mode"], THEANO_FLAGS="floatX=float16")
    assert got["flags"] == {"floatX": "float16", "mode": "FAST_RUN"}
    # $THEANORC names other files
    other = tmp_path / "elsewhere.cfg"
    other.write_text("[global]\nfloatX = float16\n")
    got = probe(tmp_path, ["floatX"], THEANORC=str(other))
    assert got["flags"] == {"floatX": "float16"}


def test_an_unknown_rc_flag_names_the_file(tmp_path: Path) -> None:
    rc = tmp_path / ".theanorc"
    rc.write_text("[global]\nfloatX = float32\n[gcc]\nnoflag = 1\n")
    with pytest.raises(ValueError, match=r"\.theanorc: \[gcc\] noflag: .*'gcc__noflag'"):
        read_rc_file(str(rc), {"HOME": str(tmp_path)})
    r = run_child("import theon", tmp_path)
    assert r.returncode != 0 and "gcc__noflag" in r.stderr and ".theanorc" in r.stderr
    assert read_rc_file(str(tmp_path / "missing")) == {}


def test_old_flags_as_attributes_and_sections() -> None:
    """PyMC's ``pytensor.config.gcc__cxxflags += ...`` at import; Theano programs'
    ``config.warn.sum_div_dimshuffle_bug = False``."""
    with change_flags(gcc__cxxflags="", warn__sum_div_dimshuffle_bug=None):
        assert config.gcc__cxxflags == "" and config.gcc.cxxflags == ""
        config.gcc__cxxflags = config.gcc__cxxflags + " -Wno-c++11-narrowing"
        assert config.gcc.cxxflags == " -Wno-c++11-narrowing"
        config.warn.sum_div_dimshuffle_bug = False
        assert config.warn__sum_div_dimshuffle_bug is False
        assert config.warn.sum_div_dimshuffle_bug is False
        config.dnn.conv.algo_fwd = "time_once"
        assert config.dnn__conv__algo_fwd == "time_once"
    assert config.gcc__cxxflags == "" and config.warn.sum_div_dimshuffle_bug is None
    assert config.device == "cpu" and config.blas__ldflags == "" and config.allow_gc is True
    assert config.traceback.limit == config.traceback_limit
    with pytest.raises(AttributeError, match="'nope'"):
        config.nope  # noqa: B018
    with pytest.raises(AttributeError, match="'gcc__nope'.*nor had Theano"):
        config.gcc.nope = 1
    with pytest.raises(ValueError, match="floatX"):
        config.floatX = "int8"


def test_change_flags_as_decorator_dict_and_old_names() -> None:
    @theon.config.change_flags(compute_test_value="off", floatX="float32")
    def inside() -> tuple[str, str]:
        return config.compute_test_value, config.floatX

    before = config.floatX
    assert inside() == ("off", "float32") and config.floatX == before
    with config.change_flags({"floatX": "float16"}, traceback__limit=2):
        assert config.floatX == "float16" and config.traceback_limit == 2
    assert config.floatX == before
    with change_flags(linker="cvm"):  # Theano's C linkers are theon's default linker
        assert config.linker == "auto"


def test_parse_flags_and_config_objects() -> None:
    assert parse_flags('gcc__cxxflags="-O3,-g", warn__round=False', "THEANO_FLAGS") == {
        "gcc__cxxflags": "-O3,-g", "warn__round": False}
    with pytest.raises(ValueError, match="THEANO_FLAGS entry 'floatX' is not"):
        parse_flags("floatX", "THEANO_FLAGS")
    c = Config({"PYTENSOR_FLAGS": "floatX=float32,device=cpu", "HOME": "/nonexistent"})
    assert c.floatX == "float32" and c.device == "cpu"


def test_configdefaults_is_pytensors_path() -> None:
    import theon.configdefaults as cd

    assert cd.config is config and cd.change_flags is change_flags
