"""The fix engine of ``plistspec check --fix``: apply the fixes findings carry.

Owns: which fixes are *safe* (:data:`SAFETY`, by code), choosing a deterministic set of
non-overlapping fixes, checking that a safe fix really leaves what gptel/llm send
unchanged, and iterating to a fixed point (:func:`fix_text`). Pure: text in, text out;
the command line reads and writes the files.

Safe and unsafe (decision, after the issue): a fix is *safe* when it cannot change the
JSON gptel/llm send, *unsafe* when it does (by design: ``:description:`` → ``:description``
adds a description, removing ``:required t`` removes the ``"required": true`` gptel sent,
``:enum ("a")`` → ``["a"]`` turns a failure into JSON). Every code whose findings carry
fixes is classified in :data:`SAFETY` (anything unlisted is unsafe). A fix classified safe
is also *verified*, each time: the JSON the tools of the whole text compile to, for every
provider format (as the form's own library, or ``dialect``, sends it; a failure counts as
one more value), must be the same before and after it (the same check as ``fmt``). One
that is not (``:type "string"`` → ``string`` in an ``llm-make-tool`` form, where llm
failed before) is applied only with ``unsafe=True``.

Guarantees: a fix replaces its span and nothing else, so every other byte, comment and
line ending stays; a fix whose span holds a comment is never applied (except PS920's,
which takes an unused code, or a whole unused suppression comment, out). Fixes are applied
in rounds: each round re-checks the text, takes the candidates in order of (start, end,
code, replacement), skips one that overlaps or touches a fix already taken, applies the
rest together, and goes on until no candidate is left (at most :data:`MAX_ROUNDS`), so
applying the fixes of the result again changes nothing.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable
from typing import Any

from plistspec.core.diagnostics import Diagnostic, Fix
from plistspec.core.record import Record

__all__ = ["SAFETY", "MAX_ROUNDS", "FixOutcome", "fix_text", "apply_fixes", "is_safe"]

MAX_ROUNDS = 16

# Every code whose findings carry a fix: "safe" (cannot change the JSON sent; verified
# for each fix) or "unsafe" (changes what is sent, on purpose).
SAFETY: dict[str, str] = {
    # a library failure that took a lint's fix (checker's merge): fixing changes the outcome
    "PS201": "unsafe",
    "PS202": "unsafe",
    "PS203": "unsafe",
    "PS301": "unsafe",  # :description: -> :description (the key is sent either way)
    "PS303": "unsafe",  # delete :required t (gptel sent "required": true) / -> :optional t
    "PS307": "unsafe",  # rename a tool providers reject
    "PS308": "unsafe",  # :name 'sym -> "sym" (the library failed on the symbol)
    "PS310": "unsafe",  # arg :name :kw / sym -> "kw" (gptel failed)
    "PS312": "safe",  # delete a repeated key: both libraries read the first one
    "PS314": "unsafe",  # :type float -> number, [string sym] -> [string "sym"]
    "PS315": "safe",  # :type "string" -> string in gptel forms (llm: verified unsafe)
    "PS316": "unsafe",  # 'string inside quoted data -> string (the library failed)
    "PS317": "unsafe",  # :enum list / symbols -> vector of strings (the library failed)
    "PS321": "unsafe",  # :required list / nil -> vector
    "PS322": "unsafe",  # delete a nested :optional (gptel sent "optional")
    "PS325": "unsafe",  # nil -> [] where JSON [] is meant
    "PS329": "unsafe",  # :args vector / single plist -> list of plists
    "PS330": "unsafe",  # :anyOf list -> vector
    "PS334": "unsafe",  # :items ((...)) -> (...), :items string -> (:type string)
    "PS335": "unsafe",  # :properties fixes
    "PS338": "safe",
    "PS339": "unsafe",  # rename a tool some providers reject  # :function my-fn -> #'my-fn (the function is not in the JSON)
    "PS920": "safe",  # an unused code out of a suppression comment (a comment only)
}

# Fixes whose very purpose is to edit a comment (all others never touch one).
_COMMENT_FIXES = frozenset({"PS920"})

# What is compared for a safe fix: every provider format gptel/llm send to.
_FORMATS = ("openai", "openai-responses", "anthropic", "gemini", "vertex", "bedrock", "ollama")


def is_safe(code: str, severity: str | None = None) -> bool:
    """Whether fixes of ``code`` are classified safe. A duplicate key that is an error
    (a second ``:name``/``:optional`` in an arg, which gptel sends) is not: deleting it
    changes what is sent, as its message says."""
    if code == "PS312" and severity == "error":
        return False
    return SAFETY.get(code) == "safe"


class FixOutcome(Record):
    """What :func:`fix_text` did: the new ``text``, the findings whose fixes were
    ``applied`` (located in the text of the round that applied them), the ``remaining``
    findings of the new text, and the safe-classified fixes ``withheld`` because they
    would have changed the JSON sent (applied only with ``unsafe``)."""

    __slots__ = ("text", "applied", "remaining", "withheld", "rounds")

    def __init__(
        self,
        text: str,
        applied: list[Diagnostic] | None = None,
        remaining: list[Diagnostic] | None = None,
        withheld: list[Diagnostic] | None = None,
        rounds: int = 0,
    ) -> None:
        self.text = text
        self.applied: list[Diagnostic] = applied if applied is not None else []
        self.remaining: list[Diagnostic] = remaining if remaining is not None else []
        self.withheld: list[Diagnostic] = withheld if withheld is not None else []
        self.rounds = rounds

    @property
    def changed(self) -> bool:
        return bool(self.applied)


def apply_fixes(text: str, fixes: list[Fix]) -> str:
    """``text`` with non-overlapping ``fixes`` applied (any order given)."""
    out = []
    pos = 0
    for f in sorted(fixes, key=lambda f: (f.start, f.end)):
        out.append(text[pos : f.start])
        out.append(f.replacement)
        pos = f.end
    out.append(text[pos:])
    return "".join(out)


def _sent_forms(text: str, dialect: str | None) -> list[tuple[int, int, Any]]:
    """What the tools of ``text`` send: per tool form, its span and the JSON of every
    provider format (or a marker of the library's failure)."""
    import json

    from plistspec.elisp.recover import read_recovering
    from plistspec.emit_json import emit
    from plistspec.extract import find_tools
    from plistspec.replay import lower

    datums, _ = read_recovering(text)
    forms, _ = find_tools(datums, text)
    out: list[tuple[int, int, Any]] = []
    for form in forms:
        try:
            tool, diags = lower(form, dialect)
        except Exception as e:  # noqa: BLE001 - a crash is one more outcome to compare
            out.append((form.start, form.end, ("crash", type(e).__name__)))
            continue
        if tool is None or any(d.is_error for d in diags):
            out.append(
                (form.start, form.end, ("fails", sorted({d.code for d in diags if d.is_error})))
            )
            continue
        per: dict[str, str] = {}
        for fmt in _FORMATS:
            try:
                value, more = emit([tool], fmt)
            except Exception as e:  # noqa: BLE001
                per[fmt] = f"crash {type(e).__name__}"
                continue
            if value is None or any(d.is_error for d in more):
                per[fmt] = "fails " + ",".join(sorted({d.code for d in more if d.is_error}))
            else:
                per[fmt] = json.dumps(value, ensure_ascii=False, sort_keys=False)
        out.append((form.start, form.end, per))
    return out


def _sent(text: str, dialect: str | None) -> list[Any]:
    return [v for _, _, v in _sent_forms(text, dialect)]


class _Comments:
    """The comment starts of one text, found once (lazily) and looked up by bisection."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._starts: list[int] | None = None

    def inside(self, start: int, end: int) -> bool:
        if self.text.find(";", start, end) < 0:
            return False
        if self._starts is None:
            from plistspec.elisp.recover import read_recovering
            from plistspec.emit_elisp.comments import comments_in

            datums = read_recovering(self.text)[0]
            self._starts = comments_in(self.text, datums, 0, len(self.text))
        i = bisect_left(self._starts, start)
        return i < len(self._starts) and self._starts[i] < end


def _key(d: Diagnostic) -> tuple:
    f = d.fix
    assert f is not None
    return (f.start, f.end, d.code, f.replacement)


def _choose(
    text: str, diags: list[Diagnostic], allowed: Callable[[Diagnostic], bool]
) -> list[Diagnostic]:
    """The candidates of one round: valid, allowed, comment-free, non-overlapping fixes,
    in a deterministic order; a fix repeated by several findings is taken once."""
    cands = [
        d
        for d in diags
        if d.fix is not None
        and 0 <= d.fix.start <= d.fix.end <= len(text)
        and text[d.fix.start : d.fix.end] != d.fix.replacement
        and allowed(d)
    ]
    if not cands:
        return []
    cands.sort(key=_key)
    comments = _Comments(text)
    chosen: list[Diagnostic] = []
    last_start, last_end = -1, -1
    seen: set[tuple[int, int, str]] = set()
    for d in cands:
        f = d.fix
        assert f is not None
        same = (f.start, f.end, f.replacement)
        if same in seen:
            chosen.append(d)  # the same edit for another finding: fixed by the first one
            continue
        if f.start < last_end or (
            f.start == last_end and (f.start == f.end or last_start == last_end)
        ):
            continue
        if d.code not in _COMMENT_FIXES and comments.inside(f.start, f.end):
            continue
        seen.add(same)
        chosen.append(d)
        last_start, last_end = f.start, f.end
    return chosen


def _edits(chosen: list[Diagnostic]) -> list[Fix]:
    out: dict[tuple[int, int, str], Fix] = {}
    for d in chosen:
        f = d.fix
        assert f is not None
        out.setdefault((f.start, f.end, f.replacement), f)
    return list(out.values())


def fix_text(
    text: str,
    check: Callable[[str], list[Diagnostic]],
    *,
    unsafe: bool = False,
    dialect: str | None = None,
) -> FixOutcome:
    """Apply the fixes of ``check(text)``'s findings until none is left (module doc).

    ``check`` gives the findings of a text as the user chose them (selection and
    suppressions applied: a silenced finding's fix is not applied); ``unsafe`` also
    applies fixes that change what is sent; ``dialect`` is the library the JSON of a safe
    fix is compared with (None: each form's own).
    """
    outcome = FixOutcome(text)
    withheld: dict[tuple, Diagnostic] = {}
    rejected: set[tuple] = set()
    budget = [max(_WORK_FACTOR * len(text), _MIN_WORK)]
    diags = check(text)
    for _ in range(MAX_ROUNDS):
        chosen = _choose(
            text,
            diags,
            lambda d, text=text: (
                (unsafe or is_safe(d.code, d.severity)) and (text, _key(d)) not in rejected
            ),
        )
        if not chosen:
            break
        if not unsafe:
            known = len(rejected)
            chosen = _verified(text, chosen, dialect, rejected, withheld, budget)
            if not chosen:
                if len(rejected) > known:
                    outcome.rounds += 1
                    continue  # only rejections so far: the fixes not yet verified are next
                break
        new = apply_fixes(text, _edits(chosen))
        new_diags = check(new)
        if _syntax_errors(new_diags) > _syntax_errors(diags):
            break  # a round that would break the syntax is not applied (never seen: a guard)
        text, diags = new, new_diags
        outcome.applied.extend(chosen)
        outcome.rounds += 1
    outcome.text = text
    outcome.remaining = diags
    outcome.withheld = list(withheld.values())
    return outcome


def _syntax_errors(diags: list[Diagnostic]) -> int:
    return sum(1 for d in diags if d.code in ("PS001", "PS002"))


# Checking fixes one by one (once a batch changed what is sent) costs a re-lowering of
# their form each: a whole run may spend on it this many times the text's length (at
# least _MIN_WORK characters); safe fixes left unverified then are not applied.
_WORK_FACTOR = 8
_MIN_WORK = 200_000


def _verified(
    text: str,
    chosen: list[Diagnostic],
    dialect: str | None,
    rejected: set[tuple],
    withheld: dict[tuple, Diagnostic],
    budget: list[int],
) -> list[Diagnostic]:
    """The fixes of ``chosen`` that leave what is sent unchanged (together, too).

    Fixes inside a tool form that reads the same on its own are checked on that form's
    text alone; the others (a form that uses a same-file constant, a fix outside every
    form) on the whole text.
    """
    forms = _sent_forms(text, dialect)
    outer: list[tuple[int, int]] = []
    for start, end, _ in sorted(forms, key=lambda f: (f[0], -f[1])):
        if not outer or start >= outer[-1][1]:
            outer.append((start, end))
    starts = [o[0] for o in outer]
    groups: dict[int, list[Diagnostic]] = {}
    for d in chosen:
        f = d.fix
        assert f is not None
        k = bisect_right(starts, f.start) - 1
        if not (k >= 0 and f.end <= outer[k][1]):
            k = -1
        groups.setdefault(k, []).append(d)
    whole_before = [v for _, _, v in forms]
    good: list[Diagnostic] = []
    for k, group in sorted(groups.items()):
        same = _whole_check(text, dialect, whole_before)
        cost = len(text)
        if k >= 0:
            lo, hi = outer[k]
            piece = text[lo:hi]
            alone = _sent(piece, dialect)
            if alone == [v for s, e, v in forms if lo <= s and e <= hi]:
                same = _piece_check(piece, lo, dialect, alone)
                cost = len(piece)
        if same(group):
            good.extend(group)
            continue
        ok: list[Diagnostic] = []
        for d in group:
            if budget[0] < cost:
                break  # no more work for this: the rest is not applied
            budget[0] -= cost
            if same([d]):
                ok.append(d)
            else:
                rejected.add((text, _key(d)))
                withheld.setdefault((d.code, d.line, d.column, d.message), d)
        if len(ok) > 1 and not same(ok):
            ok = ok[:1]
        good.extend(ok)
    return good


def _whole_check(
    text: str, dialect: str | None, before: list[Any]
) -> Callable[[list[Diagnostic]], bool]:
    return lambda ds: _sent(apply_fixes(text, _edits(ds)), dialect) == before


def _piece_check(
    piece: str, offset: int, dialect: str | None, before: list[Any]
) -> Callable[[list[Diagnostic]], bool]:
    def same(ds: list[Diagnostic]) -> bool:
        edits = [Fix(f.start - offset, f.end - offset, f.replacement) for f in _edits(ds)]
        return _sent(apply_fixes(piece, edits), dialect) == before

    return same
