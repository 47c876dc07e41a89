"""Suppression comments found without holding every datum (suppress.py, issue 11).

:func:`plistspec.checking.suppress.find_directives` reads the text one top-level form at a time and
keeps only the forms its directives need. These tests hold it to the whole-file way
(every datum of :func:`plistspec.elisp.recover.read_recovering` handed to the unchanged
directive scan, ``_scan``): same directives (kind, region, line, codes), same PS921, so
the same filter and PS920 findings; on every fixture with directives inserted at many
places, on texts that do not read (the recovering reader decides), and on generated
texts."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import plistspec.checking.suppress as suppress
from plistspec.elisp.datum import List, String, Vector
from plistspec.elisp.recover import read_recovering

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
EL_FIXTURES = sorted(FIXTURES.rglob("*.el"))

OWN = "; plistspec: ignore[PS333]\n"
TRAIL = " ; plistspec: ignore[PS301, PS333]"
FILE = ";; plistspec: ignore-file[PS333]\n"
BAD = (
    ";; plistspec: ignore[PS999, PS001]\n",
    "; plistspec: ignroe[PS333]\n",
    ";plistspec:ignore[]",
)
INSIDE = ";plistspec: ignore[PS333]"  # for inside strings and anywhere at all


def _diag(d) -> tuple:
    return tuple(getattr(d, s) for s in type(d).__slots__)


def _result(res) -> tuple:
    directives, bad = res
    return [vars(d) for d in directives], [_diag(d) for d in bad]


def whole_file(text: str) -> tuple:
    """Today's way: every datum of the text, read at once."""
    return _result(suppress._scan(text, read_recovering(text)[0]))


def same(text: str, counts: dict[str, int] | None = None) -> None:
    want = whole_file(text)
    assert _result(suppress.find_directives(text)) == want, text
    assert _result(suppress.find_directives(text, read_recovering(text)[0])) == want, text
    if counts is not None:
        streamed = suppress._read_needed(text, suppress._places(text)) is not None
        counts["streamed" if streamed else "fallback"] += 1
        counts["directives"] += len(want[0]) + len(want[1])
        counts["with"] += bool(want[0] or want[1])


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="surrogateescape")


def _line_start(text: str, i: int) -> int:
    return text.rfind("\n", 0, i) + 1


def _spots(text: str) -> dict[str, list[int]]:
    """Where to put directives in ``text``: before/after top-level forms, before nested
    datums, inside strings, at line ends."""
    datums = read_recovering(text)[0]
    spots: dict[str, list[int]] = {"form": [], "after": [], "nested": [], "string": []}
    for d in datums:
        spots["form"].append(_line_start(text, d.start))
        spots["after"].append(d.end)
    todo = list(datums)
    while todo:
        d = todo.pop()
        if isinstance(d, (List, Vector)):
            kids = list(d.items) + ([d.tail] if isinstance(d, List) and d.tail else [])
            todo.extend(kids)
            spots["nested"].extend(k.start for k in kids if k.start >= 0)
        elif isinstance(d, String) and d.end - d.start >= 2:
            spots["string"].append(d.start + 1 + (d.end - d.start - 2) // 2)
    spots["eol"] = [i for i, c in enumerate(text) if c == "\n"]
    return spots


def _insert(text: str, edits: list[tuple[int, str]]) -> str:
    out: list[str] = []
    last = 0
    for i, s in sorted(edits, key=lambda e: e[0]):
        out += (text[last:i], s)
        last = i
    return "".join(out) + text[last:]


def _sample(xs: list[int], k: int, rng: random.Random, size: int = 0) -> list[int]:
    """At most ``k`` of ``xs``; 3 for a big text (``size`` characters), for the time."""
    k = 3 if size > 50_000 else k
    return xs if len(xs) <= k else sorted(rng.sample(xs, k))


@pytest.mark.slow
@pytest.mark.parametrize("path", EL_FIXTURES, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_fixtures_with_directives_everywhere(path: Path) -> None:
    text = _read(path)
    rng = random.Random(str(path.name))
    spots = _spots(text)
    counts = {"streamed": 0, "fallback": 0, "directives": 0, "with": 0}
    cases: list[list[tuple[int, str]]] = []
    for i in _sample(spots["form"], 12, rng, len(text)):
        cases.append([(i, OWN)])  # on its own line before a top-level form
        cases.append([(i, ";" + OWN), (i, BAD[rng.randrange(3)])])
    for i in _sample(spots["after"], 8, rng, len(text)):  # between top-level forms, after code
        cases.append([(i, "\n" + OWN)])
        cases.append([(i, TRAIL)])
    for i in _sample(spots["nested"], 25, rng, len(text)):  # own line inside nested lists
        cases.append([(i, "\n" + OWN)])
        cases.append([(i, "\n  ;; plistspec: ignore[PS333, PS303]\n ")])
    for i in _sample(spots["string"], 10, rng, len(text)):  # inside strings: not comments
        cases.append([(i, INSIDE)])
        cases.append([(i, "\n" + OWN)])
    for i in _sample(spots["eol"], 15, rng, len(text)):  # at the end of lines (code or comment)
        cases.append([(i, TRAIL)])
    for i in _sample(list(range(len(text) + 1)), 15, rng, len(text)):  # anywhere at all
        cases.append([(i, INSIDE)])
        cases.append([(i, "\n" + OWN)])
    cases.append([(0, FILE)])  # ignore-file first, at the end, and the end without newline
    cases.append([(len(text), "\n" + FILE)])
    cases.append([(len(text), "\n; plistspec: ignore[PS333]")])
    cases.append([(len(text), "\n" + BAD[2])])
    # many at once
    every = [(i, OWN) for i in spots["form"]] + [(i, TRAIL) for i in spots["eol"][::3]]
    cases.append(every + [(0, FILE)])
    for edits in cases:
        same(_insert(text, edits), counts)
    assert counts["with"] > len(cases) // 2  # the directives are there to be compared
    if "syntax_error" not in path.name and "unreadable" not in path.name:
        assert counts["streamed"] > len(cases) // 2  # mostly through the streamed reading


SYNTAX_ERRORS = [
    '(gptel-make-tool :name "a" :args (list \'(:name "x")\n',  # never closed
    ")\n(foo)\n",  # a stray closer
    '(foo "bar\n',  # unterminated string
    "(setq h #s(a b))\n(bar)\n",  # refused syntax (PS002)
    "(setq h #s(a b)\n(bar)\n",  # refused syntax in a form that never ends
    "(a . b c)\n(d)\n",  # wrong dot
    "(foo \udcff)\n(bar)\n",  # a lone surrogate
    "(foo)\n(bar ]\n(baz)\n",  # a mismatched closer
]


@pytest.mark.parametrize("bad", SYNTAX_ERRORS)
def test_texts_that_do_not_read(bad: str) -> None:
    text = _read(FIXTURES / "elisp" / "get_weather.el")
    counts = {"streamed": 0, "fallback": 0, "directives": 0, "with": 0}
    for where in (0, len(text) // 3, len(text)):
        broken = text[:where] + "\n" + bad + text[where:]
        for i in sorted({0, len(broken) // 4, len(broken) // 2, len(broken) - 1, len(broken)}):
            same(broken[:i] + "\n" + OWN + broken[i:], counts)
            same(broken[:i] + INSIDE + broken[i:], counts)
        same(FILE + broken, counts)
        same(broken.replace("\n", TRAIL + "\n"), counts)
    assert counts["fallback"] > 0 and counts["directives"] > 0


def test_only_the_forms_needed_are_kept() -> None:
    text = "".join(f'(f{i} "a;b" (g {i}))\n' for i in range(200))
    cases = {
        FILE + text: 1,  # the form after it
        text + "; plistspec: ignore[PS333]\n": 0,  # nothing follows
        text.replace("(f100", OWN + "(f100"): 1,
        text.replace("(g 100)", "(g 100) " + TRAIL + "\n"): 1,  # the form holding it
        text.replace('"a;b" (g 7)', '"a;plistspec: ignore[PS333]" (g 7)'): 1,  # in a string
    }
    for t, n in cases.items():
        kept = suppress._read_needed(t, suppress._places(t))
        assert kept is not None and len(kept) == n, t[:80]
        same(t)


def test_the_same_findings_through_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """End to end (checkrun.findings, what ``check`` prints): the same findings with the
    whole-file directives put in place of the new ones."""
    from plistspec.checking.run import Settings, findings

    text = _read(FIXTURES / "broken" / "missing_arg_description.el")
    text += _read(FIXTURES / "elisp" / "init.el")
    spots = _spots(text)
    variants = [FILE + text, text + "\n" + OWN]
    variants += [_insert(text, [(i, OWN)]) for i in spots["form"]]
    variants += [_insert(text, [(i, "\n" + OWN)]) for i in spots["nested"][:40]]
    variants += [_insert(text, [(i, TRAIL)]) for i in spots["eol"][:40]]
    old = suppress.find_directives
    silenced = 0
    for t in variants:
        new = [_diag(d) for d in findings(t, "t.el", Settings())]
        monkeypatch.setattr(
            suppress,
            "find_directives",
            lambda t, datums=None: suppress._scan(t, read_recovering(t)[0]),
        )
        want = [_diag(d) for d in findings(t, "t.el", Settings())]
        monkeypatch.setattr(suppress, "find_directives", old)
        assert new == want
        plain = [_diag(d) for d in findings(text, "t.el", Settings())]
        silenced += new != plain
    assert silenced > len(variants) // 2  # the directives do change the findings


TOKENS = [
    "(",
    ")",
    "[",
    "]",
    '"',
    "\\",
    "?",
    "'",
    ".",
    " ",
    "\n",
    "a",
    ";",
    "(f :x 1)",
    '"s;t"',
    "#s(",
    "?;",
    "\udcff",
    OWN,
    "\n" + OWN,
    TRAIL,
    FILE,
    INSIDE,
    BAD[0],
    BAD[1],
    ";;" + INSIDE,
]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(TOKENS), max_size=40))
def test_generated_texts(parts: list[str]) -> None:
    same("".join(parts))
