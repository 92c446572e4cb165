"""Theano's ``theano.gpuarray`` (and its ``dnn``, ``type`` and ``basic_ops``): the GPU
backend theon does not have.

Programs test ``pygpu_activated`` (``False`` here) or ``dnn.dnn_available()``
(``False``) and take their CPU path.  Using a GPU-only name (``GpuArrayType``,
``gpu_contiguous``, ``use("cuda")``, ...) raises :class:`NoGPUBackendError`, which
says to compile with ``mode="JAX"`` instead: theon runs on a GPU through jax.

>>> import theon.gpuarray as gpuarray
>>> gpuarray.pygpu_activated, gpuarray.dnn.dnn_available()
(False, False)
>>> gpuarray.gpu_contiguous(1)  # doctest: +ELLIPSIS +IGNORE_EXCEPTION_DETAIL
Traceback (most recent call last):
NoGPUBackendError: theano.gpuarray.gpu_contiguous: ... mode="JAX" ...
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["NoGPUBackendError", "dnn_available", "dnn_present", "move_to_gpu", "pygpu",
           "pygpu_activated"]

#: a package, so that ``theano.gpuarray.dnn`` and its neighbours (table entries) import
__path__: list[str] = []

#: Theano's flag: whether libgpuarray's ``pygpu`` was found and initialised
pygpu_activated = False
#: the ``pygpu`` module, which theon never imports
pygpu = None

#: submodules of Theano's ``gpuarray``: each is this module
_SUBMODULES = frozenset({"dnn", "type", "basic_ops", "opt", "elemwise", "subtensor"})

#: Theano's GPU-only names: classes (nothing is an instance of them) and functions
_GPU_CLASSES = (
    "GpuArrayType", "GpuArrayVariable", "GpuArrayConstant", "GpuArraySharedVariable",
    "GpuContextType", "GpuFromHost", "HostFromGpu", "GpuToGpu", "GpuAlloc", "GpuAllocEmpty",
    "GpuContiguous", "GpuReshape", "GpuJoin", "GpuEye", "GpuElemwise", "GpuDimShuffle",
    "GpuCAReduceCuda", "GpuDnnConv", "GpuDnnPool", "GpuDnnSoftmax", "GpuKernelBase",
    # Theano 0.8's sandbox.cuda (the same stand-in: theon.compat.table)
    "GpuCorrMM", "GpuCorr3dMM", "CudaNdarrayType", "CudaNdarraySharedVariable",
)
_GPU_FUNCTIONS = (
    "use", "init_dev", "get_context", "reg_context", "list_contexts", "as_gpuarray_variable",
    "gpuarray_shared_constructor", "gpu_contiguous", "host_from_gpu", "gpu_alloc_empty",
    "infer_context_name", "dnn_conv", "dnn_conv3d", "dnn_pool", "dnn_batch_normalization_train",
    "dnn_batch_normalization_test", "dnn_version",
)


class NoGPUBackendError(NotImplementedError):
    """A name of Theano's GPU backend was used: theon has none (use ``mode="JAX"``)."""


def _message(name: str) -> str:
    return (f"theano.gpuarray.{name}: theon has no GPU backend of Theano's kind "
            "(libgpuarray, cuDNN); compile with mode=\"JAX\" (theon.function(..., "
            "mode=\"JAX\") or THEON_FLAGS=mode=JAX) to run on a GPU through jax")


class _GPUOnlyMeta(type):
    """Instantiating a GPU-only class raises; ``isinstance`` is simply ``False``."""

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        raise NoGPUBackendError(_message(cls.__name__))


def _gpu_function(name: str) -> Any:
    def gpu_only(*args: Any, **kwargs: Any) -> Any:
        raise NoGPUBackendError(_message(name))

    gpu_only.__name__ = gpu_only.__qualname__ = name
    gpu_only.__doc__ = f"Theano's GPU-only ``{name}``: raises :class:`NoGPUBackendError`."
    return gpu_only


class _DnnAvailable:
    """Whether cuDNN can be used: never (Theano's ``dnn.dnn_available``, whose ``msg``
    says why)."""

    msg = "theon has no cuDNN backend; mode=\"JAX\" runs on jax's GPU"

    def __call__(self, context_name: Any = None) -> bool:
        return False


dnn_available = _DnnAvailable()


def dnn_present() -> bool:
    """Whether cuDNN is installed for Theano's GPU backend: never."""
    return False


def move_to_gpu(data: Any) -> bool:
    """Whether Theano would move ``data`` to the GPU: never."""
    return False


_NAMES: dict[str, Any] = {n: _GPUOnlyMeta(n, (), {"__module__": __name__}) for n in _GPU_CLASSES}
_NAMES.update({n: _gpu_function(n) for n in _GPU_FUNCTIONS})


def __getattr__(name: str) -> Any:
    """A submodule of Theano's ``gpuarray`` is this module; a GPU-only name is a stub that
    raises when used; any other name is an ``AttributeError`` pointing to ``mode="JAX"``."""
    if name in _SUBMODULES:
        return sys.modules[__name__]
    if name in _NAMES:
        return _NAMES[name]
    if name.startswith("__"):
        raise AttributeError(name)
    raise AttributeError(_message(name))
