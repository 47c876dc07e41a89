"""The Emacs Lisp reader's scanner: one compiled regex that finds the next token.

Owns: what a token is. Every match of :data:`TOKENS` skips whitespace and comments
(control characters and NBSP are whitespace between tokens, as in Emacs 28) and then
grabs exactly one whole token; ``match.lastindex`` says which (the ``TOK_*`` group
numbers): a plain symbol, ``(``, ``)``, a string's body, a prefix (``'`` ``#'`` `` ` ``
``,`` ``,@``), any other symbol-or-number token, ``[``, ``]``, or the rest (``.``,
``#`` syntax, ``?c``, one stray character, the end of the input). Punctuation is a
literal plus an empty group, so no substring is made; possessive quantifiers, so it
never backtracks. Where a symbol ends follows lread.c's ``read1`` (``#`` ends a symbol:
``a#b`` is ``a`` then ``#b...``). What a token means is for
:mod:`plistspec.elisp.reader` and the modules it calls.

Also owns :func:`lazy_re`, the compile-on-first-use cache for the reader's rarely needed
patterns: importing the reader compiles only :data:`TOKENS` (the CLI imports it on every
run, and a typical tool file needs nothing else).
"""

from __future__ import annotations

import re

# Characters that end a symbol (besides c <= 0x20 and NBSP): lread.c read1, Emacs 28.
_SYM_CHAR = r"""[^\x00-\x20\xa0"';()\[\]#`,\\]"""
_SYM_ESC = r"\\[\s\S]"
# A `.` starts a symbol or number unless it is followed by whitespace or one of "';([#?`,
# (then it is the dotted-pair marker).
_DOT_SYM = r"""\.(?![\x00-\x20"';(\[#?`,]|\Z)"""

_SYM_FIRST = r"""[^\x00-\x20\xa0"';()\[\]#`,\\?.]"""
# A character literal's exact extent (its value and validity are computed by char_literal).
_CHAR_LIT = (
    r"\?(?:(?:\\(?:[MSHA]-|C-|\^|s-))*"
    r"(?:\\(?:N\{[^}]*\}|x[0-9a-fA-F]*|[uU][0-9a-fA-F]*|[0-7]{1,3}|[\s\S])|[^\\]))?"
)

# A symbol token that cannot be a number and has no escape: its text is its name.
_PLAIN_FIRST = r"""[^\x00-\x20\xa0"';()\[\]#`,\\?.0-9+-]"""

# The master regex: every match is (whitespace and comments, then exactly one token), and
# ``match.lastindex`` says which token. Punctuation is matched by its literal followed by
# an empty group (so the regex engine skips a non-matching branch on its first character,
# and no substring is made). Possessive quantifiers: nothing here ever backtracks.
TOKENS = re.compile(
    r"[\x00-\x20\xa0]*+(?:;[^\n]*+[\x00-\x20\xa0]*+)*+"
    r"(?:"
    rf"({_PLAIN_FIRST}{_SYM_CHAR}*+)(?!\\)"  # 1 a plain symbol
    r"|\(()|\)()"  # 2 ( and 3 ): the group is just after the parenthesis
    r'|"([^"\\]*+(?:\\[\s\S][^"\\]*+)*+)"'  # 4 a string literal's body
    r"|'()"  # 5
    # 6 any other symbol-or-number token (a number, a leading dot, escapes)
    rf"|((?:{_SYM_FIRST}|{_SYM_ESC}|{_DOT_SYM}){_SYM_CHAR}*+(?:{_SYM_ESC}{_SYM_CHAR}*+)*+)"
    r"|\[()|\]()|#'()|`()|,@()|,()"  # 7 [  8 ]  9 #'  10 `  11 ,@  12 ,
    # 13 anything else: `.`, # syntax, ?c, one stray character (an error), or the empty
    # string at the end of the input
    r"|(\.|##|#[xXoObB][+-]?[0-9A-Za-z]*|#[0-9]+[rR][+-]?[0-9A-Za-z]*"
    rf"|{_CHAR_LIT}|[\s\S]|\Z)"
    r")"
)
(TOK_PLAIN, TOK_OPEN, TOK_CLOSE, TOK_STRING, TOK_QUOTE, TOK_ATOM, TOK_OPEN_VEC, TOK_CLOSE_VEC) = (
    range(1, 9)
)
TOK_OTHER = 13
# Prefix groups: the prefix's text.
TOK_PREFIXES = {5: "'", 9: "#'", 10: "`", 11: ",@", 12: ","}

_compiled: dict[str, re.Pattern[str]] = {}


def lazy_re(pattern: str) -> re.Pattern[str]:
    """The compiled ``pattern``, compiled once per process."""
    rx = _compiled.get(pattern)
    if rx is None:
        rx = _compiled[pattern] = re.compile(pattern)
    return rx
