from __future__ import annotations

import pytest

from tests.firmware_bridge.micropython import runner


@pytest.fixture(scope="session")
def micropython() -> str:
    """The pinned MicroPython port's version; a missing Node or package fails the test, never skips it."""
    try:
        return runner.check_installed()
    except runner.MicroPythonUnavailable as exc:
        pytest.fail(str(exc), pytrace=False)
