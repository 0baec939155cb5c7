"""attn_lib._memory.give_back: memory that numpy freed goes back to the system (glibc), as notebook 15's budget needs.

Run in a fresh process: glibc keeps freed blocks below its mmap threshold in the heap, and freeing one large
block raises that threshold, so a long forward pass's temporaries stay resident after they are freed.
"""

import subprocess
import sys
import textwrap

import pytest

from attn_lib import _memory

SCRIPT = textwrap.dedent(
    """
    import numpy as np
    from attn_lib._memory import give_back

    def resident_mib():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * 4096 / 2**20

    np.ones(16 << 20, np.uint8)  # freed at once: glibc's mmap threshold rises to 16 MiB
    blocks, pins = [], []
    for _ in range(120):  # 120 MiB in the heap, pages touched, each block followed by a small one still in use
        blocks.append(np.ones(1 << 20, np.uint8))
        pins.append(np.ones(64 << 10, np.uint8))
    del blocks  # 120 holes between the pins: free, yet resident (only the heap's top is returned by itself)
    before = resident_mib()
    give_back()
    print(before - resident_mib())
    """
)


@pytest.mark.skipif(_memory._libc is None, reason="give_back does something only with glibc's allocator")
def test_give_back_returns_freed_memory_to_the_system():
    freed = float(subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True).stdout)
    assert freed > 100, f"give_back returned only {freed:.1f} MiB of the 120 MiB freed"


def test_give_back_does_nothing_harmful_without_glibc(monkeypatch):
    monkeypatch.setattr(_memory, "_libc", None)
    assert _memory.give_back() is None
