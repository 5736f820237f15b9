"""The one way KAG runs Cypher: sessions, transactions, driver-error mapping, outages, schema."""
