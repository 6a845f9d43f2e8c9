"""What every part of the host tools uses: the board's USB link (``link.py``; start reading
at ``Link.request``), the boards' keys on this PC (``keys.py``: the link signs with them), the
records in words (``words.py``), and what the commands share (``cli.py``). It imports no other
package of the host tools.
"""
