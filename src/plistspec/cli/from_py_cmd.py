"""``plistspec from-py`` (Python callables → tool specs), ``plistspec call`` and the hidden
``plistspec worker`` (the two Python ends of the bridge the generated ``:function`` uses).

Owns: the two commands' options, output and exit codes.

``from-py`` exits 0 when every target gave a tool, 1 when any had an error (nothing is
written then), 2 on usage errors. An exception raised while importing the user's module is
printed as that module's error, with its own traceback, and is marked as such.

``call`` reads one JSON object on standard input and prints what the tool returns (a string as
it is, anything else as JSON); on invalid arguments or an exception in the function it prints
one ``Error: ...`` line *on standard output* (the generated Elisp returns it to the model) and
exits 2 / 1 (3: the tool cannot be loaded). With ``--from gptel|llm`` (what the generated
lambdas pass) anything the user's code writes to stdout/stderr is discarded, so only the result
reaches Emacs; without it, the user's own output goes to standard error.

``worker`` answers the same calls one per line for as long as Emacs keeps it
(:mod:`plistspec.pyfunc.worker`). ``--function`` must be a symbol name other than
``nil``, ``t`` or a keyword (else exit 2).
"""

from __future__ import annotations

import os
import re
import sys

import click

from plistspec.cli._elisp_file import feature_option, variable_option
from plistspec.cli._options import (
    Command,
    deprecated_option,
    output_format_option,
    output_option,
    target_option,
)
from plistspec.core.formats import FORMATS, REPORT_FORMATS

ELISP_FORMATS = ("elisp",)
# a name Emacs reads as one symbol (not a number): what --function may name
_SYMBOL = re.compile(r"(?!-?[0-9]+\.?[0-9]*$)[\w\-+*/<>=!$%&^~@|{}:.]+\Z")
JSON_FORMATS = FORMATS


@click.command("from-py", cls=Command)
@click.argument("targets", nargs=-1, required=True, metavar="MODULE[:NAME]...")
@click.option(
    "-d", "--dialect", type=click.Choice(["gptel", "llm"]), default="gptel", show_default=True
)
@target_option(
    ELISP_FORMATS + JSON_FORMATS,
    default="elisp",
    help="elisp (a file of tool forms), ir, or the provider whose tools array to print.",
)
@deprecated_option("-f", "-t", "target", type=click.Choice(ELISP_FORMATS + JSON_FORMATS))
@deprecated_option(
    "--format", "--target", "target", type=click.Choice(ELISP_FORMATS + JSON_FORMATS)
)
@output_option
@feature_option
@variable_option
@click.option(
    "--python",
    "python",
    default=None,
    metavar="PYTHON",
    help="Interpreter the generated :function runs, written into the file (default: none "
    "is written; Emacs runs plistspec-bridge-python, else the nearest .venv above the "
    "modules within their project, else the Python of M-x plistspec-install-cli, else "
    "python3).",
)
@click.option(
    "--async", "async_", is_flag=True, help="Write :async t tools that never block Emacs."
)
@click.option(
    "--bridge",
    type=click.Choice(["worker", "process"]),
    default="worker",
    show_default=True,
    help="worker: one persistent Python per module; process: a new Python for every call.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    metavar="SECONDS",
    help="Stop a call after SECONDS (default: plistspec-bridge-timeout in Emacs, 60).",
)
@click.option(
    "--function",
    "function",
    default=None,
    metavar="SYMBOL",
    help="Write :function #'SYMBOL instead of a lambda calling Python.",
)
@click.option("--strict-types", is_flag=True, help="Unannotated parameters and Any are errors.")
@click.option(
    "--lenient-defaults",
    is_flag=True,
    help="Drop defaults JSON cannot hold (a warning), not an error.",
)
@click.option(
    "--skip",
    multiple=True,
    metavar="NAME",
    help="Keep a parameter (by name or type name) out of the schema; it needs a default.",
)
@output_format_option()
@deprecated_option(
    "--diagnostics-format", "--output-format", "output_format", type=click.Choice(REPORT_FORMATS)
)
def from_py_cmd(
    targets: tuple[str, ...],
    dialect: str,
    target: str,
    out: str | None,
    feature: str | None,
    variable: str | None,
    python: str | None,
    async_: bool,
    bridge: str,
    timeout: float | None,
    function: str | None,
    strict_types: bool,
    lenient_defaults: bool,
    skip: tuple[str, ...],
    output_format: str,
) -> None:
    """Tool specs from Python callables.

    MODULE[:NAME] is module:function, module:Class, module:Class.method, module:obj.method,
    or a module alone (its public functions, or __all__); module may be a path to a .py file.
    The module is imported as `python -m` would, from the current directory.
    """
    import contextlib

    if function is not None:
        name = function.removeprefix("#'")
        if not _SYMBOL.match(name):
            raise click.BadParameter(
                f"{function!r} is not a symbol name (letters, digits and -_+*/<>=!$%&^~@|{{}}:.)",
                param_hint="'--function'",
            )
        if name in ("nil", "t") or name.startswith(":"):
            what = "a keyword" if name.startswith(":") else f"`{name}'"
            raise click.BadParameter(
                f"{function!r} names no function ({what} cannot be called): give the "
                "name of the Emacs function the tool calls",
                param_hint="'--function'",
            )

    from plistspec.emit_elisp import feature_name, feature_problem
    from plistspec.pyfunc import from_python

    file_name = out if out != "-" else None
    problem = feature_problem(file_name, feature)
    if problem is not None:  # the bridge's variable is named after the feature too
        from plistspec.cli._io import finish
        from plistspec.core.diagnostics import Diagnostic

        finish([Diagnostic("PS526", "error", problem)], output_format, None, out, failed=True)
    root = f"{feature_name(file_name, feature)}-python-directory"
    # whatever the user's module prints while it is imported must not end up in the output
    with contextlib.redirect_stdout(sys.stderr):
        tools, diags = from_python(
            list(targets),
            python=python,
            async_=async_,
            function=function,
            dialect=dialect,
            strict_types=strict_types,
            lenient_defaults=lenient_defaults,
            skip=skip,
            bridge=bridge,
            timeout=timeout,
            root=root,
        )
    _note_modules(targets)
    text = None
    if target != "ir":  # what gptel/llm make and send has no place for **kwargs
        from plistspec.pyfunc.elisp_bridge import kwargs_refusals

        diags.extend(kwargs_refusals(tools))
    if not any(d.is_error for d in diags):
        text, more = _render(tools, target, dialect, out, feature, variable, root)
        diags.extend(more)
        if target == "elisp" and python is None and _calls_python(tools):
            from plistspec.pyfunc.interpreter import python_warning

            warning = python_warning(os.getcwd())
            if warning is not None:
                warning.path = _first_file(tools)
                diags.append(warning)
    from plistspec.cli._io import finish

    finish(diags, output_format, text, out, failed=text is None)


def _first_file(tools) -> str | None:
    """The source file of the first tool's Python function (where a finding about the
    tools as a whole is shown), None when unknown."""
    for t in tools:
        f = ((t.get("metadata") or {}).get("python") or {}).get("file")
        if f:
            return f
    return None


def _calls_python(tools) -> bool:
    return any("(plistspec-bridge-call" in t["metadata"].get("function", "") for t in tools)


def _modules_from(out: str | None) -> str:
    """Where the modules are imported from (the current directory), relative to the
    directory of the file written (``out``; standard output: the current directory).

    Counted from where the file really is, as Emacs finds it (``file-truename``): a
    symbolic link on the way to ``out`` (a linked /tmp, a dotfiles tree) or ``out`` itself
    a link (written through to the file it names, :func:`plistspec.cli._io.write_output`)
    must not count its own ``..`` steps. The current directory is a real path already."""
    here = os.getcwd()
    where = os.path.dirname(os.path.realpath(out)) if out and out != "-" else here
    try:
        rel = os.path.relpath(here, where)
    except ValueError:  # another drive (Windows): no relative path exists
        return here
    return rel.replace(os.sep, "/")


def _note_modules(targets: tuple[str, ...]) -> None:
    """Count the file of each module the targets name (``mod:f``, ``pkg.mod``,
    ``path/to/m.py:f``) among the run's inputs, so ``-o`` never replaces it."""
    from plistspec.cli._io import note_input

    for t in targets:
        module = t.split(":", 1)[0] if not os.path.exists(t) else t
        if module.endswith(".py") or os.sep in module:
            note_input(module)
            continue
        m = sys.modules.get(module)
        f = getattr(m, "__file__", None) if m is not None else None
        if isinstance(f, str):
            note_input(f)


def _render(tools, fmt: str, dialect: str, out: str | None, feature=None, variable=None, root=None):
    if fmt == "elisp":
        from plistspec.pyfunc.elisp_bridge import elisp_tools, with_bridge, with_notes

        etools = elisp_tools(tools)
        from plistspec.emit_elisp import to_elisp

        text, diags = to_elisp(
            etools,
            dialect,
            file_name=out if out and out != "-" else None,
            feature=feature,
            variable=variable,
        )
        text = with_notes(text, etools, dialect)
        if _calls_python(tools):
            fallback = probes = None
            if not out or out == "-":  # its place is unknown: record where the modules are
                from plistspec.pyfunc.elisp_bridge import module_probes

                fallback = os.getcwd()
                probes = module_probes(tools, fallback)
            text = with_bridge(text, root, _modules_from(out), fallback, probes)
        return text, diags
    from plistspec.core.jsonout import dumps

    if fmt == "ir":
        return dumps(tools), []
    from plistspec.emit_json import emit

    value, diags = emit(tools, fmt)
    if any(d.is_error for d in diags):
        return None, diags
    return dumps(value), diags


@click.command("call")
@click.argument("target", metavar="MODULE:NAME")
@click.option(
    "--from",
    "from_elisp",
    type=click.Choice(["gptel", "llm"]),
    default=None,
    help="The arguments were serialized by this library's generated lambda: repair nil.",
)
@click.option(
    "--args", "args_text", default=None, metavar="JSON", help="Arguments (default: stdin)."
)
def call_cmd(target: str, from_elisp: str | None, args_text: str | None) -> None:
    """Call MODULE:NAME (a Python function) with the JSON object on standard input.

    Prints the result (a string as is, anything else as JSON) and a line feed (not with
    --from: the tool's text as Emacs hands it to the model). Invalid arguments or an
    exception print one `Error: ...` line on standard output; exit 2 / 1 (3: not loadable).
    """
    if args_text is None:
        data = sys.stdin.buffer.read()
        try:
            args_text = data.decode("utf-8")
        except UnicodeDecodeError:
            args_text = data.decode("utf-8", "replace")
    sys.stdout.flush()
    sys.stderr.flush()
    real_out = os.dup(1)
    if from_elisp:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        os.close(devnull)
    else:
        os.dup2(2, 1)
    try:
        from plistspec.pyfunc.bridge import call

        code, text = call(target, args_text, from_elisp=from_elisp)
    except BaseException as e:  # a bug of ours: still one line the model can read
        if isinstance(e, KeyboardInterrupt):
            raise
        code, text = 3, f"Error: plistspec call failed: {type(e).__name__}: {e}"
    sys.stdout.flush()
    with os.fdopen(real_out, "wb") as f:
        f.write(text.encode("utf-8") + (b"" if from_elisp or text.endswith("\n") else b"\n"))
    os._exit(code) if from_elisp else sys.exit(code)


@click.command("worker", hidden=True)
def worker_cmd() -> None:
    """The persistent Python end of the generated tools' bridge (see pyfunc.worker)."""
    from plistspec.pyfunc.worker import serve

    sys.stdout.flush()
    os._exit(serve())
