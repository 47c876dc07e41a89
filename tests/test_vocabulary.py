"""One vocabulary across the commands (issue 23 §2): ``-t/--target`` is the provider or
target in every command, ``--output-format gnu|json|github|sarif`` the report format in
every command that prints diagnostics; the old spellings still work for one release,
hidden, each with a one-line deprecation note; every target a ``--help`` names works
there; a misspelt command or code gets a did-you-mean.

In-process (click's runner), so the whole file takes about a second."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from plistspec.cli import main
from plistspec.core.formats import ELISP_TARGETS, FORMATS, LOWER_TARGETS, TARGETS

ROOT = Path(__file__).resolve().parent.parent
WEATHER = str(ROOT / "fixtures" / "elisp" / "get_weather.el")
PYTOOLS = ROOT / "fixtures" / "python"

# a tool with a warning (PS333, no :description on the arg) and nothing else
WARNED = """(gptel-make-tool :name "a" :description "A." :function (lambda (x) x)
 :args (list '(:name "x" :type string)))
"""


def cli(*args: str, stdin: str | None = None):
    return CliRunner().invoke(main, list(args), input=stdin)


def _help(command: str) -> str:
    r = cli(command, "--help")
    assert r.exit_code == 0, r.output
    return r.output


@pytest.mark.parametrize("command", ["to-json", "from-json", "from-py", "check", "serve"])
def test_every_command_names_the_target_t(command: str) -> None:
    text = _help(command)
    assert re.search(r"^  -t, --target ", text, re.M), text
    assert "--format" not in text and "--diagnostics-format" not in text
    assert not re.search(r"^  -f, ", text, re.M) and "--lower TARGET" not in text


@pytest.mark.parametrize("command", ["to-json", "from-json", "from-py", "check", "fmt"])
def test_every_command_that_prints_diagnostics_has_output_format(command: str) -> None:
    text = _help(command)
    assert "--output-format [gnu|json|github|sarif]" in text, text


def _warned_in_each(tmp_path: Path) -> dict[str, list[str]]:
    """Per command, arguments that print a warning or an info, and exit 0."""
    el = tmp_path / "warned.el"
    el.write_text(WARNED, encoding="utf-8")
    left = tmp_path / "left.el"  # fmt leaves it alone and says why (PS530, an info)
    left.write_text('(gptel-make-tool :name (my-name) :description "D" :function #\'ignore)\n')
    js = tmp_path / "t.json"
    schema = {"type": "object", "properties": {"a": {"type": ["string", "null"]}}}
    js.write_text(json.dumps([{"name": "t", "inputSchema": schema, "_meta": {}}]))
    return {
        "check": ["check", str(el)],
        "fmt": ["fmt", str(left)],
        "to-json": ["to-json", "-t", "gemini", "--lower", str(js)],
        "from-json": ["from-json", str(js)],
    }


@pytest.mark.parametrize("fmt", ["gnu", "json", "github", "sarif"])
def test_all_four_report_formats_everywhere(tmp_path: Path, fmt: str) -> None:
    for command, args in _warned_in_each(tmp_path).items():
        r = cli(*args, "--output-format", fmt)
        assert r.exit_code == 0, (command, r.output)
        report = r.stdout if command == "check" else r.stderr
        if fmt == "gnu":
            assert re.search(r":\d+:\d+: (warning|info): .* \[PS\d{3}\]", report), (command, report)
        elif fmt == "github":
            assert re.search(r"^::(warning|notice) file=", report, re.M), (command, report)
        elif fmt == "json":
            assert json.loads(report) and all("code" in d for d in json.loads(report)), command
        else:
            log = json.loads(report)
            assert log["version"] == "2.1.0" and log["runs"][0]["results"], command


def test_from_py_reports_in_every_format(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "m.py").write_text("def f(flag: bool = True) -> str:\n    return 'x'\n")
    monkeypatch.chdir(tmp_path)
    for fmt in ("json", "sarif", "github"):
        r = cli("from-py", "-d", "llm", "m:f", "--output-format", fmt)  # PS614, an info
        assert r.exit_code == 0, r.output
        assert "PS614" in r.stderr, (fmt, r.stderr)
    assert json.loads(cli("from-py", "-d", "llm", "m:f", "--output-format", "json").stderr)


# -- the old spellings: hidden, working, one note each ----------------------------------------

OLD_AND_NEW = [
    (["to-json", "-f", "openai", WEATHER], ["to-json", "-t", "openai", WEATHER], "-f", "-t"),
    (
        ["to-json", "--format", "anthropic", WEATHER],
        ["to-json", "--target", "anthropic", WEATHER],
        "--format",
        "--target",
    ),
    (
        ["to-json", "--diagnostics-format", "json", "-t", "gemini", "--lower", WEATHER],
        ["to-json", "--output-format", "json", "-t", "gemini", "--lower", WEATHER],
        "--diagnostics-format",
        "--output-format",
    ),
    (
        ["check", "--format", "json", "--exit-zero", "-t", "gemini", WEATHER],
        ["check", "--output-format", "json", "--exit-zero", "-t", "gemini", WEATHER],
        "--format",
        "--output-format",
    ),
    (
        ["fmt", "--diagnostics-format", "json", WEATHER],
        ["fmt", "--output-format", "json", WEATHER],
        "--diagnostics-format",
        "--output-format",
    ),
]


@pytest.mark.parametrize("old,new,was,now", OLD_AND_NEW, ids=lambda x: " ".join(x)[:40])
def test_old_spellings_work_with_a_note(old, new, was, now) -> None:
    a, b = cli(*old), cli(*new)
    assert (a.exit_code, a.stdout) == (b.exit_code, b.stdout)
    note = f"plistspec: warning: {was} is deprecated, use {now}\n"
    assert a.stderr == note + b.stderr
    assert "deprecated" not in b.stderr


def test_from_json_and_from_py_old_spellings(tmp_path: Path, monkeypatch) -> None:
    ir = cli("to-json", WEATHER).stdout
    a = cli("from-json", "--diagnostics-format", "json", "-", stdin=ir)
    b = cli("from-json", "--output-format", "json", "-", stdin=ir)
    assert a.exit_code == b.exit_code == 0 and a.stdout == b.stdout
    assert a.stderr.startswith("plistspec: warning: --diagnostics-format is deprecated")
    monkeypatch.chdir(PYTOOLS)
    for old in (["-f", "ir"], ["--format", "ir"]):
        a = cli("from-py", "pytools:greet", *old)
        b = cli("from-py", "pytools:greet", "-t", "ir")
        assert a.exit_code == b.exit_code == 0 and a.stdout == b.stdout
        assert f"{old[0]} is deprecated, use " in a.stderr


def test_the_new_spelling_wins_when_both_are_given() -> None:
    r = cli("to-json", "-f", "anthropic", "-t", "openai", WEATHER)
    assert r.exit_code == 0 and json.loads(r.stdout)[0]["type"] == "function"
    assert "-f is deprecated" in r.stderr
    r = cli("check", "--format", "gnu", "--output-format", "json", "--exit-zero", WEATHER)
    assert json.loads(r.stdout) == []


def test_serve_lower_is_target() -> None:
    r = cli("serve", "--lower", "gemini")  # no FILE: the usage error, after the note
    assert r.exit_code == 2
    assert r.stderr.startswith("plistspec: warning: --lower is deprecated, use --target\n")


# -- every target a --help names works there --------------------------------------------------


def _targets_in_help(command: str) -> list[str]:
    text = " ".join(_help(command).split())
    m = re.search(r"-t, --target \[([^\]]+)\]", text)
    assert m, text
    return m.group(1).replace(" ", "").split("|")


def test_help_lists_the_targets_of_each_command() -> None:
    assert _targets_in_help("to-json") == list(FORMATS) + [
        t for t in LOWER_TARGETS if t not in FORMATS
    ]
    assert _targets_in_help("check") == list(TARGETS)
    assert _targets_in_help("from-json") == list(ELISP_TARGETS)
    assert _targets_in_help("from-py") == ["elisp", *FORMATS]


def test_every_to_json_target_works() -> None:
    for target in _targets_in_help("to-json"):
        r = cli("to-json", "-t", target, WEATHER)
        assert r.exit_code == 0, (target, r.output)
        assert isinstance(json.loads(r.stdout), list)


def test_every_check_and_from_json_target_works() -> None:
    ir = cli("to-json", WEATHER).stdout
    for target in _targets_in_help("check"):
        r = cli("check", "-t", target, WEATHER)
        assert r.exit_code in (0, 1) and "Usage" not in r.output, (target, r.output)
    for target in _targets_in_help("from-json"):
        r = cli("from-json", "-t", target, "-", stdin=ir)
        assert r.exit_code == 0 and "(gptel-make-tool" in r.stdout, (target, r.output)


def test_every_from_py_target_works(monkeypatch) -> None:
    monkeypatch.chdir(PYTOOLS)
    for target in _targets_in_help("from-py"):
        r = cli("from-py", "pytools:greet", "-t", target)
        assert r.exit_code == 0, (target, r.output)
        if target != "elisp":
            assert isinstance(json.loads(r.stdout), list)


# -- did you mean -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "typed,meant",
    [("tojson", "to-json"), ("to_json", "to-json"), ("fromjson", "from-json"), ("chek", "check")],
)
def test_misspelt_command(typed: str, meant: str) -> None:
    r = cli(typed)
    assert r.exit_code == 2
    assert f"No such command '{typed}'. Did you mean '{meant}'?" in r.output


def test_unknown_command_without_a_neighbour() -> None:
    r = cli("zzzzzz")
    assert r.exit_code == 2 and "No such command 'zzzzzz'." in r.output
    assert "worker" not in cli("wroker").output  # the bridge's command is never suggested


@pytest.mark.parametrize(
    "typed,meant", [("333", "PS333"), ("ps333x", None), ("PS3333", "PS333"), ("p337", "PS337")]
)
def test_explain_did_you_mean(typed: str, meant: str | None) -> None:
    r = cli("explain", typed)
    assert r.exit_code == 2
    assert f"unknown code '{typed}'" in r.output
    if meant:
        assert f"Did you mean '{meant}'?" in r.output
    assert cli("explain", "ps333").exit_code == 0  # a code in lower case is that code


@pytest.mark.parametrize(
    "args,meant",
    [
        (["to-json", "--formt", "x"], "--output-format"),
        (["to-json", "--diagnostic-format", "json"], "--output-format"),
        (["check", "--output-formt", "json"], "--output-format"),
        (["from-py", "--formt", "ir", "m"], "--output-format"),
    ],
)
def test_misspelt_options_suggest_the_new_names_only(args: list[str], meant: str) -> None:
    r = cli(*args)
    assert r.exit_code == 2 and meant in r.output, r.output
    for hidden in ("'--format'", "'--diagnostics-format'", "'-f'", "'--lower'"):
        assert hidden not in r.output, r.output


def test_serve_prints_its_start_up_diagnostics_in_the_output_format(emacs, tmp_path: Path) -> None:
    """serve reports what it found in the tools before serving them (here a tool defined
    twice, PS801): as JSON when asked. Stdin is closed, so the stdio server stops at once
    (it starts its own Emacs: the ``emacs`` fixture skips where there is none)."""
    import subprocess
    import sys

    assert "--output-format [gnu|json|github|sarif]" in _help("serve")
    el = tmp_path / "twice.el"
    one = '(gptel-make-tool :name "a" :description "%s" :function (lambda (x) x)\n'
    one += ' :args (list \'(:name "x" :type string :description "x")))\n'
    el.write_text(one % "A." + one % "B.", encoding="utf-8")
    r = subprocess.run(
        [sys.executable, "-m", "plistspec", "serve", str(el), "--output-format", "json"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    report, _ = json.JSONDecoder().raw_decode(r.stderr)
    assert all({"path", "line", "severity", "code", "message"} <= set(d) for d in report)
    assert any(d["code"] == "PS801" and d["path"] == str(el) for d in report), report
