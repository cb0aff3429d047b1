"""Detection rates of the cheap tier on the standard mix (a script, not a test).

usage: .venv/bin/python -m tests.bench.support_mix [--n 10000] [--seed 7]
Targets: >= 90% of the claims the generator marks unsupported (fabricated figures and wording,
bad citations) come out not_supported, <= 5% of the faithful ones do. Uncited claims are counted
apart. Prints the rates overall and by citation format.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict

from monitor.check import check_event
from monitor.config.options import CheckOptions
from monitor.inputs.decode import decode_event
from monitor.records.models import AnswerEvent
from tests.conftest import standard_mix


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()
    options = CheckOptions()
    # [faithful, faithful not_supported, unsupported, unsupported not_supported] per format
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for raw in standard_mix(a.n, seed=a.seed):
        event = decode_event(json.dumps(raw), options)
        assert isinstance(event, AnswerEvent)
        verdict = check_event(event, options)
        expected = raw["metadata"]["expect"]["claims"]
        if len(expected) != len(verdict.claims):
            raise SystemExit(
                f"{raw['event_id']}: {len(verdict.claims)} claims, expected {len(expected)}"
            )
        row = counts[raw["metadata"]["format"]]
        for want, got in zip(expected, verdict.claims, strict=True):
            negative = got.support.verdict == "not_supported"
            if want["supported"] is True:
                row[0] += 1
                row[1] += negative
            elif want["supported"] is False:
                row[2] += 1
                row[3] += negative
    total = [sum(c[k] for c in counts.values()) for k in range(4)]
    for name, c in [*sorted(counts.items()), ("all", total)]:
        print(
            f"{name:<10} faithful {c[0]:>6} not_supported {c[1] / max(c[0], 1):6.2%} | "
            f"unsupported {c[2]:>6} not_supported {c[3] / max(c[2], 1):6.2%}"
        )


if __name__ == "__main__":
    main()
