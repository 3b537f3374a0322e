"""The small C++ JSON reader behind gpus.json and ORIGAMI_NV_HW_PARAMS (exposed as _core.parse_json)."""
import json

import pytest

from origami_nv import _core


@pytest.mark.parametrize("text", [
    '{"a": 1, "b": [true, false, null], "c": {"d": "e"}}',
    '[-0.5, 1e3, 2E-2, 0, -12]',
    '"tab\\tnew\\nquote\\" backslash\\\\ slash\\/ unicode \\u00e9 \\u20ac"',
    '"surrogate pair \\ud83d\\ude00"',
    '  {"nested": [[[]], {}]}  ',
])
def test_matches_python_json(text):
    expect = json.loads(text)

    def floats(v):  # the C++ reader returns every number as a double
        if isinstance(v, bool) or v is None:
            return v
        if isinstance(v, (int, float)):
            return float(v)
        if isinstance(v, list):
            return [floats(x) for x in v]
        if isinstance(v, dict):
            return {k: floats(x) for k, x in v.items()}
        return v

    assert _core.parse_json(text) == floats(expect)


@pytest.mark.parametrize("text,phrase", [
    ('{"a": 1,}', "expected a string key"),
    ('{"a" 1}', "expected ':'"),
    ('[1 2]', "expected ',' or ']'"),
    ('{"a": 1, "a": 2}', "duplicate key"),
    ('"unterminated', "unterminated string"),
    ('01', "unexpected trailing"),
    ('1.', "digit expected"),
    ('tru', "invalid literal"),
    ('{"a": 1} x', "unexpected trailing"),
    ('"\\x"', "invalid escape"),
    ('"\\ud83d"', "unpaired surrogate"),
    ('1e999', "out of range"),
    ('', "unexpected end"),
])
def test_errors_say_what_and_where(text, phrase):
    with pytest.raises(ValueError) as e:
        _core.parse_json(text)
    assert phrase in str(e.value) and "line 1, column" in str(e.value)


def test_error_line_and_column():
    with pytest.raises(ValueError, match="line 3, column 8"):
        _core.parse_json('{\n  "a": 1,\n  "b": ?\n}')
