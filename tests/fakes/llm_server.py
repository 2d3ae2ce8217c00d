"""A local HTTP server speaking the OpenAI Chat Completions and Anthropic Messages wire formats, and the
parts of the OpenAI Files + Batch and Anthropic Message Batches APIs that Polygon uses.

The real `openai` and `anthropic` SDKs talk to it (base_url = `server.openai_url` / `server.anthropic_url`).
Replies are a pure function of the request (so record/replay can be proven), and faults are scripted:
429 with Retry-After, 500, a slow reply past the client's timeout, a body that is not JSON, a tool
call with malformed arguments, a reply that ignores the schema, a connection closed after the request
without any reply ("drop"), a reply whose connection closes halfway through it ("cut": a stream with
neither finish_reason nor `[DONE]`, or a JSON body shorter than its content-length), a server
without the Files and Batch APIs (`behaviour.batch_api = False`: 404, as llama.cpp answers),
one that closes the connection after every streamed reply while advertising keep-alive
(`behaviour.close_after_stream`, as llama.cpp's server does), and grammar-constrained structured
replies (`behaviour.grammar`, `llm_grammar.GrammarModel`, as llama.cpp's `response_format`). It
counts requests in flight and connections accepted.
A request with `stream: true` is answered with server-sent events (`behaviour.stream = False`
ignores the flag, as some servers do); runaway replies that ignore `max_tokens`, tool calls written
as JSON text, and a refused-connection URL are in `llm_modes`. `behaviour.seen` keeps every body.
"""

from __future__ import annotations

import email.parser
import email.policy
import hashlib
import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.fakes import llm_modes as modes
from tests.fakes.llm_grammar import SchemaRefused
from tests.fakes.llm_modes import default_for, request_texts, sse_events

Fault = str | None  # "429" | "500" | "slow" | "nonjson" | "400" | "401" | "drop" | "cut" | None

# No facts of their own: a caller that invents account numbers is flagged as a simulator fault.
CALLER_LINES = ["Hi, I have a question about my bill.", "Yes, that's right.", "Okay, I see.",
                "Okay, thank you."]
AGENT_LINES = ["Northwind billing, how can I help you today?", "I can look into that for you.",
               "Could you confirm your account number, please?", "Thank you, I have found your account.",
               "The duplicate charge will be reversed within five days.", "Is there anything else?",
               "Have a good day."]


_SAID = re.compile(r'"said": "((?:[^"\\]|\\.)*)"')


def _quoting(value: Any, texts: str) -> Any:
    """A judge reply whose every evidence is the first line said in the request's transcript (the
    schema's default string is in no transcript, and Polygon checks quotes against it)."""
    said = next((json.loads(f'"{m.group(1)}"') for m in _SAID.finditer(texts) if m.group(1).strip()), None)
    if said is None or not isinstance(value, dict):
        return value
    return {k: ({**v, "evidence": said[:80]} if isinstance(v, dict) and "evidence" in v else v)
            for k, v in value.items()}


@dataclass
class Behaviour:
    """What the server does; change fields between requests from the test."""

    fault_for: Callable[[int], Fault] = lambda n: None
    retry_after: str = "0.01"
    delay: float = 0.0              # seconds every request takes (to see concurrency)
    slow_seconds: float = 2.0       # how long a "slow" fault sleeps
    tool_call: bool = False         # agent requests with tools: first call a tool
    # with tool_call: the arguments (JSON text) of a call of this tool; other tools get {"account_id": "4417"}
    tool_arguments: dict[str, str] = field(default_factory=dict)
    malformed_arguments: bool = False
    ignore_schema: bool = False
    vary: bool = False              # structured replies depend on the request's text (not all alike)
    caller_turns: int = 2           # caller lines before it hangs up
    caller_lines: list[str] = field(default_factory=list)  # scripted caller lines (default: CALLER_LINES)
    batch_polls: int = 1            # polls of a batch that still say "in progress" before it ends
    batch_outcome: str = "completed"  # or "failed" / "expired": what a whole OpenAI batch ends as
    batch_item_fault: Callable[[str], str | None] = lambda custom_id: None  # "error" | "expired"
    batch_api: bool = True          # False: /files and /batches answer 404 (llama.cpp, Ollama, vLLM)
    agent_turns: int = 4            # agent lines before it calls `end_call` (when offered)
    stream: bool = True             # answer `stream: true` with server-sent events (False: ignore it)
    runaway_tokens: int = 0         # > 0: every OpenAI reply runs on for this many words, ignoring max_tokens
    token_delay: float = 0.0        # seconds between streamed events (a slow local server)
    # Stream as llama.cpp's server does: chunked, advertising `Keep-Alive: timeout=5, max=100`, then
    # close the connection right after the last chunk (a pooled connection the client reuses is dead).
    close_after_stream: bool = False
    # Agent requests without the tools API: the n-th text is said when n <tool_response> blocks came back
    # (one text: said until a result comes back); then the usual lines.
    text_tool_calls: list[str] = field(default_factory=list)
    seen: list[dict[str, Any]] = field(default_factory=list)
    # Structured replies from a grammar-constrained model: (schema, schema name, body) → value; it
    # raises SchemaRefused (a 400) for a schema llama.cpp's converter would refuse.
    grammar: Callable[[dict[str, Any], str, dict[str, Any]], Any] | None = None


class FakeLLMServer:
    """Start with `with FakeLLMServer() as server:`; `server.stop()` stops it early (replay tests)."""

    def __init__(self, behaviour: Behaviour | None = None) -> None:
        self.behaviour = behaviour or Behaviour()
        self.lock = threading.Lock()
        self.requests = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self.statuses: dict[int, int] = {}
        self.headers_seen: list[dict[str, str]] = []
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict[str, Any]] = {}  # id → {"items", "polls", "anthropic", …}
        self.streams_cut_short = 0  # streamed replies the client hung up on before the end
        self.connections = 0  # TCP connections accepted
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    @property
    def openai_url(self) -> str:
        return f"{self.base}/v1"

    @property
    def anthropic_url(self) -> str:
        return self.base

    def __enter__(self) -> FakeLLMServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    # -- request handling ----------------------------------------------------------------------

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body go out in separate writes

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def setup(self) -> None:
                with server.lock:
                    server.connections += 1
                super().setup()

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", 0))
                raw = self.rfile.read(length)
                multipart = self.headers.get("content-type", "").startswith("multipart/")
                body = {"multipart": raw} if multipart else json.loads(raw or b"{}")
                self._handle(body)

            def do_GET(self) -> None:
                self._handle(None)

            def _handle(self, body: dict[str, Any] | None) -> None:
                with server.lock:
                    n = server.requests
                    server.requests += 1
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                    server.headers_seen.append(dict(self.headers))
                    if body is not None and "multipart" not in body:
                        server.behaviour.seen.append(body)
                try:
                    server._serve(self, n, body)
                finally:
                    with server.lock:
                        server.in_flight -= 1

        return Handler

    def _send(self, h: BaseHTTPRequestHandler, status: int, payload: Any, headers: dict[str, str] | None = None,
              raw: bytes | None = None) -> None:
        data = raw if raw is not None else json.dumps(payload).encode()
        with self.lock:
            self.statuses[status] = self.statuses.get(status, 0) + 1
        try:
            h.send_response(status)
            h.send_header("content-type", "text/html" if raw is not None else "application/json")
            h.send_header("content-length", str(len(data)))
            h.send_header("x-request-id", f"req_{self.requests}")
            h.send_header("request-id", f"req_{self.requests}")
            for k, v in (headers or {}).items():
                h.send_header(k, v)
            h.end_headers()
            h.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _serve(self, h: BaseHTTPRequestHandler, n: int, body: dict[str, Any] | None) -> None:
        b = self.behaviour
        if b.delay:
            time.sleep(b.delay)
        fault = b.fault_for(n)
        error = {"error": {"type": "error", "message": f"fake fault {fault}"}, "type": "error"}
        if fault == "429":
            return self._send(h, 429, error, {"retry-after": b.retry_after})
        if fault in ("500", "400", "401"):
            return self._send(h, int(fault), error)
        if fault == "drop":  # the request was read; the connection closes with no status line sent
            h.close_connection = True
            return None
        if fault == "slow":
            time.sleep(b.slow_seconds)
        if fault == "nonjson":
            return self._send(h, 200, None, raw=b"<html>upstream busy</html>")
        path = h.path.split("?", 1)[0].rstrip("/")
        if ("/batches" in path or "/files" in path) and not b.batch_api:
            return self._send(h, 404, {"error": {"code": 404, "message": "File Not Found", "type": "not_found_error"}})
        if "/batches" in path or "/files" in path:
            return self._batch_api(h, path, body)
        anthropic = path.endswith("/messages")
        try:
            reply = self._reply(body or {}, anthropic)
        except SchemaRefused as exc:  # llama.cpp refuses a schema its grammar converter cannot read
            return self._send(h, 400, {"error": {"code": 400, "message": str(exc), "type": "invalid_request_error"}})
        if anthropic and b.runaway_tokens:
            reply = modes.runaway_message(reply, b.runaway_tokens, "tool_choice" in (body or {}))
        if not anthropic and b.runaway_tokens:
            structured = "response_format" in (body or {})
            if (body or {}).get("stream") and b.stream:
                return self._stream(h, modes.runaway_events(reply, b.runaway_tokens, structured))
            reply = modes.runaway_reply(reply, b.runaway_tokens, structured)
        if not anthropic and (body or {}).get("stream") and b.stream:
            include_usage = bool(((body or {}).get("stream_options") or {}).get("include_usage"))
            events = sse_events(reply, include_usage)
            return self._stream(h, modes.cut_events(events) if fault == "cut" else events)
        if fault == "cut":
            return self._send_cut(h, json.dumps(reply).encode())
        return self._send(h, 200, reply)

    def _send_cut(self, h: BaseHTTPRequestHandler, data: bytes) -> None:
        """A 200 whose body stops halfway: the whole length announced, half sent, the connection closed."""
        with self.lock:
            self.statuses[200] = self.statuses.get(200, 0) + 1
        h.close_connection = True
        try:
            h.send_response(200)
            h.send_header("content-type", "application/json")
            h.send_header("content-length", str(len(data)))
            h.end_headers()
            h.wfile.write(data[: len(data) // 2])
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _stream(self, h: BaseHTTPRequestHandler, events: Iterator[bytes]) -> None:
        """Server-sent events until they run out or the client hangs up (then the connection closes)."""
        with self.lock:
            self.statuses[200] = self.statuses.get(200, 0) + 1
        h.close_connection = True
        chunked = self.behaviour.close_after_stream
        try:
            h.send_response(200)
            h.send_header("content-type", "text/event-stream")
            h.send_header("x-request-id", f"req_{self.requests}")
            if chunked:  # what llama.cpp's server (cpp-httplib) says, though it closes after the reply
                h.send_header("transfer-encoding", "chunked")
                h.send_header("connection", "Keep-Alive")
                h.send_header("keep-alive", "timeout=5, max=100")
            else:
                h.send_header("connection", "close")
            h.end_headers()
            for event in events:
                h.wfile.write(b"%x\r\n%s\r\n" % (len(event), event) if chunked else event)
                if self.behaviour.token_delay:
                    time.sleep(self.behaviour.token_delay)
            if chunked:
                h.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            with self.lock:
                self.streams_cut_short += 1
        finally:
            h.close_connection = True  # (a `Keep-Alive` header sets it False)

    # -- batch APIs -----------------------------------------------------------------------------

    def _batch_api(self, h: BaseHTTPRequestHandler, path: str, body: dict[str, Any] | None) -> None:
        parts = path.strip("/").split("/")  # e.g. v1/messages/batches/<id>/results
        payload: Any = None
        raw: bytes | None = None
        with self.lock:  # (released before sending: _send takes it too)
            if body is not None and path.endswith("/v1/files"):
                payload = self._upload(h, body["multipart"])
            elif body is not None and path.endswith("/batches"):
                payload = self._create_batch(body, anthropic="messages" in parts)
            elif parts[-1] == "content" and parts[-3] == "files":
                raw = self.files[parts[-2]]
            elif parts[-1] == "results":
                raw = self._anthropic_results(parts[-2])
            elif parts[-1] in self.batches:
                batch = self.batches[parts[-1]]
                batch["polls"] += 1
                payload = self._batch_object(parts[-1], batch, batch["polls"] > self.behaviour.batch_polls)
        if payload is None and raw is None:
            return self._send(h, 404, {"error": {"type": "not_found_error", "message": "no such batch"}})
        return self._send(h, 200, payload, raw=raw)

    def _upload(self, h: BaseHTTPRequestHandler, raw: bytes) -> dict[str, Any]:
        # multipart/form-data, read with the standard library's MIME parser.
        head = f"content-type: {h.headers['content-type']}\r\n\r\n".encode()
        message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + raw)
        data = next(part.get_payload(decode=True) for part in message.iter_parts()
                    if part.get_param("name", header="content-disposition") == "file")
        file_id = f"file-{len(self.files) + 1}"
        self.files[file_id] = data
        return {"id": file_id, "object": "file", "bytes": len(data), "created_at": 0,
                "filename": "polygon-batch.jsonl", "purpose": "batch", "status": "processed"}

    def _create_batch(self, body: dict[str, Any], anthropic: bool) -> dict[str, Any]:
        if anthropic:
            items = [(r["custom_id"], r["params"]) for r in body["requests"]]
        else:
            lines = self.files[body["input_file_id"]].decode().splitlines()
            items = [(x["custom_id"], x["body"]) for x in map(json.loads, filter(None, lines))]
        batch_id = f"{'msgbatch' if anthropic else 'batch'}_{len(self.batches) + 1}"
        self.batches[batch_id] = {"items": items, "polls": 0, "anthropic": anthropic, "results": None}
        return self._batch_object(batch_id, self.batches[batch_id], ended=False)

    def _item_result(self, custom_id: str, params: dict[str, Any], anthropic: bool) -> dict[str, Any]:
        fault = self.behaviour.batch_item_fault(custom_id)
        if anthropic:
            if fault == "expired":
                return {"custom_id": custom_id, "result": {"type": "expired"}}
            if fault:
                return {"custom_id": custom_id, "result": {"type": "errored", "error": {
                    "type": "error", "error": {"type": "invalid_request_error", "message": "fake item fault"}}}}
            return {"custom_id": custom_id, "result": {"type": "succeeded", "message": self._reply(params, True)}}
        if fault:
            return {"id": f"batch_req_{custom_id}", "custom_id": custom_id, "error": None, "response": {
                "status_code": 400, "request_id": "req_x",
                "body": {"error": {"message": "fake item fault", "type": "invalid_request_error"}}}}
        return {"id": f"batch_req_{custom_id}", "custom_id": custom_id, "error": None, "response": {
            "status_code": 200, "request_id": "req_x", "body": self._reply(params, False)}}

    def _finish(self, batch: dict[str, Any]) -> list[dict[str, Any]]:
        if batch["results"] is None:  # computed once, when the batch ends
            batch["results"] = [self._item_result(cid, params, batch["anthropic"]) for cid, params in batch["items"]]
        return batch["results"]

    def _batch_object(self, batch_id: str, batch: dict[str, Any], ended: bool) -> dict[str, Any]:
        n = len(batch["items"])
        if batch["anthropic"]:
            results = self._finish(batch) if ended else []
            kinds = [r["result"]["type"] for r in results]
            return {"id": batch_id, "type": "message_batch", "processing_status": "ended" if ended else "in_progress",
                    "request_counts": {"processing": 0 if ended else n, "succeeded": kinds.count("succeeded"),
                                       "errored": kinds.count("errored"), "canceled": 0,
                                       "expired": kinds.count("expired")},
                    "created_at": "2026-11-30T00:00:00Z", "expires_at": "2026-12-01T00:00:00Z",
                    "ended_at": "2026-11-30T00:01:00Z" if ended else None, "archived_at": None,
                    "cancel_initiated_at": None,
                    "results_url": f"{self.base}/v1/messages/batches/{batch_id}/results" if ended else None}
        status = self.behaviour.batch_outcome if ended else "in_progress"
        out: dict[str, Any] = {"id": batch_id, "object": "batch", "endpoint": "/v1/chat/completions",
                               "input_file_id": "file-1", "completion_window": "24h", "status": status,
                               "created_at": 0, "output_file_id": None, "error_file_id": None,
                               "request_counts": {"total": n, "completed": 0, "failed": 0}}
        if ended and status in ("completed", "expired"):
            out.update(self._output_files(batch, status))
        if ended and status == "failed":
            out["errors"] = {"object": "list", "data": [{"code": "invalid_request", "message": "fake batch failure"}]}
        return out

    def _output_files(self, batch: dict[str, Any], status: str) -> dict[str, Any]:
        if "files" not in batch:  # written once, when the batch ends
            results = self._finish(batch)
            if status == "expired":  # an expired batch returns what it finished: here, the first half
                results = results[: len(results) // 2]
            good = [r for r in results if r["response"]["status_code"] == 200]
            bad = [r for r in results if r["response"]["status_code"] != 200]
            files: dict[str, Any] = {"request_counts": {"total": len(batch["items"]), "completed": len(good),
                                                        "failed": len(batch["items"]) - len(good)}}
            for key, lines in (("output_file_id", good), ("error_file_id", bad)):
                if lines:
                    file_id = f"file-{len(self.files) + 1}"
                    # Newest first: the APIs promise no order, so results must be matched by custom id.
                    self.files[file_id] = "".join(json.dumps(x) + "\n" for x in reversed(lines)).encode()
                    files[key] = file_id
            batch["files"] = files
        return batch["files"]

    def _anthropic_results(self, batch_id: str) -> bytes:
        return "".join(json.dumps(r) + "\n" for r in reversed(self._finish(self.batches[batch_id]))).encode()

    # -- content --------------------------------------------------------------------------------

    def _reply(self, body: dict[str, Any], anthropic: bool) -> dict[str, Any]:
        b = self.behaviour
        messages = body.get("messages", [])
        system = body.get("system", "")
        system_text = system if isinstance(system, str) else " ".join(x.get("text", "") for x in system)
        system_text += " ".join(str(m.get("content")) for m in messages if m.get("role") == "system")
        schema = None
        if anthropic and body.get("tool_choice", {}).get("type") == "tool":
            name = body["tool_choice"]["name"]
            schema = next(t["input_schema"] for t in body["tools"] if t["name"] == name), name
        elif not anthropic and (body.get("response_format") or {}).get("type") == "json_schema":
            js = body["response_format"]["json_schema"]
            schema = js["schema"], js["name"]
        text, tool = "", None
        if schema is not None:
            if b.ignore_schema:
                text = "I think the agent did fine overall."
            else:
                salt = int(hashlib.sha256(request_texts(body).encode()).hexdigest()[:8], 16) if b.vary else None
                value = default_for(schema[0], salt)
                if b.grammar is not None:  # a grammar-constrained model (llm_grammar.GrammarModel)
                    value = b.grammar(schema[0], schema[1], body)
                elif schema[1] == "judgment":  # an honest judge quotes the transcript it was shown
                    value = _quoting(value, request_texts(body))
                if anthropic:
                    tool = {"id": "toolu_s", "name": schema[1], "input": value}
                else:
                    text = json.dumps(value)
        elif "[END:" in system_text:  # the simulated caller
            said = sum(1 for m in messages if m.get("role") == "assistant")
            lines = b.caller_lines or CALLER_LINES
            text = lines[min(said, len(lines) - 1)]
            if said >= b.caller_turns:
                text = "Okay, thanks, goodbye. [END:hangup]"
        else:
            said = sum(1 for m in messages if m.get("role") == "assistant")
            tools = body.get("tools") or []
            had_tool = any(m.get("role") == "tool" or (isinstance(m.get("content"), list) and any(
                c.get("type") == "tool_result" for c in m["content"])) for m in messages)
            names = [t["name"] if anthropic else t["function"]["name"] for t in tools]
            if said >= b.agent_turns and "end_call" in names:
                text = AGENT_LINES[-1]
                tool = {"id": "call_end", "name": "end_call", "arguments": "{}"}
            elif not tools and (n := modes.results_back(messages)) < len(b.text_tool_calls):
                text = b.text_tool_calls[n]
            elif b.tool_call and tools and not had_tool:
                first = tools[0]
                name = first["name"] if anthropic else first["function"]["name"]
                args = '{"account_id": "44' if b.malformed_arguments else \
                    b.tool_arguments.get(name, '{"account_id": "4417"}')
                tool = {"id": "call_1", "name": name, "arguments": args}
            else:
                text = AGENT_LINES[min(said, len(AGENT_LINES) - 1)]
        prompt_chars = len(json.dumps(messages)) + len(system_text)
        usage_in, usage_out = prompt_chars // 4, max(1, len(text) // 4)
        if anthropic:
            content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
            if tool is not None:
                inp = tool.get("input")
                if inp is None:
                    inp = json.loads(tool["arguments"]) if not b.malformed_arguments else "not-an-object"
                content.append({"type": "tool_use", "id": tool["id"], "name": tool["name"], "input": inp})
            return {"id": "msg_fake", "type": "message", "role": "assistant", "model": body.get("model"),
                    "content": content, "stop_reason": "tool_use" if tool else "end_turn",
                    "stop_sequence": None,
                    "usage": {"input_tokens": usage_in - 8, "output_tokens": usage_out,
                              "cache_read_input_tokens": 8, "cache_creation_input_tokens": 0}}
        message: dict[str, Any] = {"role": "assistant", "content": text or None}
        if tool is not None:
            message["tool_calls"] = [{"id": tool["id"], "type": "function",
                                      "function": {"name": tool["name"], "arguments": tool["arguments"]}}]
        return {"id": "chatcmpl-fake", "object": "chat.completion", "created": 0, "model": body.get("model"),
                "choices": [{"index": 0, "message": message,
                             "finish_reason": "tool_calls" if tool else "stop"}],
                "usage": {"prompt_tokens": usage_in, "completion_tokens": usage_out,
                          "total_tokens": usage_in + usage_out,
                          "prompt_tokens_details": {"cached_tokens": 8}}}
