"""SHELLPORT_DEBUG: the ``shellport`` loggers, to standard error, without code.

The package logs through the standard ``logging`` module and adds no
handler of its own (only a NullHandler), as a library should: configure
``logging.getLogger("shellport")`` like any other logger. Two loggers:

``shellport``
    DEBUG: which transport was chosen and why (``auto`` falling back to the
    executable, an address-space limit), the runtime starting and closing,
    a connection ending.
``shellport.wire``
    DEBUG: every protocol frame, both ways (``-> {...}`` sent, ``<- {...}``
    received; frames over 64 KiB are clipped). A child of ``shellport``, so
    enabling DEBUG there enables it too unless its own level is raised.

``SHELLPORT_DEBUG`` turns them on for people who cannot change the code
(a comma-separated list; empty, ``0``, ``false``, ``no`` and ``off`` mean
nothing): ``1`` (or ``true``, ``yes``, ``on``, ``debug``) the ``shellport``
logger at DEBUG without frames, ``wire`` with frames. It attaches one
handler that writes to the current standard error. Any other word raises
ShellportError at ``Runtime()``, naming the values that work.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from ._exceptions import ShellportError

if TYPE_CHECKING:
    import logging

ENV_DEBUG = "SHELLPORT_DEBUG"

OFF = ("", "0", "false", "no", "off")
ON = ("1", "true", "yes", "on", "debug")
WIRE = "wire"

DEBUG = 10  # logging.DEBUG, without importing logging


class _Logger:
    """``logging.getLogger(name)``, without importing ``logging`` for it.

    Importing logging is several milliseconds of ``import shellport`` (issue
    16), and a record can only reach someone who configured logging, which
    imports it. So while ``logging`` is not imported, every record is
    dropped, as the NullHandler below would drop it; once it is (by the
    application, a test's caplog, or enable()), each method goes to the
    real logger, which gets the NullHandler the moment it is first made.
    """

    __slots__ = ("_logger", "_name")

    def __init__(self, name: str) -> None:
        self._name = name
        self._logger: logging.Logger | None = None

    def get(self) -> logging.Logger | None:
        """The real logger, or None while nobody can be listening."""
        if self._logger is None:
            logging = sys.modules.get("logging")
            if logging is None:
                return None
            self._logger = logging.getLogger(self._name)
            if self._name == "shellport":
                self._logger.addHandler(logging.NullHandler())
        return self._logger

    def real(self) -> logging.Logger:
        """The real logger, importing logging if it is not yet."""
        import logging  # noqa: F401 - get() finds it in sys.modules

        logger = self.get()
        assert logger is not None
        return logger

    def isEnabledFor(self, level: int) -> bool:
        # Asked on every call: the real logger once made, without get().
        logger = self._logger
        if logger is None:
            if "logging" not in sys.modules:
                return False  # nobody can be listening (see get)
            logger = self.get()
            assert logger is not None
        return logger.isEnabledFor(level)

    def debug(self, msg: str, *args: Any, **kwargs: Any) -> None:
        logger = self.get()
        if logger is not None:
            logger.debug(msg, *args, **kwargs)

    def warning(self, msg: str, *args: Any, **kwargs: Any) -> None:
        logger = self.get()
        if logger is not None:
            logger.warning(msg, *args, **kwargs)


log = _Logger("shellport")
wire_log = _Logger("shellport.wire")

_handler: logging.Handler | None = None


def parse(value: str) -> str | None:
    """Return None (off), "debug" or "wire" for a SHELLPORT_DEBUG value, or raise."""
    words = {w.strip().lower() for w in value.split(",")} - {""}
    unknown = sorted(w for w in words if w not in OFF and w not in ON and w != WIRE)
    if unknown:
        raise ShellportError(
            f"{ENV_DEBUG}={value!r} names {', '.join(map(repr, unknown))}, which shellport "
            f"does not know; use 1 (the shellport logger at DEBUG on stderr), wire (the "
            f"same with every protocol frame), or 0 (off)"
        )
    if WIRE in words:
        return WIRE
    if words & set(ON):
        return "debug"
    return None


def enable(level: str) -> None:
    """Send the shellport loggers to stderr at DEBUG; frames too for "wire"."""
    import logging

    class _StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
        """Writes to whatever sys.stderr is at the time of each record."""

        def emit(self, record: logging.LogRecord) -> None:
            self.stream = sys.stderr  # emit runs under the handler's lock
            super().emit(record)

    global _handler
    if _handler is None:
        _handler = _StderrHandler()
        _handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))
        log.real().addHandler(_handler)
    log.real().setLevel(logging.DEBUG)
    wire_log.real().setLevel(logging.DEBUG if level == WIRE else logging.INFO)


def disable() -> None:
    """Undo enable(): remove the stderr handler and reset both levels."""
    global _handler
    if _handler is not None:
        log.real().removeHandler(_handler)
        _handler = None
    for logger in (log.get(), wire_log.get()):
        if logger is not None:
            logger.setLevel(0)  # logging.NOTSET
