"""A call's audio and timeline on the JSON API: what the conversation page's player plays and draws.

`GET /api/runs/{run}/conversations/{id}/audio` answers the stereo WAV (caller left, agent right)
and honours a one-range `Range: bytes=…` header (206), as a browser's <audio> asks when it seeks;
`…/timeline` answers the timeline JSON (`polygon_core.voice.Timeline`). A text conversation, or a
call whose audio or timeline is missing, is a 404 naming it.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.responses import Response

from polygon.usecases import Stores, call_audio, call_timeline, conversation_record
from polygon_core.adapters.artifacts import ArtifactNotFoundError
from polygon_core.voice import Timeline

from ._api import Ctx, _run, read_access
from ._schema import API_RESPONSES, Detail

__all__ = ["byte_range", "router"]

router = APIRouter(prefix="/api", tags=["results"], dependencies=[Depends(read_access)],
                   responses=API_RESPONSES)

_WAV = "audio/wav"
_BINARY = {"schema": {"type": "string", "format": "binary"}}
_AUDIO_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {"description": "the call's stereo WAV (caller left, agent right)", "content": {_WAV: _BINARY}},
    206: {"description": "the byte range a `Range: bytes=…` header asked for", "content": {_WAV: _BINARY}},
    416: {"model": Detail, "description": "a range that starts past the end of the audio"},
}


class RangeNotSatisfiable(ValueError):
    """A `Range` header whose range starts past the end of the resource."""


def byte_range(header: str | None, size: int) -> tuple[int, int] | None:
    """The (first, last) byte, inclusive, a one-range `Range: bytes=…` header asks of `size` bytes.

    None means "send it all": no header, another unit, a malformed spec or several ranges (RFC 9110
    lets a server ignore a Range it does not serve). Raises RangeNotSatisfiable when the range
    starts at or past the end (or asks for the last 0 bytes).
    """
    if not header:
        return None
    unit, _, spec = header.partition("=")
    spec = spec.strip()
    if unit.strip().lower() != "bytes" or "," in spec:
        return None
    first, dash, last = spec.partition("-")
    if not dash or not (first.isdigit() or first == "") or not (last.isdigit() or last == ""):
        return None
    if first == "":  # a suffix: the last N bytes
        if last == "":
            return None
        if int(last) == 0 or size == 0:
            raise RangeNotSatisfiable(spec)
        return max(0, size - int(last)), size - 1
    start = int(first)
    if last and int(last) < start:
        return None
    if start >= size:
        raise RangeNotSatisfiable(spec)
    return start, min(int(last), size - 1) if last else size - 1


def _checked(stores: Stores, run_id: str, conversation_id: str) -> str:
    """The run's full id, once the run holds the conversation (404 otherwise, as the conversation's route)."""
    run = _run(stores, run_id)
    if conversation_record(stores, run.id, conversation_id) is None:
        raise HTTPException(404, f"run {run.id} has no conversation {conversation_id!r}")
    return run.id


@router.get("/runs/{run_id}/conversations/{conversation_id}/audio", response_class=Response,
            responses=_AUDIO_RESPONSES)
def conversation_audio(run_id: str, conversation_id: str, ctx: Ctx, request: Request) -> Response:
    """The call's stereo WAV (caller left, agent right); a `Range: bytes=first-last` header gets
    that part (206), so a player can seek. 404 for a text conversation or a call without audio."""
    stores = ctx.stores()
    run = _checked(stores, run_id, conversation_id)
    try:
        data = call_audio(stores, run, conversation_id)
    except ArtifactNotFoundError as exc:  # NotACallError included: a text conversation has no audio
        raise HTTPException(404, str(exc)) from None
    size = len(data)
    try:
        wanted = byte_range(request.headers.get("range"), size)
    except RangeNotSatisfiable:
        raise HTTPException(416, f"the audio is {size} bytes; the range asked for starts past its end",
                            headers={"Content-Range": f"bytes */{size}"}) from None
    headers = {"Accept-Ranges": "bytes", "Cache-Control": "no-cache"}
    if wanted is None:
        return Response(data, media_type=_WAV, headers=headers)
    first, last = wanted
    return Response(data[first:last + 1], status_code=206, media_type=_WAV,
                    headers={**headers, "Content-Range": f"bytes {first}-{last}/{size}"})


@router.get("/runs/{run_id}/conversations/{conversation_id}/timeline", response_model=Timeline)
def conversation_timeline(run_id: str, conversation_id: str, ctx: Ctx) -> Timeline:
    """The call's timeline: both sides' speech segments (ms; kind speech, backchannel, vocal_tic,
    non_directed or hello) and the line's events (conditions, barge-ins, yields, silences, tool
    calls). 404 for a text conversation or a call without a timeline."""
    stores = ctx.stores()
    run = _checked(stores, run_id, conversation_id)
    try:
        return call_timeline(stores, run, conversation_id)
    except ArtifactNotFoundError as exc:
        raise HTTPException(404, str(exc)) from None
