"""Shapes found in real-world tool functions (MCP servers, pydantic-ai, langchain, openai-agents
examples) where ``plistspec call`` used to disagree with pydantic or with its own diagnostics.

Each function here is a minimal model of the real one."""

from __future__ import annotations

import json
import textwrap

import pytest

from plistspec.pyfunc.bridge import call
from plistspec.pyfunc.build import build
from plistspec.pyfunc.convert import repair
from plistspec.pyfunc.nilvalue import nested_ambiguities

MODULE = textwrap.dedent(
    '''
    from typing import Annotated, Any, Optional, Union
    from typing_extensions import NotRequired, TypedDict

    def set_config(key: str, value: Union[int, float, str, bool, None]) -> str:
        """Set a config value (openai-agents style)."""
        return f"{value!r}:{type(value).__name__}"

    def scale(v: Annotated[int, "n"] | float) -> str:
        return f"{v!r}:{type(v).__name__}"

    def count(v: int | str) -> str:
        return f"{v!r}:{type(v).__name__}"

    class Hit(TypedDict):
        id: NotRequired[int]

    def rank(hits: list[Optional[Hit]], extra: list[dict[str, Any]] | None = None) -> str:
        return repr((hits, extra))
    '''
)


@pytest.fixture
def mod_dir(tmp_path):
    (tmp_path / "rw_shapes.py").write_text(MODULE, encoding="utf-8")
    return str(tmp_path)


@pytest.mark.parametrize(
    "fn, sent, got",
    [
        # JSON 2.0 and 1e300 are floats: a union with a float member keeps them floats
        # (JSON Schema's "integer" also accepts them; pydantic's smart mode keeps the float)
        ("set_config", {"key": "k", "value": 2.0}, "2.0:float"),
        ("set_config", {"key": "k", "value": 5.2e281}, "5.2e+281:float"),
        ("set_config", {"key": "k", "value": 2}, "2:int"),
        ("set_config", {"key": "k", "value": True}, "True:bool"),
        ("scale", {"v": 3.0}, "3.0:float"),
        ("scale", {"v": 3}, "3:int"),
        # no float member: an integral float still becomes the int the annotation asks for
        ("count", {"v": 3.0}, "3:int"),
    ],
)
def test_union_keeps_a_json_float_a_float(mod_dir, fn, sent, got):
    r = call(f"rw_shapes:{fn}", json.dumps(sent), cwd=mod_dir)
    assert (r.code, r.text) == (0, got)


def test_nested_nil_is_read_as_the_warning_says(mod_dir):
    """PS615 says a nested nil is read as its first reading: the call must do just that
    (it kept ``{}`` for an object that could also be null under gptel)."""
    import sys

    sys.path.insert(0, mod_dir)
    try:
        import rw_shapes

        params = build(rw_shapes.rank, "rank").parameters
    finally:
        sys.path.remove(mod_dir)
        sys.modules.pop("rw_shapes", None)
    assert nested_ambiguities(params, "gptel") == [("hits[]", ["null", "{}"])]
    assert nested_ambiguities(params, "llm") == [("hits[]", ["{}", "null"])]
    sent = {"hits": [{}, {"id": 1}], "extra": [{"a": {}}]}
    assert repair(json.loads(json.dumps(sent)), params, "gptel")["hits"] == [None, {"id": 1}]
    assert repair(json.loads(json.dumps(sent)), params, "llm")["hits"] == [{}, {"id": 1}]
    # through the real entry point of the bridge (what the Emacs side runs)
    r = call("rw_shapes:rank", json.dumps(sent), from_elisp="gptel", cwd=mod_dir)
    assert r.text == "([None, {'id': 1}], [{'a': {}}])"
    r = call("rw_shapes:rank", json.dumps(sent), from_elisp="llm", cwd=mod_dir)
    assert r.text == "([{}, {'id': 1}], [{'a': {}}])"


class NeedsExtra:
    """Like pydantic's EmailStr without email-validator: pydantic raises ImportError."""

    @classmethod
    def __get_pydantic_core_schema__(cls, source, handler):
        raise ImportError("email-validator is not installed, run `pip install 'pydantic[email]'`")


def send_email(to: NeedsExtra, subject: str) -> str:
    return to


def test_a_pydantic_type_that_needs_an_extra_says_so():
    """EmailStr is common in real tools; without email-validator the message was 'use a
    dataclass, TypedDict...', which cannot help: pydantic's own reason is shown."""
    pytest.importorskip("pydantic")
    from plistspec.pyfunc import schema_for
    from plistspec.pyfunc.errors import PyFuncError

    with pytest.raises(PyFuncError) as info:
        schema_for(send_email)
    assert info.value.code == "PS606"
    msg = str(info.value)
    assert "parameter 'to'" in msg and "'NeedsExtra'" in msg
    assert "pip install 'pydantic[email]'" in msg and "use a dataclass" not in msg


def test_a_free_form_object_argument_is_reported_for_gptel(tmp_path):
    """run_sql(params: dict[str, Any] | None) (sqlite MCP servers) and the like: gptel closes
    top-level object arguments, so from-py says so at the function (PS324), as check says of
    the file; a TypedDict argument (named keys) and the llm dialect are not reported."""
    from plistspec.pyfunc import from_python

    (tmp_path / "rw_sql.py").write_text(
        textwrap.dedent(
            """
            from typing import Any
            from typing_extensions import TypedDict

            class Filter(TypedDict, total=False):
                author: str

            def run_sql(query: str, params: dict[str, Any] | None = None) -> str:
                return query

            def search(query: str, filters: Filter | None = None) -> str:
                return query
            """
        ),
        encoding="utf-8",
    )
    _, diags = from_python(["rw_sql:run_sql", "rw_sql:search"], cwd=str(tmp_path))
    ps324 = [d for d in diags if d.code == "PS324"]
    assert len(ps324) == 1 and ps324[0].severity == "warning"
    assert "run_sql: argument 'params'" in ps324[0].message and ps324[0].line == 8
    assert ps324[0].path.endswith("rw_sql.py")
    _, diags = from_python(["rw_sql:run_sql"], cwd=str(tmp_path), dialect="llm")
    assert not [d for d in diags if d.code == "PS324"]


def test_results_nested_bytes_and_generators_are_json(tmp_path):
    """A returned bytes read as UTF-8 at the top but as its repr b'...' inside a dict; a tool
    that yields its results gave '<generator object ...>'. Both now read as pydantic writes them."""
    (tmp_path / "rw_ret.py").write_text(
        "def blob() -> dict:\n    return {'data': b'caf\\xc3\\xa9', 'n': [b'x']}\n\n"
        "def rows():\n    yield {'id': 1}\n    yield {'id': 2}\n",
        encoding="utf-8",
    )
    r = call("rw_ret:blob", "{}", cwd=str(tmp_path))
    assert (r.code, json.loads(r.text)) == (0, {"data": "café", "n": ["x"]})
    r = call("rw_ret:rows", "{}", cwd=str(tmp_path))
    assert (r.code, json.loads(r.text)) == (0, [{"id": 1}, {"id": 2}])


# --- through the real gptel and llm (each library's own parser and tool execution) ---------

ELISP_MODULE = textwrap.dedent(
    '''
    import json
    from typing import Optional, Union
    from typing_extensions import NotRequired, TypedDict

    def ratings(scores: dict[str, int]) -> str:
        """Record ratings by name (the empty name too)."""
        return json.dumps(scores, sort_keys=True)

    def set_config(key: str, value: Union[int, float, str, None]) -> str:
        """Set a config value."""
        return f"{value!r}:{type(value).__name__}"

    class Hit(TypedDict):
        id: NotRequired[int]

    def rank(hits: list[Optional[Hit]]) -> str:
        """Rank hits."""
        return repr(hits)
    '''
)

# (tool, the model's JSON arguments, the tool's result for gptel, for llm)
ELISP_CASES = [
    # gptel reads the key "" as the keyword `:', which json-serialize wrote back as ":"
    ("ratings", '{"scores": {"": 4, ":": 5, "b": 1}}', '{"": 4, ":": 5, "b": 1}', None),
    ("set_config", '{"key": "k", "value": 2.0}', "2.0:float", "2.0:float"),
    ("set_config", '{"key": "k", "value": 2}', "2:int", "2:int"),
    ("rank", '{"hits": [null, {"id": 1}]}', "[None, {'id': 1}]", None),
    ("rank", '{"hits": [{}, {"id": 1}]}', "[None, {'id': 1}]", "[{}, {'id': 1}]"),
]


def _elisp_run(emacs, deps, tmp_path, lib, transport):
    import subprocess
    import sys

    from responses import response
    from test_real_libraries import _run as run_in_emacs

    (tmp_path / "rw_elisp.py").write_text(ELISP_MODULE, encoding="utf-8")
    out = tmp_path / f"tools-{lib}.el"
    proc = subprocess.run(
        [sys.executable, "-m", "plistspec", "from-py", "rw_elisp", "-d", lib, "-o", str(out)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    runs = [(lib, transport, n, response(lib, transport, n, a)) for n, a, _, _ in ELISP_CASES]
    return run_in_emacs(emacs, deps, out, runs)


@pytest.mark.slow
@pytest.mark.parametrize(
    "lib, transport", [("gptel", "openai"), ("gptel", "anthropic"), ("llm", "openai")]
)
def test_real_libraries_hand_python_what_the_model_sent(
    emacs, elisp_deps_dir, tmp_path, lib, transport
):
    got = _elisp_run(emacs, elisp_deps_dir, tmp_path, lib, transport)
    for (name, args, want_gptel, want_llm), result in zip(ELISP_CASES, got, strict=True):
        want = want_gptel if lib == "gptel" else (want_llm or want_gptel)
        assert result == want, (name, args)


INJECTED_MODULE = textwrap.dedent(
    '''
    from typing import Annotated, Generic, Optional, TypeVar

    T = TypeVar("T")

    class RunContext(Generic[T]):  # as pydantic-ai's, by module and name
        pass

    RunContext.__module__ = "pydantic_ai.tools"

    class InjectedToolArg:  # LangChain's marker
        pass

    InjectedToolArg.__module__ = "langchain_core.tools.base"

    def weather(ctx: Optional[RunContext[int]] = None, city: str = "Oslo") -> str:
        """pydantic-ai style: the run context, then what the model sends."""
        return f"{city}|{ctx!r}"

    def lookup(user_id: Annotated[str, InjectedToolArg()] = "u0", q: str = "") -> str:
        return f"{q}|{user_id}"

    def needs(ctx: RunContext[int], city: str) -> str:
        return city
    '''
)


def test_framework_injected_parameters_stay_out_of_the_schema(tmp_path):
    """Real FastMCP / pydantic-ai / LangChain tools take their framework's context: it was a
    required object argument (with the class docstring as its description) the model had to
    invent; now it is left out with PS619, or refused (PS612) when it has no default."""
    from plistspec.pyfunc import from_python

    (tmp_path / "rw_inj.py").write_text(INJECTED_MODULE, encoding="utf-8")
    tools, diags = from_python(["rw_inj:weather", "rw_inj:lookup"], cwd=str(tmp_path))
    assert [list(t["parameters"]["properties"]) for t in tools] == [["city"], ["q"]]
    notes = [d for d in diags if d.code == "PS619"]
    assert [d.severity for d in notes] == ["info", "info"]
    assert "pydantic-ai's RunContext" in notes[0].message and "'ctx'" in notes[0].message
    assert "InjectedToolArg" in notes[1].message
    r = call("rw_inj:weather", '{"city": "Rome"}', cwd=str(tmp_path))
    assert (r.code, r.text) == (0, "Rome|None")
    tools, diags = from_python("rw_inj:needs", cwd=str(tmp_path))
    assert tools == [] and [d.code for d in diags] == ["PS612"]
    assert "parameter 'ctx' is pydantic-ai's RunContext" in diags[0].message
    assert "| None = None" in diags[0].message


def test_the_mcp_sdk_context_is_recognised(tmp_path):
    pytest.importorskip("mcp.server.mcpserver")
    from plistspec.pyfunc import from_python

    (tmp_path / "rw_mcp.py").write_text(
        "from mcp.server.mcpserver import Context\n\n"
        "async def search(query: str, ctx: Context | None = None) -> str:\n"
        "    return query\n",
        encoding="utf-8",
    )
    tools, diags = from_python("rw_mcp:search", cwd=str(tmp_path))
    assert list(tools[0]["parameters"]["properties"]) == ["query"]
    assert [d.code for d in diags] == ["PS619"] and "the MCP server's Context" in diags[0].message
