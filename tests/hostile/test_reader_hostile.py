"""Issue 13 §4-5: the reader agrees with Emacs on line endings, big integers, a form
left open after ``#s(``, and ``#`` at the end; error recovery is linear (operation
counts, not time)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hostile_cli import TOOL, assert_no_traceback, run

from plistspec.elisp.eol import decode_eol, detect_eol, encode_eol
from plistspec.elisp.reader import ReadError, read_all

# (file bytes, Emacs's eol type: 0 unix, 1 dos, 2 mac)
EOL_CASES = {
    "mac": ';; h\r(setq x "a\rb")\r',
    "dos": ';; h\r\n(setq x "a\r\nb")\r\n',
    "dos_lone_cr": ';; h\r\n(setq x "a\rb")\r\n',
    "cr_then_crlf": ';; h\r(setq x "a\r\nb")\r',
    "dos_with_lf": ';; h\r\n(setq x "a\nb")\r\n',
    "mac_with_lf": ';; h\r(setq x "a\nb")\r',
    "unix_with_crlf": ';; h\n(setq x "a\r\nb")\n',
    "crlf_cr": '(setq x "a\r\nb\rc\r")',
}
_EOL_NAMES = {"unix": 0, "dos": 1, "mac": 2}


@pytest.mark.slow
@pytest.mark.emacs
def test_eol_decoding_matches_emacs(emacs, tmp_path: Path) -> None:
    """What `load' evaluates: the same x as plistspec reads, for every mix of EOLs."""
    for name, text in EOL_CASES.items():
        f = tmp_path / f"{name}.el"
        f.write_bytes(text.encode())
        out = emacs.run(
            f"""(setq x nil)
(with-temp-buffer (insert-file-contents {str(f)!r})
  (princ (format "%s\\n" (coding-system-eol-type buffer-file-coding-system))))
(condition-case nil (load {str(f)!r} nil t t) (error nil))
(princ (format "%S" (and x (append x nil))))""".replace("'", '"')
        )
        eol_line, value = out.split("\n", 1)
        eol = detect_eol(text)
        assert _EOL_NAMES[eol] == int(eol_line), name
        decoded = decode_eol(text, eol)
        assert encode_eol(decoded, eol) == text
        try:
            datums = read_all(decoded)
            x = next(d.items[2].value for d in datums if d.items[0].name == "setq")
            mine = "(" + " ".join(str(ord(c)) for c in x) + ")"
        except (ReadError, StopIteration):
            mine = "nil"
        assert mine == value, (name, mine, value)


def test_cr_only_header_then_tool_is_a_tool(tmp_path: Path) -> None:
    f = tmp_path / "cr.el"
    f.write_bytes((";; header\r" + TOOL.replace("\n", "\r")).encode())
    r = run("to-json", str(f))
    assert r.returncode == 0, r.stderr
    assert b'"name": "a"' in r.stdout


def test_crlf_strings_lose_the_cr(tmp_path: Path) -> None:
    f = tmp_path / "crlf.el"
    f.write_bytes(TOOL.replace('"d"', '"l1\nl2"').replace("\n", "\r\n").encode())
    r = run("to-json", str(f))
    assert r.returncode == 0, r.stderr
    assert b'"description": "l1\\nl2"' in r.stdout


@pytest.mark.slow
def test_unterminated_form_after_hash_s_is_an_error(tmp_path: Path) -> None:
    f = tmp_path / "hs.el"
    f.write_text("(setq h #s(hash-table data (a 1))\n" + TOOL)
    for cmd in ("to-json", "check"):
        r = run(cmd, str(f))
        assert_no_traceback(r)
        assert r.returncode == 1
        assert b"hs.el:1:1: error:" in r.stdout + r.stderr
    assert run("to-json", str(f)).stdout == b""


@pytest.mark.emacs
def test_unterminated_form_after_hash_s_fails_in_emacs(emacs, tmp_path: Path) -> None:
    f = tmp_path / "hs.el"
    f.write_text("(setq h #s(hash-table data (a 1))\n(setq y 1)\n")
    out = emacs.run(f'(princ (condition-case e (load "{f}" nil t t) (error (car e))))')
    assert out == "end-of-file"


@pytest.mark.parametrize(
    "text",
    ["9" * 30000, "-" + "7" * 5000, "#36r" + "z" * 5000, "#x" + "f" * 50000, "1" * 200000],
)
def test_big_integers_are_read(text: str) -> None:
    (d,) = read_all(text)
    assert d.value.bit_length() > 64
    assert "digits" in str(d.value) and len(str(d.value)) < 80  # a summary, never the digits
    if text[0] == "9":
        assert d.value == 10**30000 - 1
    if text.startswith("#36r"):
        assert d.value == 36**5000 - 1


@pytest.mark.emacs
def test_big_integers_print_back_exactly(emacs) -> None:
    from plistspec.elisp.printer import print_number

    (d,) = read_all("#36r" + "z" * 3000)
    out = emacs.run(f"(princ (= {print_number(d.value)} (1- (expt 36 3000))))")
    assert out == "t"


@pytest.mark.slow
@pytest.mark.parametrize("cmd", ["to-json", "fmt", "check"])
def test_big_integer_default_is_a_message(cmd: str, tmp_path: Path) -> None:
    f = tmp_path / "big.el"
    f.write_text(TOOL.replace(":type integer", ":type integer :default " + "9" * 30000))
    r = run(cmd, str(f))
    assert_no_traceback(r)
    assert len(r.stdout + r.stderr) < 200_000
    if cmd != "fmt":
        assert r.returncode == 1 and b"64-bit" in r.stdout + r.stderr


@pytest.mark.parametrize(
    "text, says",
    [
        ("#", "`#` at the end"),
        ("#1", "invalid syntax #1"),
        ("#x", "radix 16"),
        ("#36r", "radix 36"),
    ],
)
def test_hash_messages(text: str, says: str) -> None:
    with pytest.raises(ReadError) as e:
        read_all(text)
    assert says in e.value.message


@pytest.mark.parametrize(
    "text",
    [
        "#\n",
        "#1\n(a)",
        "#" + "9" * 6000 + "r1",
        '"\\x' + "f" * 100_000 + '"',
        "?\\N{U+" + "f" * 10_000 + "}",
        '"\\u12\n34"',
        "?\\N{a\x01b}",
    ],
    ids=lambda t: t[:12],
)
def test_messages_are_one_short_line(text: str) -> None:
    with pytest.raises(ReadError) as e:
        read_all(text)
    msg = e.value.message
    assert "\n" not in msg and "\x01" not in msg and len(msg) < 160, msg


def test_recovery_reads_each_bad_line_once() -> None:
    """N lines of `(x #<b>`: the recovering reader does O(N) work (counted as calls of
    the one-datum reader), not one scan to the end per line."""
    import plistspec.elisp.reader as reader
    from plistspec.elisp import recover

    calls = 0
    real = reader.read_one

    def counting(text, pos=0):
        nonlocal calls
        calls += 1
        return real(text, pos)

    reader.read_one = counting
    try:
        for n in (1000, 4000):
            calls = 0
            datums, diags = recover.read_recovering("(x #<b>\n" * n)
            assert len(diags) == n and calls == n
            calls = 0
            datums, diags = recover.read_recovering('(x "a"\n' * n)
            assert calls <= 2 and len(diags) == 1
    finally:
        reader.read_one = real
