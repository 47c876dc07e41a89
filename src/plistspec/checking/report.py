"""Diagnostics → text, in each output format of ``plistspec check`` (and of every command
that prints diagnostics).

Owns: the formats ``gnu`` (``FILE:LINE:COL: severity: message [CODE]``, what Emacs's
``compilation-mode`` reads), ``json`` (one array of objects, what the Flymake backend
reads; a fix also gives its ``applicability``, ``safe`` or ``unsafe``), ``github`` (GitHub Actions workflow commands, shown as annotations on a pull
request), ``sarif`` (SARIF 2.1.0, what code-scanning services read) and the
``--statistics`` summary (a count per code), plus :func:`one_line`, the rule that keeps
every line-oriented format one line per finding.

Line-oriented formats (gnu, github, statistics) never let a message or a path start a
new line: a file can put anything in a keyword or a string, and a message that quotes it
must not print a second, forged ``fake.el:1:1: error: ...`` line. :func:`one_line`
escapes every control character (C0, DEL, C1, the Unicode line and paragraph
separators) as ``\\n``, ``\\r``, ``\\t`` or ``\\xNN`` / ``\\uNNNN``, and every lone
surrogate (a raw byte of a file that is not valid UTF-8) as ``\\xNN`` / ``\\uNNNN``, so
the output is always valid UTF-8. JSON and SARIF carry the exact text (JSON escapes it).

Nothing here prints: :func:`render` returns the text, the CLI writes it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from plistspec.core.diagnostics import Diagnostic
from plistspec.core.formats import REPORT_FORMATS
from plistspec.core.lines import gnu_line, one_line
from plistspec.elisp.scanner import lazy_re

__all__ = [
    "FORMATS",
    "one_line",
    "gnu_line",
    "render",
    "render_statistics",
    "github_lines",
    "sarif_log",
]

FORMATS = REPORT_FORMATS

# --- GitHub Actions workflow commands --------------------------------------------------

_GH_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def _gh_data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_prop(s: str) -> str:
    return _gh_data(s).replace(":", "%3A").replace(",", "%2C")


def github_lines(diags: Iterable[Diagnostic]) -> list[str]:
    """One ``::error file=…,line=…,col=…,endLine=…,endColumn=…,title=CODE::message`` per
    diagnostic (``notice`` for infos), escaped as GitHub's runner unescapes: ``%``, CR
    and LF everywhere, ``:`` and ``,`` in properties; other control characters are
    escaped by :func:`one_line` first (the runner would print them raw)."""
    out = []
    for d in diags:
        props = [f"file={_gh_prop(one_line(d.path or '<input>'))}"]
        if d.line:
            props.append(f"line={d.line}")
            props.append(f"col={d.column}")
            if d.end_line:
                props.append(f"endLine={d.end_line}")
                props.append(f"endColumn={d.end_column}")
        props.append(f"title={_gh_prop(d.code)}")
        msg = _gh_data(one_line(f"{d.message} [{d.code}]"))
        out.append(f"::{_GH_LEVEL.get(d.severity, 'error')} {','.join(props)}::{msg}")
    return out


# --- SARIF 2.1.0 ---------------------------------------------------------------------

SARIF_SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
_SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def _uri(path: str | None) -> str:
    """A URI reference for ``path``: relative paths stay relative, absolute ones become
    ``file://`` URIs; every byte outside the safe set is percent-encoded (raw bytes of a
    name that is not UTF-8 too)."""
    import os
    from urllib.parse import quote

    if not path or path in ("<stdin>", "<input>"):
        return "stdin"
    raw = path.replace(os.sep, "/").encode("utf-8", "surrogateescape")
    if os.path.isabs(path):
        return "file://" + quote(raw, safe="/")
    return quote(raw, safe="/")


def _region(line: int, column: int, end_line: int, end_column: int) -> dict[str, int]:
    region = {"startLine": line, "startColumn": column}
    if end_line:
        region["endLine"] = end_line
        region["endColumn"] = max(end_column, column) if end_line == line else end_column
    return region


def sarif_log(
    diags: Sequence[Diagnostic], texts: dict[str, str | None] | None = None
) -> dict[str, Any]:
    """A SARIF 2.1.0 log of ``diags``: one run, the driver listing every code of
    :mod:`plistspec.core.codes` as a rule, one result per diagnostic with its region (columns
    in Unicode code points, as everywhere in plistspec) and its fix, when it has one
    (``texts`` maps each path to its text, to place the fix's region)."""
    from importlib.metadata import PackageNotFoundError, version

    from plistspec.checking.fixes import is_safe
    from plistspec.core.codes import CODES
    from plistspec.core.diagnostics import LineIndex

    try:
        ver = version("plistspec")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        ver = "0"
    rules = []
    index_of: dict[str, int] = {}
    for i, (code, c) in enumerate(CODES.items()):
        index_of[code] = i
        rules.append(
            {
                "id": code,
                "name": re.sub(r"[^A-Za-z0-9]+", "-", c.title).strip("-").lower() or code,
                "shortDescription": {"text": c.title},
                "fullDescription": {"text": c.explanation},
                "help": {"text": f"plistspec explain {code}"},
                "defaultConfiguration": {"level": _SARIF_LEVEL.get(c.severity, "warning")},
            }
        )
    texts = texts or {}
    indexes: dict[str, LineIndex] = {}
    results = []
    for d in diags:
        uri = _uri(d.path)
        result: dict[str, Any] = {
            "ruleId": d.code,
            "level": _SARIF_LEVEL.get(d.severity, "warning"),
            "message": {"text": d.message},
        }
        if d.code in index_of:
            result["ruleIndex"] = index_of[d.code]
        loc: dict[str, Any] = {"artifactLocation": {"uri": uri}}
        if d.line:
            loc["region"] = _region(d.line, d.column, d.end_line, d.end_column)
        result["locations"] = [{"physicalLocation": loc}]
        text = texts.get(d.path or "")
        if d.fix is not None and text is not None and 0 <= d.fix.start <= d.fix.end <= len(text):
            idx = indexes.get(d.path or "")
            if idx is None:
                idx = indexes[d.path or ""] = LineIndex(text)
            sl, sc = idx.position(d.fix.start)
            el, ec = idx.position(d.fix.end)
            result["fixes"] = [
                {
                    "description": {
                        "text": f"replace with {d.fix.replacement!r}"
                        + (" (safe)" if is_safe(d.code, d.severity) else " (unsafe)")
                    },
                    "artifactChanges": [
                        {
                            "artifactLocation": {"uri": uri},
                            "replacements": [
                                {
                                    "deletedRegion": {
                                        "startLine": sl,
                                        "startColumn": sc,
                                        "endLine": el,
                                        "endColumn": ec,
                                    },
                                    "insertedContent": {"text": d.fix.replacement},
                                }
                            ],
                        }
                    ],
                }
            ]
        results.append(result)
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "plistspec",
                        "version": ver,
                        "informationUri": "https://github.com/plistspec/plistspec",
                        "rules": rules,
                    }
                },
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }


# --- everything together ---------------------------------------------------------------


def _json_text(value: Any) -> str:
    """``value`` as plistspec prints JSON, with lone surrogates (raw bytes of a name that
    is not UTF-8) written as ``\\udcff`` escapes: the same JSON value, and valid UTF-8."""
    from plistspec.core.jsonout import dumps

    out = dumps(value)
    try:
        out.encode("utf-8")  # fails exactly when a lone surrogate is there
    except UnicodeEncodeError:
        out = lazy_re("[\ud800-\udfff]").sub(lambda m: f"\\u{ord(m.group()):04x}", out)
    return out


def render(
    diags: Sequence[Diagnostic],
    fmt: str = "gnu",
    texts: dict[str, str | None] | None = None,
) -> str:
    """The whole output of ``diags`` in format ``fmt`` (one of :data:`FORMATS`).

    ``texts`` maps each path to its text (JSON and SARIF place fixes with it).
    """
    if fmt == "gnu":
        return "".join(gnu_line(d) + "\n" for d in diags)
    if fmt == "github":
        return "".join(line + "\n" for line in github_lines(diags))
    if fmt == "json":
        from plistspec.checking.checker import diagnostics_json
        from plistspec.checking.fixes import is_safe

        objects: list[dict] = []
        texts = texts or {}
        for d in diags:
            obj = diagnostics_json([d], texts.get(d.path or ""))[0]
            if "fix" in obj:  # as ruff's JSON: whether `check --fix` applies it
                obj["fix"]["applicability"] = "safe" if is_safe(d.code, d.severity) else "unsafe"
            objects.append(obj)
        return _json_text(objects)
    if fmt == "sarif":
        return _json_text(sarif_log(diags, texts))
    raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")


def render_statistics(
    diags: Sequence[Diagnostic], fmt: str = "gnu", fixable: set[str] | None = None
) -> str:
    """A count per code, most frequent first (``--statistics``): a table, or for ``json``
    an array of ``{code, count, severity, title, fixable}``."""
    from plistspec.core.codes import CODES

    counts: dict[str, int] = {}
    for d in diags:
        counts[d.code] = counts.get(d.code, 0) + 1
    fixable = fixable or set()
    rows = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    if fmt in ("json", "sarif"):
        return _json_text(
            [
                {
                    "code": code,
                    "count": n,
                    "title": CODES[code].title if code in CODES else "",
                    "fixable": code in fixable,
                }
                for code, n in rows
            ]
        )
    width = max((len(str(n)) for _, n in rows), default=1)
    lines = []
    for code, n in rows:
        title = one_line(CODES[code].title) if code in CODES else ""
        mark = "[*] " if code in fixable else "    "
        lines.append(f"{n:>{width}}  {code}  {mark}{title}")
    return "".join(line + "\n" for line in lines)
