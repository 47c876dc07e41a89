"""Command-line paths → the files ``check``, ``fmt`` and ``to-json`` read.

Owns: :func:`input_files`, the one place the three commands turn folders into files
(:func:`plistspec.checking.files.expand`: ``*.el``, ``.gitignore`` and the
configuration's ``exclude``/``extend-exclude`` honoured, as ruff does) and say, on
standard error, when a folder holds no file to read (``warning: no Emacs Lisp files
found under DIR``, as ruff's "No Python files found"). An invalid configuration met on
the way is printed and the command exits 2, as ``check`` does for its own.
"""

from __future__ import annotations

import os
import sys

import click

__all__ = ["input_files", "force_exclude_option", "all_passed"]

force_exclude_option = click.option(
    "--force-exclude",
    is_flag=True,
    help="Skip the files the configuration's exclude/extend-exclude match even when named "
    "(for pre-commit, which names every staged file).",
)


def input_files(
    paths: tuple[str, ...], configs: object = None, force_exclude: bool = False
) -> tuple[tuple[str, ...], int]:
    """``(files, number of folders given)``; ``paths`` without folders come back as they are
    (without the excluded ones, with ``force_exclude``). ``configs``: a
    :class:`plistspec.checking.config.ConfigCache` (default: found from each folder, as
    ``check`` finds them)."""
    if not force_exclude and not any(p != "-" and os.path.isdir(p) for p in paths):
        return paths, 0
    from plistspec.checking.config import ConfigCache, ConfigError
    from plistspec.checking.files import expand

    try:
        files, folders = expand(
            paths, configs if configs is not None else ConfigCache(), force_exclude
        )
    except ConfigError as e:
        sys.stderr.write(e.diagnostic.render() + "\n")
        sys.exit(2)
    if not files and folders:
        shown = ", ".join(p for p in paths if os.path.isdir(p))
        click.echo(f"warning: no Emacs Lisp files found under {shown}", err=True)
    return tuple(files), folders


def all_passed(texts: dict[str, str | None]) -> str:
    """The line ``check`` prints when it reports nothing (ruff's "All checks passed!"):
    how many files it read and how many tool forms it found in them."""
    from plistspec.elisp.embedded import elisp_view
    from plistspec.elisp.recover import read_recovering
    from plistspec.extract import find_tools

    tools = 0
    for path, text in texts.items():
        if text and "-make-tool" in text:
            text = elisp_view(path, text).text  # a .md/.org file: its elisp blocks
        if text and "-make-tool" in text:
            datums, _ = read_recovering(text)
            tools += len(find_tools(datums, text)[0])
    n = len(texts)
    return (
        f"All checks passed! {n} file{'s' * (n != 1)} read, "
        f"{tools} tool form{'s' * (tools != 1)} found."
    )
