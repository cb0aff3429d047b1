"""A scripted OpenAI-compatible chat server: tests, benchmarks and LLM-free demos (stdlib, real HTTP).

The model name picks the behaviour, so tests running side by side do not interfere:
`<scenario>` or `<scenario>@<seconds>` (a delay before every reply). Scenarios:

  ok           verdicts by a word-overlap rule (below), in order; any name not listed here
               does the same (`ragmon demo` calls it `scripted-judge`)
  shuffled     the same verdicts, reversed order
  low          verdicts with confidence "low" (to trigger escalation); `strong` answers "high"
  malformed    content that is not JSON;      malformed-once: only the first attempt
  badschema    JSON off the schema;            wrong-ids: ids that were not asked for
  obey         what an injected document asks for: {"supports": true}
  badbody      HTTP 200 whose body is not JSON
  429          429 with Retry-After: 1;        429-once: only the first attempt
  500          HTTP 500;                       500-once: only the first attempt
  slow         sleeps 30 s (past any test timeout); slow-once: only the first attempt
  401          HTTP 401
  format400    400 naming `response_format` unless the request uses llama-cpp-python's form
               (`json_object` with a `schema`); format500: the same as a 500, as that server
               really answers; ok replies once the form is accepted
  echo         the old prompt's example reply copied back (`"reasoning": "..."`, score 0.95),
               as SmolLM2 did; echo-rules: a sentence of the instructions as the reasoning.
               Valid JSON of the schema's shape, never a verdict

POST /api/chat answers like Ollama's native endpoint (`format` schema, `message.content`,
`prompt_eval_count`/`eval_count`), with the `ok` verdicts.

"First attempt" is per distinct model and messages: a retry sends the same ones. The verdict rule: a
claim whose words (3+ letters) all occur in its evidence is ENTAILMENT, half or more is NEUTRAL,
else CONTRADICTION. Run standalone: `python -m agents.judging.fake_server --port 8089`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_WORD = re.compile(r"[a-z0-9]{3,}")
_TAG = re.compile(r"<<(DATA-[0-9a-f]+):begin")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def _blocks(content: str, tag: str) -> dict[str, str]:
    pat = re.compile(rf"<<{tag}:begin ([^>]*)>>\n(.*?)\n<<{tag}:end \1>>", re.S)
    return {m.group(1): m.group(2) for m in pat.finditer(content)}


def verdict_for(claim: str, evidence: str) -> tuple[str, float]:
    want = _words(claim)
    share = len(want & _words(evidence)) / len(want) if want else 0.0
    if share == 1.0:
        return "ENTAILMENT", 0.95
    if share >= 0.5:
        return "NEUTRAL", 0.5
    return "CONTRADICTION", 0.05


class State:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.attempts: Counter[str] = Counter()  # by request body hash
        self.requests: list[dict[str, Any]] = []  # every request body received
        self.by_model: Counter[str] = Counter()

    def record(self, body: dict[str, Any], raw: bytes) -> int:
        # a retry resends the same model and messages (its temperature may differ)
        same = json.dumps([body.get("model"), body.get("messages")], sort_keys=True)
        key = hashlib.sha256(same.encode()).hexdigest()
        with self.lock:
            self.requests.append(body)
            self.by_model[str(body.get("model"))] += 1
            self.attempts[key] += 1
            return self.attempts[key]

    def reset(self) -> None:
        with self.lock:
            self.attempts.clear()
            self.requests.clear()
            self.by_model.clear()


#: judgement → score of a scripted verdict
_SCRIPTED_SCORE = {"ENTAILMENT": 0.95, "NEUTRAL": 0.5, "CONTRADICTION": 0.05}


def _batch_reply(
    content: str,
    tag: str,
    confidence: str,
    reverse: bool,
    scripted: dict[str, str] | None = None,
) -> dict[str, Any]:
    blocks = _blocks(content, tag)
    ids = sorted(int(k.split()[1]) for k in blocks if k.startswith("claim "))
    out = []
    for i in ids:
        claim = blocks[f"claim {i}"]
        known = (scripted or {}).get(" ".join(claim.split()))
        if known is not None:  # a scripted verdict for this claim (e.g. its human label)
            judgement, score = known, _SCRIPTED_SCORE[known]
        else:
            judgement, score = verdict_for(claim, blocks.get(f"evidence {i}", ""))
        out.append(
            {
                "claim_id": i,
                "reasoning": f"rule: {judgement.lower()}",
                "judgement": judgement,
                "supports": judgement == "ENTAILMENT",
                "score": score,
                "confidence": confidence,
            }
        )
    return {"verdicts": out[::-1] if reverse else out}


def _answer_reply(content: str, tag: str) -> dict[str, Any]:
    blocks = _blocks(content, tag)
    ref, ans = _words(blocks.get("reference", "")), _words(blocks.get("answer", ""))
    share = len(ref & ans) / len(ref) if ref else 0.0
    alignment = "CORRECT" if share >= 0.8 else "PARTIALLY_CORRECT" if share >= 0.4 else "INCORRECT"
    return {
        "reasoning": "overlap rule",
        "alignment": alignment,
        "correctness_score": round(share, 4),
        "interpretability_score": 0.5,
        "missing_information": [],
    }


def content_for(
    scenario: str,
    messages: list[dict[str, Any]],
    attempt: int,
    scripted: dict[str, str] | None = None,
) -> str:
    system = str(messages[0].get("content", "")) if messages else ""
    user = str(messages[-1].get("content", "")) if messages else ""
    m = _TAG.search(user)
    tag = m.group(1) if m else ""
    if scenario == "malformed" or (scenario == "malformed-once" and attempt == 1):
        return '{"verdicts": [{"claim_id": 1, "supports": tru'
    if scenario == "obey":
        return '{"supports": true}'
    if scenario in ("echo", "echo-rules"):
        return _echo(scenario, system, user)
    if "answer judge" in system:
        return json.dumps(_answer_reply(user, tag))
    reply = _batch_reply(
        user,
        tag,
        "high" if scenario == "strong" else "low" if scenario == "low" else "high",
        reverse=scenario == "shuffled",
        scripted=scripted,
    )
    if scenario == "badschema":
        for v in reply["verdicts"]:
            v["supports"] = "yes"
    if scenario == "wrong-ids":
        for v in reply["verdicts"]:
            v["claim_id"] += 10
    return json.dumps(reply)


def _echo(scenario: str, system: str, user: str) -> str:
    """What a weak model under a grammar sends back: the example reply of the old prompt word for
    word (`echo`, as SmolLM2 did: reasoning "...", score 0.95), or a sentence of the instructions
    as its reasoning (`echo-rules`). Valid JSON of the right shape, never a verdict."""
    reasoning = "..."
    if scenario == "echo-rules":
        line = next(x for x in system.splitlines() if x.startswith("- reasoning: "))
        reasoning = line.removeprefix("- reasoning: ")
    if "answer judge" in system:
        return json.dumps(
            {
                "reasoning": reasoning,
                "alignment": "CORRECT",
                "correctness_score": 0.9,
                "interpretability_score": 0.8,
                "missing_information": [],
            }
        )
    ids = sorted({int(i) for i in re.findall(r"begin claim (\d+)>>", user)}) or [1]
    one = {
        "reasoning": reasoning,
        "judgement": "ENTAILMENT",
        "supports": True,
        "score": 0.95,
        "confidence": "high",
    }
    return json.dumps({"verdicts": [{"claim_id": i, **one} for i in ids]})


def _format_refused(body: dict[str, Any]) -> bool:
    fmt = body.get("response_format") or {}
    return not (fmt.get("type") == "json_object" and "schema" in fmt)


# llama-cpp-python's words for a `json_schema` response format (its pydantic validation error)
_FORMAT_ERROR = json.dumps(
    {
        "error": {
            "message": "1 validation error: {'type': 'literal_error', 'loc': ('body', "
            "'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\"}",
            "type": "internal_server_error",
        }
    }
).encode()


class Handler(BaseHTTPRequestHandler):
    server: JudgeHTTPServer
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:
        pass

    def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout): nothing to deliver

    def do_GET(self) -> None:
        body = {"object": "list", "data": [{"id": "ok", "object": "model"}]}
        self._send(200, json.dumps(body).encode())

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path.endswith("/api/chat"):
            self._ollama(raw)
            return
        if not self.path.endswith("/chat/completions"):
            self._send(404, b'{"error": {"message": "not found"}}')
            return
        body = json.loads(raw)
        attempt = self.server.state.record(body, raw)
        model = str(body.get("model", "ok"))
        scenario, _, delay = model.partition("@")
        if scenario in ("format400", "format500") and _format_refused(body):
            self._send(400 if scenario == "format400" else 500, _FORMAT_ERROR)
            return
        if delay:
            time.sleep(float(delay))
        if scenario == "slow" or (scenario == "slow-once" and attempt == 1):
            time.sleep(self.server.slow_seconds)
        if scenario == "429" or (scenario == "429-once" and attempt == 1):
            self._send(429, b'{"error": {"message": "slow down"}}', {"Retry-After": "1"})
            return
        if scenario == "500" or (scenario == "500-once" and attempt == 1):
            self._send(500, b'{"error": {"message": "boom"}}')
            return
        if scenario == "401":
            self._send(401, b'{"error": {"message": "bad key"}}')
            return
        if scenario == "badbody":
            self._send(200, b"<html>gateway says hi</html>")
            return
        content = content_for(scenario, body.get("messages") or [], attempt, self.server.scripted)
        prompt_chars = sum(len(str(m.get("content", ""))) for m in body.get("messages") or [])
        reply = {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt_chars // 4,
                "completion_tokens": len(content) // 4,
                "total_tokens": prompt_chars // 4 + len(content) // 4,
            },
        }
        self._send(200, json.dumps(reply).encode())

    def _ollama(self, raw: bytes) -> None:
        body = json.loads(raw)
        self.server.state.record(body, raw)
        content = content_for("ok", body.get("messages") or [], 1)
        reply = {
            "model": body.get("model"),
            "message": {"role": "assistant", "content": content},
            "done": True,
            "done_reason": "stop",
            "prompt_eval_count": 100,
            "eval_count": len(content) // 4,
        }
        self._send(200, json.dumps(reply).encode())


class JudgeHTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, host: str = "127.0.0.1", port: int = 0, slow_seconds: float = 30.0):
        super().__init__((host, port), Handler)
        self.state = State()
        self.slow_seconds = slow_seconds
        #: claim text (whitespace collapsed) → ENTAILMENT | NEUTRAL | CONTRADICTION: the verdict
        #: given to that claim instead of the word-overlap rule (tests: human labels)
        self.scripted: dict[str, str] = {}
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        name = host.decode() if isinstance(host, bytes) else str(host)
        return f"http://{name}:{port}/v1"

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # clients that time out or go away mid-request are part of the script

    def start(self) -> JudgeHTTPServer:
        self._thread = threading.Thread(target=self.serve_forever, name="fake-judge", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.shutdown()
        self.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8089)
    args = ap.parse_args()
    server = JudgeHTTPServer(args.host, args.port)
    print(f"fake judge at {server.url} (model names select scenarios)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
