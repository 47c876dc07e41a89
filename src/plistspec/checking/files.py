"""The files a command reads when it is given folders: ``plistspec check .`` as ``ruff check .``.

Owns: :func:`expand` (command-line paths → the files to read) and the rules that choose
them. A path that is not a folder is read as given (excluded or not: naming a file is
asking for it, as in ruff), unless ``force_exclude`` (``--force-exclude``) drops the
ones the configuration's excludes match. A folder is walked for the files that hold tool forms —
Emacs Lisp, ``*.el`` (a Markdown or Org file, whose Emacs Lisp blocks ``check`` reads, is
read when named, not found in a folder: ``fmt`` and ``to-json`` read only Emacs Lisp) — skipping:

* what git ignores: inside a git work tree, the files ``git ls-files --cached --others
  --exclude-standard`` does not list (``.gitignore`` at every level,
  ``.git/info/exclude``, the global excludes file; one call per folder given, with a
  timeout); elsewhere, or when git is missing or fails, the ``.gitignore`` files of the
  walked folders, read by :class:`_GitIgnore` (patterns, ``!`` negation, a trailing ``/``
  for folders, a leading or inner ``/`` anchoring to the ``.gitignore``'s folder, ``*``,
  ``?``, ``[...]`` and ``**``);
* ``exclude`` (which replaces :data:`DEFAULT_EXCLUDES`) and ``extend-exclude`` (added to
  them) of the configuration (:mod:`plistspec.checking.config`) that applies to the
  folder given: a pattern without ``/`` is matched against each file's and folder's name
  (``.cask``, ``*-autoloads.el``), one with ``/`` against the path relative to the
  configuration file's folder (``test/fixtures``, ``lisp/*-tests.el``; ``*`` crosses
  ``/``), as ruff matches them;
* symbolic links to folders (never followed, so a walk cannot loop).

The files come sorted, each once, named as the folder given joined with the path inside
it (``check .`` shows ``lisp/tools.el``).
"""

from __future__ import annotations

import os
import re
import subprocess
from fnmatch import fnmatchcase

__all__ = ["DEFAULT_EXCLUDES", "SUFFIXES", "expand", "excluded"]

#: read in a folder: the files that hold tool forms
SUFFIXES = (".el",)

#: skipped in every walk unless the configuration's ``exclude`` says otherwise: version
#: control, tool caches and environments (ruff's list), and where Emacs keeps installed
#: packages and compiled code (someone else's tools)
DEFAULT_EXCLUDES = (
    ".bzr",
    ".direnv",
    ".eggs",
    ".git",
    ".git-rewrite",
    ".hg",
    ".mypy_cache",
    ".nox",
    ".pytest_cache",
    ".ruff_cache",
    ".svn",
    ".tox",
    ".venv",
    ".vscode",
    "__pypackages__",
    "_build",
    "buck-out",
    "dist",
    "node_modules",
    "site-packages",
    "venv",
    ".cask",
    ".eldev",
    "elpa",
    "eln-cache",
    "straight",
)

_GIT_TIMEOUT = 30.0


def excluded(rel: str, patterns: tuple[str, ...] | list[str]) -> bool:
    """``rel`` (a path relative to the configuration's folder, ``/``-separated) matches
    one of ``patterns`` (module doc)."""
    name = rel.rsplit("/", 1)[-1]
    for p in patterns:
        p = p[2:] if p.startswith("./") else p
        p = p.rstrip("/")
        if "/" in p:
            if rel == p or fnmatchcase(rel, p):
                return True
        elif name == p or fnmatchcase(name, p):
            return True
    return False


def _patterns(cfg: object) -> list[str]:
    return list(getattr(cfg, "exclude", None) or DEFAULT_EXCLUDES) + list(
        getattr(cfg, "extend_exclude", None) or ()
    )


def _force_excluded(path: str, configs: object) -> bool:
    """``path`` (a file named on the command line) or a folder above it, up to its
    configuration's folder, matches the configuration's excludes."""
    cfg = configs.for_path(path)  # type: ignore[attr-defined]
    base = cfg.base if getattr(cfg, "path", None) else os.getcwd()  # type: ignore[attr-defined]
    rel = _rel(path, os.path.abspath(base))
    if rel.startswith(".."):
        return False
    parts = rel.split("/")
    patterns = _patterns(cfg)
    return any(excluded("/".join(parts[: k + 1]), patterns) for k in range(len(parts)))


def expand(
    paths: list[str] | tuple[str, ...], configs: object, force_exclude: bool = False
) -> tuple[list[str], int]:
    """The inputs to read for the command-line ``paths`` and how many were folders. Each
    folder's files are found as the module doc says, with the excludes of
    ``configs.for_path`` (a :class:`plistspec.checking.config.ConfigCache`; raises its
    ``ConfigError``); anything else (``-``, a file, a path that does not exist) is kept
    as given, for the command to read or report — but with ``force_exclude`` a file the
    excludes match is dropped too (ruff's ``--force-exclude``, for pre-commit, which
    names every staged file)."""
    out: list[str] = []
    seen: set[str] = set()
    folders = 0
    for p in paths:
        if p == "-" or not os.path.isdir(p):
            if not (force_exclude and p != "-" and _force_excluded(p, configs)):
                out.append(p)
            continue
        folders += 1
        cfg = configs.for_path(os.path.join(p, "_"))  # type: ignore[attr-defined]  # a file in p
        patterns = _patterns(cfg)
        base = getattr(cfg, "base", None) if getattr(cfg, "path", None) else None
        for f in _walk(p, patterns, base):
            key = os.path.normcase(os.path.abspath(f))
            if key not in seen:
                seen.add(key)
                out.append(f)
    return out, folders


def _walk(top: str, patterns: list[str], base: str | None) -> list[str]:
    """The files with tool forms under the folder ``top``, sorted."""
    root = os.path.abspath(base or top)
    listed = _git_files(top)
    # the folders holding a file git lists: the others are not walked at all
    listed_dirs = set()
    for f in listed or ():
        d = os.path.dirname(f)
        while d not in listed_dirs:
            listed_dirs.add(d)
            parent = os.path.dirname(d)
            if parent == d:
                break
            d = parent
    found: list[str] = []
    ignores: dict[str, _GitIgnore] = {}
    for d, dirs, files in os.walk(top):
        rel_d = _rel(d, root)
        keep = []
        for name in sorted(dirs):
            full = os.path.join(d, name)
            if os.path.islink(full) or excluded(_join(rel_d, name), patterns):
                continue
            if listed is None:
                if _ignored(ignores, top, full, True):
                    continue
            elif os.path.normcase(os.path.abspath(full)) not in listed_dirs:
                continue
            keep.append(name)
        dirs[:] = keep
        for name in sorted(files):
            if not name.endswith(SUFFIXES) or excluded(_join(rel_d, name), patterns):
                continue
            full = os.path.join(d, name)
            if listed is not None:
                if os.path.normcase(os.path.abspath(full)) not in listed:
                    continue
            elif _ignored(ignores, top, full, False):
                continue
            if os.path.isfile(full):
                found.append(os.path.normpath(full))
    return sorted(found)


def _rel(path: str, root: str) -> str:
    try:
        rel = os.path.relpath(os.path.abspath(path), root)
    except ValueError:
        return path.replace(os.sep, "/")
    return "" if rel == "." else rel.replace(os.sep, "/")


def _join(rel_d: str, name: str) -> str:
    return name if not rel_d or rel_d.startswith("..") else rel_d + "/" + name


def _git_files(top: str) -> set[str] | None:
    """The absolute paths git does not ignore under ``top`` (tracked, or untracked and not
    ignored), None when ``top`` is not in a git work tree or git cannot tell."""
    try:
        r = subprocess.run(
            ["git", "-C", top, "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
            capture_output=True,
            timeout=_GIT_TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if r.returncode != 0:
        return None
    absolute = os.path.abspath(top)
    out = set()
    for raw in r.stdout.split(b"\0"):
        if raw:
            rel = os.fsdecode(raw)
            out.add(os.path.normcase(os.path.join(absolute, rel)))
    return out


# --- .gitignore outside a git work tree ------------------------------------------------------


class _GitIgnore:
    """The patterns of one ``.gitignore``: ``(regex, negated, folders only)``."""

    def __init__(self, folder: str) -> None:
        self.folder = folder
        self.rules: list[tuple[re.Pattern[str], bool, bool]] = []
        try:
            with open(os.path.join(folder, ".gitignore"), encoding="utf-8", errors="replace") as f:
                lines = f.read().splitlines()
        except OSError:
            return
        for line in lines:
            line = line.rstrip()
            if not line or line.startswith("#"):
                continue
            neg = line.startswith("!")
            if neg:
                line = line[1:]
            if line.startswith("\\"):
                line = line[1:]
            only_dirs = line.endswith("/")
            line = line.rstrip("/")
            if not line:
                continue
            anchored = "/" in line
            line = line.lstrip("/")
            body = _glob_regex(line)
            rx = re.compile(("" if anchored else r"(?:.*/)?") + body + r"\Z", re.S)
            self.rules.append((rx, neg, only_dirs))

    def match(self, rel: str, is_dir: bool) -> bool | None:
        """True (ignored), False (re-included by ``!``) or None (no rule says)."""
        verdict = None
        for rx, neg, only_dirs in self.rules:
            if only_dirs and not is_dir:
                continue
            if rx.match(rel):
                verdict = not neg
        return verdict


def _glob_regex(glob: str) -> str:
    out = []
    i, n = 0, len(glob)
    while i < n:
        c = glob[i]
        if glob.startswith("**/", i):
            out.append(r"(?:.*/)?")
            i += 3
        elif glob.startswith("/**", i) and i + 3 == n:
            out.append(r"/.*")
            i += 3
        elif c == "*":
            out.append(r"[^/]*")
            i += 1
        elif c == "?":
            out.append(r"[^/]")
            i += 1
        elif c == "[":
            j = glob.find("]", i + 2)
            if j < 0:
                out.append(re.escape(c))
                i += 1
            else:
                cls = glob[i + 1 : j]
                if cls.startswith("!"):
                    cls = "^" + cls[1:]
                out.append("[" + cls.replace("\\", "\\\\") + "]")
                i = j + 1
        elif c == "\\" and i + 1 < n:
            out.append(re.escape(glob[i + 1]))
            i += 2
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out)


def _ignored(cache: dict[str, _GitIgnore], top: str, full: str, is_dir: bool) -> bool:
    """``full`` is ignored by the ``.gitignore`` files of ``top`` and the folders between
    (the deepest one that says something wins, as in git)."""
    top_abs = os.path.abspath(top)
    full_abs = os.path.abspath(full)
    folder = os.path.dirname(full_abs)
    chain = []
    while True:
        chain.append(folder)
        if folder == top_abs or len(folder) <= len(top_abs):
            break
        folder = os.path.dirname(folder)
    verdict = False
    for folder in reversed(chain):
        gi = cache.get(folder)
        if gi is None:
            gi = cache[folder] = _GitIgnore(folder)
        said = gi.match(os.path.relpath(full_abs, folder).replace(os.sep, "/"), is_dir)
        if said is not None:
            verdict = said
    return verdict
