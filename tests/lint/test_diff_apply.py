"""``check --fix --diff`` prints patches the real ``git apply`` and ``patch -p1`` accept,
and applying one gives exactly the bytes ``check --fix`` writes: lines are cut after
``\\n`` only (a form feed, vertical tab, U+0085, U+2028 or lone CR stays in its line), a
CRLF file's patch carries its CRs, a BOM and raw bytes stay as they are."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from plistspec.cli import main

# :type "string" is fixed (a safe fix) to :type string
TOOL = '(gptel-make-tool :name "t{n}" :description "D{n}." :function #\'ignore\n :args (list \'(:name "a" :type "string" :description "A.")))'

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _git(cwd: Path, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["git", *args], cwd=cwd, input=stdin, capture_output=True, timeout=60, check=False
    )


def _check_patch(tmp: Path, data: bytes) -> bytes:
    """The patch ``check --fix --diff`` prints for a file of ``data``; asserts that git
    apply and patch -p1 both turn the file into what ``check --fix`` writes."""
    repo = tmp / "repo"
    if repo.exists():
        shutil.rmtree(repo)
    repo.mkdir()
    _git(repo, "init", "-q")
    f = repo / "t.el"
    f.write_bytes(data)
    runner = CliRunner()
    r = runner.invoke(main, ["check", "--fix", "--diff", str(f)])
    patch = r.stdout_bytes
    assert r.exit_code in (0, 1), r.output
    assert f.read_bytes() == data  # --diff writes nothing
    fixed_copy = tmp / "fixed.el"
    fixed_copy.write_bytes(data)
    runner.invoke(main, ["check", "--fix", str(fixed_copy)])
    want = fixed_copy.read_bytes()
    if want == data:
        assert patch == b""
        return patch
    # the patch names the path it was given; apply it where that path is a/ b/ relative
    patch = patch.replace(str(f).encode(), b"t.el")
    g = _git(repo, "apply", "--whitespace=nowarn", "-", stdin=patch)
    assert g.returncode == 0, (g.stderr.decode(), patch)
    assert f.read_bytes() == want
    f.write_bytes(data)
    if shutil.which("patch"):
        p = subprocess.run(
            ["patch", "-p1", "--quiet", "--binary"],
            cwd=repo,
            input=patch,
            capture_output=True,
            timeout=600,
        )
        assert p.returncode == 0, (p.stdout.decode(), p.stderr.decode(), patch)
        assert f.read_bytes() == want
    return patch


CASES = {
    "lf": (TOOL.format(n=1) + "\n").encode(),
    "crlf": (TOOL.format(n=1) + "\n;; end\n").replace("\n", "\r\n").encode(),
    "form-feed": (";; a\x0cb\n" + TOOL.format(n=1) + "\n\x0c\n;; z\n").encode(),
    "vertical-tab": (";; a\x0bb\n" + TOOL.format(n=1) + "\n").encode(),
    "u2028-u0085": (';; a\u2028b\u0085c\n(setq x "\u2028")\n' + TOOL.format(n=1) + "\n").encode(),
    "lone-cr": (';; a\rb\n(setq x "a\rb")\n' + TOOL.format(n=1) + "\n").encode(),
    "no-final-newline": TOOL.format(n=1).encode(),
    "bom": ("\ufeff" + TOOL.format(n=1) + "\n").encode(),
    "raw-bytes": b";; caf\xe9\n" + TOOL.format(n=1).encode() + b"\n;; \xff\n",
    "cr-only": (TOOL.format(n=1) + "\n;; x\n").replace("\n", "\r").encode(),
    "two-hunks": (TOOL.format(n=1) + "\n" + ";; filler\n" * 20 + TOOL.format(n=2) + "\n").encode(),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_git_apply_accepts_every_patch(tmp_path: Path, case: str) -> None:
    patch = _check_patch(tmp_path, CASES[case])
    assert patch.startswith(b"--- a/t.el\n+++ b/t.el\n@@ ")
    if case == "crlf":
        assert b"\r\n-(gptel-make-tool" in patch or patch.count(b"\r\n") > 2


_JUNK = st.lists(
    st.text(
        st.sampled_from(list('ab ;()"\\\x0c\x0b\r\u2028\u2029\u0085\x1c\x1d\x1e\t')),
        max_size=12,
    ),
    max_size=6,
)


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(before=_JUNK, after=_JUNK, crlf=st.booleans(), final=st.booleans())
def test_git_apply_accepts_patches_of_generated_texts(
    tmp_path_factory, before, after, crlf, final
) -> None:
    """Comment lines full of the characters str.splitlines cuts at, around tool forms."""
    tmp = tmp_path_factory.mktemp("diff")
    lines = [";; " + x for x in before] + [TOOL.format(n=1)] + [";; " + x for x in after]
    lines.append(TOOL.format(n=2))
    text = "\n".join(lines) + ("\n" if final else "")
    if crlf:
        text = text.replace("\r", "").replace("\n", "\r\n")
    _check_patch(tmp, text.encode())
