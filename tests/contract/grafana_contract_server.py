"""A local Grafana stand-in that enforces Grafana's HTTP API contract.

Every request is checked against shared/contracts/grafana-openapi-subset.json: the operation
(method + path) must exist, path/query parameters must have the declared types, the body must
validate against the operation's body schema (jsonschema, Draft 4 as Swagger 2.0 uses). Answers
use only status codes the spec lists for the operation and are themselves validated against the
spec's response schemas. Anything off is recorded in `violations`; the fixture fails the test.

State is kept in memory (annotations, folders, dashboards, alert rules) so idempotence can be
observed; `faults` inject 500s, hangs and wrong answers for resilience tests.
"""

from __future__ import annotations

import json
import os
import re
import sys
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import jsonschema

SHARED = Path(os.environ.get("RAGMON_SHARED", Path(__file__).resolve().parents[3] / "shared"))
SPEC_PATH = SHARED / "contracts" / "grafana-openapi-subset.json"


@dataclass
class Fault:
    method: str
    path: str  # regex on the path after /api
    status: int | None = 500  # answer with this status (None: answer normally)
    times: int = 1
    hang: threading.Event | None = None  # block until set (after state changes if status is None)
    entered: threading.Event = field(default_factory=threading.Event)


@dataclass
class Seen:
    method: str
    path: str
    query: dict[str, list[str]]
    body: Any
    status: int = 0


class Operation:
    def __init__(
        self, spec: dict[str, Any], method: str, template: str, op: dict[str, Any]
    ) -> None:
        self.method = method
        self.template = template
        self.regex = re.compile("^" + re.sub(r"\{[^}]+\}", "([^/]+)", template) + "$")
        self.params = op.get("parameters", [])
        self.responses: dict[str, Any] = op["responses"]
        self.body = next((p for p in self.params if p["in"] == "body"), None)
        self.spec = spec

    def schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        return {**schema, "definitions": self.spec["definitions"]}

    def response_schema(self, status: int) -> dict[str, Any] | None:
        resp = self.responses.get(str(status))
        if resp is None:
            return None
        if "$ref" in resp:
            resp = self.spec["responses"][resp["$ref"].rsplit("/", 1)[1]]
        return self.schema(resp["schema"]) if "schema" in resp else None


def _type_ok(param: dict[str, Any], raw: str) -> bool:
    kind = param.get("type")
    if kind == "integer":
        return re.fullmatch(r"-?\d+", raw) is not None
    if kind == "boolean":
        return raw in ("true", "false")
    if "enum" in param:
        return raw in param["enum"]
    return True


class _Server(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that timed out and hung up (the slow-Grafana tests) is what the test wanted,
        # not a fault of this server: no traceback in the test output for it.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class ContractServer:
    def __init__(self, token: str = "test-token", spec_path: Path = SPEC_PATH) -> None:
        self.spec = json.loads(spec_path.read_text(encoding="utf-8"))
        self.base = self.spec["basePath"]
        self.ops = [
            Operation(self.spec, method.upper(), path, op)
            for path, item in self.spec["paths"].items()
            for method, op in item.items()
        ]
        self.token = token
        self.lock = threading.Lock()
        self.reset()
        self.httpd = _Server(("127.0.0.1", 0), self._handler())
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def reset(self) -> None:
        self.violations: list[str] = []
        self.seen: list[Seen] = []
        self.faults: list[Fault] = []
        self.annotations: dict[int, dict[str, Any]] = {}
        self.folders: dict[str, dict[str, Any]] = {}
        self.dashboards: dict[str, dict[str, Any]] = {}
        self.rules: dict[str, dict[str, Any]] = {}
        self.next_id = 1

    def close(self) -> None:
        for fault in self.faults:
            if fault.hang:
                fault.hang.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    def writes(self) -> list[Seen]:
        return [s for s in self.seen if s.method != "GET"]

    # --- request handling ------------------------------------------------------------------
    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _any(self) -> None:
                server.handle(self)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _any

        return Handler

    def _id(self) -> int:
        self.next_id += 1
        return self.next_id - 1

    def handle(self, req: BaseHTTPRequestHandler) -> None:
        url = urlsplit(req.path)
        length = int(req.headers.get("Content-Length") or 0)
        raw = req.rfile.read(length) if length else b""
        seen = Seen(req.command, url.path, parse_qs(url.query), None)
        with self.lock:
            self.seen.append(seen)
        status, body = self._dispatch(req, url.path, seen, raw)
        seen.status = status
        data = json.dumps(body).encode() if body is not None else b""
        req.send_response(status)
        req.send_header("Content-Type", "application/json")
        req.send_header("Content-Length", str(len(data)))
        req.end_headers()
        if data:
            req.wfile.write(data)

    def _violation(self, text: str) -> None:
        with self.lock:
            self.violations.append(text)

    def _dispatch(
        self, req: BaseHTTPRequestHandler, path: str, seen: Seen, raw: bytes
    ) -> tuple[int, Any]:
        where = f"{req.command} {path}"
        if not path.startswith(self.base + "/"):
            self._violation(f"{where}: outside basePath {self.base}")
            return 404, {"message": "not found"}
        sub = path[len(self.base) :]
        match = next(
            (
                (op, m)
                for op in self.ops
                if op.method == req.command
                for m in [op.regex.match(sub)]
                if m
            ),
            None,
        )
        if match is None:
            self._violation(f"{where}: no such operation in the spec")
            return 404, {"message": "not found"}
        op, m = match
        if req.headers.get("Authorization") != f"Bearer {self.token}":
            return 401, {"message": "Unauthorized"}  # Grafana's auth runs before every route
        names = re.findall(r"\{([^}]+)\}", op.template)
        args = dict(zip(names, m.groups(), strict=True))
        problems = self._check_query(op, seen.query) + self._check_body(op, req, raw, seen)
        if problems:
            for p in problems:
                self._violation(f"{where}: {p}")
            return (400 if "400" in op.responses else 500), {"message": "; ".join(problems)}
        fault = self._take_fault(req.command, sub)
        if fault is not None and fault.status is not None:
            fault.entered.set()
            if fault.hang is not None:
                fault.hang.wait(30)
            status, body = fault.status, {"message": f"injected {fault.status}"}
        else:
            with self.lock:
                status, body = self._state((op.method, op.template), args, seen.query, seen.body)
            if fault is not None:  # the change is made; only the answer is late
                fault.entered.set()
                if fault.hang is not None:
                    fault.hang.wait(30)
        if str(status) not in op.responses:
            self._violation(f"{where}: server answered {status}, not in the spec")
        schema = op.response_schema(status)
        if schema is not None and body is not None:
            try:
                jsonschema.Draft4Validator(schema).validate(body)
            except jsonschema.ValidationError as exc:
                self._violation(f"{where}: stand-in answer breaks the spec: {exc.message}")
        return status, body

    def _check_query(self, op: Operation, query: dict[str, list[str]]) -> list[str]:
        declared = {p["name"]: p for p in op.params if p["in"] == "query"}
        problems = []
        for name, values in query.items():
            param = declared.get(name)
            if param is None:
                problems.append(f"query parameter {name!r} is not in the spec")
                continue
            if len(values) > 1 and param.get("type") != "array":
                problems.append(f"query parameter {name!r} repeated")
            item = param.get("items", {}) if param.get("type") == "array" else param
            problems += [
                f"query {name}={v!r} is not {item.get('type')}"
                for v in values
                if not _type_ok(item, v)
            ]
        return problems

    def _check_body(
        self, op: Operation, req: BaseHTTPRequestHandler, raw: bytes, seen: Seen
    ) -> list[str]:
        if op.body is None:
            return ["a body on an operation without one"] if raw else []
        if not raw:
            return ["missing required body"] if op.body.get("required") else []
        if not (req.headers.get("Content-Type") or "").startswith("application/json"):
            return [
                f"body Content-Type {req.headers.get('Content-Type')!r} is not application/json"
            ]
        try:
            seen.body = json.loads(raw)
        except ValueError:
            return ["body is not JSON"]
        validator = jsonschema.Draft4Validator(op.schema(op.body["schema"]))
        return [
            f"body {'/'.join(map(str, e.path)) or '<root>'}: {e.message}"
            for e in validator.iter_errors(seen.body)
        ]

    def _take_fault(self, method: str, sub: str) -> Fault | None:
        with self.lock:
            for fault in self.faults:
                if fault.method == method and fault.times > 0 and re.search(fault.path, sub):
                    fault.times -= 1
                    return fault
        return None

    # --- the API's behaviour -------------------------------------------------------------------
    def _state(
        self, key: tuple[str, str], args: dict[str, str], query: dict[str, list[str]], body: Any
    ) -> tuple[int, Any]:
        if key == ("GET", "/health"):
            return 200, {"database": "ok", "version": "12.0.0", "commit": "test"}
        if key == ("POST", "/annotations"):
            ann_id = self._id()
            self.annotations[ann_id] = {"id": ann_id, "time": body.get("time", 0), "timeEnd": body.get("timeEnd", body.get("time", 0)),
                                        "tags": body.get("tags", []), "text": body["text"], "type": "annotation"}  # fmt: skip
            return 200, {"id": ann_id, "message": "Annotation added"}
        if key == ("GET", "/annotations"):
            tags = set(query.get("tags", []))
            found = [a for a in self.annotations.values() if tags <= set(a["tags"])]
            limit = int(query.get("limit", ["100"])[0])
            return 200, sorted(found, key=lambda a: -a["id"])[:limit]
        if key == ("PATCH", "/annotations/{annotation_id}"):
            ann = self.annotations.get(
                int(args["annotation_id"]) if args["annotation_id"].isdigit() else -1
            )
            if ann is None:
                return 404, {"message": "Annotation not found"}
            ann.update({k: v for k, v in body.items() if k in ("text", "tags", "time", "timeEnd")})
            return 200, {"message": "Annotation patched"}
        if key == ("GET", "/folders/{folder_uid}"):
            folder = self.folders.get(args["folder_uid"])
            return (200, folder) if folder else (404, {"message": "folder not found"})
        if key == ("POST", "/folders"):
            uid = body.get("uid") or f"f{self.next_id}"
            if uid in self.folders:
                return 409, {"message": "a folder with the same uid already exists"}
            self.folders[uid] = {
                "id": self._id(),
                "uid": uid,
                "title": body.get("title", ""),
                "version": 1,
                "url": f"/dashboards/f/{uid}",
            }
            return 200, self.folders[uid]
        if key == ("PUT", "/folders/{folder_uid}"):
            folder = self.folders.get(args["folder_uid"])
            if folder is None:
                return 404, {"message": "folder not found"}
            folder.update(title=body.get("title", folder["title"]), version=folder["version"] + 1)
            return 200, folder
        if key == ("GET", "/dashboards/uid/{uid}"):
            dash = self.dashboards.get(args["uid"])
            return (200, dash) if dash else (404, {"message": "Dashboard not found"})
        if key == ("POST", "/dashboards/db"):
            dash = dict(body.get("dashboard") or {})
            uid = dash.get("uid") or f"d{self.next_id}"
            old = self.dashboards.get(uid)
            folder = body.get("folderUid", "")
            if folder and folder not in self.folders:
                return 400, {"message": "folder not found"}
            version = (old["dashboard"]["version"] + 1) if old else 1
            dash.update(uid=uid, id=old["dashboard"]["id"] if old else self._id(), version=version)
            self.dashboards[uid] = {
                "dashboard": dash,
                "meta": {"folderUid": folder, "version": version},
            }
            return 200, {
                "id": dash["id"],
                "uid": uid,
                "status": "success",
                "title": dash.get("title", ""),
                "url": f"/d/{uid}",
                "version": version,
            }
        if key == ("GET", "/v1/provisioning/alert-rules/{UID}"):
            rule = self.rules.get(args["UID"])
            return (200, rule) if rule else (404, None)
        if key == ("POST", "/v1/provisioning/alert-rules"):
            uid = body.get("uid") or f"r{self.next_id}"
            if uid in self.rules or body["folderUID"] not in self.folders:
                return 400, {"message": "conflict or unknown folder"}
            self.rules[uid] = {
                **body,
                "uid": uid,
                "id": self._id(),
                "updated": "2026-01-01T00:00:00Z",
                "provenance": "api",
            }
            return 201, self.rules[uid]
        if key == ("PUT", "/v1/provisioning/alert-rules/{UID}"):
            old = self.rules.get(args["UID"])
            if old is None:
                return 400, {"message": "no such rule"}
            self.rules[args["UID"]] = {
                **body,
                "uid": args["UID"],
                "id": old["id"],
                "updated": "2026-01-02T00:00:00Z",
                "provenance": "api",
            }
            return 200, self.rules[args["UID"]]
        return 500, {"message": f"stand-in does not implement {key}"}
