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
