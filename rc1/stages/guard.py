"""`rc1 guard`: the registry guard. A long-running receiver for the mlflow server's webhooks: when alias RC1 or
RC1-dev of rc1-policy is set, by `rc1 promote` or by anyone with registry access (UI, REST API, MlflowClient), the
guard verifies the version it now points at (rc1.trust.version.verify_version, the chain promote checks, every file
the version serves downloaded and hashed) within seconds. An alias that does not verify is put back on the last
version that verifies for it (one this guard kept it on, else the newest version a signed promotion gave it) or, with
none, removed; the refused version is tagged `rc1.guard=refused <why>`; either way the guard logs a run
(rc1.stage=guard) saying what it saw and did.

A delivery is only a hint that something changed: the guard acts on what the registry says now (the alias's current
version), so a forged, replayed or out-of-order delivery can at most make it check again. Deliveries for one alias
that arrive while it is queued are one check. At start (every guarded alias), every --sweep-every-s (the first
once the server's webhook cache, MLFLOW_WEBHOOK_CACHE_TTL 60 s, has surely seen the guard) and soon after a delivery
fails its signature (someone gave the webhook another secret), it registers (or repairs) its webhook and checks
every guarded alias again, bytes and all: one set while the guard was down or while its webhook was altered, and
weights swapped in place under a kept alias (no alias event at all), are caught then. How to run it next to a server: docs/stages.md.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import click

from rc1.cli.options import arg
from rc1.core.errors import Rc1Error
from rc1.core.proc import Stopped, clear_stop
from rc1.core.redaction import safe_url, scrub
from rc1.core.settings import configured

log = logging.getLogger("rc1.guard")

SECRET_ENV = "RC1_GUARD_SECRET"
MIN_SECRET = 32
RETRIES = 3            # a verification that errors (the server briefly away) is tried this often before it counts
TAG = "rc1.guard"
# how long the server may deliver to the webhooks it listed before the guard registered (MLFLOW_WEBHOOK_CACHE_TTL's
# default): a second sweep this long after the start catches an alias set in that window
CACHE_TTL_S = 61.0
WAKE_GAP_S = 10.0      # sweeps a flood of forged deliveries can cause: at most one per this many seconds


@dataclass
class Config:
    """Guard aliases RC1 / RC1-dev: receive the mlflow server's alias webhooks and remove an alias whose version's
    chain does not verify (tag rc1.guard=refused on the version, a guard run logged). Runs until stopped."""
    host: str = arg("127.0.0.1", "Address the receiver listens on.")
    port: int = arg(8787, "Port the receiver listens on (0: any free port).")
    url: str | None = arg(None, "The URL the mlflow server delivers to (unset: http://HOST:PORT/webhook).")
    register: bool = arg(True, "Register (or repair) the guard's webhook on the mlflow server at start and at each "
                               "sweep; --no-register when it is managed by hand.")
    webhook_name: str = arg("rc1-guard", "Name of the guard's webhook on the server.")
    secret_file: str | None = arg(None, f"File holding the webhook secret (unset: ${SECRET_ENV}); at least "
                                        f"{MIN_SECRET} characters, never logged.")
    tolerance_s: int = arg(300, "Oldest signed delivery accepted, in seconds; an older or repeated one is refused.")
    sweep_every_s: float = arg(30.0, "Repair the webhook and check every guarded alias again (its version's chain "
                                     "and bytes), every so many seconds; 0: only at start and once the server's "
                                     "webhook cache expired.")
    trust: str | None = arg(None, "The trust root (unset: $RC1_TRUST, else configs/trust.yaml of the rc1 "
                                  "checkout); printed with its sha256.", log=False)


def load_secret(cfg: Config) -> str:
    if cfg.secret_file:
        try:
            secret = Path(cfg.secret_file).read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as e:
            raise Rc1Error(f"--secret-file {cfg.secret_file}: cannot be read ({type(e).__name__})") from None
        where = f"--secret-file {cfg.secret_file}"
    else:
        secret, where = os.environ.get(SECRET_ENV, "").strip(), f"${SECRET_ENV}"
    if not secret:
        raise Rc1Error(f"rc1 guard needs the webhook secret: set ${SECRET_ENV} or --secret-file (make one with "
                       f"`python -c 'import secrets; print(secrets.token_urlsafe(32))'`)")
    if len(secret) < MIN_SECRET:
        raise Rc1Error(f"{where}: the webhook secret has {len(secret)} characters, fewer than {MIN_SECRET}")
    return secret


@dataclass
class Seen:
    """What made the guard look at an alias: a webhook delivery or a sweep."""
    trigger: str                      # webhook | sweep
    event_version: str | None = None  # the version the delivery named
    delivery_id: str | None = None


@dataclass
class Guard:
    """The guarded aliases' queue (one entry per alias, however many deliveries name it) and the one worker that
    checks them in turn: MLflow's fluent run API is used from that thread only."""
    model: str
    guarded: tuple[str, ...]
    handled: int = 0
    removed: int = 0
    _pending: dict[str, Seen] = field(default_factory=dict)
    _queue: queue.Queue = field(default_factory=queue.Queue)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    restored: int = 0
    # alias -> the versions the guard kept it on, oldest first: where a refused alias is put back
    _verified: dict[str, list[str]] = field(default_factory=dict)
    # alias -> (start time in ms, version) of the newest signed promotion the guard kept it on: an alias moved back to
    # an earlier release is refused even when the newer promote run was hidden in the store (its tags changed)
    _newest: dict[str, tuple[int, str]] = field(default_factory=dict)

    def on_delivery(self, d) -> tuple[int, str]:
        """The receiver's handler: an alias-created event on a guarded alias of the model is queued, others ignored."""
        if d.event != "model_version_alias.created":
            return 200, f"ignored: {d.event} is not an alias-created event"
        name, alias = d.data.get("name"), d.data.get("alias")
        if name != self.model or alias not in self.guarded:
            return 200, "ignored: not a guarded alias"
        version = d.data.get("version")
        self.enqueue(alias, Seen("webhook", None if version is None else str(version), d.delivery_id))
        return 202, f"queued: {alias}"

    def enqueue(self, alias: str, seen: Seen) -> None:
        with self._lock:
            fresh = alias not in self._pending
            self._pending[alias] = seen
        if fresh:
            self._queue.put(alias)

    def sweep(self) -> int:
        """Queue every guarded alias the model has now, kept ones too (their bytes may have been swapped in place,
        which no alias event announces); how many."""
        from rc1.tracking.webhooks import aliases

        found = [a for a in aliases(self.model) if a in self.guarded]
        for alias in found:
            self.enqueue(alias, Seen("sweep"))
        return len(found)

    def work(self, stop: threading.Event) -> None:
        while not stop.is_set():
            try:
                alias = self._queue.get(timeout=0.5)
            except queue.Empty:
                continue
            with self._lock:
                seen = self._pending.pop(alias)
            try:
                self.check(alias, seen)
            except Exception:   # one alias's failure (the server away) must not end the guard
                log.exception("guard: checking alias %s failed", alias)

    def check(self, alias: str, seen: Seen) -> None:
        from rc1.tracking.registry import set_alias, set_version_tags
        from rc1.tracking.webhooks import aliases, remove_alias

        version = aliases(self.model).get(alias)
        if version is None:
            return   # removed meanwhile: nothing stands to guard
        started = time.monotonic()
        verdict = self._verify(version, alias)
        took = time.monotonic() - started
        action, restored_to, held = "kept", None, verdict
        if not verdict.ok:
            if aliases(self.model).get(alias) != version:   # moved while it was checked: check where it is now
                self.enqueue(alias, seen)
                return
            # the reason first: once the alias is gone, the version says why
            set_version_tags(version, {TAG: f"refused {alias}: {verdict.why}"[:4900]}, self.model)
            restored_to, held = self._restore_target(alias, version)
            if restored_to is not None and aliases(self.model).get(alias) == version:
                set_alias(restored_to, alias, self.model)
                action = "restored"
                self.restored += 1
            else:
                remove_alias(self.model, alias)
                action, restored_to, held = "removed", None, None
            self.removed += 1
        if held is not None:
            self._note_promotion(alias, held)
        self.handled += 1
        to = f" (put back on version {restored_to}, the last that verifies)" if restored_to else ""
        click.echo(f"rc1 guard: {alias} -> version {version}: {action}{to} ({verdict.why}) [{seen.trigger}, "
                   f"{took:.1f} s]", err=True)
        kept = self._verified.setdefault(alias, [])
        if action == "kept":
            kept[:] = [v for v in kept if v != version] + [version]
        else:
            kept[:] = [v for v in kept if v != version] + ([restored_to] if restored_to else [])
        self._log_run(alias, version, action, verdict.why, seen, took, restored_to)

    def _verify(self, version: str, alias: str):
        """The chain of `version` as `alias`, from a fresh download (fails closed: a check that errors RETRIES times
        does not verify)."""
        from rc1.tracking.evidence import store_source
        from rc1.trust.version import Verdict, verify_version

        for attempt in range(RETRIES):
            try:
                verdict = verify_version(store_source(read_only=True), self.model, version, alias=alias)
                older = verdict.ok and self._older_than_kept(alias, version, verdict)
                return Verdict(False, older, version) if older else verdict
            except Rc1Error as e:
                return Verdict(False, str(e), version)
            except Exception as e:   # fails closed: an alias that cannot be verified is not trusted
                if attempt + 1 == RETRIES:
                    return Verdict(False, f"could not be verified ({type(e).__name__}: {scrub(str(e))})", version)
                time.sleep(2 ** attempt)

    def _start_ms(self, verdict) -> int:
        from rc1.tracking.evidence import store_source

        run = store_source(read_only=True).run(verdict.statements["promote"].run_id)
        return run.start_time if run is not None else 0

    def _older_than_kept(self, alias: str, version: str, verdict) -> str | None:
        """Why `version`, whose chain holds, is an earlier release than one this guard kept `alias` on (its signed
        promotion started before that one's), or None."""
        newest = self._newest.get(alias)
        if newest is None or newest[1] == version or self._start_ms(verdict) >= newest[0]:
            return None
        return (f"{self.model} version {version}: its promotion is older than version {newest[1]}'s, which this guard "
                f"kept as {alias}: moved back by hand to an earlier release")

    def _note_promotion(self, alias: str, verdict) -> None:
        if "promote" in verdict.statements:
            at = self._start_ms(verdict)
            if at >= self._newest.get(alias, (0, ""))[0]:
                self._newest[alias] = (at, verdict.version)

    def _restore_target(self, alias: str, refused: str):
        """(the version a refused alias goes back to, its verdict): the newest one this guard kept it on, else the
        newest version a promote run signed it for (the store's tags only find those; each is verified here, bytes
        and all), that verifies now; (None, None) when none does."""
        from rc1.tracking.evidence import store_source

        hints = list(reversed(self._verified.get(alias, [])))
        hints += [r.tags.get("rc1.model_version") for r in store_source(read_only=True).search(
            "promote", {"rc1.registered_model": self.model, "rc1.target_alias": alias}, max_results=20)]
        tried: set[str] = {refused}
        for version in hints:
            if not version or version in tried:
                continue
            tried.add(version)
            verdict = self._verify(version, alias)
            if verdict.ok:
                return version, verdict
        return None, None

    def _log_run(self, alias: str, version: str, action: str, why: str, seen: Seen, took: float,
                 restored_to: str | None = None) -> None:
        from rc1.tracking import stage_run

        tags = {"rc1.guard.alias": alias, "rc1.model_version": version, "rc1.registered_model": self.model,
                "rc1.guard.action": action, "rc1.guard.why": why[:4900], "rc1.guard.trigger": seen.trigger,
                "rc1.guard.event_version": seen.event_version or "-", "rc1.guard.delivery_id": seen.delivery_id or "-",
                "rc1.guard.restored_to": restored_to or "-"}
        with stage_run("guard", params={"alias": alias, "version": version, "trigger": seen.trigger}, reuse=False,
                       run_name=f"guard {alias} v{version}: {action}", tags=tags) as st:
            st.log_metrics({"verify_s": took, "removed": float(action == "removed")})


@configured
def run(cfg: Config) -> dict:
    """Serve until SIGTERM or Ctrl-C; returns {handled, removed, refused} (deliveries refused at the door)."""
    from rc1.core.redaction import has_credentials
    from rc1.release.receiver import Receiver, Verifier
    from rc1.tracking.store import default_tracking_uri, setup_tracking
    from rc1.tracking.registry import MODEL_NAME
    from rc1.trust.keys import load_trust, pin
    from rc1.trust.rules import RC1, RC1_DEV

    secret = load_secret(cfg)
    if cfg.url and has_credentials(cfg.url):
        raise Rc1Error("--url: the URL carries a credential; the guard authenticates deliveries by their signature")
    if cfg.sweep_every_s < 0 or cfg.tolerance_s <= 0:
        raise Rc1Error("--sweep-every-s must be >= 0 and --tolerance-s > 0")
    uri = default_tracking_uri()
    if cfg.register and not uri.startswith(("http://", "https://")):
        raise Rc1Error(f"rc1 guard needs an mlflow server as MLFLOW_TRACKING_URI (http or https), not a "
                       f"{uri.split(':', 1)[0]} store: only a server delivers webhooks")
    pin(cfg.trust)
    click.echo(f"rc1 guard: {load_trust().describe()}", err=True)
    setup_tracking()
    guard = Guard(MODEL_NAME, (RC1, RC1_DEV))
    wake = threading.Event()   # set by a delivery refused at the door: the webhook may have been altered
    try:
        receiver = Receiver((cfg.host, cfg.port), Verifier(secret.encode(), cfg.tolerance_s), guard.on_delivery,
                            on_refused=lambda status: status == 401 and wake.set())
    except OSError as e:
        raise Rc1Error(f"--host {cfg.host} --port {cfg.port}: cannot listen there ({e.strerror or e})") from None
    url = cfg.url or f"http://{cfg.host}:{receiver.port}/webhook"
    stop = threading.Event()
    threads = [threading.Thread(target=receiver.serve_forever, name="guard-http", daemon=True),
               threading.Thread(target=guard.work, args=(stop,), name="guard-worker", daemon=True)]
    for t in threads:
        t.start()
    try:
        found = _sweep(cfg, guard, url, secret)   # at start a failure is the command's: exit 2
        click.echo(f"rc1 guard: listening on {url}; guarding {RC1}, {RC1_DEV} of {MODEL_NAME} on {safe_url(uri)}"
                   f"{' (webhook ' + repr(cfg.webhook_name) + ')' if cfg.register else ''}; {found} alias(es) to "
                   f"check now", err=True)
        _keep_sweeping(cfg, guard, url, secret, wake)
    except (KeyboardInterrupt, Stopped):
        click.echo("rc1 guard: stopping", err=True)
        clear_stop()   # the stop is handled here: the check under way still ends its run FINISHED, then the guard exits 0
    finally:
        stop.set()
        receiver.shutdown()
        receiver.server_close()
        threads[1].join(timeout=60)   # the check under way finishes (its run ends) before the process does
    return {"handled": guard.handled, "removed": guard.removed, "restored": guard.restored, "refused": receiver.refused}


def _sweep(cfg: Config, guard: Guard, url: str, secret: str) -> int:
    """The webhook registered as the guard needs it (deleted, disabled, re-pointed or given another secret by
    someone meanwhile: repaired), then the guarded aliases queued (Guard.sweep); how many."""
    from rc1.tracking.webhooks import ensure_webhook

    if cfg.register:
        ensure_webhook(cfg.webhook_name, url, secret)
    return guard.sweep()


def _keep_sweeping(cfg: Config, guard: Guard, url: str, secret: str, wake: threading.Event) -> None:
    """Sweep once the server's webhook cache has surely seen the guard, then every --sweep-every-s, and soon after a
    delivery was refused for its signature (`wake`: a webhook whose secret someone changed sends only such), at most
    once per WAKE_GAP_S for those. Returns only by an exception (Ctrl-C, SIGTERM)."""
    every = cfg.sweep_every_s or None
    due: float | None = time.monotonic() + min(CACHE_TTL_S, every or CACHE_TTL_S)
    woken_at, woken = float("-inf"), False
    while True:
        if wake.wait(None if due is None else max(0.0, due - time.monotonic())):
            wake.clear()
            at = max(time.monotonic(), woken_at + WAKE_GAP_S)
            due, woken = (at if due is None else min(due, at)), True
            continue
        if woken:
            woken_at, woken = time.monotonic(), False
        try:
            _sweep(cfg, guard, url, secret)
        except Exception as e:   # the server away for a moment: the next sweep tries again
            log.warning("guard: sweep failed (%s)", scrub(str(e), secret))
        due = time.monotonic() + every if every else None


def show(res: dict) -> None:
    click.echo(f"rc1 guard: stopped after {res['handled']} check(s): {res['removed']} alias(es) refused "
               f"({res.get('restored', 0)} put back on a verified version), "
               f"{res['refused']} delivery(ies) refused at the door")
