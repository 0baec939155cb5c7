"""Exclusive locks on files, across processes (fcntl's flock; msvcrt's locking on Windows), for the model cache.

A lock is released when its file is closed or its process dies, so a killed fetch never leaves the cache locked.
"""

import contextlib
import sys


def lock(f, blocking):
    """Take an exclusive lock on the open file `f` (released when it is closed, or its process dies); True if taken."""
    if sys.platform == "win32":
        import msvcrt

        while True:
            try:
                f.seek(0)
                msvcrt.locking(f.fileno(), msvcrt.LK_NBLCK, 1)
                return True
            except OSError:
                if not blocking:
                    return False
    import fcntl

    try:
        fcntl.flock(f, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
        return True
    except BlockingIOError:
        return False


def unlock(f):
    """Release the lock taken on the open file `f` by `lock`."""
    if sys.platform == "win32":
        import msvcrt

        f.seek(0)
        msvcrt.locking(f.fileno(), msvcrt.LK_UNLCK, 1)
    else:
        import fcntl

        fcntl.flock(f, fcntl.LOCK_UN)


@contextlib.contextmanager
def exclusive(lock_path, wait=True, waiting_message=None):
    """Hold an exclusive lock on `lock_path` (created if needed) while the block runs; wait for it if taken.

    With wait=False the block runs at once, given False if another process holds the lock (True if taken).
    waiting_message is printed when the lock is taken and the block waits for it.
    """
    with open(lock_path, "a+b") as lock_file:
        taken = lock(lock_file, blocking=False)
        if not taken and wait:
            if waiting_message:
                print(waiting_message, flush=True)
            taken = lock(lock_file, blocking=True)
        try:
            yield taken
        finally:
            if taken:
                unlock(lock_file)
