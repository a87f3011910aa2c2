"""ToolResult, and the one request builder and result parser call and acall share."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ._exceptions import ProtocolError
from ._transports.base import encode_dict, encode_string

if TYPE_CHECKING:
    from ._client import Connection

__all__ = ["ToolResult"]


@dataclass(frozen=True)
class ToolResult:
    """The result of one tool call, as the runtime returned it.

    ``text`` is exactly what the model should read. ``is_error`` marks
    invalid arguments and infrastructure failures only; a command that exits
    non-zero is a normal result whose text and ``meta`` say so. ``meta`` is the
    structured facts (MCP ``structuredContent``: exitCode, timedOut, …; ``{}``
    when the tool gave none), ``presentation`` the ACP tool-call data for a UI,
    ``content`` the raw MCP content list and ``raw`` the whole result object.
    """

    text: str
    is_error: bool = False
    meta: dict[str, Any] = field(default_factory=dict)
    presentation: dict[str, Any] = field(default_factory=dict)
    content: list[dict[str, Any]] = field(default_factory=list)
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


def call_params(
    session: str, name: str, arguments: Mapping[str, Any] | None, call_id: str | None = None
) -> dict[str, Any]:
    """The params of one tools/call request."""
    if not isinstance(name, str) or not name:
        raise TypeError(f"the tool name must be a non-empty str, not {name!r}")
    params: dict[str, Any] = {
        "session": session,
        "name": name,
        # Anything but a mapping goes through as given: the runtime says
        # what is wrong with it in its own words, the same on every transport.
        "arguments": dict(arguments) if isinstance(arguments, Mapping) else arguments,
    }
    if arguments is None:
        params["arguments"] = {}
    if call_id is not None:
        params["callId"] = call_id
    return params


def encoded_call_params(
    prefixes: dict[str, bytes], session: str, name: str, arguments: Mapping[str, Any] | None
) -> bytes | None:
    """call_params already encoded as JSON, or None where call_params must do.

    The session and tool name part is encoded once per session and tool and
    kept in prefixes; only the arguments are encoded per call (issue 16).
    Anything but a plain dict (or None) goes the general way.
    """
    if type(arguments) is not dict:
        if arguments is not None:
            return None
        arguments = {}
    if type(name) is not str:
        return None  # call_params words the error
    prefix = prefixes.get(name)
    if prefix is None:
        if not name:
            return None
        prefix = b'{"session":%s,"name":%s,"arguments":' % (
            encode_string(session),
            encode_string(name),
        )
        prefixes[name] = prefix
    return prefix + encode_dict(arguments) + b"}"


def present_params(
    name: str,
    arguments: Any,
    result: ToolResult | Mapping[str, Any] | None,
    call_id: str | None,
    session: str | None,
    cwd: str | os.PathLike[str] | None,
    output: str | None,
) -> dict[str, Any]:
    """The params of one tools/present request."""
    params: dict[str, Any] = {"name": name, "arguments": {} if arguments is None else arguments}
    if isinstance(result, ToolResult):
        params["result"] = result.raw or {
            "content": result.content,
            "isError": result.is_error,
            "structuredContent": result.meta,
        }
    elif result is not None:
        params["result"] = dict(result) if isinstance(result, Mapping) else result
    if call_id is not None:
        params["callId"] = call_id
    if session is not None:
        params["session"] = session
    if cwd is not None:
        params["cwd"] = os.fspath(cwd)
    if output is not None:
        params["output"] = output
    return params


def parse_tool_result(result: Mapping[str, Any]) -> ToolResult:
    """Turn a tools/call result object into a ToolResult.

    A plain dict becomes raw itself, not a copy: every caller passes one
    just decoded from the wire that nothing else holds (issue 16).
    """
    content = result.get("content")
    # Nearly every result is one text part: take it without the general
    # pass (issue 16).
    if not (
        type(content) is list
        and len(content) == 1
        and type(part := content[0]) is dict
        and part.get("type") == "text"
        and type(text := part.get("text")) is str
    ):
        if not isinstance(content, list):
            raise ProtocolError(f"a tools/call result has no content list: {dict(result)!r:.200}")
        texts = [
            part["text"]
            for part in content
            if isinstance(part, dict)
            and part.get("type") == "text"
            and isinstance(part.get("text"), str)
        ]
        text = texts[0] if len(texts) == 1 else "\n".join(texts)
    structured = result.get("structuredContent")
    meta = result.get("_meta")
    presentation = meta.get("presentation") if isinstance(meta, dict) else None
    # What the dataclass's __init__ would set, without its six
    # object.__setattr__ calls: one per call adds up (issue 16).
    made = _new_result(ToolResult)
    made.__dict__.update(
        text=text,
        is_error=result.get("isError") is True,
        meta=dict(structured) if isinstance(structured, dict) else {},
        presentation=dict(presentation) if isinstance(presentation, dict) else {},
        content=list(content),
        raw=result if type(result) is dict else dict(result),
    )
    return made


_new_result = object.__new__


def list_tools(
    conn: Connection, format: str, strict: bool, session: str | None
) -> list[dict[str, Any]]:
    """tools/list over conn: the runtime's definitions, or one session's."""
    params: dict[str, Any] = {"format": format}
    if strict:
        params["strict"] = True
    if session is not None:
        params["session"] = session
    result = conn.call("tools/list", params)
    tools = result.get("tools")
    if not isinstance(tools, list):
        raise ProtocolError(f"tools/list answered without a tools list: {result!r:.200}")
    return tools
