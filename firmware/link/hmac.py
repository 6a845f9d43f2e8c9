"""HMAC-SHA256 (RFC 2104) from ``hashlib.sha256``: MicroPython has no ``hmac`` module.

The board signs each game's stored bytes with its secret (``server.load_secret``); the host
checks them with CPython's ``hmac`` once it knows the key (``pair``). ``tests/test_link.py``
compares this with CPython's ``hmac`` on keys and messages of every interesting length.
"""

import hashlib

_BLOCK = 64  # SHA-256's block size in bytes


def hmac_sha256(key, msg):
    """The 32-byte HMAC-SHA256 of ``msg`` under ``key`` (bytes-like, any length)."""
    key = bytes(key)
    if len(key) > _BLOCK:
        key = hashlib.sha256(key).digest()
    key = key + bytes(_BLOCK - len(key))
    inner = hashlib.sha256(bytes(b ^ 0x36 for b in key))
    inner.update(msg)
    outer = hashlib.sha256(bytes(b ^ 0x5C for b in key))
    outer.update(inner.digest())
    return outer.digest()


def equal(a, b):
    """``a == b`` for two byte strings, in a time that does not depend on where they differ."""
    if len(a) != len(b):
        return False
    diff = 0
    for i in range(len(a)):
        diff |= a[i] ^ b[i]
    return diff == 0
