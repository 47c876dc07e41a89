"""The public API composes the stages; one bad form does not hide the others' tools."""

from __future__ import annotations

import pytest

import plistspec

TOOL = '(gptel-make-tool :name "t" :description "d" :function #\'ignore)'


def test_unsupported_syntax_elsewhere_costs_only_its_form():
    text = "(defvar h #s(hash-table data (a 1)))\n" + TOOL + "\n"
    tools, diags = plistspec.read_tools(text, path="init.el")
    assert [t["name"] for t in tools] == ["t"]
    assert [(d.code, d.severity, d.line, d.column) for d in diags] == [("PS002", "info", 1, 11)]


def test_a_syntax_error_is_an_error_and_to_json_refuses():
    text = '(defvar x "unterminated)\n\n' + TOOL + "\n"
    tools, diags = plistspec.read_tools(text, path="f.el")
    assert any(d.code == "PS001" and d.severity == "error" for d in diags)
    assert plistspec.to_json(text, "openai").value is None


def test_to_json_gives_the_provider_value():
    value, diags = plistspec.to_json(TOOL, "anthropic")
    assert diags == []
    assert value == [
        {
            "name": "t",
            "description": "d",
            "input_schema": {"type": "object", "properties": {}, "required": []},
        }
    ]


def test_check_can_be_called_twice():
    # plistspec.check once got shadowed by a submodule of the same name
    assert plistspec.check(TOOL) == plistspec.check(TOOL)


# --- bytes: decoded exactly as the command line decodes a file -----------------------------

BYTES_CASES = {
    "crlf-bom": b"\xef\xbb\xbf;; tools\r\n"
    + b'(gptel-make-tool :name "t" :description "line\r\nbreak" :function #\'ignore\r\n'
    + b'  :args (list \'(:name "x" :type strng)))\r\n',
    "cr": b'(gptel-make-tool :name "t"\r:description "d\rx" :function #\'ignore)\r',
    "raw-byte": b'(gptel-make-tool :name "t\xff" :description "d\xe9" :function #\'ignore\n'
    + b'  :args (list \'(:name "x" :type strng)))\n',
    "utf-8": '(gptel-make-tool :name "t" :description "é😀" :function #\'ignore)\n'.encode(),
}


def _cli(args: list[str], data: bytes) -> tuple[int, str, str]:
    import subprocess
    import sys

    r = subprocess.run(
        [sys.executable, "-m", "plistspec", *args], input=data, capture_output=True, timeout=120
    )
    return r.returncode, r.stdout.decode("utf-8", "surrogateescape"), r.stderr.decode()


@pytest.mark.slow
def test_bytes_are_decoded_as_the_command_line_decodes_a_file() -> None:
    import json

    from plistspec.elisp.source import buffer_text

    for name, data in BYTES_CASES.items():
        text = buffer_text(data).text
        assert "\r" not in text and not text.startswith("\ufeff"), name
        # check: the same findings, places and order as `plistspec check` on those bytes
        found = plistspec.check(data, path="f.el")
        _, out, _ = _cli(
            ["check", "--output-format", "json", "--exit-zero", "--stdin-filename", "f.el", "-"],
            data,
        )
        cli = json.loads(out)
        assert [(d.code, d.line, d.column) for d in found] == [
            (d["code"], d["line"], d["column"]) for d in cli
        ], name
        # read_tools / to_json: the tools of the decoded text, the warning of the decoding
        tools, diags = plistspec.read_tools(data, path="f.el")
        assert tools == plistspec.read_tools(text, path="f.el").tools, name
        assert any(d.code == "PS001" for d in diags) == (name == "raw-byte"), name
        # to-json: invalid UTF-8 is read as the API reads it (raw bytes, a warning); gptel
        # fails on a name holding a raw byte, in both
        status, out, err = _cli(["to-json", "-t", "openai", "-"], data)
        api = plistspec.to_json(data, "openai").value
        if name == "raw-byte":
            assert status == 1 and api is None and "PS001" in err and "PS201" in err
        else:
            assert status == 0, err
            assert api == json.loads(out), name
    assert (
        plistspec.to_json(BYTES_CASES["cr"], "openai").value[0]["function"]["description"] == "d\nx"
    )


def test_elisp_text_must_be_str_or_bytes() -> None:
    import pytest

    with pytest.raises(TypeError):
        plistspec.check(123)  # type: ignore[arg-type]


def test_json_given_to_to_json_is_said_not_passed_in_silence(tmp_path) -> None:
    """to-json reads Emacs Lisp: tool JSON given to it (a .json file, or JSON text on
    stdin, big or small) holds no tool form; a PS512 error says what to run instead, and
    nothing is printed (exit 1), as for any input with an error."""
    import json

    from click.testing import CliRunner

    from plistspec.cli import main

    value = {"tools": [{"name": "t", "description": "T.", "inputSchema": {"type": "object"}}]}
    small = json.dumps(value)
    big = json.dumps({"tools": value["tools"] * 20_000})  # streamed if it were Elisp
    assert len(big) > 1_000_000
    for text, name in ((small, "tools.json"), (big, "big.json"), (small, "-")):
        f = tmp_path / name
        args = ["to-json", "-t", "openai"]
        if name == "-":
            r = CliRunner().invoke(main, [*args, "-"], input=text)
        else:
            f.write_text(text)
            r = CliRunner().invoke(main, [*args, str(f)])
        assert r.exit_code == 1 and r.stdout == "", r.output
        assert ":1:1: error: this is JSON, not Emacs Lisp" in r.stderr, r.stderr
        assert "from-json" in r.stderr and "-t TARGET --lower" in r.stderr
        assert "[PS512]" in r.stderr
    r = CliRunner().invoke(main, ["to-json", "-t", "openai", "-"], input="[1 2 3]\n")
    assert "PS512" not in r.stderr  # an Elisp vector, not JSON


def test_json_given_to_check_is_said(tmp_path) -> None:
    from click.testing import CliRunner

    from plistspec.cli import main

    f = tmp_path / "tools.json"
    f.write_text('{"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}')
    r = CliRunner().invoke(main, ["check", str(f)])
    assert f"{f}:1:1: warning: this is JSON, not Emacs Lisp: check" in r.stdout + r.stderr
    el = tmp_path / "tools.el"
    el.write_text("(setq x 1)\n")
    r = CliRunner().invoke(main, ["check", str(el)])
    assert "PS512" not in r.stdout + r.stderr


def test_the_package_api_is_there_when_asked_for() -> None:
    """The package imports its API on first use (start-up of the command line): every
    name of __all__, the api module itself and the Tool type are there all the same, in
    a fresh interpreter."""
    import subprocess
    import sys

    code = (
        "import plistspec\n"
        "assert 'plistspec.api' not in __import__('sys').modules\n"
        "names = [getattr(plistspec, n) for n in plistspec.__all__]\n"
        "assert plistspec.api.to_json is plistspec.to_json\n"
        "from plistspec import check, Tool, api\n"
        "assert api.check is check and set(plistspec.__all__) <= set(dir(plistspec))\n"
        "try:\n    plistspec.nope\nexcept AttributeError:\n    pass\nelse:\n    raise SystemExit(1)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
