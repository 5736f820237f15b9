"""Key layout, encoding and validation for the Redis checkpoint saver (no I/O).

Key layout
----------
``P`` is the saver's ``key_prefix`` (default ``kag:ckpt``). ``T`` and ``N`` are the
thread id and checkpoint namespace, percent-encoded (``quote(s, safe="")``), so they
never contain ``:`` and every key below maps back to exactly one (thread, namespace).
The root namespace ``""`` encodes to an empty segment (``P:t:T:n::idx``); a subgraph
namespace such as ``child:abc`` encodes to ``child%3Aabc``. ``CID`` is the raw
checkpoint id; it is always the last segment, so it needs no escaping.

=============================  ======  ==============================================
key                            type    content
=============================  ======  ==============================================
``P:meta``                     hash    ``layout`` version written by ``setup()``
``P:threads``                  set     every ``T`` with data (``list(None)``)
``P:t:T:ns``                   set     every ``N`` used by thread ``T``
``P:t:T:n:N:idx``              zset    checkpoint ids, all score 0: lexicographic
                                       order is creation order (uuid6 ids)
``P:t:T:n:N:c:CID``            hash    ``row``: msgpack [cid, checkpoint (sans
                                       channel values), metadata, parent id, blob
                                       fields], packed at put so reads copy it as is;
                                       ``blobs``: the space-separated blob fields it
                                       references; ``run``: encoded run id or "";
                                       its pending writes as ``w:q(task_id):idx``
                                       fields (one HGETALL reads it all)
``P:t:T:n:N:blobs``            hash    ``q(channel):q(version)`` -> channel value.
                                       Written once per (channel, version), so an
                                       unchanged channel is never rewritten.
``P:run:R``                    set     ``T:N:CID`` of every checkpoint of run ``R``
=============================  ======  ==============================================

Stored values are ``type NUL crc32 payload`` where ``type``/``payload`` come from the
serializer's ``dumps_typed``; the CRC32 turns silent corruption into a clear error.
"""

from __future__ import annotations

import functools
import struct
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, unquote

import ormsgpack
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    WRITES_IDX_MAP,
    BaseCheckpointSaver,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    PendingWrite,
    get_checkpoint_metadata,
    writes_sort_key,
)

from agent.errors import InvalidInputError, StoreError

DEFAULT_PREFIX = "kag:ckpt"
LAYOUT_VERSION = "1"
EMPTY = "empty"  # marker type for a channel with a version but no value (as InMemorySaver)
_CRC = struct.Struct(">I")
_EMPTY_PREFIX = EMPTY.encode() + b"\x00"
_IMMUTABLE = frozenset({str, int, float, bool, bytes, type(None)})


class CorruptCheckpointError(StoreError):
    """A stored checkpoint, blob or write cannot be decoded."""


def q(value: str) -> str:
    """Percent-encode one key segment so it never contains ``:`` or spaces."""
    return quote(value, safe="")


def uq(segment: str | bytes) -> str:
    """Invert :func:`q`."""
    return unquote(segment.decode() if isinstance(segment, bytes) else segment)


def blob_field(channel: str, version: str | int | float) -> str:
    """Hash field of one (channel, version) blob."""
    return f"{q(channel)}:{q(str(version))}"


@functools.lru_cache(maxsize=4096)
def channel_of(field: str | bytes) -> str:
    """The channel a blob field belongs to."""
    text = field.decode() if isinstance(field, bytes) else field
    return uq(text.split(":", 1)[0])


def write_field(task_id: str, idx: int) -> str:
    """Checkpoint-hash field of one pending write; one per (task, idx) as InMemorySaver."""
    return f"w:{q(task_id)}:{idx}"


def encode_typed(typed: tuple[str, bytes]) -> bytes:
    """Frame a ``dumps_typed`` result as ``type NUL crc32 payload``."""
    type_, data = typed
    return type_.encode() + b"\x00" + _CRC.pack(zlib.crc32(data)) + data


def decode_typed(raw: bytes, where: str | Callable[[], str]) -> tuple[str, bytes]:
    """Unframe :func:`encode_typed`; ``where`` (or its thunk) names the key in errors."""
    i = raw.find(b"\x00")
    if i < 0 or len(raw) < i + 1 + _CRC.size:
        raise CorruptCheckpointError(f"corrupted value at {_where(where)}: missing type header")
    data = raw[i + 1 + _CRC.size :]
    if _CRC.unpack_from(raw, i + 1)[0] != zlib.crc32(data):
        raise CorruptCheckpointError(f"corrupted value at {_where(where)}: checksum mismatch")
    return raw[:i].decode(errors="replace"), data


def _where(where: str | Callable[[], str]) -> str:
    return where if isinstance(where, str) else where()


@dataclass(frozen=True)
class Target:
    """A validated (thread, namespace, checkpoint id) taken from a config."""

    thread_id: str
    checkpoint_ns: str
    checkpoint_id: str | None

    def config(self, checkpoint_id: str | None = None) -> RunnableConfig:
        """The canonical config for this target (or for ``checkpoint_id``)."""
        return {
            "configurable": {
                "thread_id": self.thread_id,
                "checkpoint_ns": self.checkpoint_ns,
                "checkpoint_id": checkpoint_id or self.checkpoint_id,
            }
        }


def thread_id_of(value: Any) -> str:
    """Validate a thread id: a non-empty string (ints and UUIDs are stringified)."""
    if isinstance(value, bool) or value is None:
        raise InvalidInputError(f"thread_id must be a non-empty string, got {value!r}")
    if not isinstance(value, str):
        if not hasattr(value, "hex") and not isinstance(value, int):
            raise InvalidInputError(f"thread_id must be a string, got {type(value).__name__}")
        value = str(value)
    if not value:
        raise InvalidInputError("thread_id must be a non-empty string")
    return value


def target_of(config: Any, *, need_id: bool = False) -> Target:
    """Validate ``config["configurable"]`` and return its target."""
    if not isinstance(config, Mapping) or not isinstance(config.get("configurable"), Mapping):
        raise InvalidInputError(
            "config must be a dict with a 'configurable' dict holding 'thread_id', "
            f"got {type(config).__name__}"
        )
    conf = config["configurable"]
    if "thread_id" not in conf:
        raise InvalidInputError("config['configurable'] has no 'thread_id'")
    ns = conf.get("checkpoint_ns", "") or ""
    if not isinstance(ns, str):
        raise InvalidInputError(f"checkpoint_ns must be a string, got {type(ns).__name__}")
    cid = conf.get("checkpoint_id") or None
    if cid is not None and not isinstance(cid, str):
        raise InvalidInputError(f"checkpoint_id must be a string, got {type(cid).__name__}")
    if need_id and cid is None:
        raise InvalidInputError("config['configurable'] has no 'checkpoint_id'")
    return Target(thread_id_of(conf["thread_id"]), ns, cid)


def check_checkpoint(checkpoint: Any, metadata: Any, new_versions: Any) -> None:
    """Reject malformed ``put`` arguments before anything is written."""
    if not isinstance(checkpoint, Mapping):
        raise InvalidInputError(f"checkpoint must be a dict, got {type(checkpoint).__name__}")
    if not isinstance(checkpoint.get("id"), str) or not checkpoint["id"]:
        raise InvalidInputError("checkpoint['id'] must be a non-empty string")
    for name in ("channel_values", "channel_versions"):
        if not isinstance(checkpoint.get(name, {}), Mapping):
            raise InvalidInputError(f"checkpoint[{name!r}] must be a dict")
    if not isinstance(metadata, Mapping):
        raise InvalidInputError(f"metadata must be a dict, got {type(metadata).__name__}")
    if not isinstance(new_versions, Mapping):
        raise InvalidInputError(f"new_versions must be a dict, got {type(new_versions).__name__}")


class RedisCheckpointBase(BaseCheckpointSaver[str]):
    """Key builders and (de)serialisation shared by the sync and async savers."""

    key_prefix: str
    ttl: int | None
    refresh_on_read: bool

    def _init_base(self, key_prefix: str, ttl: int | None, refresh_on_read: bool) -> None:
        if not key_prefix or any(c in key_prefix for c in " *?[]"):
            raise InvalidInputError(f"key_prefix must be non-empty, no glob chars: {key_prefix!r}")
        if ttl is not None and (not isinstance(ttl, int) or ttl <= 0):
            raise InvalidInputError(f"ttl must be a positive number of seconds, got {ttl!r}")
        self.key_prefix = key_prefix.rstrip(":")
        self.ttl = ttl
        self.refresh_on_read = refresh_on_read

    # ---- keys -------------------------------------------------------------------
    def meta_key(self) -> str:
        """Hash holding the layout version."""
        return f"{self.key_prefix}:meta"

    def threads_key(self) -> str:
        """Set of encoded thread ids."""
        return f"{self.key_prefix}:threads"

    def thread_base(self, thread_id: str) -> str:
        """Prefix of every key of one thread."""
        return f"{self.key_prefix}:t:{q(thread_id)}"

    def ns_set_key(self, thread_id: str) -> str:
        """Set of encoded namespaces of one thread."""
        return f"{self.thread_base(thread_id)}:ns"

    def ns_base(self, thread_id: str, checkpoint_ns: str) -> str:
        """Prefix of every key of one (thread, namespace)."""
        return f"{self.thread_base(thread_id)}:n:{q(checkpoint_ns)}"

    def index_key(self, thread_id: str, checkpoint_ns: str) -> str:
        """Sorted set of checkpoint ids."""
        return f"{self.ns_base(thread_id, checkpoint_ns)}:idx"

    def checkpoint_key(self, thread_id: str, checkpoint_ns: str, checkpoint_id: str) -> str:
        """Hash of one checkpoint."""
        return f"{self.ns_base(thread_id, checkpoint_ns)}:c:{checkpoint_id}"

    def blobs_key(self, thread_id: str, checkpoint_ns: str) -> str:
        """Hash of channel values, one field per (channel, version)."""
        return f"{self.ns_base(thread_id, checkpoint_ns)}:blobs"

    def run_key(self, run_id: str) -> str:
        """Set of the checkpoints one run wrote."""
        return f"{self.key_prefix}:run:{q(run_id)}"

    @staticmethod
    def run_member(thread_id: str, checkpoint_ns: str, checkpoint_id: str) -> str:
        """Member of a run set naming one checkpoint."""
        return f"{q(thread_id)}:{q(checkpoint_ns)}:{checkpoint_id}"

    # ---- serialisation ------------------------------------------------------------
    def dump(self, value: Any) -> bytes:
        """Serialise one value (checkpoint, metadata, channel value or write)."""
        try:
            return encode_typed(self.serde.dumps_typed(value))
        except Exception as exc:  # the serializer raises many types
            raise InvalidInputError(
                f"value of type {type(value).__name__} is not serializable: {exc}"
            ) from exc

    def load(self, raw: bytes, where: str | Callable[[], str]) -> Any:
        """Deserialise :meth:`dump` output; corruption raises CorruptCheckpointError."""
        typed = decode_typed(raw, where)
        try:
            return self.serde.loads_typed(typed)
        except Exception as exc:
            raise CorruptCheckpointError(f"corrupted value at {_where(where)}: {exc}") from exc

    def dump_metadata(self, config: RunnableConfig, metadata: CheckpointMetadata) -> bytes:
        """Serialise metadata merged with config keys, as InMemorySaver does."""
        return self.dump(get_checkpoint_metadata(config, metadata))

    def dump_write(self, task_id: str, task_path: str, idx: int, channel: str, value: Any) -> bytes:
        """One pending write, framed with the fields needed to sort it."""
        typed = encode_typed(self.serde.dumps_typed(value))
        return ormsgpack.packb([task_id, channel, task_path, idx, typed])

    def load_writes(self, raws: Sequence[bytes], where: Callable[[], str]) -> list[PendingWrite]:
        """Decode stored writes into ``writes_sort_key`` order."""
        rows = []
        for raw in raws:
            try:
                task_id, channel, task_path, idx, typed = ormsgpack.unpackb(raw)
            except Exception as exc:
                raise CorruptCheckpointError(f"corrupted write at {where()}: {exc}") from exc
            rows.append((writes_sort_key(task_path, task_id, idx), task_id, channel, typed))
        rows.sort(key=lambda r: r[0])
        return [(tid, ch, self.load(typed, where)) for _, tid, ch, typed in rows]

    @staticmethod
    def pack_row(cid: str, checkpoint: bytes, metadata: bytes, parent: str, fields: str) -> bytes:
        """The ``row`` field of a checkpoint hash."""
        return ormsgpack.packb([cid, checkpoint, metadata, parent, fields])

    def unpack_row(self, raw: bytes | list[Any], where: Callable[[], str]) -> list[Any]:
        """Invert :meth:`pack_row` (``raw`` may come already unpacked inside a FETCH row)."""
        try:
            row = ormsgpack.unpackb(raw) if isinstance(raw, bytes) else raw
        except Exception as exc:
            raise CorruptCheckpointError(f"corrupted row at {where()}: {exc}") from exc
        if not isinstance(row, list) or len(row) != 5:
            raise CorruptCheckpointError(f"corrupted row at {where()}: not a checkpoint row")
        return row

    def make_tuple(
        self,
        target: Target,
        fetched: bytes,
        blobs: Mapping[str, bytes],
        shared: dict[str, Any] | None = None,
    ) -> CheckpointTuple:
        """Build a tuple from a FETCH row: msgpack ``[row, [write, ...]]``.

        ``blobs`` maps blob fields to stored values. ``shared`` caches decoded blobs
        across the rows of one ``list`` call, but only immutable values, so no two
        tuples ever share a mutable object.
        """
        tid, ns = target.thread_id, target.checkpoint_ns
        try:
            packed_row, writes = ormsgpack.unpackb(fetched)
        except Exception as exc:
            raise CorruptCheckpointError(f"corrupted checkpoint in {target}: {exc}") from exc
        cid = "?"
        where = lambda: self.checkpoint_key(tid, ns, cid)  # noqa: E731
        cid, body, meta, parent, fields = self.unpack_row(packed_row, where)
        checkpoint: Checkpoint = self.load(body, where)
        if not isinstance(checkpoint, dict) or "channel_versions" not in checkpoint:
            raise CorruptCheckpointError(f"corrupted value at {where()}: not a checkpoint")
        values: dict[str, Any] = {}
        for field in fields.split():
            if shared is not None and field in shared:
                values[channel_of(field)] = shared[field]
                continue
            raw = blobs.get(field)
            if raw is None or raw.startswith(_EMPTY_PREFIX):
                continue  # no value at this version (as InMemorySaver)
            value = self.load(raw, lambda f=field: f"{self.blobs_key(tid, ns)}[{f}]")
            values[channel_of(field)] = value
            if shared is not None and type(value) in _IMMUTABLE:
                shared[field] = value
        checkpoint["channel_values"] = values
        return CheckpointTuple(
            config=target.config(cid),
            checkpoint=checkpoint,
            metadata=self.load(meta, lambda: f"{where()}[metadata]"),
            parent_config=target.config(parent) if parent else None,
            pending_writes=self.load_writes(writes, where) if writes else [],
        )

    @staticmethod
    def write_idx(channel: str, idx: int) -> int:
        """Index under which a write is stored; special channels use negative slots."""
        return WRITES_IDX_MAP.get(channel, idx)

    def get_next_version(self, current: str | int | None, channel: None) -> str:
        """Monotonic, sortable string versions (same scheme as InMemorySaver)."""
        import random

        if current is None:
            current_v = 0
        elif isinstance(current, int):
            current_v = current
        else:
            current_v = int(current.split(".")[0])
        return f"{current_v + 1:032}.{random.random():016}"


def require_bytes_client(client: Any) -> None:
    """Stored values are binary: a client decoding responses to str would corrupt them."""
    pool = getattr(client, "connection_pool", None)
    kwargs = getattr(pool, "connection_kwargs", {}) or {}
    if kwargs.get("decode_responses"):
        raise InvalidInputError(
            "the checkpoint saver needs a Redis client with decode_responses=False"
        )
