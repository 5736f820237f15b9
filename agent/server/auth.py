"""Per-learner auth for the LangGraph server (``langgraph.json`` → ``auth.path``).

Authentication: ``Authorization: Bearer <token>`` or ``X-Api-Key: <token>``
(``agent.server.credentials``); the token table (``agent.server.tokens``) names the
learner, who becomes the request's identity. No header, a malformed one, two
different tokens in the two headers or an unknown token is a 401. With no token table at
all the server is *closed*: every API request gets a 401 whose message names
``KAG_AUTH_TOKENS`` (secure by default; there is no anonymous mode). The table
is read (through ``Settings``) at the first request, not when this module is
imported; a bad table makes every request a 503 and is logged.

Authorization (every resource is tagged and filtered by its owner):

- threads and runs: ``metadata.owner`` is stamped with the identity on create,
  update and run creation (a client-sent owner is overwritten); every thread
  action is filtered to ``{"owner": identity}``, so another learner's thread is a
  404 and never shows up in a search; a run that tries to choose whose memory it
  uses (input ``learner_id`` of another learner, a command updating
  ``learner_id``) is refused (``check_run_identity``);
- assistants: the graphs' system assistants are readable by everyone;
  user-created ones are owned and filtered like threads; ``created_by`` cannot be
  set by a client (it would otherwise make an assistant public);
- store: every namespace is forced under ``(identity, ...)``;
- crons and anything without a handler: refused (403).

The graphs take the learner id from the identity in every node (``agent.identity``), never
from the request body or thread state. LangGraph Studio under ``langgraph dev`` is one more
tenant (``langgraph-studio-user``) that sees only its own threads and memory.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from typing import Any

from langgraph_sdk import Auth

from agent.errors import ConfigError, InvalidInputError
from agent.server.body_policy import IDENTITY_FIELDS, context_refusal, update_writes_identity
from agent.server.credentials import CredentialError, header_values, presented_token
from agent.server.tokens import TOKENS_FILE_VAR, TOKENS_VAR, TokenTable
from agent.settings import Settings
from agent.validation import validate_learner_id

log = logging.getLogger("kag.auth")
NOT_CONFIGURED = (
    f"KAG auth is not configured: set {TOKENS_VAR}='token:learner-id,...' or {TOKENS_FILE_VAR}=tokens.json "
    "for the server, then send 'Authorization: Bearer <token>' or 'X-Api-Key: <token>'."
)
MISCONFIGURED = f"KAG auth is misconfigured ({TOKENS_VAR}/{TOKENS_FILE_VAR}); see the server log."
SYSTEM_ASSISTANTS = {"created_by": "system"}


def request_token(authorization: str | None, headers: Mapping[bytes, bytes] | None = None) -> str:
    """The token of the ``Authorization: Bearer`` or ``X-Api-Key`` header (401 otherwise)."""
    from_headers, api_key = header_values((headers or {}).items())
    try:
        return presented_token(authorization if authorization is not None else from_headers, api_key)
    except CredentialError as exc:
        raise Auth.exceptions.HTTPException(
            status_code=401, detail=exc.detail, headers={"WWW-Authenticate": "Bearer"}
        ) from None


def check_run_identity(run: dict[str, Any], identity: str) -> None:
    """Refuse a run that tries to choose whose memory it uses.

    - input ``learner_id``: malformed → 422; another learner → 403 (omit it, or
      send your own);
    - ``command.update`` writing an identity field (``learner_id``) → 403, whatever
      the ``goto``;
    - ``context`` or ``config.configurable`` naming ``learner_id`` → 403;
    - an invalid request ``context`` in the input or the command's update → 422.

    Defence in depth: every node re-binds the learner to the authenticated user
    (``agent.identity``), so a run that got past this would still be refused.
    """
    kwargs = run.get("kwargs") or {}
    payload = kwargs.get("input")
    claimed = payload.get("learner_id") if isinstance(payload, dict) else None
    if claimed not in (None, ""):
        try:
            claimed = validate_learner_id(claimed)
        except InvalidInputError as exc:
            raise Auth.exceptions.HTTPException(status_code=422, detail=str(exc)) from None
        if claimed != identity:
            raise _forbidden("the input's learner_id is not the authenticated learner; omit it")
    command = kwargs.get("command")
    if isinstance(command, dict) and update_writes_identity(command.get("update")):
        raise _forbidden("run commands may not update learner_id")
    # A bad request context is refused before the run writes its input to the thread
    # (a stored one would fail every later run on the thread).
    update = command.get("update") if isinstance(command, dict) else None
    for values in (payload, update):
        refused = context_refusal(values)
        if refused is not None:
            raise Auth.exceptions.HTTPException(status_code=refused.status, detail=refused.detail)
    configurable = (kwargs.get("config") or {}).get("configurable")
    for name, value in (("context", kwargs.get("context")), ("config.configurable", configurable)):
        if isinstance(value, dict) and IDENTITY_FIELDS & set(value):
            raise _forbidden(f"{name} may not carry learner_id")


def _forbidden(detail: str) -> Auth.exceptions.HTTPException:
    return Auth.exceptions.HTTPException(status_code=403, detail=detail)


def _stamp_owner(value: dict[str, Any], owner: str) -> None:
    """Set ``metadata.owner`` in place (the server keeps using the same dict)."""
    metadata = value.get("metadata")
    if isinstance(metadata, dict):
        metadata["owner"] = owner
    elif "metadata" in value:
        value["metadata"] = {"owner": owner}


class LazyTokenTable:
    """A ``TokenTable`` loaded on first use (the first request), then kept.

    A loader that raises (``ConfigError`` for a bad table) is retried on the
    next request, so fixing the file of ``KAG_AUTH_TOKENS_FILE`` needs no restart.
    """

    def __init__(self, load: Callable[[], TokenTable]) -> None:
        """Keep ``load``; nothing is read yet."""
        self._load = load
        self._table: TokenTable | None = None
        self._lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        """True once the table has been read."""
        return self._table is not None

    def get(self) -> TokenTable:
        """The table, loading it on the first call."""
        if self._table is None:
            with self._lock:
                if self._table is None:
                    self._table = self._load()
        return self._table


def server_token_table() -> TokenTable:
    """The server's token table, from ``Settings`` (``KAG_AUTH_TOKENS``, ``KAG_AUTH_TOKENS_FILE``)."""
    return TokenTable.from_settings(Settings.from_env())


def build_auth(table: TokenTable | LazyTokenTable) -> Auth:
    """An ``Auth`` whose tokens come from ``table`` (a lazy one is read at the first request)."""
    tokens = table if isinstance(table, LazyTokenTable) else LazyTokenTable(lambda: table)
    auth = Auth()

    @auth.authenticate
    async def authenticate(
        authorization: str | None = None, headers: dict[bytes, bytes] | None = None
    ) -> Auth.types.MinimalUserDict:
        """Map the request's token (bearer or API key) to its learner."""
        try:
            table = tokens.get()
        except ConfigError as exc:
            log.error("cannot load the token table: %s", exc)
            raise Auth.exceptions.HTTPException(status_code=503, detail=MISCONFIGURED) from None
        if not table.configured:
            raise Auth.exceptions.HTTPException(status_code=401, detail=NOT_CONFIGURED)
        learner = table.learner_for(request_token(authorization, headers))
        if learner is None:
            raise Auth.exceptions.HTTPException(
                status_code=401, detail="invalid token", headers={"WWW-Authenticate": "Bearer"}
            )
        return {"identity": learner, "display_name": learner, "permissions": []}

    @auth.on
    async def deny_by_default(ctx: Auth.types.AuthContext, value: Any) -> bool:
        """Anything without a specific handler (crons, future resources) is refused."""
        log.warning("refused %s.%s for a learner: no handler", ctx.resource, ctx.action)
        return False

    @auth.on.threads
    async def own_threads(ctx: Auth.types.AuthContext, value: dict[str, Any]) -> Auth.types.FilterType:
        """Threads and their runs belong to the learner who created them."""
        if ctx.action == "create_run":
            check_run_identity(value, ctx.user.identity)
        if ctx.action in {"create", "update", "create_run"}:
            _stamp_owner(value, ctx.user.identity)
        return {"owner": ctx.user.identity}

    @auth.on.assistants
    async def own_assistants(ctx: Auth.types.AuthContext, value: dict[str, Any]) -> Auth.types.FilterType:
        """System assistants are shared read-only; user-created ones are owned."""
        if ctx.action in {"create", "update"}:
            metadata = value.get("metadata")
            if isinstance(metadata, dict):
                metadata.pop("created_by", None)
            _stamp_owner(value, ctx.user.identity)
        if ctx.action in {"read", "search"}:
            return {"$or": [SYSTEM_ASSISTANTS, {"owner": ctx.user.identity}]}  # type: ignore[dict-item]
        return {"owner": ctx.user.identity}

    @auth.on.store
    async def own_store(ctx: Auth.types.AuthContext, value: dict[str, Any]) -> None:
        """Every store namespace starts with the learner's identity."""
        namespace = tuple(value.get("namespace") or ())
        if namespace[:1] != (ctx.user.identity,):
            namespace = (ctx.user.identity, *namespace)
        value["namespace"] = namespace

    return auth


auth = build_auth(LazyTokenTable(server_token_table))
"""The server's auth object (``./agent/server/auth.py:auth``); tokens are read at the first request."""
