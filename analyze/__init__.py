"""analyze: from a mail's bytes to messages, series and performance claims.

The claim readers run compiled when a build of exactly these sources is at hand
(analyze/compiled.py); otherwise, and with PATCHPERF_PURE=1, as the Python they are.
"""

from .compiled import activate as _activate

_activate(__path__)
