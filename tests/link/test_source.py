"""The code-object cache of generated Python (theon.link.source): memory and disk."""

from __future__ import annotations

import marshal

import numpy as np
import pytest

import theon
import theon.tensor as T
from theon.link import source

TEXT = "def f(x):\n    return x * 3 + 1\n"


@pytest.fixture
def disk(tmp_path):
    """A fresh cache directory and an empty memory cache (restored afterwards)."""
    source.clear_code_cache()
    with theon.config.change_flags(cache_dir=str(tmp_path), code_cache_mb=64.0):
        yield tmp_path / "code"
    source.clear_code_cache()


def run(code):
    ns: dict = {}
    exec(code, ns)
    return ns["f"](2)


def test_a_compiled_source_is_loaded_from_disk_by_the_next_process(disk, monkeypatch):
    first = source.compile_cached(TEXT, "t")
    files = list(disk.iterdir())
    assert len(files) == 1 and run(first) == 7
    source.clear_code_cache()  # as a new process: only the disk knows the code

    def no_compile(*args):
        raise AssertionError("compiled again instead of loaded")

    monkeypatch.setattr(source, "compile", no_compile, raising=False)
    again = source.compile_cached(TEXT, "t")
    assert again is not first and run(again) == 7
    assert again.co_filename == first.co_filename  # the name is the text's, not a counter


def test_a_corrupt_entry_is_compiled_again_and_replaced(disk):
    source.compile_cached(TEXT, "t")
    (entry,) = disk.iterdir()
    entry.write_bytes(entry.read_bytes()[:-5])  # truncated: the checksum fails
    source.clear_code_cache()
    assert run(source.compile_cached(TEXT, "t")) == 7
    (entry,) = disk.iterdir()
    source.clear_code_cache()
    assert run(source.compile_cached(TEXT, "t")) == 7


def test_a_checksummed_entry_that_is_not_code_is_ignored(disk):
    code = source.compile_cached(TEXT, "t")
    (entry,) = disk.iterdir()
    key = entry.stem
    source.clear_code_cache()
    source._disk_cache().put(key, marshal.dumps(("not", "code")))
    again = source.compile_cached(TEXT, "t")
    assert again.co_filename == code.co_filename and run(again) == 7


def test_each_text_has_its_own_entry(disk):
    a = source.compile_cached(TEXT, "t")
    c = source.compile_cached(TEXT.replace("3", "4"), "t")
    assert a.co_filename != c.co_filename
    assert len(list(disk.iterdir())) == 2
    assert (run(a), run(c)) == (7, 9)


def test_size_zero_switches_the_disk_cache_off(tmp_path):
    source.clear_code_cache()
    with theon.config.change_flags(cache_dir=str(tmp_path), code_cache_mb=0.0):
        assert run(source.compile_cached(TEXT, "t")) == 7
    assert not (tmp_path / "code").exists()
    source.clear_code_cache()


def test_functions_run_the_same_from_cached_code(disk):
    """A compiled function whose generated code comes from disk computes what NumPy does."""
    x = T.dvector("x")
    out = T.exp(x) * 2 + T.sin(x) ** 2
    v = np.linspace(-2, 2, 7)
    ref = np.exp(v) * 2 + np.sin(v) ** 2
    np.testing.assert_allclose(theon.function([x], out)(v), ref, rtol=1e-13)
    n_files = len(list(disk.iterdir()))
    assert n_files >= 1
    source.clear_code_cache()
    np.testing.assert_allclose(theon.function([x], out)(v), ref, rtol=1e-13)
    assert len(list(disk.iterdir())) == n_files  # nothing new was compiled


def test_tracebacks_show_generated_lines_loaded_from_disk(disk):
    import linecache

    source.compile_cached(TEXT, "t")
    source.clear_code_cache()
    code = source.compile_cached(TEXT, "t")
    assert linecache.getline(code.co_filename, 2).strip() == "return x * 3 + 1"
