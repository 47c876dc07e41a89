"""from-py never drops ``**kwargs`` in silence, keeps ``*args``, and puts every finding
about a function at its file and line (never ``<input>:``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

MODULE = '''from typing import Optional


def tag(name: str, **labels: str) -> str:
    """Tag something.

    Args:
        name: the thing
    """
    return f"{name} {sorted(labels.items())}"


def many(*paths: str) -> str:
    """Join paths."""
    return ",".join(paths)


def maybe(x: Optional[bool] = None) -> str:
    """Maybe."""
    return str(x)
'''


def _from_py(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "plistspec", "from-py", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def mod(tmp_path: Path) -> Path:
    (tmp_path / "tagmod.py").write_text(MODULE, encoding="utf-8")
    return tmp_path


@pytest.mark.slow
@pytest.mark.parametrize("dialect", ["gptel", "llm"])
def test_kwargs_are_refused_in_elisp(mod: Path, dialect: str) -> None:
    r = _from_py(mod, "tagmod:tag", "-d", dialect)
    assert r.returncode == 1 and r.stdout == ""
    assert f"{mod / 'tagmod.py'}:4:1: error: tag: its **kwargs" in r.stderr, r.stderr
    assert "[PS618]" in r.stderr and "-t ir keeps them" in r.stderr


@pytest.mark.slow
def test_kwargs_are_kept_in_the_ir_and_refused_in_provider_json(mod: Path) -> None:
    r = _from_py(mod, "tagmod:tag", "-t", "ir")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)[0]["parameters"]["additionalProperties"] == {"type": "string"}
    # what gptel sends OpenAI: additionalProperties false, the labels could never arrive
    r = _from_py(mod, "tagmod:tag", "-t", "openai")
    assert r.returncode == 1 and "[PS618]" in r.stderr and r.stdout == ""


@pytest.mark.slow
def test_star_args_are_an_array_argument(mod: Path) -> None:
    r = _from_py(mod, "tagmod:many")
    assert r.returncode == 0, r.stderr
    assert "(lambda (&optional paths)" in r.stdout
    assert ':args (list \'( :name "paths"\n                :type array' in r.stdout
    p = subprocess.run(
        [sys.executable, "-m", "plistspec", "call", "tagmod:many"],
        cwd=mod,
        input='{"paths": ["a", "b"]}',
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.stdout.rstrip("\n") == "a,b"  # main prints a final line feed (issue 29 §5)


@pytest.mark.slow
def test_findings_are_at_the_function(mod: Path) -> None:
    r = _from_py(mod, "tagmod:maybe", "-d", "llm")
    assert r.returncode == 0, r.stderr
    lines = r.stderr.splitlines()
    assert lines and all(ln.startswith(f"{mod / 'tagmod.py'}:18:1: ") for ln in lines), lines
    (mod / "empty.py").write_text("x = 1\n", encoding="utf-8")
    r = _from_py(mod, "empty")
    assert r.returncode == 1 and r.stderr.startswith(f"{mod / 'empty.py'}: error:"), r.stderr
    assert "<input>" not in r.stderr
