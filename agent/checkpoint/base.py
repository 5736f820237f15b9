"""Key layout, encoding and validation for the Redis checkpoint saver (no I/O).

Key layout
----------
``P`` is the saver's ``key_prefix`` (default ``kag:ckpt``). ``T`` and ``N`` are the
thread id and checkpoint namespace, percent-encoded (``quote(s, safe="")``), so they
never contain ``:``, ``{`` or ``}`` and every key below maps back to exactly one
(thread, namespace). The root namespace ``""`` encodes to an empty segment
(``P:{T}:n::idx``); a subgraph namespace such as ``child:abc`` encodes to
``child%3Aabc``. ``CID`` is the raw checkpoint id (a hash field, never part of a key).

Redis Cluster: every key of one thread carries the hash tag ``{T}``, so a thread's
keys share one slot, and every per-checkpoint value is a *field* of a per-namespace
hash, so each Lua script and MULTI/EXEC gets all its keys (a fixed handful per
namespace) through ``KEYS``. The prefix-wide keys (``P:meta``, ``P:threads``,
``P:run:R``, ``P:owned:L``, ``P:unowned``) are written by separate, idempotent
commands: before the thread's transaction on a write (a crash leaves a harmless stale
member, never data nobody can find), after it on a delete.

=============================  ======  ==============================================
key                            type    content
=============================  ======  ==============================================
``P:meta``                     hash    ``layout`` version written by ``setup()``
``P:threads``                  set     every ``T`` with data (``list(None)``)
``P:run:R``                    set     ``T:N:CID`` of every checkpoint of run ``R``
``P:{T}:ns``                   set     every ``N`` used by thread ``T``
``P:{T}:owner``                string  the learner who first wrote the thread
                                       (``agent.checkpoint.owners``)
``P:owned:L``                  set     every ``T`` a write with principal ``L``
                                       touched: the owner index erasure reads
                                       (``agent.checkpoint.erase``)
``P:unowned``                  set     every ``T`` written without a principal
``P:{T}:n:N:idx``              zset    checkpoint ids, all score 0: lexicographic
                                       order is creation order (uuid6 ids)
``P:{T}:n:N:c``                hash    ``CID`` -> the checkpoint row: an ASCII header
                                       line ``r=R F1 F2 ...`` (its run id and the blob
                                       fields it references, all percent-encoded)
                                       then msgpack [cid, [checkpoint without channel
                                       values, metadata], parent id]. A page of rows
                                       is one HMGET.
``P:{T}:n:N:wp``               hash    ``CID`` -> msgpack array of the checkpoint's
                                       pending writes (one HMGET per page)
``P:{T}:n:N:wf``               hash    ``CID`` -> ``field/len ...``: which write
                                       (``q(task_id):idx``) each record of the array
                                       is and its byte length (PUT_WRITES keeps the
                                       first value per field, special writes replace)
``P:{T}:n:N:blobs``            hash    ``q(channel):q(version)`` -> channel value.
                                       Written once per (channel, version), so an
                                       unchanged channel is never rewritten.
=============================  ======  ==============================================

Layout 1 (``P:t:T:...``) is migrated in place by ``setup()`` (``agent.checkpoint.migrate``);
the values' byte formats (CRC-framed, so corruption is a clear error) are in
``agent.checkpoint.codec``. ``put`` and ``copy_thread`` are one MULTI/EXEC on the thread's
keys, ``put_writes``, deletes and prunes one Lua script per thread.

TTL (``ttl`` seconds, off by default): every key a write touches gets EXPIRE (reads re-arm
them with ``refresh_on_read``), so an idle thread expires as a whole; the prefix-wide keys
and owner records never expire (stale members are harmless).

History (``keep`` checkpoints per namespace, off by default): every step writes a new
version of each channel it changed, whole, so an active thread grows by every turn. With
``keep`` set, a put past ``keep`` plus a slack (``ops.trim_due``) trims the namespace to its
newest ``keep`` checkpoints; the learner's memory is in Neo4j, not here.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, unquote

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import WRITES_IDX_MAP, BaseCheckpointSaver, CheckpointTuple

from agent.checkpoint.codec import (
    BadValueError,
    CorruptCheckpointError,
    decode_tuple,
    encode_typed,
    encode_write,
    loads,
)
from agent.checkpoint.owners import config_principal
from agent.errors import InvalidInputError

DEFAULT_PREFIX = "kag:ckpt"
LAYOUT_VERSION = "2"
MAX_PAGE = 1000  # Lua unpack() and reply size stay bounded


@functools.lru_cache(maxsize=65536)
def q(value: str) -> str:
    """Percent-encode one key segment so it never contains ``:`` or spaces.

    Cached: a checkpoint names every channel version it references, so the same few
    hundred segments (channels, versions, thread ids) are quoted many times a step.
    """
    return quote(value, safe="")


def uq(segment: str | bytes) -> str:
    """Invert :func:`q`."""
    return unquote(segment.decode() if isinstance(segment, bytes) else segment)


def blob_field(channel: str, version: str | int | float) -> str:
    """Hash field of one (channel, version) blob."""
    return f"{q(channel)}:{q(str(version))}"


def write_field(task_id: str, idx: int) -> str:
    """Writes-hash field of one pending write; one per (task, idx) as in InMemorySaver."""
    return f"{q(task_id)}:{idx}"


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
    keep: int | None
    refresh_on_read: bool
    list_page_size: int

    def _init_base(
        self,
        key_prefix: str,
        ttl: int | None,
        refresh_on_read: bool,
        list_page_size: int,
        principal: Callable[[RunnableConfig | None], str | None] | None = None,
        keep: int | None = None,
    ) -> None:
        if not key_prefix or any(c in key_prefix for c in " *?[]{}"):
            raise InvalidInputError(f"key_prefix must be non-empty, no glob chars or braces: {key_prefix!r}")
        if ttl is not None and (isinstance(ttl, bool) or not isinstance(ttl, int) or ttl <= 0):
            raise InvalidInputError(f"ttl must be a positive number of seconds, got {ttl!r}")
        if keep is not None and (isinstance(keep, bool) or not isinstance(keep, int) or keep < 1):
            raise InvalidInputError(f"keep must be a positive number of checkpoints, got {keep!r}")
        if not 1 <= list_page_size <= MAX_PAGE:
            raise InvalidInputError(f"list_page_size must be 1..{MAX_PAGE}, got {list_page_size}")
        self.list_page_size = list_page_size
        self.key_prefix = key_prefix.rstrip(":")
        self.ttl = ttl
        self.keep = keep
        self.refresh_on_read = refresh_on_read
        # Who is asking (see agent.checkpoint.owners); None means nobody is checked.
        self.principal = principal or config_principal

    # ---- keys -------------------------------------------------------------------
    def meta_key(self) -> str:
        """Hash holding the layout version."""
        return f"{self.key_prefix}:meta"

    def threads_key(self) -> str:
        """Set of encoded thread ids (prefix-wide: never in a thread's transaction)."""
        return f"{self.key_prefix}:threads"

    def thread_base(self, thread_id: str) -> str:
        """Prefix of every key of one thread; ``{T}`` is its Redis Cluster hash tag."""
        return f"{self.key_prefix}:{{{q(thread_id)}}}"

    def ns_set_key(self, thread_id: str) -> str:
        """Set of encoded namespaces of one thread."""
        return f"{self.thread_base(thread_id)}:ns"

    def ns_base(self, thread_id: str, checkpoint_ns: str) -> str:
        """Prefix of every key of one (thread, namespace)."""
        return f"{self.thread_base(thread_id)}:n:{q(checkpoint_ns)}"

    def index_key(self, thread_id: str, checkpoint_ns: str) -> str:
        """Sorted set of checkpoint ids."""
        return f"{self.ns_base(thread_id, checkpoint_ns)}:idx"

    def rows_key(self, thread_id: str, checkpoint_ns: str) -> str:
        """Hash of checkpoint rows, one field per checkpoint id."""
        return f"{self.ns_base(thread_id, checkpoint_ns)}:c"

    def packed_writes_key(self, thread_id: str, checkpoint_ns: str) -> str:
        """Hash of each checkpoint's pending writes as one msgpack array."""
        return f"{self.ns_base(thread_id, checkpoint_ns)}:wp"

    def write_fields_key(self, thread_id: str, checkpoint_ns: str) -> str:
        """Hash naming the records of each packed array (``field/len ...``)."""
        return f"{self.ns_base(thread_id, checkpoint_ns)}:wf"

    def blobs_key(self, thread_id: str, checkpoint_ns: str) -> str:
        """Hash of channel values, one field per (channel, version)."""
        return f"{self.ns_base(thread_id, checkpoint_ns)}:blobs"

    def ns_keys(self, thread_id: str, checkpoint_ns: str) -> list[str]:
        """The five keys of one namespace, in the order the Lua scripts take them."""
        return [
            self.index_key(thread_id, checkpoint_ns),
            self.rows_key(thread_id, checkpoint_ns),
            self.packed_writes_key(thread_id, checkpoint_ns),
            self.write_fields_key(thread_id, checkpoint_ns),
            self.blobs_key(thread_id, checkpoint_ns),
        ]

    def owned_key(self, owner: str) -> str:
        """Set of the threads written with principal ``owner`` (prefix-wide, like ``threads``)."""
        return f"{self.key_prefix}:owned:{q(owner)}"

    def unowned_key(self) -> str:
        """Set of the threads written without a principal (prefix-wide)."""
        return f"{self.key_prefix}:unowned"

    def run_key(self, run_id: str) -> str:
        """Set of the checkpoints one run wrote (prefix-wide)."""
        return f"{self.key_prefix}:run:{q(run_id)}"

    @staticmethod
    def run_member(thread_id: str, checkpoint_ns: str, checkpoint_id: str) -> str:
        """Member of a run set naming one checkpoint."""
        return f"{q(thread_id)}:{q(checkpoint_ns)}:{checkpoint_id}"

    # ---- serialisation ------------------------------------------------------------
    def dump(self, value: Any) -> bytes:
        """Serialise one value (checkpoint state, channel value or write)."""
        try:
            return encode_typed(self.serde.dumps_typed(value))
        except Exception as exc:  # the serializer raises many types
            raise InvalidInputError(
                f"value of type {type(value).__name__} is not serializable: {exc}"
            ) from exc

    def load(self, raw: bytes, where: str | Callable[[], str]) -> Any:
        """Deserialise :meth:`dump` output; corruption raises CorruptCheckpointError."""
        try:
            return loads(self.serde, raw)
        except BadValueError as exc:
            place = where if isinstance(where, str) else where()
            raise CorruptCheckpointError(f"corrupted value at {place}: {exc}") from exc

    def dump_write(self, task_id: str, task_path: str, idx: int, channel: str, value: Any) -> bytes:
        """One pending write, framed with the fields needed to sort it."""
        return encode_write(self.dump(value), task_id, task_path, idx, channel)

    def make_tuple(
        self,
        target: Target,
        raw: bytes,
        writes: bytes,
        blobs: Mapping[bytes, bytes | None],
        shared: dict[bytes, Any] | None = None,
    ) -> CheckpointTuple:
        """Build a tuple from a fetched row, its packed writes and the blobs it uses."""
        try:
            cid, checkpoint, metadata, parent, pending = decode_tuple(self.serde, raw, writes, blobs, shared)
        except BadValueError as exc:
            base = self.ns_base(target.thread_id, target.checkpoint_ns)
            raise CorruptCheckpointError(f"corrupted checkpoint data under {base}: {exc}") from exc
        return CheckpointTuple(
            config=target.config(cid),
            checkpoint=checkpoint,
            metadata=metadata,
            parent_config=target.config(parent) if parent else None,
            pending_writes=pending,
        )

    @staticmethod
    def write_idx(channel: str, idx: int) -> int:
        """Index under which a write is stored; special channels use negative slots."""
        return WRITES_IDX_MAP.get(channel, idx)

    def get_next_version(self, current: str | int | None, channel: None) -> str:
        """Monotonic, sortable string versions: ``<10-digit counter>.<8 hex random>``.

        InMemorySaver's scheme (32 digits + a 16-digit random fraction, 49 chars) would
        make channel versions a third of every stored row. The random suffix keeps the
        versions of two forks of one parent distinct, so their blobs never collide. A
        10-digit string always sorts above an older 32-digit one (its leading digits are
        not all zeros), so threads written before the change keep increasing.
        """
        if current is None:
            current_v = 0
        elif isinstance(current, int):
            current_v = current
        else:
            current_v = int(current.split(".")[0])
        return f"{current_v + 1:010}.{random.getrandbits(32):08x}"


def require_bytes_client(client: Any) -> None:
    """Stored values are binary: a client decoding responses to str would corrupt them."""
    pool = getattr(client, "connection_pool", None)
    kwargs = getattr(pool, "connection_kwargs", None)
    if kwargs is None and callable(getattr(client, "get_connection_kwargs", None)):
        kwargs = client.get_connection_kwargs()  # RedisCluster: no single pool
    kwargs = kwargs or {}
    if kwargs.get("decode_responses"):
        raise InvalidInputError("the checkpoint saver needs a Redis client with decode_responses=False")
