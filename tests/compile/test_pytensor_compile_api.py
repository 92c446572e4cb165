"""PyTensor's compile and printing names from issue 31's list: where PyTensor programs
(and PyMC) import them, written as PyTensor's documentation writes them."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import theon
import theon.tensor as tt
from theon.graph.basic import Constant
from theon.graph.type import Type


class StringType(Type):
    """PyMC's string type (pymc.pytensorf), registered the way PyMC registers it."""

    def filter(self, x, strict=False, allow_downcast=None):
        if isinstance(x, str):
            return x
        raise TypeError("expected a string")

    def __eq__(self, other):
        return type(self) is type(other)

    def __hash__(self):
        return hash(type(self))


stringtype = StringType()


class StringConstant(Constant):
    pass


@theon._as_symbolic.register(str)
def as_symbolic_string(x, **kwargs):
    return StringConstant(stringtype, x)


def test_as_symbolic_dispatches_on_the_class():
    s = theon.as_symbolic("abc", name="s")
    assert isinstance(s, StringConstant) and s.data == "abc" and s.name == "s"
    c = theon.as_symbolic(np.arange(3.0))
    np.testing.assert_array_equal(c.eval(), np.arange(3.0))
    x = tt.dvector("x")
    assert theon.as_symbolic(x) is x
    with pytest.raises(TypeError):
        theon.as_symbolic(object())


def test_function_dprint_prints_the_compiled_graph(capsys):
    x = tt.dvector("x")
    f = theon.function([x], tt.exp(x) * 2)
    text = f.dprint(file="str")
    assert text == theon.dprint(f, file="str") and "exp" in text
    assert f.dprint() is f
    assert capsys.readouterr().out == text


def test_unused_input_error_and_default_mode():
    from theon.compile import UnusedInputError, get_default_mode, get_mode

    x, y = tt.dscalars("x", "y")
    with pytest.raises(UnusedInputError, match="y"):
        theon.function([x, y], x * 2)
    f = theon.function([x, y], x * 2, on_unused_input="ignore")
    assert f(2.0, 5.0) == 4.0
    assert get_default_mode().optimizer == get_mode(None).optimizer
    assert get_mode("Mode").optimizer == "fast_run"  # PyTensor's and Theano's default name


def test_pytensor_3_compile_paths():
    import theon.compile.debug as debug
    import theon.compile.maker as maker
    from theon.compile import DebugMode, MonitorMode, NanGuardMode
    from theon.compile.debug.monitormode import MonitorMode as M
    from theon.compile.executor import Function

    assert debug.MonitorMode is MonitorMode is M
    assert debug.DebugMode is DebugMode and debug.NanGuardMode is NanGuardMode
    assert maker.function is theon.function and maker.FunctionMaker is not None
    assert maker.UnusedInputError is theon.compile.UnusedInputError
    assert Function is theon.compile.Function


def test_the_names_through_the_pytensor_alias():
    code = textwrap.dedent("""
        import theon.compat; theon.compat.alias("pytensor")
        import numpy as np, pytensor, pytensor.tensor as pt
        from pytensor.link.numba import NumbaLinker
        from pytensor.compile.mode import get_default_mode
        from pytensor.compile import MonitorMode, UnusedInputError
        from pytensor.printing import Print
        from pytensor.configdefaults import config
        assert not isinstance(get_default_mode().linker, NumbaLinker)  # pymc.testing
        assert config is pytensor.config
        pytensor.config.gcc__cxxflags = pytensor.config.gcc__cxxflags + " -O3"
        x = pt.dvector("x")
        f = pytensor.function([x], Print("x")(x) + 1, mode=MonitorMode())
        print(f(np.array([1.0])).tolist())
        print(pytensor.map(lambda v: v * 2, sequences=[x], return_updates=False)
              .eval({x: np.array([1.0, 2.0])}).tolist())
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["x __str__ = [1.]", "[2.0]", "[2.0, 4.0]"]
