"""check one form at a time (plistspec.checking.stream) gives the whole-file path's
diagnostics exactly (list, order, messages, fixes, lines and columns), or declines; the
check command (suppressions, --fix, --target, --dialect) reports the same through it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import plistspec.checking.checker as checker
import plistspec.checking.stream as checkstream
import plistspec.pipeline.stream as streaming
from plistspec.core.formats import TARGETS

ROOT = Path(__file__).resolve().parents[1]
FILES = sorted(
    p for d in ("elisp", "broken", "corpus") for p in (ROOT / "fixtures" / d).glob("*.el")
)
sys.path.insert(0, str(ROOT / "bench"))
from gen_tools import generate  # noqa: E402

TOOL = '(gptel-make-tool :name "a" :description "A." :function #\'ignore)\n'


def key(diags) -> list[tuple]:
    """Everything a diagnostic says, in order."""
    return [
        (
            d.code,
            d.severity,
            d.message,
            d.start,
            d.end,
            d.path,
            d.line,
            d.column,
            d.end_line,
            d.end_column,
            None if d.fix is None else (d.fix.start, d.fix.end, d.fix.replacement),
        )
        for d in diags
    ]


def whole(text: str, target=None, dialect=None, path="f.el") -> list[tuple]:
    """The whole-file path's diagnostics (the streaming path made unreachable)."""
    saved = streaming.MIN_SIZE
    streaming.MIN_SIZE = sys.maxsize
    try:
        return key(checker.check_text(text, path, target, dialect))
    finally:
        streaming.MIN_SIZE = saved


def streamed(text: str, target=None, dialect=None, path="f.el") -> list[tuple] | None:
    got = checkstream.check_streamed(text, path, target, dialect)
    return None if got is None else key(got)


@pytest.fixture()
def any_size(monkeypatch):
    monkeypatch.setattr(streaming, "MIN_SIZE", 0)


def test_every_fixture_all_targets(any_size) -> None:
    taken = 0
    for path in FILES:
        text = path.read_text(encoding="utf-8")
        for target in (None, *TARGETS):
            got = streamed(text, target)
            if got is None:
                continue
            taken += 1
            assert got == whole(text, target), (path.name, target)
    # most fixtures take the path (only the ones with constants/wrappers/apply decline)
    assert taken >= len(FILES) * (1 + len(TARGETS)) * 3 // 4


def test_every_fixture_dialects(any_size) -> None:
    for path in FILES:
        text = path.read_text(encoding="utf-8")
        for dialect in ("gptel", "llm"):
            for target in (None, "gemini", "openai-strict"):
                got = streamed(text, target, dialect)
                if got is not None:
                    assert got == whole(text, target, dialect), (path.name, target, dialect)


def test_findings_are_there(any_size) -> None:
    """The comparison is not vacuous: the fixtures give many diagnostics, fixes included."""
    diags = []
    for path in FILES:
        got = streamed(path.read_text(encoding="utf-8"), "gemini")
        diags.extend(got or [])
    assert len(diags) > 100
    assert sum(1 for d in diags if d[-1] is not None) > 10  # fixes
    assert len({d[0] for d in diags}) > 30  # codes


@pytest.mark.slow
@pytest.mark.parametrize(("seed", "batch"), [(1, 32), (2, 1), (3, 5), (4, 10**6)])
def test_generated_files(any_size, monkeypatch, seed: int, batch: int) -> None:
    """Any batch size: forms one at a time, a few, all at once (BATCH_CHARS ends the
    batches of the last: ~100 forms of ~1 KB)."""
    monkeypatch.setattr(streaming, "BATCH_FORMS", batch)
    text, _ = generate(150_000, seed)
    for target, dialect in ((None, None), ("gemini", None), ("anthropic", "llm")):
        got = streamed(text, target, dialect)
        assert got is not None
        assert got == whole(text, target, dialect)


@pytest.mark.slow
def test_big_file_takes_the_path_without_help() -> None:
    text, _ = generate(streaming.MIN_SIZE + 50_000)
    assert len(text) >= streaming.MIN_SIZE
    got = streamed(text)
    assert got is not None and got == whole(text)


def test_small_file_declines() -> None:
    assert checkstream.check_streamed(TOOL, None, None, None) is None


@pytest.mark.parametrize(
    "text",
    [
        TOOL + '(gptel-make-tool :name "b"\n' + TOOL,  # a syntax error: recovery decides
        TOOL + "(setq h #s(hash-table data (a 1)))\n" + TOOL,  # syntax plistspec refuses
        '(defconst my-args \'((:name "x" :type string)))\n'
        '(gptel-make-tool :name "a" :description "A." :args my-args :function #\'f)\n',
        '(apply #\'gptel-make-tool \'(:name "a" :description "A." :function ignore))\n',
        "(defun my-tool (name f) (gptel-make-tool :name name :function f))\n"
        '(my-tool "a" #\'ignore)\n',
        # an escaped context word: the quick look misses it, the reader does not
        '(de\\fconst my-args \'((:name "x" :type string)))\n'
        '(gptel-make-tool :name "a" :description "A." :args my-args :function #\'f)\n',
        TOOL + '(gptel-make-tool :name "b" :description "B." :function #\'ignore',
    ],
)
def test_declines_where_the_whole_file_is_needed(any_size, text: str) -> None:
    assert checkstream.check_streamed(text, "f.el", None, None) is None
    # and check_text still gives what the whole-file path gives
    assert key(checker.check_text(text, "f.el")) == whole(text)


def test_raw_bytes_read_as_on_the_whole_file_path(any_size) -> None:
    """Invalid UTF-8 (raw bytes, as Emacs reads them): the same findings on both paths."""
    for text in (
        TOOL + "\udcff\n",
        TOOL + ";; caf\udce9\n" + TOOL.replace('"a"', '"b"'),
        TOOL.replace('"A."', '"A\udce9."'),
    ):
        got = streamed(text)
        assert got is not None and got == whole(text), text


def test_across_forms(any_size) -> None:
    """Order and deduplication across forms: the same findings in several forms, a form
    with no tool, a tool nested in another's slots, comments and a final form without
    newline."""
    bad = (
        '(gptel-make-tool :name "b" :descripion "B." :function #\'ignore '
        ':args (list \'(:name "x" :type strng :enum (a b))))'
    )
    nested = (
        '(gptel-make-tool :name "outer" :description "O." :function '
        '(lambda () (llm-make-tool :name "in ner" :function #\'ignore)))'
    )
    text = "\n".join(
        [";; head", bad, "(setq x 1)", bad, nested, "; mid", TOOL, "'(gptel-make-tool)", bad]
    )
    for target in (None, *TARGETS):
        got = streamed(text, target)
        assert got is not None
        assert got == whole(text, target)
        assert len(got) > 6


# Small tool forms, good and bad, put together in any order.
_PIECES = [
    TOOL,
    '(gptel-make-tool :name "x y" :function #\'ignore)\n',
    '(llm-make-tool :name "q" :description "Q." :function #\'ignore '
    ':args \'((:name "a" :type strng :description "A")))\n',
    '(gptel-make-tool :name "e" :description "E." :function #\'ignore '
    ':args (list \'(:name "a" :type array) \'(:name "a" :type object :properties (:b 1))))\n',
    "(gptel-make-tool :name 'sym :description nil :function #'ignore :category 3)\n",
    ";; plistspec: ignore[PS301]\n",
    "(setq unrelated '(1 2 [3]))\n",
    '(gptel-make-tool :name "n" :description "N." :function #\'ignore '
    ':args (list (list :name "z" :type "string" :enum ["a" "a"])))\n',
    '(gptel-make-tool :name "c" :description "café 😀 \\"q\\"" :function #\'ignore)',
    "\n",
]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    pieces=st.lists(st.sampled_from(_PIECES), max_size=8),
    target=st.sampled_from((None, *TARGETS)),
    dialect=st.sampled_from((None, "gptel", "llm")),
)
def test_property_streamed_equals_whole(pieces, target, dialect) -> None:
    text = "".join(pieces)
    saved = streaming.MIN_SIZE
    streaming.MIN_SIZE = 0
    try:
        got = streamed(text, target, dialect)
    finally:
        streaming.MIN_SIZE = saved
    if got is not None:
        assert got == whole(text, target, dialect)


# -- the command ----------------------------------------------------------------------


def _suppressed_text() -> str:
    bad = (
        '(gptel-make-tool :name "b" :descripion "B." :function #\'ignore '
        ':args (list \'(:name "x" :type strng)))'
    )
    return "\n".join(
        [
            ";; plistspec: ignore-file[PS315]",
            bad + "  ; plistspec: ignore[PS301]",
            ";; plistspec: ignore[PS301, PS309]",
            bad,
            bad,
            ";; plistspec: ignore[PS999]",
            TOOL,
        ]
    )


_CHECK_STREAMED = checkstream.check_streamed


def _run(args: list[str], monkeypatch, min_size: int) -> tuple[int, str]:
    from plistspec.cli import main

    monkeypatch.setattr(streaming, "MIN_SIZE", min_size)
    calls = []

    def counting(*a):
        got = _CHECK_STREAMED(*a)
        calls.append(got is not None)
        return got

    monkeypatch.setattr(checkstream, "check_streamed", counting)
    r = CliRunner().invoke(main, args, catch_exceptions=False)
    return r.exit_code, r.output, calls


@pytest.mark.parametrize(
    "extra",
    [
        [],
        ["--target", "gemini"],
        ["--dialect", "llm", "--output-format", "json"],
        ["--output-format", "sarif", "--target", "openai-strict"],
        ["--statistics"],
        ["--select", "PS3", "--ignore", "PS315"],
    ],
)
def test_command_with_suppressions(tmp_path, monkeypatch, extra) -> None:
    f = tmp_path / "tools.el"
    f.write_text(_suppressed_text(), encoding="utf-8")
    args = ["check", *extra, str(f)]
    code_w, out_w, calls_w = _run(args, monkeypatch, sys.maxsize)
    code_s, out_s, calls_s = _run(args, monkeypatch, 0)
    assert calls_w == [False] and calls_s == [True]  # each path was taken
    assert (code_s, out_s) == (code_w, out_w)
    if not extra:
        assert "PS920" in out_s and "PS921" in out_s  # the suppressions were seen
        assert out_s.count("PS301") == 1  # two of the three silenced


def test_command_fix(tmp_path, monkeypatch) -> None:
    text = (
        '(gptel-make-tool :name "a" :descripion "A." :function #\'ignore '
        ':args (list \'(:name "x" :type "strng" :description "X.") '
        '\'(:name "y" :type string :enum (a b) :description "Y.")))\n'
    ) * 3
    outs = []
    for min_size in (sys.maxsize, 0):
        f = tmp_path / f"t{min_size}.el"
        f.write_text(text, encoding="utf-8")
        code, out, calls = _run(["check", "--fix", "--unsafe-fixes", str(f)], monkeypatch, min_size)
        assert calls and all(c == (min_size == 0) for c in calls)
        outs.append((code, out.replace(str(f), "F"), f.read_text(encoding="utf-8")))
    assert outs[0] == outs[1]
    assert outs[0][2] != text  # something was fixed
