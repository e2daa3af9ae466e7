"""ctest python_module: pytest on src/python/tests, or exit 77 (skipped) with the reason when
numpy, pandas or pytest is not installed for this Python (Debian: python3-numpy, python3-pandas,
python3-pytest)."""
import importlib.util
import sys

missing = [m for m in ("numpy", "pandas", "pytest") if importlib.util.find_spec(m) is None]
if missing:
    print(f"SKIP: {sys.executable} has no {', '.join(missing)}")
    sys.exit(77)
import pytest  # noqa: E402

sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", *sys.argv[1:]]))
