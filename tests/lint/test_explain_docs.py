"""``plistspec explain`` and docs/codes.md: every code has a wrong and a right example, the
Emacs Lisp ones really get (and really lose) their code, and the generated table is up
to date."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from plistspec.core.code_examples import EXAMPLES, as_elisp
from plistspec.core.codes import CODES

ROOT = Path(__file__).resolve().parents[2]


def test_every_code_has_an_example() -> None:
    missing = [c for c in CODES if c not in EXAMPLES]
    assert not missing, f"add a wrong/right example to grammars/code-examples.toml for {missing}"
    assert not [c for c in EXAMPLES if c not in CODES]
    for code, ex in EXAMPLES.items():
        assert ex.wrong.strip() and ex.right.strip() and ex.wrong != ex.right, code


def _codes(text: str, ex) -> set[str]:
    if ex.via == "fmt":
        from plistspec.fmt.rewrite import format_text

        return {d.code for d in format_text(text, "x.el")[1]}
    if ex.via == "lower":  # as to-json --lower: from what gptel/llm send the target
        import plistspec
        from plistspec.emit_json.target import sent_tools
        from plistspec.lowering import lower_tools

        tools, diags = plistspec.read_tools(text, path="x.el")
        tools, sent = sent_tools(list(tools), ex.target)
        _, more = lower_tools(tools, ex.target)
        return {d.code for d in list(diags) + sent + list(more)}
    if ex.via == "to-json":
        import plistspec

        tools, diags = plistspec.read_tools(text, path="x.el")
        _, more = plistspec.to_provider(tools, ex.target)
        return {d.code for d in list(diags) + list(more)}
    from plistspec.checking.run import Settings, findings

    return {d.code for d in findings(text, "x.el", Settings(target=ex.target))}


ELISP = [c for c, ex in EXAMPLES.items() if as_elisp(ex.wrong, ex.kind) is not None]


@pytest.mark.parametrize("code", ELISP)
def test_elisp_examples_are_real(code: str) -> None:
    ex = EXAMPLES[code]
    wrong = as_elisp(ex.wrong, ex.kind)
    right = as_elisp(ex.right, ex.kind)
    assert wrong is not None and right is not None
    assert code in _codes(wrong, ex), f"{code}: the wrong example does not get {code}"
    assert code not in _codes(right, ex), f"{code}: the right example still gets {code}"


def test_elisp_examples_cover_the_elisp_codes() -> None:
    """Codes that check/fmt/to-json report on Elisp are shown on Elisp examples."""
    for code in CODES:
        # PS8xx (serve, a running Emacs) and PS9xx (the command line: files, streams,
        # configuration) are shown as shell commands; a lowering code shown on tool JSON
        # (what only JSON holds: a $ref, a root union, an outputSchema) is proven real by
        # test_lowering_json_examples_are_real instead
        ex = EXAMPLES.get(code)
        if ex is not None and ex.kind == "json" and ex.via == "lower":
            continue
        if ex is not None and ex.kind == "shell":  # said by a command (from-json --target)
            continue
        if code[2] in "01234" and code not in ("PS204", "PS332"):
            assert code in ELISP, code


def _lowered_json_codes(text: str, target: str) -> set[str]:
    """The codes ``to-json x.json -f TARGET --lower`` reports, read as it reads .json."""
    from plistspec.lowering import lower_tools
    from plistspec.pipeline.lowered import read_for_lowering

    tools, diags, is_elisp = read_for_lowering(text, "x.json", None)
    assert not is_elisp and tools and not diags, (text, diags)
    _, more = lower_tools(tools, target)
    return {d.code for d in more}


LOWER_JSON = [c for c, ex in EXAMPLES.items() if ex.kind == "json" and ex.via == "lower"]


@pytest.mark.parametrize("code", LOWER_JSON)
def test_lowering_json_examples_are_real(code: str) -> None:
    ex = EXAMPLES[code]
    assert ex.target, code
    assert code in _lowered_json_codes(ex.wrong, ex.target), f"{code}: wrong lacks {code}"
    assert code not in _lowered_json_codes(ex.right, ex.target), f"{code}: right gets {code}"


@pytest.mark.slow
def test_explain_prints_documentation_and_examples() -> None:
    p = subprocess.run(
        [sys.executable, "-m", "plistspec", "explain", "ps317"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert p.returncode == 0
    assert p.stdout.startswith("PS317 (error): `:enum` is not a vector of strings\n")
    assert "Wrong (an arg of :args):\n\n    " + EXAMPLES["PS317"].wrong in p.stdout
    assert "Right:\n\n    " + EXAMPLES["PS317"].right in p.stdout
    assert "Fix: unsafe" in p.stdout
    p = subprocess.run(
        [sys.executable, "-m", "plistspec", "explain", "PS312"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert "Fix: safe" in p.stdout
    p = subprocess.run(
        [sys.executable, "-m", "plistspec", "explain", "PS999"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert p.returncode == 2 and "unknown code" in p.stderr


def test_docs_codes_md_is_up_to_date() -> None:
    spec = importlib.util.spec_from_file_location("gen_codes", ROOT / "docs" / "gen_codes.py")
    assert spec and spec.loader
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    expected = gen.render()
    actual = (ROOT / "docs" / "codes.md").read_text(encoding="utf-8")
    assert actual == expected, (
        "docs/codes.md is stale: run PYTHONPATH=src python3 docs/gen_codes.py"
    )
    for code in CODES:
        assert f"| [{code}](#{code.lower()}) |" in actual
    assert "docs/codes.md" in (ROOT / "README.md").read_text(encoding="utf-8")
