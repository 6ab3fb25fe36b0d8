"""Without Chromium the browser tests skip on a developer's machine and fail in CI (`CI=true`),
so a CI image that lost its browser cannot pass by skipping every browser test."""

from __future__ import annotations

import pytest

from . import conftest


@pytest.fixture
def no_chromium(monkeypatch):
    monkeypatch.setattr(conftest.os, "access", lambda path, mode: False)
    monkeypatch.setattr(conftest.shutil, "which", lambda name: None)


def test_missing_chromium_fails_in_ci(no_chromium, monkeypatch):
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="apt-get install chromium"):
        conftest.chromium_path()


def test_missing_chromium_skips_elsewhere(no_chromium, monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="apt-get install chromium"):
        conftest.chromium_path()
