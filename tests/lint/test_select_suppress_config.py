"""Choosing and silencing rules: --select/--ignore/--extend-select (selection.py),
``; plistspec: ignore[...]`` comments (suppress.py) and configuration files (config.py),
through the command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from plistspec.checking.selection import Layer, Selection

ROOT = Path(__file__).resolve().parents[2]

# Real-world shape: args without a description on purpose, a deliberate `:required t`.
TOOLS = """\
;;; tools.el  -*- lexical-binding: t -*-
(gptel-make-tool
 :name "read_file" :function #'my-read :description "Read a file"
 :args (list '(:name "path" :type string)   ; plistspec: ignore[PS333]
             ;; plistspec: ignore[PS333, PS303]
             '(:name "encoding"
               :type string :required t)
             '(:name "offset" :type integer)))
"""


def cli(*args: str, stdin: str | None = None, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "plistspec", "check", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=600,
    )


def codes(p: subprocess.CompletedProcess) -> list[tuple[str, int]]:
    return [(d["code"], d["line"]) for d in json.loads(p.stdout)]


# --- selection ----------------------------------------------------------------------------


def test_selection_resolution_is_ruffs() -> None:
    s = Selection([Layer(select=["PS3"], ignore=["PS33"], extend_select=["PS333"])])
    assert s.enabled("PS301") and s.enabled("PS333") and not s.enabled("PS331")
    assert not s.enabled("PS401") and s.enabled("PS001")  # syntax errors always
    # a later layer without select starts from the earlier one
    s = Selection([Layer(select=["PS3"]), Layer(ignore=["PS301"], extend_select=["PS4"])])
    assert not s.enabled("PS301") and s.enabled("PS302") and s.enabled("PS401")
    # with select, a later layer starts again; on a tie ignore wins
    s = Selection([Layer(ignore=["PS3"]), Layer(select=["PS30"], ignore=["PS30"])])
    assert not s.enabled("PS301") and not s.enabled("PS401")
    assert Selection([Layer(select=["ALL"], ignore=["PS4"])]).enabled("PS501")


@pytest.mark.slow
def test_cli_select_ignore_extend_select(tmp_path: Path) -> None:
    f = tmp_path / "t.el"
    f.write_text(TOOLS.replace(";", ";;x"), encoding="utf-8")  # no working suppression
    everything = {c for c, _ in codes(cli("--output-format", "json", str(f)))}
    assert {"PS333", "PS303"} <= everything
    only = codes(cli("--output-format", "json", "--select", "PS303", str(f)))
    assert [c for c, _ in only] == ["PS303"]
    assert {c for c, _ in codes(cli("--output-format", "json", "--ignore", "PS33", str(f)))} == (
        everything - {c for c in everything if c.startswith("PS33")}
    )
    p = cli("--output-format", "json", "--select", "PS30", "--extend-select", "ps333", str(f))
    assert {c for c, _ in codes(p)} == {"PS303", "PS333"}
    p = cli("--select", "PS3,PX9", str(f))
    assert p.returncode == 2 and "'PX9' is not a code or a prefix" in p.stderr


# --- suppression comments ---------------------------------------------------------------


def test_suppression_on_the_line_and_on_the_form(tmp_path: Path) -> None:
    f = tmp_path / "t.el"
    f.write_text(TOOLS, encoding="utf-8")
    found = codes(cli("--output-format", "json", str(f)))
    # line 4 (same line) and lines 6-7 (the form after the comment) are silent; line 8 is not
    assert ("PS333", 8) in found
    assert not [x for x in found if x[0] == "PS333" and x[1] != 8]
    assert not [x for x in found if x[0] == "PS303"]
    assert not [x for x in found if x[0] in ("PS920", "PS921")]


@pytest.mark.slow
def test_unused_and_unknown_suppressions_are_findings(tmp_path: Path) -> None:
    f = tmp_path / "t.el"
    f.write_text(
        TOOLS.replace(
            '(:name "offset" :type integer)))',
            '(:name "offset" :type integer :description "o"))) ; plistspec: ignore[PS333]',
        )
        + ";; plistspec: ignore-file[PS331, PS3339]\n"
        + "; plistspec: ignore\n"
        + '(setq x "; plistspec: ignore[PS999] inside a string is not a comment")\n',
        encoding="utf-8",
    )
    p = cli("--output-format", "json", str(f))
    data = json.loads(p.stdout)
    about = [(d["code"], d["line"], d["message"]) for d in data if d["code"] in ("PS920", "PS921")]
    assert [(c, line) for c, line, _ in about] == [
        ("PS920", 8),
        ("PS920", 9),
        ("PS921", 9),
        ("PS921", 10),
    ], about
    assert "PS333 on this line" in about[0][2] and "PS331 in this file" in about[1][2]
    assert "unknown code 'PS3339'" in about[2][2]
    # findings about suppressions follow the selection too
    assert not [
        d
        for d in codes(cli("--output-format", "json", "--ignore", "PS92", str(f)))
        if d[0].startswith("PS92")
    ]
    # a syntax error cannot be silenced
    g = tmp_path / "g.el"
    g.write_text('(gptel-make-tool :name "x" ; plistspec: ignore[PS001]\n', encoding="utf-8")
    found = codes(cli("--output-format", "json", str(g)))
    assert ("PS001", 1) in [(c, 1) for c, _ in found] and ("PS921", 1) in found


def test_suppressed_findings_are_not_fixed(tmp_path: Path) -> None:
    f = tmp_path / "t.el"
    text = (
        '(gptel-make-tool :name "t" :function #\'f :description "d"\n'
        ' :args (list \'(:name "a" :type "string" :description "A")  ; plistspec: ignore[PS315]\n'
        '             \'(:name "b" :type "string" :description "B")))\n'
    )
    f.write_text(text, encoding="utf-8")
    cli("--fix", str(f))
    out = f.read_text(encoding="utf-8")
    assert out == text.replace('"b" :type "string"', '"b" :type string')


# --- configuration -------------------------------------------------------------------------


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    sub = tmp_path / "lisp" / "deep"
    sub.mkdir(parents=True)
    (sub / "tools.el").write_text(TOOLS.replace(";", ";;x"), encoding="utf-8")
    (tmp_path / "lisp" / "other.el").write_text(TOOLS.replace(";", ";;x"), encoding="utf-8")
    return tmp_path


@pytest.mark.slow
def test_config_file_found_walking_up(project: Path) -> None:
    (project / ".plistspec.toml").write_text(
        '# the project\nignore = ["PS303"]\n\n[per-file-ignores]\n"lisp/deep/*.el" = ["PS333"]\n',
        encoding="utf-8",
    )
    deep = {c for c, _ in codes(cli("--output-format", "json", "lisp/deep/tools.el", cwd=project))}
    other = {c for c, _ in codes(cli("--output-format", "json", "lisp/other.el", cwd=project))}
    assert "PS303" not in deep and "PS333" not in deep
    assert "PS303" not in other and "PS333" in other
    # the command line layers on top of the file; --isolated reads no file
    assert "PS303" in {
        c
        for c, _ in codes(
            cli("--output-format", "json", "--extend-select", "PS303", "lisp/other.el", cwd=project)
        )
    }
    assert "PS303" in {
        c
        for c, _ in codes(
            cli("--output-format", "json", "--isolated", "lisp/other.el", cwd=project)
        )
    }
    # standard input is placed by --stdin-filename
    text = (project / "lisp" / "deep" / "tools.el").read_text(encoding="utf-8")
    p = cli(
        "--output-format",
        "json",
        "--stdin-filename",
        "lisp/deep/tools.el",
        "-",
        stdin=text,
        cwd=project,
    )
    assert {c for c, _ in codes(p)} == deep
    # a nearer configuration wins, without merging
    (project / "lisp" / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.plistspec]\nselect = ["PS303"]\n', encoding="utf-8"
    )
    assert {
        c for c, _ in codes(cli("--output-format", "json", "lisp/deep/tools.el", cwd=project))
    } == {"PS303"}
    # a pyproject.toml without the table is not a configuration
    (project / "lisp" / "pyproject.toml").write_text('[project]\nname = "x"\n', encoding="utf-8")
    assert "PS333" not in {
        c for c, _ in codes(cli("--output-format", "json", "lisp/deep/tools.el", cwd=project))
    }


def test_config_discovery_stops_at_the_repository_root(project: Path) -> None:
    inner = project / "vendor"
    inner.mkdir()
    (inner / ".git").mkdir()
    (inner / "t.el").write_text(TOOLS.replace(";", ";;x"), encoding="utf-8")
    (project / ".plistspec.toml").write_text('ignore = ["PS3"]\n', encoding="utf-8")
    assert "PS333" in {
        c for c, _ in codes(cli("--output-format", "json", "vendor/t.el", cwd=project))
    }


@pytest.mark.slow
def test_config_dialect_target_and_explicit_file(project: Path, tmp_path_factory) -> None:
    (project / "empty.el").write_text(
        '(llm-make-tool :name "t" :function #\'f :description "" :args nil)\n',
        encoding="utf-8",
    )
    cfg = tmp_path_factory.mktemp("cfg") / "strict.toml"
    cfg.write_text('target = "bedrock"\nselect = ["PS4"]\n', encoding="utf-8")
    p = cli("--output-format", "json", "--config", str(cfg), "empty.el", cwd=project)
    assert {c for c, _ in codes(p)} == {"PS402"}
    # the command line's -t wins over the file's target
    p = cli(
        "--output-format", "json", "--config", str(cfg), "-t", "openai", "empty.el", cwd=project
    )
    assert codes(p) == []
    # dialect: the llm form read as gptel (PS315 is an info under gptel, a warning under llm)
    (project / "s.el").write_text(
        '(llm-make-tool :name "t" :function #\'f :description "d"\n'
        ' :args (list \'(:name "a" :type "string" :description "A")))\n',
        encoding="utf-8",
    )
    cfg.write_text('dialect = "gptel"\n', encoding="utf-8")
    sev = {
        d["code"]: d["severity"]
        for d in json.loads(
            cli("--output-format", "json", "--config", str(cfg), "s.el", cwd=project).stdout
        )
    }
    assert sev.get("PS315") == "info" and "PS202" not in sev
    sev = {
        d["code"]: d["severity"]
        for d in json.loads(cli("--output-format", "json", "s.el", cwd=project).stdout)
    }
    assert "PS202" in sev
    p = cli("--config", str(cfg), "--isolated", "lisp/other.el", cwd=project)
    assert p.returncode == 2


@pytest.mark.slow
@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        (
            '# c\nignore = ["PS3"]\nselct = ["PS3"]\n',
            "3:1",
            "unknown configuration key 'selct' (did you mean 'select'?)",
        ),
        ('select = [\n  "PS3",\n  "XX1",\n]\n', "3:3", "select: 'XX1' is not a code or a prefix"),
        ('dialect = "elisp"\n', "1:1", 'dialect: expected "gptel" or "llm"'),
        ('target = "openia"\n', "1:1", "target: expected one of openai"),
        ('ignore = "PS3"\n', "1:1", "ignore: expected a list of codes"),
        (
            '\n[per-file-ignores]\n"*.el" = ["PS3", "QQ"]\n',
            "3:1",
            "per-file-ignores: '*.el': 'QQ' is not",
        ),
        ('ignore = ["PS3"\nselect = 1\n', "2:1", "invalid TOML: Unclosed array"),
        ("x = [\n", "2:1", "invalid TOML"),
        # nested deeper than tomllib recurses: PS930 and exit 2, not an internal error
        ("select = " + "[" * 5000 + "]" * 5000 + "\n", "1:1", "nested too deeply"),
        ("x = " + "{a = " * 3000 + "1" + "}" * 3000 + "\n", "1:1", "nested too deeply"),
    ],
)
def test_invalid_configuration_names_file_line_and_key(
    project: Path, text: str, where: str, message: str
) -> None:
    (project / ".plistspec.toml").write_text(text, encoding="utf-8")
    p = cli("lisp/other.el", cwd=project)
    assert p.returncode == 2, p.stdout
    assert p.stdout == ""
    line = p.stderr.strip()
    assert line.startswith(f".plistspec.toml:{where}: error: ") and line.endswith("[PS930]"), line
    assert message in line
    assert "Traceback" not in p.stderr


@pytest.mark.slow
def test_configuration_with_bom_and_crlf(project: Path) -> None:
    (project / ".plistspec.toml").write_bytes(b'\xef\xbb\xbfignore = ["PS333"]\r\nselct = 1\r\n')
    p = cli("lisp/other.el", cwd=project)
    assert p.returncode == 2 and p.stderr.startswith(
        ".plistspec.toml:2:1: error: unknown configuration key 'selct'"
    )
    (project / ".plistspec.toml").write_bytes(b'\xef\xbb\xbfignore = ["PS333"]\r\n')
    assert "PS333" not in cli("lisp/other.el", cwd=project).stdout


def test_invalid_pyproject_table_position(project: Path) -> None:
    (project / "pyproject.toml").write_text(
        '[project]\nname = "x"\nignore = 3\n\n[tool.plistspec]\nextend_select = ["PS3", "nope"]\n',
        encoding="utf-8",
    )
    p = cli("lisp/other.el", cwd=project)
    assert p.returncode == 2
    assert p.stderr.startswith("pyproject.toml:6:") and "'NOPE' is not a code" in p.stderr


@pytest.mark.slow
def test_fix_removes_unused_suppressions(tmp_path: Path) -> None:
    f = tmp_path / "t.el"
    text = (
        '(gptel-make-tool :name "t" :function #\'f :description "d"\n'
        ' :args (list \'(:name "a" :type string)  ; plistspec: ignore[PS333, PS303]\n'
        '             \'(:name "b" :type string :description "B")  ; plistspec: ignore[PS333]\n'
        '             \'(:name "c" :type string :description "C")))  ; plistspec: ignore[PS333] why\n'
        ";; plistspec: ignore-file[PS331]\n"
        '(message "end")\n'
    )
    f.write_text(text, encoding="utf-8")
    p = cli("--fix", str(f))
    assert p.returncode == 0, p.stderr
    assert f.read_text(encoding="utf-8") == (
        '(gptel-make-tool :name "t" :function #\'f :description "d"\n'
        ' :args (list \'(:name "a" :type string)  ; plistspec: ignore[PS333]\n'
        '             \'(:name "b" :type string :description "B")\n'
        '             \'(:name "c" :type string :description "C")))  ; plistspec: ignore[PS333] why\n'
        '(message "end")\n'
    )
    # the directive followed by more comment text keeps its PS920, without a fix
    left = json.loads(cli("--output-format", "json", str(f)).stdout)
    assert [(d["code"], d["line"], "fix" in d) for d in left] == [("PS920", 4, False)]


def test_invalid_configuration_stops_before_any_file_is_fixed(project: Path) -> None:
    text = (
        '(gptel-make-tool :name "t" :function #\'f :description "d"\n'
        ' :args (list \'(:name "q" :type string :description "a" :description "b")))\n'
    )
    (project / "lisp" / "first.el").write_text(text, encoding="utf-8")
    bad = project / "other"
    bad.mkdir()
    (bad / ".plistspec.toml").write_text('ignore = ["PS3"]\nwhat = 1\n', encoding="utf-8")
    (bad / "second.el").write_text(text, encoding="utf-8")
    p = cli("--fix", "lisp/first.el", "other/second.el", cwd=project)
    assert (
        p.returncode == 2
        and "other/.plistspec.toml:2:1: error: unknown configuration key 'what'" in p.stderr
    )
    assert (project / "lisp" / "first.el").read_text(encoding="utf-8") == text


def test_documented_configuration_example_is_valid(tmp_path: Path) -> None:
    from plistspec.checking.config import load_config

    readme = (ROOT / "docs" / "check.md").read_text(encoding="utf-8")
    block = readme.split("```toml\n# .plistspec.toml", 1)[1].split("```", 1)[0]
    f = tmp_path / ".plistspec.toml"
    f.write_text("# .plistspec.toml" + block, encoding="utf-8")
    cfg = load_config(str(f))
    assert cfg.layer.ignore == ["PS333"] and cfg.dialect == "gptel" and cfg.target == "anthropic"
    assert cfg.per_file_off(str(tmp_path / "tests" / "a.el"), "PS331")
    assert not cfg.per_file_off(str(tmp_path / "a.el"), "PS331")


def _reference(cfg, path: str) -> list[str]:
    """per-file-ignores as documented, glob by glob (what the index must agree with)."""
    import os
    from fnmatch import fnmatchcase

    rel = os.path.relpath(os.path.abspath(path), cfg.base).replace(os.sep, "/")
    name = rel.rsplit("/", 1)[-1]
    out = []
    for glob, sels in cfg.per_file_ignores:
        g = glob[2:] if glob.startswith("./") else glob
        if fnmatchcase(rel, g) if "/" in g else fnmatchcase(name, g):
            out.extend(sels)
    return out


_GLOB_PARTS = ["a", "b", "lisp", "/", "*", "?", "[ab]", ".el", "./", "x-y"]


@settings(max_examples=60, deadline=None)
@given(
    globs=st.lists(st.lists(st.sampled_from(_GLOB_PARTS), min_size=1, max_size=5), max_size=8),
    files=st.lists(
        st.lists(st.sampled_from(["a", "b", "lisp", "/", ".el", "x-y"]), min_size=1, max_size=5),
        min_size=1,
        max_size=5,
    ),
)
def test_per_file_ignores_match_every_glob_as_documented(globs, files) -> None:
    import os
    import tempfile

    from plistspec.checking.config import load_config

    with tempfile.TemporaryDirectory() as d:
        lines = ["[per-file-ignores]"]
        for i, parts in enumerate(globs):
            lines.append(json.dumps("".join(parts)) + f' = ["PS3{i:02d}"]')
        path = os.path.join(d, ".plistspec.toml")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(dict.fromkeys(lines)) + "\n")
        try:
            cfg = load_config(path)
        except Exception:  # a repeated key: not what this test is about
            return
        for parts in files:
            f = os.path.join(d, "".join(parts).strip("/") or "x")
            assert cfg.ignores_for(f) == _reference(cfg, f), (globs, f)


def test_ten_thousand_globs(tmp_path: Path) -> None:
    """Was 87 s (each glob's position found by a scan of the whole file, each file
    matched against every glob); bench/bench_hostile.py has the numbers. Here: the
    positions and answers are right at that size."""
    from plistspec.checking.config import load_config

    n = 10_000
    text = "[per-file-ignores]\n" + "".join(f'"dir{i}/*.el" = ["PS3"]\n' for i in range(n))
    (tmp_path / ".plistspec.toml").write_text(text + '"lisp/*.el" = ]\n', encoding="utf-8")
    p = cli(str(tmp_path / "x.el"), cwd=tmp_path)  # an invalid last line: found, in order
    assert p.returncode == 2 and p.stderr.startswith(f".plistspec.toml:{n + 2}:")
    (tmp_path / ".plistspec.toml").write_text(text, encoding="utf-8")
    cfg = load_config(str(tmp_path / ".plistspec.toml"))
    assert cfg.ignores_for(str(tmp_path / "dir9999" / "t.el")) == ["PS3"]
    assert cfg.ignores_for(str(tmp_path / "dir99999" / "t.el")) == []
