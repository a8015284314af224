from rc1.cli import run

run()
