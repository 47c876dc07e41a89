"""Helpers for the reader/printer tests: Emacs's own `read` as a JSON dump.

``emacs_read(texts)`` sends every text to ONE ``emacs --batch`` process, which reads each
with ``read-from-string`` and answers a canonical JSON dump of the datum (or the error
symbol). :func:`py_dump` gives the same dump for a plistspec datum, so the two compare
with ``==``. Raw bytes in strings are dumped as ``0xDC00 + byte`` on both sides.
"""

from __future__ import annotations

import json
import os
import struct
import tempfile
from typing import Any

from plistspec.elisp.datum import Datum, Float, Integer, List, String, Symbol, Vector

DUMPER = r"""
(defun ps--codes (s)
  (let ((mb (multibyte-string-p s)))
    (vconcat (mapcar (lambda (c)
                       (cond ((and mb (>= c #x3fff80)) (+ #xdc00 (- c #x3fff00)))
                             ((and (not mb) (>= c 128)) (+ #xdc00 c))
                             (t c)))
                     s))))
(defun ps--dump (x)
  (cond ((integerp x) (vector "i" (number-to-string x)))
        ((floatp x) (vector "f" (format "%S" x)))
        ((stringp x) (vector "s" (ps--codes x)))
        ((symbolp x) (vector "y" (ps--codes (symbol-name x))))
        ((consp x)
         (let (items)
           (while (consp x) (push (ps--dump (car x)) items) (setq x (cdr x)))
           (vector "l" (vconcat (nreverse items)) (if x (ps--dump x) :null))))
        ((vectorp x) (vector "v" (vconcat (mapcar #'ps--dump x))))
        (t (vector "?" (format "%S" (type-of x))))))
(let* ((cases (with-temp-buffer
                (let ((coding-system-for-read 'utf-8))
                  (insert-file-contents CASES-FILE))
                (json-parse-buffer :array-type 'list))))
  (dolist (s (mapcar (lambda (codes) (apply #'string codes)) cases))
    (princ (json-serialize
            (condition-case e
                (let* ((r (read-from-string s))
                       (rest (substring s (cdr r))))
                  (if (string-match-p "\\`[ \t\n\r\f]*\\'" rest)
                      (vector "ok" (ps--dump (car r)))
                    (vector "trailing" (cdr r))))
              (error (vector "err" (format "%S" (car e)))))))
    (terpri)))
"""


def _float_key(text: str) -> str:
    """Emacs's printed float -> the hex of its IEEE bits (NaN payloads and signs kept)."""
    neg = text.startswith("-")
    body = text.lstrip("-")
    if body.endswith("e+NaN"):
        payload = int(body.split(".")[0])
        bits = 0x7FF8000000000000 | (payload & 0x7FFFFFFFFFFFF) | ((1 << 63) if neg else 0)
        return f"{bits:016x}"
    if body.endswith("e+INF"):
        v = float("-inf") if neg else float("inf")
    else:
        v = float(text)
    return struct.pack(">d", v).hex()


def emacs_dump_to_key(node: list) -> object:
    """Normalize Emacs's JSON dump (floats to bits) so it compares with :func:`py_dump`."""
    tag = node[0]
    if tag == "f":
        return ["f", _float_key(node[1])]
    if tag == "l":
        return [
            "l",
            [emacs_dump_to_key(x) for x in node[1]],
            None if node[2] is None else emacs_dump_to_key(node[2]),
        ]
    if tag == "v":
        return ["v", [emacs_dump_to_key(x) for x in node[1]]]
    return list(node)


def py_dump(d: Datum) -> object:
    """plistspec's datum in the same canonical form (recursive: test data is shallow)."""
    if isinstance(d, Integer):
        return ["i", str(d.value)]
    if isinstance(d, Float):
        return ["f", struct.pack(">d", d.value).hex()]
    if isinstance(d, String):
        return ["s", [ord(c) for c in d.value]]
    if isinstance(d, Symbol):
        return ["y", [ord(c) for c in d.name]]
    if isinstance(d, List):
        return ["l", [py_dump(x) for x in d.items], None if d.tail is None else py_dump(d.tail)]
    if isinstance(d, Vector):
        return ["v", [py_dump(x) for x in d.items]]
    raise TypeError(d)


def emacs_read_with(emacs: Any, texts: list[str]) -> list[tuple[str, object]]:
    """Read each text with Emacs (one process); ("ok", dump) / ("err", symbol) /
    ("trailing", position where Emacs stopped)."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False, encoding="utf-8") as f:
        # Code points, not JSON strings: Emacs's JSON parser refuses NUL characters.
        json.dump([[ord(c) for c in t] for t in texts], f)
        path = f.name
    try:
        code = f"(defvar CASES-FILE {json.dumps(path)})\n" + DUMPER
        out = emacs.run(code)
    finally:
        os.unlink(path)
    lines = out.splitlines()
    assert len(lines) == len(texts), out[-2000:]
    res: list[tuple[str, object]] = []
    for line in lines:
        node = json.loads(line)
        if node[0] == "ok":
            res.append(("ok", emacs_dump_to_key(node[1])))
        else:
            res.append((node[0], node[1]))
    return res
