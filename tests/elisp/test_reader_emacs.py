"""Differential tests: plistspec's reader against Emacs's `read` on tricky literals.

Every text is read by both; the datums must be identical (canonical dump), or both must
fail. Texts plistspec refuses on purpose (PS002) must be ones Emacs reads or rejects —
never ones plistspec reads differently. Texts Emacs 28 and Emacs 30 read differently
(:data:`VERSION_DEPENDENT`) are held to each version's reading, and plistspec refuses
them with a PS001 that names the difference. CI runs this on both versions.
"""

from __future__ import annotations

import pytest
from elisp_dump import py_dump

from plistspec.core.diagnostics import ReadError
from plistspec.elisp.reader import read_all

CASES = [
    # strings and escapes
    r'"plain"',
    r'"a\nb\tc"',
    r'"\"q\" \\ back"',
    r'"\x41\x4a"',
    r'"\xe9"',
    r'"\x0e9"',
    r'"\xe9é"',
    r'"\x41g"',
    r'"\x3fffe9"',
    r'"\351"',
    r'"\400"',
    r'"\0"',
    r'"\1234"',
    r'"\12a"',
    r'"\8"',
    r'"\u00e9"',
    r'"\u00E9x"',
    r'"\U0001F600"',
    r'"\U0001f600!"',
    r'"\N{U+41}"',
    r'"\N{U+1F600}"',
    r'"\N{U+41.}"',
    r'"\N{LATIN SMALL LETTER E WITH ACUTE}"',
    r'"\N{latin small letter e with acute}"',
    '"\\N{LATIN SMALL\n   LETTER E WITH ACUTE}"',
    r'"\N{SPACE}"',
    r'"\N{NULL}"',
    r'"\N{BYTE ORDER MARK}"',
    r'"\N{HANGUL SYLLABLE GA}"',
    r'"\N{CJK COMPATIBILITY IDEOGRAPH-F900}"',
    r'"\N{CJK UNIFIED IDEOGRAPH-4E00}"',
    r'"\N{LINE FEED}"',
    r'"\N{LINE FEED (LF)}"',
    r'"\N{TANGUT COMPONENT-001}"',
    r'"\N{KHITAN SMALL SCRIPT CHARACTER-18B00}"',
    r'"\N{VARIATION SELECTOR-17}"',
    r'"\N{NO SUCH NAME}"',
    r'"\N{}"',
    r'"\N{u+41}"',
    r'"\N{U+D800}"',
    r'"\N{GREEK SMALL LETTER ALPHA}\N{SNOWMAN}"',
    r'"\s"',
    r'"\s-a"',
    r'"a\ b"',
    '"a\\\nb"',
    '"\\\nstart"',
    r'"\("',
    r'"\q\z\["',
    r'"\d\e\a\b\f\v\r"',
    r'"\C-a\^b\^?\C-?\C- "',
    r'"\M-a"',
    r'"\S-a"',
    r'"\C-%"',
    r'"\S-1"',
    r'"\H-a"',
    r'"\A-a"',
    r'"\C-\M-a"',
    r'"\^\M-a"',
    r'"\M-\C-a"',
    r'"\u12"',
    r'"\u12g4"',
    r'"\U00110000"',
    r'"\x110000"',
    r'"\x400000"',
    r'"\ud800"',
    '"raw\nnewline\ttab"',
    '"é ü 😀 \u00a0 \x7f"',
    '"\x01\x1b"',
    r'"\é"',
    # characters
    "?a",
    "?\\n",
    "?\\C-a",
    "?\\^a",
    "?\\^?",
    "?\\C-?",
    "?\\M-a",
    "?\\s",
    "?\\s-a",
    "?\\(",
    "?\\\\",
    "?\\x41",
    "?\\xe9",
    "?\\351",
    "?\\u00e9",
    "?\\N{LATIN SMALL LETTER E WITH ACUTE}",
    "?é",
    "?😀",
    "?\\d",
    "?\\C-%",
    "?\\S-a",
    "?\\H-a",
    "?\\A-a",
    "?\\C-\\M-a",
    "?\\C-à",
    "?\\^\\M-a",
    "? ",
    "?\t",
    "?\\ ",
    "?\\x3fffe9",
    "?\\x110000",
    "?\\ud800",
    "?(",
    "?)",
    '?"',
    "?;",
    "?ab",
    "?a?b",
    "(?a?b)",
    "[?a ?b]",
    "(?a)",
    "?\\C-\\S-a",
    "?\\C-\\s-a",
    "?\\^@",
    "?\\C-\\0",
    "?\\N{SPACE}",
    "?\\U0001F600",
    "?\\q",
    "?a\u00a0",
    # symbols and keywords
    "foo",
    "foo-bar",
    "a\\ b",
    "foo\\(bar",
    "\\1",
    "\\-1",
    "\\.5",
    "a?b",
    "a.b",
    "1+",
    "1e",
    "-",
    "+",
    "+a",
    "1a",
    "1.0a",
    "0x10",
    "1/2",
    "1_000",
    "1.5.",
    "1.0e",
    "1.0e+",
    "1.0e+INF0",
    ".e3",
    "+.",
    "-.",
    ":x",
    ":",
    ":description:",
    ":1",
    ":1.5",
    "##",
    "a\u007fb",
    "größe",
    "\\?a",
    "a\\",
    "nil",
    "t",
    "a\\\nb",
    "\\#x",
    "x-mcp-header",
    "$ref",
    "a|b{c}",
    # numbers
    "1",
    "+1",
    "-1",
    "-0",
    "1.",
    "+1.",
    "-1.",
    ".5",
    "+.5",
    "-.5",
    "-.5e2",
    "1.e3",
    "1e3",
    "1E3",
    "1.e+3",
    "1.5e-7",
    "5e-1",
    "-1e0",
    "1e400",
    "-.0",
    "-0.0",
    "0.e5",
    "1.0",
    "-1.0e+INF",
    "1.0e+INF",
    "1e+INF",
    "1.5e+INF",
    "0.0e+NaN",
    "-0.0e+NaN",
    "1.0e+NaN",
    "1e-INF",
    "007",
    "007.5",
    "100000000000000000000000",
    "-100000000000000000000000",
    "#x1F",
    "#X1f",
    "#x-1F",
    "#x+1f",
    "#o17",
    "#b101",
    "#b-1",
    "#24r1k",
    "#36rZZ",
    "#2r101",
    "#x",
    "#xg",
    "#b2",
    "#37r1",
    "#1r1",
    "#2r",
    "#xFFFFFFFFFFFFFFFFFFFF",
    "#x1.5",
    # lists, quotes, dotted pairs
    "()",
    "( )",
    "(a b c)",
    "(a . b)",
    "(a .b)",
    "(a . (b))",
    "(a . (b . (c)))",
    "(a .)",
    "(a . b c)",
    "(a . )",
    "(a . b . c)",
    "(a.b)",
    "(.5)",
    "(a . nil)",
    "(a . ())",
    "(a . 'b)",
    "(a b . #'c)",
    "'x",
    "#'x",
    "'#'a",
    "''a",
    "`(a ,b ,@c)",
    ",a",
    ",@a",
    "`,a",
    "'(1 . 2)",
    "[a b]",
    "[]",
    "[a [b] (c)]",
    "[a . b]",
    "[a )",
    "(a ]",
    ")",
    "]",
    "(",
    "[",
    '"abc',
    "'",
    "#'",
    ".",
    "(a\n;; c\nb)",
    "(a;c\n)",
    "(a\u00a0b)",
    "(a\x01b)",
    "(a#b)",
    "(a 'b)",
    '(:name "x" :type string :enum ["a" "b"] :optional t)',
    # hash syntax
    "##",
    "##a",
    "#s(a b)",
    "#1=(a b)",
    '#[0 "" [] 0]',
    "#@5 x",
    "#$",
    "#:foo",
    "#_foo",
    '#("a" 0 1 (face bold))',
    '#&3"a"',
    "#^[nil]",
    "#<buffer x>",
    "#;x",
    "#-",
]

# Texts Emacs 28 and Emacs 30 read differently: {text: {major version: reading}}, a reading
# being what `emacs_read` answers. plistspec reads neither: PS001, naming the difference.
_SYM_DOT = ["y", [46]]
VERSION_DEPENDENT = {
    # `\x` without a hex digit: NUL in 28, an error in 30 (etc/NEWS of Emacs 30)
    r'"\x"': {28: ("ok", ["s", [0]]), 30: ("err", "error")},
    r'"\x\ "': {28: ("ok", ["s", [0]]), 30: ("err", "error")},
    "?\\x": {28: ("ok", ["i", "0"]), 30: ("err", "error")},
    # \C- / \^ on a non-ASCII letter: folded to a C1 control in 28; in 30 the control bit
    # (an error in a string)
    r'"\C-é"': {28: ("ok", ["s", [137]]), 30: ("err", "invalid-read-syntax")},
    r'"\^À"': {28: ("ok", ["s", [128]]), 30: ("err", "invalid-read-syntax")},
    "?\\C-é": {28: ("ok", ["i", "137"]), 30: ("ok", ["i", "67109097"])},
    "?\\^é": {28: ("ok", ["i", "137"]), 30: ("ok", ["i", "67109097"])},
    "?\\C-\\M-é": {28: ("ok", ["i", "134217865"]), 30: ("ok", ["i", "201326825"])},
    # `(. x)`: x in 28, an error in 30
    "(. a)": {28: ("ok", ["y", [97]]), 30: ("err", "invalid-read-syntax")},
    "(. 5)": {28: ("ok", ["i", "5"]), 30: ("err", "invalid-read-syntax")},
    "(a . (. x))": {
        28: ("ok", ["l", [["y", [97]]], ["y", [120]]]),
        30: ("err", "invalid-read-syntax"),
    },
    "(a . (. (b c)))": {
        28: ("ok", ["l", [["y", [97]], ["y", [98]], ["y", [99]]], None]),
        30: ("err", "invalid-read-syntax"),
    },
    # `.` then NBSP: the symbol `\.` in 28, the dot of a dotted list in 30
    "(a .\u00a0b)": {
        28: ("ok", ["l", [["y", [97]], _SYM_DOT, ["y", [98]]], None]),
        30: ("ok", ["l", [["y", [97]]], ["y", [98]]]),
    },
    "(.\u00a0a)": {
        28: ("ok", ["l", [_SYM_DOT, ["y", [97]]], None]),
        30: ("err", "invalid-read-syntax"),
    },
    "(a .\u00a0)": {
        28: ("ok", ["l", [["y", [97]], _SYM_DOT], None]),
        30: ("err", "invalid-read-syntax"),
    },
}

# Strings holding a character Emacs has but Python text cannot (read as a marker).
UNREPRESENTABLE_CASES = {r'"\x110000"', r'"\ud800"'}

# Texts that Emacs reads but plistspec refuses on purpose (PS002).
REFUSED = {
    "#s(a b)",
    "#1=(a b)",
    '#[0 "" [] 0]',
    "#$",
    "#:foo",
    "#_foo",
    '#("a" 0 1 (face bold))',
    '#&3"a"',
    "#^[nil]",
    "#@5 x",
}


def _ours(text: str) -> tuple[str, object]:
    try:
        data = read_all(text)
    except ReadError as e:
        return ("err", e.code)
    if len(data) != 1:
        return ("trailing", len(data))
    return ("ok", py_dump(data[0]))


@pytest.mark.emacs
def test_reader_agrees_with_emacs_on_tricky_literals(emacs_read) -> None:
    theirs = emacs_read(CASES)
    mismatches = []
    for text, (tkind, tval) in zip(CASES, theirs, strict=True):
        okind, oval = _ours(text)
        if text in REFUSED:
            if (okind, oval) != ("err", "PS002"):
                mismatches.append((text, "should be refused with PS002", (okind, oval)))
            continue
        if text in UNREPRESENTABLE_CASES:
            # Emacs reads a character Python text cannot hold; plistspec reads the string
            # with the UNREPRESENTABLE marker in its place (json-serialize refuses both).
            if (okind, oval) != ("ok", ["s", [0xDC00]]):
                mismatches.append((text, "should read as the marker", (okind, oval)))
            continue
        if tkind == "ok":
            if (okind, oval) != ("ok", tval):
                mismatches.append((text, ("emacs", tval), ("plistspec", okind, oval)))
        elif tkind == "err":
            if okind != "err" or oval != "PS001":
                mismatches.append((text, ("emacs error", tval), ("plistspec", okind, oval)))
        else:  # Emacs read one datum and stopped: plistspec must read more than one, or fail
            if okind == "ok":
                mismatches.append((text, ("emacs stopped early at", tval), ("plistspec", oval)))
    assert not mismatches, "\n".join(map(repr, mismatches))


@pytest.mark.emacs
def test_texts_emacs_28_and_30_read_differently_are_refused_with_what_each_does(
    emacs, emacs_read
) -> None:
    """This Emacs reads each text as the table says its version does (28 or 30; another
    version as one of them); plistspec refuses it with a PS001 that says which version
    refuses it or that the two read it differently."""
    major = int(emacs.run("(princ emacs-major-version)"))
    texts = list(VERSION_DEPENDENT)
    assert not set(texts) & set(CASES)
    theirs = emacs_read(texts)
    for text, (tkind, tval) in zip(texts, theirs, strict=True):
        readings = VERSION_DEPENDENT[text]
        assert readings[28] != readings[30], text
        got = (tkind, tval)
        if major in readings:
            assert got == readings[major], (text, major, got)
        else:  # 29: one of the two
            assert got in readings.values(), (text, major, got)
        with pytest.raises(ReadError) as e:
            read_all(text)
        assert e.value.code == "PS001", text
        msg = str(e.value)
        assert (
            "Emacs 30 refuses this" in msg or "Emacs 28 and Emacs 30 read this differently" in msg
        )
        if readings[30][0] == "err":
            assert "Emacs 30 refuses this" in msg, msg
