"""Theano's ``theano.gpuarray`` and ``theano.misc.pkl_utils`` under theon (issue 32
item 4)."""

from __future__ import annotations

import io
import pickle
import zipfile

import numpy as np
import pytest

import theon
import theon.tensor as T


# ---------------------------------------------------------------------------- gpuarray
def test_gpuarray_says_there_is_no_gpu_backend() -> None:
    import theon.gpuarray
    import theon.gpuarray.dnn as dnn
    from theon.gpuarray import pygpu_activated
    from theon.gpuarray.type import GpuArrayType

    assert theon.gpuarray.pygpu_activated is False is pygpu_activated
    assert theon.gpuarray.pygpu is None
    assert dnn.dnn_available() is False and "JAX" in dnn.dnn_available.msg
    assert not isinstance(T.dvector("x").type, GpuArrayType)  # nothing is a GPU type


@pytest.mark.parametrize("use", [
    lambda g: g.GpuArrayType("float32", (False,)),
    lambda g: g.use("cuda0"),
    lambda g: g.basic_ops.gpu_contiguous(T.dvector()),
    lambda g: g.dnn.dnn_conv(T.dtensor4(), T.dtensor4()),
])
def test_a_gpu_only_name_is_a_clear_error_pointing_to_jax(use: object) -> None:
    import theon.gpuarray as g

    with pytest.raises(g.NoGPUBackendError, match=r'theano\.gpuarray\.\w+: .*mode="JAX"'):
        use(g)  # type: ignore[operator]


def test_an_unknown_gpuarray_name_is_an_attribute_error_pointing_to_jax() -> None:
    import theon.gpuarray as g

    with pytest.raises(AttributeError, match=r'theano\.gpuarray\.GpuNoSuchThing: .*mode="JAX"'):
        g.GpuNoSuchThing  # noqa: B018
    assert not hasattr(g, "GpuNoSuchThing")
    assert theon.gpuarray is g  # reachable as an attribute too


# ---------------------------------------------------------------------------- pkl_utils
def test_dump_and_load_shared_variables_name_their_arrays() -> None:
    from theon.misc.pkl_utils import dump, load

    W = theon.shared(np.arange(6.0).reshape(2, 3), name="W")
    W2 = theon.shared(np.ones(2, dtype="float32"), name="W")
    b = theon.shared(np.array([5, 7]))
    f = io.BytesIO()
    dump({"params": [W, W2, b], "note": "x"}, f)
    f.seek(0)
    names = sorted(zipfile.ZipFile(f).namelist())
    assert names == ["W", "W_2", "array_0", "pkl"]
    f.seek(0)
    np.testing.assert_array_equal(np.load(zipfile.ZipFile(f).open("W")), W.get_value())
    f.seek(0)
    got = load(f)
    assert got["note"] == "x"
    for old, new in zip([W, W2, b], got["params"]):
        assert new.name == old.name and new.type == old.type
        np.testing.assert_array_equal(new.get_value(), old.get_value())
        assert new.get_value().dtype == old.get_value().dtype


def test_dump_and_load_a_compiled_function() -> None:
    from theon.misc.pkl_utils import dump, load

    x = T.dvector("x")
    w = theon.shared(np.array([1.0, 2.0]), name="w")
    acc = theon.shared(np.float64(0.0), name="acc")
    f = theon.function([x], [(w * x).sum(), acc], updates=[(acc, acc + x.sum())])
    f(np.array([1.0, 1.0]))  # acc is 2 now
    buf = io.BytesIO()
    dump(f, buf)
    buf.seek(0)
    assert {"w", "pkl"} <= set(zipfile.ZipFile(buf).namelist())
    buf.seek(0)
    g = load(buf)
    for fn in (f, g):  # the loaded function carries on from the state it was saved in
        out, before = fn(np.array([3.0, 4.0]))
        assert (float(out), float(before)) == (11.0, 2.0)
        assert float(fn(np.array([0.0, 0.0]))[1]) == 9.0


def test_dump_options() -> None:
    from theon.misc.pkl_utils import PersistentNdarrayID, PersistentSharedVariableID, dump

    W = theon.shared(np.ones(2), name="W")
    W2 = theon.shared(np.zeros(2), name="W")
    with pytest.raises(ValueError, match="two shared variables are named 'W'"):
        dump([W, W2], io.BytesIO(),
             persistent_id=lambda z: PersistentSharedVariableID(z, allow_duplicates=False))
    with pytest.raises(ValueError, match="has no name"):
        dump([theon.shared(np.ones(1))], io.BytesIO(),
             persistent_id=lambda z: PersistentSharedVariableID(z, allow_unnamed=False))
    f = io.BytesIO()
    dump([W, W2], f, persistent_id=PersistentNdarrayID)
    assert sorted(zipfile.ZipFile(f).namelist()) == ["array_0", "array_1", "pkl"]


def test_strip_pickler_leaves_the_traces_out_and_the_graph_alone() -> None:
    from theon.misc.pkl_utils import StripPickler

    x = T.dvector("x")
    s = theon.shared(np.ones(2), name="s")
    y = (x * s).sum()
    y.tag.note = "kept"
    y.tag.secret = "dropped"
    assert hasattr(y.tag, "trace") and hasattr(s.tag, "trace")
    buf = io.BytesIO()
    StripPickler(buf, protocol=pickle.HIGHEST_PROTOCOL, extra_tag_to_remove=["secret"]).dump(
        [y, s])
    y2, s2 = pickle.loads(buf.getvalue())
    assert not hasattr(y2.tag, "trace") and not hasattr(s2.tag, "trace")
    assert y2.tag.note == "kept" and not hasattr(y2.tag, "secret")
    assert hasattr(y.tag, "trace") and y.tag.secret == "dropped"  # the graph is unchanged
    assert b"test_theano_gpuarray_pkl_utils" not in buf.getvalue()
    (x2,) = [v for v in theon.graph.traversal.graph_inputs([y2]) if v.name == "x"]
    assert float(y2.eval({x2: np.array([1.0, 2.0])})) == 3.0
