"""``plistspec from-py mod:fn > ~/.emacs.d/tools.el``: a file written to standard output
cannot know where it lands, so it records where its modules were when it was written and
takes that directory when the modules are not beside the file (beside it first: a copy
moved with its modules, as a dotfiles repository holds them, still finds them there).

Generated to standard output, redirected into another folder, loaded in real Emacs with
the real gptel and llm, and called (issue 29 §4)."""

from __future__ import annotations

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
    return f"{city}:{unit}:{__file__}"
'''


def _redirected(tmp_path: Path, *args: str) -> tuple[Path, Path, str]:
    """py/weather.py, and from-py's standard output saved as emacs.d/tools.el."""
    py = tmp_path / "py"
    py.mkdir()
    (py / "weather.py").write_text(MODULE, encoding="utf-8")
    r = subprocess.run(
        [sys.executable, "-m", "plistspec", "from-py", "weather:get_weather", *args],
        cwd=py,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    dot = tmp_path / "emacs.d"
    dot.mkdir()
    (dot / "tools.el").write_text(r.stdout, encoding="utf-8")
    return py, dot / "tools.el", r.stdout


def _call(emacs, deps, file: Path, llm: bool = False) -> str:
    get = (
        "(llm-tool-function (car tools-tools))"
        if llm
        else '(gptel-tool-function (gptel-get-tool "get_weather"))'
    )
    return emacs.run(
        elisp_deps_preamble(deps)
        + f"(load {print_string(str(file))} nil t)\n"
        + f'(princ (funcall {get} "Oslo" "f"))',
        timeout=120,
    )


@pytest.mark.slow
def test_the_recorded_folder_is_written_only_for_standard_output(tmp_path: Path) -> None:
    py, _, text = _redirected(tmp_path)
    assert print_string(str(py)) in text  # the fallback, where the module was
    assert '(file-exists-p (expand-file-name "weather.py" here))' in text
    # -o FILE: the way from the file to the modules is known, nothing absolute is written
    r = subprocess.run(
        [sys.executable, "-m", "plistspec", "from-py", "weather", "-o", "../tools.el"],
        cwd=py,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    assert str(tmp_path) not in (tmp_path / "tools.el").read_text(encoding="utf-8")


@pytest.mark.slow
@pytest.mark.emacs
@pytest.mark.parametrize("dialect", ["gptel", "llm"])
def test_redirected_elsewhere_it_calls_its_module(emacs, elisp_deps_dir, tmp_path, dialect):
    py, file, _ = _redirected(tmp_path, "-d", dialect)
    llm = dialect == "llm"
    got = _call(emacs, elisp_deps_dir, file, llm)
    assert got == f"Oslo:f:{py / 'weather.py'}", got
    # moved together with its module: the copy beside the file is the one called
    moved = tmp_path / "dotfiles"
    moved.mkdir()
    shutil.copy(file, moved / "tools.el")
    (moved / "weather.py").write_text(MODULE, encoding="utf-8")
    shutil.rmtree(py)
    got = _call(emacs, elisp_deps_dir, moved / "tools.el", llm)
    assert got == f"Oslo:f:{moved / 'weather.py'}", got
