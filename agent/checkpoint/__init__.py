"""Redis checkpoint saver on plain Redis data types, for a single Redis or a Redis Cluster."""

from agent.checkpoint.aio import AsyncRedisSaver
from agent.checkpoint.base import CorruptCheckpointError
from agent.checkpoint.sync import RedisSaver

__all__ = ["AsyncRedisSaver", "CorruptCheckpointError", "RedisSaver"]
