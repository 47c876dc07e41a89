"""The repository's ``.pre-commit-hooks.yaml``: its hooks run as pre-commit runs them.

Two levels: the hook entries run directly, from the root of a user's repository with the
staged file names as arguments (always); and the real ``pre-commit try-repo`` against this
checkout (pre-commit builds a virtualenv and pip-installs plistspec into it from the
package index configured on the machine; skipped, with the reason, where pre-commit is
not installed or that install cannot reach an index).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HOOKS = ROOT / ".pre-commit-hooks.yaml"

BROKEN = (
    '(gptel-make-tool :name "t" :function #\'f :description "d"\n'
    ' :args (list \'(:name "u" :type string :description "u" :enum ("c" "f"))))\n'
)
CLEAN = (
    ";; tools  -*- lexical-binding: t -*-\n"
    '(gptel-make-tool :name "t" :function #\'f :description "d" :args (list \'(:name '
    '"q" :type string :description "Query")))\n'
)


def hooks() -> dict[str, dict]:
    yaml = pytest.importorskip("yaml")
    data = yaml.safe_load(HOOKS.read_text(encoding="utf-8"))
    return {h["id"]: h for h in data}


def user_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "broken.el").write_text(BROKEN, encoding="utf-8")
    (repo / "clean.el").write_text(CLEAN, encoding="utf-8")
    (repo / "script.py").write_text("print(1)\n", encoding="utf-8")
    return repo


def run_entry(hook: dict, repo: Path, files: list[str]) -> subprocess.CompletedProcess:
    entry = hook["entry"].split()
    assert entry[0] == "plistspec"
    pattern = re.compile(hook["files"])
    chosen = [f for f in files if pattern.search(f)]
    return subprocess.run(
        [sys.executable, "-m", "plistspec", *entry[1:], *hook.get("args", []), *chosen],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_hook_definitions() -> None:
    h = hooks()
    assert set(h) == {"plistspec-check", "plistspec-fmt"}
    for hook in h.values():
        assert hook["language"] == "python"
        assert re.search(hook["files"], "lisp/tools.el")
        assert not re.search(hook["files"], "tools.py") and not re.search(hook["files"], "x.elc")


@pytest.mark.slow
def test_hook_entries_run_as_pre_commit_would(tmp_path: Path) -> None:
    h = hooks()
    repo = user_repo(tmp_path)
    files = ["broken.el", "clean.el", "script.py"]
    p = run_entry(h["plistspec-check"], repo, files)
    assert p.returncode == 1 and "broken.el:2:" in p.stdout and "[PS201]" in p.stdout
    assert run_entry(h["plistspec-check"], repo, ["clean.el", "script.py"]).returncode == 0
    # fmt rewrites what is not in the canonical layout, then leaves it alone
    messy = '(gptel-make-tool :name "t"\n    :function #\'f   :description "d")\n'
    (repo / "messy.el").write_text(messy, encoding="utf-8")
    p = run_entry(h["plistspec-fmt"], repo, ["messy.el", "clean.el", "script.py"])
    assert p.returncode == 0, p.stderr
    once = (repo / "messy.el").read_text(encoding="utf-8")
    assert once != messy
    run_entry(h["plistspec-fmt"], repo, ["messy.el"])
    assert (repo / "messy.el").read_text(encoding="utf-8") == once
    assert (repo / "script.py").read_text(encoding="utf-8") == "print(1)\n"


@pytest.mark.slow
def test_pre_commit_try_repo(tmp_path: Path) -> None:
    exe = shutil.which("pre-commit")
    if exe is None:
        pytest.skip("pre-commit is not installed (pip install pre-commit, a test extra)")
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = user_repo(tmp_path)
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp_path / "cache"),
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
    }
    env.pop("PYTHONPATH", None)  # the hook must run the plistspec pre-commit installed
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True, env=env, timeout=600)
    subprocess.run(["git", "add", "."], cwd=repo, check=True, env=env, timeout=600)

    def try_repo(hook: str, *files: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [exe, "try-repo", str(ROOT), hook, "--files", *files],
            cwd=repo,
            capture_output=True,
            text=True,
            env=env,
            timeout=600,
        )

    p = try_repo("plistspec-check", "broken.el", "clean.el", "script.py")
    if "An unexpected error has occurred" in p.stdout + p.stderr and (
        "pip" in p.stdout + p.stderr or "Could not find" in p.stdout + p.stderr
    ):
        pytest.skip("pre-commit could not install plistspec into its environment (no index?)")
    assert p.returncode == 1, p.stdout + p.stderr
    assert "plistspec check" in p.stdout and "Failed" in p.stdout
    assert "broken.el:2:" in p.stdout and "[PS201]" in p.stdout
    p = try_repo("plistspec-check", "clean.el", "script.py")
    assert p.returncode == 0 and "Passed" in p.stdout, p.stdout
    (repo / "messy.el").write_text(
        '(gptel-make-tool :name "t"\n    :function #\'f   :description "d")\n', encoding="utf-8"
    )
    subprocess.run(["git", "add", "messy.el"], cwd=repo, check=True, env=env, timeout=600)
    p = try_repo("plistspec-fmt", "messy.el")
    assert p.returncode == 1 and "files were modified by this hook" in p.stdout, p.stdout
    p = try_repo("plistspec-fmt", "messy.el")
    assert p.returncode == 0, p.stdout
