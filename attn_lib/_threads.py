"""Threads for the blocked attention paths: independent blocks of work on every core, BLAS on one thread meanwhile.

numpy releases the GIL inside matrix products and ufuncs, so Python threads that each take a block of
queries run at the same time on different cores. The work is a list of independent tasks (one head and
one block of query rows each: a block's online softmax needs nothing from another block), taken
costliest first from a shared counter, so the cores stay busy until the end even when the blocks differ
in cost (causal blocks near the end of the sequence read more keys).

While the workers run, BLAS (OpenBLAS under numpy) is limited to one thread with threadpoolctl: its own
threads and ours would otherwise fight for the same cores (measured on 2 cores: up to 15x slower under
load). The limit is process-wide, so it is set once per call, not per worker (the first worker to
finish would lift it while the others still run), and counted, so that calls from several threads nest.
With `threads=1` a large input also runs with BLAS on one thread: one thread means one thread. Small
inputs (below MIN_PARALLEL_WORK multiply-adds) run in the calling thread and leave BLAS alone.

Any thread may be the one that sets or restores the limit (the last caller to leave restores it, whichever
thread that is), so each change is made as threadpoolctl's own `with threadpool_limits()` makes it: counted in
threadpoolctl's per-thread ownership (CONTROLLING_THREAD_OWNERSHIP) and handed back at once. threadpoolctl 3.8
lets only one thread at a time change OpenBLAS's process-wide pool (pthreads layer) and silently ignores the
others; a bare limit()/restore_original_limits() left the first thread in control for good, and every other
thread's limit did nothing (a worker thread's tiled_attention then ran 20-40x slower). Versions before 3.8 have
no such ownership and need nothing. While another thread holds a limit of its own with threadpoolctl, that
limit wins (threadpoolctl's rule).

One pool of threads serves the process. A caller that asks for more workers than it has gets a larger pool,
which replaces it for later callers; the smaller pool is never shut down, since another caller may be between
executor() and submit() on it ("cannot schedule new futures after shutdown"). It is only dropped: its threads
finish the work already submitted and end when the last caller lets go of it (ThreadPoolExecutor ends idle
threads when the pool is garbage-collected). Pools grow rarely (up to the largest `threads` asked for), so
this costs nothing in steady use and needs no lock around submit().

Without threadpoolctl (an old environment) the default is one thread and BLAS is never touched.
"""

import contextvars
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, nullcontext

import numpy as np

from attn_lib._checks import check_positive_int

try:
    import threadpoolctl
    from threadpoolctl import ThreadpoolController
except ImportError:  # pragma: no cover - a declared dependency; tests simulate its absence
    threadpoolctl = ThreadpoolController = None

#: Below this many multiply-adds (scores x (d_k + d_v)) threads cost more than they give: about 12 heads of
#: n = 180, or one head of n = 600 (measured on 2 cores: 2 threads start to pay at 57 M with 12 heads).
MIN_PARALLEL_WORK = 50_000_000


def default_threads():
    """The cores this process may run on (os.sched_getaffinity where it exists, else os.cpu_count())."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - macOS, Windows
        return max(1, os.cpu_count() or 1)


def resolve_threads(threads):
    """`threads` checked (a positive integer), or the default: every core, or 1 without threadpoolctl."""
    if threads is None:
        return default_threads() if ThreadpoolController is not None else 1
    return check_positive_int(threads, "threads")


# --- BLAS on one thread, reference-counted: calls from several user threads nest -------------------------------

_blas_lock = threading.Lock()
_blas_users = 0
_blas_limiter = None
_controller = None  # threadpoolctl's view of the loaded BLAS libraries, made once (it scans the process)


@contextmanager
def _as_blas_owner():
    """Make a limit change as `with threadpool_limits()` makes it: this thread owns OpenBLAS's limit meanwhile and
    lets go after (unless it already held it in a `with threadpool_limits()` of its own); see the module docstring."""
    ownership = getattr(threadpoolctl, "CONTROLLING_THREAD_OWNERSHIP", None)  # threadpoolctl >= 3.8
    if ownership is None:
        yield
        return
    ownership.increment()
    try:
        yield
    finally:
        ownership.decrement()


@contextmanager
def blas_single_thread():
    """BLAS limited to one thread inside the block, for the whole process; the last caller to leave restores it.

    Callers in any thread nest: the first to enter sets the limit, the last to leave (maybe another thread)
    restores the limits from before."""
    global _blas_users, _blas_limiter, _controller
    with _blas_lock:
        if _blas_users == 0:
            if _controller is None:
                _controller = ThreadpoolController()
            with _as_blas_owner():
                _blas_limiter = _controller.limit(limits=1, user_api="blas")
        _blas_users += 1
    try:
        yield
    finally:
        with _blas_lock:
            _blas_users -= 1
            if _blas_users == 0:
                with _as_blas_owner():
                    _blas_limiter.restore_original_limits()
                _blas_limiter = None


# --- one pool of threads for the process, started once (a thread costs about 0.1 ms to start) ------------------

_pool_lock = threading.Lock()
_pool = None
_pool_size = 0
_pool_pid = None


def executor(workers):
    """A pool of at least `workers` threads; a new one after os.fork() (the child has the pool but not its threads).

    A smaller pool replaced here is not shut down (another caller may still submit to it): it is dropped, and its
    threads end once nobody holds it (see the module docstring)."""
    global _pool, _pool_size, _pool_pid
    with _pool_lock:
        if _pool is None or _pool_size < workers or _pool_pid != os.getpid():
            _pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="attn_lib")
            _pool_size, _pool_pid = workers, os.getpid()
        return _pool


def run_tasks(tasks, work, threads, multiply_adds):
    """Call work(task, scratch) for every task, in `threads` threads (the caller's among them) or in this one.

    `tasks` come costliest first. Each thread keeps its own `scratch` dict (its block of scores, ...).
    The first error stops the other threads after their current task and is raised here. Threads are
    used only for at least MIN_PARALLEL_WORK multiply-adds and more than one task.
    """
    if multiply_adds < MIN_PARALLEL_WORK or ThreadpoolController is None:  # small: as numpy would, BLAS untouched
        threads = 1
        limit = nullcontext()
    elif threads > 1 and len(tasks) == 1:  # one block: BLAS may use its own threads on it
        limit = nullcontext()
    else:
        limit = blas_single_thread()
    if threads == 1 or len(tasks) == 1:
        scratch = {}
        with limit:
            for task in tasks:
                work(task, scratch)
        return

    lock, state = threading.Lock(), {"next": 0, "failed": False}

    def worker():
        scratch = {}
        while True:
            with lock:
                i = state["next"]
                if state["failed"] or i >= len(tasks):
                    return
                state["next"] = i + 1
            try:
                work(tasks[i], scratch)
            except BaseException:
                state["failed"] = True
                raise

    threads = min(threads, len(tasks))
    errors = []
    with limit:
        pool = executor(threads - 1)
        # each worker runs in a copy of the caller's context: numpy's errstate (a context variable) carries over
        futures = [pool.submit(contextvars.copy_context().run, worker) for _ in range(threads - 1)]
        try:
            worker()  # the calling thread works too
        except BaseException as exc:
            errors.append(exc)
        for future in futures:
            try:
                future.result()
            except BaseException as exc:
                errors.append(exc)
    if errors:
        raise errors[0]


def buffer(scratch, name, shape, dtype):
    """A [shape] view of this thread's scratch array `name`, grown when too small (so allocated once per call)."""
    array = scratch.get(name)
    size = int(np.prod(shape))
    if array is None or array.size < size or array.dtype != dtype:
        array = scratch[name] = np.empty(max(size, 1), dtype)
    return array[:size].reshape(shape)
