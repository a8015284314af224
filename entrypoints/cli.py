"""TRANSITION: the CLI moved to rc1.cli."""

from rc1.cli import *  # noqa: F401,F403
from rc1.cli import main, run, cli, print_checks_table  # noqa: F401

if __name__ == "__main__":
    run()
