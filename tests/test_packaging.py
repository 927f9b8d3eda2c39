"""The package's own metadata builds without the deprecation warnings setuptools turns into
errors later (a `project.license` table stops building after 2027-02-18)."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_pyproject_builds_its_metadata_without_deprecations() -> None:
    pyprojecttoml = pytest.importorskip("setuptools.config.pyprojecttoml")
    from setuptools.dist import Distribution

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        dist = pyprojecttoml.apply_configuration(Distribution(), ROOT / "pyproject.toml")
    assert dist.metadata.license_expression == "GPL-2.0-or-later"
