"""Hostile and careless input to the Python bridge (issue 13): nothing plistspec imports comes
from the user's directory, bad arguments and odd results give one ``Error:`` line or valid
output (never a traceback), a tool that never returns is stopped, and names with ``%`` or a
newline cannot break the generated Elisp."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from plistspec.elisp.printer import print_string
from support import ROOT, elisp_deps_preamble

TOOLS = '''
import sys, time


def deep(x: dict) -> str:
    """D."""
    return "ok"


def quits() -> str:
    """Q."""
    sys.exit(5)


def surrogate() -> str:
    """S."""
    return "a\\ud800b"


def multi() -> str:
    """M."""
    raise ValueError("line1\\nline2")


def nan() -> list:
    """N."""
    return [float("nan"), float("inf"), "NaN"]


def noisy(x: int) -> int:
    """Prints to stdout and stderr, at every level."""
    import os

    print("NOISE")
    sys.stderr.write("ERR\\n")
    os.write(1, b"RAW\\n")
    return x + 1


def big(n: int) -> str:
    """A long answer."""
    return ("ab\\nü" * n)[:n]


def forever() -> str:
    """F."""
    time.sleep(1000)
    return "never"
'''


def _env():
    env = dict(os.environ)
    src = str(ROOT / "src")
    env["PYTHONPATH"] = os.pathsep.join(
        filter(None, [src, env.get("PYTHONPATH")])
    )  # no empty entry: "" is the cwd
    return env


@pytest.fixture
def tooldir(tmp_path):
    d = tmp_path / "odd %s %d dir"
    d.mkdir()
    (d / "tool.py").write_text(TOOLS)
    for name in ("json", "jsonschema", "click", "re", "typing"):
        (d / f"{name}.py").write_text(f'raise SystemExit("HIJACKED by {name}.py")\n')
    return d


def _call(d, target, args, *extra):
    p = subprocess.run(
        [sys.executable, "-P", "-m", "plistspec", "call", *extra, f"tool:{target}"],
        input=args.encode(),
        cwd=d,
        capture_output=True,
        env=_env(),
        timeout=60,
    )
    out = p.stdout.decode("utf-8")
    if "--from" not in extra:  # at a terminal: one line feed after the text (issue 29 §5)
        assert out.endswith("\n"), out
        out = out[:-1]
    return p.returncode, out, p.stderr.decode("utf-8", "replace")


@pytest.mark.slow
def test_call_odd_arguments_and_results(tooldir):
    deep = '{"x":' * 2000 + "1" + "}" * 2000
    code, out, err = _call(tooldir, "deep", deep)
    assert (code, out) == (2, "Error: invalid arguments for deep(): nested too deeply")
    assert "Traceback" not in err
    assert _call(tooldir, "quits", "{}")[:2] == (1, "Error: quits() exited (sys.exit(5))")
    assert _call(tooldir, "surrogate", "{}")[:2] == (0, "a\ufffdb")
    code, out, _ = _call(tooldir, "multi", "{}")
    assert code == 1 and "\n" not in out and out.endswith("ValueError: line1 line2")
    code, out, _ = _call(tooldir, "nan", "{}")
    assert code == 0 and json.loads(out) == ["NaN", "Infinity", "NaN"]
    assert _call(tooldir, "noisy", '{"x": 1}', "--from", "gptel")[:2] == (0, "2")


@pytest.mark.slow
def test_nothing_of_plistspec_comes_from_the_modules_directory(tooldir):
    """json.py, jsonschema.py, click.py... beside the module: call, worker and from-py
    (also as `python -m plistspec`, which puts the current directory first) still work."""
    assert _call(tooldir, "noisy", '{"x": 4}')[:2] == (0, "5")
    p = subprocess.run(
        [sys.executable, "-P", "-m", "plistspec", "worker"],
        input=b'[7, "tool:noisy", "gptel"]\t{"x": 1}\n',
        cwd=tooldir,
        capture_output=True,
        env=_env(),
        timeout=60,
    )
    assert json.loads(p.stdout) == {"id": 7, "code": 0, "text": "2"}
    p = subprocess.run(
        [sys.executable, "-m", "plistspec", "from-py", "tool:noisy"],
        cwd=tooldir,
        capture_output=True,
        text=True,
        env=_env(),
        timeout=60,
    )
    assert p.returncode == 0 and "HIJACKED" not in p.stderr and "gptel-make-tool" in p.stdout


@pytest.mark.slow
def test_function_must_be_a_symbol(tooldir):
    def run(fn):
        return subprocess.run(
            [sys.executable, "-m", "plistspec", "from-py", "tool:noisy", "--function", fn],
            cwd=tooldir,
            capture_output=True,
            text=True,
            env=_env(),
            timeout=60,
        )

    for bad in ("ignore) (progn", "a b", "#'(x)", "", "12", 'x"y', "x;y"):
        p = run(bad)
        assert p.returncode == 2 and "is not a symbol name" in p.stderr, bad
    for bad in ("nil", "t", ":kw", "#'nil", "#':x", ":"):
        p = run(bad)
        assert p.returncode == 2 and "names no function" in p.stderr, bad
        assert "Traceback" not in p.stderr and not p.stdout
    p = run("my/tool-fn")
    assert p.returncode == 0 and ":function #'my/tool-fn" in p.stdout


def test_function_naming_no_function_is_an_error_of_the_library(tooldir, monkeypatch):
    import plistspec

    monkeypatch.chdir(tooldir)
    for bad in ("nil", "#'t", ":kw"):
        r = plistspec.from_python("tool:noisy", function=bad)
        assert r.tools == [] and [d.code for d in r.diagnostics] == ["PS525"], bad


def _load_program(deps, path):
    return (
        elisp_deps_preamble(deps)
        + "(require 'gptel)\n"
        + f"(load {print_string(str(path))} nil t)\n"
        + "(defun fn (name) (gptel-tool-function (gptel-get-tool name)))\n"
    )


@pytest.mark.slow
@pytest.mark.parametrize("bridge", ["worker", "process"])
def test_timeout_stops_the_child_and_a_percent_in_the_path(
    emacs, elisp_deps_dir, tooldir, tmp_path, bridge
):
    out = tmp_path / "t.el"
    outa = tmp_path / "ta.el"
    for o, extra in ((out, []), (outa, ["--async"])):
        p = subprocess.run(
            [sys.executable, "-m", "plistspec", "from-py", "tool:forever", "tool:noisy",
             "--timeout", "1.5", "--bridge", bridge, "-o", str(o), *extra],
            cwd=tooldir, capture_output=True, text=True, env=_env(), timeout=60,
        )  # fmt: skip
        assert p.returncode == 0, p.stderr
    prog = (
        _load_program(elisp_deps_dir, out)
        + '(let ((t0 (float-time)) (r (funcall (fn "forever"))))\n'
        '  (princ (format "%S %.1f\\n" r (- (float-time) t0))))\n'
        '(princ (format "%S\\n" (seq-count #\'process-live-p (process-list))))\n'
        '(princ (format "%S\\n" (funcall (fn "noisy") 41)))\n'
        + f"(load {print_string(str(outa))} nil t)\n"
        "(setq got nil)\n"
        '(funcall (fn "forever") (lambda (r) (setq got r)))\n'
        "(setq back (not got))\n"
        "(while (not got) (accept-process-output nil 0.1))\n"
        '(princ (format "%S %S\\n" back got))\n'
    )
    lines = emacs.run(prog, timeout=120).splitlines()
    msg = '"Error: the Python tool tool:forever timed out after 1.5 s"'
    assert lines[0].startswith(msg)
    assert 1.4 <= float(lines[0].rsplit(" ", 1)[1]) < 10
    assert lines[1] == "0"  # the stuck Python child was stopped
    assert lines[2] == '"42"'  # and the next call works (a new worker), its prints discarded
    assert lines[3] == f"t {msg}"  # async: returned at once, callback called with the error


@pytest.mark.slow
def test_unstartable_python_and_names_that_could_inject(emacs, elisp_deps_dir, tmp_path):
    d = tmp_path / 'x\n(princ "INJECTED")\n;; -*- eval: (princ "VARS") -*-'
    d.mkdir()
    (d / "tool.py").write_text(TOOLS)
    out = tmp_path / "t.el"
    p = subprocess.run(
        [sys.executable, "-m", "plistspec", "from-py", str(d / "tool.py") + ":noisy",
         "--python", str(tmp_path / "no % such python"), "-o", str(out)],
        cwd=tmp_path, capture_output=True, text=True, env=_env(), timeout=60,
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    got = emacs.run(
        _load_program(elisp_deps_dir, out) + '(princ (funcall (fn "noisy") 1))', timeout=60
    )
    # loading printed nothing (the names stayed inside strings and one comment line each)
    assert got.startswith("Error: the Python tool ")
    assert "could not be started" in got or "No such file" in got  # when it is noticed varies
    assert "\n" not in got  # and the error is one line


@pytest.mark.slow
def test_worker_restarts_when_the_module_changes_or_dies(emacs, elisp_deps_dir, tmp_path):
    (tmp_path / "vers.py").write_text('def version() -> str:\n    """V."""\n    return "one"\n')
    out = tmp_path / "t.el"
    p = subprocess.run(
        [sys.executable, "-m", "plistspec", "from-py", "vers:version", "-o", str(out)],
        cwd=tmp_path, capture_output=True, text=True, env=_env(), timeout=60,
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    new = 'def version() -> str:\n    """V."""\n    return "two"\n'
    prog = (
        _load_program(elisp_deps_dir, out)
        + '(princ (funcall (fn "version")))\n'
        + "(setq pid (process-id (car (car (hash-table-values plistspec-bridge--workers)))))\n"
        + '(princ (funcall (fn "version")))\n'
        + "(princ (if (eq pid (process-id (car (car (hash-table-values"
        ' plistspec-bridge--workers))))) " same" " other"))\n'
        + f"(with-temp-file {print_string(str(tmp_path / 'vers.py'))} (insert {print_string(new)}))\n"
        + "(set-file-times "
        + print_string(str(tmp_path / "vers.py"))
        + " (time-add (current-time) 5))\n"
        + '(princ (concat " " (funcall (fn "version"))))\n'
        + "(delete-process (car (car (hash-table-values plistspec-bridge--workers))))\n"
        + '(princ (concat " " (funcall (fn "version"))))\n'
    )
    assert emacs.run(prog, timeout=120) == "oneone same two two"


@pytest.mark.slow
def test_a_long_answer_arrives_whole(emacs, elisp_deps_dir, tooldir, tmp_path):
    out = tmp_path / "t.el"
    p = subprocess.run(
        [sys.executable, "-m", "plistspec", "from-py", "tool:big", "-o", str(out)],
        cwd=tooldir, capture_output=True, text=True, env=_env(), timeout=60,
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    n = 3_000_000
    prog = _load_program(elisp_deps_dir, out) + (
        f'(let* ((t0 (float-time)) (r (funcall (fn "big") {n})))\n'
        '  (princ (format "%d %s %.2f" (length r) (md5 r) (- (float-time) t0))))\n'
    )
    length, digest, secs = emacs.run(prog, timeout=120).split()
    import hashlib

    want = ("ab\nü" * n)[:n]
    assert int(length) == n and digest == hashlib.md5(want.encode()).hexdigest()
    assert float(secs) < 20


def test_worker_reads_lines_of_any_length_across_reads() -> None:
    """Lines split across reads, many lines in one read, a long line, a last line without
    a newline: each comes out whole (the reader searches each byte once)."""
    import io

    from plistspec.pyfunc.worker import _readline

    lines = [b"a", b"", b"x" * 200_000, b"[1, 2]\tb", b"z" * 65_536]
    f = io.BytesIO(b"\n".join(lines) + b"\nlast")
    buf = bytearray()
    assert [_readline(f, buf) for _ in lines] == lines
    assert _readline(f, buf) is None and bytes(buf) == b"last"


def test_worker_answers_a_huge_request_line(tooldir) -> None:
    """A request of several megabytes gets its answer (no quadratic reading)."""
    big = json.dumps({"x": 1, "pad": "y" * 4_000_000}).encode()
    p = subprocess.run(
        [sys.executable, "-m", "plistspec", "worker"],
        input=b'[1, "tool:noisy", "gptel"]\t' + big + b'\n[2, "tool:noisy", "gptel"]\t{"x": 1}\n',
        cwd=tooldir,
        capture_output=True,
        env=_env(),
        timeout=120,
    )
    answers = [json.loads(x) for x in p.stdout.splitlines()]
    assert [a["id"] for a in answers] == [1, 2] and answers[1]["text"] == "2"
