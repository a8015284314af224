"""What `rc1 guard` asks of the mlflow server: its webhook registered, the model's aliases, an alias removed."""

from __future__ import annotations

from mlflow.exceptions import MlflowException
from mlflow.tracking import MlflowClient

from rc1.core.errors import Rc1Error
from rc1.core.redaction import scrub

ALIAS_CREATED = "model_version_alias.created"


def ensure_webhook(name: str, url: str, secret: str) -> str:
    """The server's webhook `name` delivers alias-created events to `url`, signed with `secret`, and is active: the
    one of that name updated (its URL, events, secret and status whatever someone made them), else a new one. Its
    id. Refused by the server (an http URL or a loopback address it does not allow): Rc1Error naming the settings."""
    client = MlflowClient()
    try:
        mine = [w for w in _webhooks(client) if w.name == name]
        if mine:
            hook = client.update_webhook(mine[0].webhook_id, url=url, events=[ALIAS_CREATED], secret=secret,
                                         status="ACTIVE")
        else:
            hook = client.create_webhook(name, url, [ALIAS_CREATED], secret=secret, status="ACTIVE",
                                         description="rc1 guard: an RC1 alias whose chain does not verify is removed")
    except MlflowException as e:
        first = scrub(str(e.message if hasattr(e, "message") else e), secret).splitlines()[0][:300]
        raise Rc1Error(f"the mlflow server refused webhook {name!r} -> {url}: {first} (a guard on this host needs "
                       f"the server started with MLFLOW_WEBHOOK_ALLOWED_SCHEMES=http,https and "
                       f"MLFLOW_WEBHOOK_ALLOW_PRIVATE_IPS=true; see docs/stages.md, rc1 guard)") from None
    return hook.webhook_id


def _webhooks(client: MlflowClient) -> list:
    out, token = [], None
    while True:
        page = client.list_webhooks(max_results=100, page_token=token)
        out += list(page)
        token = page.token
        if not token:
            return out


def aliases(name: str) -> dict[str, str]:
    """{alias: version} of the registered model (nothing when it does not exist)."""
    try:
        return {a: str(v) for a, v in MlflowClient().get_registered_model(name).aliases.items()}
    except MlflowException:
        return {}


def remove_alias(name: str, alias: str) -> None:
    MlflowClient().delete_registered_model_alias(name, alias)
