"""The Elisp side of the bridge: the ``:function`` lambdas ``from-py`` writes, and the
Elisp-facing form of a tool's ``parameters``.

Owns:

* :func:`lambda_text` — a lambda whose parameters follow ``:args`` (gptel and llm call tools
  positionally, ``nil`` for a missing optional argument) and which runs
  ``PYTHON -m plistspec call --from DIALECT TARGET`` with the arguments as ONE JSON object on
  standard input, returning what it prints. Synchronous: ``call-process-region``.
  ``--async``: ``make-process`` + a sentinel that calls gptel's/llm's callback; Emacs never
  blocks.
* :func:`elisp_parameters` — the schema a gptel/llm user would write: an optional
  ``Optional[X]`` becomes ``X`` + ``:optional t``; recursive ``$defs`` (which gptel cannot send)
  are unrolled a few levels; llm (which sends only ``type``, ``description``, ``enum``,
  ``items``, ``properties``) gets a one-symbol type where JSON Schema needs a union.

How JSON values survive Elisp (see ``docs`` in the report and :mod:`plistspec.bridge`):

* gptel parses the model's arguments with ``:null-object nil :false-object :json-false``, so
  false arrives as ``:json-false`` and is serialized back with ``:false-object :json-false``;
  arrays arrive as vectors (``[]`` stays ``[]``); objects arrive as plists.
* ``nil`` is ambiguous (null, a missing argument, or ``{}``): the lambda leaves ``nil``
  arguments out of the JSON object, so Python defaults apply; ``plistspec call --from gptel``
  repairs the rest against the schema (a missing required argument that may be null becomes
  ``None``, one that must be an object becomes ``{}``; a nested ``{}`` where the schema wants no
  object becomes ``null``, or is dropped when the key is optional).
* llm hands *synchronous* tools its arguments with false turned into ``nil``; so for llm the
  lambda is declared ``:async t`` (it still runs synchronously unless ``--async``), which gets
  the raw values (``:false``, ``:null``), serialized with ``json-serialize``'s defaults.
"""

from __future__ import annotations

import copy
from typing import Any

__all__ = ["lambda_text", "elisp_parameters", "elisp_string", "arg_symbol", "RESERVED"]

# Symbols that are constants or global special variables with no '-' in their name: a
# lambda parameter of that name would rebind them (``obarray`` would break ``intern``).
RESERVED = frozenset(
    "argi argv debugger features nil noninteractive obarray pi t values callback".split()
)


def elisp_string(s: str) -> str:
    """``s`` as an Elisp string literal (only ``"`` and ``\\`` need escapes; newlines as \\n)."""
    out = ['"']
    for ch in s:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif ord(ch) < 32 or ord(ch) == 127:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _sym_escape(name: str) -> str:
    out = []
    for ch in name:
        if ch.isalnum() or ch in "-_+*/<>=!$%&^~@|{}:":
            out.append(ch)
        else:
            out.append("\\" + ch)
    return "".join(out)


def arg_symbol(name: str) -> str:
    """The lambda parameter for a Python parameter (``t`` → ``arg-t``)."""
    if name in RESERVED:
        return "arg-" + name
    return _sym_escape(name)


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
    if not params:
        return "nil"
    items = " ".join(
        f"(and {arg_symbol(n)} (cons '{_sym_escape(n)} {arg_symbol(n)}))" for n, _ in params
    )
    return f"(delq nil (list {items}))"


def lambda_text(
    params: list[tuple[str, bool]],
    target: str,
    *,
    python: str,
    cwd: str,
    dialect: str = "gptel",
    async_: bool = False,
) -> str:
    """The ``:function`` lambda for a tool whose ``:args`` are ``params`` ``(name, optional)``."""
    if dialect == "gptel":
        serialize = ":null-object :null :false-object :json-false"
    else:
        serialize = ":null-object :null :false-object :false"
    program = elisp_string(python)
    args = " ".join(elisp_string(a) for a in ("-m", "plistspec", "call", "--from", dialect, target))
    command = f"{program} {args}"
    failed = elisp_string(f"Error: could not run the Python tool {target} (exit %s): %s")
    cwd_dir = cwd if cwd.endswith("/") else cwd + "/"
    head = (
        f"  (let ((default-directory {elisp_string(cwd_dir)})\n"
        f"        (json (json-serialize {_args_alist(params)}\n"
        f"                              {serialize})))\n"
    )
    if not async_:
        body = (
            "    (with-temp-buffer\n"
            "      (let* ((coding-system-for-write 'utf-8-unix)\n"
            "             (coding-system-for-read 'utf-8-unix)\n"
            f"             (status (call-process-region json nil {program} nil t nil\n"
            f"                                          {args})))\n"
            "        (if (and (not (eql status 0)) (= (buffer-size) 0))\n"
            f'            (format {failed} status "")\n'
            "          (buffer-string))))"
        )
        if dialect == "gptel":
            return f"(lambda {_lambda_list(params, False)}\n{head}{body}))"
        # llm: declared :async t so that false arrives as :false, not nil; runs synchronously
        return (
            f"(lambda {_lambda_list(params, True)}\n{head}"
            f"    (funcall callback\n  {_indent(body, 2)})))"
        )
    body = (
        "    (condition-case err\n"
        "        (let ((proc (make-process\n"
        '                     :name "plistspec-call"\n'
        '                     :buffer (generate-new-buffer " *plistspec-call*")\n'
        f"                     :command (list {command})\n"
        "                     :coding 'utf-8-unix\n"
        "                     :connection-type 'pipe\n"
        "                     :noquery t\n"
        "                     :sentinel\n"
        "                     (lambda (proc _event)\n"
        "                       (unless (process-live-p proc)\n"
        "                         (let ((buf (process-buffer proc)))\n"
        "                           (funcall callback\n"
        "                                    (with-current-buffer buf\n"
        "                                      (if (and (not (eql (process-exit-status proc) 0))\n"
        "                                               (= (buffer-size) 0))\n"
        f'                                          (format {failed} (process-exit-status proc) "")\n'
        "                                        (buffer-string))))\n"
        "                           (kill-buffer buf)))))))\n"
        "          (process-send-string proc json)\n"
        "          (process-send-eof proc))\n"
        f'      (error (funcall callback (format {failed} "-" (error-message-string err)))))'
    )
    return f"(lambda {_lambda_list(params, True)}\n{head}{body}))"


def _indent(text: str, n: int) -> str:
    pad = " " * n
    return "\n".join(pad + ln if ln else ln for ln in text.split("\n")).lstrip()


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
    required = list(params.get("required", []))
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
                if name in required:
                    required.remove(name)
                notes.setdefault(
                    name, "may be null: omitted (nil) here, so Python receives its default or None"
                )
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
            comment.append(f";; Calls the Python function {py['target']}.")
        for name, note in notes.items():
            comment.append(f";; {name}: {note}".replace("\n", " "))
        pad = " " * (len(lines[i]) - len(head))
        from plistspec.elisp.comment import comment_text  # a path or note never leaves its line

        lines[i:i] = [pad + ";; " + comment_text(c[3:]) for c in comment]
    return "\n".join(lines)
