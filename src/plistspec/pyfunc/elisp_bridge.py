"""The Elisp side of the bridge: the ``:function`` lambdas ``from-py`` writes, the runtime
they call, and the Elisp-facing form of a tool's ``parameters``.

Owns:

* :func:`lambda_text` — a lambda whose parameters follow ``:args`` (gptel and llm call tools
  positionally, ``nil`` for a missing optional argument) and which hands EVERY argument, ``nil``
  included, to ``plistspec-bridge-call`` with the tool's spec. ``--async`` lambdas take the
  library's callback first and never block Emacs.
* :func:`with_bridge` — what makes a generated file relocatable: ``(require
  'plistspec-bridge)`` (the runtime, ``elisp/plistspec-bridge.el`` of the Emacs package: a
  persistent ``python -P -m plistspec worker`` per module or one ``python -P -m plistspec
  call`` per call, a timeout, an ``Error:`` line whenever anything fails) and the
  ``defvar`` of the directory the modules are imported from, resolved from the file's own
  place when it is loaded. No absolute path is written unless given (``--python``), or
  when the file goes to standard output (its place unknown): then the modules' directory
  as it was is recorded as the fallback, taken when the modules are not beside the file.
* :func:`elisp_parameters` — the schema a gptel/llm user would write: an optional
  ``Optional[X]`` becomes ``X`` + ``:optional t``; an argument whose ``nil`` would be
  ambiguous is made required (:mod:`.nilvalue`); recursive ``$defs`` (which gptel cannot send)
  are unrolled a few levels; llm (which sends only ``type``, ``description``, ``enum``,
  ``items``, ``properties``) gets a one-symbol type where JSON Schema needs a union.

How JSON values survive Elisp: false arrives as ``:json-false`` (gptel) or ``nil`` (llm, at any
depth); null as ``nil`` or ``:null``; ``{}`` as ``nil``; arrays as vectors. The runtime
serializes the arguments back (a ``nil`` becomes ``{}``) and ``plistspec call --from DIALECT``
reads each ``nil`` as :mod:`.nilvalue` decided for that argument and library.
"""

from __future__ import annotations

import copy
from typing import Any

from plistspec.elisp.comment import comment_text
from plistspec.elisp.printer import print_number, print_string, print_symbol

__all__ = [
    "lambda_text",
    "elisp_parameters",
    "elisp_string",
    "arg_symbol",
    "RESERVED",
    "with_bridge",
    "DEFAULT_ROOT_VARIABLE",
    "kwargs_refusals",
    "module_probes",
]

# Symbols that are constants or global special variables with no '-' in their name: a
# lambda parameter of that name would rebind them (``obarray`` would break ``intern``).
RESERVED = frozenset(
    "argi argv debugger features nil noninteractive obarray pi t values callback".split()
)


def elisp_string(s: str) -> str:
    """``s`` as an Elisp string literal (the project's printer)."""
    return print_string(s)


def arg_symbol(name: str) -> str:
    """The lambda parameter for a Python parameter (``t`` → ``arg-t``)."""
    return print_symbol("arg-" + name if name in RESERVED else name)


def _lambda_list(params: list[tuple[str, bool]], callback: bool) -> str:
    names = [arg_symbol(n) for n, _ in params]
    # &optional only where every later parameter is optional too
    cut = len(params)
    while cut > 0 and params[cut - 1][1]:
        cut -= 1
    parts = (["callback"] if callback else []) + names[:cut]
    if cut < len(params):
        parts += ["&optional"] + names[cut:]
    return "(" + " ".join(parts) + ")"


def _args_alist(params: list[tuple[str, bool]]) -> str:
    """Every argument, ``nil`` included (``plistspec call`` decides what a ``nil`` was)."""
    if not params:
        return "nil"
    items = " ".join(f"(cons '{print_symbol(n)} {arg_symbol(n)})" for n, _ in params)
    return f"(list {items})"


BRIDGE_MODES = ("worker", "process")

# The variable a generated file's lambdas find their modules' directory in, when the
# caller names none (the CLI names FEATURE-python-directory).
DEFAULT_ROOT_VARIABLE = "tools-python-directory"


def lambda_text(
    params: list[tuple[str, bool]],
    target: str,
    *,
    root: str = DEFAULT_ROOT_VARIABLE,
    python: str | None = None,
    dialect: str = "gptel",
    async_: bool = False,
    mode: str = "worker",
    module_file: str | None = None,
    timeout: float | None = None,
) -> str:
    """The ``:function`` lambda for a tool whose ``:args`` are ``params`` ``(name, optional)``.

    It calls ``plistspec-bridge-call`` (``elisp/plistspec-bridge.el``) with the tool's spec,
    a quoted plist in which no path is absolute: ``:root`` names the variable holding the
    directory Python imports from (set when the file is loaded, :func:`with_bridge`),
    ``:module-file`` and a path ``target`` are relative to it, and ``:python`` is there
    only when given (else the library finds one when the tool is called). ``--async``
    lambdas take gptel's/llm's callback first."""
    spec = [f":root {print_symbol(root)}"]
    if module_file:
        spec.append(f":module-file {print_string(module_file)}")
    spec.append(f":target {print_string(target)}")
    spec.append(f":dialect {print_string(dialect)}")
    if mode == "process":
        spec.append(":bridge process")
    if timeout is not None:
        spec.append(f":timeout {print_number(timeout)}")
    if python:
        spec.append(f":python {print_string(python)}")
    quoted = f"'({' '.join(spec)})"
    if len(quoted) > 64:  # one key a line, as a data plist is laid out: ( :key value
        quoted = "'( " + "\n      ".join(spec) + ")"
    call = f"(plistspec-bridge-call\n   {quoted}\n   {_args_alist(params)}"
    if async_:
        return f"(lambda {_lambda_list(params, True)}\n  {call}\n   callback))"
    return f"(lambda {_lambda_list(params, False)}\n  {call}))"


def with_bridge(
    text: str,
    variable: str,
    root: str,
    fallback: str | None = None,
    probes: list[str] | None = None,
) -> str:
    """``text`` (a generated file) with ``(require 'plistspec-bridge)`` and the ``defvar``
    of ``variable`` after the ``(require ...)`` lines that follow ``;;; Code:`` (else at
    the top), and what they mean at the end of the Commentary. ``variable`` is the
    directory Python imports the tools' modules from: ``root`` (a relative path) resolved
    against the directory of the file when it is loaded (through symbolic links, as a
    dotfiles repository links it), so the file and its modules can move together; a user
    sets the variable to move them apart.

    ``fallback`` (an absolute directory: where the modules were when the file was
    written to standard output, so its place was unknown) is taken instead when none of
    ``probes`` (the modules' files, relative to that directory) is found from the file's
    own place and the fallback directory exists: ``from-py mod:f > ~/.emacs.d/tools.el``
    still finds ``mod``, and a copy moved together with its modules still finds them
    beside it."""
    lines = text.split("\n")
    sym = print_symbol(variable)
    where = "this file's own directory" if root == "." else f"{root} from this file's directory"
    note = [
        ";; The tools call Python through plistspec-bridge.el, of the plistspec Emacs",
        ";; package (its elisp/ folder on `load-path', or the package installed).  Python",
        ";; imports their modules from " + comment_text(f"`{variable}'") + ",",
        *(
            [
                ";; by default " + comment_text(where) + " when " + comment_text(probes[0]),
                ";; is there, else " + comment_text(fallback) + " (where the file was",
                ";; written, to standard output).  They run",
            ]
            if fallback and probes
            else [";; by default " + comment_text(where) + ".  They run"]
        ),
        ";; `plistspec-bridge-python', else the nearest .venv/bin/python above that",
        ";; directory up to its project root (or home; a .venv others may write or",
        ";; another user owns is passed over), else the Python of",
        ";; M-x plistspec-install-cli, else python3: it needs plistspec installed.",
    ]
    code = next((i for i, ln in enumerate(lines) if ln.startswith(";;; Code:")), None)
    if code is not None:
        while code > 0 and not lines[code - 1].strip():
            code -= 1
        lines[code:code] = ["", *note]
    at = next((i + 1 for i, ln in enumerate(lines) if ln.startswith(";;; Code:")), 0)
    j = at
    while j < len(lines) and (not lines[j].strip() or lines[j].startswith("(require ")):
        if lines[j].startswith("(require "):
            at = j + 1
        j += 1
    if fallback and probes:
        found = "\n            ".join(
            f"(file-exists-p (expand-file-name {print_string(p)} here))" for p in probes
        )
        value = [
            "  (let* ((file (or load-file-name buffer-file-name default-directory))",
            f"         (here (expand-file-name {print_string(root)}"
            " (file-name-directory (file-truename file)))))",
            f"    (if (or {found}",
            f"            (not (file-directory-p {print_string(fallback)})))",
            "        here",
            f"      {print_string(fallback)}))",
        ]
    else:
        value = [
            "  (let ((file (or load-file-name buffer-file-name default-directory)))",
            f"    (expand-file-name {print_string(root)} (file-name-directory (file-truename file))))",
        ]
    block = [
        "(require 'plistspec-bridge)",
        "",
        f"(defvar {sym}",
        *value,
        "  \"The directory Python imports these tools' modules from (plistspec from-py).",
        "By default the one the file was written for, relative to this file's",
        'directory; set it (before or after loading) if the modules are elsewhere.")',
    ]
    lines[at:at] = block
    return "\n".join(lines)


# --- the Elisp-facing schema -----------------------------------------------------------


def _simple_type(schema: dict[str, Any]) -> str | None:
    t = schema.get("type")
    return t if isinstance(t, str) else None


def _unroll(node: Any, defs: dict[str, Any], depth: int) -> Any:
    """Replace ``$ref``s into ``defs`` by their definitions, ``depth`` levels deep."""
    if isinstance(node, list):
        return [_unroll(x, defs, depth) for x in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/") and ref[8:] in defs:
        rest = {k: v for k, v in node.items() if k != "$ref"}
        if depth <= 0:
            out = {"type": "object"} if _simple_type(defs[ref[8:]]) == "object" else {}
            out.update(rest)
            return out
        base = _unroll(copy.deepcopy(defs[ref[8:]]), defs, depth - 1)
        base.update({k: _unroll(v, defs, depth) for k, v in rest.items()})
        return base
    return {k: _unroll(v, defs, depth) for k, v in node.items()}


def elisp_parameters(
    parameters: dict[str, Any], dialect: str = "gptel", unroll_depth: int = 3
) -> tuple[dict[str, Any], dict[str, str]]:
    """``(parameters as a gptel/llm user would write them, notes per argument)``.

    The notes are what a reader of the generated file should know (for a comment).
    """
    params = copy.deepcopy(parameters)
    notes: dict[str, str] = {}
    defs = params.pop("$defs", None)
    props: dict[str, Any] = params.get("properties", {})
    if defs:
        props = _unroll(props, defs, unroll_depth)
        params["properties"] = props
        names = ", ".join(sorted(defs))
        for name in props:
            if "$ref" in str(parameters["properties"].get(name)):
                notes[name] = (
                    f"recursive type ({names}): unrolled {unroll_depth} levels, because gptel and "
                    "llm cannot send $defs; deeper levels accept any object"
                )
    for name, s in list(props.items()):
        members = s.get("anyOf")
        if isinstance(members, list):
            rest = [m for m in members if m != {"type": "null"}]
            if len(rest) == 1 and len(rest) < len(members):
                new = dict(rest[0])
                for k, v in s.items():
                    if k != "anyOf" and not (k == "default" and v is None):
                        new[k] = v  # keys written next to the union win
                props[name] = s = new
                notes.setdefault(name, "may be null (JSON null, or nil, reaches Python as None)")
        if s.get("default", 0) is None:
            s.pop("default")
        if _simple_type(s) == "object" and s.get("additionalProperties", False) is not False:
            notes.setdefault(
                name,
                "a free-form object: gptel's OpenAI-family backends send top-level object "
                "arguments with additionalProperties false, so there the model can only send "
                "the listed properties (none for a dict)",
            )
        if _simple_type(s) is None:
            if dialect == "llm":
                members = s.get("anyOf") or []
                first = next((m for m in members if _simple_type(m) not in (None, "null")), None)
                t = _simple_type(first) if first else "string"
                props[name] = {"type": t, **{k: v for k, v in s.items() if k in ("description",)}}
                notes[name] = (
                    f"llm sends only one :type: the JSON Schema {_short(s)} was narrowed to {t}"
                )
            elif "anyOf" in s:
                notes.setdefault(name, "a union: no single :type, so the JSON Schema anyOf is sent")
            else:
                notes.setdefault(name, "any JSON value: no :type, so gptel sends an empty schema")
    from plistspec.pyfunc.nilvalue import decisions

    decided = decisions(parameters, dialect)
    required = [n for n in props if n in decided and not decided[n].optional]
    if required:
        params["required"] = required
    else:
        params.pop("required", None)
    return params, notes


def _short(s: Any) -> str:
    import json

    text = json.dumps(s, ensure_ascii=False)
    return text if len(text) < 80 else text[:77] + "..."


_LLM_ARG_KEYS = ("type", "description", "enum", "items", "properties")


def elisp_tools(tools: list[Any]) -> list[Any]:
    """The tools as the Elisp writer should see them: ``parameters`` replaced by the form a
    gptel/llm user would write (``metadata.elisp.parameters``), root-only JSON Schema keys
    (``additionalProperties``, ``$defs``) dropped since a tool form has no place for them."""
    out = []
    for t in tools:
        meta = t.get("metadata") or {}
        ep = (meta.get("elisp") or {}).get("parameters")
        if ep is None:
            out.append(t)
            continue
        params = {k: v for k, v in ep.items() if k in ("type", "properties", "required")}
        if meta.get("dialect") == "llm":
            params["properties"] = {
                n: {k: v for k, v in s.items() if k in _LLM_ARG_KEYS} if isinstance(s, dict) else s
                for n, s in params.get("properties", {}).items()
            }
        new = dict(t)
        new["parameters"] = params
        out.append(new)
    return out


def with_notes(text: str, tools: list[Any], dialect: str) -> str:
    """Put each tool's notes (``metadata.elisp.notes``) as ``;;`` comments above its form."""
    head = "(gptel-make-tool" if dialect == "gptel" else "(llm-make-tool"
    lines = text.split("\n")
    # at column 0, or indented inside the (defvar VAR (list ...)) of an llm file
    starts = [i for i, ln in enumerate(lines) if ln.lstrip(" ") == head]
    if len(starts) != len(tools):
        return text
    for i, t in reversed(list(zip(starts, tools, strict=True))):
        meta = t.get("metadata") or {}
        notes = (meta.get("elisp") or {}).get("notes") or {}
        py = meta.get("python") or {}
        comment = []
        if py.get("target"):
            comment.append(";; " + comment_text(f"Calls the Python function {py['target']}."))
        for name, note in notes.items():
            comment.append(";; " + comment_text(f"{name}: {note}"))
        pad = " " * (len(lines[i]) - len(head))
        lines[i:i] = [pad + c for c in comment]
    return "\n".join(lines)


def kwargs_refusals(tools: list[Any]) -> list[Any]:
    """PS618 for each tool whose parameters take more than their properties (a function's
    ``**kwargs``: root ``additionalProperties`` a schema or true), at the function: a
    gptel/llm tool has no place for it (gptel and llm send only ``:args``, gptel with
    ``additionalProperties: false`` to the OpenAI family, and call the function with
    those), so the Elisp file or the provider JSON would drop it in silence. Only the IR
    (``-t ir``) keeps it."""
    from plistspec.core.diagnostics import Diagnostic

    out = []
    for t in tools:
        extra = (t.get("parameters") or {}).get("additionalProperties")
        if extra is None or extra is False:
            continue
        py = (t.get("metadata") or {}).get("python") or {}
        line = py.get("line") or 0
        out.append(
            Diagnostic(
                "PS618",
                "error",
                f"{t.get('name')}: its **kwargs take arguments the tool does not list "
                "(additionalProperties), and a gptel/llm tool has no place for them: gptel "
                "and llm send only :args (gptel with additionalProperties false) and call the "
                "function with those, so they would be dropped. Take them as one parameter "
                "(labels: dict[str, str]); -t ir keeps them in the IR",
                path=py.get("file") or py.get("target"),
                line=line,
                column=1 if line else 0,
            )
        )
    return out


def module_probes(tools: list[Any], root: str) -> list[str]:
    """The source files of the tools' Python functions that lie inside ``root`` (the
    directory the modules are imported from), relative to it, in order, once each: what
    shows that a directory holds the modules (:func:`with_bridge`)."""
    import os

    out: list[str] = []
    for t in tools:
        f = ((t.get("metadata") or {}).get("python") or {}).get("file")
        if not isinstance(f, str):
            continue
        rel = os.path.relpath(os.path.realpath(f), os.path.realpath(root))
        if rel == os.pardir or rel.startswith(os.pardir + os.sep) or os.path.isabs(rel):
            continue
        rel = rel.replace(os.sep, "/")
        if rel not in out:
            out.append(rel)
    return out
