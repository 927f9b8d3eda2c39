"""The words and spaCy Matcher patterns prose claims are read with (analyze/claims/prose/read.py).

Data, not logic: which words say "before" and "after", which words of change say a value went
up or down, which nouns make a figure a condition ("8 RX queues") or a setting of the test
("a 25G link"), and the token patterns built from them. Figures are single tokens labelled
VAL / PCT / RATIO (or COND / SETUP) by shape.py before these patterns run.
"""

from __future__ import annotations

import re
from typing import Any

_FIGURES = ["VAL", "PCT", "RATIO"]
_V: dict[str, Any] = {"ENT_TYPE": {"IN": ["VAL", "PCT"]}}  # a measured figure
_STATED: dict[str, Any] = {"ENT_TYPE": {"IN": ["PCT", "RATIO"]}}  # a change
# "more than 10 Mpps", "about 5 Mpps", "~5": the lexer reads the bound; these words may sit
# outside the figure's span
_BOUND_WORDS = ["more", "less", "than", "over", "under", "about", "around", "roughly", "approx",
                "approx.", "approximately", "almost", "nearly", "~", "at", "least", "most",
                "just", "only", "well", "even", "some", "close", "to", "above", "below", ">",
                "<", "a", "an", "the"]
_APPROX = ("about", "around", "roughly", "approximately", "approx", "approx.", "nearly", "almost",
           "~", "some", "just", "only")
_FILL: dict[str, Any] = {"LOWER": {"IN": _BOUND_WORDS}, "OP": "{0,3}"}
# Between a bare word of change and its figure, `at` and `to` give the level reached, not
# the change: "grows at 75% load factor", "increased to 90%" (but "gains close to 10%")
_FILL_BARE: dict[str, Any] = {"LOWER": {"IN": [w for w in _BOUND_WORDS if w not in ("at", "to")]},
                              "OP": "{0,3}"}
# After "(was" no "to": "from 5.6 Mpps before to 6.9 Mpps after" is not "X (was Y)"
_FILL_NOT_TO: dict[str, Any] = {"LOWER": {"IN": [w for w in _BOUND_WORDS if w != "to"]},
                                "OP": "{0,3}"}


# Tokens that are not figures, so a pair never skips over another figure. Written as `*` and
# bounded after matching (`MAX_SPAN`): spaCy expands `{0,n}` into n optional tokens whose
# states fork, 4x slower on a sentence like seed 000's.
_GAP: dict[str, Any] = {"ENT_TYPE": {"NOT_IN": _FIGURES}, "IS_SENT_START": False, "OP": "*"}


_OPEN: dict[str, Any] = {"ORTH": "(", "OP": "?"}
_CLOSE: dict[str, Any] = {"ORTH": ")", "OP": "?"}


def _words(*words: str) -> dict[str, Any]:
    """A token that is one of `words` (lower case)."""
    return {"LOWER": {"IN": list(words)}}


_DETS = ("the", "this", "that", "these", "my", "your", "his", "her", "our", "their", "eric's",
         "a", "all")
_PATCH_NOUNS = ("patch", "patches", "patched", "patchset", "patch-set", "series", "change",
                "changes", "fix", "fixes", "commit", "commits", "it", "them", "modification",
                "modifications", "optimization", "optimisation", "optimizations", "rework",
                "applied", "patching", "v2", "v3", "set")
_BEFORE = ("before", "previously", "originally", "unpatched", "vanilla", "pre-patch", "baseline",
           "base", "prior")
_AFTER = ("after", "now", "patched", "post-patch")
_VS = (["vs"], ["vs."], ["versus"], ["v.s."], ["against"], ["compared", "to"],
       ["compared", "with"], ["instead", "of"], ["rather", "than"], ["relative", "to"])
_WITHOUT: list[dict[str, Any]] = [_words("without", "w/o"), {"LOWER": {"IN": list(_DETS)}, "OP": "?"},
            _words(*_PATCH_NOUNS)]
_WITH: list[dict[str, Any]] = [_words("with", "w/"), {"LOWER": {"IN": list(_DETS)}, "OP": "?"},
         _words(*_PATCH_NOUNS)]
_AFTER_PATCH: list[dict[str, Any]] = [_words("after"), {"LOWER": {"IN": list(_DETS)}, "OP": "?"},
                                      _words(*_PATCH_NOUNS)]
# Tense tells the sides when the patch is named once: "writes were at 97-110MB/sec and are at
# 180-195MB/sec with this fix".
_PAST = ("was", "were")
_PRESENT = ("is", "are")

# Words of change, by what they say happened to the measured value, and where they sit:
# BY before "by N%" ("cuts latency by 30%"), BARE right before the figure ("gains 10%"),
# OF before "of N%" ("an improvement of 12%"), AFTER right after it ("a 3% regression").
_CHANGE_WORDS: dict[str, dict[str, tuple[str, ...]]] = {
    "UP": {
        "BY": ("increase", "increases", "increased", "increasing", "raise", "raises", "raised",
               "boost", "boosts", "boosted", "grow", "grows", "grew", "rise", "rises", "rose",
               "jump", "jumps", "jumped", "higher", "more", "bigger", "larger", "up"),
        "BARE": ("increases", "increased", "boosts", "boosted", "grows", "grew", "rises", "rose",
                 "jumps", "jumped"),
        "OF": ("increase", "boost", "jump", "rise"),
        "AFTER": ("increase", "boost", "jump", "rise", "more", "higher", "bigger", "larger",
                  "up"),
    },
    "DOWN": {
        "BY": ("reduce", "reduces", "reduced", "reducing", "cut", "cuts", "lower", "lowers",
               "lowered", "decrease", "decreases", "decreased", "decreasing", "drop", "drops",
               "dropped", "shrink", "shrinks", "shrank", "decline", "declines", "declined",
               "fall", "falls", "fell", "less", "smaller", "fewer", "down"),
        "BARE": ("reduces", "reduced", "cuts", "lowers", "lowered", "decreases", "decreased",
                 "drops", "dropped", "shrinks", "shrank", "declines", "declined", "falls",
                 "fell", "saves", "saved"),
        "OF": ("reduction", "decrease", "drop", "decline", "fall", "saving", "savings"),
        "AFTER": ("reduction", "decrease", "drop", "decline", "less", "lower", "fewer",
                  "smaller", "saving", "savings", "down"),
    },
    "GOOD": {
        "BY": ("improve", "improves", "improved", "improving", "speeds", "sped", "accelerate",
               "accelerates", "accelerated", "faster", "better", "quicker"),
        "BARE": ("improves", "improved", "gain", "gains", "gained"),
        "OF": ("improvement", "gain", "speedup", "speed-up", "win"),
        "AFTER": ("improvement", "gain", "speedup", "speed-up", "win", "faster", "quicker",
                  "better"),
    },
    "BAD": {
        "BY": ("regress", "regresses", "regressed", "degrade", "degrades", "degraded", "slows",
               "slowed", "slower", "worse"),
        "BARE": ("regresses", "regressed", "degrades", "degraded", "lose", "loses"),
        "OF": ("regression", "degradation", "slowdown", "slow-down", "penalty"),
        "AFTER": ("regression", "degradation", "slowdown", "slow-down", "slower", "worse",
                  "penalty", "hit"),
    },
}


def add_rules(matcher: Any) -> None:
    """The token patterns. A label says which side comes first (BP: baseline first, PB:
    patched first) or which way a stated change goes."""
    v, fill = _V, _FILL
    bp: list[list[dict[str, Any]]] = [
        # a change's figures in brackets after it: "2555% improvement in IO BW (100 MiB/s to
        # 2655 MiB/s)"
        [{"ORTH": "("}, fill, v, _words("to", "->"), fill, v, {"ORTH": ")"}],
        # "went from 5.1 Mpps to 7.9 Mpps", "drops from 40us down to 25us"
        [_words("from"), fill, v, _words("up", "down"), _words("to", "->"), fill, v],
        [_words("from"), fill, v, _words("to", "->"), fill, v],
        # "takes forwarding from 5.6 Mpps before to 6.9 Mpps after"
        [_words("from"), fill, v, _words(*_BEFORE), _words("to", "->"), fill, v],
        # "were at 97-110MB/sec and are at 180-195MB/sec with this fix", "was 5 Mpps and is
        # now 9 Mpps"
        [_words(*_PAST), fill, v, _GAP, _words(*_PRESENT), fill, v, *_WITH],
        [_words(*_PAST), fill, v, _GAP, _words(*_PRESENT), _words("now"), fill, v],
        # "5 Mpps before the patch, and more than 10 Mpps after patch"
        [v, _words(*_BEFORE), _GAP, v, _words(*_AFTER)],
        [v, _words(*_BEFORE), _GAP, v, *_WITH],
        [v, *_WITHOUT, _GAP, v, *_WITH],
        [v, *_WITHOUT, _GAP, v, _words(*_AFTER)],
        # "5 Mpps before the patch, after it more than 10 Mpps"
        [v, _words(*_BEFORE), _GAP, _words(*_AFTER), _GAP, v],
        [v, *_WITHOUT, _GAP, *_WITH, _GAP, v],
        # "Before the patch I got 5 Mpps; after it, 10 Mpps"
        [_words("before"), _GAP, v, _GAP, _words("after"), _GAP, v],
        [*_WITHOUT, _GAP, v, _GAP, *_WITH, _GAP, v],
        [_words("without", "w/o"), _OPEN, v, _CLOSE, _words("and", "vs", "vs."), *_WITH, _OPEN, v],
    ]
    pb: list[list[dict[str, Any]]] = [
        # "10 Mpps after the patch, 5 Mpps before"
        [v, _words(*_AFTER), _GAP, v, _words(*_BEFORE)],
        [v, *_WITH, _GAP, v, *_WITHOUT],
        # "with the patch I get 9.6 Mpps and without it 8.9 Mpps"; "After it 10, before 5"
        [*_WITH, _GAP, v, _GAP, *_WITHOUT, _GAP, v],
        # "not much difference with (5.9Mpps) and without this patch (6.1Mpps)": the patch
        # named once, after the second side
        [_words("with", "w/"), _OPEN, v, _CLOSE, _words("and", "vs", "vs."), *_WITHOUT, _OPEN, v],
        [_words("after"), _GAP, v, _GAP, _words("before"), _GAP, v],
        # "now takes 1.2 s instead of 3 s"; "9.41 Gbits/sec (was 8.72 Gbits/sec)"
        [v, _GAP, _words("instead", "rather"), _words("of", "than"), fill, v],
        [v, {"IS_PUNCT": True, "OP": "?"}, _words("was", "previously", "originally", "before"),
         {"ORTH": ":", "OP": "?"}, _FILL_NOT_TO, v],
        # "12,345 trans/s, 11,000 trans/s without the patch"
        [v, {"IS_PUNCT": True, "OP": "{1,2}"}, v, *_WITHOUT],
        # "p99 latency is now 45 us; it was 80 us before"
        [v, _GAP, _words(*_PAST), fill, v, _words(*_BEFORE)],
        [v, _GAP, _words(*_PAST), fill, v, *_WITHOUT],
        # "10 Mpps, up from 5 Mpps"
        [v, {"IS_PUNCT": True, "OP": "{0,2}"}, _words("up", "down"), _words("from"), fill, v],
        # "with the patch: 10 Mpps vs 5 Mpps"; "now 10 Mpps compared to 5 Mpps before"
        *([*_WITH, _GAP, v, _GAP, *[_words(w) for w in vs], fill, v] for vs in _VS),
        *([_words("after", "now"), _GAP, v, _GAP, *[_words(w) for w in vs], fill, v]
          for vs in _VS),
        *([v, _GAP, *[_words(w) for w in vs], fill, v, {"ORTH": "(", "OP": "?"},
           _words(*_BEFORE, "without", "w/o")] for vs in _VS),
    ]
    matcher.add("BP", bp)
    matcher.add("PB", pb)
    for label, words in _CHANGE_WORDS.items():
        matcher.add(label, [
            [_words(*words["BY"]), _GAP, _words("by"), fill, _STATED],
            [_words(*words["BARE"]), _FILL_BARE, _STATED],
            [_words(*words["BARE"]), {"LOWER": {"IN": ["by"]}, "OP": "?"}, _words("close"),
             _words("to"), _STATED],
            [_words(*words["OF"]), _words("of", "is", "was", ":", "="), fill, _STATED],
            [_STATED, {"ORTH": "-", "OP": "?"}, _words(*words["AFTER"])],
            # "a 7% throughput improvement", "a 5% TCP_RR regression"
            [_STATED, {"ENT_TYPE": "", "IS_PUNCT": False, "OP": "?"},
             {"ENT_TYPE": "", "IS_PUNCT": False}, _words(*words["OF"])],
        ])
    # "QPS is up ~9%", "tail latency is down 4%": only an approximation between the word
    # and the figure ("shows up at 2.8% in perf top" is not a change)
    for label, word in (("UP", "up"), ("DOWN", "down")):
        matcher.add(label, [[_words(word), {"LOWER": {"IN": list(_APPROX)}, "OP": "?"}, _STATED]])
    # "twice as fast", "doubles the throughput", "halves the latency"
    matcher.add("WORD_UP", [[_words("twice", "thrice"), _words("as"),
                             _words("fast", "quick", "high", "much", "many", "good")],
                            [_words("doubles", "doubled", "doubling", "triples", "tripled")]])
    matcher.add("WORD_DOWN", [[_words("halves", "halved", "halving")],
                              [_words("twice", "thrice"), _words("as"),
                               _words("slow", "low", "little", "few")]])
    # One figure the sentence gives as the patch's result, without the figure before it:
    # "With this change the box now forwards more than 1.2 Mpps" (read.py also wants "now"
    # or a verb of result, and a unit).
    matcher.add("LONE", [[*_WITH, _GAP, v], [*_AFTER_PATCH, _GAP, v], [v, _GAP, *_WITH]])


# --- what a figure is: measured, a condition, or setup ------------------------------------

# Nouns after a figure that make it what varies between runs ("with 8 RX queues", "on 4
# threads", "200 netperf instances"), used when the shell room (analyze/claims/shell/) does not name them.
CONDITION_NOUNS = {
    "queue": "queues", "queues": "queues", "rings": "queues", "thread": "threads",
    "threads": "threads", "instance": "instances", "instances": "instances", "flow": "flows",
    "flows": "flows", "stream": "flows", "streams": "flows", "connections": "connections",
    "cpu": "cpus", "cpus": "cpus", "core": "cpus", "cores": "cpus", "clients": "clients",
    "sessions": "sessions", "sockets": "sockets", "processes": "processes", "jobs": "jobs",
}
# A count glued to one of these describes the machine, not a load that varies: "On my
# 2-socket test box", "a 64-core server", "a 4-node cluster".
HARDWARE_COUNTS = frozenset({"socket", "sockets", "core", "cores", "cpu", "cpus", "node", "nodes",
                             "die", "dies", "way", "numa"})
# ... and so does any glued count followed by a word for the machine: "the 8-queue NIC".
MACHINE_NOUNS = frozenset({"box", "boxes", "machine", "machines", "server", "servers", "host",
                           "hosts", "system", "systems", "router", "routers", "node", "nodes",
                           "platform", "testbed", "test", "rig", "laptop", "desktop",
                           "workstation", "vm", "vms", "guest", "guests", "nic", "nics", "card",
                           "cards", "adapter", "device", "switch", "cluster", "setup", "cpu",
                           "cpus", "xeon", "epyc", "processor", "soc", "board", "dut"})
PACKET_NOUNS = frozenset({"packet", "packets", "pkt", "pkts", "frame", "frames", "datagrams",
                           "messages", "msgs", "payload", "payloads"})
BYTE_WORDS = frozenset({"byte", "bytes", "b", "-"})
MODIFIERS = frozenset({"rx", "tx", "parallel", "concurrent", "netperf", "iperf", "iperf3",
                        "udp", "tcp", "worker", "hardware", "hw", "sw", "combined", "active",
                        "physical", "logical", "napi", "receive", "transmit", "uperf", "neper",
                        "pktgen", "xdp", "ipv4", "ipv6", "small", "big", "large", "sized",
                        "-", "byte", "bytes", "b", "more"})
# Words near a figure that make it a setting of the test, not its result: "sending at 10 Mpps
# offered load", "a 25G link", "ring size 4096", "MTU 9000".
SETUP_BEFORE = frozenset({"offered", "sending", "send", "sends", "sent", "blasting", "blast",
                           "generating", "generate", "inject", "injecting", "link", "mtu",
                           "every",  # a period: "the timer fires every 10 ms"
                           "ring", "burst", "budget", "timeout", "limit", "limited", "capped",
                           "configured", "set", "setting", "rate-limited", "shaped"})
SETUP_AFTER = frozenset({"offered", "load", "link", "links", "nic", "nics", "port", "ports",
                          "ethernet", "card", "adapter", "interface", "mtu", "ring", "wire",
                          "line-rate", "burst"})
# The thing changed is a knob, not a result: "increase the ring size by 2x".
SETUP_OBJECTS = frozenset({"ring", "mtu", "budget", "timeout", "limit", "default", "weight",
                            "quota", "interval", "coalescing", "rx-usecs", "sysctl", "backlog",
                            "burst", "size", "sizes", "buffer", "buffers",
                            "window", "version", "kernel", "link"})
# Before "from X to Y": a sweep of conditions, not a change ("packet sizes from 64 to 1500").
RANGE_WORDS = frozenset({"ranging", "range", "ranges", "varying", "varies", "vary", "varied",
                          "sweep", "sweeping", "swept", "scaling", "scale", "scales", "scaled",
                          "between", "values", "counts", "iterate", "iterating", "loop",
                          "increments", "steps", "sizes", "size"})
# A modal before "from X to Y" makes it what may happen, not what was measured, when the
# figures name no unit: "the context may grow from 1 to 50 allocated structures".
MODALS = frozenset({"may", "can", "could", "might"})
# Speculation is not a measurement: "I'd expect it to go from 5 to 10 Mpps".
HEDGES = frozenset({"expect", "expected", "expecting", "hope", "hopefully", "would", "might",
                     "theoretically", "ideally", "hypothetically", "wonder", "guess", "assuming",
                     "ideal"})  # (`gains 100% in ideal cases`)
METRIC_WORD = re.compile(
    r"throughput|bandwidth|goodput|latenc|\bpps\b|\brate\b|performance|transactions|\btps\b"
    r"|requests|cpu|cycles|usage|utili[sz]ation|memory|footprint|overhead|speed",
    re.IGNORECASE)
NOT_A_CHANGE_AFTER = frozenset({"rate", "ratio", "probability", "chance", "rule", "threshold",
                                 "limit"})
# Words that make a change one of speed, whatever the sentence measures: "is now 2x faster"
# is throughput doubled (+100 %), not a latency halved, even beside "when the remote CPU was
# the bottleneck" (post 33 of the evaluation set).
SPEED_WORDS = frozenset({"faster", "quicker", "speedup", "speed-up", "speeds", "sped",
                         "accelerate", "accelerates", "accelerated", "fast", "quick", "slower",
                         "slowdown", "slow-down", "slows", "slowed", "slow"})
# A spread, not a change: "±1%", "run-to-run variance of 2%", "stddev 0.4%".
SPREAD_BEFORE = frozenset({"±", "+-", "+/-", "variance", "variation", "deviation", "stddev",
                           "std-dev", "stdev", "noise", "spread"})
# A change the mail itself calls insignificant: "~1% worse, which is in the noise".
NOISE = re.compile(
    r"\b(?:in|within|below|under|inside)\s+(?:the\s+)?(?:run-to-run\s+)?noise\b"
    r"|\bnoise\s+(?:level|range|margin|floor)\b|\bwithin\s+(?:the\s+)?(?:margin\s+of\s+)?"
    r"(?:error|variance|stddev|std-dev)\b|\brun-to-run\s+varia", re.IGNORECASE)
# After a figure, a comparative makes it a difference, not a result: "64 MB less memory".
COMPARATIVES = frozenset({"less", "more", "fewer", "lower", "higher", "faster", "slower",
                          "better", "worse", "smaller", "bigger", "larger", "extra"})
# What makes a lone figure a result rather than a setting: "now", or a verb of result.
RESULT_WORDS = frozenset({"now", "reach", "reaches", "reached", "get", "gets", "got", "see",
                          "saw", "achieve", "achieves", "achieved", "hit", "hits", "forward",
                          "forwards", "forwarded", "handle", "handles", "handled", "sustain",
                          "sustains", "sustained", "push", "pushes", "pushed", "measure",
                          "measured", "manage", "manages", "managed", "do", "does", "did",
                          "deliver", "delivers", "delivered", "process", "processes"})



# The longest match worth believing, in tokens: a pair across a long clause, a change verb a
# few words before its figure ("cuts the per-packet CPU cost by 20%").
MAX_SPAN = {"BP": 28, "PB": 24, "STATED": 12, "LONE": 16}

WORD_VALUES = {"twice": 2.0, "thrice": 3.0, "doubles": 2.0, "doubled": 2.0, "doubling": 2.0,
                "triples": 3.0, "tripled": 3.0, "halves": 2.0, "halved": 2.0, "halving": 2.0}



def rule_words() -> set[str]:
    """Every word and punctuation string the rules compare token text with (LOWER, ORTH).
    None may hold a digit: shape.py's match cache relies on it."""
    import json

    found: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("LOWER", "ORTH"):
                    if isinstance(value, str):
                        found.add(value)
                    elif isinstance(value, dict):
                        for items in value.values():
                            found.update(items if isinstance(items, list) else [items])
                else:
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    class _Collect:
        def add(self, _label: str, patterns: list[list[dict[str, Any]]]) -> None:
            walk(json.loads(json.dumps(patterns)))

    add_rules(_Collect())
    return found
