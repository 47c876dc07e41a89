"""to-json one form at a time (plistspec.pipeline.stream) gives the whole-file path's bytes and
diagnostics, or declines; the command uses it for big files."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import plistspec.pipeline.stream as streaming
from plistspec.api import to_json
from plistspec.checking.report import render
from plistspec.core.jsonout import dumps
from plistspec.extract.find import CONTEXT_HEADS

ROOT = Path(__file__).resolve().parents[1]
FILES = sorted((ROOT / "fixtures" / "elisp").glob("*.el")) + sorted(
    (ROOT / "fixtures" / "broken").glob("*.el")
)


def whole(text: str, fmt: str) -> tuple[bytes | None, str]:
    value, diags = to_json(text, fmt, "f.el")
    data = None if value is None else dumps(value).encode("utf-8", "surrogateescape")
    return data, render(list(diags), "gnu")


@pytest.fixture()
def any_size(monkeypatch):
    monkeypatch.setattr(streaming, "MIN_SIZE", 0)


def test_every_context_head_is_caught_by_the_quick_look() -> None:
    assert all(any(w in h for w in streaming.CONTEXT_WORDS) for h in CONTEXT_HEADS)


@pytest.mark.parametrize("fmt", sorted(streaming.STREAMED_FORMATS))
def test_streamed_equals_whole_file_path(any_size, fmt: str) -> None:
    streamed = 0
    for path in FILES:
        text = path.read_text(encoding="utf-8")
        got = streaming.provider_json_bytes(text, fmt, "f.el")
        if got is None:
            continue
        streamed += 1
        data, diags = got
        assert (None if data is None else b"".join(data), render(diags, "gnu")) == whole(
            text, fmt
        ), path.name
    assert streamed >= len(FILES) // 2  # most fixtures take the path


def test_errors_match(any_size) -> None:
    ok = '(gptel-make-tool :name "a" :description "A." :function #\'ignore)\n'
    cases = [
        # an error in the second form: nothing, every diagnostic
        ok + '(gptel-make-tool :name "b" :args (list \'(:name "x" :type strng)))\n' + ok,
        # a spec gptel itself refuses (:anyOf written as a list)
        ok + '(gptel-make-tool :name "c" :description "C." :function #\'ignore '
        ':args (list \'(:name "x" :type object :anyOf ((:type "string")))))\n' + ok,
        "",
        ";; nothing\n",
        ok + '(llm-make-tool :name "d" :description "D." :function #\'ignore '
        ':args \'((:name "q" :type string :description "Q.")))\n',
        # raw bytes (a file that is not UTF-8): read as Emacs reads them, on both paths
        ok + ok + ";; an invalid byte \udce9 in a comment after the tools\n",
        ok + '(gptel-make-tool :name "r\udce9" :description "D." :function #\'ignore)\n',
    ]
    for text in cases:
        for fmt in sorted(streaming.STREAMED_FORMATS):
            got = streaming.provider_json_bytes(text, fmt, "f.el")
            assert got is not None, text
            data, diags = got
            assert (None if data is None else b"".join(data), render(diags, "gnu")) == whole(
                text, fmt
            ), (fmt, text)


def test_declines_where_forms_depend_on_each_other(any_size) -> None:
    tool = '(gptel-make-tool :name "a" :description "A." :args my-args :function #\'f)\n'
    for text in (
        tool + '(defvar my-args (list \'(:name "x" :type string)))\n',  # defined after
        tool + "(defmacro my-tool (&rest r) `(gptel-make-tool ,@r))\n",
        tool + '(gptel-make-tool :name "b" :description "unterminated)\n',  # syntax error
        tool + "(setq h #s(hash-table data (a 1)))\n",  # refused syntax
        tool + '(gptel-make-tool :name "apply" :description "B." :function #\'f)\n',
    ):
        assert streaming.provider_json_bytes(text, "openai", "f.el") is None, text
    assert streaming.provider_json_bytes(tool, "gemini", "f.el") is None
    assert streaming.provider_json_bytes(tool, "ir", "f.el") is None


@pytest.mark.parametrize(("forms", "chars"), [(1, 1 << 17), (2, 1 << 17), (32, 200)])
def test_batches_of_any_size_give_the_same_bytes(any_size, monkeypatch, forms, chars) -> None:
    # forms are found a batch at a time: its limits change nothing, errors included
    monkeypatch.setattr(streaming, "BATCH_FORMS", forms)
    monkeypatch.setattr(streaming, "BATCH_CHARS", chars)
    ok = '(gptel-make-tool :name "a" :description "A." :function #\'ignore)\n'
    bad = '(gptel-make-tool :name "b" :args (list \'(:name "x" :type strng)))\n'
    texts = [p.read_text(encoding="utf-8") for p in FILES]
    texts += [ok * 5, ok + bad + ok * 3, ok * 3 + bad, "", ";; nothing\n"]
    streamed = 0
    for text in texts:
        got = streaming.provider_json_bytes(text, "openai", "f.el")
        if got is None:
            continue
        streamed += 1
        data, diags = got
        assert (None if data is None else b"".join(data), render(diags, "gnu")) == whole(
            text, "openai"
        ), text[:200]
    assert streamed >= len(texts) // 2


def test_context_heads_written_with_escapes_are_still_surveyed(any_size) -> None:
    # no context word in the text, so each form's survey is skipped until the reader
    # meets a symbol whose name holds one: these are written with escapes
    tool = '(gptel-make-tool :name "a" :description "A." :args my-args :function #\'f)\n'
    spec = '(list :name "s" :description "S." :function #\'ignore)'
    for text in (
        tool + '(def\\var my-args (list \'(:name "x" :type string)))\n',
        tool + "(defm\\acro my-tool (&rest r) `(gptel-make-tool ,@r))\n",
        tool + tool + f"(setq x (ap\\ply #'gptel-make-tool {spec}))\n",
        # met in an earlier form: later forms are surveyed too
        "(setq y 'def\\un)\n" + tool + "(defu\\n my-args () nil)\n",
    ):
        assert not any(w in text for w in streaming.CONTEXT_WORDS), text
        assert streaming.provider_json_bytes(text, "openai", "f.el") is None, text
    # an escaped symbol without a context word changes nothing
    text = tool.replace("my-args", "my\\-args")
    got = streaming.provider_json_bytes(text, "openai", "f.el")
    assert got is not None
    data, diags = got
    assert (None if data is None else b"".join(data), render(diags, "gnu")) == whole(text, "openai")


def test_small_files_take_the_whole_file_path() -> None:
    text = (ROOT / "fixtures" / "elisp" / "get_weather.el").read_text(encoding="utf-8")
    assert len(text) < streaming.MIN_SIZE
    assert streaming.provider_json_bytes(text, "openai", "f.el") is None


@pytest.mark.slow
def test_command_on_a_big_file_writes_the_whole_file_paths_bytes(tmp_path) -> None:
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        from gen_tools import generate
    finally:
        sys.path.pop(0)
    text, _ = generate(streaming.MIN_SIZE + 100_000)
    path = tmp_path / "big.el"
    path.write_text(text, encoding="utf-8")
    assert streaming.provider_json_bytes(text, "anthropic", str(path)) is not None
    r = subprocess.run(
        [sys.executable, "-m", "plistspec", "to-json", "-t", "anthropic", str(path)],
        capture_output=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    value, diags = to_json(text, "anthropic", str(path))
    assert r.stdout == dumps(value).encode("utf-8")
    assert r.stderr.decode() == render(list(diags), "gnu")
