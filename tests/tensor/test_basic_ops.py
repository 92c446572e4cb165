"""theon.tensor.basic_ops keeps re-exporting what moved to creation and joining."""

import pytest

import theon.tensor as tt
import theon.tensor.basic_ops as basic_ops
import theon.tensor.creation as creation
import theon.tensor.joining as joining
from theon.tensor.math import zeros_like


@pytest.mark.parametrize("name", basic_ops.__all__)
def test_old_import_path_is_the_same_object(name):
    home = creation if name in creation.__all__ else joining
    assert name in home.__all__
    assert getattr(basic_ops, name) is getattr(home, name)
    assert getattr(tt, name) is getattr(home, name)


def test_all_is_the_union_of_the_new_modules():
    assert sorted(basic_ops.__all__) == sorted(creation.__all__ + joining.__all__)
    assert basic_ops.zeros_like is zeros_like  # old callers imported it from here
