"""Handing the memory of a long forward pass back to the system once its arrays are freed.

On Linux, glibc's allocator keeps memory that numpy frees for reuse by the same thread (each thread has its own
arena) instead of returning it. A real model's forward pass over a few hundred tokens frees about 100 MiB of
temporaries; a notebook that runs such passes in the main thread and then in a checker's worker thread would
hold both arenas' share at once (notebook 15: 959 MiB at its peak against 860 MiB with this). `give_back()`
asks glibc to return what is free (malloc_trim); elsewhere (macOS, Windows, musl) it does nothing, and their
allocators return large blocks by themselves.
"""

import ctypes
import ctypes.util
import sys

_libc = None
if sys.platform.startswith("linux"):
    try:
        _libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        _libc.malloc_trim  # noqa: B018 - glibc only: musl has no malloc_trim
    except (OSError, AttributeError):
        _libc = None


def give_back():
    """Return the memory freed so far to the system, where the allocator can (glibc); else do nothing."""
    if _libc is not None:
        _libc.malloc_trim(0)
