"""``M-x plistspec-install-cli`` (issue 30 §1), as an Emacs-package user runs it.

The package installed with ``package-vc-install`` is a whole clone of the repository, its
Emacs files in ``elisp/``: a batch Emacs with only that directory on ``load-path`` (and
``PATH`` holding no plistspec) runs the command, which makes a private virtual environment
and installs the CLI from the repository beside the package; then ``plistspec-command``
finds that CLI and the bridge that Python, by themselves. Real ``python3 -m venv`` and
``pip`` (the index here is the machine's own; installing from the repository needs only
setuptools and the dependencies).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from emacs_pkg.emacs_session import ROOT, lisp_string
from support import copy_build_tree

pytestmark = [pytest.mark.slow, pytest.mark.emacs]


README_URL = "https://github.com/plistspec/plistspec"


def _readme_package_vc_form() -> str:
    """The README's package-vc-install form (the Emacs-package route)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## In Emacs\n", 1)[1].split("\n## ", 1)[0]
    (form,) = re.findall(r"^ *(\(package-vc-install .*\))$", section, re.M)
    assert f':url "{README_URL}"' in form and ':lisp-dir "elisp"' in form, form
    assert "M-x plistspec-install-cli" in section
    return form


def _package_vc_install(emacs, clone: Path, elpa: Path, env: dict) -> str:
    """Install the package as the README says, from a git repository of ``clone`` (Emacs
    29+); return the Elisp that makes a new Emacs load it as an installed package."""
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "-C", str(clone)]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "clone"]):
        subprocess.run(git + args, check=True, capture_output=True, timeout=120)
    form = _readme_package_vc_form().replace(README_URL, str(clone))
    setup = (
        f"(require 'package)\n(setq package-user-dir {lisp_string(str(elpa))}"
        " package-archives nil)\n(package-initialize)\n"
    )
    proc = subprocess.run(
        [emacs.exe, "--batch", "-Q", "--eval", f"(progn {setup} {form})"],
        capture_output=True,
        env=env,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")
    assert (elpa / "plistspec" / "elisp" / "plistspec.el").is_file()
    return setup


def test_install_cli_from_the_package_repository(emacs, tmp_path: Path) -> None:
    clone = copy_build_tree(tmp_path / "repo")
    home = tmp_path / "emacs.d"
    tools = tmp_path / "tools"
    tools.mkdir()
    report = tmp_path / "report.json"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = "/usr/bin:/bin"  # no plistspec there, and Debian's python3
    has_vc = subprocess.run(
        [emacs.exe, "--batch", "-Q", "--eval", "(princ (fboundp 'package-vc-install))"],
        capture_output=True, text=True, timeout=60,
    ).stdout  # fmt: skip
    if has_vc == "t":  # Emacs 29+: the README's package-vc-install, from a local repository
        load = _package_vc_install(emacs, clone, tmp_path / "elpa", env)
        clone = tmp_path / "elpa" / "plistspec"
    else:  # Emacs 28 has no package-vc: the same files, the package's directory on load-path
        _readme_package_vc_form()
        load = f"(add-to-list 'load-path {lisp_string(str(clone / 'elisp'))})\n"
    code = f"""
(setq user-emacs-directory {lisp_string(str(home) + "/")})
{load}
(require 'plistspec)
(require 'plistspec-bridge)
(require 'json)
(let ((before (condition-case err (plistspec-command) (plistspec-unavailable (cadr err))))
      (source (plistspec-install-source))
      (buffer (plistspec-install-cli))
      (deadline (+ (float-time) 1200)))
  (while (and (null plistspec-install-result) (< (float-time) deadline))
    (accept-process-output nil 0.5))
  (with-temp-file {lisp_string(str(report))}
    (insert
     (json-encode
      (list (cons 'before before)
            (cons 'source source)
            (cons 'result (format "%s" plistspec-install-result))
            (cons 'output (with-current-buffer buffer (buffer-string)))
            (cons 'command (let ((default-directory {lisp_string(str(tools) + "/")}))
                             (plistspec-command)))
            (cons 'version (let ((default-directory {lisp_string(str(tools) + "/")}))
                             (nth 1 (plistspec--call '("--version")))))
            (cons 'python (let ((p (plistspec-bridge--python nil {lisp_string(str(tools) + "/")})))
                            (list (car p) (cdr p))))
            (cons 'lowered (let ((default-directory {lisp_string(str(tools) + "/")}))
                             (nth 1 (plistspec--call '("explain" "PS101"))))))))))
"""
    script = tmp_path / "install.el"
    script.write_text(code, encoding="utf-8")
    proc = subprocess.run(
        [emacs.exe, "--batch", "-Q", "-l", str(script)],
        capture_output=True,
        env=env,
        cwd=tmp_path,
        timeout=1500,
    )
    err = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == 0, err
    got = json.loads(report.read_text(encoding="utf-8"))
    # before: not found, and the message names what works from Emacs
    assert "plistspec was not found" in got["before"], got["before"]
    assert "M-x plistspec-install-cli installs it" in got["before"], got["before"]
    assert got["source"] == str(clone) + "/"
    assert got["result"] == "done", got["output"][-3000:]
    assert f"Installing plistspec from {clone}/ into {home}/plistspec/venv" in got["output"]
    venv = home / "plistspec" / "venv"
    assert got["command"] == [str(venv / "bin" / "plistspec")], got["command"]
    assert "plistspec" in got["version"], got["version"]
    assert got["lowered"].startswith("PS101 (info)"), got["lowered"]  # its grammars came too
    python, why = got["python"]
    assert python == str(venv / "bin" / "python") and "plistspec-install-cli" in why, got["python"]
    # the CLI runs from the venv, not from this checkout
    where = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import plistspec; print(plistspec.__file__)"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert where.stdout.startswith(str(venv)), where.stdout + where.stderr


def test_install_source_is_the_index_without_a_repository(emacs, tmp_path: Path) -> None:
    """Installed from MELPA (the Emacs files alone), the source is the index's plistspec."""
    pkg = tmp_path / "elpa" / "plistspec-0.1.0"
    pkg.mkdir(parents=True)
    for f in (ROOT / "elisp").glob("plistspec*.el"):
        if not f.name.endswith("-tests.el"):
            shutil.copy(f, pkg / f.name)
    out = subprocess.run(
        [emacs.exe, "--batch", "-Q", "-L", str(pkg), "--eval",
         "(progn (require 'plistspec) (princ (plistspec-install-source)))"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert out.stdout == "plistspec"
