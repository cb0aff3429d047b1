"""Child process of test_fastcore: checks every input line with whichever `monitor` is first on
sys.path and writes one JSON result per line (argv: inputs.jsonl outputs.jsonl)."""

from __future__ import annotations

import json
import sys


def main(src: str, dst: str) -> None:
    from agents.checking.fastcore import core_kind
    from monitor.check import check_bytes
    from monitor.config.options import CheckOptions
    from monitor.output.verdict_io import rejection_to_dict, verdict_to_dict
    from monitor.records.models import Rejection

    options = CheckOptions()
    with open(src, encoding="utf-8") as inp, open(dst, "w", encoding="utf-8") as out:
        for line in inp:
            raw = bytes.fromhex(json.loads(line))
            result = check_bytes(raw, options)
            record = (
                rejection_to_dict(result)
                if isinstance(result, Rejection)
                else verdict_to_dict(result, cited_text_max=None)
            )
            out.write(json.dumps(record, sort_keys=True) + "\n")
    print(core_kind())


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
