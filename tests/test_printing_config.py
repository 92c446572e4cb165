import io

import pytest

import theon
from theon.config import Config, change_flags, config, parse_flags

from .graph.toy import add, divmod_, ft, mul


def test_dprint_format_and_targets():
    x, y = ft("x"), ft("y")
    a = add(x, y)
    a.name = "a"
    z = mul(a, a)
    text = theon.dprint(z, file="str")
    assert text == (
        "mul [id A] ''\n"
        " |add [id B] 'a'\n"
        "   |x [id C]\n"
        "   |y [id D]\n"
        " |add [id B] 'a'\n"
    )
    buf = io.StringIO()
    theon.dprint([z, a], file=buf)
    assert buf.getvalue().count("[id B]") == 3
    assert theon.dprint(z.owner, file="str") == text
    f = theon.function([x, y], z)
    assert "mul [id A]" in theon.dprint(f, file="str")
    assert "mul [id A]" in theon.dprint(f.maker.fgraph, file="str")
    assert theon.dprint(z, file="str", depth=1) == "mul [id A] ''\n"
    assert "<FloatT>" in theon.dprint(z, file="str", print_type=True)
    q, r = divmod_(x, y)
    assert "DivMod.1 [id A]" in theon.dprint(r, file="str")
    with pytest.raises(TypeError, match="cannot print"):
        theon.dprint(3, file="str")


def test_config_flags_and_change_flags():
    assert parse_flags("floatX=float32,mode=FAST_COMPILE") == {
        "floatX": "float32", "mode": "FAST_COMPILE"}
    with pytest.raises(ValueError, match="unknown THEON_FLAGS entry 'bogus'"):
        parse_flags("bogus=1")
    with pytest.raises(ValueError, match="floatX"):
        parse_flags("floatX=int8")
    c = Config({"THEON_FLAGS": "floatX=float32,on_unused_input=warn"})
    assert c.floatX == "float32" and c.on_unused_input == "warn"
    old = config.floatX
    with change_flags(floatX="float32"):
        assert config.floatX == "float32"
        with theon.config.change_flags(floatX="float16"):
            assert config.floatX == "float16"
        assert config.floatX == "float32"
    assert config.floatX == old
    with pytest.raises(ValueError):
        config.floatX = "int8"
    with pytest.raises(AttributeError):
        config.nope  # noqa: B018
