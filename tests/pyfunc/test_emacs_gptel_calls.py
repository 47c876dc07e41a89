"""End to end through the REAL gptel's calling path: ``plistspec from-py`` writes tools.el, real
Emacs loads the real gptel 0.9.9.5 and that file, and each tool is called by gptel itself: a
canned OpenAI Chat Completions response and an Anthropic Messages response (whose
non-streaming parser hands explicit nulls as ``:null``, not ``nil``) are parsed by gptel's
own ``gptel--parse-response``, then ``gptel--handle-tool-use`` runs the tool
(``tests/pyfunc/drive_libraries.el``; every transport and llm are in test_real_libraries.py).

Every result is compared with calling the Python function directly.
"""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
from pathlib import Path

import pytest
from responses import response

from plistspec.elisp.printer import print_string
from plistspec.pyfunc.convert import format_result
from support import ROOT, elisp_deps_preamble

FIXTURE_DIR = ROOT / "fixtures" / "python"

DRIVER = Path(__file__).with_name("drive_libraries.el")


@pytest.fixture(scope="module")
def mod():
    sys.path.insert(0, str(FIXTURE_DIR))
    try:
        import pytools_more

        yield pytools_more
    finally:
        sys.path.remove(str(FIXTURE_DIR))


TARGETS = [
    "pytools_more:paint",
    "pytools_more:place_order",
    "pytools_more:route",
    "pytools_more:shapes",
    "pytools_more:schedule",
    "pytools_more:ping",
    "pytools_more:register",
    "pytools_more:mapping",
    "pytools_more:numbers",
    "pytools_more:explode",
    "pytools_more:counter.bump",
    "pytools_more:Counter.make_label",
    "pytools_more:fetch",
]


def cases(m):
    """(tool, the model's JSON arguments, what calling the Python function directly gives)."""
    return [
        ("paint", '{"color": "green"}', m.paint(m.Color.GREEN)),
        (
            "paint",
            '{"color": "red", "level": 2, "finish": "gloss"}',
            m.paint(m.Color.RED, m.Level.HIGH, "gloss"),
        ),
        (
            "place_order",
            '{"order": {"customer": {"name": "Zoë", "vip": false},'
            ' "lines": [{"sku": "a-1", "qty": 2}, {"sku": "日本"}], "express": false,'
            ' "note": null}, "dry_run": false}',
            m.place_order(
                m.Order(m.Customer("Zoë", False), [m.Line("a-1", 2), m.Line("日本")], False),
                False,
            ),
        ),
        (
            "place_order",
            '{"order": {"customer": {"name": "Bo"}, "lines": []}}',
            m.place_order(m.Order(m.Customer("Bo"), [])),
        ),
        (
            "route",
            '{"stops": [{"lat": 1.5, "lon": 2}, {"lat": 0, "lon": -1.25, "name": "end"}],'
            ' "opts": {"avoid_tolls": false, "mode": "bike"}}',
            m.route(
                [{"lat": 1.5, "lon": 2.0}, {"lat": 0.0, "lon": -1.25, "name": "end"}],
                {"avoid_tolls": False, "mode": "bike"},
            ),
        ),
        (
            "route",
            '{"stops": [], "opts": {}}',
            m.route([], {}),
        ),
        (
            "shapes",
            '{"pair": [3, "x"], "coords": [1, 2.5], "tags": ["b", "a"], "ids": [2, 1]}',
            m.shapes((3, "x"), (1.0, 2.5), {"a", "b"}, frozenset({1, 2})),
        ),
        (
            "schedule",
            '{"when": "2024-05-06T07:08:09+02:00", "day": "2024-05-06", "at": "10:30:00",'
            ' "length": "PT1H30M"}',
            m.schedule(
                dt.datetime(2024, 5, 6, 7, 8, 9, tzinfo=dt.timezone(dt.timedelta(hours=2))),
                dt.date(2024, 5, 6),
                dt.time(10, 30),
                dt.timedelta(hours=1, minutes=30),
            ),
        ),
        ("ping", "{}", m.ping()),
        (
            "register",
            '{"user": {"name": "ann", "age": null, "admin": false}, "groups": []}',
            m.register(m.User(name="ann", age=None, admin=False), []),
        ),
        (
            "mapping",
            '{"scores": {"a": 1, "b c": 2}, "label": "L", "extra": {"k": "v"}}',
            m.mapping({"a": 1, "b c": 2}, "L", {"k": "v"}),
        ),
        ("mapping", '{"scores": {}, "label": null}', m.mapping({}, None)),
        (
            "numbers",
            '{"ratio": 2, "count": 3, "on": false}',
            format_result(m.numbers(2.0, 3, False)),
        ),
        ("explode", '{"reason": "ça"}', "Error: explode() raised RuntimeError: exploded: ça"),
        (
            "numbers",
            '{"ratio": "high", "count": 3, "on": true}',
            "Error: invalid arguments for numbers(): 'ratio': 'high' is not of type 'number'",
        ),
        ("bump", '{"by": 5}', "15"),
        ("make_label", '{"prefix": "p"}', m.Counter.make_label("p")),
        ("fetch", '{"url": "http://x/ü", "retries": 2}', "http://x/ü#2"),
    ]


def _generate(tmp_path, *extra):
    out = tmp_path / "tools.el"
    proc = subprocess.run(
        [sys.executable, "-m", "plistspec", "from-py", *TARGETS, "-o", str(out), *extra],
        cwd=FIXTURE_DIR,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return out


def _program(deps, path, runs):
    """``runs``: (transport, tool, JSON arguments) for each call, in order."""
    vec = " ".join(
        "(vector "
        + " ".join(print_string(x) for x in ("gptel", t, name, response("gptel", t, name, args)))
        + ")"
        for t, name, args in runs
    )
    return (
        elisp_deps_preamble(deps)
        + f"(load {print_string(str(DRIVER))} nil t)\n"
        + f"(ps-load-tools {print_string(str(path))})\n"
        # Emacs 30's json-serialize returns unibyte UTF-8: decoded, it prints as on 28
        + "(princ (decode-coding-string (json-serialize (vconcat (mapcar (lambda (tool)"
        " (vector (gptel-tool-name tool)"
        " (if (gptel-tool-async tool) t :json-false) (length (gptel-tool-args tool))))"
        " ps-tools)) :false-object :json-false) 'utf-8))\n(terpri)\n"
        + f"(ps-run-all (vector {vec}))\n"
    )


@pytest.mark.slow
@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
def test_gptel_calls_every_kind_of_argument(emacs, elisp_deps_dir, tmp_path, mod, is_async):
    path = _generate(tmp_path, *(["--async"] if is_async else []))
    calls = cases(mod)
    runs = [("openai", name, text, want) for name, text, want in calls]
    # explicit nulls arrive as :null from gptel's Anthropic non-streaming parser
    runs += [("anthropic", name, text, want) for name, text, want in calls if "null" in text]
    out = emacs.run(_program(elisp_deps_dir, path, [r[:3] for r in runs]), timeout=600)
    shapes_line, results_line = out.split("\n", 1)
    results, shapes = json.loads(results_line), json.loads(shapes_line)
    for run, got in zip(runs, results, strict=True):
        assert got == run[3], run[:3]
    by_name = {name: (a, nargs) for name, a, nargs in shapes}
    assert by_name["ping"] == (is_async, 0)
    assert by_name["bump"][1] == 1 and by_name["paint"][1] == 3
    assert all(a is is_async for a, _ in by_name.values())
