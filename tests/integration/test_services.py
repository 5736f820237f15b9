"""The real services answer: write, read and clean up in Neo4j and Redis."""

import uuid

from agent.resources import Resources


async def test_neo4j_roundtrip(resources: Resources):
    marker = f"probe-{uuid.uuid4()}"
    driver = resources.neo4j
    await driver.execute_query("CREATE (:KagProbe {id: $id, n: 41})", id=marker, database_=resources.database)
    records, _, _ = await driver.execute_query(
        "MATCH (p:KagProbe {id: $id}) SET p.n = p.n + 1 RETURN p.n AS n",
        id=marker,
        database_=resources.database,
    )
    assert records[0]["n"] == 42
    await driver.execute_query(
        "MATCH (p:KagProbe {id: $id}) DELETE p", id=marker, database_=resources.database
    )
    records, _, _ = await driver.execute_query(
        "MATCH (p:KagProbe {id: $id}) RETURN count(p) AS c", id=marker, database_=resources.database
    )
    assert records[0]["c"] == 0


async def test_neo4j_is_526_community(resources: Resources):
    records, _, _ = await resources.neo4j.execute_query(
        "CALL dbms.components() YIELD versions, edition RETURN versions[0] AS v, edition AS e"
    )
    assert records[0]["v"].startswith("5.26")
    assert records[0]["e"] == "community"


async def test_redis_roundtrip_and_aof(resources: Resources):
    key = f"kag:test:{uuid.uuid4()}"
    await resources.redis.hset(key, mapping={"a": "1"})
    assert await resources.redis.hgetall(key) == {"a": "1"}
    await resources.redis.delete(key)
    assert await resources.redis.exists(key) == 0
    config = await resources.redis.config_get("appendonly")
    assert config["appendonly"] == "yes"


async def test_embeddings_encode_offline(resources: Resources):
    vectors = resources.embeddings.embed_documents(
        ["an inner join keeps matching rows", "bananas are yellow"]
    )
    query = resources.embeddings.embed_query("which join keeps only matching rows?")
    assert len(vectors) == 2 and len(query) == 384
    sims = [sum(a * b for a, b in zip(v, query, strict=True)) for v in vectors]
    assert sims[0] > sims[1] + 0.2
