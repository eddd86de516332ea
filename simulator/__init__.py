"""Fake workflow and storage services for the demo and the tests (stdlib only)."""

from __future__ import annotations
