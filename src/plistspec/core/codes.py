"""Every diagnostic code plistspec emits, documented in one place.

Owns: the table of codes. Each entry gives the default severity, a one-line title and a
short explanation with an example (ruff style). Codes are stable: never reuse or renumber
one; retire it instead. Ranges:

* ``PS0xx`` reading Emacs Lisp text (:mod:`plistspec.elisp.reader`)
* ``PS1xx`` finding tool forms and reading them statically (:mod:`plistspec.extract`)
* ``PS2xx`` what gptel / llm themselves would refuse (:mod:`plistspec.replay`)
* ``PS3xx`` spec lints: mistakes and surprises in a tool spec (:mod:`plistspec.lint`)
* ``PS4xx`` provider lints for ``check --target`` (:mod:`plistspec.lint`)
* ``PS5xx`` reading provider JSON (:mod:`plistspec.fromjson.detect`) and writing Elisp
* ``PS6xx`` Python functions (:mod:`plistspec.pyfunc`) and the ``call`` bridge
* ``PS7xx`` ``plistspec-gptel-mode`` at run time (:mod:`plistspec.calls`,
  ``elisp/plistspec-gptel.el``): what it did to a gptel request, and when it stood aside
* ``PS8xx`` ``plistspec serve`` and tools read from a running Emacs (:mod:`plistspec.serve`,
  :mod:`plistspec.emacs`)
* ``PS9xx`` usage and input/output errors of the command line
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["Code", "CODES", "explain"]


class Code(NamedTuple):
    severity: str
    title: str
    explanation: str


CODES: dict[str, Code] = {
    # --- PS0xx: reader -------------------------------------------------------------
    "PS001": Code(
        "error",
        "Emacs Lisp syntax error",
        "The text cannot be read by Emacs's `read` (unterminated string or list, stray `)`, "
        'misplaced `.`, invalid escape, invalid UTF-8...). Example: `(:name "a` never closes.',
    ),
    "PS002": Code(
        "error",
        "syntax a tool file does not need",
        "`#s(...)`, `#1=`, `#[...]`, `#@` and similar reader syntax is refused, never misread.",
    ),
    # --- PS1xx: extract ------------------------------------------------------------
    "PS101": Code(
        "warning",
        "cannot be read statically",
        "A slot plistspec needs (`:name`, `:description`, `:args`...) is computed by code it does "
        "not run: a variable, a call of another function, an unquote of one. plistspec never "
        "evaluates Elisp, so the tool is skipped and the others go on. Example: "
        "`:args my-args` (write the list literally, or `(list '(...))`).",
    ),
    "PS102": Code(
        "warning",
        "expected a keyword",
        "Tool constructors take `:key value` pairs; a non-keyword where a key should be stops "
        'static reading of the rest of the form. Example: `(gptel-make-tool "name" ...)` '
        '(write `:name "name"`).',
    ),
    "PS103": Code(
        "info",
        "runtime-only slot needs evaluation",
        "A slot that never reaches the JSON (`:category`, `:confirm`, `:include`, `:async`) is "
        "computed at run time; the tool is still compiled. Example: `:confirm my-confirm-p`.",
    ),
    # --- PS2xx: lower --------------------------------------------------------------
    "PS201": Code(
        "error",
        "gptel fails on this spec",
        "gptel 0.9.9.5 itself signals an error for this tool, on every backend: building the "
        "JSON (`:name` a symbol or number: `wrong-type-argument sequencep`) or serializing it "
        "(`json-serialize`: a list where an array is meant, a symbol value, an odd-length plist, "
        "an integer beyond 64 bits, a float infinity/NaN, raw bytes in a string). plistspec "
        'prints no JSON for it. Example: `:enum ("a" "b")` fails with `wrong-type-argument '
        'symbolp "a"`; write `:enum ["a" "b"]`.',
    ),
    "PS202": Code(
        "error",
        "llm fails on this spec",
        "llm 0.31.1 itself signals an error when a provider builds the request with this tool, "
        'so the whole request fails. Examples: `:type "string"` (llm takes the `symbol-name` '
        'of `:type`: `wrong-type-argument symbolp`), `:args` written as a vector, `:enum ("a")`, '
        "`:json-false` inside a top-level vector.",
    ),
    "PS203": Code(
        "error",
        "gptel fails on this spec for this backend",
        "gptel 0.9.9.5 can send this tool to some backends but signals an error for the one "
        'asked for. Example: `:anyOf ((:type "string"))` written as a list makes gptel\'s '
        "Gemini filter signal `wrong-type-argument arrayp`; write `:anyOf [(:type string)]`.",
    ),
    "PS204": Code(
        "error",
        "spec nested too deep to predict the library's behaviour",
        "gptel's and llm's conversion functions recurse once per nesting level; past a few "
        "hundred levels they hit `max-lisp-eval-depth`, at a depth that depends on whether the "
        "package was byte-compiled (uncompiled gptel fails at about 195 levels of `:items`, "
        "compiled at about 1580; llm at about 315 / 525). plistspec refuses specs nested more "
        "than 150 levels deep rather than guess. `from-json` says the same, as a warning, of a "
        "tool it writes that deep (the file is still written; `check` then reports the form).",
    ),
    # --- PS3xx: spec lints ---------------------------------------------------------
    "PS301": Code(
        "warning",
        "unknown keyword",
        "A key neither gptel nor llm knows, and not a JSON Schema keyword. gptel sends it "
        "verbatim (a typo becomes a junk schema keyword), llm drops it at the arg level and "
        "keeps it nested; the key you meant is missing either way. Example: "
        '`:description: "Color name"` (write `:description "Color name"`).',
    ),
    "PS302": Code(
        "info",
        "slot ignored",
        "A tool slot the library does not read: gptel ignores unknown slots, llm also drops "
        "gptel's `:category`, `:confirm` and `:include`. Example: `:tags (files)` in a "
        "`gptel-make-tool` form.",
    ),
    "PS303": Code(
        "warning",
        "`:required` flag on an argument is not read",
        "Neither gptel nor llm reads `:required t` (or `:require t`) on an arg: every arg is "
        'required unless it has `:optional t`; gptel even sends `"required": true` inside the '
        'property schema, which is not JSON Schema. Example: `(:name "q" :type string '
        ":required t)` (delete `:required t`; write `:optional t` for an optional arg).",
    ),
    "PS304": Code(
        "error",
        "tool without `:name`",
        'The tool is sent with `"name": {}` and no provider accepts it. Example: '
        '`(gptel-make-tool :function #\'f :description "...")` (add `:name "f"`).',
    ),
    "PS305": Code(
        "error",
        "tool without `:description`",
        'gptel and llm send `"description": {}` for a missing description; Bedrock requires '
        'a non-empty string and the others expect one. Example: add `:description "What the '
        'tool does"`.',
    ),
    "PS306": Code(
        "warning",
        "empty description",
        'An empty `:description ""` tells the model nothing, and Bedrock rejects it. '
        'Example: `:description ""`.',
    ),
    "PS307": Code(
        "error",
        "tool name providers reject",
        "OpenAI, Anthropic and Bedrock accept tool names matching `^[a-zA-Z0-9_-]{1,64}$` "
        '(no spaces, dots or colons). Example: `:name "get weather"` (write `"get_weather"`).',
    ),
    "PS308": Code(
        "error",
        "tool `:name` or `:description` is not a string",
        "The value is sent as whatever JSON it is (a number, an array, `{}`), which providers "
        'reject. Example: `:name 42` (write `:name "tool_42"`).',
    ),
    "PS309": Code(
        "error",
        "argument without `:name`",
        'gptel sends it as the property `":"` (not required), llm as `"nil"` (required). '
        'Example: `\'(:type string :description "city")` (add `:name "city"`).',
    ),
    "PS310": Code(
        "error",
        "argument `:name` is not a non-empty string",
        'An empty name becomes the property `":"`; a keyword (`:loc`) makes gptel fail and '
        'llm send `":loc"`; a symbol or number makes gptel fail. Example: `:name :loc` '
        '(write `:name "loc"`).',
    ),
    "PS311": Code(
        "error",
        "duplicate argument name",
        "Two args with the same name: gptel keeps the first one's schema, llm the later one's "
        "(in the first one's position), and `required` lists the name twice. Example: two "
        'args both named `"path"`.',
    ),
    "PS312": Code(
        "warning",
        "duplicate key",
        "A key repeated in one plist: both libraries use the first occurrence. A second "
        '`:name` or `:optional` in an arg is worse (error): gptel sends it as `"name"` / '
        '`"optional"`. Example: `(:type string :description "a" :description "b")`.',
    ),
    "PS313": Code(
        "error",
        "missing `:type`",
        'gptel sends no `type`, llm sends `"type": "nil"`; nested schemas without a type are '
        'rejected by Gemini 3 (warning there). Example: `(:name "q" :description "query")` '
        "(add `:type string`).",
    ),
    "PS314": Code(
        "error",
        "`:type` is not a JSON Schema type",
        "Types are `string number integer boolean array object null`; anything else is sent "
        'verbatim and rejected or misread (`"Object"` also misses gptel\'s object additions). '
        "Example: `:type float` (write `:type number`).",
    ),
    "PS315": Code(
        "warning",
        "`:type` written as a string",
        'gptel accepts `:type "string"`, but llm signals `wrong-type-argument symbolp` at '
        "request time: an info in a gptel-make-tool form (it works there, but is not portable), "
        'a warning under llm. Example: `:type "string"` (write `:type string`).',
    ),
    "PS316": Code(
        "error",
        "quoted symbol inside quoted data",
        "Inside `'( ... )` a further `'string` reads as the list `(quote string)`, which both "
        "libraries fail to send (gptel #1059). Example: `'(:name \"x\" :type 'string)` "
        "(write `:type string`).",
    ),
    "PS317": Code(
        "error",
        "`:enum` is not a vector of strings",
        'A list (`("a" "b")`) or symbols (`[a b]`) in `:enum` fail to serialize in both '
        'libraries. Example: `:enum ("celsius" "fahrenheit")` (write `["celsius" "fahrenheit"]`).',
    ),
    "PS318": Code(
        "warning",
        "array without `:items`",
        "Gemini and OpenAI reject an array schema without `items`. Example: `:type array` "
        "(add `:items (:type string)`).",
    ),
    "PS319": Code(
        "warning",
        "`:properties` on a non-object",
        "`:properties` only means something when `:type` is `object`; Gemini rejects it on "
        "other types. Example: `(:type string :properties (...))`.",
    ),
    "PS320": Code(
        "error",
        "`:required` names a property that does not exist",
        "Every name in an object's `:required` must be a key of its `:properties`. Example: "
        '`:properties (:r (:type number)) :required ["red"]`.',
    ),
    "PS321": Code(
        "error",
        "`:required` is not a vector of strings",
        "An object's `:required` must be a vector of property names: `nil` is sent as `{}`, a "
        'list fails to serialize. Example: `:required ("r" "g")` (write `["r" "g"]`).',
    ),
    "PS322": Code(
        "warning",
        "`:optional` inside a nested schema",
        "`:optional` is read only on top-level args; inside `:properties` or `:items` it is "
        "sent as an `optional` keyword that means nothing. List the required properties in "
        "the enclosing object's `:required` instead. Example: `:properties (:x (:type string "
        ":optional t))`.",
    ),
    "PS323": Code(
        "warning",
        "`:optional` with a value other than t",
        'Any non-nil value makes the arg optional, `:json-false` and `"no"` included; a '
        "dangling `:optional` without a value reads as nil (required). Example: "
        "`:optional :json-false` (write `:optional t`, or omit it).",
    ),
    "PS324": Code(
        "warning",
        "object arg's `:additionalProperties` overwritten by gptel",
        "For OpenAI, OpenAI Responses, Ollama and Bedrock gptel sets a top-level object arg's "
        "`additionalProperties` to false whatever you wrote; Gemini drops it. Example: "
        '`(:name "opts" :type object :additionalProperties t)`.',
    ),
    "PS325": Code(
        "warning",
        "nil where JSON null, false or [] is meant",
        "nil serializes as `{}` in gptel (and as null in llm's nested schemas): "
        "`:default nil` sends `{}`, `:additionalProperties nil` allows anything. Write "
        "`:null`, `:json-false` or `[]`. Example: `:default nil`.",
    ),
    "PS326": Code(
        "warning",
        "key llm drops",
        "llm keeps only `type`, `description`, `enum`, `items` and `properties` of a "
        "top-level arg and silently drops the rest (`:required`, `:format`, `:default`, "
        '`:minimum`, `:anyOf`...). Example: `(:name "d" :type string :format "date")` in '
        "`llm-make-tool`.",
    ),
    "PS327": Code(
        "warning",
        "llm turns a nested symbol into a string",
        'Inside `:items`/`:properties` llm sends `:null` as the string `":null"` and other '
        'symbols as their names. Example: `:default :null` nested (llm sends `":null"`).',
    ),
    "PS328": Code(
        "warning",
        "property named `additionalProperties`",
        "gptel's Gemini filter deletes every `:additionalProperties` pair it reaches, so a "
        "property with that name disappears on Gemini. Example: `:properties "
        "(:additionalProperties (:type string))`.",
    ),
    "PS329": Code(
        "error",
        "`:args` is not a list of arg plists",
        "`:args` is a list of plists: a vector makes gptel send `properties {}` with a "
        "non-empty `required` (llm fails); a single plist makes gptel fail and llm send "
        'garbage. Example: `:args \'(:name "q" :type string)` (write `:args \'((:name "q" '
        ":type string))`).",
    ),
    "PS330": Code(
        "error",
        "`:anyOf`/`:allOf`/`:oneOf` written as a list",
        "These take a vector of schemas; a list fails to serialize (and gptel's Gemini path "
        "fails earlier). Example: `:anyOf ((:type string) (:type null))` (write `[(:type "
        "string) (:type null)]`).",
    ),
    "PS331": Code(
        "warning",
        "tool without `:function`",
        "The tool can be offered to the model but nothing runs when it is called. Example: "
        "add `:function #'my-tool`.",
    ),
    "PS332": Code(
        "error",
        "internal error while checking a form",
        "plistspec failed on this form (a bug: please report it with the form). The other "
        "forms are still checked.",
    ),
    "PS333": Code(
        "warning",
        "argument without `:description`",
        "The model sees only the arg's name and type; llm's documentation requires a "
        'description for every arg. Example: `(:name "q" :type string)` (add `:description '
        '"Words to search for"`).',
    ),
    "PS334": Code(
        "error",
        "`:items` is not one schema",
        "`:items` takes one schema plist. A list of plists (`((:type string) (:type "
        "integer))`) fails to serialize; a vector is the draft-07 tuple form OpenAI and "
        "Gemini reject (warning); a bare type (`:items string`) is not a schema. Example: "
        "`:items ((:type string))` (write `:items (:type string)`).",
    ),
    "PS335": Code(
        "error",
        "`:properties` is not a plist of schemas",
        "`:properties` maps each property name (a keyword) to its schema plist. An alist, a "
        "vector or list of arg plists, string keys, or a bare type as a schema are sent as "
        'garbage or fail. Example: `:properties [(:name "x" :type string)]` (write '
        "`:properties (:x (:type string))`).",
    ),
    "PS336": Code(
        "warning",
        "async tool lists its callback as an argument",
        "With `:async t` the library passes the callback as the function's first argument; "
        "it must not appear in `:args`, or the model is asked to supply it. Example: "
        '`:async t :args (list \'(:name "callback" :type string))`.',
    ),
    "PS337": Code(
        "error",
        "`:function` takes the wrong number of arguments",
        "gptel and llm call a tool's function with one value per element of `:args` (`nil` for "
        "an argument the model left out) and, for an `:async` tool, the callback first; a function "
        "that takes another number fails with `wrong-number-of-arguments` (gptel: a sync tool "
        "returns that error to the model, an async one never calls back; llm: the call fails). "
        "Judged for a literal lambda and for `#'NAME` when the file defines NAME. Example: two "
        "`:args` and `(lambda (a) ...)`, or `:async t` with `(lambda (city) ...)` (no callback).",
    ),
    # --- PS4xx: provider lints -----------------------------------------------------
    "PS401": Code(
        "error",
        "tool name the target rejects",
        "OpenAI, Anthropic, Bedrock: `^[a-zA-Z0-9_-]{1,64}$`; Gemini: a letter or `_`, then "
        "`[A-Za-z0-9_.:-]`, at most 64; MCP (SHOULD): 1-128 of `[A-Za-z0-9_.-]`. Example: "
        '`:name "9lives"` for Gemini.',
    ),
    "PS402": Code(
        "error",
        "description the target rejects",
        "Bedrock requires a non-empty string description; Ollama cannot decode `{}` (a "
        'missing description). Example: `:description ""` with `--target bedrock`.',
    ),
    "PS403": Code(
        "error",
        "keyword the target rejects",
        "The JSON gptel/llm sends holds a schema keyword the provider answers with HTTP 400: "
        "Gemini `parameters` accepts only its OpenAPI subset (no `const`, `oneOf`, `allOf`, "
        "`$ref`, `additionalProperties`, `$schema`...); OpenAI strict rejects `default`, "
        '`allOf`, `oneOf`, `not`. Example: `:const "x"` with `--target gemini`.',
    ),
    "PS404": Code(
        "warning",
        "keyword the target ignores",
        "The provider drops or does not honour the keyword (Ollama keeps only `type`, "
        "`description`, `enum`, `items`, `properties`, `required`, `anyOf`, `$defs`; Gemini "
        "may reject `default` and most `format`s). Example: `:minimum 0` with `--target ollama`.",
    ),
    "PS405": Code(
        "error",
        "value the target rejects",
        'Gemini `parameters` rejects type arrays (`["string" "null"]`) and non-string enum '
        "values; OpenAI strict rejects free-form objects (`additionalProperties` true or a "
        'schema). Example: `:type ["string" "null"]` with `--target gemini`.',
    ),
    "PS406": Code(
        "error",
        "object not closed for OpenAI strict",
        "Strict mode needs `additionalProperties: false` on every object; gptel adds it only "
        "to the root and to top-level object args, llm never. Example: an object inside "
        "`:items` without `:additionalProperties :json-false`.",
    ),
    "PS407": Code(
        "error",
        "optional property under OpenAI strict",
        "Strict mode needs every property in `required` (optional is written as a union with "
        'null). Example: `:optional t` with `--target openai-strict` (write `:type ["string" '
        '"null"]` and drop `:optional`).',
    ),
    "PS408": Code(
        "warning",
        "optional arg on the OpenAI Responses API",
        "gptel and llm omit `strict`, so the Responses API normalises the schema to strict "
        "when it can: optional args become required and the model invents placeholder values "
        '(`""`, `0`). Example: `:optional t` with llm\'s `llm-openai`.',
    ),
    "PS409": Code(
        "warning",
        "property name the target rejects",
        "Gemini `parameters` restricts property names to `^[A-Za-z_][A-Za-z0-9_]{0,63}$`. "
        'Example: `:name "file-path"` with `--target gemini`.',
    ),
    "PS410": Code(
        "warning",
        "schema node without a type",
        "Gemini 3 answers MALFORMED_FUNCTION_CALL for a node without `type`. Example: "
        '`:properties (:x (:description "anything"))` with `--target gemini`.',
    ),
    "PS411": Code(
        "error",
        "array without `items` the target rejects",
        "Gemini and OpenAI answer HTTP 400 for an array schema without `items`. Example: "
        "`:type array` with `--target openai`.",
    ),
    "PS412": Code(
        "info",
        "$ref inlined for the target",
        '`--lower` replaced a `$ref` by the schema it points at (the target does not resolve references, or not beside other keywords), and removed `$defs` once nothing refers to them. Lossless. Example: `{"$ref": "#/$defs/Path"}` for `gemini`.',
    ),
    "PS413": Code(
        "error",
        "$ref the target cannot take",
        "A recursive `$ref` on a target that cannot express recursion (`gemini`, MCP before 2026-07-28; `ollama` loosens it with a warning), a `$ref` that is not local or points at nothing, or inlining that would make the schema too large. Example: a tree node whose `children` refer back to `#/$defs/Node`, for `gemini` (use `gemini-jsonschema`).",
    ),
    "PS414": Code(
        "info",
        "type list or null union rewritten",
        'A type list or `anyOf [T, {"type": "null"}]` written the way the target says it (Gemini `parameters`: `T` + `nullable: true`, several types as `anyOf`), or OpenAPI `nullable` written as a JSON Schema type union. Example: `"type": ["string", "null"]` for `gemini`.',
    ),
    "PS415": Code(
        "info",
        "const written as a one-value enum",
        'The target refuses `const` (Gemini, Ollama): `{"const": "x"}` becomes `{"enum": ["x"]}`. Lossless.',
    ),
    "PS416": Code(
        "warning",
        "enum values the target cannot hold",
        'Gemini `parameters` takes strings only in `enum` (`gemini-jsonschema` strings and numbers): other values move into the description (the schema accepts more). `null` in an enum becomes nullability (lossless). Example: `"enum": [1, 2, 3]` for `gemini`.',
    ),
    "PS417": Code(
        "warning",
        "oneOf written as anyOf",
        'The target refuses `oneOf` (Gemini `parameters`, OpenAI strict, Ollama): the members become an `anyOf`, so a value matching several members is now accepted. Example: `"oneOf": [{"type": "string"}, {"type": "integer"}]`.',
    ),
    "PS418": Code(
        "info",
        "allOf merged into one schema",
        'The target refuses `allOf` (Gemini, OpenAI strict, Ollama): the members are merged (properties united, `required` united, types and enums intersected, bounds tightened). A warning when something could not be merged exactly (it goes into the description). Example: `"allOf": [{"$ref": "#/$defs/Base"}, {"properties": {...}}]`.',
    ),
    "PS419": Code(
        "warning",
        "keyword moved into the description",
        'The target refuses or drops a keyword, so `--lower` writes it into the description text instead of losing it: a warning for constraints (`minLength`, `pattern`, `not`...: the schema accepts more), info for annotations (`default`, `format`, `examples`). Example: `"minLength": 3` for `ollama`.',
    ),
    "PS420": Code(
        "info",
        "items added to an array",
        'The target rejects an array schema without `items` (Gemini, OpenAI): `items: {}` is added, which accepts the same. Example: `{"type": "array"}` for `openai`.',
    ),
    "PS421": Code(
        "warning",
        "type added to a schema",
        'Gemini needs a `type` on every schema node: an untyped node is typed from its keywords (`properties` \u2192 object, `items` \u2192 array) or, when it accepted any value, as a string holding JSON text. Also: the root typed `object`, `properties` removed from a schema that is not an object (info). Example: `"items": {}` for `gemini`.',
    ),
    "PS422": Code(
        "warning",
        "additionalProperties changed",
        "Gemini `parameters` and Ollama refuse `additionalProperties` (removed; `false` or a schema is said in the description); strict modes need `additionalProperties: false` on every object (added: the object accepts fewer keys). Example: a nested object without `additionalProperties` for `openai-strict`.",
    ),
    "PS423": Code(
        "warning",
        "tool name mapped to the target's rule",
        "The name breaks the target's rule (OpenAI/Anthropic/Bedrock `^[a-zA-Z0-9_-]{1,64}$`, Gemini, MCP): refused characters become `_`, too long or colliding names get a hash suffix; the original is kept in `metadata.lowered.original_name` so a call can be mapped back. Example: `github.create_issue` \u2192 `github_create_issue` for `openai`.",
    ),
    "PS424": Code(
        "info",
        "description adjusted",
        "Bedrock requires a non-empty description (the tool name is used); a description that is not a string (gptel's `{}`) is left out. Example: a tool without `:description` for `bedrock`.",
    ),
    "PS425": Code(
        "warning",
        "optional property made required and nullable",
        "OpenAI strict mode needs every property in `required`: an optional property becomes required with `null` allowed, so the model sends `null` instead of leaving it out. Example: `:optional t` with `-t openai-strict`.",
    ),
    "PS426": Code(
        "warning",
        "tool not sent in strict mode",
        'The schema cannot be made strict (a free-form object, recursion for Anthropic, too deep or too large...): `openai-strict` and `anthropic-strict` leave `strict` out, `openai-responses` sends `strict: false`, and the plain lowering is used. Example: `"additionalProperties": {"type": "string"}` for `openai-strict`.',
    ),
    "PS427": Code(
        "warning",
        "root union flattened into one object",
        'The target refuses `anyOf`/`oneOf` at the root: one object with the union of the members\' properties, requiring only what every member requires (the schema accepts more). Example: `{"type": "object", "anyOf": [{...}, {...}]}` for `anthropic`.',
    ),
    "PS428": Code(
        "error",
        "tool the target cannot express",
        'After lowering, the tool still breaks a rule of the target (the arguments are not an object, a schema is not an object...): `--lower` writes nothing and exits 1. Example: `"parameters": {"type": "string"}`.',
    ),
    "PS429": Code(
        "info",
        "keyword removed",
        'A keyword that does not constrain the value (`$schema`, `$id`, `$comment`, `title`, an unknown `x-` extension) is removed for a target that does not take it. Lossless. Example: `"$schema"` for `gemini`.',
    ),
    "PS430": Code(
        "warning",
        "positional items became one items schema",
        'Gemini `parameters` and Ollama refuse `prefixItems` (or draft-4 `items` arrays): `items` becomes the `anyOf` of the positional schemas and the description says how many items are in a fixed order. Example: `"prefixItems": [{"type": "number"}, {"type": "number"}]`.',
    ),
    "PS431": Code(
        "warning",
        "outputSchema wrapped in an object",
        "MCP before 2026-07-28 needs `outputSchema` rooted at `type: object`: another schema "
        'becomes `{"type": "object", "properties": {"result": ...}, "required": ["result"]}` '
        "(the structured result must then be wrapped the same way). Example: "
        '`"outputSchema": {"type": "array"}` for `mcp-2025-06-18`.',
    ),
    "PS432": Code(
        "info",
        "required property added to properties",
        "`required` names a property that `properties` lacks (gptel sends that for `:args` written "
        'as a vector: `properties: {}` with `required: ["x"]`). Gemini rejects it and strict '
        "mode could never be satisfied, so `--lower` adds the property, taking any value (lossless; "
        "the target's other rules then apply to it: Gemini types it, strict mode is left). "
        'Example: `{"properties": {"a": {...}}, "required": ["a", "b"]}` for `gemini`.',
    ),
    "PS433": Code(
        "info",
        "draft-3 required moved into the parent's required",
        "A property schema holding `required: true` (JSON Schema draft 3, what an Elisp `:required "
        "t` inside an arg sends) is not valid JSON Schema today: `--lower` removes it and lists the "
        "property in the parent's `required` (lossless), as `check --fix` does in the source. "
        'Example: `(:name "path" :type string :description "File" :required t)`.',
    ),
    "PS434": Code(
        "warning",
        "type that names no JSON type removed",
        '`"type": "nil"` (an Elisp `:type nil`, or llm\'s missing `:type`) or `"any"` names no '
        "JSON type, so no value could match it: `--lower` removes the `type` and the schema takes "
        "any value (the target's other rules then apply: Gemini types it). Example: "
        '`(:name "v" :type nil :description "Any value")`.',
    ),
    "PS435": Code(
        "warning",
        "object without properties for Gemini's parameters",
        "Gemini's `parameters` (an OpenAPI subset) has no way to say \"an object with any "
        'properties": such an object is sent without properties and arrives empty (`{}`); lower '
        "for `gemini-jsonschema` to keep it. At the root, a tool without properties takes no "
        "arguments and is sent without `parameters` (info). Example: "
        '`(:name "opts" :type object :description "Options")` for `gemini`.',
    ),
    "PS436": Code(
        "info",
        "object keywords written into each member of a union",
        "Strict mode closes every object, so an object with `properties` beside an `anyOf`/`oneOf` "
        "of objects would accept nothing: its keywords go into each member instead (the same "
        'values). Example: `{"type": "object", "oneOf": [{"properties": {"x": ...}}, '
        '{"properties": {"y": ...}}]}` inside a property, for `openai-strict`.',
    ),
    "PS437": Code(
        "info",
        "type taken from the enum's values",
        "The target needs a `type` on every schema (Gemini, strict modes) and the node has none, "
        "but every value of its `enum` (or its `const`) has the same JSON type: that type is added "
        '(lossless). Example: `(:name "unit" :description "Unit" :enum ["c" "f"])` for `gemini`.',
    ),
    "PS438": Code(
        "warning",
        "required property with a recursive $ref made optional",
        "Gemini unrolls a recursive `$ref` only through optional properties (providers.md §3): for "
        "`gemini-jsonschema` a required property holding one is made optional (the schema accepts "
        "more). Example: a tree node whose required `next` refers back to the node.",
    ),
    "PS439": Code(
        "info",
        "strict shape written, but gptel and llm never send strict",
        "`from-json --target openai-strict|anthropic-strict|openai-responses` writes schemas in "
        "strict mode's shape (every property required, objects closed), but neither gptel nor llm "
        "has a way to send `strict: true`: the provider receives the tools non-strict. Said once "
        "per run. Example: `plistspec from-json tools.json --target openai-strict`.",
    ),
    # --- PS5xx: JSON input / Elisp output ------------------------------------------
    "PS500": Code(
        "error",
        "not tool JSON in a known format",
        "`from-json` could not read the input as tools: invalid JSON, or a value that fits none of "
        "the formats (or not the one `--from` names). The message lists what was expected and the "
        'JSON pointer where the input stopped fitting. Example: `{"foo": 1}` or '
        '`{"type":"function","function":{"name":3}}` (at /function/name: expected a string).',
    ),
    "PS501": Code(
        "error",
        "`$ref` points to nothing",
        'A local `$ref` (`"#/$defs/Missing"`) names no part of the root schema, so it cannot be '
        'written inline; the tool is left out. Example: `"$ref": "#/$defs/Adress"` with '
        "`$defs` holding `Address`.",
    ),
    "PS502": Code(
        "error",
        "parameter schema is not an object schema",
        'A tool\'s parameters must be `{"type": "object", "properties": {...}}`; '
        "`properties` an object and `required` an array. Example: "
        '`"parameters": {"type": "string"}`.',
    ),
    "PS503": Code(
        "warning",
        "tool key dropped",
        "A key of the tool object that a gptel/llm tool has no place for (OpenAI `strict`, Anthropic "
        "`cache_control`, MCP `icons`/`_meta`...). Example: "
        '`{"type":"function","function":{..., "strict": true}}` (strict is dropped).',
    ),
    "PS504": Code(
        "warning",
        "tool without a description",
        "The JSON tool has no `description`; the Elisp gets no `:description` and gptel/llm will "
        'send `"description": {}`. Example: an MCP tool `{"name": "x", "inputSchema": {...}}`.',
    ),
    "PS505": Code(
        "warning",
        "root schema keyword dropped",
        "A keyword at the root of the parameter schema other than `type`, `properties` and "
        "`required` (`additionalProperties`, `$schema`, `anyOf`, `title`...): a gptel/llm spec "
        "builds the root itself. `additionalProperties: false` is only an info saying what the "
        "library does instead: gptel adds it back for the OpenAI family when the tool has "
        "arguments, sends a tool without arguments as an empty object, and llm sends none. "
        'Example: `"$schema": "http://json-schema.org/draft-07/schema#"`.',
    ),
    "PS506": Code(
        "warning",
        "unused definitions dropped",
        "Referenced `$defs`/`definitions` are written inline where they are used; the ones no "
        '`$ref` uses are dropped. Example: `"$defs": {"Unused": {...}}`.',
    ),
    "PS507": Code(
        "warning",
        "`required` names a missing property",
        "Each arg is `:optional t` unless its name is in `required`; names in `required` that are "
        'not properties have no arg to go with. Example: `"required": ["city", "cty"]`.',
    ),
    "PS508": Code(
        "info",
        "parameter schema without `type`",
        'The root schema has no `"type"`; `"object"` is assumed (gptel/llm always send it). '
        'Example: `"inputSchema": {"properties": {...}}`.',
    ),
    "PS509": Code(
        "warning",
        "external `$ref` kept as it is",
        "A `$ref` to another document (or an `$id`/anchor) is never fetched; it is written as "
        'the key `:$ref` and providers may reject it. Example: `"$ref": "https://x/schema.json"`.',
    ),
    "PS510": Code(
        "error",
        "recursive `$ref`",
        "A schema that refers to itself cannot be written inline (a gptel/llm arg is a finite "
        "plist); the message names the cycle. Example: "
        '`"$defs": {"Node": {"properties": {"kids": {"items": {"$ref": "#/$defs/Node"}}}}}`.',
    ),
    "PS511": Code(
        "warning",
        "non-function tool skipped",
        "A provider's built-in tool (OpenAI `web_search`, Anthropic `bash_20250124`, a Bedrock "
        '`cachePoint`) has no parameter schema to write. Example: `{"type": "web_search"}`.',
    ),
    "PS512": Code(
        "warning",
        "no tools in the input",
        'The JSON is a valid container but holds no tool. Example: `{"tools": []}`. '
        "`to-json` and `check` say it too when given JSON (a `.json` file, or JSON on stdin): they read "
        "tool forms from Emacs Lisp, and JSON holds none (for `to-json` an error: nothing is "
        "printed, exit 1); `from-json` writes Elisp from tool JSON and `to-json -t TARGET "
        "--lower` lowers it for one provider.",
    ),
    "PS513": Code(
        "warning",
        "duplicate JSON keys",
        "An object repeats a key; JSON readers disagree on which one counts (plistspec keeps the "
        'last, as most do). Example: `{"name": "a", "name": "b"}`.',
    ),
    "PS514": Code(
        "error",
        "IR metadata not in shape",
        "IR JSON given to `from-json` whose `metadata.function` is not a string (or null), or whose "
        '`metadata.slots` is not an array of `{"key": KEYWORD, "text": ELISP, "column": '
        'INTEGER}`; the tool is left out. Example: `"slots": [1]`.',
    ),
    "PS515": Code(
        "warning",
        "IR slot not exactly one datum",
        "Slot texts of IR JSON are read with plistspec's reader and written again by its "
        "printer, never pasted: a text that is not exactly one Emacs Lisp datum (two forms, "
        "unreadable text) or a key that is not one keyword (other than :name, :description, "
        ":args) is dropped; a dropped `:function` becomes the stub. Example: "
        '`"text": "#\'ignore) (delete-file \\"x\\") (list"`.',
    ),
    "PS516": Code(
        "warning",
        "IR slot would run code when the file is loaded",
        "A `:function` is written from IR JSON only when every form of it is known not to run "
        "when the generated file is loaded or byte-compiled: a symbol, `'X`, `#'SYMBOL`, or a "
        "`lambda` whose body holds only special forms and vetted macros (in the shapes they "
        "take), calls of functions of Emacs 28.2, gptel and llm, and quoted data "
        "(`grammars/elisp-load-safety.json`). Anything else (a macro that evaluates its "
        "arguments when expanded, such as `let-when-compile`; a call of a function plistspec "
        "does not know, which could be such a macro in the Emacs that loads the file), or "
        "another slot that is not a literal, symbol or quoted data, is dropped (a stub is "
        "written for `:function`) unless `--trust-functions`. Example: "
        '`"function": "(progn (shell-command \\"x\\") #\'ignore)"`.',
    ),
    "PS517": Code(
        "info",
        "comments in an IR slot text not kept",
        "Slot texts of IR JSON are written again by the printer, which keeps their line breaks "
        "and indentation but not their comments. Example: `(lambda (x) ;; note` in "
        "`metadata.slots`.",
    ),
    "PS518": Code(
        "error",
        "lone surrogate in a JSON string",
        "A JSON string or key holding `\\ud800`…`\\udfff` alone (not a pair) names no "
        "character: no Emacs string or symbol can hold it (`\\udc80` would become the raw byte "
        '0x80). Example: `{"name": "a\\ud800", ...}`.',
    ),
    "PS519": Code(
        "error",
        "`$ref`s expand past the size limit",
        "A gptel/llm spec has no references, so each use of a definition is written out in full. "
        'A schema whose inlined form would exceed 200 000 JSON objects and arrays (a "billion laughs" '
        "schema, where each definition uses the one before twice, doubles at every level) is "
        "refused, naming where it crossed the limit and the largest definition; the tool is "
        'left out. Example: `"L1": {"properties": {"a": {"$ref": "#/$defs/L0"}, "b": {"$ref": '
        '"#/$defs/L0"}}}` and so on for 40 levels.',
    ),
    "PS520": Code(
        "warning",
        "llm cannot carry this",
        "`--dialect llm` writes only what llm 0.31.1 sends at the arg level (`type description "
        "enum items properties`, `:type` a symbol); each other key, a type array or `anyOf` is "
        'reported. Example: `"format": "date"` on an arg (dropped), `"type": ["string", "null"]` '
        "(written as `string`).",
    ),
    "PS521": Code(
        "warning",
        "IR parameters not in tool shape",
        "The IR's `parameters` are not `{type, properties, required}`: extra root keys, names in "
        "`required` without a property, or not an object at all; what does not fit is dropped. "
        'Example: an IR tool with `"parameters": {"type": "object", "$schema": "..."}`.',
    ),
    "PS522": Code(
        "warning",
        "`{}` inside llm `:items`/`:properties`",
        "llm converts nested values itself and sends `nil` as `null`, so an empty object there "
        'cannot be written for llm. Example: `"items": {"type": "object", "default": {}}`.',
    ),
    "PS523": Code(
        "warning",
        "property schema is not an object",
        "A boolean schema (`true`/`false`) or other non-object has no plist form; it is written "
        'as an arg with no keys (`{}`). Example: `"properties": {"x": true}`.',
    ),
    "PS524": Code(
        "warning",
        "MCP `outputSchema` not written",
        "gptel/llm tools have no slot for an output schema; it stays in the IR metadata only. "
        'Example: an MCP tool with `"outputSchema": {"type": "object", ...}`.',
    ),
    "PS525": Code(
        "error",
        "`:function` that names no function",
        "`nil`, `t`, a keyword (bare, quoted or with `#'`), a string, a number or a vector "
        "given as a tool's `:function` (IR `metadata.function` or a `:function` slot of "
        "`from-json`, `from-py --function` or `function=` of the library) cannot be called: "
        "the command stops (exit 1; `from-py --function` is a usage error, exit 2). Example: "
        '`"function": "nil"`.',
    ),
    "PS526": Code(
        "error",
        "a name Emacs Lisp cannot write visibly",
        "A bidirectional control character (U+202A..U+202E, U+2066..U+2069, U+200E/F, "
        "U+061C) changes the order in which the text around it is shown, so a file holding "
        "one can show something else than it does. In strings plistspec writes it as a "
        "`\\uXXXX` escape; a symbol has no escape for it, so a JSON object key holding one "
        "(keys become plist keywords) is refused by `from-json`, and so is a feature name "
        "taken from an `-o` file name that holds one, a control character, a space or a "
        "byte that is not UTF-8 (give `--feature`). Example: a property named "
        '`"admin\\u202e"`.',
    ),
    "PS530": Code(
        "info",
        "tool form left unchanged by `fmt`",
        "`fmt` only rewrites a form when the canonical layout keeps everything: forms that are "
        "not plain calls (`apply` of a spec, `llm-tool-collection-deftool`), cannot be read "
        "statically, repeat a slot, hold a comment the layout has no place for, or whose JSON "
        "would change are left as they are, with the reason (at the comment, for a comment). "
        "Comments before or after slots, args, keys and vector elements are kept and move with "
        'them. Example: `:description (concat "a" ;; note` (inside an evaluated value).',
    ),
    "PS531": Code(
        "info",
        "`--category` replaced a tool's own `:category`",
        "`from-json --category NAME` gives every gptel tool it writes the `:category` NAME (gptel "
        'files a tool without one under "misc"); a tool that came with another one (IR input) '
        "has it replaced, and this says which. Example: `from-json --category github "
        'tools.json` where the IR of a tool says `"category": "web"`.',
    ),
    # --- PS6xx: Python -------------------------------------------------------------
    "PS601": Code(
        "error",
        "Python target not found",
        "The module of a `from-py`/`call` target cannot be found, or the target text is not "
        "`module:function`, `module:Class`, `module:Class.method`, `module:obj.method`, `module` "
        "or `path/to/file.py:function`. The module is imported as `python -m` would, from the "
        "current directory. Example: `plistspec from-py tols:weather` (typo in the module).",
    ),
    "PS602": Code(
        "error",
        "the Python module raised an exception while being imported",
        "Importing the user's module failed (a `SyntaxError`, a missing dependency, code at "
        "module level that raised). The message is that module's own traceback: the error is in "
        "the module, not in plistspec. Example: `import requests` in a module run by an "
        "interpreter without `requests`.",
    ),
    "PS603": Code(
        "error",
        "no such function in the module",
        "The target's module was imported but does not define the named attribute (or, for a "
        "module target, defines no public function and no `__all__`). Example: `tools:wether`.",
    ),
    "PS604": Code(
        "error",
        "the target cannot be described as a tool",
        "It is not callable, has no inspectable signature (some builtins), is a lambda (it "
        "cannot annotate its parameters: define the tool with `def`), or has no usable name (a "
        "lambda given to `schema_for` without a name). Example: `mod:CONSTANT`.",
    ),
    "PS605": Code(
        "error",
        "annotation cannot be resolved",
        "`typing.get_type_hints` cannot evaluate an annotation: a forward reference or a string "
        "annotation names something that is not defined or imported in the module. The message "
        "names the function, the parameter and the unresolved name. Example: `def f(x: 'Foo')` "
        "without a class `Foo`.",
    ),
    "PS606": Code(
        "error",
        "annotation has no JSON Schema form",
        "The annotation is not data a model can write as JSON: an arbitrary class (not a "
        "dataclass, TypedDict, NamedTuple, Enum or pydantic model), a `Callable`, an iterator, a "
        "file handle (`IO`), `type[X]`, an unbound `TypeVar`. Example: `def f(cb: Callable[[], "
        "None])`. Use a dataclass, TypedDict, pydantic model or a JSON type.",
    ),
    "PS607": Code(
        "error",
        "dict key type is not str",
        "JSON object keys are strings, so `dict[int, str]` cannot be sent by a model. Use "
        "`dict[str, V]` (or a str Enum / Literal of strings as the key type).",
    ),
    "PS608": Code(
        "error",
        "default value cannot be written as JSON",
        "The default of a parameter is not JSON (`object()`, a function, an instance of an "
        "arbitrary class, `float('nan')`). Use a JSON value or None; `--lenient-defaults` drops "
        "such defaults with a warning instead.",
    ),
    "PS609": Code(
        "error",
        "Literal or Enum value is not a JSON scalar",
        "`Literal[...]` and Enum values must be strings, numbers, booleans or None to be listed "
        "in `enum`. Example: `Literal[b'x']` or an Enum whose values are tuples.",
    ),
    "PS610": Code(
        "warning",
        "parameter accepts any JSON value",
        "The parameter has no annotation, or is annotated `Any`: its schema is `{}` and the "
        "model gets no guidance. `--strict-types` makes this an error. Example: `def f(x)`.",
    ),
    "PS611": Code(
        "warning",
        "docstring documents a parameter that does not exist",
        "The docstring's parameter section names something the signature does not have "
        "(renamed or removed parameter). Example: `Args: citty: ...` for `def f(city)`.",
    ),
    "PS612": Code(
        "error",
        "the callable cannot be called as a tool",
        "An instance method named as `module:Class.method` whose class needs constructor "
        "arguments (name a module-level instance `module:obj.method`, or make it a staticmethod "
        "or classmethod), or a parameter kept out of the schema (`--skip`, `INJECTED`) that has "
        "no default.",
    ),
    "PS613": Code(
        "error",
        "plistspec failed while describing the callable",
        "An unexpected exception inside plistspec (a bug, or an object that breaks the usual "
        "Python protocols, e.g. a class whose `__annotations__` is not a dict). Reported as one "
        "line naming the target and the exception, never as a traceback; please report it. "
        "Example: `from-py: weird:f: TypeError: ...`.",
    ),
    "PS614": Code(
        "info",
        "argument made required so that nil is not ambiguous",
        "gptel and llm hand a tool `nil` for several JSON values (gptel: null, `{}` and a missing "
        "argument; llm: also `false`, at any depth). Where leaving an optional argument out would "
        "give the Python function a different value than one of those, `from-py` makes it "
        "required in the Elisp schema, so the model always sends it and `nil` has one meaning. "
        "Example: `def f(flag: bool = True)` with `-d llm`: `flag` is required, so `false` "
        "(which llm turns into nil) is never mistaken for the default `True`.",
    ),
    "PS615": Code(
        "warning",
        "nil still stands for two values of this argument",
        "The argument accepts two JSON values the library turns into the same `nil` (e.g. "
        "`Optional[bool]` under llm: `false`, and null on Claude non-streaming; "
        "`Optional[dict]` under gptel: null and `{}`). `call` reads `nil` as the likelier one, "
        "named in the message. Example: `def f(x: Optional[bool] = None)` with `-d llm`: nil is "
        "read as false. Use a type without the second value (`bool`, `dict`) to avoid it.",
    ),
    "PS616": Code(
        "warning",
        "the generated tools will run another Python",
        "A file `from-py` writes names no interpreter (so it can be committed and used "
        "elsewhere): when a tool is called, Emacs runs `plistspec-bridge-python`, else the "
        "nearest `.venv/bin/python` above the modules' directory, else `python3` on its "
        "`exec-path`; that Python needs plistspec (and the module's own imports). This says "
        "the one found from here is not the Python that ran `from-py`. Set "
        "`plistspec-bridge-python`, or pass `--python PY` (then its path is written into the "
        "file). Example: `from-py` run from a virtual environment kept outside the project.",
    ),
    # --- PS7xx: plistspec-gptel-mode ----------------------------------------------
    "PS701": Code(
        "warning",
        "tool left out of a gptel request",
        "With `plistspec-gptel-mode` on, a tool the request's backend cannot express even after "
        "lowering (a recursive schema for Gemini's `parameters`, a `$ref` to nothing, a tool gptel "
        "cannot write as JSON) is not sent with that request, so the request does not fail; the "
        "echo area names it and why, and `M-x plistspec-gptel-report` lists it. Example: an MCP "
        'tool whose `items` is `{"$ref": "#/$defs/Attendee"}` without `$defs` (mcp.el drops them).',
    ),
    "PS702": Code(
        "info",
        "a model's tool call was not run: its arguments do not fit",
        "With `plistspec-gptel-mode` on, a tool call whose arguments do not fit the schema the "
        "model was given (a wrong type, a missing required argument, a value outside an enum) is "
        "not run; the model gets, as the tool's result, every problem with its JSON pointer, what "
        'was expected and what was sent, and can call again. Example: `{"unit": "kelvin"}` '
        'for `:enum ["celsius" "fahrenheit"]`.',
    ),
    "PS703": Code(
        "warning",
        "an async tool signalled an error",
        "gptel calls an async tool's function and waits for its callback; a function that "
        "signals never calls back, and the request waits forever. With `plistspec-gptel-mode` on, "
        "the model gets the error as the tool's result instead.",
    ),
    "PS704": Code(
        "warning",
        "plistspec-gptel-mode could not ask plistspec: requests go unchanged",
        "The `plistspec check --server` process could not start (see `plistspec-executable`), "
        "did not answer within `plistspec-gptel-wait` seconds, or ended. The mode fails open: "
        "gptel requests go as gptel makes them and calls run unchecked; said once. A process that "
        "ended is started again with the next request.",
    ),
    "PS705": Code(
        "warning",
        "gptel has changed: plistspec-gptel-mode leaves it alone",
        "The mode advises a few of gptel's internal functions (`plistspec-gptel--seams`) and "
        "checks first that each is defined and takes the arguments it passes. When one is not "
        "(another gptel version), the mode installs nothing and says so once; requests go unchanged.",
    ),
    # --- PS8xx: serve and a running Emacs --------------------------------------------
    "PS801": Code(
        "warning",
        "tool served twice",
        "Two tools of the served files (or of the Emacs registry) have the same name; MCP "
        "needs unique names, so one is served: the one a call runs, which is what gptel "
        "itself uses (a later `gptel-make-tool` of a name replaces the earlier one; in a "
        "running Emacs, `gptel-get-tool`'s choice: the newest category holding the name). "
        'Example: two files both define `(gptel-make-tool :name "search" ...)`.',
    ),
    "PS802": Code(
        "info",
        "tool name mapped for MCP clients",
        "MCP clients such as Claude Code and Cursor accept only tool names matching "
        "`[A-Za-z0-9_-]{1,64}` (they hand them on to the model API); the tool is listed under "
        "a name mapped as `--lower` maps names (other characters become `_`; a name too long "
        "or already taken gets a hash of the original, so it does not change when other tools "
        "come and go) and calls are routed back to its Emacs name. Example: `files.read` is "
        "served as `files_read`. `--no-map-names` serves names as they are.",
    ),
    "PS803": Code(
        "error",
        "file failed to load in Emacs",
        "`plistspec serve FILE.el` loads each file into its own Emacs so that the tools' "
        "functions can run; loading signalled an error (a missing library, a syntax error, "
        "an error at top level). The tools of that file are still listed, and calling them "
        "returns the load error. Example: the file does `(require 'my-helpers)` but the "
        "folder holding my-helpers.el was not given with `-L`.",
    ),
    "PS804": Code(
        "error",
        "Emacs cannot be reached",
        "The Emacs server socket does not exist, refuses connections or does not answer in "
        "time. Start the server in that Emacs with `M-x server-start` (or `(server-start)` in "
        "the init file) and name it with `--emacs NAME` when `server-name` is not `server`. "
        "Example: `plistspec to-json --from-emacs` while no Emacs runs a server.",
    ),
    "PS805": Code(
        "warning",
        "tool description is not a string",
        "MCP's `Tool.description` is a string; gptel sends a tool without `:description` as "
        '`"description": {}` (and a number as a number). `plistspec serve` lists such a tool '
        'without a description. Example: `(gptel-make-tool :name "x" :function #\'f)`; add '
        '`:description "What it does"`.',
    ),
    "PS806": Code(
        "warning",
        "lowering did not keep one tool for one",
        "`plistspec serve -t TARGET` routes each call back to the Emacs tool by its "
        "position; a lowering stage that adds or drops tools makes that impossible, so the "
        "tools are served as they are. Example: a lowering that splits one tool in two.",
    ),
    "PS807": Code(
        "warning",
        "tool cannot be sent as JSON",
        "A string of the tool (its name, description or an argument's) holds a raw byte "
        "(a unibyte string with bytes above 127 that are not UTF-8, or `\\377` in a "
        "multibyte one): `json-serialize` refuses it, so gptel cannot send this tool "
        "either. It is skipped; the other tools are read and served. Example: "
        '`:description (string-to-unibyte "caf\\351")`; write `"café"`.',
    ),
    "PS808": Code(
        "warning",
        "tool source missing in that Emacs",
        "`serve --emacs`, `--from-emacs`: gptel is not loaded in the Emacs reached (no "
        "`gptel--known-tools`), or the `--llm-variable` named is not bound there, so no "
        "tool comes from it. Load gptel in that Emacs (`(require 'gptel)`) or name the "
        "variable that holds the llm tools; `serve` picks them up when they appear. "
        "Example: `plistspec serve --emacs` before gptel is loaded.",
    ),
    "PS809": Code(
        "warning",
        "inputSchema cannot be used for validation",
        "`plistspec serve` validates a call's arguments with `jsonschema` against the "
        "tool's `inputSchema`; this schema is not one it can use (an unknown `type` such "
        'as `":string"`, an invalid `pattern`...). The tool is listed as gptel sends '
        "it and its calls run unvalidated, as gptel runs them. Example: `:type :string` "
        "(write `:type string`; `plistspec check` says PS314).",
    ),
    "PS810": Code(
        "warning",
        "closure written as a stub",
        "`from-json --from-emacs` writes each tool registered in Emacs as Elisp; a tool "
        "whose `:function` is a closure (a `lambda` evaluated at run time) has no text "
        "that can be written back, so its `:function` is the stub that signals "
        "`user-error`, never `nil`. Example: `:function (lambda (x) ...)` in the init "
        "file; define it with `defun` and write `:function #'my-tool` to keep the name.",
    ),
    "PS811": Code(
        "error",
        "HTTP off loopback needs a token",
        "`serve --http --host H` with H not a loopback address (0.0.0.0, a LAN address, a "
        "host name) lets other machines run your Emacs tools; plistspec refuses it "
        "without `--auth-token-file FILE`, whose content clients must send as "
        "`Authorization: Bearer TOKEN`. Host and Origin headers are checked on every "
        "address. Example: `plistspec serve --http --host 0.0.0.0 tools.el`.",
    ),
    "PS812": Code(
        "error",
        "unusable token file",
        "The `--auth-token-file` cannot be read, is empty, or holds more than one line "
        "of printable ASCII without spaces (at most 4096 bytes); a file other users can "
        "read is a warning. Example: an empty file; write a long random line: "
        "`python3 -c 'import secrets; print(secrets.token_urlsafe(32))' > token`.",
    ),
    # --- PS9xx: command line -------------------------------------------------------
    "PS901": Code("error", "cannot read input file", "The file does not exist or is not readable."),
    "PS902": Code("error", "cannot write output", "The output file could not be written."),
    "PS903": Code(
        "error",
        "internal error",
        "An unexpected exception reached the command line (a bug in plistspec, or memory "
        "exhausted). It is reported as one line naming the exception, never as a traceback, "
        "and the command exits 1. Set `PLISTSPEC_TRACEBACK=1` to see the traceback for a bug "
        "report. Example: `plistspec: error: internal error (TypeError: ...); please report it`.",
    ),
    "PS904": Code(
        "error",
        "file changed while plistspec worked on it",
        "`fmt -i` and `check --fix` rewrite a file only when, just before the new text is "
        "renamed over it, it is still the file they read: same directory, device and inode, "
        "size, modification time and content (SHA-256), and not replaced by a symbolic link "
        "(a link that appeared after the read is never followed). Otherwise nothing is "
        "written, the file is named and the command exits 1: an edit saved meanwhile is "
        "never lost; run the command again. Example: an editor saves `tools.el` while "
        "`plistspec check --fix tools.el` runs.",
    ),
    # --- PS920-PS959: choosing and silencing rules, configuration (check) ----------
    "PS920": Code(
        "warning",
        "unused suppression",
        "A `; plistspec: ignore[CODE]` comment silences nothing: no finding with that code "
        "starts on its line (after code), in the form that follows it (on a line of its own) "
        "or in the file (`ignore-file`). Delete it, or the code that no longer applies. "
        'Example: `(:name "q" :type string :description "Query") ; plistspec: ignore[PS333]`.',
    ),
    "PS921": Code(
        "warning",
        "invalid suppression comment",
        "A `plistspec:` comment that is not `ignore[CODE,...]` or `ignore-file[CODE,...]`, "
        "names a code that does not exist, names none, or names one that cannot be silenced "
        "(PS001 syntax errors, PS332 internal errors, PS90x). Example: "
        "`; plistspec: ignore[PS3333]` (write `ignore[PS333]`).",
    ),
    "PS930": Code(
        "error",
        "invalid configuration",
        "A `.plistspec.toml` (or the `[tool.plistspec]` table of a `pyproject.toml`) that is "
        "not valid TOML, has an unknown key, or a value of the wrong kind; the message names "
        "the file, line and key, and `check` stops with exit status 2. Example: "
        '`selct = ["PS3"]` (write `select = ["PS3"]`).',
    ),
}


def explain(code: str) -> str:
    """The documentation of one code, as `plistspec explain CODE` prints it."""
    c = CODES.get(code)
    if c is None:
        raise KeyError(code)
    return f"{code} ({c.severity}): {c.title}\n\n{c.explanation}\n"
