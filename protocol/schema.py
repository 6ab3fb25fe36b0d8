"""Strict checking of decoded maps against message dataclasses.

A message class is a frozen dataclass whose field types are drawn from a small set (str, int, float,
bool, dict, list, None, a nested message dataclass, and unions of these); sizes come from each
field's metadata. `build` turns a decoded map into an instance or raises `ProtocolError` naming the
field, so the server never meets a value of a type it did not expect.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from typing import Any

from .errors import ErrorCode, ProtocolError

_SCALARS = (str, int, float, bool, dict, list, type(None))


def text(max_len: int, *, min_len: int = 1, default: Any = dataclasses.MISSING) -> Any:
    """A string field of `min_len`..`max_len` characters."""
    return dataclasses.field(default=default, metadata={"min": min_len, "max": max_len})


def number(low: float, high: float, *, default: Any = dataclasses.MISSING) -> Any:
    """A numeric field within [low, high]."""
    return dataclasses.field(default=default, metadata={"min": low, "max": high})


def sized(max_items: int, *, default: Any = dataclasses.MISSING) -> Any:
    """A map or list field of at most `max_items` entries (its contents are checked elsewhere)."""
    return dataclasses.field(default=default, metadata={"max": max_items})


def _alternatives(hint: Any) -> tuple[Any, ...]:
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        return typing.get_args(hint)
    return (hint,)


class Schema:
    """The checked fields of one dataclass: name -> (accepted types, metadata, required)."""

    def __init__(self, cls: type) -> None:
        hints = typing.get_type_hints(cls)
        self.cls = cls
        self.fields: dict[str, tuple[tuple[Any, ...], Any, bool]] = {}
        for f in dataclasses.fields(cls):
            if not f.init:
                continue
            accepted = _alternatives(hints[f.name])
            for kind in accepted:
                if kind not in _SCALARS and not dataclasses.is_dataclass(kind):
                    raise TypeError(f"{cls.__name__}.{f.name}: unsupported field type {kind!r}")
            required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
            self.fields[f.name] = (accepted, f.metadata, required)

    def build(self, data: dict[str, Any], *, where: str = "") -> Any:
        """An instance of the dataclass from `data`, or `ProtocolError` naming the bad field."""
        for key in data:
            if key not in self.fields:
                raise ProtocolError(ErrorCode.BAD_FIELD, f"unknown field {where + str(key)!r}", field=where + str(key))
        values = {}
        for name, (accepted, meta, required) in self.fields.items():
            if name not in data:
                if required:
                    raise ProtocolError(ErrorCode.MISSING_FIELD, f"field {where + name!r} is required",
                                        field=where + name)
                continue
            values[name] = _check(data[name], accepted, meta, where + name)
        return self.cls(**values)


_SCHEMAS: dict[type, Schema] = {}


def schema_of(cls: type) -> Schema:
    """The (cached) schema of a message dataclass."""
    found = _SCHEMAS.get(cls)
    if found is None:
        found = _SCHEMAS[cls] = Schema(cls)
    return found


def _type_name(kind: Any) -> str:
    names = {str: "a string", int: "an integer", float: "a number", bool: "true or false",
             dict: "a map", list: "a list", type(None): "null"}
    return names.get(kind) or f"a {kind.__name__} map"


def _check(value: Any, accepted: tuple[Any, ...], meta: Any, name: str) -> Any:
    for kind in accepted:
        if kind is type(None) and value is None:
            return None
        if kind is bool and isinstance(value, bool):
            return value
        if isinstance(value, bool):
            continue
        if kind is int and isinstance(value, int):
            return _bounded(value, meta, name)
        if kind is float and isinstance(value, (int, float)):
            if not math.isfinite(value):
                raise ProtocolError(ErrorCode.BAD_FIELD, f"field {name!r} must be a finite number", field=name)
            return _bounded(float(value), meta, name)
        if kind is str and isinstance(value, str):
            return _sized(value, meta, name, "characters")
        if kind is dict and isinstance(value, dict):
            return _sized(value, meta, name, "entries")
        if kind is list and isinstance(value, list):
            return _sized(value, meta, name, "entries")
        if dataclasses.is_dataclass(kind) and isinstance(value, dict):
            return schema_of(kind).build(value, where=name + ".")
    wanted = " or ".join(_type_name(kind) for kind in accepted)
    raise ProtocolError(ErrorCode.BAD_FIELD, f"field {name!r} must be {wanted}", field=name)


def _bounded(value: float, meta: Any, name: str) -> Any:
    low, high = meta.get("min"), meta.get("max")
    if (low is not None and value < low) or (high is not None and value > high):
        raise ProtocolError(ErrorCode.BAD_FIELD, f"field {name!r} must be between {low} and {high}", field=name)
    return value


def _sized(value: Any, meta: Any, name: str, unit: str) -> Any:
    low, high = meta.get("min", 0), meta.get("max")
    if len(value) < low:
        raise ProtocolError(ErrorCode.BAD_FIELD, f"field {name!r} must have at least {low} {unit}", field=name)
    if high is not None and len(value) > high:
        raise ProtocolError(ErrorCode.BAD_FIELD, f"field {name!r} must have at most {high} {unit}", field=name)
    return value
