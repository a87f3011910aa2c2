"""__all__ is exactly the public names, sorted case-insensitively (house rule 12)."""

import shellport


def test_all_is_the_public_names() -> None:
    public = {name for name in dir(shellport) if not name.startswith("_")}
    assert set(shellport.__all__) - {"__version__"} == public


def test_all_is_sorted_case_insensitively() -> None:
    assert shellport.__all__ == sorted(shellport.__all__, key=str.lower)


def test_public_classes_live_in_the_package_namespace() -> None:
    for name in shellport.__all__:
        obj = getattr(shellport, name)
        if isinstance(obj, type):
            assert obj.__module__ == "shellport", name


def test_version() -> None:
    assert shellport.__version__ == "0.1.0"


def test_import_leaves_remote_and_vendors_for_first_use() -> None:
    """Issue 16: most of the cold import was shellport.remote and shellport.vendors."""
    import subprocess
    import sys

    code = (
        "import sys, shellport\n"
        "assert 'shellport.remote' not in sys.modules, 'remote loaded'\n"
        "assert 'shellport.vendors' not in sys.modules, 'vendors loaded'\n"
        "assert shellport.remote.docker and shellport.vendors.anthropic\n"
        "from shellport import remote, vendors\n"
        "assert remote is shellport.remote and vendors is shellport.vendors\n"
        "assert {'remote', 'vendors'} <= set(dir(shellport))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


def test_import_leaves_transports_and_logging_for_first_use() -> None:
    """Issue 16: ctypes, subprocess, logging, concurrent.futures and pathlib were
    milliseconds each of the cold import; a program pays for what it uses."""
    import subprocess
    import sys

    code = (
        "import sys, shellport\n"
        "heavy = ('ctypes', 'subprocess', 'logging', 'concurrent.futures', 'pathlib',\n"
        "         'shellport._transports.cdll', 'shellport._transports.stdio',\n"
        "         'shellport._transports.mock')\n"
        "loaded = [m for m in heavy if m in sys.modules]\n"
        "assert not loaded, loaded\n"
        "import shellport._transports.stdio as stdio  # loaded the way Runtime loads it\n"
        "assert stdio.StdioTransport.__module__ == 'shellport'\n"
        "from shellport import CDLLTransport, MockTransport, StdioTransport\n"
        "for cls in (CDLLTransport, MockTransport, StdioTransport):\n"
        "    assert cls.__module__ == 'shellport', cls\n"
        "    assert issubclass(cls, shellport.BaseTransport), cls\n"
        "import shellport._transports as t, shellport._transports.cdll as cdll\n"
        "assert t.CDLLTransport is cdll.CDLLTransport is shellport.CDLLTransport\n"
        "assert str(shellport._native.NATIVE_DIR).endswith('_native')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


def test_records_reach_logging_imported_after_shellport() -> None:
    """Issue 16: shellport no longer imports logging; an application that
    imports and configures it later still gets the shellport records."""
    import os
    import subprocess
    import sys

    code = (
        "import sys, shellport\n"
        "assert 'logging' not in sys.modules\n"
        "import logging\n"
        "records = []\n"
        "class H(logging.Handler):\n"
        "    def emit(self, r): records.append(r)\n"
        "logging.getLogger('shellport').addHandler(H())\n"
        "logging.getLogger('shellport').setLevel(logging.DEBUG)\n"
        "with shellport.Runtime() as rt:  # SHELLPORT_TRANSPORT=process: logged at DEBUG\n"
        "    assert rt.transport_name == 'process'\n"
        "assert any(r.name == 'shellport' for r in records), records\n"
        "assert any(isinstance(h, logging.NullHandler)\n"
        "           for h in logging.getLogger('shellport').handlers)\n"
    )
    env = dict(os.environ, SHELLPORT_TRANSPORT="process")
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, env=env
    )
    assert done.returncode == 0, done.stderr
