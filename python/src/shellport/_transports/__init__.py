"""Carriers of protocol messages between a Runtime and the Go runtime."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .base import BaseTransport

if TYPE_CHECKING:
    from .cdll import CDLLTransport
    from .mock import MockTransport
    from .stdio import StdioTransport

__all__ = ["BaseTransport", "CDLLTransport", "MockTransport", "StdioTransport"]

# Each transport loads on first use: ctypes, subprocess and the mock's
# inspect are milliseconds of ``import shellport`` that a program using one
# transport pays for the others (issue 16).
_LAZY = {"CDLLTransport": "cdll", "MockTransport": "mock", "StdioTransport": "stdio"}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f".{module}", __name__), name)
