"""The boot log: what stopped the board's boot, kept on its flash, shown on its faces and told
to the PC.

Start reading at ``fail``. Whatever stops the boot (boot.py's error, main.py importing the
firmware, frozen machine code the chip cannot run, a known-answer self-check, ``board.build`` wiring the board, the app once it runs;
a ``MemoryError`` as well) comes to ``fail``, which writes it to the log, shows it on both
faces if they exist yet, and keeps it from being written twice (``board.build`` writes what
it sees, and main.py's last-resort handler sees the same exception again).

The file, ``/boot.log`` on the board (``board.build`` attaches it under the flash folder,
``hw.root``, on the virtual board and the benches), is UTF-8 text, one entry a line:

    error <stage>: <what>       a boot that stopped there (or boot.py's error: the app ran)
      <traceback>               its lines, each indented two spaces
    ok                          the app started after an error (written only then)
    note <what>                 something the board goes on without (the voice file)

``<stage>`` is ``boot.py``, ``start`` (main.py loading the firmware, making the HAL),
``image`` (firmware/boot/imagecheck.py: the image's frozen native/viper code misaligned, before
any of it runs), ``selfcheck``, ``build`` or ``run`` (the app, once started); ``<what>`` is
``Type: message``, or for a self-check ``CHECK <tag> <kernels>: item 3 is 0, known 2``, for
the image ``87 of 169 frozen native/viper functions misaligned (...): <the first three>``.
A clean boot writes nothing at all: no flash is worn and no time spent when all is well.
The file is kept to the last ``LIMIT`` bytes (the oldest whole entries go) and always
rewritten whole, atomically: a temporary file renamed over it (LittleFS's rename is atomic,
as ``store/journal.py``'s ``write_atomic`` relies on), so a power cut leaves the old log or
the new one.

``started()`` (``board.build``, once the app is wired) gives the previous boot's error if it
ended in one, and then writes ``ok``: the link's ``hello`` reports it as ``boot_error``, so
the PC can say why the board did not start last time. This module imports nothing of the
firmware but firmware/ui/texts.py (which imports nothing), so it works when the rest cannot
be loaded.
"""

import os

PATH = "/boot.log"
LIMIT = 4096  # bytes of log kept
TRACE = 1024  # bytes of one traceback kept
LINE = 200  # characters of an entry's first line (what ``hello`` reports) kept
SHOWN = 60  # characters of ``<what>`` the faces' words get (an OLED shows some)

_path = PATH
_faces = None
_stage = "start"
_logged = None  # the exception ``fail`` last wrote


def attach(path, faces=None):
    """Log to ``path`` from now on, and show failures on ``faces`` (``show_text``)."""
    global _path, _faces, _logged
    _path = path
    _faces = faces
    _logged = None


def stage(name):
    """Where the boot is now: the stage ``fail`` names."""
    global _stage
    _stage = name


def summary(e):
    """One line for an exception: ``Type: message`` (a self-check's own message)."""
    if getattr(e, "tag", None) is not None:  # selfcheck.Failed
        return str(e)
    text = str(e)
    name = type(e).__name__
    return name + ": " + text if text else name


def trace(e):
    """The exception's traceback as text (``TRACE`` bytes at most), or "" if it cannot be had."""
    try:
        import io
        import sys

        buf = io.StringIO()
        if hasattr(sys, "print_exception"):  # MicroPython
            sys.print_exception(e, buf)
        else:  # CPython (the tests)
            import traceback

            traceback.print_exception(type(e), e, e.__traceback__, file=buf)
        text = buf.getvalue()
    except Exception:
        return ""
    if len(text) > TRACE:
        text = "...\n" + text[-TRACE:]
    return text


def fail(e, where=None):
    """Write the exception ``e`` that stopped the boot at stage ``where`` (default: the stage
    now) to the log and show it on the faces; the line written (without ``error ``), or
    None if ``e`` was written already. Never raises."""
    global _logged
    if e is _logged:
        return None
    _logged = e
    try:
        import gc

        gc.collect()  # a MemoryError: what the failed step held is garbage now
        line = (where or _stage) + ": " + summary(e)
        line = line.replace("\n", " ")[:LINE]
        entry = "error " + line + "\n"
        for t in trace(e).split("\n"):
            if t:
                entry += "  " + t + "\n"
        show(e, line)
        _append(entry)
        return line
    except Exception as err:  # the log is a help, never a new way to fail
        try:
            print("tengen: boot log not written:", repr(err))
        except Exception:
            pass
        return None


def show(e, line=""):
    """The failure on both faces: ``FAULT`` and the check's tag, ``HEAP ERR`` for a
    MemoryError, else ``BOOT ERR`` (firmware/ui/texts.py's words: it imports nothing);
    ``line`` as the words a display with room shows."""
    faces = _faces
    if not faces:
        return
    try:
        from firmware.ui import texts as T
    except Exception:  # the package cannot be loaded: the log is written all the same
        return
    tag = getattr(e, "tag", None)
    if tag is not None:
        word, small = T.FAULT, tag
    elif isinstance(e, MemoryError):
        word, small = T.HEAP, T.ERR
    else:
        word, small = T.BOOT, T.ERR
    more = line[:SHOWN]
    for f in faces:
        try:
            try:
                f.show_text(word, small, 0, more)
            except TypeError:  # a face with no room for words
                f.show_text(word, small, 0)
        except Exception:  # one dead face must not hide the other
            pass


def read(path=None):
    """The log's text ("" if there is none)."""
    try:
        with open(path or _path, "rb") as f:
            return f.read().decode()
    except (OSError, ValueError):
        return ""


def last_error(path=None):
    """What stopped the boot, if the log's last entry is an error: ``<stage>: <what>``;
    else None."""
    last = None
    for line in read(path).split("\n"):
        if line and line[0] != " ":
            last = line
    if last is not None and last.startswith("error "):
        return last[6:]
    return None


def started():
    """The app is wired and about to run: the previous boot's error (``last_error``), which
    the link's ``hello`` reports; when there was one, ``ok`` follows it in the log. From here
    on a failure is the ``run`` stage's."""
    err = last_error()
    if err is not None:
        try:
            _append("ok\n")
        except Exception as e:
            print("tengen: boot log not written:", repr(e))
    stage("run")
    return err


def note(line):
    """Write ``note <line>``: the board goes on without something (no boot error); not again
    when it is the log's last entry (the same note every boot would wear the flash). Never
    raises."""
    try:
        entry = "note " + line[:LINE] + "\n"
        if not read().endswith(entry):
            _append(entry)
    except Exception:
        pass


def _append(entry):
    data = read() + entry
    if len(data) > LIMIT:
        # Keep the newest LIMIT bytes, from the first whole entry in them.
        cut = len(data) - LIMIT
        i = data.find("\n", cut - 1)
        while 0 <= i < len(data) - 1 and data[i + 1] == " ":
            i = data.find("\n", i + 1)
        data = data[i + 1 :] if i >= 0 else entry[-LIMIT:]
    tmp = _path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data.encode())
    os.rename(tmp, _path)
