"""End to end through gptel's own calling path: ``plistspec from-py`` writes tools.el, real Emacs
loads it, and each tool is called exactly as gptel 0.9.x calls tools.

The stand-in below copies what ``gptel--handle-tool-use`` (gptel-request.el) does with a tool
call, so the lambdas see the very values a running gptel hands them:

* the model's arguments are a JSON text, parsed like ``gptel--json-read-string``:
  ``json-parse-string`` with ``:object-type 'plist :null-object nil :false-object :json-false``
  (arrays stay vectors, ``{}`` becomes ``nil``). The Anthropic backend's non-streaming path
  parses with ``gptel--json-read`` whose ``:null-object`` is ``:null`` in newer gptel; both are
  run here.
* ``arg-values`` = for each of the tool's ``:args``, in order,
  ``(plist-get args (intern (concat ":" name)))``: a missing argument is ``nil``.
* sync tools: ``(apply function arg-values)`` inside ``condition-case`` (an error's data
  becomes the result); async tools (``:async t``): ``(apply function callback arg-values)``.
* the result goes through ``gptel--to-string``.

``gptel-make-tool`` is a stand-in too; like the real one (a ``cl-defstruct`` keyword
constructor) it refuses keys gptel does not know.

Every result is compared with calling the Python function directly.
"""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys

import pytest

from plistspec.pyfunc.convert import format_result
from support import ROOT

FIXTURE_DIR = ROOT / "fixtures" / "python"

STAND_IN = r"""
(require 'cl-lib)
(defvar recorded nil)
(cl-defun gptel-make-tool (&rest slots &key name function args description category async
                                 confirm include)
  (ignore function args description category async confirm include)
  (setq recorded (append recorded (list (cons name slots))))
  slots)
(provide 'gptel)

(defun gptel--to-string (s)
  (cond ((stringp s) s) ((numberp s) (number-to-string s)) (t (format "%S" s))))

(defun stand-in-call (name json-text null-object callback)
  "Call tool NAME with the model's JSON-TEXT as gptel--handle-tool-use does."
  (let* ((slots (cdr (assoc name recorded)))
         (args (json-parse-string json-text :object-type 'plist
                                  :null-object null-object :false-object :json-false))
         (arg-values (mapcar (lambda (arg)
                               (plist-get args (intern (concat ":" (plist-get arg :name)))))
                             (plist-get slots :args)))
         (fn (plist-get slots :function))
         (done (lambda (result) (funcall callback (gptel--to-string result)))))
    (if (plist-get slots :async)
        (apply fn done arg-values)
      (funcall done (condition-case errdata
                        (apply fn arg-values)
                      (error (mapconcat #'gptel--to-string errdata " ")))))))
"""


@pytest.fixture(scope="module")
def mod():
    sys.path.insert(0, str(FIXTURE_DIR))
    try:
        import pytools_more

        yield pytools_more
    finally:
        sys.path.remove(str(FIXTURE_DIR))


TARGETS = [
    "pytools_more:paint",
    "pytools_more:place_order",
    "pytools_more:route",
    "pytools_more:shapes",
    "pytools_more:schedule",
    "pytools_more:ping",
    "pytools_more:register",
    "pytools_more:mapping",
    "pytools_more:numbers",
    "pytools_more:explode",
    "pytools_more:counter.bump",
    "pytools_more:Counter.make_label",
    "pytools_more:fetch",
]


def cases(m):
    """(tool, the model's JSON arguments, what calling the Python function directly gives)."""
    return [
        ("paint", '{"color": "green"}', m.paint(m.Color.GREEN)),
        (
            "paint",
            '{"color": "red", "level": 2, "finish": "gloss"}',
            m.paint(m.Color.RED, m.Level.HIGH, "gloss"),
        ),
        (
            "place_order",
            '{"order": {"customer": {"name": "Zoë", "vip": false},'
            ' "lines": [{"sku": "a-1", "qty": 2}, {"sku": "日本"}], "express": false,'
            ' "note": null}, "dry_run": false}',
            m.place_order(
                m.Order(m.Customer("Zoë", False), [m.Line("a-1", 2), m.Line("日本")], False),
                False,
            ),
        ),
        (
            "place_order",
            '{"order": {"customer": {"name": "Bo"}, "lines": []}}',
            m.place_order(m.Order(m.Customer("Bo"), [])),
        ),
        (
            "route",
            '{"stops": [{"lat": 1.5, "lon": 2}, {"lat": 0, "lon": -1.25, "name": "end"}],'
            ' "opts": {"avoid_tolls": false, "mode": "bike"}}',
            m.route(
                [{"lat": 1.5, "lon": 2.0}, {"lat": 0.0, "lon": -1.25, "name": "end"}],
                {"avoid_tolls": False, "mode": "bike"},
            ),
        ),
        (
            "route",
            '{"stops": [], "opts": {}}',
            m.route([], {}),
        ),
        (
            "shapes",
            '{"pair": [3, "x"], "coords": [1, 2.5], "tags": ["b", "a"], "ids": [2, 1]}',
            m.shapes((3, "x"), (1.0, 2.5), {"a", "b"}, frozenset({1, 2})),
        ),
        (
            "schedule",
            '{"when": "2024-05-06T07:08:09+02:00", "day": "2024-05-06", "at": "10:30:00",'
            ' "length": "PT1H30M"}',
            m.schedule(
                dt.datetime(2024, 5, 6, 7, 8, 9, tzinfo=dt.timezone(dt.timedelta(hours=2))),
                dt.date(2024, 5, 6),
                dt.time(10, 30),
                dt.timedelta(hours=1, minutes=30),
            ),
        ),
        ("ping", "{}", m.ping()),
        (
            "register",
            '{"user": {"name": "ann", "age": null, "admin": false}, "groups": []}',
            m.register(m.User(name="ann", age=None, admin=False), []),
        ),
        (
            "mapping",
            '{"scores": {"a": 1, "b c": 2}, "label": "L", "extra": {"k": "v"}}',
            m.mapping({"a": 1, "b c": 2}, "L", {"k": "v"}),
        ),
        ("mapping", '{"scores": {}, "label": null}', m.mapping({}, None)),
        (
            "numbers",
            '{"ratio": 2, "count": 3, "on": false}',
            format_result(m.numbers(2.0, 3, False)),
        ),
        ("explode", '{"reason": "ça"}', "Error: explode() raised RuntimeError: exploded: ça"),
        (
            "numbers",
            '{"ratio": "high", "count": 3, "on": true}',
            "Error: invalid arguments for numbers(): 'ratio': 'high' is not of type 'number'",
        ),
        ("bump", '{"by": 5}', "15"),
        ("make_label", '{"prefix": "p"}', m.Counter.make_label("p")),
        ("fetch", '{"url": "http://x/ü", "retries": 2}', "http://x/ü#2"),
    ]


def _generate(tmp_path, *extra):
    out = tmp_path / "tools.el"
    proc = subprocess.run(
        [sys.executable, "-m", "plistspec", "from-py", *TARGETS, "-o", str(out), *extra],
        cwd=FIXTURE_DIR,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return out


def _program(path, runs):
    """``runs``: (null-object, tool, JSON text) for each call, in order."""
    prog = [STAND_IN, f"(load {json.dumps(str(path))} nil t)"]
    prog.append(f"(setq results (make-vector {len(runs)} nil))")
    for i, (null, name, text) in enumerate(runs):
        prog.append(
            f"(stand-in-call {json.dumps(name)} {json.dumps(text, ensure_ascii=False)} {null}"
            f" (lambda (r) (aset results {i} r)))"
        )
    prog.append(
        "(let ((deadline (+ (float-time) 90)))"
        " (while (and (seq-some #'null results) (< (float-time) deadline))"
        " (accept-process-output nil 0.05)))"
    )
    prog.append(
        "(princ (json-serialize (vector (vconcat (seq-map (lambda (r) (or r :null)) results))"
        " (vconcat (mapcar (lambda (r) (vector (car r) (if (plist-get (cdr r) :async) t :json-false)"
        " (length (plist-get (cdr r) :args)))) recorded)))"
        " :false-object :json-false))"
    )
    return "\n".join(prog)


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
def test_gptel_calls_every_kind_of_argument(emacs, tmp_path, mod, is_async):
    path = _generate(tmp_path, *(["--async"] if is_async else []))
    calls = cases(mod)
    runs = [("nil", name, text, want) for name, text, want in calls]
    if not is_async:  # JSON null as :null too (gptel--json-read), where a null is sent
        runs += [(":null", name, text, want) for name, text, want in calls if "null" in text]
    results, shapes = json.loads(emacs.run(_program(path, [r[:3] for r in runs])))
    for run, got in zip(runs, results, strict=True):
        assert got == run[3], run[:3]
    by_name = {name: (a, nargs) for name, a, nargs in shapes}
    assert by_name["ping"] == (is_async, 0)
    assert by_name["bump"][1] == 1 and by_name["paint"][1] == 3
    assert all(a is is_async for a, _ in by_name.values())
