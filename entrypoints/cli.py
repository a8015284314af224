"""`rc1` console script. Every module in entrypoints/ that defines `command` (a click command, or
a list of them) becomes a subcommand; MLproject calls the same commands via `python -m entrypoints.cli`.

Exit codes: 0 ok, 2 bad input / refusal / failed gate (one clear line, no traceback), 1 crash.
"""

from __future__ import annotations

import datetime as _dt
import importlib
import logging
import os
import pkgutil
import sys
import traceback
from collections import deque
from pathlib import Path

import click

from rc1.errors import GateFailed, Rc1Error
from rc1.redaction import scrub

_LOG_TAIL: deque[str] = deque(maxlen=200)


class _TailHandler(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        _LOG_TAIL.append(self.format(record))


def _setup_logging() -> None:
    root = logging.getLogger()
    if any(isinstance(h, _TailHandler) for h in root.handlers):
        return
    fmt = logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    tail = _TailHandler()
    tail.setFormatter(fmt)
    root.addHandler(tail)
    err = logging.StreamHandler(sys.stderr)
    err.setFormatter(fmt)
    err.setLevel(logging.WARNING)
    root.addHandler(err)
    root.setLevel(logging.INFO)
    logging.getLogger("rc1").setLevel(logging.INFO)
    for noisy in ("mlflow", "alembic", "urllib3", "httpx", "openai", "filelock", "datasets", "huggingface_hub"):
        logging.getLogger(noisy).setLevel(logging.WARNING)


def print_checks_table(checks: list[dict], stream=None) -> None:
    stream = stream or sys.stderr  # resolved per call, so captured stderr (pytest, tools) sees it
    if not checks:
        return
    rows = [(str(c.get("name")), _fmt(c.get("value")), _fmt(c.get("threshold")), "PASS" if c.get("pass") else "FAIL")
            for c in checks]
    head = ("check", "value", "threshold", "")
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(4)]
    for r in [head, *rows]:
        print("  " + "  ".join(x.ljust(w) for x, w in zip(r, widths)).rstrip(), file=stream)


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def write_error_report(exc: BaseException) -> Path | None:
    """reports/ERROR_<ts>.json with the trace and the last 200 log lines."""
    try:
        ts = _dt.datetime.now().strftime("%Y%m%dT%H%M%S")
        path = Path("reports") / f"ERROR_{ts}.json"
        from rc1.io import write_json

        write_json(path, {
            "error": scrub(f"{type(exc).__name__}: {exc}"),
            "argv": [scrub(a) for a in sys.argv],
            "trace": [scrub(line) for line in traceback.format_exception(exc)],
            "log_tail": [scrub(line) for line in _LOG_TAIL],
        })
        return path
    except Exception:  # the report is best effort; the FATAL line is what matters
        return None


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 110})
def cli() -> None:
    """rc1: from data gate to a promoted RC1 model, every stage an MLflow run.

    Runs go to MLFLOW_TRACKING_URI, or to the embedded store under ./mlruns when it is unset.
    """


def _register() -> None:
    import entrypoints

    for mod in pkgutil.iter_modules(entrypoints.__path__):
        if mod.name.startswith("_") or mod.name == "cli":
            continue
        try:
            module = importlib.import_module(f"entrypoints.{mod.name}")
        except Exception as e:  # one broken entry point must not take every other command down
            print(f"rc1: warning: entry point module entrypoints.{mod.name} failed to import: "
                  f"{type(e).__name__}: {e}", file=sys.stderr)
            continue
        cmds = getattr(module, "command", None)
        for cmd in cmds if isinstance(cmds, (list, tuple)) else [cmds] if cmds else []:
            cli.add_command(cmd)


_register()


def main(argv: list[str] | None = None) -> None:
    _setup_logging()
    os.environ.setdefault("GIT_PYTHON_REFRESH", "quiet")
    try:
        cli.main(args=argv, standalone_mode=False, prog_name="rc1")
    except GateFailed as e:
        print(f"rc1: gate failed: {scrub(str(e))}", file=sys.stderr)
        print_checks_table(e.checks)
        sys.exit(2)
    except Rc1Error as e:
        print(f"rc1: error: {scrub(str(e))}", file=sys.stderr)
        sys.exit(2)
    except click.exceptions.Abort:
        print("rc1: aborted", file=sys.stderr)
        sys.exit(130)
    except click.ClickException as e:
        e.show()
        sys.exit(2)
    except click.exceptions.Exit as e:
        sys.exit(e.exit_code)
    except KeyboardInterrupt:
        print("rc1: interrupted", file=sys.stderr)
        sys.exit(130)
    except Exception as e:
        report = write_error_report(e)
        logging.getLogger("rc1").debug("crash", exc_info=True)
        print(f"FATAL: {type(e).__name__}: {scrub(str(e))}" + (f" (details: {report})" if report else ""),
              file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
