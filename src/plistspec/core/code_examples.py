"""A wrong and a right example for every diagnostic code (what ``plistspec explain``
prints after the explanation, as ``ruff rule`` does, and what docs/codes.md lists).

Owns: :data:`EXAMPLES`, code → :class:`Example`. An example's ``kind`` says what its
text is: ``tool`` (a whole Elisp text), ``arg`` (one arg plist of a ``gptel-make-tool``
form; ``arg-llm``: of an ``llm-make-tool`` form), ``json``, ``python``, ``toml`` or
``shell``; ``target`` is the ``check --target`` (or ``-f``) it needs and ``via`` what
reports the code. The tests run every Elisp example, and every JSON example lowered
(``via="lower"``), through its ``via``: the wrong one gets its code, the right one does not.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["Example", "EXAMPLES", "as_elisp", "render_example"]


class Example(NamedTuple):
    wrong: str
    right: str
    kind: str = "arg"
    target: str | None = None
    # what reports the code: check, fmt, to-json (-t target) or lower (to-json -t
    # target --lower: the Elisp, or for kind json the tool JSON, lowered for the target)
    via: str = "check"


def _t(body: str, head: str = "gptel-make-tool") -> str:
    return f"({head}\n {body})"


_F = ":function #'f"
_ND = ':name "t" :description "What it does"'

EXAMPLES: dict[str, Example] = {
    # --- PS0xx ------------------------------------------------------------------------
    "PS001": Example('(gptel-make-tool :name "t', '(gptel-make-tool :name "t")', "tool"),
    "PS002": Example(
        "(setq table #s(hash-table data (a 1)))",
        "(setq table (make-hash-table))",
        "tool",
    ),
    # --- PS1xx ------------------------------------------------------------------------
    "PS101": Example(
        _t(f"{_ND} {_F}\n :args my-args"),
        _t(f'{_ND} {_F}\n :args (list \'(:name "q" :type string :description "Query"))'),
        "tool",
    ),
    "PS102": Example(_t(f'"t" :description "What it does" {_F}'), _t(f"{_ND} {_F}"), "tool"),
    "PS103": Example(
        _t(f"{_ND} {_F}\n :confirm my-confirm-p"), _t(f"{_ND} {_F}\n :confirm t"), "tool"
    ),
    # --- PS2xx ------------------------------------------------------------------------
    "PS201": Example(
        '(:name "unit" :type string :description "Unit" :enum ("c" "f"))',
        '(:name "unit" :type string :description "Unit" :enum ["c" "f"])',
    ),
    "PS202": Example(
        '(:name "q" :type "string" :description "Query")',
        '(:name "q" :type string :description "Query")',
        "arg-llm",
    ),
    "PS203": Example(
        '(:name "v" :description "Value" :anyOf "string")',
        '(:name "v" :description "Value" :anyOf [(:type string)])',
        "arg",
        "gemini",
        "to-json",
    ),
    "PS204": Example(
        ":items (:type array :items (:type array :items ...))  ; 151 levels deep",
        ":items (:type array :items (:type string))",
        "text",
    ),
    # --- PS3xx ------------------------------------------------------------------------
    "PS301": Example(
        '(:name "q" :type string :description: "Query")',
        '(:name "q" :type string :description "Query")',
    ),
    "PS302": Example(
        _t(f'{_ND} {_F}\n :version "1.0"'), _t(f'{_ND} {_F}\n :category "files"'), "tool"
    ),
    "PS303": Example(
        '(:name "q" :type string :description "Query" :required t)',
        '(:name "q" :type string :description "Query")',
    ),
    "PS304": Example(_t(f':description "What it does" {_F}'), _t(f"{_ND} {_F}"), "tool"),
    "PS305": Example(_t(f':name "t" {_F}'), _t(f"{_ND} {_F}"), "tool"),
    "PS306": Example(_t(f':name "t" :description "" {_F}'), _t(f"{_ND} {_F}"), "tool"),
    "PS307": Example(
        _t(f':name "get weather" :description "Weather" {_F}'),
        _t(f':name "get_weather" :description "Weather" {_F}'),
        "tool",
    ),
    "PS308": Example(
        _t(f':name 42 :description "What it does" {_F}'),
        _t(f':name "tool_42" :description "What it does" {_F}'),
        "tool",
    ),
    "PS309": Example(
        '(:type string :description "City")', '(:name "city" :type string :description "City")'
    ),
    "PS310": Example(
        '(:name "" :type string :description "Location")',
        '(:name "loc" :type string :description "Location")',
    ),
    "PS311": Example(
        _t(
            f'{_ND} {_F}\n :args (list \'(:name "path" :type string :description "From")\n'
            '             \'(:name "path" :type string :description "To"))'
        ),
        _t(
            f'{_ND} {_F}\n :args (list \'(:name "from" :type string :description "From")\n'
            '             \'(:name "to" :type string :description "To"))'
        ),
        "tool",
    ),
    "PS312": Example(
        '(:name "q" :type string :description "a" :description "b")',
        '(:name "q" :type string :description "a")',
    ),
    "PS313": Example(
        '(:name "q" :description "Query")', '(:name "q" :type string :description "Query")'
    ),
    "PS314": Example(
        '(:name "x" :type float :description "X")', '(:name "x" :type number :description "X")'
    ),
    "PS315": Example(
        '(:name "q" :type "string" :description "Query")',
        '(:name "q" :type string :description "Query")',
    ),
    "PS316": Example(
        '(:name "q" :type \'string :description "Query")',
        '(:name "q" :type string :description "Query")',
    ),
    "PS317": Example(
        '(:name "unit" :type string :description "Unit" :enum [celsius fahrenheit])',
        '(:name "unit" :type string :description "Unit" :enum ["celsius" "fahrenheit"])',
    ),
    "PS318": Example(
        '(:name "tags" :type array :description "Tags")',
        '(:name "tags" :type array :items (:type string) :description "Tags")',
    ),
    "PS319": Example(
        '(:name "s" :type string :description "S" :properties (:x (:type string)))',
        '(:name "s" :type string :description "S")',
    ),
    "PS320": Example(
        '(:name "c" :type object :description "Color"\n'
        ' :properties (:r (:type number)) :required ["red"])',
        '(:name "c" :type object :description "Color"\n'
        ' :properties (:r (:type number)) :required ["r"])',
    ),
    "PS321": Example(
        '(:name "c" :type object :description "Color"\n'
        " :properties (:r (:type number)) :required nil)",
        '(:name "c" :type object :description "Color"\n'
        ' :properties (:r (:type number)) :required ["r"])',
    ),
    "PS322": Example(
        '(:name "o" :type object :description "O"\n :properties (:x (:type string :optional t)))',
        '(:name "o" :type object :description "O"\n :properties (:x (:type string)))',
    ),
    "PS323": Example(
        '(:name "q" :type string :description "Query" :optional :json-false)',
        '(:name "q" :type string :description "Query" :optional t)',
    ),
    "PS324": Example(
        '(:name "opts" :type object :description "Options" :additionalProperties t)',
        '(:name "opts" :type object :description "Options"\n'
        " :properties (:verbose (:type boolean)))",
    ),
    "PS325": Example(
        '(:name "q" :type string :description "Query" :default nil)',
        '(:name "q" :type string :description "Query" :default :null)',
    ),
    "PS326": Example(
        '(:name "d" :type string :description "Date" :format "date")',
        '(:name "d" :type string :description "Date, as YYYY-MM-DD")',
        "arg-llm",
    ),
    "PS327": Example(
        '(:name "l" :type array :description "L" :items (:type string :default :null))',
        '(:name "l" :type array :description "L" :items (:type string))',
        "arg-llm",
    ),
    "PS328": Example(
        '(:name "o" :type object :description "O"\n'
        " :properties (:additionalProperties (:type string)))",
        '(:name "o" :type object :description "O"\n :properties (:extra (:type string)))',
    ),
    "PS329": Example(
        _t(f'{_ND} {_F}\n :args \'(:name "q" :type string :description "Query")'),
        _t(f'{_ND} {_F}\n :args \'((:name "q" :type string :description "Query"))'),
        "tool",
    ),
    "PS330": Example(
        '(:name "v" :description "Value" :anyOf ((:type string) (:type null)))',
        '(:name "v" :description "Value" :anyOf [(:type string) (:type null)])',
    ),
    "PS331": Example(_t(_ND), _t(f"{_ND} {_F}"), "tool"),
    "PS332": Example(
        "plistspec: internal error while linting this form (...)",
        "(please report the form that triggers it)",
        "text",
    ),
    "PS333": Example(
        '(:name "q" :type string)', '(:name "q" :type string :description "Words to search for")'
    ),
    "PS334": Example(
        '(:name "l" :type array :description "L" :items ((:type string)))',
        '(:name "l" :type array :description "L" :items (:type string))',
    ),
    "PS335": Example(
        '(:name "o" :type object :description "O"\n :properties [(:name "x" :type string)])',
        '(:name "o" :type object :description "O"\n :properties (:x (:type string)))',
    ),
    "PS336": Example(
        '(gptel-make-tool\n :name "t" :description "What it does" :function #\'f :async t\n'
        ' :args (list \'(:name "callback" :type string :description "C")))',
        '(gptel-make-tool\n :name "t" :description "What it does" :function #\'f :async t\n'
        ' :args (list \'(:name "q" :type string :description "Q")))',
        "tool",
    ),
    "PS337": Example(
        '(gptel-make-tool\n :name "t" :description "What it does" :async t\n'
        ' :function (lambda (city) (format "%s" city))\n'
        ' :args (list \'(:name "city" :type string :description "C")))',
        '(gptel-make-tool\n :name "t" :description "What it does" :async t\n'
        " :function (lambda (callback city) (funcall callback city))\n"
        ' :args (list \'(:name "city" :type string :description "C")))',
        "tool",
    ),
    # --- PS4xx ------------------------------------------------------------------------
    "PS401": Example(
        _t(f':name "9lives" :description "Lives" {_F}'),
        _t(f':name "nine_lives" :description "Lives" {_F}'),
        "tool",
        "gemini",
    ),
    "PS402": Example(_t(f':name "t" :description "" {_F}'), _t(f"{_ND} {_F}"), "tool", "bedrock"),
    "PS403": Example(
        '(:name "k" :type string :description "Kind" :const "x")',
        '(:name "k" :type string :description "Kind" :enum ["x"])',
        "arg",
        "gemini",
    ),
    "PS404": Example(
        '(:name "n" :type integer :description "Count" :minimum 0)',
        '(:name "n" :type integer :description "Count (0 or more)")',
        "arg",
        "ollama",
    ),
    "PS405": Example(
        '(:name "s" :type ["string" "null"] :description "S")',
        '(:name "s" :type string :description "S" :optional t)',
        "arg",
        "gemini",
    ),
    "PS406": Example(
        '(:name "l" :type array :description "L"\n'
        ' :items (:type object :properties (:x (:type string)) :required ["x"]))',
        '(:name "l" :type array :description "L"\n'
        ' :items (:type object :properties (:x (:type string)) :required ["x"]\n'
        "         :additionalProperties :json-false))",
        "arg",
        "openai-strict",
    ),
    "PS407": Example(
        '(:name "s" :type string :description "S" :optional t)',
        '(:name "s" :type ["string" "null"] :description "S")',
        "arg",
        "openai-strict",
    ),
    "PS408": Example(
        '(:name "s" :type string :description "S" :optional t)',
        '(:name "s" :type string :description "S")',
        "arg-llm",
        "openai-responses",
    ),
    "PS409": Example(
        '(:name "file-path" :type string :description "Path")',
        '(:name "file_path" :type string :description "Path")',
        "arg",
        "gemini",
    ),
    "PS410": Example(
        '(:name "o" :type object :description "O"\n :properties (:x (:description "anything")))',
        '(:name "o" :type object :description "O"\n'
        ' :properties (:x (:type string :description "anything")))',
        "arg",
        "gemini",
    ),
    "PS411": Example(
        '(:name "l" :type array :description "L")',
        '(:name "l" :type array :description "L" :items (:type string))',
        "arg",
        "openai",
    ),
    # --- PS412-PS439: to-json --lower ---------------------------------------------------
    "PS412": Example(
        '{"name": "t", "inputSchema": {"type": "object",\n'
        ' "properties": {"p": {"$ref": "#/$defs/Path"}}, "$defs": {"Path": {"type": "string"}}}}',
        '{"name": "t", "inputSchema": {"type": "object",\n "properties": {"p": {"type": "string"}}}}',
        "json",
        "gemini",
        "lower",
    ),
    "PS413": Example(
        '{"name": "t", "inputSchema": {"type": "object",\n'
        ' "properties": {"kids": {"type": "array", "items": {"$ref": "#"}}}}}',
        '{"name": "t", "inputSchema": {"type": "object",\n'
        ' "properties": {"kids": {"type": "array", "items": {"type": "string"}}}}}',
        "json",
        "gemini",
        "lower",
    ),
    "PS414": Example(
        '(:name "s" :type ["string" "null"] :description "S")',
        '(:name "s" :type string :description "S" :optional t)',
        "arg",
        "gemini",
        "lower",
    ),
    "PS415": Example(
        '(:name "k" :type string :description "Kind" :const "x")',
        '(:name "k" :type string :description "Kind" :enum ["x"])',
        "arg",
        "gemini",
        "lower",
    ),
    "PS416": Example(
        '(:name "n" :type integer :description "N" :enum [1 2 3])',
        '(:name "n" :type integer :description "N" :minimum 1 :maximum 3)',
        "arg",
        "gemini",
        "lower",
    ),
    "PS417": Example(
        '(:name "v" :description "V" :oneOf [(:type string) (:type integer)])',
        '(:name "v" :description "V" :anyOf [(:type string) (:type integer)])',
        "arg",
        "gemini",
        "lower",
    ),
    "PS418": Example(
        '(:name "v" :description "V" :allOf [(:type string) (:minLength 1)])',
        '(:name "v" :type string :description "V" :minLength 1)',
        "arg",
        "gemini",
        "lower",
    ),
    "PS419": Example(
        '(:name "q" :type string :description "Query" :minLength 3)',
        '(:name "q" :type string :description "Query, 3 characters or more")',
        "arg",
        "ollama",
        "lower",
    ),
    "PS420": Example(
        '(:name "l" :type array :description "L")',
        '(:name "l" :type array :description "L" :items (:type string))',
        "arg",
        "openai",
        "lower",
    ),
    "PS421": Example(
        '(:name "l" :type array :description "L" :items (:description "A tag"))',
        '(:name "l" :type array :description "L" :items (:type string :description "A tag"))',
        "arg",
        "gemini",
        "lower",
    ),
    "PS422": Example(
        '{"name": "t", "inputSchema": {"type": "object", "properties": {"tags":\n'
        ' {"type": "object", "properties": {"a": {"type": "string"}},\n'
        ' "additionalProperties": {"type": "string"}}}}}',
        '{"name": "t", "inputSchema": {"type": "object", "properties": {"tags":\n'
        ' {"type": "object", "properties": {"a": {"type": "string"}}}}}}',
        "json",
        "gemini",
        "lower",
    ),
    "PS423": Example(
        _t(f':name "github.create_issue" :description "File an issue" {_F}'),
        _t(f':name "github_create_issue" :description "File an issue" {_F}'),
        "tool",
        "openai",
        "lower",
    ),
    "PS424": Example(
        _t(f':name "t" :description "" {_F}'), _t(f"{_ND} {_F}"), "tool", "bedrock", "lower"
    ),
    "PS425": Example(
        '(:name "s" :type string :description "S" :optional t)',
        '(:name "s" :type string :description "S")',
        "arg",
        "openai-strict",
        "lower",
    ),
    "PS426": Example(
        '(:name "o" :type object :description "O"\n'
        ' :properties (:meta (:type object :description "Any keys")))',
        '(:name "o" :type object :description "O"\n'
        ' :properties (:meta (:type object :properties (:k (:type string)) :required ["k"])))',
        "arg",
        "openai-strict",
        "lower",
    ),
    "PS427": Example(
        '{"name": "t", "inputSchema": {"type": "object",\n'
        ' "properties": {"id": {"type": "string"}, "name": {"type": "string"}},\n'
        ' "anyOf": [{"required": ["id"]}, {"required": ["name"]}]}}',
        '{"name": "t", "inputSchema": {"type": "object",\n'
        ' "properties": {"id": {"type": "string"}, "name": {"type": "string"}}}}',
        "json",
        "anthropic",
        "lower",
    ),
    "PS428": Example(
        '(:name "l" :type array :description "L" :items "string")',
        '(:name "l" :type array :description "L" :items (:type string))',
        "arg",
        "gemini",
        "lower",
    ),
    "PS429": Example(
        '(:name "s" :type string :description "S" :title "Size")',
        '(:name "s" :type string :description "Size")',
        "arg",
        "ollama",
        "lower",
    ),
    "PS430": Example(
        '(:name "p" :type array :description "Point"\n'
        " :prefixItems [(:type number) (:type number)])",
        '(:name "p" :type array :description "Point: x, then y"\n'
        " :items (:type number) :minItems 2 :maxItems 2)",
        "arg",
        "gemini",
        "lower",
    ),
    "PS431": Example(
        '{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": {"type": "array"}}',
        '{"name": "t", "inputSchema": {"type": "object"},\n'
        ' "outputSchema": {"type": "object", "properties": {"items": {"type": "array"}}}}',
        "json",
        "mcp-2025-06-18",
        "lower",
    ),
    "PS432": Example(
        '{"name": "t", "inputSchema": {"type": "object",\n'
        ' "properties": {"a": {"type": "string"}}, "required": ["a", "b"]}}',
        '{"name": "t", "inputSchema": {"type": "object",\n'
        ' "properties": {"a": {"type": "string"}}, "required": ["a"]}}',
        "json",
        "gemini",
        "lower",
    ),
    "PS433": Example(
        '(:name "path" :type string :description "File" :required t)',
        '(:name "path" :type string :description "File")',
        "arg",
        "openai",
        "lower",
    ),
    "PS434": Example(
        '(:name "v" :type nil :description "Any value")',
        '(:name "v" :type string :description "A value")',
        "arg",
        "openai",
        "lower",
    ),
    "PS435": Example(
        '(:name "opts" :type object :description "Options")',
        '(:name "opts" :type object :description "Options"\n :properties (:a (:type string)))',
        "arg",
        "gemini",
        "lower",
    ),
    "PS436": Example(
        '{"name": "t", "inputSchema": {"type": "object", "required": ["p"], "properties": {"p":\n'
        ' {"type": "object", "oneOf": [{"properties": {"x": {"type": "string"}}, "required": ["x"]},\n'
        ' {"properties": {"y": {"type": "string"}}, "required": ["y"]}]}}}}',
        '{"name": "t", "inputSchema": {"type": "object", "required": ["p"], "properties": {"p":\n'
        ' {"anyOf": [{"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]},\n'
        ' {"type": "object", "properties": {"y": {"type": "string"}}, "required": ["y"]}]}}}}',
        "json",
        "openai-strict",
        "lower",
    ),
    "PS437": Example(
        '(:name "unit" :description "Unit" :enum ["c" "f"])',
        '(:name "unit" :type string :description "Unit" :enum ["c" "f"])',
        "arg",
        "gemini",
        "lower",
    ),
    "PS438": Example(
        '{"name": "t", "inputSchema": {"type": "object", "properties": {"n": {"$ref": "#/$defs/N"}},\n'
        ' "$defs": {"N": {"type": "object", "properties": {"next": {"$ref": "#/$defs/N"}},\n'
        ' "required": ["next"]}}}}',
        '{"name": "t", "inputSchema": {"type": "object", "properties": {"n": {"$ref": "#/$defs/N"}},\n'
        ' "$defs": {"N": {"type": "object", "properties": {"next": {"$ref": "#/$defs/N"}}}}}}',
        "json",
        "gemini-jsonschema",
        "lower",
    ),
    "PS439": Example(
        "plistspec from-json tools.json --target openai-strict -o tools.el",
        "plistspec from-json tools.json --target openai -o tools.el",
        "shell",
    ),
    # --- PS5xx: JSON in, Elisp out ---------------------------------------------------------
    "PS500": Example('{"foo": 1}', '{"type": "function", "function": {"name": "f"}}', "json"),
    "PS501": Example(
        '{"$ref": "#/$defs/Adress", "$defs": {"Address": {"type": "string"}}}',
        '{"$ref": "#/$defs/Address", "$defs": {"Address": {"type": "string"}}}',
        "json",
    ),
    "PS502": Example(
        '"parameters": {"type": "string"}',
        '"parameters": {"type": "object", "properties": {"q": {"type": "string"}}}',
        "json",
    ),
    "PS503": Example(
        '{"type": "function", "function": {"name": "f", "strict": true}}',
        '{"type": "function", "function": {"name": "f"}}',
        "json",
    ),
    "PS504": Example(
        '{"name": "x", "inputSchema": {"type": "object"}}',
        '{"name": "x", "description": "What it does", "inputSchema": {"type": "object"}}',
        "json",
    ),
    "PS505": Example(
        '"parameters": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"}',
        '"parameters": {"type": "object"}',
        "json",
    ),
    "PS506": Example(
        '"parameters": {"type": "object", "$defs": {"Unused": {"type": "string"}}}',
        '"parameters": {"type": "object"}',
        "json",
    ),
    "PS507": Example(
        '"properties": {"city": {"type": "string"}}, "required": ["city", "cty"]',
        '"properties": {"city": {"type": "string"}}, "required": ["city"]',
        "json",
    ),
    "PS508": Example(
        '"inputSchema": {"properties": {"q": {"type": "string"}}}',
        '"inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}',
        "json",
    ),
    "PS509": Example(
        '"q": {"$ref": "https://example.com/schema.json"}', '"q": {"type": "string"}', "json"
    ),
    "PS510": Example(
        '"$defs": {"Node": {"type": "object", "properties": {"kids": {"type": "array", '
        '"items": {"$ref": "#/$defs/Node"}}}}}',
        '"$defs": {"Node": {"type": "object", "properties": {"kids": {"type": "array", '
        '"items": {"type": "string"}}}}}',
        "json",
    ),
    "PS511": Example(
        '[{"type": "web_search"}]',
        '[{"type": "function", "function": {"name": "search", "description": "Search"}}]',
        "json",
    ),
    "PS512": Example(
        '{"tools": []}',
        '{"tools": [{"name": "x", "description": "X", "inputSchema": {"type": "object"}}]}',
        "json",
    ),
    "PS513": Example('{"name": "a", "name": "b"}', '{"name": "a"}', "json"),
    "PS514": Example(
        '"metadata": {"slots": [1]}',
        '"metadata": {"slots": [{"key": ":confirm", "text": "t", "column": 2}]}',
        "json",
    ),
    "PS515": Example(
        '{"key": ":confirm", "text": "t) (delete-file \\"x\\") (list"}',
        '{"key": ":confirm", "text": "t"}',
        "json",
    ),
    "PS516": Example(
        '"function": "(progn (shell-command \\"x\\") #\'ignore)"',
        '"function": "#\'my-tool-function"',
        "json",
    ),
    "PS517": Example(
        '{"key": ":function", "text": "(lambda (x) ;; note\\n x)"}',
        '{"key": ":function", "text": "(lambda (x) x)"}',
        "json",
    ),
    "PS518": Example('{"name": "a\\ud800"}', '{"name": "a"}', "json"),
    "PS519": Example(
        '"L1": {"properties": {"a": {"$ref": "#/$defs/L0"}, "b": {"$ref": "#/$defs/L0"}}} '
        "(and so on, 40 levels)",
        '"L1": {"properties": {"a": {"$ref": "#/$defs/L0"}}}',
        "json",
    ),
    "PS520": Example(
        '"d": {"type": "string", "format": "date"}',
        '"d": {"type": "string", "description": "A date, YYYY-MM-DD"}',
        "json",
    ),
    "PS521": Example(
        '"parameters": {"type": "object", "$schema": "...", "properties": {}}',
        '"parameters": {"type": "object", "properties": {}}',
        "json",
    ),
    "PS522": Example(
        '"items": {"type": "object", "default": {}}', '"items": {"type": "object"}', "json"
    ),
    "PS523": Example(
        '"properties": {"x": true}', '"properties": {"x": {"type": "string"}}', "json"
    ),
    "PS524": Example(
        '{"name": "x", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object"}}',
        '{"name": "x", "inputSchema": {"type": "object"}}',
        "json",
    ),
    "PS525": Example('"function": ":my-tool"', '"function": "#\'my-tool"', "json"),
    "PS526": Example(
        '"properties": {"admin\\u202e": {"type": "string"}}',
        '"properties": {"admin": {"type": "string"}}',
        "json",
    ),
    "PS530": Example(
        _t(f':name "t" :description (concat "a" ;; why\n "b") {_F}'),
        _t(f':name "t" ;; why\n :description (concat "a" "b") {_F}'),
        "tool",
        via="fmt",
    ),
    "PS531": Example(
        "plistspec from-json ir.json --category github  # a tool whose IR says category web",
        "plistspec from-json ir.json  # or: --category web, the tool's own",
        "shell",
    ),
    # --- PS6xx: Python --------------------------------------------------------------------
    "PS601": Example("plistspec from-py tols:weather", "plistspec from-py tools:weather", "shell"),
    "PS602": Example(
        "import requests  # not installed for this python\n\n\ndef weather(city: str) -> str: ...",
        "def weather(city: str) -> str: ...  # imports what the interpreter has",
        "python",
    ),
    "PS603": Example("plistspec from-py tools:wether", "plistspec from-py tools:weather", "shell"),
    "PS604": Example("weather = lambda city: city", "def weather(city: str) -> str: ...", "python"),
    "PS605": Example(
        'def f(x: "Foo") -> str: ...  # no class Foo',
        "class Foo: ...\n\n\ndef f(x: Foo) -> str: ...",
        "python",
    ),
    "PS606": Example(
        "def f(cb: Callable[[], None]) -> str: ...", "def f(name: str) -> str: ...", "python"
    ),
    "PS607": Example(
        "def f(scores: dict[int, str]) -> str: ...",
        "def f(scores: dict[str, str]) -> str: ...",
        "python",
    ),
    "PS608": Example('def f(x: float = float("nan")): ...', "def f(x: float = 0.0): ...", "python"),
    "PS609": Example('def f(x: Literal[b"x"]): ...', 'def f(x: Literal["x"]): ...', "python"),
    "PS610": Example("def f(x): ...", "def f(x: str): ...", "python"),
    "PS611": Example(
        'def f(city: str):\n    """The weather.\n\n    Args:\n        citty: the city.\n    """',
        'def f(city: str):\n    """The weather.\n\n    Args:\n        city: the city.\n    """',
        "python",
    ),
    "PS612": Example(
        "plistspec from-py tools:Client.fetch  # Client() needs arguments",
        "plistspec from-py tools:client.fetch  # a module-level instance",
        "shell",
    ),
    "PS613": Example(
        "class Weird:\n    __annotations__ = 3",
        "(please report the object that triggers it)",
        "python",
    ),
    "PS614": Example(
        "def flag(flag: bool = True) -> str: ...  # -d llm: false would arrive as True",
        "def flag(flag: bool) -> str: ...  # or keep the default: from-py makes it required",
        "python",
    ),
    "PS615": Example(
        "def f(x: Optional[bool] = None) -> str: ...  # -d llm: nil is false or null",
        "def f(x: bool = False) -> str: ...",
        "python",
    ),
    "PS616": Example(
        "~/venvs/tools/bin/plistspec from-py mytools -o my-tools.el  # the venv is elsewhere",
        "plistspec from-py mytools -o my-tools.el --python ~/venvs/tools/bin/python",
        "shell",
    ),
    # --- PS7xx: plistspec-gptel-mode ---------------------------------------------------------
    "PS701": Example(
        '(gptel-make-tool :name "tree" :function #\'f :description "d"\n'
        ' :args \'((:name "node" :type object\n'
        '          :properties (:kids (:type array :items (:$ref "#/properties/node"))))))',
        '(gptel-make-tool :name "tree" :function #\'f :description "d"\n'
        ' :args \'((:name "node" :type object\n'
        "          :properties (:kids (:type array :items (:type string))))))",
        "text",
    ),
    "PS702": Example(
        '{"location": "Paris", "unit": "kelvin"}',
        '{"location": "Paris", "unit": "celsius"}',
        "call",
    ),
    "PS703": Example(
        '(gptel-make-tool :name "fetch" :async t :description "d"\n'
        ' :function (lambda (cb url) (error "No network")) :args \'((:name "url" :type string)))',
        '(gptel-make-tool :name "fetch" :async t :description "d"\n'
        ' :function (lambda (cb url) (funcall cb (my-fetch url))) :args \'((:name "url" :type string)))',
        "text",
    ),
    "PS704": Example(
        '(setq plistspec-executable "/no/such/plistspec")',
        '(setq plistspec-executable \'("python3" "-m" "plistspec"))',
        "text",
    ),
    "PS705": Example(
        "a gptel whose gptel--handle-tool-use is gone or takes other arguments",
        "gptel 0.9.9.5",
        "setup",
    ),
    # --- PS8xx: serve and a running Emacs -----------------------------------------------------
    "PS801": Example(
        "plistspec serve a.el b.el  # both define a tool named search",
        "plistspec serve a.el b.el  # search and search-web",
        "shell",
    ),
    "PS802": Example(
        "plistspec serve --no-map-names tools.el  # a tool named files.read",
        "plistspec serve tools.el  # files.read is listed as files_read",
        "shell",
    ),
    "PS803": Example(
        "plistspec serve tools.el  # tools.el does (require 'my-helpers)",
        "plistspec serve -L ~/lisp tools.el",
        "shell",
    ),
    "PS804": Example(
        "plistspec to-json --from-emacs  # no Emacs server runs",
        "emacs --daemon && plistspec to-json --from-emacs",
        "shell",
    ),
    "PS805": Example(
        'plistspec serve tools.el  # (gptel-make-tool :name "x" :function #\'f)',
        'plistspec serve tools.el  # ... :description "What it does" ...',
        "shell",
    ),
    "PS806": Example(
        "plistspec serve -t TARGET tools.el  # a lowering that splits a tool",
        "plistspec serve -t gemini tools.el",
        "shell",
    ),
    "PS807": Example(
        'plistspec serve --emacs  # :description (string-to-unibyte "caf\\351")',
        'plistspec serve --emacs  # :description "café"',
        "shell",
    ),
    "PS808": Example(
        "plistspec serve --emacs  # gptel not loaded in that Emacs",
        'emacsclient --eval "(require \'gptel)" && plistspec serve --emacs',
        "shell",
    ),
    "PS809": Example(
        'plistspec serve tools.el  # (:name "x" :type :string)',
        'plistspec serve tools.el  # (:name "x" :type string)',
        "shell",
    ),
    "PS810": Example(
        "plistspec from-json --from-emacs  # :function (lambda (x) ...)",
        "plistspec from-json --from-emacs  # :function #'my-tool",
        "shell",
    ),
    "PS811": Example(
        "plistspec serve --http --host 0.0.0.0 tools.el",
        "plistspec serve --http --host 0.0.0.0 --auth-token-file ~/.plistspec-token tools.el",
        "shell",
    ),
    "PS812": Example(
        "plistspec serve --http --auth-token-file empty.txt tools.el",
        "plistspec serve --http --auth-token-file ~/.plistspec-token tools.el",
        "shell",
    ),
    # --- PS9xx: the command line --------------------------------------------------------------
    "PS901": Example("plistspec check tols.el", "plistspec check tools.el", "shell"),
    "PS902": Example(
        "plistspec to-json tools.el -o missing/dir/out.json",
        "plistspec to-json tools.el -o out.json",
        "shell",
    ),
    "PS903": Example(
        "PLISTSPEC_TRACEBACK= plistspec to-json tools.el  # a bug: one line, exit 1",
        "PLISTSPEC_TRACEBACK=1 plistspec to-json tools.el  # the traceback, for a bug report",
        "shell",
    ),
    "PS904": Example(
        "plistspec check --fix tools.el & (sleep 0.1; echo ';; x' >> tools.el)",
        "plistspec check --fix tools.el; echo ';; x' >> tools.el",
        "shell",
    ),
    "PS920": Example(
        '(gptel-make-tool\n :name "t" :description "What it does" :function #\'f\n'
        ' :args (list \'(:name "q" :type string :description "Q"))) ; plistspec: ignore[PS333]',
        '(gptel-make-tool\n :name "t" :description "What it does" :function #\'f\n'
        ' :args (list \'(:name "q" :type string))) ; plistspec: ignore[PS333]',
        "tool",
    ),
    "PS921": Example(
        '(gptel-make-tool\n :name "t" :description "What it does" :function #\'f\n'
        ' :args (list \'(:name "q" :type string))) ; plistspec: ignore[PS3333]',
        '(gptel-make-tool\n :name "t" :description "What it does" :function #\'f\n'
        ' :args (list \'(:name "q" :type string))) ; plistspec: ignore[PS333]',
        "tool",
    ),
    "PS930": Example('selct = ["PS3"]', 'select = ["PS3"]', "toml"),
}


def as_elisp(example_text: str, kind: str) -> str | None:
    """The whole Elisp text an example stands for (None for non-Elisp kinds)."""
    if kind == "tool":
        return example_text + "\n"
    if kind in ("arg", "arg-llm"):
        head = "llm-make-tool" if kind == "arg-llm" else "gptel-make-tool"
        return f"({head} {_ND} {_F}\n :args (list '{example_text}))\n"
    return None


def render_example(code: str) -> str:
    """The "Wrong:" / "Right:" part of ``plistspec explain CODE`` ('' when none)."""
    ex = EXAMPLES.get(code)
    if ex is None:
        return ""
    where = {
        "arg": "an arg of :args",
        "arg-llm": "an arg of an llm-make-tool form",
        "tool": "Emacs Lisp",
        "json": "JSON input of from-json",
        "python": "Python given to from-py",
        "shell": "command line",
        "toml": ".plistspec.toml",
        "text": "Emacs Lisp",
        "call": "a model's tool call, with plistspec-gptel-mode on",
        "setup": "a gptel set-up",
    }.get(ex.kind, ex.kind)
    target = f", with --target {ex.target}" if ex.target else ""
    if ex.via == "lower":  # reported by the lowering stage, not by check --target
        target = f", with to-json -t {ex.target} --lower"

    def block(s: str) -> str:
        return "".join("    " + line + "\n" for line in s.splitlines())

    return f"Wrong ({where}{target}):\n\n{block(ex.wrong)}\nRight:\n\n{block(ex.right)}"
