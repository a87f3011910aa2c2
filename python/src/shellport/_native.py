"""Where the native files are, and every environment variable shellport reads.

Lookup order for each native file: the explicit argument, then the
environment variable, then the file in the package's ``_native/`` directory.
``Runtime(trust_env=False)`` ignores every variable below.

``SHELLPORT_LIBRARY_PATH``
    Path of the shared library (``libshellport.so`` / ``libshellport.dylib``).
``SHELLPORT_BINARY_PATH``
    Path of the ``shellport`` executable for the process transport.
``SHELLPORT_TRANSPORT``
    ``library`` or ``process``: what ``transport="auto"`` picks.
``SHELLPORT_DEBUG``
    ``1`` sends the ``shellport`` logger to standard error at DEBUG,
    ``wire`` every protocol frame too (see ``_debug.py``).

An override that points at nothing raises, naming the variable and the path.

``SHELLPORT_SPAWN_HELPER`` is read by the native runtime itself, not here (see
docs/environment-variables.md); with ``trust_env=False`` the process transport
starts the executable without it, and the library cannot be shielded from it.

The runtime finds ``shellport-spawn-helper`` beside the library or the
executable on its own (on Linux every command runs under it, and a runtime
without it refuses to start); this module only restores its execute bit,
as it does the executable's, when an unpacker dropped it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from . import _debug
from ._debug import ENV_DEBUG
from ._exceptions import BinaryNotFound, LibraryNotFound, ShellportError

ENV_LIBRARY = "SHELLPORT_LIBRARY_PATH"
ENV_BINARY = "SHELLPORT_BINARY_PATH"
ENV_TRANSPORT = "SHELLPORT_TRANSPORT"
ENV_SPAWN_HELPER = "SHELLPORT_SPAWN_HELPER"

TRANSPORTS = ("library", "process")

# The native files' directory, as a str: pathlib is a few milliseconds of
# ``import shellport`` that nothing here needs (issue 16). NATIVE_DIR, the
# same as a Path, is made on first use (see __getattr__).
_NATIVE_DIR = os.path.join(os.path.dirname(os.path.realpath(__file__)), "_native")
if TYPE_CHECKING:
    from pathlib import Path

    NATIVE_DIR: Path
BINARY_NAME = "shellport"
HELPER_NAME = "shellport-spawn-helper"
# The persistent shell's turn builtin (Linux), found by the runtime beside
# the helper; optional: without it the shell runs its loop as shell commands.
BASH_TURN_NAME = "shellport-bash-turn.so"

_USUAL_CAUSES = (
    "The usual causes: the package was installed from a source checkout whose native "
    "files were never built (run `make native` in the repository), or a virtualenv or "
    "site-packages directory was copied between machines of different platforms (for "
    "example from macOS into a Linux container); reinstall shellport on this machine."
)


@dataclass(frozen=True)
class Settings:
    """What the environment asks for, read once per Runtime."""

    library_path: str | None = None
    binary_path: str | None = None
    transport: str | None = None
    #: From SHELLPORT_DEBUG: None, "debug" or "wire" (see _debug.py).
    debug: str | None = None


@dataclass(frozen=True)
class Located:
    """A native file and whether it is the package's own (version-checked)."""

    path: str
    bundled: bool


def read_settings(trust_env: bool, environ: Mapping[str, str] | None = None) -> Settings:
    """Read the SHELLPORT_* variables, or none of them when trust_env is false."""
    if not trust_env:
        return Settings()
    env = os.environ if environ is None else environ
    transport = env.get(ENV_TRANSPORT) or None
    if transport is not None and transport not in TRANSPORTS:
        raise ShellportError(
            f"{ENV_TRANSPORT}={transport!r} is not a transport shellport knows; "
            f"set it to one of {', '.join(TRANSPORTS)}, or unset it."
        )
    debug = _debug.parse(env.get(ENV_DEBUG, ""))
    if debug is not None:
        _debug.enable(debug)
    return Settings(
        library_path=env.get(ENV_LIBRARY) or None,
        binary_path=env.get(ENV_BINARY) or None,
        transport=transport,
        debug=debug,
    )


def platform_tag() -> str:
    """Name this platform the way the wheel tags do, for error messages."""
    machine = _machine().lower() or "unknown"
    if sys.platform == "darwin":
        return f"macosx-{machine}"
    if sys.platform.startswith("linux"):
        libc = "manylinux" if libc_is_glibc() else "musllinux"
        return f"{libc}-{machine}"
    return f"{sys.platform}-{machine}"


def _machine() -> str:
    # os.uname is what platform.machine reads, without loading platform
    # with the package (issue 16); Windows has no uname.
    uname = getattr(os, "uname", None)
    if uname is not None:
        return str(uname().machine)
    import platform

    return platform.machine()


_glibc: bool | None = None


def libc_is_glibc() -> bool:
    """Report whether this Linux process runs on glibc (cached; False elsewhere)."""
    global _glibc
    if _glibc is None:
        import platform  # loaded here, not with the package (issue 16)

        _glibc = sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc"
    return _glibc


def library_filename() -> str:
    """The shared library's file name on this platform."""
    return "libshellport.dylib" if sys.platform == "darwin" else "libshellport.so"


def library_supported() -> str | None:
    """Return why the library transport cannot work on this platform, or None."""
    if sys.platform == "darwin":
        return None
    if sys.platform.startswith("linux"):
        if libc_is_glibc():
            return None
        return (
            "this Linux is not glibc-based (musl?), and a Go shared library cannot be "
            "loaded there (golang/go#54805)"
        )
    return f"shellport ships no shared library for {platform_tag()}"


def find_library(explicit: str | os.PathLike[str] | None, settings: Settings) -> Located:
    """Locate the shared library, or raise LibraryNotFound saying why."""
    found = _find(explicit, settings.library_path, ENV_LIBRARY, library_filename(), LibraryNotFound)
    _helper_beside(found.path, LibraryNotFound)
    return found


def find_binary(explicit: str | os.PathLike[str] | None, settings: Settings) -> Located:
    """Locate the runtime executable, or raise BinaryNotFound saying why."""
    found = _find(explicit, settings.binary_path, ENV_BINARY, BINARY_NAME, BinaryNotFound)
    _ensure_executable(found.path, BinaryNotFound)
    _helper_beside(found.path, BinaryNotFound)
    return found


def _helper_beside(native: str, error: type[LibraryNotFound] | type[BinaryNotFound]) -> None:
    """Make the spawn helper beside a native file executable, if it is there."""
    helper = os.path.join(os.path.dirname(native), HELPER_NAME)
    if os.path.isfile(helper):
        _ensure_executable(helper, error)


def _find(
    explicit: str | os.PathLike[str] | None,
    from_env: str | None,
    variable: str,
    filename: str,
    error: type[LibraryNotFound] | type[BinaryNotFound],
) -> Located:
    if explicit is not None:
        path = os.fspath(explicit)
        if not os.path.isfile(path):
            raise error(f"{filename} was given as {path!r}, but no file is there.")
        return Located(os.path.abspath(path), bundled=False)
    if from_env is not None:
        if not os.path.isfile(from_env):
            raise error(
                f"{variable} is set to {from_env!r}, but no file is there; "
                f"point it at a built {filename}, or unset it to use the bundled one."
            )
        return Located(os.path.abspath(from_env), bundled=False)
    # NATIVE_DIR when it was set (tests point it elsewhere), else the default.
    bundled = os.path.join(os.fspath(globals().get("NATIVE_DIR", _NATIVE_DIR)), filename)
    if not os.path.isfile(bundled):
        raise error(
            f"the bundled {filename} is missing: expected {bundled!r}, built for "
            f"{platform_tag()}. {_USUAL_CAUSES} To use a file elsewhere, set {variable}."
        )
    return Located(bundled, bundled=True)


def _ensure_executable(
    path: str, error: type[LibraryNotFound] | type[BinaryNotFound] = BinaryNotFound
) -> None:
    """Restore the execute bit once if an unpacker dropped it."""
    if os.access(path, os.X_OK):
        return
    try:
        mode = os.stat(path).st_mode
        os.chmod(path, mode | 0o111)
    except OSError as exc:
        raise error(f"{path!r} is not executable and cannot be made so: {exc}") from exc


def foreign_file_hint(path: str) -> str:
    """The sentence added when a native file exists but will not load or run."""
    return f"{path!r} is probably built for another platform than {platform_tag()}. {_USUAL_CAUSES}"


def __getattr__(name: str) -> Any:
    if name == "NATIVE_DIR":
        from pathlib import Path

        return Path(_NATIVE_DIR)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
