"""fmt a few top-level forms at a time (plistspec.fmt.stream) gives the whole-file path's
text and diagnostics, or declines; the command uses it for big files, with the same bytes."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import plistspec.fmt.stream as fmt_stream
import plistspec.pipeline.stream as streaming
from plistspec.checking.report import render
from plistspec.cli import main
from plistspec.core.diagnostics import locate
from plistspec.fmt.rewrite import format_text

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
from gen_tools import generate  # noqa: E402

FILES = [
    p for d in ("elisp", "broken", "corpus") for p in sorted((ROOT / "fixtures" / d).rglob("*.el"))
]


def whole(text: str) -> tuple[str, str]:
    new, diags = format_text(text, "f.el")
    return new, render(locate(diags, text, "f.el"), "gnu")


def streamed(text: str) -> tuple[str, str] | None:
    pieces: list[str] = []
    got = fmt_stream.format_stream(text, pieces.append, "f.el", force=True)
    if got is None:
        return None
    changed, diags = got
    new = "".join(pieces)
    assert changed == (new != text)
    return new, render(locate(diags, text, "f.el"), "gnu")


@pytest.fixture()
def small_batches(monkeypatch):
    monkeypatch.setattr(streaming, "BATCH_CHARS", 300)  # a batch of one or two forms


@pytest.mark.parametrize("batches", ["small", "default"])
def test_streamed_equals_whole_file_path(batches: str, monkeypatch) -> None:
    if batches == "small":
        monkeypatch.setattr(streaming, "BATCH_CHARS", 300)
    n = 0
    for path in FILES:
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
        got = streamed(text)
        if got is None:
            continue
        n += 1
        assert got == whole(text), path.name
    assert n >= len(FILES) // 2  # most fixtures take the path


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_generated_files_with_every_kind_of_form(small_batches, seed: int) -> None:
    text = generate(60_000, seed)[0]
    got = streamed(text)
    assert got is not None
    new, diags = got
    assert new != text  # the generated layout is not the canonical one
    assert (new, diags) == whole(text)


def test_infos_and_unread_forms_keep_their_order(small_batches) -> None:
    ok = '(gptel-make-tool :name "a" :description "A." :function #\'ignore)\n'
    bad = '(gptel-make-tool :name "b" :args (list \'(:name "x" :type strng)))\n'
    odd = '(gptel-make-tool :name "c" :description (concat "a" ;; x\n "b"))\n'
    text = ok + bad + odd + "(setq x 1)\n" + ok.replace("ignore", "foo") + bad
    new, diags = whole(text)
    assert "PS530" in diags  # forms left as they are, said so
    assert streamed(text) == (new, diags)


@pytest.mark.parametrize(
    "text",
    [
        '(gptel-make-tool :name "a" :function #\'f)\n(gptel-make-tool :name "b"\n',  # no end
        '(gptel-make-tool :name "a" :function #\'f)\n(setq h #s(hash-table data (a 1)))\n',
        "(apply #'gptel-make-tool (list :name \"a\" :function #'f))\n",
        '(defun my-tool (n) (gptel-make-tool :name n :function #\'f))\n(my-tool "a")\n',
    ],
)
def test_declines_where_the_whole_file_decides(text: str) -> None:
    assert streamed(text) is None


def test_declines_small_texts_unless_forced() -> None:
    text = '(gptel-make-tool :name "a" :function #\'f)\n'
    assert fmt_stream.format_stream(text, lambda _: None) is None
    assert streamed(text) is not None


def _big(seed: int = 7) -> str:
    return generate(60_000, seed)[0]


@pytest.mark.parametrize(
    ("bom", "eol"), [(False, "\n"), (True, "\n"), (False, "\r\n"), (True, "\r")]
)
def test_the_command_writes_the_same_bytes(tmp_path, monkeypatch, bom: bool, eol: str) -> None:
    text = _big()
    data = (("\ufeff" if bom else "") + text.replace("\n", eol)).encode()
    f = tmp_path / "tools.el"
    f.write_bytes(data)
    runner = CliRunner()
    whole_out = runner.invoke(main, ["fmt", "-q", str(f)])
    assert whole_out.exit_code == 0, whole_out.output
    monkeypatch.setattr(streaming, "MIN_SIZE", 0)
    calls: list[int] = []
    real = fmt_stream._stream
    monkeypatch.setattr(fmt_stream, "_stream", lambda *a, **k: calls.append(1) or real(*a, **k))
    stream_out = runner.invoke(main, ["fmt", "-q", str(f)])
    assert calls, "the command did not take the streaming path"
    assert stream_out.exit_code == 0
    assert stream_out.stdout_bytes == whole_out.stdout_bytes
    assert stream_out.stdout_bytes != data
    new = stream_out.stdout_bytes.decode()
    assert new.startswith("\ufeff") == bom
    assert new.count("\r") == (0 if eol == "\n" else new.count("\n") or new.count("\r"))
    # --check says it would change; -i writes the same bytes
    assert runner.invoke(main, ["fmt", "--check", str(f)]).exit_code == 1
    res = runner.invoke(main, ["fmt", "-i", "-q", str(f)])
    assert res.exit_code == 0
    assert f.read_bytes() == whole_out.stdout_bytes
    assert runner.invoke(main, ["fmt", "--check", str(f)]).exit_code == 0  # idempotent


def test_invalid_utf8_is_the_same_warning(tmp_path, monkeypatch) -> None:
    """A file that is not valid UTF-8 is read as Emacs reads it (raw bytes) with the same
    warning and output on both paths; the raw bytes are written back as they were."""
    data = _big().encode() + b";; caf\xe9\n" + _big(8).encode()
    f = tmp_path / "tools.el"
    f.write_bytes(data)
    runner = CliRunner()
    whole_out = runner.invoke(main, ["fmt", "-q", str(f)])
    monkeypatch.setattr(streaming, "MIN_SIZE", 0)
    stream_out = runner.invoke(main, ["fmt", "-q", str(f)])
    assert (stream_out.exit_code, whole_out.exit_code) == (0, 0)
    assert "invalid UTF-8" in stream_out.stderr and "PS001" in stream_out.stderr
    assert stream_out.stdout_bytes == whole_out.stdout_bytes
    assert b";; caf\xe9\n" in stream_out.stdout_bytes
    assert stream_out.stderr == whole_out.stderr


def test_forms_sharing_a_line_are_left_as_they_are_and_fmt_is_idempotent(small_batches) -> None:
    """The layout of a tool form moves the next one when it starts on the line where the
    form before ends: such a form is left as it is (else every run would lay out one
    more), and so is one beyond column 120; the streaming path knows the form before
    even across a batch boundary."""
    form = '(gptel-make-tool :name "a%d" :description "D." :function #\'f)'
    one_line = " ".join(form % i for i in range(6)) + "\n"
    progn = "(progn " + " ".join(form % i for i in range(6, 40)) + ")\n"
    text = one_line + progn + (form % 99) + "\n"
    new, diags = whole(text)
    assert streamed(text) == (new, diags)
    assert diags.count("[PS530]") == 5 + 33
    assert "on the line where the tool form before it ends" in diags
    assert "starts at column" not in diags  # all but the first of each line are so
    again, diags2 = whole(new)
    assert again == new  # idempotent
    assert streamed(new) == (again, diags2)
    far = " " * 130 + form % 1 + "\n"
    new_far, diags_far = whole(far)
    assert new_far == far and "starts at column 130" in diags_far
