from .cli._main import run

run()
