"""The table of ``plistspec``'s commands, and the did-you-mean of a misspelt name.

Owns: which module holds each command (imported only when it runs) and the suggestion a
usage error gives. No click here: the program's entry (:func:`plistspec.cli.run`) reads
it before deciding whether click is needed at all.
"""

from __future__ import annotations

__all__ = ["COMMANDS", "PUBLIC_COMMANDS", "did_you_mean"]

# command name -> (module, attribute); modules are imported on first use.
COMMANDS: dict[str, tuple[str, str]] = {
    "to-json": ("plistspec.cli.to_json_cmd", "to_json_cmd"),
    "from-json": ("plistspec.cli.from_json_cmd", "from_json_cmd"),
    "from-py": ("plistspec.cli.from_py_cmd", "from_py_cmd"),
    "call": ("plistspec.cli.from_py_cmd", "call_cmd"),
    "worker": ("plistspec.cli.from_py_cmd", "worker_cmd"),
    "check": ("plistspec.cli.check_cmd", "check_cmd"),
    "fmt": ("plistspec.cli.fmt_cmd", "fmt_cmd"),
    "explain": ("plistspec.cli.explain_cmd", "explain_cmd"),
    "serve": ("plistspec.cli.serve_cmd", "serve_cmd"),
    "emacs-path": ("plistspec.cli.emacs_path_cmd", "emacs_path_cmd"),
}

# what a did-you-mean may suggest (worker is the bridge's, not the user's)
PUBLIC_COMMANDS = tuple(c for c in COMMANDS if c != "worker")


def did_you_mean(word: str, choices) -> str:
    """`` Did you mean 'X'?`` (or `` (Possible options: ...)``) for the choices close to
    ``word`` -- ignoring case and the dashes people leave out -- or ``""``."""
    import difflib

    def key(s: str) -> str:
        return s.lower().replace("-", "").replace("_", "")

    keyed = {key(c): c for c in choices}
    if key(word) in keyed:
        return f" Did you mean {keyed[key(word)]!r}?"
    close = [keyed[k] for k in difflib.get_close_matches(key(word), list(keyed), n=3, cutoff=0.6)]
    if not close:
        return ""
    if len(close) == 1:
        return f" Did you mean {close[0]!r}?"
    return f" (Possible options: {', '.join(close)})"
