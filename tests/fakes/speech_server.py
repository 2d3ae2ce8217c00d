"""A local HTTP server speaking OpenAI's audio wire formats: the Speech API (`POST /v1/audio/speech`,
JSON in, audio bytes out) and the Transcriptions API (`POST /v1/audio/transcriptions`, multipart
form in, JSON out). The real `openai` SDK talks to it (base_url = `server.url`).

Speech: `pcm` is raw 16-bit little-endian mono at 24 kHz, here a 220 Hz tone of 60 ms per character
of the input (so a test knows its length). Transcriptions: the uploaded WAV is read with the standard
library, and the reply is `behaviour.transcript` with its words spread evenly over the audio's
duration (`verbose_json` with `timestamp_granularities[]=word` gets `words`; `json` only `text`).
Faults are scripted per request (`behaviour.fault_for(n)`: "401", "400", "500"). Every request's
fields are kept in `behaviour.seen` (the uploaded file as its WAV parameters).
"""

from __future__ import annotations

import email.parser
import email.policy
import io
import json
import threading
import wave
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np

TONE_HZ, PCM_RATE, MS_PER_CHARACTER = 220, 24_000, 60


@dataclass
class SpeechBehaviour:
    """What the server does; change fields between requests from the test."""

    transcript: str = "I want a refund for the double charge."
    fault_for: Callable[[int], str | None] = lambda n: None
    seen: list[dict[str, Any]] = field(default_factory=list)


def tone(characters: int) -> bytes:
    """The PCM the server says for an input of `characters` characters."""
    count = PCM_RATE * MS_PER_CHARACTER * characters // 1000
    t = np.arange(count) / PCM_RATE
    return (np.sin(2 * np.pi * TONE_HZ * t) * 0.3 * 32767).astype("<i2").tobytes()


class FakeSpeechServer:
    """Start with `with FakeSpeechServer() as server:`."""

    def __init__(self, behaviour: SpeechBehaviour | None = None) -> None:
        self.behaviour = behaviour or SpeechBehaviour()
        self.lock = threading.Lock()
        self.requests = 0
        self.headers_seen: list[dict[str, str]] = []
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def __enter__(self) -> FakeSpeechServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length", 0)))
                with server.lock:
                    n = server.requests
                    server.requests += 1
                    server.headers_seen.append(dict(self.headers))
                server._serve(self, n, raw)

        return Handler

    def _send(self, h: BaseHTTPRequestHandler, status: int, data: bytes, content_type: str) -> None:
        h.send_response(status)
        h.send_header("content-type", content_type)
        h.send_header("content-length", str(len(data)))
        h.send_header("x-request-id", f"req_{self.requests}")
        h.end_headers()
        h.wfile.write(data)

    def _serve(self, h: BaseHTTPRequestHandler, n: int, raw: bytes) -> None:
        fault = self.behaviour.fault_for(n)
        if fault:
            error = {"error": {"message": f"fake fault {fault}", "type": "invalid_request_error",
                               "param": None, "code": None}}
            return self._send(h, int(fault), json.dumps(error).encode(), "application/json")
        path = h.path.split("?", 1)[0].rstrip("/")
        if path.endswith("/audio/speech"):
            return self._speech(h, json.loads(raw))
        if path.endswith("/audio/transcriptions"):
            return self._transcription(h, raw)
        return self._send(h, 404, b'{"error": {"message": "no such route"}}', "application/json")

    def _speech(self, h: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        self.behaviour.seen.append(body)
        if body.get("response_format") != "pcm":
            return self._send(h, 400, b'{"error": {"message": "this fake speaks pcm only"}}', "application/json")
        return self._send(h, 200, tone(len(body["input"])), "audio/pcm")

    def _transcription(self, h: BaseHTTPRequestHandler, raw: bytes) -> None:
        head = f"content-type: {h.headers['content-type']}\r\n\r\n".encode()
        message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + raw)
        fields: dict[str, Any] = {}
        for part in message.iter_parts():
            name = str(part.get_param("name", header="content-disposition"))
            payload = part.get_payload(decode=True)
            assert isinstance(payload, bytes)
            if name == "file":
                with wave.open(io.BytesIO(payload), "rb") as wav:
                    fields["file"] = {"filename": part.get_filename(), "rate": wav.getframerate(),
                                      "channels": wav.getnchannels(), "width": wav.getsampwidth(),
                                      "frames": wav.getnframes()}
            else:
                fields.setdefault(name, []).append(payload.decode())
        self.behaviour.seen.append(fields)
        seconds = fields["file"]["frames"] / fields["file"]["rate"]
        text = self.behaviour.transcript
        reply: dict[str, Any] = {"text": text}
        if fields.get("response_format") == ["verbose_json"]:
            words = text.split()
            step = seconds / max(len(words), 1)
            reply = {"task": "transcribe", "language": "english", "duration": seconds, "text": text,
                     "segments": [{"id": 0, "seek": 0, "start": 0.0, "end": seconds, "text": text, "tokens": [],
                                   "temperature": 0.0, "avg_logprob": -0.2, "compression_ratio": 1.0,
                                   "no_speech_prob": 0.01}]}
            if fields.get("timestamp_granularities[]") == ["word"]:
                reply["words"] = [{"word": w.strip(".,"), "start": round(i * step, 2),
                                   "end": round((i + 1) * step, 2)} for i, w in enumerate(words)]
        return self._send(h, 200, json.dumps(reply).encode(), "application/json")
