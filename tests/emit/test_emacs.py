"""Emitted files in real Emacs: byte-compiled with warnings as errors, loaded with a stub
``gptel-make-tool`` that records its plist, and the recorded args serialized with
``json-serialize`` as gptel does; all cases in one Emacs run per dialect."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from plistspec.core.ir import make_tool
from plistspec.elisp.reader import read_all
from plistspec.emit_elisp import to_elisp
from plistspec.fromjson.detect import from_json

ROOT = Path(__file__).resolve().parents[2]
JSON = ROOT / "fixtures" / "json"

NASTY = [
    'quote " and backslash \\ and \\" both',
    "newline\nCR\r tab\t bell\x07 ! esc\x1b del\x7f nul-free",
    "non-BMP 🌦 𝄞 and NBSP\u00a0and LS\u2028 end",
    "\\x41 \\u0041 \\N{U+41} \\1 ?a ;comment (paren] #hash `back ,comma 'q",
    "",
    "%s %d format directives",
]

GPTEL_DRIVER = r"""
(setq byte-compile-error-on-warn t)
(defvar ps-tools nil)
(defun gptel-make-tool (&rest spec) (push spec ps-tools) spec)
(provide 'gptel)
(defun ps-fix (x)
  (cond ((vectorp x) (vconcat (mapcar #'ps-fix x)))
        ((and (consp x) (keywordp (car x)))
         (let (out)
           (while x
             (let ((k (pop x)) (v (pop x)))
               (push k out)
               (push (if (and (eq k :type) (symbolp v)) (symbol-name v) (ps-fix v)) out)))
           (nreverse out)))
        ((consp x) (mapcar #'ps-fix x))
        (t x)))
(defun ps-arg (a)
  (let* ((a (ps-fix (copy-tree a t)))
         (name (plist-get a :name)) (opt (plist-get a :optional)) (schema nil) (seen-n nil) (seen-o nil))
    (while a
      (let ((k (pop a)) (v (pop a)))
        (cond ((and (eq k :name) (not seen-n)) (setq seen-n t))
              ((and (eq k :optional) (not seen-o)) (setq seen-o t))
              (t (setq schema (append schema (list k v)))))))
    (list :name name :optional (if opt t :json-false) :schema schema)))
(dolist (f command-line-args-left)
  (setq ps-tools nil)
  (unless (byte-compile-file f) (error "byte-compile failed: %s" f))
  (load (concat f "c") nil t)
  (dolist (spec (reverse ps-tools))
    (let* ((args (plist-get spec :args))
           (fn (plist-get spec :function))
           (err (condition-case e (progn (apply fn (make-list (length args) nil)) "no error")
                  (user-error (cadr e)))))
      ;; Emacs 30's json-serialize returns unibyte UTF-8: decoded, it prints the same on 28
      (princ (decode-coding-string
              (json-serialize
               (list :name (plist-get spec :name) :description (plist-get spec :description)
                     :args (vconcat (mapcar #'ps-arg args)) :err err)
               :null-object :null :false-object :json-false)
              'utf-8))
      (terpri))))
"""


def _expected(tool) -> dict:
    props = tool["parameters"]["properties"]
    req = set(tool["parameters"].get("required", []))
    return {
        "name": tool["name"],
        "description": tool["description"],
        "args": [{"name": n, "optional": n not in req, "schema": s} for n, s in props.items()],
    }


def _cases() -> list[list]:
    files = []
    for path in sorted(JSON.glob("*.json")):
        tools, _ = from_json(json.loads(path.read_text(encoding="utf-8")))
        files.append([t for t in tools if "" not in t["parameters"]["properties"]])
    nasty = []
    for i, s in enumerate(NASTY):
        props = {
            "p" + str(i): {"type": "string", "description": s, "enum": [s, s[::-1]], "default": s},
            s or "x": {
                "type": "object",
                "properties": {s or "y": {"type": "number", "const": 1.5e-07}},
            },
        }
        nasty.append(
            make_tool(
                f"t{i}", s, {"type": "object", "properties": props, "required": ["p" + str(i)]}
            )
        )
    files.append(nasty)
    return files


def test_gptel_files_compile_load_and_serialize_as_meant(emacs) -> None:
    cases = _cases()
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        expected = []
        for i, tools in enumerate(cases):
            text, _ = to_elisp(tools, "gptel", file_name=f"case{i}.el")
            p = Path(tmp) / f"case{i}.el"
            p.write_text(text, encoding="utf-8")
            paths.append(str(p))
            expected.extend(_expected(t) for t in tools)
        script = GPTEL_DRIVER.replace(
            "command-line-args-left", "(list " + " ".join(json.dumps(p) for p in paths) + ")"
        )
        out = emacs.run(script)
    lines = out.split("\n")[:-1]
    assert len(lines) == len(expected) > 10
    for line, want in zip(lines, expected, strict=True):
        got = json.loads(line)
        assert got.pop("err").startswith(f"Tool {want['name']} is not implemented yet")
        assert json.dumps(got, ensure_ascii=False) == json.dumps(want, ensure_ascii=False)


LLM_DRIVER = r"""
(setq byte-compile-error-on-warn t)
(defvar ps-tools nil)
(defun llm-make-tool (&rest spec) (push spec ps-tools) spec)
(provide 'llm)
(dolist (f command-line-args-left)
  (setq ps-tools nil)
  (unless (byte-compile-file f) (error "byte-compile failed: %s" f))
  (load (concat f "c") nil t)
  (dolist (spec (reverse ps-tools))
    (let ((print-escape-newlines t) (print-escape-control-characters t))
      (prin1 (list (plist-get spec :name) (plist-get spec :description) (plist-get spec :args))))
    (princ "\0")))
"""


def test_llm_files_compile_load_and_read_back_datum_by_datum(emacs) -> None:
    cases = _cases()
    with tempfile.TemporaryDirectory() as tmp:
        paths, meant = [], []
        for i, tools in enumerate(cases):
            text, _ = to_elisp(tools, "llm", file_name=f"case{i}.el")
            p = Path(tmp) / f"case{i}.el"
            p.write_text(text, encoding="utf-8")
            paths.append(str(p))
            (defvar,) = [f for f in read_all(text) if f.items[0].name == "defvar"]
            assert (
                defvar.items[1].name == f"case{i}-tools" and defvar.items[2].items[0].name == "list"
            )
            for form in defvar.items[2].items[1:]:
                if form.items and form.items[0].name == "llm-make-tool":
                    items = form.items[1:]
                    slots = {items[k].name: items[k + 1] for k in range(0, len(items), 2)}
                    args = slots.get(":args")
                    meant.append(
                        (slots[":name"], slots.get(":description"), args.items[1] if args else None)
                    )
        script = LLM_DRIVER.replace(
            "command-line-args-left", "(list " + " ".join(json.dumps(p) for p in paths) + ")"
        )
        out = emacs.run(script)
    got = [read_all(rec)[0] for rec in out.split("\0")[:-1]]
    assert len(got) == len(meant) > 10
    for g, (name, desc, args) in zip(got, meant, strict=True):
        assert g.items[0] == name
        if desc is not None:
            assert g.items[1] == desc
        if args is not None:
            assert g.items[2] == args
