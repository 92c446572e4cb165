"""Theano 0.8's ``theano.sandbox.cuda`` (imported by Lasagne 0.1's GPU layers): the same
stand-in as ``theano.gpuarray``, so a CPU program takes its CPU path."""

import pytest

from theon.compat.theano_gpuarray import NoGPUBackendError


def test_sandbox_cuda_says_there_is_no_gpu_backend() -> None:
    from theon.sandbox.cuda import dnn
    from theon.sandbox.cuda.basic_ops import gpu_contiguous
    from theon.sandbox.cuda.blas import GpuCorrMM

    assert dnn.dnn_available() is False
    with pytest.raises(NoGPUBackendError, match='mode="JAX"'):
        gpu_contiguous(1)
    with pytest.raises(NoGPUBackendError, match="GpuCorrMM"):
        GpuCorrMM()
    assert not isinstance(1, GpuCorrMM)


def test_scan_utils_equal_computations() -> None:
    import theon.tensor as T
    from theon.scan_module.scan_utils import equal_computations

    x = T.dvector("x")
    assert equal_computations([x + 1], [x + 1])
    assert not equal_computations([x + 1], [x + 2])
