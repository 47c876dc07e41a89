"""What a non-editable install carries: the wheel built from this checkout works on its own.

It carries the Emacs package too (issue 30 §1): installed in a fresh virtual environment,
``plistspec emacs-path`` prints its directory, and a file ``from-py`` writes loads in real
Emacs with only that directory on ``load-path`` (and gptel), and its tool runs.

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

from support import copy_build_tree

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel of this checkout, built once per worker from a copy of the files a build
    reads: a build writes build/ and *.egg-info in the tree it builds, so two workers (or
    a developer's build) building the checkout itself at once would share them and fail
    (xdist_group does not always keep the two tests that use it on one worker)."""
    out = tmp_path_factory.mktemp("wheel")
    tree = copy_build_tree(tmp_path_factory.mktemp("tree") / "checkout")
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(tree)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if build.returncode != 0 and "No matching distribution" in build.stderr:
        pytest.skip(f"cannot build a wheel here (no setuptools to fetch): {build.stderr[-300:]}")
    assert build.returncode == 0, build.stderr
    (found,) = out.glob("plistspec-*.whl")
    return found


@pytest.mark.slow
@pytest.mark.xdist_group("wheel")  # one worker builds the wheel (the fixture) once
def test_the_wheel_carries_the_grammars_and_lowers(wheel: Path, tmp_path: Path) -> None:
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
        "plistspec/py.typed",
    ):
        assert data in names, data
    # the Elisp half of serve, found beside plistspec/emacs/client.py
    from plistspec.emacs.client import ELISP_FILES

    for name in ELISP_FILES:
        assert f"plistspec/emacs/{name}" in names, name
    # the whole Emacs package, but its tests
    shipped = {n.rsplit("/", 1)[1] for n in names if n.startswith("plistspec/emacs/lisp/")}
    package = {p.name for p in (ROOT / "elisp").glob("*.el") if not p.name.endswith("-tests.el")}
    assert shipped == package, shipped ^ package
    assert {"plistspec.el", "plistspec-bridge.el", "plistspec-install.el"} <= shipped
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


@pytest.mark.slow
@pytest.mark.emacs
@pytest.mark.xdist_group("wheel")
def test_wheel_in_a_fresh_venv_gives_the_emacs_package(
    wheel: Path, emacs, elisp_deps_dir, tmp_path: Path
) -> None:
    from plistspec.elisp.printer import print_string
    from support import elisp_deps_preamble

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    py = venv / "bin" / "python"
    # no system site packages, no checkout on the path: only what the wheel brings
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}/usr/bin{os.pathsep}/bin"
    install = subprocess.run(
        [str(py), "-m", "pip", "install", "-q", str(wheel)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert install.returncode == 0, install.stderr
    plistspec = str(venv / "bin" / "plistspec")
    run = subprocess.run(
        [plistspec, "emacs-path"], capture_output=True, text=True, env=env, timeout=60
    )
    assert run.returncode == 0, run.stderr
    lisp = Path(run.stdout.strip())
    assert lisp.is_relative_to(venv) and (lisp / "plistspec-bridge.el").is_file(), lisp
    assert not list(lisp.glob("*-tests.el"))
    form = subprocess.run(
        [plistspec, "emacs-path", "--use-package"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    ).stdout
    assert form == (
        f"(use-package plistspec\n  :load-path {print_string(str(lisp))}\n"
        "  :config (global-plistspec-mode))\n"
    )
    # from-py in a folder of the user's: the file it writes, loaded and called in real Emacs
    work = tmp_path / "work"
    work.mkdir()
    (work / "where.py").write_text(
        'def where(city: str) -> str:\n    """Where.\n\n    Args:\n        city: a city\n    """\n'
        '    import sys\n    return city + ":" + sys.prefix\n',
        encoding="utf-8",
    )
    gen = subprocess.run(
        [plistspec, "from-py", "where.py:where", "-o", "tools.el"],
        capture_output=True,
        text=True,
        env=env,
        cwd=work,
        timeout=120,
    )
    assert gen.returncode == 0, gen.stderr
    program = (
        elisp_deps_preamble(elisp_deps_dir)
        + f"(push {print_string(str(lisp))} load-path)\n"
        + f"(load {print_string(str(work / 'tools.el'))} nil t)\n"
        + '(princ (funcall (gptel-tool-function (gptel-get-tool "where")) "Oslo"))\n'
        # and the package itself loads from there
        + '(require \'plistspec)\n(princ (if (fboundp \'global-plistspec-mode) " ok" " no"))'
    )
    script = tmp_path / "driver.el"
    script.write_text(program, encoding="utf-8")
    # -Q and no elisp/ of the checkout: only the printed directory (and gptel's) on load-path
    proc = subprocess.run(
        [emacs.exe, "--batch", "-Q", "-l", str(script)],
        capture_output=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    out = proc.stdout.decode("utf-8", "replace")
    assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")
    # the tool ran in the fresh venv's Python (python3 on PATH there), with the wheel's plistspec
    assert out == f"Oslo:{venv} ok", out


def test_emacs_path_of_a_checkout_and_without_the_package(monkeypatch) -> None:
    """In a checkout (editable install), the directory is elisp/; an install without the
    Emacs package says what is missing, exit 1, no traceback."""
    from click.testing import CliRunner

    import plistspec.emacs.package_files as package_files
    from plistspec.cli import main

    run = CliRunner().invoke(main, ["emacs-path"])
    assert run.exit_code == 0 and run.output == f"{ROOT / 'elisp'}\n", run.output
    run = CliRunner().invoke(main, ["emacs-path", "--load-path"])
    assert run.output == f'(add-to-list \'load-path "{ROOT / "elisp"}")\n', run.output
    monkeypatch.setattr(package_files, "_REQUIRED", ("plistspec.el", "not-shipped.el"))
    run = CliRunner().invoke(main, ["emacs-path"])
    assert run.exit_code == 1, run.output
    assert "this plistspec has no Emacs package: not-shipped.el missing in" in run.output
    assert "Traceback" not in run.output
