"""``python -m firmware.gtp`` / ``micropython -m firmware.gtp``: the GTP engine on stdin and
stdout (``firmware/gtp/go.py``'s ``main``)."""

from firmware.gtp.go import main

main()
