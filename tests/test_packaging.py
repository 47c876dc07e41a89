"""What a non-editable install carries: the wheel built from this checkout works on its own.

``grammars/`` (the provider rules ``--lower``, ``check --target`` and ``serve`` read) lives at
the top of the repository; a wheel must carry it too, or every pip install that is not ``-e``
fails on its first ``--lower`` (it did: ``FileNotFoundError: grammars/providers/rules.json``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_the_wheel_carries_the_grammars_and_lowers(tmp_path: Path) -> None:
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if build.returncode != 0 and "No matching distribution" in build.stderr:
        pytest.skip(f"cannot build a wheel here (no setuptools to fetch): {build.stderr[-300:]}")
    assert build.returncode == 0, build.stderr
    (wheel,) = tmp_path.glob("plistspec-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    for data in (
        "plistspec/grammars/providers/rules.json",
        "plistspec/grammars/ir.schema.json",
        "plistspec/grammars/elisp-load-safety.json",
        "plistspec/grammars/elisp-functions.txt",
        "plistspec/grammars/elisp-macros.txt",
        "plistspec/grammars/codes.json",
        "plistspec/grammars/code-examples.toml",
        "plistspec/grammars/emacs-char-names.txt",
        "plistspec/emacs/plistspec-serve.el",
        "plistspec/py.typed",
    ):
        assert data in names, data
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    env = {**os.environ, "PYTHONPATH": str(site)}
    fixture = ROOT / "fixtures" / "elisp" / "get_weather.el"
    run = subprocess.run(
        [sys.executable, "-m", "plistspec", "to-json", "-t", "gemini", "--lower", str(fixture)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert run.returncode == 0 and '"functionDeclarations"' in run.stdout, run.stderr
    # from-json reads the load-safety allow-list from the wheel's grammars too
    ir = tmp_path / "ir.json"
    fn = "(lambda (a) (upcase a))"
    tool = {"type": "function", "name": "t", "description": "d", "metadata": {"function": fn}}
    ir.write_text(json.dumps([{**tool, "parameters": {"type": "object"}}]), encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "plistspec", "from-json", "--from", "ir", str(ir)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert run.returncode == 0 and ":function (lambda (a) (upcase a))" in run.stdout, run.stderr
    # the codes, their examples and the names only Emacs knows are data in grammars/ too
    run = subprocess.run(
        [sys.executable, "-m", "plistspec", "explain", "PS101"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("PS101 (info): cannot be read statically\n"), run.stdout
    assert "Wrong (Emacs Lisp):\n\n    (gptel-make-tool\n" in run.stdout, run.stdout
    el = tmp_path / "lf.el"
    el.write_text(
        '(gptel-make-tool :name "t" :function #\'f\n :description "a\\N{LINE FEED (LF)}b")\n',
        encoding="utf-8",
    )
    run = subprocess.run(
        [sys.executable, "-m", "plistspec", "to-json", str(el)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert run.returncode == 0 and '"description": "a\\nb"' in run.stdout, run.stdout + run.stderr
    probe = subprocess.run(
        [sys.executable, "-c", "import plistspec; print(plistspec.__file__)"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
    )
    assert probe.stdout.startswith(str(site)), probe.stdout  # the wheel's copy ran
