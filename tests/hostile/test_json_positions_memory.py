"""Memory of locating diagnostics in JSON (issue 31, item 5): a 4 MB description and
deep nesting cost memory linear in the input with a small constant.

The commands run in a fresh child of a fresh Python (its ``RUSAGE_CHILDREN`` peak is that
command's alone), against a baseline: the same command on the same tool with a short
description (the interpreter and plistspec's imports)."""

from __future__ import annotations

import json

import pytest
from hostile_cli import peak_run, traced_peak

from plistspec.core.jsonpos import pointer_spans

MB = 1_000_000


def peak_bytes(*args: str) -> tuple[int, str]:
    """Peak resident memory of ``plistspec ARGS...``, and its standard error."""
    peak, err, _ = peak_run(*args)
    return peak, err


def tools_json(description: str) -> str:
    """One OpenAI tool whose lowering for Gemini is reported (a ``default`` moved), so
    the diagnostic is placed in the text after the long description."""
    return json.dumps(
        [
            {
                "type": "function",
                "function": {
                    "name": "t",
                    "description": description,
                    "parameters": {
                        "type": "object",
                        "properties": {"a": {"type": "string", "default": "x"}},
                    },
                },
            }
        ]
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    "command", [["to-json", "--lower", "-t", "gemini"], ["from-json", "-t", "gemini"]]
)
def test_a_4mb_description_costs_under_10x_its_size(tmp_path, command):
    small, big = tmp_path / "small.json", tmp_path / "big.json"
    small.write_text(tools_json("d"))
    # a few escapes too: each is its own step of the string scan (the Elisp reader that
    # from-json -t reads its output back with keeps ~140 bytes per escape: not tested here)
    big.write_text(tools_json(("x" * 1000 + '\\"' + "\n") * (4 * MB // 1003)))
    size = big.stat().st_size
    assert size > 4 * MB
    base, _ = peak_bytes(*command, str(small))
    peak, err = peak_bytes(*command, str(big))
    assert "PS419" in err and ":1:" in err, err  # the diagnostic was placed: scan done
    assert peak - base <= 10 * size, (peak - base, size)


@pytest.mark.slow
@pytest.mark.parametrize("opening", ["[", '{"k":'])
def test_deep_nesting_costs_a_byte_or_so_a_level(opening):
    depth = 20_000
    closing = "]" if opening == "[" else "}"
    text = '{"a": 1, "deep": ' + opening * depth + "1" + closing * depth + ', "b": [1, 2]}'
    got: dict = {}
    peak = traced_peak(lambda: got.update(pointer_spans(text, ["/b/1", "/deep", "/a"])))
    assert text[slice(*got["/b/1"])] == "2"
    assert got["/deep"][0] == text.index(opening) and got["/deep"][1] == len(text) - 14
    assert peak <= 10 * depth, peak  # bytes per level; a frame per level took ~150


def test_a_long_string_with_many_escapes_costs_no_memory_per_character():
    text = '{"d": "' + "ab\\n" * 500_000 + '", "e": 7}'
    got: dict = {}
    peak = traced_peak(lambda: got.update(pointer_spans(text, ["/e"])))
    assert text[slice(*got["/e"])] == "7"
    assert peak <= 100_000, peak
