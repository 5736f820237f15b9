"""A redis-server of a test's or bench's own, on a free loopback port, that can be restarted.

The shared Redis on :6379 is never touched. AOF is on (fsync always, no RDB preamble, so
a restart replays commands) and ``DEBUG`` is enabled on loopback, so a caller can grow
the dataset with ``populate`` and slow the replay with ``key_load_delay`` (microseconds
per key, a Redis debug setting) to observe a long ``LOADING`` window.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path


def free_port() -> int:
    """A TCP port nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PrivateRedis:
    """One redis-server process in ``workdir``; ``start``/``stop``/``restart`` keep the data."""

    def __init__(self, workdir: Path, port: int | None = None) -> None:
        """Use ``workdir`` for the AOF, pid file and log; pick a free port unless given."""
        if shutil.which("redis-server") is None:
            raise RuntimeError("redis-server not installed; run scripts/services.sh up to install it")
        self.dir = workdir
        self.port = port or free_port()
        self.pidfile = workdir / "redis.pid"
        self.url = f"redis://127.0.0.1:{self.port}/0"

    @property
    def pid(self) -> int | None:
        """The server's pid, if it runs."""
        try:
            pid = int(self.pidfile.read_text().strip())
            os.kill(pid, 0)
        except (OSError, ValueError):
            return None
        return pid

    def start(self, *, key_load_delay: int = 0, wait: bool = True) -> None:
        """Start over the existing AOF; with ``wait``, return once PING answers PONG."""
        subprocess.run(
            [
                "redis-server", "--port", str(self.port), "--bind", "127.0.0.1",
                "--dir", str(self.dir), "--appendonly", "yes", "--appendfsync", "always",
                "--aof-use-rdb-preamble", "no", "--save", "", "--daemonize", "yes",
                "--pidfile", str(self.pidfile), "--logfile", str(self.dir / "redis.log"),
                "--enable-debug-command", "local", "--key-load-delay", str(key_load_delay),
            ],
            check=True,
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            reply = self.reply()
            if reply == "+PONG" or (not wait and reply.startswith("-LOADING")):
                return
            time.sleep(0.02)
        raise RuntimeError(f"private redis on {self.port} did not start; see {self.dir / 'redis.log'}")

    def reply(self) -> str:
        """The raw first line Redis answers to PING ("+PONG", "-LOADING …"), "" if none."""
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1.0) as s:
                s.sendall(b"PING\r\n")
                return s.recv(256).split(b"\r\n", 1)[0].decode()
        except OSError:
            return ""

    def cli(self, *args: str) -> str:
        """Run one ``redis-cli`` command against this server and return its output."""
        done = subprocess.run(
            ["redis-cli", "-p", str(self.port), *args], check=True, capture_output=True, text=True, timeout=60
        )
        return done.stdout.strip()

    def populate(self, keys: int) -> None:
        """Add ``keys`` filler keys and rewrite the AOF so a restart replays them all."""
        self.cli("DEBUG", "POPULATE", str(keys), "filler")
        self.cli("BGREWRITEAOF")
        deadline = time.monotonic() + 60
        while "aof_rewrite_in_progress:1" in self.cli("INFO", "persistence") or (
            "aof_rewrite_scheduled:1" in self.cli("INFO", "persistence")
        ):
            if time.monotonic() > deadline:
                raise RuntimeError("AOF rewrite did not finish")
            time.sleep(0.05)

    def stop(self, sig: int = signal.SIGTERM) -> None:
        """Stop the server (SIGTERM: clean, AOF synced; SIGKILL: a crash) and wait for it."""
        pid = self.pid
        if pid is None:
            return
        os.kill(pid, sig)
        for _ in range(400):
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.025)
        self.pidfile.unlink(missing_ok=True)

    def restart(self, *, key_load_delay: int = 0, wait: bool = True, sig: int = signal.SIGTERM) -> None:
        """Stop, then start over the same data."""
        self.stop(sig)
        self.start(key_load_delay=key_load_delay, wait=wait)
