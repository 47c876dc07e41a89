"""The ground layer: the values every stage passes around, and JSON text in and out.

Owns: the IR (:mod:`.ir`, the one hub every input becomes and every output is made
from), diagnostics as values (:mod:`.diagnostics`, :mod:`.lines`: one printable line per
finding), every diagnostic code and its documentation (:mod:`.codes`,
:mod:`.code_examples`: loaders of ``grammars/`` data; :mod:`.grammars` finds those files), the names of formats and targets (:mod:`.formats`), JSON text read
and written at any depth (:mod:`.jsontext`, :mod:`.jsonout`, :mod:`.jsonpos`: a pointer's
place in the text, :mod:`.jsoncopy`, :mod:`.jsonutil`, :mod:`.jsontypes`: which JSON
Schema type a value has), and small mechanisms
(:mod:`.record`, :mod:`.trampoline`, :mod:`.gcpause`, :mod:`.columns`).

Layer 1 of docs/architecture.md: imports nothing of plistspec, only the standard library.
Public: each module's ``__all__``; the package itself re-exports nothing (importing it
costs nothing at start-up).
"""
