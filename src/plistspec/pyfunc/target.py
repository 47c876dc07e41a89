"""Targets: ``module:qualname`` text → an imported Python object.

Owns: parsing a target (``module:function``, ``module:Class``, ``module:Class.method``,
``module:obj.method``, ``module`` alone, or a ``path/to/file.py`` in place of the module),
importing the module the way ``python -m`` would from the current directory (the directory on
``sys.path``), reporting an exception raised *by the user's module* with that module's own
traceback (clearly marked as such), and listing the public functions of a module.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from plistspec.pyfunc.errors import PyFuncError

__all__ = ["Target", "parse_target", "import_module", "resolve", "module_members", "load"]


class Target:
    """A parsed target: ``module`` (dotted name or ``.py`` path) and ``qualname`` (or None)."""

    __slots__ = ("module", "qualname", "is_path")

    def __init__(self, module: str, qualname: str | None, is_path: bool) -> None:
        self.module = module
        self.qualname = qualname
        self.is_path = is_path

    def text(self, qualname: str | None = None) -> str:
        q = qualname or self.qualname
        return f"{self.module}:{q}" if q else self.module


def _is_dotted(s: str) -> bool:
    return bool(s) and all(part.isidentifier() for part in s.split("."))


def parse_target(text: str) -> Target:
    text = text.strip()
    module, qual = text, None
    head, sep, tail = text.rpartition(":")
    if sep and _is_dotted(tail) and head:
        module, qual = head, tail
    is_path = module.endswith(".py") or os.sep in module or "/" in module
    if not is_path and not _is_dotted(module):
        raise PyFuncError(
            "PS601",
            f"'{text}' is not a target: write module:function, module:Class, "
            "module:Class.method, module, or path/to/file.py:function",
        )
    return Target(module, qual, is_path)


def _user_traceback(exc: BaseException) -> str:
    import traceback

    te = traceback.TracebackException.from_exception(exc)
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    te.stack = traceback.StackSummary.from_list(
        [
            f
            for f in te.stack
            if "importlib" not in f.filename
            and not f.filename.startswith("<frozen")
            and not os.path.abspath(f.filename).startswith(here + os.sep)
        ]
    )
    return "".join(te.format()).rstrip("\n")


# What plistspec itself needs once the user's module is imported: imported first, so that a
# json.py or jsonschema.py beside the user's module can never stand in for them.
PRELOAD = ("json", "re", "typing", "inspect", "dataclasses", "enum", "asyncio", "copy")


def import_module(target: Target, cwd: str | None = None, preload: tuple[str, ...] = ()) -> Any:
    """Import the target's module with cwd (and a ``.py`` path's directory) first on
    ``sys.path`` for that import alone, as ``python -m`` would; afterwards those directories
    move to the end of ``sys.path``, so that the module's own later imports still find its
    siblings but nothing plistspec imports can come from there. ``PRELOAD`` and ``preload``
    are imported before."""
    import importlib

    for name in (*PRELOAD, *preload):
        importlib.import_module(name)
    cwd = os.path.abspath(cwd or os.getcwd())
    added: list[str] = []
    try:
        return _import(target, cwd, added)
    finally:
        for d in added:
            while d in sys.path:
                sys.path.remove(d)
            sys.path.append(d)


def _import(target: Target, cwd: str, added: list[str]) -> Any:
    import importlib

    if cwd not in sys.path:
        sys.path.insert(0, cwd)
        added.append(cwd)
    if target.is_path:
        path = os.path.abspath(os.path.join(cwd, target.module))
        if not os.path.isfile(path):
            raise PyFuncError("PS601", f"{target.module}: no such Python file")
        directory = os.path.dirname(path)
        if directory not in sys.path:
            sys.path.insert(0, directory)
            added.append(directory)
        stem = os.path.splitext(os.path.basename(path))[0]
        name = (
            stem
            if stem.isidentifier() and stem not in sys.modules
            else f"_plistspec_file_{abs(hash(path))}"
        )
        import importlib.util

        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise PyFuncError("PS601", f"{target.module}: cannot be imported as a Python module")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException as e:
            sys.modules.pop(name, None)
            if isinstance(e, (KeyboardInterrupt, SystemExit)) and not isinstance(e, SystemExit):
                raise
            raise _module_error(target.module, e) from None
        return module
    try:
        return importlib.import_module(target.module)
    except ModuleNotFoundError as e:
        missing = e.name or ""
        if missing and (target.module == missing or target.module.startswith(missing + ".")):
            raise PyFuncError(
                "PS601",
                f"no module named '{target.module}' (looked in {cwd} and on sys.path); "
                "run from-py from the directory that contains it, or give a path to the .py file",
            ) from None
        raise _module_error(target.module, e) from None
    except KeyboardInterrupt:
        raise
    except BaseException as e:
        raise _module_error(target.module, e) from None


def _module_error(module: str, e: BaseException) -> PyFuncError:
    tb = _user_traceback(e)
    return PyFuncError(
        "PS602",
        f"importing {module} raised an exception; this is an error in {module}, not in plistspec. "
        f"Its traceback:\n{tb}",
    )


def resolve(module: Any, qualname: str) -> tuple[Any, Any]:
    """``(object, owner)`` for ``qualname`` in ``module``; owner is the class or instance the
    last attribute was taken from (None for module-level objects)."""
    obj: Any = module
    owner: Any = None
    walked = []
    for part in qualname.split("."):
        if isinstance(obj, type):
            raw = None
            for klass in obj.__mro__:
                if part in klass.__dict__:
                    raw = klass.__dict__[part]
                    break
            if isinstance(raw, staticmethod):
                owner, obj = obj, raw.__func__
                walked.append(part)
                continue
        try:
            nxt = getattr(obj, part)
        except AttributeError:
            where = module.__name__ + (("." + ".".join(walked)) if walked else "")
            raise PyFuncError(
                "PS603", f"'{part}' is not defined in {where}; check the spelling of the target"
            ) from None
        owner, obj = obj, nxt
        walked.append(part)
    return obj, (owner if owner is not module else None)


def module_members(module: Any) -> list[tuple[str, Any]]:
    """The public functions defined in ``module``, or the names in ``__all__``, in order."""
    names = getattr(module, "__all__", None)
    out = []
    if names is not None:
        for n in names:
            obj = getattr(module, n, None)
            if obj is not None and callable(obj):
                out.append((n, obj))
        return out
    import inspect

    for n, obj in vars(module).items():
        if n.startswith("_"):
            continue
        if (inspect.isfunction(obj) or inspect.iscoroutinefunction(obj)) and getattr(
            obj, "__module__", None
        ) == module.__name__:
            out.append((n, obj))
    return out


def load(
    target: Target, cwd: str | None = None, preload: tuple[str, ...] = ()
) -> tuple[Any, list[tuple[str, Any, Any]]]:
    """Import and resolve: ``(module, [(qualname, object, owner), ...])``."""
    module = import_module(target, cwd, preload)
    if target.qualname is None:
        return module, [(n, obj, None) for n, obj in module_members(module)]
    obj, owner = resolve(module, target.qualname)
    return module, [(target.qualname, obj, owner)]
