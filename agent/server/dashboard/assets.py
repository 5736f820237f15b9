"""The dashboard's page and static files, served before the API's auth (they hold no learner data).

A browser cannot send a bearer header when it navigates, so the page shell
(``/dashboard``), its script and style (``/dashboard/static/*``) and the npm
libraries (``/dashboard/vendor/*``, from ``agent/server/dashboard/web/node_modules``,
installed by ``make install``; never a CDN) are public, like ``/docs``. Every data
request the page makes goes to ``/dashboard/api/*`` with the token.

Every response carries a strict Content-Security-Policy: scripts only from this
origin (no inline script, no ``eval``), no plugins, no framing, and ``connect-src``
limited to this origin. Styles allow ``'unsafe-inline'`` because Mermaid writes a
``<style>`` element into each SVG it renders (styles cannot run script).
"""

from __future__ import annotations

import mimetypes
from pathlib import Path

from starlette.types import ASGIApp, Receive, Scope, Send

HERE = Path(__file__).resolve().parent
STATIC = HERE / "static"
NODE_MODULES = HERE / "web" / "node_modules"
VENDOR = {
    "mermaid.min.js": "mermaid/dist/mermaid.min.js",
    "cytoscape.min.js": "cytoscape/dist/cytoscape.min.js",
    "chart.umd.min.js": "chart.js/dist/chart.umd.min.js",
    "purify.min.js": "dompurify/dist/purify.min.js",
}
"""URL name → file under ``web/node_modules`` (``web/package.json`` pins the versions)."""
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'; object-src 'none'"
)
SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
]
MISSING_VENDOR = b"dashboard library missing: run `make install` (npm ci in agent/server/dashboard/web)"


def _static_files() -> dict[str, Path]:
    return {p.name: p for p in STATIC.iterdir() if p.is_file()} if STATIC.is_dir() else {}


def asset_for(path: str) -> tuple[Path | None, bool]:
    """The file a dashboard GET path names, and whether the path is a dashboard asset path."""
    if path in ("/dashboard", "/dashboard/"):
        return STATIC / "index.html", True
    for prefix, files in (
        ("/dashboard/static/", lambda: _static_files()),
        ("/dashboard/vendor/", lambda: {k: NODE_MODULES / v for k, v in VENDOR.items()}),
    ):
        if path.startswith(prefix):
            return files().get(path[len(prefix) :]), True
    return None, False


async def _send(send: Send, status: int, body: bytes, content_type: str, head: bool) -> None:
    headers = [
        (b"content-type", content_type.encode()),
        (b"content-length", str(len(body)).encode()),
        (b"cache-control", b"no-cache"),
        *SECURITY_HEADERS,
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": b"" if head else body})


class DashboardAssets:
    """ASGI middleware: answers GET/HEAD for the dashboard's page and files; the rest goes on."""

    def __init__(self, app: ASGIApp) -> None:
        """Wrap ``app`` (the server)."""
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve a dashboard file, or hand the request over."""
        if scope["type"] != "http" or scope.get("method") not in ("GET", "HEAD"):
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        prefix = scope.get("root_path", "")
        if prefix and path.startswith(prefix):
            path = path[len(prefix) :] or "/"
        file, ours = asset_for(path)
        if not ours:
            await self.app(scope, receive, send)
            return
        head = scope["method"] == "HEAD"
        if file is None:
            await _send(send, 404, b"Not Found", "text/plain; charset=utf-8", head)
            return
        if not file.is_file():
            await _send(send, 503, MISSING_VENDOR, "text/plain; charset=utf-8", head)
            return
        kind = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
        if kind.startswith("text/") or kind in ("application/javascript", "text/javascript"):
            kind += "; charset=utf-8"
        await _send(send, 200, file.read_bytes(), kind, head)
