"""Carriers of protocol messages between a Runtime and the Go runtime."""

from .base import BaseTransport
from .cdll import CDLLTransport
from .mock import MockTransport
from .stdio import StdioTransport

__all__ = ["BaseTransport", "CDLLTransport", "MockTransport", "StdioTransport"]
