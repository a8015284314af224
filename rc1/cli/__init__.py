"""The `rc1` console script: one subcommand per flow and stage (COMMANDS), each derived from its module's `Config`
(rc1.cli.options); MLproject, generated from the same configs (rc1.cli.mlproject), calls them as
`python -m rc1.cli <command>`. A module is imported only when its command runs.

Exit codes: 0 ok, 2 bad input / refusal / failed gate (one clear line, no traceback), 1 crash.
"""

from __future__ import annotations

import ast
import contextlib
import datetime as _dt
import importlib
import logging
import os
import signal
import sys
import threading
import traceback
import warnings
from collections import deque
from pathlib import Path

import click

from rc1.core.errors import CheckFailed, Rc1Error, environment_problem
from rc1.core.proc import Stopped, clear_stop, raise_stopped
from rc1.core.redaction import scrub

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
    for noisy in ("mlflow", "alembic", "urllib3", "httpx", "httpx2", "httpcore2", "openai", "filelock", "datasets",
                  "huggingface_hub"):   # httpx logs each request URL (a key in its query too) at INFO
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


def _store_name() -> str:
    """The tracking store as a message names it (its URI, when mlflow was ever imported)."""
    if "rc1.tracking" not in sys.modules:
        return "the tracking store"
    from rc1.tracking.store import default_tracking_uri

    return f"the tracking store {default_tracking_uri()}"


def write_error_report(exc: BaseException) -> Path | None:
    """reports/ERROR_<ts>.json with the trace and the last 200 log lines."""
    try:
        ts = _dt.datetime.now().strftime("%Y%m%dT%H%M%S")
        path = Path("reports") / f"ERROR_{ts}.json"
        from rc1.core.io import write_json

        write_json(path, {
            "error": scrub(f"{type(exc).__name__}: {exc}"),
            "argv": [scrub(a) for a in sys.argv],
            "trace": [scrub(line) for line in traceback.format_exception(exc)],
            "log_tail": [scrub(line) for line in _LOG_TAIL],
        })
        return path
    except Exception:  # the report is best effort; the FATAL line is what matters
        return None


from rc1.cli.commands import COMMANDS, FLOWS, STAGES  # noqa: E402,F401  (the command table, imported by rc1.cli.options too)


def module_path(module: str) -> Path:
    return Path(__file__).resolve().parents[2].joinpath(*module.split(".")).with_suffix(".py")


def source_help(module: str) -> str:
    """The command's help as its module's source declares it (the docstring of its `Config`, or of its click
    `command`), read without importing the module."""
    tree = ast.parse(module_path(module).read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "Config":
            return ast.get_docstring(node) or ""
        if isinstance(node, ast.FunctionDef) and node.name == "command":
            return ast.get_docstring(node) or ""
    return ""


def load_command(name: str) -> click.Command:
    """`rc1 <name>`: its module's `command`, or the command derived from its `Config`, `run` and `show`."""
    from rc1.cli.options import command

    module = importlib.import_module(COMMANDS[name])
    if getattr(module, "command", None) is not None:
        return module.command
    return command(name, module.Config, module.run, getattr(module, "show", None))


class LazyGroup(click.Group):
    """A click group whose subcommands are imported on first use; `rc1 --help` reads their helps from source, so
    it imports none of mlflow, torch or sklearn."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            # a module that fails to import is a crash of its own command only (FATAL, exit 1); the others still run
            self.add_command(load_command(cmd_name), cmd_name)
        return super().get_command(ctx, cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(len(n) for n in names)
        rows = []
        for name in names:
            cmd = self.commands.get(name) or click.Command(name, help=source_help(COMMANDS[name]))
            if not cmd.hidden:
                rows.append((name, cmd.get_short_help_str(limit)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)


# what a library prints that an rc1 user cannot act on: MLflow's artifact download bars, Hugging Face's
# progress bars and INFO lines, and the FutureWarnings transformers/TRL/PEFT raise about each other's calls.
# `rc1 --verbose ...` (or RC1_VERBOSE=1, e.g. under `mlflow run`) shows them all.
QUIET_ENV = {"MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR": "false", "MLFLOW_LOGGING_LEVEL": "WARNING",
             "MLFLOW_SUPPRESS_PRINTING_URL_TO_STDOUT": "true",   # "View run ... at" per run: rc1 prints its own links
             "TRANSFORMERS_VERBOSITY": "error", "HF_HUB_DISABLE_PROGRESS_BARS": "1",
             "HF_DATASETS_DISABLE_PROGRESS_BARS": "1", "TRANSFORMERS_NO_ADVISORY_WARNINGS": "1"}


def verbose_requested() -> bool:
    from rc1.core.console import verbose

    return verbose()


def quiet_libraries(verbose: bool) -> None:
    """Library chatter off (QUIET_ENV) unless verbose; what the user set in the environment wins."""
    if verbose:
        os.environ["RC1_VERBOSE"] = "1"   # the stages this process launches (accelerate) are verbose too
        return
    for key, value in QUIET_ENV.items():
        os.environ.setdefault(key, value)
    # a library imported before this call (an in-process caller's) read its progress-bar switch already
    if "huggingface_hub" in sys.modules and os.environ.get("HF_HUB_DISABLE_PROGRESS_BARS") == "1":
        sys.modules["huggingface_hub"].utils.disable_progress_bars()
    if "transformers" in sys.modules and os.environ.get("HF_HUB_DISABLE_PROGRESS_BARS") == "1":
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
    warnings.filterwarnings("ignore", category=FutureWarning)
    for name in ("transformers", "peft", "trl", "accelerate", "datasets", "huggingface_hub", "mlflow", "torch"):
        logging.getLogger(name).setLevel(logging.ERROR)
    store_log = logging.getLogger("mlflow.store.db.utils")   # the store's SQL error with its statement, many lines:
    if _drop_sql_dump not in store_log.filters:               # the error reaches rc1, which says it in one
        store_log.addFilter(_drop_sql_dump)


def _drop_sql_dump(record: logging.LogRecord) -> bool:
    return not str(record.msg).startswith("SQLAlchemy database error")


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 110})
@click.option("-v", "--verbose", is_flag=True, default=False,
              help="Show the libraries' own output too (download bars, INFO lines, FutureWarnings); RC1_VERBOSE=1.")
def cli(verbose: bool) -> None:
    """rc1: from data gate to a promoted RC1 model, every stage an MLflow run.

    Runs go to MLFLOW_TRACKING_URI, or to the embedded store sqlite:///mlruns/mlflow.db when it is unset (point
    `mlflow ui --backend-store-uri` and Python's mlflow.set_tracking_uri at that same URI to see them).
    """
    quiet_libraries(verbose or verbose_requested())


def main(argv: list[str] | None = None) -> None:
    _setup_logging()
    # quiet before the command's module is imported (the group's own callback runs after): some libraries read their
    # switches once, at import (Hugging Face's progress bars)
    args = sys.argv[1:] if argv is None else argv
    if "rc1.trust.keys" in sys.modules:   # a command's --trust pins its own trust root, not the next command's
        sys.modules["rc1.trust.keys"].pin(None)
    quiet_libraries(verbose_requested() or bool(args) and args[0] in ("-v", "--verbose"))
    os.environ.setdefault("GIT_PYTHON_REFRESH", "quiet")
    # one torch/BLAS thread unless the user says otherwise (read when torch is first imported): the tiny model's ops
    # gain nothing from two, and on a shared machine two threads spin against the other jobs (measured: a 4-step dev
    # training 13 s at 1 thread, 31-33 s at 2, load average 3.3)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    # SIGTERM (a scheduler, `kill`) unwinds like Ctrl-C, and both are kept until obeyed (rc1.core.proc.check_stop): the
    # stage's MLflow run ends KILLED instead of RUNNING forever, or of going on after an interrupt Python swallowed
    on_main = threading.current_thread() is threading.main_thread()
    before = {sig: signal.signal(sig, raise_stopped) for sig in (signal.SIGTERM, signal.SIGINT)} if on_main else {}
    try:
        cli.main(args=argv, standalone_mode=False, prog_name="rc1")
    except CheckFailed as e:
        print(f"rc1: {scrub(e.line())}", file=sys.stderr)
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
    except Stopped as e:
        print("rc1: stopped (SIGTERM)", file=sys.stderr)
        sys.exit(e.code)
    except Exception as e:
        problem = environment_problem(e, _store_name())
        if problem:   # the machine's, not rc1's: one line, exit 2, no trace to read
            print(f"rc1: error: {scrub(problem)}", file=sys.stderr)
            sys.exit(2)
        report = write_error_report(e)
        logging.getLogger("rc1").debug("crash", exc_info=True)
        print(f"FATAL: {type(e).__name__}: {scrub(str(e))}" + (f" (details: {report})" if report else ""),
              file=sys.stderr)
        sys.exit(1)
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)
        clear_stop()


def run() -> None:
    """The `rc1` process (console script, `python -m rc1.cli`): main(), then the exit.

    Once main() is done the process ends without tearing the interpreter down: freeing the modules of mlflow,
    sqlalchemy and pandas alone takes ~0.5 s of every stage (measured: `import mlflow.store.tracking.sqlalchemy_store`
    2.76 s with the teardown, 2.23 s without). Everything a normal exit does that can matter still happens first, in
    its order: non-daemon threads are joined (and thread pools told to stop), the atexit functions run (mlflow's and
    logging's flushes), and every output buffer is flushed (_flush_outputs). main() called in-process (tests,
    notebooks) returns or raises as before."""
    import atexit

    adopted = os.environ.get("MLFLOW_RUN_ID")   # the run `mlflow run` opened for this process (rc1 adopts it)
    try:
        main()
        code = 0
    except SystemExit as e:
        code = e.code
    code = _exit_status(code)
    if adopted and code:
        _record_exit(adopted, code)
    try:
        if code not in (130, 143):   # stopped by a signal: no wait for judge calls in flight (their runs ended KILLED)
            threading._shutdown()   # what the interpreter's exit runs first: executors told to stop, threads joined
    except BaseException:    # Ctrl-C while a thread is waited for: reported and passed over, as the interpreter does
        if sys.stderr is not None:
            with contextlib.suppress(Exception):
                print("Exception ignored while waiting for threads at exit:", file=sys.stderr)
                traceback.print_exc()
    atexit._run_exitfuncs()
    if not _flush_outputs():
        code = 120   # what the interpreter exits with when its own flush fails: the output is not all there
    os._exit(code)


def _record_exit(run_id: str, code: int) -> None:
    """`mlflow run` reports any failure of its command as exit 1; rc1's own status (2: refused or a gate failed, 1: a
    crash) goes on the run as the tag rc1.exit_code (`mlflow runs describe --run-id ID`). Best effort: the store may be
    what failed."""
    with contextlib.suppress(Exception):
        from mlflow.tracking import MlflowClient

        MlflowClient().set_tag(run_id, "rc1.exit_code", str(code))


def _exit_status(code) -> int:
    """The status the interpreter gives `sys.exit(code)`: None 0, a whole number as is (255 where it does not fit
    a C int, as CPython does), anything else printed to stderr and 1."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code if -2**31 <= code < 2**31 else 255
    if sys.stderr is not None:   # closed (the process started without fd 2): nowhere to say it
        with contextlib.suppress(Exception):
            print(code, file=sys.stderr)
    return 1


def _flush_outputs() -> bool:
    """What the interpreter's exit flushes and os._exit does not: sys.stdout and sys.stderr, the original streams
    where something replaced those, and the C library's stdio buffers (a C extension's printf to a pipe or file).
    A stream that is None (the process started with that fd closed), closed, or a broken pipe is passed over;
    False (after one line on stderr, where it can go) when a stream could not be written (a full disk, an I/O error)."""
    seen, written = set(), True
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        if stream is None or id(stream) in seen:
            continue
        seen.add(id(stream))
        try:
            stream.flush()
        except BrokenPipeError:   # the reader is gone (`rc1 ... | head`): nothing more can reach it
            pass
        except OSError as e:
            written = False
            with contextlib.suppress(Exception):
                print(f"rc1: error: output lost at exit ({getattr(stream, 'name', 'a stream')}): {e}", file=sys.stderr,
                      flush=True)
        except Exception:   # closed, or not a real stream
            pass
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL(None).fflush(None)   # fflush(NULL): every C stdio output stream
    return written

