"""The error paths of ``from-py`` (python-schema.md §6): every unsupported annotation, bad
default, broken module and bad target gives one clear diagnostic naming the function and the
parameter, with the right code; the command exits non-zero and never prints a traceback of
plistspec's own (a module that raises on import shows *its* traceback, marked as such)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from plistspec.pyfunc import from_python

BAD = textwrap.dedent(
    """
    from __future__ import annotations
    import io
    import re
    from dataclasses import dataclass
    from typing import IO, Any, BinaryIO, Callable, Iterator, Literal, TextIO, TypedDict, TypeVar
    from typing import TYPE_CHECKING
    if TYPE_CHECKING:
        from collections import OrderedDict

    T = TypeVar("T")

    class Plain:
        pass

    @dataclass
    class HasCallable:
        fn: Callable[[], int]

    class TD(TypedDict):
        handle: io.StringIO

    def unresolved(when: Missing): "x"
    def unresolved_nested(items: list[Nope]): "x"
    def type_checking_only(d: OrderedDict): "x"
    def callable_(cb: Callable[[int], str]): "x"
    def io_(fh: IO[str]): "x"
    def textio(fh: TextIO): "x"
    def binaryio(fh: BinaryIO): "x"
    def iterator(it: Iterator[int]): "x"
    def type_(cls_: type[Plain]): "x"
    def typevar(x: T): "x"
    def plain_class(p: Plain): "x"
    def pattern(p: re.Pattern): "x"
    def int_keys(m: dict[int, str]): "x"
    def object_default(x: int = object()): "x"
    def lambda_default(x: int = lambda: 1): "x"
    def instance_default(x: int = Plain()): "x"
    def nan_default(x: float = float("nan")): "x"
    def bytes_literal(x: Literal[b"x"]): "x"
    def nested_field(h: HasCallable): "x"
    def typeddict_field(t: list[TD]): "x"
    def kwargs_callable(**kw: Callable): "x"
    def args_iterator(*a: Iterator[int]): "x"
    a_lambda = lambda x: x
    CONSTANT = 3
    """
)

# target, code, words that must appear in the message
CASES = [
    ("unresolved", "PS605", ["unresolved()", "'when'", "Missing"]),
    ("unresolved_nested", "PS605", ["'items'", "Nope"]),
    ("type_checking_only", "PS605", ["'d'", "OrderedDict"]),
    ("callable_", "PS606", ["callable_()", "'cb'", "Callable", "a callable"]),
    ("io_", "PS606", ["'fh'", "IO", "file handle", "path"]),
    ("textio", "PS606", ["'fh'", "TextIO", "file handle"]),
    ("binaryio", "PS606", ["'fh'", "BinaryIO", "file handle"]),
    ("iterator", "PS606", ["'it'", "Iterator[int]", "list"]),
    ("type_", "PS606", ["'cls_'", "type["]),
    ("typevar", "PS606", ["'x'", "type variable 'T'"]),
    ("plain_class", "PS606", ["'p'", "Plain", "dataclass"]),
    ("pattern", "PS606", ["'p'", "Pattern", "str"]),
    ("int_keys", "PS607", ["'m'", "'int'", "keys are strings"]),
    ("object_default", "PS608", ["'x'", "object()", "JSON"]),
    ("lambda_default", "PS608", ["'x'", "<lambda>", "function"]),
    ("instance_default", "PS608", ["'x'", "Plain"]),
    ("nan_default", "PS608", ["'x'", "nan"]),
    ("bytes_literal", "PS609", ["'x'", "b'x'"]),
    ("nested_field", "PS606", ["'h'", "field 'fn' of HasCallable", "Callable"]),
    ("typeddict_field", "PS606", ["'t'", "field 'handle' of TD", "file handle"]),
    ("kwargs_callable", "PS606", ["'kw'", "Callable"]),
    ("args_iterator", "PS606", ["'a'", "Iterator"]),
    ("a_lambda", "PS604", ["lambda", "def"]),
    ("CONSTANT", "PS604", ["not callable"]),
    ("nosuch", "PS603", ["'nosuch'", "bad_mod"]),
]


@pytest.fixture(scope="module")
def bad_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("bad")
    (d / "bad_mod.py").write_text(BAD, encoding="utf-8")
    return d


@pytest.fixture(scope="module")
def diags_by_target(bad_dir):
    out = {}
    for target, _code, _words in CASES:
        tools, diags = from_python(f"bad_mod:{target}", cwd=str(bad_dir))
        out[target] = (tools, [d for d in diags if d.is_error])
    sys.modules.pop("bad_mod", None)
    return out


@pytest.mark.parametrize("target,code,words", CASES, ids=[c[0] for c in CASES])
def test_error_names_function_and_parameter(diags_by_target, target, code, words):
    tools, errors = diags_by_target[target]
    assert tools == []
    assert [e.code for e in errors] == [code]
    msg = errors[0].message
    assert "\n" not in msg and "Traceback" not in msg
    for w in words:
        assert w in msg, (w, msg)


def test_return_annotation_never_blocks(bad_dir):
    """A return annotation that cannot be resolved is not an error: it never reaches parameters."""
    (bad_dir / "ret_mod.py").write_text(
        "from __future__ import annotations\nfrom typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from decimal import Decimal\n"
        "def f(a: int) -> Decimal:\n    '''F.'''\n",
        encoding="utf-8",
    )
    tools, diags = from_python("ret_mod:f", cwd=str(bad_dir))
    assert not diags and tools[0]["parameters"]["properties"] == {"a": {"type": "integer"}}


def _cli(cwd, *args):
    return subprocess.run(
        [sys.executable, "-m", "plistspec", "from-py", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )


MODULES = {
    "raises_mod.py": "import os\n\ndef helper():\n    raise ValueError('config missing')\n\nhelper()\n",
    "syntax_mod.py": "def f(:\n    pass\n",
    "dep_mod.py": "import no_such_dependency_xyz\n",
    "exit_mod.py": "import sys\nsys.exit(2)\n",
    "prints_mod.py": "print('noise at import')\ndef f(a: int):\n    '''F.'''\n",
}


@pytest.fixture(scope="module")
def cli_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli")
    for name, text in MODULES.items():
        (d / name).write_text(text, encoding="utf-8")
    (d / "bad_mod.py").write_text(BAD, encoding="utf-8")
    return d


@pytest.mark.slow
@pytest.mark.parametrize(
    "module,words",
    [
        ("raises_mod", ['raises_mod.py", line 4, in helper', "ValueError: config missing"]),
        ("syntax_mod", ['syntax_mod.py", line 1', "SyntaxError"]),
        ("dep_mod", ["No module named 'no_such_dependency_xyz'"]),
        ("exit_mod", ["SystemExit: 2"]),
    ],
)
def test_broken_module_shows_its_own_traceback(cli_dir, module, words):
    proc = _cli(cli_dir, f"{module}:f")
    assert proc.returncode == 1 and proc.stdout == ""
    err = proc.stderr
    assert f"error in {module}, not in plistspec" in err and "[PS602]" in err
    for w in words:
        assert w in err
    assert "plistspec/" not in err and "importlib" not in err


@pytest.mark.slow
@pytest.mark.parametrize(
    "target,code,word",
    [
        ("no_such_module_xyz:f", "PS601", "no module named 'no_such_module_xyz'"),
        ("bad_mod:missing_fn", "PS603", "'missing_fn' is not defined in bad_mod"),
        ("bad_mod:", "PS601", "is not a target"),
        (":f", "PS601", "is not a target"),
        ("bad_mod:1f", "PS601", "is not a target"),
        ("missing/file.py:f", "PS601", "no such Python file"),
        ("bad_mod:a_lambda", "PS604", "lambda"),
        ("bad_mod:callable_", "PS606", "parameter 'cb'"),
    ],
)
def test_cli_errors_are_one_line_and_fail(cli_dir, target, code, word):
    proc = _cli(cli_dir, target)
    assert proc.returncode == 1 and proc.stdout == ""
    lines = proc.stderr.strip().split("\n")
    assert len(lines) == 1 and f"[{code}]" in lines[0] and word in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr


def test_module_output_at_import_stays_out_of_the_file(cli_dir):
    proc = _cli(cli_dir, "prints_mod:f")
    assert proc.returncode == 0
    assert "noise at import" not in proc.stdout and proc.stdout.startswith(";;; ")
    assert "noise at import" in proc.stderr


def test_one_bad_target_fails_the_run_and_writes_nothing(cli_dir, tmp_path):
    out = tmp_path / "tools.el"
    proc = _cli(cli_dir, "prints_mod:f", "bad_mod:io_", "-o", str(out))
    assert proc.returncode == 1 and not out.exists()
    assert "io_(): parameter 'fh'" in proc.stderr


def test_dict_argument_note_for_gptel():
    """gptel's OpenAI family closes top-level object args: a dict argument gets a comment."""
    from plistspec.pyfunc.elisp_bridge import elisp_parameters

    params = {
        "type": "object",
        "properties": {
            "m": {"type": "object", "additionalProperties": {"type": "integer"}},
            "d": {"type": "object", "properties": {"x": {"type": "integer"}}},
        },
        "required": ["m", "d"],
    }
    _eparams, notes = elisp_parameters(params)
    assert "additionalProperties false" in notes["m"] and "d" not in notes
