"""Scans for erasure tests: every Redis key (name and value, every type) and every Neo4j property.

A marker is found wherever its bytes occur: in a key's name, a string, a hash field or
value, a list/set/zset member, a stream entry's fields; in any string (or list of strings)
property of any node or relationship. Nothing is sampled.
"""

from __future__ import annotations

from typing import Any

import redis.asyncio as aioredis

from agent.resources import Resources

NODE_HITS = """
MATCH (n)
WHERE any(k IN keys(n) WHERE
  (n[k] IS :: STRING AND n[k] CONTAINS $needle)
  OR (n[k] IS :: LIST<STRING> AND any(x IN n[k] WHERE x CONTAINS $needle)))
RETURN labels(n) AS labels, [k IN keys(n) WHERE k <> 'embedding'] AS props
"""
REL_HITS = """
MATCH ()-[r]->()
WHERE any(k IN keys(r) WHERE
  (r[k] IS :: STRING AND r[k] CONTAINS $needle)
  OR (r[k] IS :: LIST<STRING> AND any(x IN r[k] WHERE x CONTAINS $needle)))
RETURN type(r) AS type
"""


async def _values(client: aioredis.Redis, key: bytes) -> list[bytes]:
    kind = (await client.type(key)).decode()
    if kind == "string":
        return [await client.get(key) or b""]
    if kind == "hash":
        return [x for kv in (await client.hgetall(key)).items() for x in kv]
    if kind == "list":
        return await client.lrange(key, 0, -1)
    if kind == "set":
        return list(await client.smembers(key))
    if kind == "zset":
        return await client.zrange(key, 0, -1)
    if kind == "stream":
        return [x for _, fields in await client.xrange(key) for kv in fields.items() for x in kv]
    return []  # vanished meanwhile ("none")


async def redis_hits(redis_url: str, needles: list[str]) -> dict[str, list[str]]:
    """Needle -> the keys whose name or value holds it, over every key of the database."""
    found: dict[str, list[str]] = {n: [] for n in needles}
    client = aioredis.Redis.from_url(redis_url, decode_responses=False)
    try:
        async for key in client.scan_iter(count=1000):
            blob = b"\x00".join([key, *(await _values(client, key))])
            for needle in needles:
                if needle.encode() in blob:
                    found[needle].append(key.decode(errors="replace"))
    finally:
        await client.aclose()
    return found


async def neo4j_hits(resources: Resources, needles: list[str]) -> dict[str, list[Any]]:
    """Needle -> the nodes (labels) and relationships (types) with a property that holds it."""
    found: dict[str, list[Any]] = {}
    for needle in needles:
        nodes, _, _ = await resources.neo4j.execute_query(
            NODE_HITS, needle=needle, database_=resources.database
        )
        rels, _, _ = await resources.neo4j.execute_query(
            REL_HITS, needle=needle, database_=resources.database
        )
        found[needle] = [r["labels"] for r in nodes] + [r["type"] for r in rels]
    return found
