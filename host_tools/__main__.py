"""``python -m host_tools``: the same as the ``tengen`` command."""

from host_tools.cli import app

app(prog_name="tengen")
