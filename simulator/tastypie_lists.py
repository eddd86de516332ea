"""List, filter and paging rules shared by every storage service resource.

The storage service lists all its resources the same way: pages of `{meta, objects}`
with at most 1000 objects, filters named `<field>__<lookup>` that each resource allows
field by field, no ordering at all, and `next`/`previous` links that repeat the caller's
query string. This module holds those rules and knows nothing about pipelines or
packages; `simulator.storage_api` describes the resources with `FieldSpec`s.
"""

from __future__ import annotations

import operator
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from itertools import islice
from typing import Any
from urllib.parse import urlencode

# Filtering levels, as a resource's schema shows them.
ALL = 1
ALL_WITH_RELATIONS = 2

DEFAULT_LIMIT = 20
MAX_LIMIT = 1000

NO_DEFAULT = "No default provided."

SUPPORTED_LOOKUPS = frozenset(
    {
        "exact",
        "iexact",
        "contains",
        "icontains",
        "startswith",
        "istartswith",
        "endswith",
        "iendswith",
        "in",
        "gt",
        "gte",
        "lt",
        "lte",
        "range",
        "isnull",
    }
)
# Parts of a date a datetime field can be compared on (`stored_date__year=2026`).
DATE_PARTS: dict[str, Callable[[datetime], int]] = {
    "year": lambda moment: moment.year,
    "month": lambda moment: moment.month,
    "day": lambda moment: moment.day,
    # Django counts Sunday as 1.
    "week_day": lambda moment: moment.isoweekday() % 7 + 1,
    "hour": lambda moment: moment.hour,
    "minute": lambda moment: moment.minute,
    "second": lambda moment: moment.second,
}
# Other Django lookups: recognised as lookups (so never read as a related field)
# but not simulated.
UNSUPPORTED_LOOKUPS = frozenset({"search", "regex", "iregex"})

NULL_WORDS = frozenset({"none", "None", "null", "nil"})


class ListQueryError(ValueError):
    """A list query the service rejects with 400 `{"error": <message>}`."""


def invalid_uuid_message(value: str) -> str:
    # The real message is a repr of a Django ValidationError list, curly quotes included.
    return f"['\u201c{value}\u201d is not a valid UUID.']"


def normalise_uuid(value: str) -> str:
    """The canonical form of a UUID; raises `ListQueryError` when it is not one."""
    try:
        return str(uuid.UUID(value))
    except (ValueError, AttributeError, TypeError):
        raise ListQueryError(invalid_uuid_message(value)) from None


@dataclass(frozen=True)
class FieldSpec:
    """One field of a resource: how filters read it and what its schema says.

    `kind` drives both the schema `type` and how query values are parsed:
    "string", "uuid", "integer", "boolean", "datetime", "dict", "list" or "related".
    `getter` returns the value filters compare (a related object, or a list of
    them for a to_many field); None means filters cannot read the field.
    """

    name: str
    kind: str = "string"
    getter: Callable[[Any], Any] | None = None
    filtering: int | list[str] | None = None
    related: str | None = None
    related_type: str | None = None
    help_text: str = ""
    nullable: bool = False
    readonly: bool = False
    blank: bool = False
    unique: bool = False
    primary_key: bool = False
    default: Any = NO_DEFAULT
    # Fields that exist on the resource (so they can be named in a filter) but
    # are dropped from every object, like a pipeline's api_key.
    hidden: bool = False

    @property
    def schema_type(self) -> str:
        return {"uuid": "string"}.get(self.kind, self.kind)


@dataclass(frozen=True)
class ResourceSpec:
    name: str
    fields: tuple[FieldSpec, ...]
    list_methods: tuple[str, ...] = ("get",)
    detail_methods: tuple[str, ...] = ("get",)
    key_field: str = "uuid"

    def field(self, name: str) -> FieldSpec | None:
        for spec in self.fields:
            if spec.name == name:
                return spec
        return None

    @property
    def filtering(self) -> dict[str, int | list[str]]:
        return {spec.name: spec.filtering for spec in self.fields if spec.filtering is not None}

    @property
    def list_uri(self) -> str:
        return f"/api/v2/{self.name}/"

    def schema(self) -> dict[str, Any]:
        fields: dict[str, Any] = {}
        for spec in sorted(self.fields, key=lambda item: item.name):
            attributes: dict[str, Any] = {
                "blank": spec.blank,
                "default": spec.default,
                "help_text": spec.help_text,
                "nullable": spec.nullable,
                "primary_key": spec.primary_key,
                "readonly": spec.readonly,
                "type": spec.schema_type,
                "unique": spec.unique,
                "verbose_name": spec.name.replace("_", " "),
            }
            if spec.related is not None:
                attributes["related_schema"] = f"/api/v2/{spec.related}/schema/"
                attributes["related_type"] = spec.related_type or "to_one"
            fields[spec.name] = attributes
        return {
            "allowed_detail_http_methods": list(self.detail_methods),
            "allowed_list_http_methods": list(self.list_methods),
            "default_format": "application/json",
            "default_limit": DEFAULT_LIMIT,
            "fields": fields,
            "filtering": self.filtering,
        }


Registry = Mapping[str, ResourceSpec]


@dataclass(frozen=True)
class Filter:
    """One parsed query filter: a chain of fields, a lookup and a parsed value."""

    chain: tuple[FieldSpec, ...]
    lookup: str
    value: Any
    # The key of related objects when the chain ends on a related field
    # (`space=<uuid>` compares the space's uuid).
    related_key: Callable[[Any], Any] | None = None

    @property
    def field_name(self) -> str:
        return self.chain[0].name

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(spec.name for spec in self.chain)

    def values_of(self, obj: Any) -> list[Any]:
        values = [obj]
        for spec in self.chain:
            reached: list[Any] = []
            assert spec.getter is not None
            for item in values:
                got = spec.getter(item)
                if spec.related_type == "to_many":
                    reached.extend(got or [])
                else:
                    reached.append(got)
            values = reached
        if self.related_key is not None:
            values = [None if item is None else self.related_key(item) for item in values]
        return values

    def matches(self, obj: Any) -> bool:
        values = self.values_of(obj)
        if self.lookup == "isnull":
            is_null = not values or all(item is None for item in values)
            return is_null is self.value
        return any(_compare(item, self.lookup, self.value) for item in values)

    def predicate(self) -> Callable[[Any], bool]:
        """`matches` as a closure, specialised for the common one-field lookups
        (lists of 100,000 packages run it once per package)."""
        spec = self.chain[0]
        simple = len(self.chain) == 1 and spec.related is None and spec.getter is not None
        if not simple:
            return self.matches
        get, expected = spec.getter, self.value
        assert get is not None
        if self.lookup == "exact":
            return lambda obj: get(obj) == expected
        if self.lookup == "in":
            return lambda obj: get(obj) in expected
        if self.lookup in _TEXT_TESTS:
            text_test, fold = _TEXT_TESTS[self.lookup]
            wanted = str(expected).lower() if fold else str(expected)

            def textual(obj: Any) -> bool:
                actual = get(obj)
                if actual is None:
                    return False
                text = str(actual)
                return text_test(text.lower() if fold else text, wanted)

            return textual
        if self.lookup in _ORDERING:
            compare = _ORDERING[self.lookup]

            def ordered(obj: Any) -> bool:
                actual = get(obj)
                try:
                    return actual is not None and compare(actual, expected)
                except TypeError:
                    return False

            return ordered
        return self.matches


# Text lookups: (test of (text, wanted), whether case is folded first).
_TEXT_TESTS: dict[str, tuple[Callable[[str, str], bool], bool]] = {
    "iexact": (operator.eq, True),
    "contains": (operator.contains, False),
    "icontains": (operator.contains, True),
    "startswith": (str.startswith, False),
    "istartswith": (str.startswith, True),
    "endswith": (str.endswith, False),
    "iendswith": (str.endswith, True),
}

_ORDERING: dict[str, Callable[[Any, Any], bool]] = {
    "gt": operator.gt,
    "gte": operator.ge,
    "lt": operator.lt,
    "lte": operator.le,
}


def _compare(actual: Any, lookup: str, expected: Any) -> bool:
    if lookup == "exact":
        return bool(actual == expected)
    if lookup == "in":
        return actual in expected
    if actual is None:
        return False
    if lookup in DATE_PARTS:
        return isinstance(actual, datetime) and DATE_PARTS[lookup](actual) == expected
    if lookup in {
        "iexact",
        "contains",
        "icontains",
        "startswith",
        "istartswith",
        "endswith",
        "iendswith",
    }:
        text, wanted = str(actual), str(expected)
        if lookup.startswith("i"):
            text, wanted = text.lower(), wanted.lower()
        if lookup == "iexact":
            return text == wanted
        if lookup in {"contains", "icontains"}:
            return wanted in text
        if lookup in {"startswith", "istartswith"}:
            return text.startswith(wanted)
        return text.endswith(wanted)
    try:
        if lookup in _ORDERING:
            return _ORDERING[lookup](actual, expected)
        if lookup == "range":
            low, high = expected
            return bool(low <= actual <= high)
    except TypeError:
        return False
    return False


MISMATCHED_TYPE = "Invalid resource lookup data provided (mismatched type)."


def _parse_scalar(spec: FieldSpec, raw: str, lookup: str) -> Any:
    if raw in NULL_WORDS and lookup in {"exact", "iexact"}:
        return None
    kind = spec.kind
    text_lookups = {
        "iexact",
        "contains",
        "icontains",
        "startswith",
        "istartswith",
        "endswith",
        "iendswith",
    }
    if lookup in text_lookups:
        return raw
    if lookup in DATE_PARTS:
        if kind != "datetime":
            raise ListQueryError(MISMATCHED_TYPE)
        try:
            return int(raw)
        except ValueError:
            raise ListQueryError(MISMATCHED_TYPE) from None
    if kind in {"uuid", "related"}:
        # Related fields are compared on the related object's uuid: the service's
        # foreign keys point at UUID columns, so a resource URI is not a valid value.
        return normalise_uuid(raw)
    if kind == "integer":
        try:
            return int(raw)
        except ValueError:
            raise ListQueryError(MISMATCHED_TYPE) from None
    if kind == "boolean":
        lowered = raw.lower()
        if lowered in {"true", "1"}:
            return True
        if lowered in {"false", "0"}:
            return False
        raise ListQueryError(MISMATCHED_TYPE)
    if kind == "datetime":
        try:
            parsed = datetime.fromisoformat(raw)
        except ValueError:
            try:
                parsed = datetime.combine(date.fromisoformat(raw), datetime.min.time())
            except ValueError:
                raise ListQueryError(MISMATCHED_TYPE) from None
        # Stored dates are naive server time; compare naive.
        return parsed.replace(tzinfo=None)
    return raw


def _parse_value(spec: FieldSpec, raw_values: list[str], lookup: str) -> Any:
    if lookup == "in":
        items = [part for raw in raw_values for part in raw.split(",")]
        return frozenset(_parse_scalar(spec, item, "exact") for item in items)
    raw = raw_values[-1]
    if lookup == "range":
        parts = raw.split(",")
        if len(parts) != 2:
            raise ListQueryError(MISMATCHED_TYPE)
        return tuple(_parse_scalar(spec, part, "exact") for part in parts)
    if lookup == "isnull":
        return raw.lower() in {"true", "1"}
    return _parse_scalar(spec, raw, lookup)


def _build_filter(
    resource: ResourceSpec,
    registry: Registry,
    name: str,
    raw_values: list[str],
) -> Filter | None:
    bits = name.split("__")
    first = resource.field(bits[0])
    if first is None:
        # Parameters that are not fields (format, username, bogus, ...) are ignored.
        return None
    lookup = "exact"
    if len(bits) > 1 and (
        bits[-1] in SUPPORTED_LOOKUPS or bits[-1] in DATE_PARTS or bits[-1] in UNSUPPORTED_LOOKUPS
    ):
        lookup = bits.pop()
    chain = [first]
    current_resource, current = resource, first
    for bit in bits[1:]:
        _check_filtering(current_resource, current, lookup, has_relation=True)
        assert current.related is not None
        current_resource = registry[current.related]
        following = current_resource.field(bit)
        if following is None or following.getter is None:
            raise ListQueryError(f"The '{bit}' field does not allow filtering.")
        chain.append(following)
        current = following
    _check_filtering(current_resource, current, lookup, has_relation=False)
    if lookup in UNSUPPORTED_LOOKUPS:
        raise ListQueryError(f"The simulator does not support the '{lookup}' lookup.")
    related_key: Callable[[Any], Any] | None = None
    last = chain[-1]
    if last.related is not None:
        key_spec = registry[last.related].field(registry[last.related].key_field)
        assert key_spec is not None and key_spec.getter is not None
        related_key = key_spec.getter
    value = _parse_value(last, raw_values, lookup)
    return Filter(tuple(chain), lookup, value, related_key)


def _check_filtering(
    resource: ResourceSpec, spec: FieldSpec, lookup: str, *, has_relation: bool
) -> None:
    if spec.filtering is None or spec.getter is None:
        raise ListQueryError(f"The '{spec.name}' field does not allow filtering.")
    if isinstance(spec.filtering, list) and lookup not in spec.filtering:
        raise ListQueryError(f"'{lookup}' is not an allowed filter on the '{spec.name}' field.")
    if has_relation and spec.filtering != ALL_WITH_RELATIONS:
        raise ListQueryError(
            f"Lookups are not allowed more than one level deep on the '{spec.name}' field."
        )


def parse_filters(
    resource: ResourceSpec, registry: Registry, pairs: Sequence[tuple[str, str]]
) -> list[Filter]:
    """The filters a query string asks for, in the order they first appear."""
    grouped: dict[str, list[str]] = {}
    for name, value in pairs:
        grouped.setdefault(name, []).append(value)
    filters = []
    for name, values in grouped.items():
        if name == "order_by":
            continue
        built = _build_filter(resource, registry, name, values)
        if built is not None:
            filters.append(built)
    return filters


def check_ordering(resource: ResourceSpec, pairs: Sequence[tuple[str, str]]) -> None:
    """No storage service resource allows ordering; say so the way it does."""
    for name, value in pairs:
        if name != "order_by":
            continue
        field_name = value.lstrip("-").split("__", 1)[0]
        if resource.field(field_name) is None:
            raise ListQueryError(f"No matching '{field_name}' field for ordering on.")
        raise ListQueryError(f"The '{field_name}' field does not allow ordering.")


def _last(pairs: Sequence[tuple[str, str]], name: str) -> str | None:
    found = None
    for key, value in pairs:
        if key == name:
            found = value
    return found


def parse_limit(pairs: Sequence[tuple[str, str]]) -> int:
    raw = _last(pairs, "limit")
    if raw is None:
        return DEFAULT_LIMIT
    try:
        limit = int(raw)
    except ValueError:
        raise ListQueryError(
            f"Invalid limit '{raw}' provided. Please provide a positive integer."
        ) from None
    if limit < 0:
        # The real message carries an HTML-escaped ">".
        raise ListQueryError(
            f"Invalid limit '{raw}' provided. Please provide a positive integer &gt;= 0."
        )
    if limit == 0 or limit > MAX_LIMIT:
        return MAX_LIMIT
    return limit


def parse_offset(pairs: Sequence[tuple[str, str]]) -> int:
    raw = _last(pairs, "offset")
    if raw is None:
        return 0
    try:
        offset = int(raw)
    except ValueError:
        raise ListQueryError(
            f"Invalid offset '{raw}' provided. Please provide an integer."
        ) from None
    if offset < 0:
        raise ListQueryError(
            f"Invalid offset '{raw}' provided. Please provide a positive integer &gt;= 0."
        )
    return offset


@dataclass(frozen=True)
class ListQuery:
    filters: list[Filter] = field(default_factory=list)
    limit: int = DEFAULT_LIMIT
    offset: int = 0


def parse_list_query(
    resource: ResourceSpec, registry: Registry, pairs: Sequence[tuple[str, str]]
) -> ListQuery:
    """Parse a list query in the service's order: filters, then ordering, then paging."""
    filters = parse_filters(resource, registry, pairs)
    check_ordering(resource, pairs)
    return ListQuery(filters=filters, limit=parse_limit(pairs), offset=parse_offset(pairs))


def select_page(
    candidates: Iterable[Any],
    filters: Sequence[Filter],
    *,
    offset: int,
    limit: int,
    total: int | None = None,
) -> tuple[list[Any], int]:
    """The objects of one page and the number of matches.

    Without filters and with a known `total`, only the page is walked. Otherwise
    every candidate is tested once, and only the page's objects are kept.
    """
    if not filters and total is not None:
        return list(islice(candidates, offset, offset + limit)), total
    tests = [check.predicate() for check in filters]
    if not tests:
        matching: Iterable[Any] = candidates
    elif len(tests) == 1:
        matching = filter(tests[0], candidates)
    else:
        matching = (obj for obj in candidates if all(test(obj) for test in tests))
    remaining = iter(matching)
    skipped = sum(1 for _ in islice(remaining, offset))
    page = list(islice(remaining, limit))
    after = sum(1 for _ in remaining)
    return page, skipped + len(page) + after


def _page_uri(list_uri: str, pairs: Sequence[tuple[str, str]], limit: int, offset: int) -> str:
    kept = [(key, value) for key, value in pairs if key not in {"limit", "offset"}]
    kept += [("limit", str(limit)), ("offset", str(offset))]
    return f"{list_uri}?{urlencode(kept)}"


def page_meta(
    list_uri: str,
    pairs: Sequence[tuple[str, str]],
    *,
    limit: int,
    offset: int,
    total: int,
) -> dict[str, Any]:
    """The `meta` block; `next`/`previous` are relative and repeat the whole query,
    credentials included, as the real service does."""
    next_uri = (
        None if offset + limit >= total else _page_uri(list_uri, pairs, limit, offset + limit)
    )
    previous_uri = None if offset - limit < 0 else _page_uri(list_uri, pairs, limit, offset - limit)
    return {
        "limit": limit,
        "next": next_uri,
        "offset": offset,
        "previous": previous_uri,
        "total_count": total,
    }
