"""``plistspec emacs-path``: print where the Emacs package installed with plistspec is,
the directory to put on Emacs's ``load-path`` (or a ``use-package`` form using it)."""

from __future__ import annotations

import click


@click.command("emacs-path")
@click.option(
    "--use-package",
    "form",
    flag_value="use-package",
    help="Print a use-package form that loads the package and turns it on.",
)
@click.option(
    "--load-path",
    "form",
    flag_value="load-path",
    help="Print the Emacs Lisp that puts the directory on load-path.",
)
def emacs_path_cmd(form: str | None) -> None:
    """Print the directory of the Emacs package installed with plistspec.

    Put it on Emacs's load-path: the files from-py writes require its plistspec-bridge,
    and (require 'plistspec) gives the editor support (docs/emacs.md)."""
    from plistspec.elisp.printer import print_string
    from plistspec.emacs.package_files import lisp_directory

    try:
        folder = str(lisp_directory())
    except FileNotFoundError as e:
        click.echo(f"plistspec: error: {e}", err=True)
        raise SystemExit(1) from None
    if form == "use-package":
        click.echo(
            f"(use-package plistspec\n  :load-path {print_string(folder)}\n"
            "  :config (global-plistspec-mode))"
        )
    elif form == "load-path":
        click.echo(f"(add-to-list 'load-path {print_string(folder)})")
    else:
        click.echo(folder)
