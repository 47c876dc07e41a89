"""The parts of serve one at a time: the catalogue (names, annotations, validation), the
server protocol's quoting, socket lookup, the command line's usage errors, and
the Elisp half (elisp/plistspec-serve(-*).el) byte-compiling cleanly, loaded in its order."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from serve_util import DATA, TOOLS, server_env

from plistspec.api import read_tools
from plistspec.emacs.client import (
    ELISP_FILES,
    PROTOCOL_VERSION,
    EmacsClient,
    EmacsUnavailable,
    _quote,
    _unquote,
    socket_path,
)
from plistspec.lowering import lower_tools  # type: ignore[attr-defined]
from plistspec.serve.catalog import build_catalog
from support import ROOT


def _catalog(text: str, **kw):
    tools, diags = read_tools(text, "t.el")
    assert not [d for d in diags if d.is_error]
    return build_catalog(tools, **kw)


def test_names_are_mapped_for_mcp_clients_and_unique():
    forms = [
        '(gptel-make-tool :name "files.read" :description "a" :function #\'ignore)',
        '(gptel-make-tool :name "files_read" :description "b" :function #\'ignore)',
        '(gptel-make-tool :name "files/read" :description "c" :function #\'ignore)',
        '(gptel-make-tool :name "ok-name_1" :description "d" :function #\'ignore)',
    ]
    served, diags = _catalog("".join(forms))
    names = [t.name for t in served]
    assert [t.emacs_name for t in served] == ["files.read", "files_read", "files/read", "ok-name_1"]
    # the names clients accept are kept; the others become valid, distinct names
    assert names[1] == "files_read" and names[3] == "ok-name_1"
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{1,64}", n) for n in names)
    assert len(set(names)) == 4
    assert re.fullmatch(r"files_read_[0-9a-f]{8}", names[0]), names
    assert [d.code for d in diags] == ["PS802", "PS802"]
    assert "files.read" in diags[0].message and names[0] in diags[0].message
    assert served[0].entry["_meta"]["plistspec/emacs-name"] == "files.read"
    assert "_meta" not in served[1].entry
    # the same mapping as --lower's for a target with the same rule
    lowered, _ = lower_tools(read_tools("".join(forms), "t.el")[0], "anthropic")
    assert [t["name"] for t in lowered] == names
    # a tool keeps its served name whatever other tools come and go (a client's
    # permissions follow the name)
    alone, _ = _catalog(forms[0] + forms[1])
    moved, _ = _catalog(forms[3] + forms[2] + forms[1] + forms[0])
    assert alone[0].name == names[0] == moved[3].name
    kept, _ = _catalog(
        '(gptel-make-tool :name "files.read" :description "a" :function #\'ignore)',
        map_names=False,
    )
    assert kept[0].name == "files.read"
    long_name, _ = _catalog(
        '(gptel-make-tool :name "%s" :description "a" :function #\'ignore)' % ("x." * 100)
    )
    assert len(long_name[0].name) == 64


def test_annotations_follow_the_spec():
    served, _ = _catalog(
        '(gptel-make-tool :name "a" :description "d" :function #\'ignore :confirm t'
        ' :category "fs" :include t :async t)'
        '(llm-make-tool :name "b" :description "d" :function #\'ignore)'
    )
    a, b = served
    assert a.entry["annotations"] == {"destructiveHint": True, "readOnlyHint": False}
    assert a.entry["_meta"] == {
        "plistspec/category": "fs",
        "plistspec/include": True,
        "plistspec/async": True,
    }
    assert a.confirm and a.is_async and not b.confirm
    assert "annotations" not in b.entry and "_meta" not in b.entry
    assert b.dialect == "llm"


def test_duplicate_tools_serve_the_definition_emacs_calls():
    """A later gptel-make-tool of a name replaces the earlier one: by default the last
    definition is served (the one a call runs), or the one Emacs names."""
    text = (
        '(gptel-make-tool :name "a" :description "one" :function #\'ignore)'
        '(gptel-make-tool :name "b" :description "b" :function #\'ignore)'
        '(gptel-make-tool :name "a" :description "two" :function #\'ignore)'
    )
    served, diags = _catalog(text)
    assert [(t.name, t.entry["description"]) for t in served] == [("a", "two"), ("b", "b")]
    assert [d.code for d in diags] == ["PS801"]
    assert "serving definition 2" in diags[0].message
    tools, _ = read_tools(text, "t.el")
    served, _ = build_catalog(tools, served_index={"a": 0})
    assert [t.entry["description"] for t in served] == ["one", "b"]


def test_validation_against_the_served_schema():
    """serve tells the model what plistspec-gptel-mode tells it: one implementation
    (plistspec.calls), every problem at its JSON pointer."""
    from plistspec.calls import Checker, message

    served, _ = _catalog((TOOLS).read_text(encoding="utf-8"))
    show = next(t for t in served if t.name == "show_args")
    assert show.validate({"text": "x"}) is None
    assert show.validate({"text": "x", "flag": None}) is None  # null for an optional arg
    missing = show.validate({})
    assert missing.startswith("Error: tool show_args was not run") and "/text: missing" in missing
    assert "/count: expected integer; got 1.5" in show.validate({"text": "x", "count": 1.5})
    wrong = {"text": "x", "opts": {"mode": "z"}}
    assert '/opts/mode: expected one of "a", "b"; got "z"' in show.validate(wrong)
    shared = Checker(show.entry["inputSchema"])
    assert show.validate(wrong) == message("show_args", shared.problems(wrong))


@pytest.mark.parametrize("arg", ["-eval", "a b", "&&-&", "line\nnext", "-", "", "é ☃ & -x"])
def test_server_protocol_quoting_round_trips(arg):
    q = _quote(arg)
    assert " " not in q and "\n" not in q and not q.startswith("-")
    assert _unquote(q) == arg


def test_socket_lookup(monkeypatch, tmp_path):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.delenv("EMACS_SOCKET_NAME", raising=False)
    assert socket_path("work") == os.path.join(str(tmp_path), f"emacs{os.getuid()}", "work")
    assert socket_path(None).endswith("/server")
    assert socket_path("/abs/sock") == "/abs/sock"
    monkeypatch.setenv("EMACS_SOCKET_NAME", "/x/y")
    assert socket_path(None) == "/x/y"


def test_unreachable_emacs_fails_fast(tmp_path):
    with pytest.raises(EmacsUnavailable, match="cannot reach"):
        EmacsClient(str(tmp_path / "none"), timeout=2).eval("t")


def _serve(*args):
    return subprocess.run(
        [sys.executable, "-m", "plistspec", "serve", *args],
        capture_output=True,
        encoding="utf-8",
        env=server_env(),
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def test_usage_errors():
    r = _serve()
    assert r.returncode == 2 and "FILE.el" in r.stderr
    r = _serve("--emacs", "x", str(TOOLS))
    assert r.returncode == 2
    try:
        import plistspec.lowering as lowering

        has_lowering = hasattr(lowering, "lower_tools")
    except ImportError:
        has_lowering = False
    if not has_lowering:
        r = _serve("-t", "gemini", str(TOOLS))
        assert r.returncode == 2 and "needs the lowering stage" in r.stderr
        assert "Traceback" not in r.stderr


def test_serve_elisp_byte_compiles_cleanly(emacs, tmp_path):
    """Every file of the Elisp half compiles without a warning, in its loading order, with
    only its folder on load-path (each finds the parts it requires there)."""
    for name in ELISP_FILES:
        shutil.copy(ROOT / "elisp" / name, tmp_path / name)
    forms = " ".join(
        f'(unless (byte-compile-file "{tmp_path / name}") (setq ok nil))' for name in ELISP_FILES
    )
    out = emacs.run(
        f'(add-to-list (quote load-path) "{tmp_path}") (setq byte-compile-error-on-warn t)'
        f'(let ((ok t)) {forms} (princ (if ok "ok" "failed")))',
        check=False,
    )
    assert out.strip().endswith("ok"), out
    assert all((tmp_path / name).with_suffix(".elc").is_file() for name in ELISP_FILES)


def test_serve_elisp_requires_follow_the_loading_order():
    """plistspec loads ELISP_FILES in order by file name: each requires only files before
    it (no cycle, never a search of load-path), requiring the last loads them all, every
    plistspec-serve(-*).el is one of them, and each stays a module a newcomer can read."""
    on_disk = {p.name for p in (ROOT / "elisp").glob("plistspec-serve-*.el")}
    on_disk.add("plistspec-serve.el")
    assert on_disk == set(ELISP_FILES)
    features = [Path(n).stem for n in ELISP_FILES]
    required_later: set[str] = set()
    for i, name in enumerate(ELISP_FILES):
        text = (ROOT / "elisp" / name).read_text(encoding="utf-8")
        required = re.findall(r"^\(require '(plistspec[^\s)]*)\)", text, re.M)
        assert set(required) <= set(features[:i]), (name, required)
        required_later |= set(required)
        assert f"(provide '{features[i]})" in text and ";;; Commentary:" in text, name
        assert len(text.splitlines()) <= 500, name
    # (require 'plistspec-serve) loads every part
    assert required_later == set(features[:-1])


def test_data_files_exist():
    assert (DATA / "user_init.el").is_file() and TOOLS.is_file()


def test_description_that_is_not_a_string_is_left_out():
    served, diags = _catalog(
        '(gptel-make-tool :name "a" :function #\'ignore)'
        '(gptel-make-tool :name "b" :description 42 :function #\'ignore)'
    )
    assert [("description" in t.entry) for t in served] == [False, False]
    assert [d.code for d in diags] == ["PS805", "PS805"]


def test_tcp_server_with_its_key(emacs, tmp_path):
    """An Emacs with `server-use-tcp': reached through its server file (host, port, key)."""
    from plistspec.emacs.client import EmacsError

    auth = tmp_path / "auth"
    auth.mkdir(mode=0o700)
    subprocess.run(
        [
            emacs.exe,
            "-Q",
            "--eval",
            f'(setq server-use-tcp t server-auth-dir "{auth}/")',
            "--daemon=plistspec-tcp-test",
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        timeout=60,
        check=True,
    )
    server_file = auth / "plistspec-tcp-test"
    client = EmacsClient(str(server_file), timeout=10)
    try:
        assert client.eval("(+ 40 2)").strip() == "42"
        assert client.ensure_loaded()["version"] == PROTOCOL_VERSION
        wrong = tmp_path / "wrong"
        text = server_file.read_text(encoding="latin-1")
        wrong.write_text(text.split("\n")[0] + "\n" + "x" * 64, encoding="latin-1")
        with pytest.raises(EmacsError, match="Authentication failed"):
            EmacsClient(str(wrong), timeout=10).eval("t")
    finally:
        import signal

        from serve_util import wait_gone

        pid = client.pid
        try:
            client.eval("(kill-emacs 0)", timeout=2)
        except EmacsError:
            pass
        if pid is not None and not wait_gone(pid, 5):
            os.kill(pid, signal.SIGKILL)


def test_the_elisp_half_ships_with_the_package() -> None:
    """A non-editable install has no elisp/ folder: the files are package data, and each
    elisp/plistspec-serve(-*).el of the checkout (for load-path users) is that same file."""
    import os

    from plistspec.emacs.client import elisp_files

    env = os.environ.pop("PLISTSPEC_ELISP_DIR", None)
    try:
        found = elisp_files()
    finally:
        if env is not None:
            os.environ["PLISTSPEC_ELISP_DIR"] = env
    import plistspec.emacs

    assert [f.name for f in found] == list(ELISP_FILES)
    for f in found:
        assert f.parent == Path(plistspec.emacs.__file__).resolve().parent
        assert (ROOT / "elisp" / f.name).resolve() == f
    assert "emacs/*.el" in (ROOT / "pyproject.toml").read_text(encoding="utf-8")


def test_the_elisp_half_is_found_in_plistspec_elisp_dir(tmp_path, monkeypatch) -> None:
    """$PLISTSPEC_ELISP_DIR is used only when it holds every file of the helper."""
    from plistspec.emacs.client import elisp_files

    for name in ELISP_FILES:
        shutil.copy(ROOT / "elisp" / name, tmp_path / name)
    monkeypatch.setenv("PLISTSPEC_ELISP_DIR", str(tmp_path))
    assert elisp_files() == [tmp_path / name for name in ELISP_FILES]
    (tmp_path / ELISP_FILES[0]).unlink()
    assert all(f.parent != tmp_path for f in elisp_files())


def test_catalog_diagnostics_point_at_the_tool_form():
    """What serve says of a tool read from Elisp prints as FILE:LINE:COL at its form (the
    second definition, for a repeated name)."""
    from plistspec.checking.report import gnu_line

    text = (
        '(gptel-make-tool :name "files.read" :description "a" :function #\'ignore)\n'
        "\n"
        '(gptel-make-tool :name "files.read" :description "b" :function #\'ignore)\n'
        '(gptel-make-tool :name "ok" :function #\'ignore)\n'
    )
    _, diags = _catalog(text)
    lines = {d.code: gnu_line(d) for d in diags}
    assert lines["PS802"].startswith("t.el:3:1: info:"), lines  # the served definition
    assert lines["PS801"].startswith("t.el:3:1: warning:"), lines
    assert lines["PS805"].startswith("t.el:4:1: warning:"), lines


def test_http_guards_by_address():
    from plistspec.serve.http import allowed, needs_token

    assert not needs_token("127.0.0.1") and not needs_token("127.0.0.2")
    assert not needs_token("localhost") and not needs_token("::1")
    assert needs_token("0.0.0.0") and needs_token("192.168.1.5") and needs_token("box.lan")
    hosts, origins = allowed("0.0.0.0", 8765, ("tools.lan",), ("https://app.example",))
    assert "0.0.0.0:8765" not in hosts and "127.0.0.1:8765" in hosts and "[::1]:8765" in hosts
    assert "tools.lan:8765" in hosts and "evil.example:8765" not in hosts
    assert "http://localhost:8765" in origins and "https://app.example" in origins
    hosts, _ = allowed("127.0.0.2", 9000)
    assert "127.0.0.2:9000" in hosts
