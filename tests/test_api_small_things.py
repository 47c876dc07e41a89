"""Issue 29 §5, "small things a user notices": the library's names and types agree with the
command line's, a wrong choice or option gets the right did-you-mean, explain and check
agree, the docs show current spellings. In-process (click's runner) but for one test."""

from __future__ import annotations

import inspect
import json
import re
import warnings
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

import plistspec
from plistspec.cli import COMMANDS, main
from plistspec.core.codes import CODES

ROOT = Path(__file__).resolve().parent.parent
WEATHER = ROOT / "fixtures" / "elisp" / "get_weather.el"
TOOL = '(gptel-make-tool :name "t" :description "d" :function #\'ignore)\n'


def cli(*args: str, stdin: str | None = None):
    return CliRunner().invoke(main, list(args), input=stdin)


# --- did you mean ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["check", "-t", "gemeni", str(WEATHER)],
        ["to-json", "-t", "gemeni", str(WEATHER)],
        ["from-json", "-t", "gemeni", "-"],
        ["from-py", "-t", "gemeni", "m:f"],
        ["serve", "-t", "gemeni", str(WEATHER)],
        ["serve", "--target", "gemeni", str(WEATHER)],
    ],
)
def test_a_misspelt_target_gets_a_did_you_mean_in_every_command(args: list[str]) -> None:
    r = cli(*args, stdin="[]")
    assert r.exit_code == 2, r.output
    assert "'gemeni' is not one of" in r.output and "Did you mean 'gemini'?" in r.output
    assert "Traceback" not in r.output and "internal error" not in r.output


def test_every_choice_of_every_command_says_its_closest() -> None:
    r = cli("check", "--output-format", "jsn", str(WEATHER))
    assert r.exit_code == 2 and "Did you mean 'json'?" in r.output
    r = cli("to-json", "-d", "gptl", str(WEATHER))
    assert r.exit_code == 2 and "Did you mean 'gptel'?" in r.output
    r = cli("to-json", "-t", "zzzzzz", str(WEATHER))  # nothing close: no guess
    assert r.exit_code == 2 and "Did you mean" not in r.output


@pytest.mark.parametrize(
    "args,meant",
    [
        (["check", "--fromat", "json"], ["--output-format"]),
        (["check", "--formt", "json"], ["--output-format"]),
        (["check", "--from-emac", "x"], ["--from-emacs"]),
        (["to-json", "--traget", "gemini"], ["--target"]),
        (["to-json", "--formt", "x"], ["--output-format", "--target"]),
        (["serve", "--lowr", "gemini"], ["--target"]),
    ],
)
def test_a_misspelt_option_gets_the_closest_by_edit_distance(args, meant) -> None:
    r = cli(*args)
    assert r.exit_code == 2
    said = re.findall(r"'(--[a-z-]+)'", r.output.split("No such option", 1)[1])[1:]
    assert said == meant, r.output
    assert "--from-emacs" not in said or "--from-emacs" in meant


# --- explain -----------------------------------------------------------------------------------


@pytest.mark.parametrize("typed", ["PS30", "ps30", "30"])
def test_explain_a_prefix_lists_the_family(typed: str) -> None:
    r = cli("explain", typed)
    assert r.exit_code == 0, r.output
    listed = [line.split()[0] for line in r.output.splitlines()]
    assert listed == [c for c in CODES if c.startswith("PS30")] and len(listed) >= 9
    assert cli("explain", "PS301").output.startswith("PS301 (")  # a whole code: its text


def test_ps101_has_one_severity_in_explain_and_check() -> None:
    text = '(gptel-make-tool :name "t" :description "d" :function #\'f :args my-args)\n'
    found = [d for d in plistspec.check(text) if d.code == "PS101"]
    assert found and {d.severity for d in found} == {CODES["PS101"].severity} == {"info"}
    r = cli("check", "--output-format", "json", "-", stdin=text)
    assert {d["severity"] for d in json.loads(r.stdout) if d["code"] == "PS101"} == {"info"}
    assert cli("explain", "PS101").output.startswith("PS101 (info): ")


# --- the docs show the current spellings -------------------------------------------------------


def _spellings() -> tuple[set[str], set[str]]:
    """(every current option spelling, every deprecated one) of every command."""
    current: set[str] = set()
    old: set[str] = set()
    for name in COMMANDS:
        command = main.get_command(click.Context(main), name)
        for p in command.params:
            spellings = set(p.opts) | set(getattr(p, "secondary_opts", ()))
            if getattr(p, "hidden", False) and getattr(p, "replaced_by", None):
                old |= spellings
            elif not getattr(p, "hidden", False):
                current |= spellings
    return current, old


@pytest.mark.parametrize("doc", ["to-json.md", "from-json.md"])
def test_the_docs_show_only_current_spellings(doc: str) -> None:
    current, old = _spellings()
    assert {"-f", "--format", "--diagnostics-format"} <= old  # what earlier releases said
    text = (ROOT / "docs" / doc).read_text(encoding="utf-8")
    for spelling in sorted(old - current):
        assert not re.search(rf"(?<![\w-]){re.escape(spelling)}(?![\w-])", text), spelling
    assert not re.search(r"serve --lower|\bfmt=", text)


# --- the library --------------------------------------------------------------------------------


def test_the_library_says_target_as_the_command_line_does() -> None:
    tools, _ = plistspec.read_tools(WEATHER.read_bytes())
    for f in (plistspec.to_provider, plistspec.to_json, plistspec.from_provider):
        assert "target" in inspect.signature(f).parameters, f
    by_target = plistspec.to_provider(tools, target="gemini").value
    assert plistspec.to_provider(tools, "gemini").value == by_target
    assert plistspec.to_json(WEATHER.read_bytes(), target="gemini").value == by_target
    assert plistspec.from_provider(by_target, target="gemini").tools[0]["name"] == "get_weather"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # target= warns of nothing
        plistspec.to_json(TOOL, target="openai")


def test_fmt_still_works_with_a_deprecation_warning() -> None:
    tools, _ = plistspec.read_tools(WEATHER.read_bytes())
    want = plistspec.to_provider(tools, "anthropic").value
    with pytest.warns(DeprecationWarning, match="use target="):
        assert plistspec.to_provider(tools, fmt="anthropic").value == want
    with pytest.warns(DeprecationWarning):
        assert plistspec.to_json(WEATHER.read_bytes(), fmt="anthropic").value == want
    with pytest.warns(DeprecationWarning):
        assert plistspec.from_provider(want, fmt="anthropic").tools
    with pytest.raises(TypeError, match="disagree"), pytest.warns(DeprecationWarning):
        plistspec.to_provider(tools, "openai", fmt="anthropic")


def test_the_library_lowers_for_the_targets_to_json_lowers_for() -> None:
    r = cli("to-json", "-t", "openai-strict", str(WEATHER))
    got = plistspec.to_json(WEATHER.read_bytes(), "openai-strict", path=str(WEATHER))
    assert got.value == json.loads(r.stdout)
    with pytest.raises(ValueError, match="unknown target 'gemeni'.*gemini"):
        plistspec.to_provider([], "gemeni")


def test_a_fix_has_the_applicability_the_json_of_check_gives() -> None:
    text = (
        '(gptel-make-tool :name "t" :description "d" :function #\'f\n'
        ' :args (list \'(:name "a" :type "string" :description "x")\n'
        '             \'(:name "b" :type strng :description "y")))\n'
    )
    fixes = {d.code: d.fix for d in plistspec.check(text) if d.fix is not None}
    r = cli("check", "--output-format", "json", "-", stdin=text)
    shown = {d["code"]: d["fix"]["applicability"] for d in json.loads(r.stdout) if "fix" in d}
    assert {c: f.applicability for c, f in fixes.items()} == shown
    assert set(shown.values()) == {"safe", "unsafe"}, shown


def test_from_python_has_typed_keywords() -> None:
    sig = inspect.signature(plistspec.from_python)
    kinds = {p.kind for p in list(sig.parameters.values())[1:]}
    assert kinds == {inspect.Parameter.KEYWORD_ONLY}  # no **options hiding them
    for name in ("python", "async_", "function", "dialect", "cwd", "strict_types", "bridge"):
        assert sig.parameters[name].annotation != inspect.Parameter.empty, name
    tools, diags = plistspec.from_python(
        "pytools:greet", cwd=str(ROOT / "fixtures" / "python"), dialect="llm"
    )
    assert [t["name"] for t in tools] == ["greet"] and tools[0]["metadata"]["dialect"] == "llm"
    with pytest.raises(TypeError):
        plistspec.from_python("pytools:greet", dialekt="llm")  # type: ignore[call-arg]


def test_format_elisp_takes_the_bytes_the_other_calls_take(tmp_path: Path) -> None:
    data = (
        b"\xef\xbb\xbf;; tools of caf\xe9\r\n"
        b'(gptel-make-tool :name "t"     :description "d" :function #\'ignore)\r\n'
    )
    out, diags = plistspec.format_elisp(data, path="t.el")
    assert isinstance(out, bytes) and out != data
    assert out.startswith(b"\xef\xbb\xbf;; tools of caf\xe9\r\n")  # BOM, raw byte kept
    assert out.count(b"\r\n") > 2 and b"\n" not in out.replace(b"\r\n", b"")
    assert [d.code for d in diags][:1] == ["PS001"]  # said once, as for read_tools and check
    f = tmp_path / "t.el"
    f.write_bytes(data)
    r = CliRunner().invoke(main, ["fmt", str(f)])
    assert r.stdout_bytes == out
    same, _ = plistspec.format_elisp(out)
    assert same == out  # already formatted: the same bytes
    text, _ = plistspec.format_elisp(data.decode("utf-8", "replace"))
    assert isinstance(text, str)


def test_every_public_signature_resolves_for_type_checkers() -> None:
    import typing

    for name in plistspec.__all__:
        obj = getattr(plistspec, name)
        if callable(obj) and not isinstance(obj, type):
            hints = typing.get_type_hints(obj)
            assert "return" in hints, name
