"""A file from-py writes can be committed to a dotfiles repository (issue 23 §4): it holds
no absolute path and no copy of the bridge runtime (it requires ``plistspec-bridge``, the
Emacs package's library), finds its modules from its own place when it is loaded (through
a symbolic link too), and finds the Python to run when a tool is called: the user's
``plistspec-bridge-python``, else the nearest ``.venv`` above the modules, else python3.

Generated, moved elsewhere with its module, loaded in real Emacs with the real gptel and
llm, and called."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from plistspec.elisp.printer import print_string
from support import elisp_deps_preamble

MODULE = '''
def get_weather(city: str, unit: str = "c") -> str:
    """The weather in a city.

    Args:
        city: the city
        unit: c or f
    """
    import sys
    return f"{city}:{unit}:{sys.prefix}"
'''


def _from_py(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "plistspec", "from-py", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _project(tmp_path: Path, *args: str) -> tuple[Path, str]:
    """A dotfiles-like tree: py/weather.py and emacs/weather-tools.el written from py/."""
    py = tmp_path / "dots" / "py"
    py.mkdir(parents=True)
    (tmp_path / "dots" / "emacs").mkdir()
    (py / "weather.py").write_text(MODULE, encoding="utf-8")
    r = _from_py(py, "weather", "-o", "../emacs/weather-tools.el", *args)
    assert r.returncode == 0, r.stderr
    return tmp_path / "dots", r.stderr


@pytest.mark.slow
def test_the_file_holds_no_absolute_path_and_no_runtime(tmp_path: Path) -> None:
    dots, _ = _project(tmp_path)
    text = (dots / "emacs" / "weather-tools.el").read_text(encoding="utf-8")
    assert str(tmp_path) not in text and sys.executable not in text
    assert "(require 'plistspec-bridge)" in text
    assert "(defun " not in text  # the runtime is the library's, not the file's
    assert '(expand-file-name "../py"' in text
    assert ':module-file "weather.py"\n' in text and ':target "weather:get_weather"\n' in text
    assert len(text.splitlines()) < 60
    # --python writes the one given, as the user asked
    dots2, _ = _project(tmp_path / "b", "--python", sys.executable)
    text2 = (dots2 / "emacs" / "weather-tools.el").read_text(encoding="utf-8")
    assert f":python {print_string(sys.executable)}" in text2


def _call(emacs, deps, load_dir: Path, setup: str = "", llm: bool = False) -> str:
    feature = "weather-tools"
    get = (
        "(llm-tool-function (car weather-tools))"  # FEATURE ends in -tools: the variable
        if llm
        else '(gptel-tool-function (gptel-get-tool "get_weather"))'
    )
    return emacs.run(
        elisp_deps_preamble(deps)
        + setup
        + f"(push {print_string(str(load_dir))} load-path)\n"
        + f"(require '{feature})\n"
        + f'(princ (funcall {get} "Oslo" "f"))',
        timeout=120,
    )


@pytest.mark.slow
@pytest.mark.emacs
def test_moved_with_its_module_it_still_calls_python(emacs, elisp_deps_dir, tmp_path) -> None:
    dots, _ = _project(tmp_path)
    moved = tmp_path / "elsewhere" / "my-dotfiles"
    moved.parent.mkdir()
    shutil.move(str(dots), str(moved))  # the old place is gone
    assert not dots.exists()
    got = _call(emacs, elisp_deps_dir, moved / "emacs")
    assert got == f"Oslo:f:{sys.prefix}"
    # loaded through a symbolic link (~/.emacs.d/lisp -> the repository), as dotfiles are
    link = tmp_path / "emacs.d-lisp"
    link.mkdir()
    os.symlink(moved / "emacs" / "weather-tools.el", link / "weather-tools.el")
    assert _call(emacs, elisp_deps_dir, link) == f"Oslo:f:{sys.prefix}"
    # the modules moved apart from the file: the variable says where they are now
    (moved / "py").rename(moved / "python-tools")
    setup = f"(setq weather-tools-python-directory {print_string(str(moved / 'python-tools'))})\n"
    assert _call(emacs, elisp_deps_dir, moved / "emacs", setup) == f"Oslo:f:{sys.prefix}"


@pytest.mark.slow
@pytest.mark.emacs
def test_written_through_a_symbolic_link_it_finds_its_modules(emacs, elisp_deps_dir, tmp_path):
    """-o names a path through a linked directory whose real place is deeper (a linked
    /tmp, a dotfiles tree): the file finds its directory with ``file-truename``, so the
    relative way to the modules is counted from the real place too (CI failed here)."""
    py = tmp_path / "work" / "py"
    py.mkdir(parents=True)
    (py / "weather.py").write_text(MODULE, encoding="utf-8")
    real = tmp_path / "deep" / "er" / "still" / "emacs"
    real.mkdir(parents=True)
    os.symlink(real, tmp_path / "work" / "emacs")
    r = _from_py(py, "weather", "-o", "../emacs/weather-tools.el")
    assert r.returncode == 0, r.stderr
    assert (real / "weather-tools.el").exists()
    assert _call(emacs, elisp_deps_dir, tmp_path / "work" / "emacs") == f"Oslo:f:{sys.prefix}"
    assert _call(emacs, elisp_deps_dir, real) == f"Oslo:f:{sys.prefix}"
    # -o names a link to a file elsewhere (~/.emacs.d/x.el -> the repository's): the file
    # is written through the link, and found from the link's target
    there = tmp_path / "repo" / "deeper" / "lisp"
    there.mkdir(parents=True)
    (there / "weather-tools.el").write_text(";; old\n", encoding="utf-8")
    linked = tmp_path / "emacs.d"
    linked.mkdir()
    os.symlink(there / "weather-tools.el", linked / "weather-tools.el")
    r = _from_py(py, "weather", "-o", str(linked / "weather-tools.el"))
    assert r.returncode == 0, r.stderr
    assert (linked / "weather-tools.el").is_symlink()
    assert _call(emacs, elisp_deps_dir, linked) == f"Oslo:f:{sys.prefix}"


@pytest.mark.slow
@pytest.mark.emacs
def test_which_python_runs_the_tools(emacs, elisp_deps_dir, tmp_path) -> None:
    """plistspec-bridge-python, else the nearest .venv above the modules, else python3."""
    dots, _ = _project(tmp_path, "-d", "llm", "--bridge", "process")
    venv_bin = dots / ".venv" / "bin"
    venv_bin.mkdir(parents=True)
    marker = tmp_path / "venv-used"
    # a stand-in venv Python: notes that it ran, then runs this one
    (venv_bin / "python").write_text(
        f'#!/bin/sh\ntouch {marker}\nexec {sys.executable} "$@"\n', encoding="utf-8"
    )
    (venv_bin / "python").chmod(0o755)
    assert _call(emacs, elisp_deps_dir, dots / "emacs", llm=True).startswith("Oslo:f:")
    assert marker.exists()  # the nearest .venv above py/ ran the tool
    marker.unlink()
    setup = f"(setq plistspec-bridge-python {print_string(sys.executable)})\n"
    assert _call(emacs, elisp_deps_dir, dots / "emacs", setup, llm=True).startswith("Oslo:f:")
    assert not marker.exists()  # the user's choice wins
    setup = '(setq plistspec-bridge-python "/nonexistent/python")\n'
    got = _call(emacs, elisp_deps_dir, dots / "emacs", setup, llm=True)
    assert got == (
        "Error: the Python tool weather:get_weather could not be started: No Python program "
        "/nonexistent/python (the option plistspec-bridge-python): set plistspec-bridge-python, "
        "or M-x plistspec-install-cli makes one"
    )


@pytest.mark.emacs
def test_without_the_library_loading_says_what_is_missing(emacs, tmp_path) -> None:
    dots, _ = _project(tmp_path)
    exe = emacs.exe
    r = subprocess.run(
        [exe, "--batch", "-Q", "-L", str(dots / "emacs"), "--eval", "(provide 'gptel)"]
        + ["--eval", "(require 'weather-tools)"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode != 0 and "plistspec-bridge" in r.stderr


@pytest.mark.slow
def test_from_py_warns_when_the_tools_would_run_another_python(tmp_path: Path) -> None:
    py = tmp_path / "py"
    py.mkdir()
    (py / "weather.py").write_text(MODULE, encoding="utf-8")
    env = dict(os.environ, PATH=str(tmp_path / "nothing-here"))
    r = subprocess.run(
        [sys.executable, "-m", "plistspec", "from-py", "weather"],
        cwd=py,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert r.returncode == 0 and "[PS616]" in r.stderr
    assert "plistspec-bridge-python" in r.stderr and "--python" in r.stderr
    # found the same Python (python3 on the path is this one): nothing to say
    r = _from_py(py, "weather")
    assert r.returncode == 0 and "PS616" not in r.stderr
    # --python given: it is what runs
    env["PATH"] = str(tmp_path / "nothing-here")
    r = subprocess.run(
        [sys.executable, "-m", "plistspec", "from-py", "weather", "--python", sys.executable],
        cwd=py,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert r.returncode == 0 and "PS616" not in r.stderr
