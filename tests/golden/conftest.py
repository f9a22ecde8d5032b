"""The golden tests' browser fixtures are the viewer tests' (one Chromium per session)."""

from tests.view.conftest import (  # noqa: F401
    browser,
    pytest_runtest_makereport,
    shared_page,
    viewer,
)
