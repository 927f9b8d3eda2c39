"""analyze: from a mail's bytes to messages, series and performance claims. Pure: values in,
values out; no store, no network, no files.

- `analyze.mail`: one mail understood (decoding, subject, trailers, diff, threads, series);
- `analyze.claims`: the performance claims in its text (the lexer of figures and units, and
  the readers of tables, lists, prose and shell commands);
- `analyze.sim`: scenarios for those claims and the simulator that judges them;
- beside them the shared vocabulary: `model` (the domain values), `errors`, `limits`,
  `serialize` (values to the JSON contract) and `pipeline` (a batch of mail, analysed).

The claim readers and mail parsing run compiled when a build of exactly these sources is at hand
(analyze/compiled.py); otherwise, and with PATCHPERF_PURE=1, as the Python they are.
"""

from .compiled import activate as _activate

_activate()
