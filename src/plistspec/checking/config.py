"""Configuration files of ``plistspec check``: where they are, what they say, what is wrong
in them.

Owns: discovery, parsing and validation of ``.plistspec.toml`` and of the
``[tool.plistspec]`` table of a ``pyproject.toml`` into a :class:`Config`.

Discovery (decisions): from the directory of each checked file (for standard input, of
``--stdin-filename``, else the current directory) up: in each directory a
``.plistspec.toml`` is taken, else a ``pyproject.toml`` *with* a ``[tool.plistspec]``
table; the nearest one wins and nothing is merged (as ruff does). The walk stops after
a directory holding ``.git``, ``.hg`` or ``.svn`` (the project's root: a configuration
above the repository is someone else's) and at the filesystem root. ``--config FILE``
uses one file for every input; ``--isolated`` uses none.

Keys (all optional; ``-`` and ``_`` are interchangeable in names):

* ``select``, ``extend-select``, ``ignore``: lists of codes or prefixes
  (:mod:`plistspec.checking.selection`);
* ``per-file-ignores``: a table from a glob to a list of codes or prefixes; the glob is
  matched against the file's path relative to the configuration file's directory, with
  ``/`` separators (``*`` matches any characters, ``/`` included); a glob without ``/``
  is matched against the file's name alone;
* ``dialect``: ``gptel`` or ``llm``; ``target``: one of :data:`plistspec.core.formats.TARGETS`
  (both as ``check -d`` / ``-t``, which override them);
* ``exclude``, ``extend-exclude``: lists of globs, the files and folders a walk of a
  folder skips (``exclude`` replaces the defaults, ``extend-exclude`` adds to them; see
  :mod:`plistspec.checking.files`).

An invalid file is a :class:`ConfigError` holding a PS930 diagnostic at the file, line
and column of the offending key (tomllib gives no positions for keys, so the key is
found in the text), or of the TOML syntax error.
"""

from __future__ import annotations

import os
import re
from typing import Any

from plistspec.checking.selection import Layer, invalid_selector, matches
from plistspec.core.diagnostics import Diagnostic
from plistspec.core.record import Record

__all__ = ["Config", "ConfigError", "load_config", "find_config", "ConfigCache", "KEYS"]

KEYS = (
    "select",
    "extend-select",
    "ignore",
    "per-file-ignores",
    "dialect",
    "target",
    "exclude",
    "extend-exclude",
)
_ROOT_MARKERS = (".git", ".hg", ".svn")


class ConfigError(Exception):
    """An invalid configuration file: :attr:`diagnostic` says where and why."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


class Config(Record):
    """What one configuration file says (an empty one when there is none)."""

    __slots__ = (
        "path",
        "base",
        "layer",
        "per_file_ignores",
        "dialect",
        "target",
        "exclude",
        "extend_exclude",
        "_matchers",
        "_ignores",
    )

    def __init__(
        self,
        path: str | None = None,
        base: str = ".",
        layer: Layer | None = None,
        per_file_ignores: list[tuple[str, list[str]]] | None = None,
        dialect: str | None = None,
        target: str | None = None,
    ) -> None:
        self.path = path
        self.base = base
        self.layer = Layer() if layer is None else layer
        self.per_file_ignores: list[tuple[str, list[str]]] = (
            [] if per_file_ignores is None else per_file_ignores
        )
        self.dialect = dialect
        self.target = target
        self.exclude: list[str] | None = None  # None: the defaults
        self.extend_exclude: list[str] = []
        self._matchers: Any = None
        self._ignores: dict[str, list[str]] = {}

    def _index(self) -> dict[tuple[bool, str], list[tuple[int, str]]]:
        """The globs by ``(matched against the path, literal prefix)``: the text before the
        first wildcard. A file is compared only with the globs whose prefix starts its
        path (or name), so N globs cost about the path's length per file, not N."""
        if self._matchers is None:
            index: dict[tuple[bool, str], list[tuple[int, str]]] = {}
            for i, (glob, _) in enumerate(self.per_file_ignores):
                g = glob[2:] if glob.startswith("./") else glob
                cut = min((g.index(c) for c in "*?[" if c in g), default=len(g))
                index.setdefault(("/" in g, g[:cut]), []).append((i, g))
            self._matchers = index
        return self._matchers

    def ignores_for(self, path: str | None) -> list[str]:
        """The per-file-ignores selectors that apply to ``path`` (in the file's order),
        kept per path: a check asks once per code."""
        if not self.per_file_ignores or not path:
            return []
        cached = self._ignores.get(path)
        if cached is not None:
            return cached
        from fnmatch import fnmatchcase

        try:
            rel = os.path.relpath(os.path.abspath(path), os.path.abspath(self.base))
        except ValueError:
            rel = path
        rel = rel.replace(os.sep, "/")
        name = rel.rsplit("/", 1)[-1]
        index = self._index()
        hits: list[int] = []
        for is_path, s in ((True, rel), (False, name)):
            for k in range(len(s) + 1):
                for i, g in index.get((is_path, s[:k]), ()):
                    if g == s or fnmatchcase(s, g):
                        hits.append(i)
        out: list[str] = []
        for i in sorted(hits):
            out.extend(self.per_file_ignores[i][1])
        if len(self._ignores) < 4096:
            self._ignores[path] = out
        return out

    def per_file_off(self, path: str | None, code: str) -> bool:
        from plistspec.checking.selection import ALWAYS

        return code not in ALWAYS and any(matches(s, code) for s in self.ignores_for(path))


# --- positions in the TOML text ----------------------------------------------------------

_HEADER = re.compile(r"^\s*\[\s*([^\[\]]+?)\s*\]\s*(#.*)?$")


def _section_name(raw: str) -> str:
    parts = [p.strip().strip("\"'") for p in raw.split(".")]
    return ".".join(parts)


_KEY_LINE = re.compile(r"""^(\s*)(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*=""")


class _Positions:
    """Where each ``key =`` line of a TOML text is, by (table, key): found in one pass
    over the text, so looking up every key of a big file stays linear."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.keys: dict[tuple[str | None, str], tuple[int, int, int]] = {}
        current: str | None = None
        offset = 0
        for i, line in enumerate(text.split("\n"), 1):
            m = _HEADER.match(line)
            if m and not line.lstrip().startswith("[["):
                current = _section_name(m.group(1))
            else:
                k = _KEY_LINE.match(line)
                if k:
                    key = next(g for g in k.groups()[1:] if g is not None)
                    col = len(k.group(1)) + 1
                    self.keys.setdefault((current, key), (i, col, offset + col - 1))
            offset += len(line) + 1

    def find(
        self, section: str | None, key: str, after_value: str | None = None
    ) -> tuple[int, int]:
        """1-based (line, column) of ``key`` in table ``section`` (None: the top level),
        or of the string ``after_value`` after it when given; (1, 1) when not found."""
        found = self.keys.get((section, key))
        if found is None:
            return 1, 1
        line, col, offset = found
        if after_value is not None:
            text = self.text
            for quoted in (f'"{after_value}"', f"'{after_value}'"):
                j = text.find(quoted, offset)
                if j >= 0:
                    return text.count("\n", 0, j) + 1, j - (text.rfind("\n", 0, j) + 1) + 1
        return line, col


def _key_position(
    text: str | _Positions, section: str | None, key: str, after_value: str | None = None
) -> tuple[int, int]:
    """:meth:`_Positions.find` (``text`` may be the index already)."""
    pos = text if isinstance(text, _Positions) else _Positions(text)
    return pos.find(section, key, after_value)


def _shown(path: str) -> str:
    """``path`` as the user would write it: relative to the current directory when under it."""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def _error(path: str, line: int, col: int, message: str) -> ConfigError:
    path = _shown(path)
    return ConfigError(
        Diagnostic(
            "PS930",
            "error",
            message,
            path=path,
            line=line,
            column=col,
            end_line=line,
            end_column=col,
        )
    )


# --- parsing --------------------------------------------------------------------------------


def _norm(key: str) -> str:
    return key.replace("_", "-")


def _selectors(
    value: Any, path: str, text: str | _Positions, section: str | None, key: str, raw_key: str
) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        line, col = _key_position(text, section, raw_key)
        raise _error(
            path,
            line,
            col,
            f'{key}: expected a list of codes or prefixes, e.g. {key} = ["PS3", "PS401"]',
        )
    out = []
    for v in value:
        why = invalid_selector(v.strip().upper())
        if why is not None:
            line, col = _key_position(text, section, raw_key, v)
            raise _error(path, line, col, f"{key}: {why}")
        out.append(v.strip().upper())
    return out


def load_config(path: str) -> Config:
    """Read and validate the configuration file ``path`` (a ``pyproject.toml``: its
    ``[tool.plistspec]`` table). Raises :class:`ConfigError`."""
    import tomllib

    try:
        with open(path, "rb") as f:
            data = f.read()
        text = data.decode("utf-8").removeprefix("\ufeff")  # a byte-order mark is no key
    except OSError as e:
        raise ConfigError(
            Diagnostic(
                "PS930", "error", f"cannot read configuration: {e.strerror or e}", path=_shown(path)
            )
        ) from None
    except UnicodeDecodeError as e:
        raise _error(path, 1, 1, f"configuration is not valid UTF-8 ({e.reason})") from None
    try:
        doc = tomllib.loads(text)
    except RecursionError:
        raise _error(
            path, 1, 1, "invalid configuration: values nested too deeply to read"
        ) from None
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"\(at line (\d+), column (\d+)\)", str(e))
        msg = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(e)) or "invalid TOML"
        if m:
            raise _error(path, int(m.group(1)), int(m.group(2)), f"invalid TOML: {msg}") from None
        msg = re.sub(r"\s*\(at end of document\)", "", msg)
        if "end of document" in str(e):  # the position is the end of the text
            line = text.count("\n") + 1
            col = len(text) - (text.rfind("\n") + 1) + 1
            raise _error(path, line, col, f"invalid TOML: {msg} at the end of the file") from None
        raise _error(path, 1, 1, f"invalid TOML: {msg}") from None
    section: str | None = None
    table: Any = doc
    if os.path.basename(path) == "pyproject.toml":
        section = "tool.plistspec"
        table = (
            doc.get("tool", {}).get("plistspec", {}) if isinstance(doc.get("tool"), dict) else {}
        )
        if not isinstance(table, dict):
            raise _error(path, 1, 1, "tool.plistspec: expected a table")
    cfg = Config(path=path, base=os.path.dirname(os.path.abspath(path)))
    seen: dict[str, str] = {}
    pos = _Positions(text)  # every key found in one pass
    for raw_key, value in table.items():
        key = _norm(raw_key)
        line, col = _key_position(pos, section, raw_key)
        if key not in KEYS:
            from difflib import get_close_matches

            close = get_close_matches(key, KEYS, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else f" (known: {', '.join(KEYS)})"
            raise _error(path, line, col, f"unknown configuration key {raw_key!r}{hint}")
        if key in seen:
            raise _error(path, line, col, f"{raw_key!r} repeats {seen[key]!r}")
        seen[key] = raw_key
        if key == "select":
            cfg.layer.select = _selectors(value, path, pos, section, key, raw_key)
        elif key == "extend-select":
            cfg.layer.extend_select = _selectors(value, path, pos, section, key, raw_key)
        elif key == "ignore":
            cfg.layer.ignore = _selectors(value, path, pos, section, key, raw_key)
        elif key == "dialect":
            if value not in ("gptel", "llm"):
                raise _error(path, line, col, f'dialect: expected "gptel" or "llm", got {value!r}')
            cfg.dialect = value
        elif key == "target":
            from plistspec.core.formats import TARGETS

            if value not in TARGETS:
                raise _error(
                    path, line, col, f"target: expected one of {', '.join(TARGETS)}, got {value!r}"
                )
            cfg.target = value
        elif key in ("exclude", "extend-exclude"):
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise _error(
                    path, line, col, f'{key}: expected a list of globs, e.g. {key} = ["test/data"]'
                )
            if key == "exclude":
                cfg.exclude = list(value)
            else:
                cfg.extend_exclude = list(value)
        elif key == "per-file-ignores":
            if not isinstance(value, dict):
                raise _error(
                    path,
                    line,
                    col,
                    'per-file-ignores: expected a table such as {"tests/*.el" = ["PS333"]}',
                )
            sub = f"{section}.{raw_key}" if section else raw_key
            for glob, sels in value.items():
                gl, gc = _key_position(pos, sub, glob)
                if (gl, gc) == (1, 1):
                    gl, gc = line, col
                if not isinstance(sels, list) or not all(isinstance(s, str) for s in sels):
                    raise _error(
                        path,
                        gl,
                        gc,
                        f"per-file-ignores: {glob!r}: expected a list of codes or prefixes",
                    )
                for s in sels:
                    why = invalid_selector(s.strip().upper())
                    if why is not None:
                        raise _error(path, gl, gc, f"per-file-ignores: {glob!r}: {why}")
                cfg.per_file_ignores.append((glob, [s.strip().upper() for s in sels]))
    return cfg


# --- discovery ----------------------------------------------------------------------------------


def _has_table(pyproject: str) -> bool:
    try:
        with open(pyproject, "rb") as f:
            data = f.read()
    except OSError:
        return False
    return re.search(rb"^\s*\[\s*tool\s*\.\s*[\"']?plistspec[\"']?\s*[\].]", data, re.M) is not None


def find_config(directory: str) -> str | None:
    """The configuration file for files in ``directory`` (see the module doc), or None."""
    d = os.path.abspath(directory)
    while True:
        candidate = os.path.join(d, ".plistspec.toml")
        if os.path.isfile(candidate):
            return candidate
        candidate = os.path.join(d, "pyproject.toml")
        if os.path.isfile(candidate) and _has_table(candidate):
            return candidate
        if any(os.path.exists(os.path.join(d, m)) for m in _ROOT_MARKERS):
            return None
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


class ConfigCache:
    """Configurations by directory, each file read once per run."""

    def __init__(self, explicit: str | None = None, isolated: bool = False) -> None:
        self.explicit = explicit
        self.isolated = isolated
        self._by_dir: dict[str, str | None] = {}
        self._by_file: dict[str, Config] = {}

    def for_path(self, path: str | None) -> Config:
        """The :class:`Config` for an input named ``path`` (None: the current directory).
        Raises :class:`ConfigError`."""
        if self.isolated:
            return Config()
        if self.explicit is not None:
            file: str | None = self.explicit
        else:
            directory = os.path.dirname(os.path.abspath(path)) if path else os.getcwd()
            if directory not in self._by_dir:
                self._by_dir[directory] = find_config(directory)
            file = self._by_dir[directory]
        if file is None:
            return Config()
        if file not in self._by_file:
            self._by_file[file] = load_config(file)
        return self._by_file[file]
