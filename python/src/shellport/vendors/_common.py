"""What the vendor helpers share: reading SDK objects and plain dicts alike."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any


def field(obj: Any, name: str) -> Any:
    """A field of an SDK object (pydantic model) or of a plain dict; None when absent."""
    if isinstance(obj, Mapping):
        return obj.get(name)
    return getattr(obj, name, None)


def items(reply: Any, name: str) -> list[Any]:
    """The list a reply holds under name (a Message's content, a Response's
    output), or the reply itself when it is already that list."""
    if isinstance(reply, (str, bytes)) or reply is None:
        raise TypeError(f"expected a model reply or a list of its {name} items, not {reply!r:.80}")
    # Only a list or tuple is the list itself: an SDK model iterates too,
    # over its fields.
    listed = reply if isinstance(reply, (list, tuple)) else None
    if listed is None:
        listed = field(reply, name)
        if listed is None:
            raise TypeError(
                f"{type(reply).__name__} has no {name!r}: pass the model's reply or its {name} list"
            )
    return list(listed)


def plain(value: Any) -> Any:
    """value as plain JSON data: an SDK object through its JSON dump."""
    dump = getattr(value, "model_dump", None)
    if callable(dump) and not isinstance(value, Mapping):
        return dump(mode="json")
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def json_arguments(raw: Any) -> tuple[dict[str, Any] | None, str]:
    """A function call's arguments (a JSON text) as a dict, or the error the model reads.

    Top-level nulls are dropped: a model in strict mode sends null for the
    arguments it leaves out, and shellport's tools read a missing argument
    as left out.
    """
    if isinstance(raw, Mapping):
        parsed: Any = dict(raw)
    else:
        text = raw if isinstance(raw, str) else ""
        if not text.strip():
            return {}, ""
        try:
            parsed = json.loads(text)
        except json.JSONDecodeError as exc:
            return None, f"invalid arguments: malformed JSON at byte {exc.pos}"
    if not isinstance(parsed, dict):
        return None, f"invalid arguments: expected a JSON object, got {type(parsed).__name__}"
    return {k: v for k, v in parsed.items() if v is not None}, ""
