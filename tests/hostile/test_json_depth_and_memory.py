"""Issue 31, item 5: JSON nested more than 10 000 levels is refused where it is read
(PS527, at the bracket that opens level 10 001, in memory bounded by the limit), and the
peak memory of ``from-json -t`` and ``to-json --lower -t`` stays under 10 times the input
above the command's own baseline, for long plain strings, strings full of escapes and
deep nesting, JSON and Elisp alike.

The CLI measures run each command in a fresh child of a fresh Python (its
``RUSAGE_CHILDREN`` peak is that command's alone), against the same command on a short
input of the same shape (the interpreter and plistspec's imports)."""

from __future__ import annotations

import functools
import json

import pytest
from hostile_cli import assert_no_traceback, peak_run, run, traced_peak

from plistspec.calls.elements import split_array
from plistspec.calls.toolset import Toolsets
from plistspec.core.jsontext import MAX_DEPTH, JsonError, decode_at, load_json
from plistspec.elisp.escapes import unescape_string
from plistspec.elisp.reader import read_all

MB = 1_000_000

FROM_JSON = ("from-json", "-t", "openai")
LOWER = ("to-json", "--lower", "-t", "openai")


# --- the depth limit ---------------------------------------------------------------


@pytest.mark.parametrize("opening", ["[", '{"k":'])
def test_json_at_the_limit_is_read_and_one_level_more_is_refused_at_its_bracket(opening):
    closing = "]" if opening == "[" else "}"
    ok = opening * MAX_DEPTH + "1" + closing * MAX_DEPTH
    v, _ = load_json(ok)
    for _ in range(MAX_DEPTH):
        v = v[0] if opening == "[" else v["k"]
    assert v == 1
    for deeper in (
        opening * (MAX_DEPTH + 1) + "1" + closing * (MAX_DEPTH + 1),
        opening * MAX_DEPTH + "[]" + closing * MAX_DEPTH,  # an empty one is a level too
        opening * MAX_DEPTH + "{}" + closing * MAX_DEPTH,
    ):
        with pytest.raises(JsonError) as e:
            load_json(deeper)
        assert e.value.too_deep and e.value.pos == len(opening) * MAX_DEPTH
        assert e.value.diagnostic()[0] == "PS527"
        with pytest.raises(JsonError) as e:
            decode_at(" " + deeper, 1)
        assert e.value.too_deep and e.value.pos == 1 + len(opening) * MAX_DEPTH
    with pytest.raises(JsonError) as e:
        load_json("[" * 3000 + "1," + "]" * 3000)  # invalid, not too deep: PS500
    assert not e.value.too_deep and e.value.diagnostic()[0] == "PS500"


_EMACS_DEPTHS = r"""
(unless (and (fboundp 'json-available-p) (json-available-p)) (princ "no-json\n"))
(princ (format "major %d\n" emacs-major-version))
(dolist (n (list DEPTH (1+ DEPTH)))
  (dolist (open '("[" "{\"k\":"))
    (princ (format "%d %s %s\n" n open
                   (condition-case e
                       (progn
                         (json-parse-string
                          (concat (apply #'concat (make-list n open)) "1"
                                  (make-string n (if (equal open "[") ?\] ?}))))
                         "ok")
                     (error (car e)))))))
"""


def test_the_limit_is_emacs_30s_json_parse_string(emacs):
    """Emacs refuses what plistspec refuses (28.2 from about 1 600 levels, 30.1 from
    10 001: json.c); Emacs 30 reads what plistspec reads at the limit."""
    out = emacs.run(_EMACS_DEPTHS.replace("DEPTH", str(MAX_DEPTH)))
    if "no-json" in out:
        pytest.skip("this Emacs was built without native JSON: json-parse-string is absent")
    lines = out.splitlines()
    major = int(lines[0].split()[1])
    got = {tuple(line.split()[:2]): line.split()[2] for line in lines[1:]}
    for opening in ("[", '{"k":'):
        assert got[(str(MAX_DEPTH + 1), opening)] != "ok", out
        assert (got[(str(MAX_DEPTH), opening)] == "ok") == (major >= 30), out


def test_a_megabyte_of_brackets_is_refused_in_memory_bounded_by_the_limit():
    text = "[" * 500_000 + "]" * 500_000
    raised: list[JsonError] = []

    def read() -> None:
        try:
            load_json(text)
        except JsonError as e:
            raised.append(e)

    peak = traced_peak(read)
    assert raised and raised[0].too_deep and raised[0].pos == MAX_DEPTH
    assert peak <= 200 * MAX_DEPTH, peak  # 10 000 open lists, never 500 000


def test_check_server_reads_deep_elements_and_refuses_too_deep_ones():
    deep = '{"items":' * 3000 + '{"type":"string"}' + "}" * 3000
    text = f"[{deep}, 1]"
    elements, end = split_array(text)  # past the C decoder's depth: the iterative parser
    assert end == len(text) and [t for t, _ in elements] == [deep, "1"]
    inner = elements[0][1]
    for _ in range(3000):
        inner = inner["items"]
    assert inner == {"type": "string"}
    too = '{"items":' * MAX_DEPTH + "{}" + "}" * MAX_DEPTH
    for tools, contracts in (
        (f'[{{"type":"function","function":{too}}}]', None),
        ('[{"type":"function","function":{"name":"t","parameters":{}}}]', f"[{too}]"),
    ):
        with pytest.raises(ValueError, match="nested more than 10000 levels"):
            Toolsets().lower("openai", tools, contracts=contracts)


def test_json_past_the_limit_is_still_json_to_check_and_to_json(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))
    r = run("to-json", "-t", "openai", str(path))
    assert_no_traceback(r)
    assert r.returncode == 1 and r.stdout == b""
    assert b"error: this is JSON, not Emacs Lisp" in r.stderr and b"[PS512]" in r.stderr
    r = run("check", str(path))
    assert_no_traceback(r)
    assert b"warning: this is JSON, not Emacs Lisp" in r.stdout and b"[PS512]" in r.stdout
    r = run("from-json", str(path))
    assert r.returncode == 1 and r.stdout == b""
    assert r.stderr.startswith(f"{path}:1:{MAX_DEPTH + 1}: error: JSON nested".encode())


# --- escapes -----------------------------------------------------------------------


def test_unescaping_a_string_full_of_escapes_costs_about_its_size():
    body = 'a\\n\\"\\\\' * 250_000  # 2 MB, 750 000 escapes
    got: list[str] = []
    peak = traced_peak(lambda: got.append(unescape_string(body, body, 0)))
    assert got[0] == 'a\n"\\' * 250_000
    # splitting the whole body at every backslash kept ~50 bytes an escape (37 MB here)
    assert peak <= 3 * len(body), peak


def test_unescaping_in_windows_cuts_no_escape(monkeypatch):
    import plistspec.elisp.escapes as escapes

    body = 'x\\\\\\n\\\\\\"ab\\ncd\\\\\\\\' * 7
    want = unescape_string(body, body, 0)
    assert want == 'x\\\n\\"ab\ncd\\\\' * 7
    for window in range(1, 12):
        monkeypatch.setattr(escapes, "_WINDOW", window)
        assert unescape_string(body, body, 0) == want, window
    (d,) = read_all('"' + body + '\\x41"')  # a longer escape: the full reader, same value
    assert d.value == want + "A"


# --- peak memory of the commands -------------------------------------------------------


def _tools_list(description: str, schema: str = '{"type":"string"}') -> str:
    return (
        '{"tools":[{"name":"t","description":'
        + json.dumps(description)
        + ',"inputSchema":{"type":"object","properties":{"x":'
        + schema
        + "}}}]}"
    )


def _elisp(description_literal: str) -> str:
    return (
        ";;; t.el --- t  -*- lexical-binding: t; -*-\n"
        '(gptel-make-tool :name "t" :function #\'ignore :description '
        + description_literal
        + ' :args (list \'(:name "x" :type string :description "x")))\n'
    )


# each case: (file name, its text, what the command must say; None: nothing but success)
CASES = {
    "plain": ("plain.json", lambda: _tools_list("a" * (4 * MB)), None),
    "escapes": ("escapes.json", lambda: _tools_list('a\n"\\' * (MB * 4 // 7)), None),
    "brackets": ("brackets.json", lambda: "[" * (MB // 2) + "]" * (MB // 2), "PS527"),
    "items": (
        "items.json",
        lambda: _tools_list("d", '{"items":' * 100_000 + "{}" + "}" * 100_000),
        "PS527",
    ),
    "elisp-escapes": (
        "escapes.el",
        lambda: _elisp('"' + 'a\\n\\"\\\\' * (MB * 4 // 7) + '"'),
        None,
    ),
}
SMALL = {".json": _tools_list("d"), ".el": _elisp('"d"')}


@functools.cache
def _baseline(command: tuple[str, ...], suffix: str, tmp: str) -> int:
    import os

    path = os.path.join(tmp, "small" + suffix)
    with open(path, "w", encoding="utf-8") as f:
        f.write(SMALL[suffix])
    peak, err, rc = peak_run(*command, path)
    assert rc == 0, err
    return peak


@pytest.mark.slow
@pytest.mark.parametrize(
    ("command", "case"),
    [
        (command, case)
        for command in (FROM_JSON, LOWER)
        for case in CASES
        if not (command is FROM_JSON and case.startswith("elisp"))
    ],
    ids=lambda v: v if isinstance(v, str) else v[0],
)
def test_peak_memory_stays_under_10x_the_input(tmp_path_factory, command, case):
    name, make, code = CASES[case]
    path = tmp_path_factory.mktemp("mem") / name
    path.write_text(make(), encoding="utf-8")
    size = path.stat().st_size
    assert size >= MB
    base = _baseline(command, path.suffix, str(tmp_path_factory.getbasetemp()))
    peak, err, rc = peak_run(*command, str(path))
    assert "Traceback" not in err
    if code is None:
        assert rc == 0 and " error: " not in err, err[-500:]
    else:
        assert rc == 1 and f"[{code}]" in err, err[-500:]
        assert err.startswith(f"{path}:1:"), err[:300]
    assert peak - base <= 10 * size, (peak - base, size)
