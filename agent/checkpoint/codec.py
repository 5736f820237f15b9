"""Byte formats of stored values and the tuple decoder (no I/O).

* value: ``type NUL crc32 payload`` around a serializer's ``dumps_typed`` result; the
  CRC32 turns a corrupted or truncated value into a clear error instead of garbage.
* row (``c:CID``): ASCII header line ``r=RUN F1 F2 ...`` (run id and referenced blob
  fields, percent-encoded, so Lua and Python can read them without msgpack), then
  msgpack ``[cid, state, parent]`` where ``state`` is one value holding
  ``[checkpoint without channel values, metadata]``.
* write: msgpack ``[task_id, channel, task_path, idx, value]``; the packed mirror
  ``wp:CID`` is a msgpack array of those, built by the PUT_WRITES script.
"""

from __future__ import annotations

import functools
import struct
import zlib
from collections.abc import Mapping, Sequence
from typing import Any

import ormsgpack
from langgraph.checkpoint.base import PendingWrite, writes_sort_key
from langgraph.checkpoint.serde.base import SerializerProtocol

from agent.errors import StoreError

EMPTY = "empty"  # marker type: the channel has a version but no value (as InMemorySaver)
_CRC = struct.Struct(">I")
_EMPTY_PREFIX = EMPTY.encode() + b"\x00"
_IMMUTABLE = frozenset({str, int, float, bool, bytes, type(None)})


class CorruptCheckpointError(StoreError):
    """A stored checkpoint, blob or write cannot be decoded."""


class BadValueError(Exception):
    """Why a value failed to decode; callers add where it was stored."""


def encode_typed(typed: tuple[str, bytes]) -> bytes:
    """Frame a ``dumps_typed`` result as ``type NUL crc32 payload``."""
    type_, data = typed
    return type_.encode() + b"\x00" + _CRC.pack(zlib.crc32(data)) + data


EMPTY_VALUE = encode_typed((EMPTY, b""))


def unframe(raw: bytes) -> tuple[str, bytes]:
    """Invert :func:`encode_typed`; raises :class:`BadValueError`."""
    i = raw.find(b"\x00")
    if i < 0 or len(raw) < i + 1 + _CRC.size:
        raise BadValueError("missing type header")
    data = raw[i + 1 + _CRC.size :]
    if _CRC.unpack_from(raw, i + 1)[0] != zlib.crc32(data):
        raise BadValueError("checksum mismatch")
    return raw[:i].decode(errors="replace"), data


def loads(serde: SerializerProtocol, raw: bytes) -> Any:
    """Decode one framed value; raises :class:`BadValueError`."""
    typed = unframe(raw)
    try:
        return serde.loads_typed(typed)
    except Exception as exc:  # serializers raise many types
        raise BadValueError(str(exc)) from exc


@functools.lru_cache(maxsize=8192)
def channel_of(field: bytes) -> str:
    """The channel a blob field ``q(channel):q(version)`` belongs to."""
    from urllib.parse import unquote

    return unquote(field.split(b":", 1)[0].decode())


def encode_row(cid: str, state: bytes, parent: str, run: str, refs: str) -> bytes:
    """The ``c:CID`` string."""
    return f"r={run} {refs}\n".encode() + ormsgpack.packb([cid, state, parent])


def split_row(raw: bytes) -> tuple[str, list[bytes], list[Any]]:
    """``(run, blob fields, [cid, state, parent])`` of a row; raises :class:`BadValueError`."""
    head, sep, body = raw.partition(b"\n")
    if not sep or not head.startswith(b"r="):
        raise BadValueError("bad row header")
    try:
        fields = ormsgpack.unpackb(body)
    except Exception as exc:
        raise BadValueError(f"bad row body: {exc}") from exc
    if not isinstance(fields, list) or len(fields) != 3:
        raise BadValueError("not a checkpoint row")
    run, *refs = head.split(b" ")
    return run[2:].decode(), [r for r in refs if r], fields


def row_refs(raw: bytes) -> list[bytes]:
    """The blob fields a row references (header only, no msgpack)."""
    return raw[: raw.find(b"\n")].split()[1:]


def encode_write(typed: bytes, task_id: str, task_path: str, idx: int, channel: str) -> bytes:
    """One stored pending write."""
    return ormsgpack.packb([task_id, channel, task_path, idx, typed])


def decode_writes(serde: SerializerProtocol, rows: Sequence[Any]) -> list[PendingWrite]:
    """Stored writes in ``writes_sort_key`` order; raises :class:`BadValueError`."""
    try:
        keyed = sorted((writes_sort_key(p, t, i), t, c, v) for t, c, p, i, v in rows)
    except (TypeError, ValueError) as exc:
        raise BadValueError(f"bad write record: {exc}") from exc
    return [(t, c, loads(serde, v)) for _, t, c, v in keyed]


def decode_tuple(
    serde: SerializerProtocol,
    raw: bytes,
    writes: bytes,
    blobs: Mapping[bytes, bytes | None],
    shared: dict[bytes, Any] | None,
) -> tuple[str, dict[str, Any], dict[str, Any], str, list[PendingWrite]]:
    """``(cid, checkpoint, metadata, parent, pending writes)`` of one fetched row.

    ``shared`` caches decoded blobs across rows of one listing, but only immutable
    values, so no two tuples share a mutable object. Raises :class:`BadValueError` with
    the part that failed.
    """
    part = "row"
    try:
        _, refs, (cid, state, parent) = split_row(raw)
        part = "checkpoint"
        checkpoint, metadata = loads(serde, state)
        values: dict[str, Any] = {}
        for field in refs:
            if shared is not None and field in shared:
                values[channel_of(field)] = shared[field]
                continue
            blob = blobs.get(field)
            if blob is None or blob.startswith(_EMPTY_PREFIX):
                continue  # no value at this version (as InMemorySaver)
            part = f"blob {field.decode()}"
            value = loads(serde, blob)
            values[channel_of(field)] = value
            if shared is not None and type(value) in _IMMUTABLE:
                shared[field] = value
        checkpoint["channel_values"] = values
        part = "writes"
        pending = decode_writes(serde, ormsgpack.unpackb(writes)) if writes else []
    except BadValueError as exc:
        raise BadValueError(f"{part}: {exc}") from exc
    except Exception as exc:  # a value decoded to the wrong shape
        raise BadValueError(f"{part}: {type(exc).__name__}: {exc}") from exc
    return cid, checkpoint, metadata, parent, pending
