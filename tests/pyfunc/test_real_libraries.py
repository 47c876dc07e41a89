"""Generated tools called through the REAL gptel 0.9.9.5 and llm 0.31.1, on every transport.

``plistspec from-py`` writes the tools file for ``fixtures/python/pyvalues.py``; real Emacs
loads the real libraries and that file; a canned provider response (``responses.py``) is
parsed by the library's own parser for each transport and the library's own tool-execution
code calls the generated ``:function`` (``drive_libraries.el``). Every result must equal
calling the Python function directly with the values the model sent: ``false``, explicit
``null``, omitted optionals, ``[]``, ``{}``, unicode, nested objects and arrays.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from responses import GPTEL_TRANSPORTS, LLM_TRANSPORTS, response

from plistspec.elisp.printer import print_string
from plistspec.pyfunc.convert import format_result
from support import ROOT, elisp_deps_preamble

FIXTURE_DIR = ROOT / "fixtures" / "python"
DRIVER = Path(__file__).with_name("drive_libraries.el")

# real Emacs running the real libraries (or every ERT test of the package): seconds each
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def pv():
    sys.path.insert(0, str(FIXTURE_DIR))
    try:
        import pyvalues

        yield pyvalues
    finally:
        sys.path.remove(str(FIXTURE_DIR))


def cases(m):
    """(tool, the model's JSON arguments, the direct Python result, libraries it applies to).

    Omitting ``flag`` is left to gptel: under llm ``flag`` is required (PS614), since llm hands
    the tool nil for false and for an omitted argument alike."""
    both = ("gptel", "llm")
    cfg = m.Config(
        m.Inner("x", False, None),
        [m.Inner("y", False), m.Inner("z")],
        [True, False, False],
        {"a": [], "s": "t", "n": 1},
        None,
    )
    return [
        ("flag", '{"flag": false}', m.flag(False), both),
        ("flag", '{"flag": true}', m.flag(True), both),
        ("flag", "{}", m.flag(), ("gptel",)),
        ("listing", '{"directory": null}', m.listing(None), both),
        ("listing", "{}", m.listing(), both),
        # null for an argument that cannot be null: its default, as gptel's nil for it gives
        ("listing", '{"depth": null, "hidden": null}', m.listing(), both),
        (
            "listing",
            '{"directory": "dïr/ü", "depth": 3, "hidden": false}',
            m.listing("dïr/ü", 3, False),
            both,
        ),
        ("listing", '{"hidden": true, "directory": null}', m.listing(None, 1, True), both),
        ("counted", '{"limit": null}', m.counted(None), both),
        ("counted", '{"limit": 7}', m.counted(7), both),
        (
            "must",
            '{"name": "", "on": false, "tags": [], "meta": {}}',
            m.must("", False, [], {}),
            both,
        ),
        (
            "must",
            '{"name": "n", "on": true, "tags": ["a", "b"], "meta": {"k": 1}}',
            m.must("n", True, ["a", "b"], {"k": 1}),
            both,
        ),
        (
            "nested",
            '{"config": {"inner": {"label": "x", "active": false, "weight": null},'
            ' "items": [{"label": "y", "active": false}, {"label": "z"}],'
            ' "switches": [true, false, false], "extra": {"a": [], "s": "t", "n": 1},'
            ' "note": null}}',
            m.nested(cfg),
            both,
        ),
        (
            "nested",
            '{"config": {"inner": {"label": "Zoë"}}}',
            m.nested(m.Config(m.Inner("Zoë"))),
            both,
        ),
        (
            "texts",
            json.dumps({"text": 'Zoë 日本 🎉 "q" \\ \n\t', "words": ["ü", ""]}),
            m.texts('Zoë 日本 🎉 "q" \\ \n\t', ["ü", ""]),
            both,
        ),
    ]


def _generate(tmp_path, dialect, *extra):
    out = tmp_path / f"tools-{dialect}.el"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "plistspec",
            "from-py",
            "pyvalues",
            "-d",
            dialect,
            "-o",
            str(out),
            *extra,
        ],
        cwd=FIXTURE_DIR,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return out, proc.stderr


def _run(emacs, deps, path, runs):
    vec = " ".join("(vector " + " ".join(print_string(x) for x in run) + ")" for run in runs)
    program = (
        elisp_deps_preamble(deps)
        + f"(load {print_string(str(DRIVER))} nil t)\n"
        + f"(ps-load-tools {print_string(str(path))})\n"
        + f"(ps-run-all (vector {vec}))\n"
    )
    return json.loads(emacs.run(program, timeout=600))


def _check(emacs, deps, tmp_path, pv, library, transports, *extra):
    path, _stderr = _generate(tmp_path, library, *extra)
    runs, wants = [], []
    for transport in transports:
        for tool, args, want, libs in cases(pv):
            if library in libs:
                runs.append((library, transport, tool, response(library, transport, tool, args)))
                wants.append((transport, tool, args, format_result(want)))
    got = _run(emacs, deps, path, runs)
    if got and all(g == "UNSUPPORTED-HERE" for g in got):
        pytest.skip(
            f"{library} {transports[0]}: this Emacs cannot run the library's own parser "
            "(gptel 0.9.9.5's Responses stream parser calls (looking-at REGEXP t), Emacs 29+)"
        )
    bad = [(w[:3], w[3], g) for w, g in zip(wants, got, strict=True) if g != w[3]]
    assert not bad, "\n".join(f"{where}: want {w!r} got {g!r}" for where, w, g in bad)


# one Emacs run per library and mode, every transport in it; the one transport this Emacs may
# not be able to parse gets its own test, so that its skip is visible
ALWAYS = tuple(t for t in GPTEL_TRANSPORTS if t != "responses-stream")


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_gptel(emacs, elisp_deps_dir, tmp_path, pv, mode):
    _check(emacs, elisp_deps_dir, tmp_path, pv, "gptel", ALWAYS,
           *(["--async"] if mode == "async" else []))  # fmt: skip


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_gptel_responses_stream(emacs, elisp_deps_dir, tmp_path, pv, mode):
    _check(emacs, elisp_deps_dir, tmp_path, pv, "gptel", ("responses-stream",),
           *(["--async"] if mode == "async" else []))  # fmt: skip


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_llm(emacs, elisp_deps_dir, tmp_path, pv, mode):
    _check(emacs, elisp_deps_dir, tmp_path, pv, "llm", LLM_TRANSPORTS,
           *(["--async"] if mode == "async" else []))  # fmt: skip


@pytest.mark.parametrize("library,transport", [("gptel", "anthropic"), ("llm", "claude")])
def test_one_process_per_call_gives_the_same(
    emacs, elisp_deps_dir, tmp_path, pv, library, transport
):
    _check(emacs, elisp_deps_dir, tmp_path, pv, library, (transport,), "--bridge", "process")


def test_from_py_says_what_it_decided(tmp_path):
    _path, stderr = _generate(tmp_path, "llm")
    assert "'flag' is required in the llm schema" in stderr and "[PS614]" in stderr
    _path, stderr = _generate(tmp_path, "gptel")
    assert "'flag'" not in stderr  # gptel tells false (:json-false) from an omitted flag
    assert "'limit' is required in the gptel schema" in stderr
