"""A throwaway PostgreSQL cluster (Debian's postgresql 15) in a temp dir for a test: initdb + pg_ctl on 127.0.0.1.

Postgres refuses to run as root: as root the cluster belongs to the `postgres` system user (created by the
Debian package) and every server command runs through `runuser -u postgres`."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from ports import free_port

PG_BIN = Path(os.environ.get("RC1_PG_BIN", "/usr/lib/postgresql/15/bin"))


def available() -> str | None:
    """None when a cluster can be started here, else why not."""
    if not (PG_BIN / "initdb").is_file() or not (PG_BIN / "pg_ctl").is_file():
        return f"PostgreSQL binaries not found in {PG_BIN} (apt-get install postgresql)"
    if os.geteuid() == 0:
        import pwd

        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root and there is no `postgres` user to run the cluster"
    return None


@contextlib.contextmanager
def postgres_server(db: str = "mlflow"):
    """Yield the SQLAlchemy URI of a fresh database on a cluster that lives only for the `with` block (driver
    psycopg2 named explicitly: SQLAlchemy 2.1 maps a bare postgresql:// to psycopg 3)."""
    root = Path(tempfile.mkdtemp(prefix="rc1-pg-"))   # not under pytest's 0700 root-owned tmp: postgres reads it
    as_user: list[str] = []
    if os.geteuid() == 0:
        shutil.chown(root, "postgres", "postgres")
        as_user = ["runuser", "-u", "postgres", "--"]
    port = free_port()
    data = root / "data"

    def run(*args: str) -> None:
        subprocess.run([*as_user, *args], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=root)

    try:
        run(str(PG_BIN / "initdb"), "-D", str(data), "-U", "rc1", "--auth=trust", "-E", "UTF8")
        run(str(PG_BIN / "pg_ctl"), "-D", str(data), "-l", str(root / "server.log"), "-w", "-t", "120",
            "-o", f"-h 127.0.0.1 -p {port} -k {root}", "start")
        try:
            run(str(PG_BIN / "createdb"), "-h", "127.0.0.1", "-p", str(port), "-U", "rc1", db)
            yield f"postgresql+psycopg2://rc1@127.0.0.1:{port}/{db}"
        finally:
            with contextlib.suppress(subprocess.CalledProcessError):
                run(str(PG_BIN / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop")
    finally:
        shutil.rmtree(root, ignore_errors=True)
