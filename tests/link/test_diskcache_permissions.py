"""The disk caches refuse what another user could have written (issue 29, item 14).

Each test plants, where an attacker could, a well-formed entry (right name, right
checksum) whose code returns 666 instead of 7, and checks that theon runs its own
code instead, warns once naming the refused directory or file, and writes nothing
there.  The control test shows that the planted entry *is* loaded from a private
directory, so each refusal test fails if its check is removed.
"""

from __future__ import annotations

import marshal
import os
import shutil
import stat
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import pytest

import theon
from theon.link import diskcache, source
from theon.link.diskcache import DiskCache, UnsafeCacheWarning

ROOT = Path(__file__).resolve().parents[2]
TEXT = "def f(x):\n    return x * 3 + 1\n"
EVIL = "def f(x):\n    return 666\n"
OTHER_UID = 54321  # (a user that owns nothing here)


def run(code):
    ns: dict = {}
    exec(code, ns)
    return ns["f"](2)


@pytest.fixture(autouse=True)
def fresh_memory():
    """Each test starts and ends with an empty in-memory code cache."""
    source.clear_code_cache()
    yield
    source.clear_code_cache()


def compile_in(cache_dir: Path):
    """``compile_cached(TEXT)`` with ``config.cache_dir`` set to ``cache_dir`` (the flag
    is restored afterwards), as a new process would: nothing in memory."""
    source.clear_code_cache()
    with theon.config.change_flags(cache_dir=str(cache_dir), code_cache_mb=64.0):
        return source.compile_cached(TEXT, "t")


def planted(tmp_path: Path, name: str = "planted") -> Path:
    """A cache directory whose code/ holds, for TEXT, a valid entry of EVIL's code."""
    d = tmp_path / name
    compile_in(d)  # theon's own entry, to learn its file name
    (entry,) = (d / "code").iterdir()
    key = entry.name.removesuffix(".bin")
    evil = compile(EVIL, source.compile_cached(TEXT, "t").co_filename, "exec")
    entry.unlink()
    DiskCache(d / "code", max_bytes=1 << 20).put(key, marshal.dumps(evil))
    return d


def copy_of(d: Path, to: Path) -> Path:
    """A copy of the cache directory ``d`` (a new path: directories are checked once)."""
    shutil.copytree(d, to)
    return to


def refused(record, needle: str) -> list[str]:
    msgs = [str(w.message) for w in record if issubclass(w.category, UnsafeCacheWarning)]
    return [m for m in msgs if needle in m]


def test_control_a_planted_entry_in_a_private_directory_is_loaded(tmp_path):
    # (what every test below refuses: without the checks, theon would run EVIL)
    d = planted(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnsafeCacheWarning)
        assert run(compile_in(d)) == 666


def test_cache_directories_are_created_0700_at_each_level(tmp_path):
    old = os.umask(0)  # (an open umask: the modes must come from theon)
    try:
        compile_in(tmp_path / "a" / "b")
    finally:
        os.umask(old)
    for d in (tmp_path / "a", tmp_path / "a" / "b", tmp_path / "a" / "b" / "code"):
        assert stat.S_IMODE(os.lstat(d).st_mode) == 0o700, d
    (entry,) = (tmp_path / "a" / "b" / "code").iterdir()
    assert stat.S_IMODE(os.lstat(entry).st_mode) == 0o600


def test_world_writable_cache_dir_is_refused_with_one_warning(tmp_path):
    d = copy_of(planted(tmp_path), tmp_path / "shared")
    os.chmod(d, 0o777)
    with pytest.warns(UnsafeCacheWarning) as record:
        first = compile_in(d)
        second = compile_in(d)
        default_tier1 = None
        with theon.config.change_flags(cache_dir=str(d)):
            from theon.link.tier1.diskcache import default_cache

            default_tier1 = default_cache()
            assert default_tier1.get("anything") is None
            default_tier1.put("k", b"x")  # the tier-1 cache is off too: nothing written
    assert run(first) == 7 and run(second) == 7
    hits = refused(record, f"{d} is writable by group and others (mode 0777)")
    assert len(hits) == 1 and len(record) == 1, [str(w.message) for w in record]
    assert sorted(p.name for p in d.iterdir()) == ["code"]  # no tier1/ made
    assert len(list((d / "code").iterdir())) == 1  # the planted entry, not replaced


def test_group_writable_code_directory_is_refused(tmp_path):
    # (a directory theon creates below cache_dir is checked as well as cache_dir)
    d = copy_of(planted(tmp_path), tmp_path / "groupdir")
    os.chmod(d / "code", 0o770)
    with pytest.warns(UnsafeCacheWarning) as record:
        code = compile_in(d)
    assert run(code) == 7
    assert len(refused(record, f"{d / 'code'} is writable by group (mode 0770)")) == 1


def test_symlinked_code_directory_is_refused(tmp_path):
    target = planted(tmp_path)
    d = tmp_path / "linked"
    d.mkdir(mode=0o700)
    (d / "code").symlink_to(target / "code")
    with pytest.warns(UnsafeCacheWarning) as record:
        code = compile_in(d)
    assert run(code) == 7
    assert len(refused(record, f"{d / 'code'} is a symbolic link")) == 1


def test_group_writable_entry_file_is_not_loaded_then_replaced(tmp_path):
    d = copy_of(planted(tmp_path), tmp_path / "entry")
    (entry,) = (d / "code").iterdir()
    os.chmod(entry, 0o620)
    with pytest.warns(UnsafeCacheWarning) as record:
        code = compile_in(d)
    assert run(code) == 7
    assert len(refused(record, f"entry {entry}: it is writable by group (mode 0620)")) == 1
    # the write that followed replaced it with theon's own private entry, which loads
    assert stat.S_IMODE(os.lstat(entry).st_mode) == 0o600
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnsafeCacheWarning)
        assert run(compile_in(d)) == 7


def test_symlinked_entry_file_is_not_loaded(tmp_path):
    src = planted(tmp_path)
    (planted_entry,) = (src / "code").iterdir()
    d = tmp_path / "entrylink"
    (d / "code").mkdir(parents=True, mode=0o700)
    os.chmod(d, 0o700)
    (d / "code" / planted_entry.name).symlink_to(planted_entry)
    with pytest.warns(UnsafeCacheWarning) as record:
        code = compile_in(d)
    assert run(code) == 7
    assert len(refused(record, "is a symbolic link")) == 1


def _owned_by_another_user(monkeypatch, paths):
    """Make ``paths`` look owned by another user: chown them as root, else make the
    owner check expect another uid (then every file here looks foreign)."""
    if os.geteuid() == 0:
        for p in paths:
            os.chown(p, OTHER_UID, -1, follow_symlinks=False)
        return OTHER_UID
    monkeypatch.setattr(diskcache, "_uid", lambda: os.geteuid() + 1)
    return os.geteuid()


def test_cache_dir_owned_by_another_user_is_refused(tmp_path, monkeypatch):
    d = copy_of(planted(tmp_path), tmp_path / "theirs")
    owner = _owned_by_another_user(monkeypatch, [d])
    with pytest.warns(UnsafeCacheWarning) as record:
        code = compile_in(d)
    assert run(code) == 7
    assert len(refused(record, f"{d} is owned by uid {owner}")) == 1


def test_cache_dir_owner_check_with_a_patched_uid(tmp_path, monkeypatch):
    # (as root, both ways of simulating another owner run: this is the monkeypatch one)
    d = copy_of(planted(tmp_path), tmp_path / "patched")
    monkeypatch.setattr(diskcache, "_uid", lambda: os.geteuid() + 1)
    with pytest.warns(UnsafeCacheWarning) as record:
        code = compile_in(d)
    assert run(code) == 7
    assert len(refused(record, f"{d} is owned by uid {os.geteuid()}")) == 1


def test_entry_file_owned_by_another_user_is_not_loaded(tmp_path, monkeypatch):
    if os.geteuid() != 0:
        pytest.skip("giving a file to another user needs root (the directory test above "
                    "covers the owner check by monkeypatching)")
    d = copy_of(planted(tmp_path), tmp_path / "theirentry")
    (entry,) = (d / "code").iterdir()
    os.chown(entry, OTHER_UID, -1)
    with pytest.warns(UnsafeCacheWarning) as record:
        code = compile_in(d)
    assert run(code) == 7
    assert len(refused(record, f"entry {entry}: it is owned by uid {OTHER_UID}")) == 1
    assert os.lstat(entry).st_uid == os.geteuid()  # replaced by theon's own


def test_numba_cache_files_that_fail_the_check_are_removed(tmp_path):
    pytest.importorskip("numba", reason="numba's cache files need numba (theon[numba])")
    from theon.link.tier1.loops import NumbaLoopCompiler
    cache = DiskCache(tmp_path / "tier1", max_bytes=1 << 20, base=tmp_path)
    key = "nbloop_" + "0" * 40
    p = tmp_path / "tier1" / "numba" / f"{key}.py"
    assert cache.make_dirs(p.parent / "__pycache__")
    bad = p.parent / "__pycache__" / f"{key}.f-3.py311.nbi"
    bad.write_bytes(b"a pickle numba would load")
    os.chmod(bad, 0o666)
    good = p.parent / "__pycache__" / f"{key}.f-3.py311.1.nbc"
    good.write_bytes(b"machine code")
    os.chmod(good, 0o644)
    with pytest.warns(UnsafeCacheWarning) as record:
        assert NumbaLoopCompiler(cache)._numba_files_ok(cache, p, key)
    assert not bad.exists() and good.exists()
    assert len(refused(record, f"entry {bad}: it is writable by group and others")) == 1
    assert stat.S_IMODE(os.lstat(p.parent / "__pycache__").st_mode) == 0o700


def test_theon_cache_dir_set_to_a_world_writable_directory_warns(tmp_path):
    # the case, from the environment, in a new process: one warning naming the
    # directory; nothing written there; the function still computes
    d = tmp_path / "shared"
    d.mkdir()
    os.chmod(d, 0o777)
    script = textwrap.dedent("""
        import numpy as np, theon, theon.tensor as T
        x = T.dvector("x")
        f = theon.function([x], T.exp(x) * 2)
        g = theon.function([x], T.exp(x) * 3 + 1)
        print(*f(np.zeros(2)), *g(np.zeros(2)))
    """)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "THEON_CACHE_DIR": str(d),
           "THEON_FLAGS": "tier=0"}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["2.0", "2.0", "4.0", "4.0"]
    assert out.stderr.count("UnsafeCacheWarning") == 1, out.stderr
    assert f"the directory {d} is writable by group and others (mode 0777)" in out.stderr
    assert list(d.iterdir()) == []
