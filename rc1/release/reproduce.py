"""The reproducible package of a registered version (or of one preflight): what to check out, which files,
which environment and which commands give the same artifacts again, with every sha256 to compare against.

Pure: run facts (ids, params, tags) in, a manifest and REPRODUCE.md out. The entry point gathers the runs
from the tracking server and copies the files."""

from __future__ import annotations

import shlex
from typing import Any, Mapping, Sequence

BUNDLE_VERSION = 1
BUNDLED_DIRS = ("configs", "templates")
# preflight's own files whose sha256 it tagged: a bundle of today's file must be the file preflight hashed
HASHED_CONFIGS = {"config": "rc1.path.config", "weights": "rc1.path.weights", "gates": "rc1.path.gates"}


# what a re-run takes from a preflight's params: not its --out-dir (the logged one is the mode's folder inside it), nor
# its judge endpoint (the re-running machine's own: a URL read from the tracking store never receives its key)
PREFLIGHT_RERUN = ("mode", "n", "seed", "data_dir", "config", "gates")


def preflight_argv(params: Mapping[str, str]) -> list[str]:
    """The `rc1 preflight` command that recreates a preflight run from its logged params."""
    return rerun_argv("preflight", {k: params[k] for k in PREFLIGHT_RERUN if k in params})


def gate_argv(params: Mapping[str, str]) -> list[str]:
    """The `rc1 gate` command of a gate run: its mode and step cap (the rest it takes from the preflight)."""
    return rerun_argv("gate", {k: params[k] for k in ("mode", "max_steps") if k in params})


def rerun_argv(name: str, params: Mapping[str, str]) -> list[str]:
    """`rc1 <name> ...`: the command's Config from logged params (rc1.cli.options.from_params), as its command line."""
    from rc1.cli.options import argv, command_config, from_params

    config = command_config(name)
    return ["rc1", name, *argv(config(**from_params(config, params)))]


def manifest(*, subject: Mapping[str, str], runs: Mapping[str, Mapping[str, Any]], files: Mapping[str, str],
             packages: Mapping[str, str], git_commit: str | None, commands: Sequence[Sequence[str]],
             expect: Mapping[str, str]) -> dict:
    """bundle.json: subject (version or preflight), run ids with their params and sha256 tags, the bundled files'
    sha256, the environment, the commands, and the sha256s a faithful re-run must reproduce (`expect`)."""
    return {"bundle_version": BUNDLE_VERSION, "subject": dict(subject), "git_commit": git_commit,
            "runs": {k: dict(v) for k, v in runs.items()}, "files": dict(sorted(files.items())),
            "packages": dict(sorted(packages.items())), "commands": [list(c) for c in commands],
            "expect": dict(expect)}


def requirements_txt(packages: Mapping[str, str]) -> str:
    return "".join(f"{name}=={version}\n" for name, version in sorted(packages.items()))


def reproduce_md(m: Mapping[str, Any]) -> str:
    subject = ", ".join(f"{k} {v}" for k, v in m["subject"].items())
    commit = m.get("git_commit") or "(not a git checkout: use the rc1 release that matches the packages list)"
    cmds = "\n".join(shlex.join(c) for c in m["commands"])
    expect = "\n".join(f"- `{name}`: `{sha}`" for name, sha in sorted(m["expect"].items()))
    runs = "\n".join(f"- {k}: `{v.get('run_id')}`" for k, v in m["runs"].items())
    return f"""# Reproducing {subject}

1. Check out rc1 at commit `{commit}` and install the environment:

   ```bash
   python3 -m venv .venv && . .venv/bin/activate && pip install torch==2.13.0 && pip install -e ".[test]"
   pip install -r requirements.txt   # the exact versions of the original run (optional, stricter)
   ```

2. Copy this bundle's `configs/` and `templates/` over the checkout's (their sha256 are in bundle.json `files`).
   The bundle holds no trust file: keep your own `configs/trust.yaml` (or `RC1_TRUST`), which decides whose
   signatures count on your machine; never take one from a bundle or a tracking store.
   Data: the same sources (`--data-dir` as below, or the sample bundled with rc1 when none is given); the original
   inputs' digests are the runs' `input_sha256.*` tags in bundle.json.

3. Run, with a fresh tracking store (`export MLFLOW_TRACKING_URI=sqlite:///mlruns/mlflow.db`):

   ```bash
{chr(10).join('   ' + line for line in cmds.splitlines())}
   ```

4. Compare: a faithful re-run tags its preflight run with these sha256 (`sha256.<name>`):

{expect}

Original runs:
{runs}
"""
