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
