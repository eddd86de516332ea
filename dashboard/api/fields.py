"""Serializer fields shared by the API's filters."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers


class CaseInsensitiveChoiceField(serializers.ChoiceField):
    """A choice filter that takes any case: `?status=failed` means `FAILED`."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, str):
            by_lower = {str(key).lower(): key for key in self.choices}
            data = by_lower.get(data.strip().lower(), data)
        return super().to_internal_value(data)
