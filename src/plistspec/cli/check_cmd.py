"""``plistspec check``: diagnostics for tool specs, for people, editors and CI.

Owns: the command's options, how inputs, configuration, fixes and output files are
read and written, and its exit codes. What is found is :func:`plistspec.checking.run.findings`
(checking, rule selection, suppressions); how it is printed is :mod:`plistspec.checking.report`
(``gnu``, ``json``, ``github``, ``sarif``, ``--statistics``); fixes are
:mod:`plistspec.checking.fixes`; configuration files :mod:`plistspec.checking.config`.

Exit codes: 1 when an error is reported (with ``--fix``: when an error is left after
fixing; with ``--diff``: when a file would change), else 0; 2 for usage errors and invalid
configuration. ``--exit-zero`` makes it 0 whenever the check ran, errors found or not (as
ruff's flag does): editors pass it, so that any other status means the check itself
failed (the Flymake backend in ``elisp/plistspec.el`` does).

Fixing (``--fix``): each file is rewritten atomically (a temporary file in its directory,
renamed over it, with the file's mode and owner; through a symlink, its target is
rewritten; a file with several hard links is rewritten in place so the links stay; a
file that is not writable is not touched and is reported), keeping a byte-order mark and
raw bytes as they were. With ``-`` the whole fixed text goes to standard output and the
findings left to standard error (``ruff check --fix -``), which is how an editor fixes a
buffer.
"""

from __future__ import annotations

import os
import sys

import click

from plistspec.cli._from_emacs import from_emacs_options
from plistspec.cli._options import (
    Command,
    deprecated_option,
    output_format_option,
    stdin_filename_option,
    target_option,
)
from plistspec.cli._paths import force_exclude_option, input_files
from plistspec.core.formats import REPORT_FORMATS as FORMATS
from plistspec.core.formats import TARGETS, report_is_empty


def _selectors(values: tuple[str, ...], option: str) -> list[str]:
    from plistspec.checking.selection import invalid_selector, split_selectors

    out = split_selectors(values)
    for s in out:
        why = invalid_selector(s)
        if why is not None:
            raise click.BadParameter(why, param_hint=option)
    return out


def _serve(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    from plistspec.cli.check_server import serve

    ctx.exit(serve(check_cmd))


@click.command("check", cls=Command)
@click.argument("files", nargs=-1, metavar="[FILE|DIR]...")
@click.option(
    "--server",
    is_flag=True,
    is_eager=True,
    expose_value=False,
    callback=_serve,
    help="Stay running and answer check requests on stdin (for editors; see "
    "plistspec.cli.check_server for the framing). No FILE is given.",
)
@target_option(
    TARGETS,
    help="Also report what this provider would reject or ignore in the JSON gptel/llm send it.",
)
@click.option(
    "-d",
    "--dialect",
    type=click.Choice(["gptel", "llm"]),
    default=None,
    help="Check every tool with this library's rules (default: each form's own).",
)
@output_format_option()
@deprecated_option("--format", "--output-format", "output_format", type=click.Choice(FORMATS))
@stdin_filename_option
@click.option(
    "--exit-zero",
    is_flag=True,
    default=False,
    help="Exit 0 even when errors are found (for editors: any other status is a failure).",
)
@click.option("--fix", is_flag=True, default=False, help="Apply the safe fixes, in place.")
@click.option(
    "--unsafe-fixes",
    is_flag=True,
    default=False,
    help="Also apply fixes that change what gptel/llm send (with --fix or --diff).",
)
@click.option(
    "--diff", is_flag=True, default=False, help="Print the fixes as a unified diff; write nothing."
)
@click.option(
    "--select",
    multiple=True,
    metavar="CODES",
    help="Report only these codes or prefixes (PS3,PS401).",
)
@click.option("--extend-select", multiple=True, metavar="CODES", help="Report these codes too.")
@click.option("--ignore", multiple=True, metavar="CODES", help="Do not report these codes.")
@click.option("--statistics", is_flag=True, default=False, help="Print a count per code instead.")
@click.option(
    "--output-file",
    "-o",
    "output_file",
    default=None,
    metavar="FILE",
    help="Write the report to FILE (atomically) instead of standard output.",
)
@click.option(
    "--config",
    "config_file",
    default=None,
    metavar="FILE",
    help="Use this .plistspec.toml / pyproject.toml instead of finding one.",
)
@click.option("--isolated", is_flag=True, default=False, help="Read no configuration file.")
@click.option(
    "--loaded-together",
    is_flag=True,
    default=False,
    help="The files are loaded into one Emacs, in the order given (a configuration split "
    "into files): report a tool name made in more than one of them (PS340).",
)
@force_exclude_option
@from_emacs_options
def check_cmd(
    files: tuple[str, ...],
    target: str | None,
    dialect: str | None,
    output_format: str,
    stdin_filename: str | None,
    exit_zero: bool,
    fix: bool,
    unsafe_fixes: bool,
    diff: bool,
    select: tuple[str, ...],
    extend_select: tuple[str, ...],
    ignore: tuple[str, ...],
    statistics: bool,
    output_file: str | None,
    config_file: str | None,
    isolated: bool,
    loaded_together: bool,
    force_exclude: bool,
    from_emacs: str | None,
    llm_variable: str | None,
) -> None:
    """Check the tool definitions in FILE... (- for stdin; the .el files of DIR).

    Reports syntax errors, what gptel/llm would refuse, spec mistakes and surprises
    (unknown keys with did-you-mean, missing :type, :enum as a list...) and, with
    --target, what that provider would reject. `plistspec explain CODE` explains a code.
    Configuration: the nearest .plistspec.toml or pyproject.toml [tool.plistspec].
    """
    from plistspec.checking.selection import Layer
    from plistspec.cli._io import InputError, read_buffer

    if files.count("-") > 1:
        raise click.UsageError("standard input (-) can be read only once")
    if not files and from_emacs is None:
        files = (".",)  # as `ruff check`: the current folder
    if config_file is not None and isolated:
        raise click.UsageError("--config and --isolated exclude each other")
    if diff and fix:
        fix = False  # --diff shows what --fix would do, and writes nothing
    cli_layer = Layer(
        select=_selectors(select, "--select") if select else None,
        extend_select=_selectors(extend_select, "--extend-select"),
        ignore=_selectors(ignore, "--ignore"),
    )
    from plistspec.checking.config import ConfigCache, ConfigError
    from plistspec.checking.run import findings, settings_for
    from plistspec.core.diagnostics import Diagnostic, locate

    if output_file is not None:
        for path in files:
            try:
                same = path != "-" and os.path.samefile(path, output_file)
            except OSError:
                same = False
            if same:
                raise click.BadParameter(
                    f"{output_file} is the input {path}: the report would replace it",
                    param_hint="--output-file",
                )
    configs = ConfigCache(config_file, isolated)
    if config_file is not None and not os.path.isfile(config_file):
        raise click.BadParameter(f"{config_file}: no such file", param_hint="--config")
    files, _ = input_files(files, configs, force_exclude)  # folders: their .el files

    reported: list[Diagnostic] = []
    texts: dict[str, str | None] = {}
    tool_forms: dict[str, int] = {}  # of each input, as check found them
    changed_files = 0
    fixed_total = 0
    unsafe_left = 0  # findings left with a fix --unsafe-fixes would apply
    fixable: set[str] = set()
    # Every configuration first: an invalid one stops the run before any file is touched.
    config_errors: list[Diagnostic] = []
    per_input = []
    for path in files:
        discover = (stdin_filename or None) if path == "-" else path
        try:
            per_input.append(configs.for_path(discover))
        except ConfigError as e:
            if all(e.diagnostic.render() != d.render() for d in config_errors):
                config_errors.append(e.diagnostic)
    if config_errors:
        from plistspec.checking.report import render

        sys.stderr.write(render(config_errors, "gnu"))
        sys.exit(2)
    # The tools of a running Emacs: each printed as the form that makes it (emacs:NAME),
    # checked like a file's text, with the configuration of the current directory.
    inputs: list[tuple[str, object, str | None]] = [
        (p, cfg, None) for p, cfg in zip(files, per_input, strict=True)
    ]
    if from_emacs is not None:
        from plistspec.cli._from_emacs import registry_entries

        try:
            here = configs.for_path(None)
        except ConfigError as e:
            sys.stderr.write(e.diagnostic.render() + "\n")
            sys.exit(2)
        for e in registry_entries(from_emacs, llm_variable):
            inputs.append((f"emacs:{e['name']}", here, e["form"]))
    # PS340 across the files of this check when they are one configuration loaded into one
    # Emacs (each file is compared with the files checked before it). Not by default: the
    # files of a folder are most often separate examples, tests and packages.
    names = None
    if loaded_together and sum(1 for _, _, given in inputs if given is None) > 1:
        from plistspec.lint.across_forms import ToolNames

        names = ToolNames()
    for path, cfg, given in inputs:
        if given is not None:
            from plistspec.cli._io import Layout

            text, problem, layout, name = given, None, Layout(), path
        else:
            _, text, problem, layout = read_buffer(path, stdin_filename)
            # The exact name: report.py escapes it in line formats, JSON/SARIF keep it.
            name = path if path != "-" else (stdin_filename or "<stdin>")
        settings = settings_for(cfg, cli_layer, target, dialect)
        found = [problem] if problem is not None else []
        texts[name] = text
        if text is None:
            reported.extend(found)
            continue

        mine = names if given is None else None

        def run(t: str, name: str = name, settings=settings, mine=mine) -> list[Diagnostic]:
            tally: dict[str, int] = {}
            if mine is not None:
                mine.pending = {}
            out = findings(t, name, settings, tally, mine)
            tool_forms[name] = tally["tool_forms"]  # of the last text checked
            return out

        if (fix or diff) and given is None:
            from plistspec.checking.fixes import fix_text

            outcome = fix_text(text, run, unsafe=unsafe_fixes, dialect=settings.dialect)
            more = outcome.remaining
            if not unsafe_fixes:
                unsafe_left += sum(1 for d in more if d.fix is not None)
            why = None
            if outcome.changed and not layout.exact:  # as fmt: never rewrite other lines
                why = (
                    "PS902",
                    "cannot keep this file's mixed line endings (its coding cookie names an "
                    "EOL type the file does not use consistently)",
                )
            elif outcome.changed and not diff and path != "-":
                why = _write_in_place(path, name, layout.encode(outcome.text), layout.state)
            if why is not None:  # nothing written: report the file as it is
                more = run(text)
                code, why = why
                reported.append(Diagnostic(code, "error", f"not fixed: {why}", path=name))
                outcome.text = text
            elif outcome.changed:
                fixed_total += len(outcome.applied)
                changed_files += 1
                _summarize(name, outcome, diff)
                if diff:  # the file's own bytes: its BOM, line endings and raw bytes
                    from plistspec.cli._diff import print_diff

                    print_diff(name, layout.encode(text), layout.encode(outcome.text))
            for w in outcome.withheld:
                click.echo(
                    f"{_where(w)}: {w.code} fix not applied: it would change what "
                    "gptel/llm send (--unsafe-fixes applies it)",
                    err=True,
                )
            if path == "-" and fix:
                if outcome.text is text and layout.raw is not None:
                    sys.stdout.buffer.write(layout.raw)  # unchanged: the bytes as they came
                else:
                    sys.stdout.buffer.write(
                        layout.encode(outcome.text).encode("utf-8", "surrogateescape")
                    )
            texts[name] = outcome.text if not diff else text
        else:
            more = run(text)
        if problem is not None and any(
            d.code == "PS001" and d.start == problem.start for d in more
        ):
            found = []  # the reader says it at that very place
        found.extend(more)
        if given is None and not more:  # JSON given to check: no tool form, and it says so
            from plistspec.cli._io import json_not_elisp

            hint = json_not_elisp(name, text, "check")
            if hint is not None:
                found.extend(locate([hint], text, name))
        reported.extend(found)
        if mine is not None:
            mine.commit()  # the names of the text as checked last (after --fix: the fixed one)
        for d in found:
            if d.fix is not None:
                from plistspec.checking.fixes import is_safe

                if unsafe_fixes or is_safe(d.code, d.severity):
                    fixable.add(d.code)
    if diff or (not statistics and report_is_empty(len(reported), output_format)):
        out = ""  # nothing to print: not even the report module is loaded
    elif statistics:
        from plistspec.checking.report import render_statistics

        out = render_statistics(reported, output_format, fixable)
    else:
        from plistspec.checking.report import render

        out = render(reported, output_format, texts)
    stdin_fixed = fix and "-" in files
    if output_file is not None:
        from plistspec.cli._io import write_output

        try:
            write_output(out, output_file)
        except InputError as e:
            click.echo(str(e), err=True)
            sys.exit(1)
    elif stdin_fixed:
        sys.stderr.write(out)
    else:
        sys.stdout.write(out)
    sys.stdout.flush()
    if not reported and output_format == "gnu" and not (statistics or fix or diff):
        from plistspec.cli._paths import all_passed

        click.echo(all_passed(len(texts), sum(tool_forms.values())), err=True)  # stdout: empty
    if fix or diff:
        verb = "Would fix" if diff else "Fixed"
        left = sum(1 for d in reported if d.severity == "error")
        click.echo(
            f"{verb} {fixed_total} finding{'s' * (fixed_total != 1)} in {changed_files} "
            f"file{'s' * (changed_files != 1)}; {len(reported)} left ({left} error"
            f"{'s' * (left != 1)}){_unsafe_note(unsafe_left)}.",
            err=True,
        )
    if exit_zero:
        sys.exit(0)
    if diff:
        sys.exit(1 if changed_files else 0)
    sys.exit(1 if any(d.severity == "error" for d in reported) else 0)


def _unsafe_note(n: int) -> str:
    """What ruff says of its hidden fixes: how many of the findings left have a fix that
    changes what gptel/llm send, and the option that applies them."""
    if not n:
        return ""
    if n == 1:
        return "; 1 fix is unsafe: --unsafe-fixes applies it"
    return f"; {n} fixes are unsafe: --unsafe-fixes applies them"


def _where(d) -> str:
    from plistspec.checking.report import one_line

    path = one_line(d.path or "<input>")
    return f"{path}:{d.line}:{d.column}" if d.line else path


def _summarize(name: str, outcome, diff: bool) -> None:
    """One line per fix applied, on standard error: ``FILE:LINE:COL: fixed CODE message``."""
    from plistspec.checking.report import one_line

    verb = "would fix" if diff else "fixed"
    for d in outcome.applied:
        click.echo(f"{_where(d)}: {verb} {d.code}: {one_line(d.message)}", err=True)


def _write_in_place(path: str, name: str, text: str, state) -> tuple[str, str] | None:
    """Rewrite the input ``path`` (read as ``state``) with ``text`` as ``fmt -i`` does
    (:func:`plistspec.cli._rewrite.rewrite_file`); ``(code, why not)`` when it cannot be
    (PS904: the file changed since it was read)."""
    from plistspec.cli._io import InputError
    from plistspec.cli._rewrite import check_rewritable, rewrite_file

    try:
        check_rewritable(path, name)
        rewrite_file(path, name, text, state)
    except InputError as e:
        return e.code, e.reason or str(e)
    except OSError as e:
        return "PS902", e.strerror or str(e)
    return None
