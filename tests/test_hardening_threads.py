"""attn_lib._threads under concurrent callers (issue 41, T4-04 and T4-05).

T4-04: a caller that asks for more workers replaced the pool of threads and shut the old one down while
another caller was still submitting to it ("cannot schedule new futures after shutdown").
T4-05: with threadpoolctl 3.8 (OpenBLAS's pthreads layer: one process-wide pool) only the thread that first
changes BLAS's limit may change it again until it lets go; the first call left the calling thread in control,
so `blas_single_thread()` did nothing in every other thread (the language model's check runs in one).
"""

import gc
import threading
import time

import pytest

import attn_lib._threads as threads_module
from attn_lib._threads import MIN_PARALLEL_WORK, blas_single_thread, executor, run_tasks

threadpoolctl = pytest.importorskip("threadpoolctl")


@pytest.fixture
def own_pool(monkeypatch):
    """A pool of threads made for this test, the module's own put back after it (and its threads let go)."""
    monkeypatch.setattr(threads_module, "_pool", None)
    monkeypatch.setattr(threads_module, "_pool_size", 0)
    monkeypatch.setattr(threads_module, "_pool_pid", None)
    yield
    monkeypatch.undo()
    gc.collect()


def in_threads(*targets):
    """Run each target in its own thread, join them all -> the exceptions they raised."""
    errors = []

    def guarded(target):
        try:
            target()
        except BaseException as exc:  # reported by the caller
            errors.append(exc)

    threads = [threading.Thread(target=guarded, args=(t,)) for t in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads), "a thread did not finish"
    return errors


# --- T4-04: a larger pool never shuts down the one another caller is using ------------------------------------


def test_callers_keep_working_while_another_caller_grows_the_pool(own_pool):
    """Two threads call run_tasks with threads=8 in a loop while a third asks for ever more workers.

    Before the fix the growing caller shut the old pool down between another caller's executor() and its
    submit(): RuntimeError within the first few dozen rounds (measured: under 0.1 s, every run). Now 600
    rounds of the steady callers, each with all of its tasks done, while the pool keeps growing (about 0.5 s).
    """
    done = threading.Event()
    rounds = {"steady": 0, "grown": 0}

    def steady():
        try:
            while not done.is_set():
                seen = []
                run_tasks(list(range(16)), lambda task, _, seen=seen: seen.append(task), 8, MIN_PARALLEL_WORK)
                assert sorted(seen) == list(range(16))
                rounds["steady"] += 1
        finally:
            done.set()  # the first error ends the test at once

    def growing():
        try:
            deadline = time.monotonic() + 30
            while rounds["steady"] < 600 and not done.is_set() and time.monotonic() < deadline:
                executor(9 + rounds["grown"])  # a new, larger pool every time
                rounds["grown"] += 1
                time.sleep(0)  # let the steady callers run in between
        finally:
            done.set()

    errors = in_threads(steady, steady, growing)
    assert not errors, errors[0]
    assert rounds["steady"] >= 600 and rounds["grown"] >= 100, rounds


def test_replaced_pools_let_their_threads_go(own_pool):
    """A pool replaced by a larger one is not shut down, but its threads end once no caller holds it."""

    def pool_threads():
        return [t for t in threading.enumerate() if t.name.startswith("attn_lib")]

    start = len(pool_threads())
    for workers in range(2, 12):
        pool = executor(workers)
        futures = [pool.submit(time.sleep, 0.01) for _ in range(workers)]
        for future in futures:
            future.result()
    del pool, futures
    deadline = time.monotonic() + 10
    while len(pool_threads()) > start + 11 and time.monotonic() < deadline:
        gc.collect()
        time.sleep(0.01)
    assert len(pool_threads()) <= start + 11  # the last pool's 11 threads, not the 65 of all ten pools


# --- T4-05: BLAS limited from any thread, restored by the last caller to leave ----------------------------------


def blas_threads():
    return [pool["num_threads"] for pool in threadpoolctl.threadpool_info() if pool["user_api"] == "blas"]


@pytest.fixture
def blas_before():
    """BLAS's thread counts now: the test needs a BLAS with more than one thread to see a limit at all."""
    before = blas_threads()
    if not before or max(before) < 2:
        pytest.skip(f"no BLAS with more than one thread to limit ({before})")
    yield before
    assert blas_threads() == before


def in_a_thread(target):
    errors = in_threads(target)
    assert not errors, errors[0]


def test_blas_single_thread_works_in_a_second_thread_after_a_call_in_the_main_thread(blas_before):
    assert threading.current_thread() is threading.main_thread()
    with blas_single_thread():
        assert blas_threads() == [1] * len(blas_before)
    assert blas_threads() == blas_before
    seen = {}

    def second():
        with blas_single_thread():
            seen["inside"] = blas_threads()
        seen["after"] = blas_threads()

    in_a_thread(second)
    assert seen == {"inside": [1] * len(blas_before), "after": blas_before}
    with blas_single_thread():  # and the main thread again
        assert blas_threads() == [1] * len(blas_before)


def nested_in_two_threads(first_to_leave):
    """A enters, then B; `first_to_leave` leaves while the other is still inside -> what each saw."""
    a_in, b_in, left = threading.Event(), threading.Event(), threading.Event()
    seen = {}

    def a():
        with blas_single_thread():
            a_in.set()
            assert b_in.wait(10)
            if first_to_leave == "b":
                assert left.wait(10)
                seen["still inside"] = blas_threads()
        if first_to_leave == "a":
            left.set()

    def b():
        assert a_in.wait(10)
        with blas_single_thread():
            b_in.set()
            if first_to_leave == "a":
                assert left.wait(10)
                seen["still inside"] = blas_threads()
        if first_to_leave == "b":
            left.set()

    errors = in_threads(a, b)
    assert not errors, errors[0]
    return seen


@pytest.mark.parametrize("first_to_leave", ["a", "b"])
def test_blas_single_thread_nests_across_threads(blas_before, first_to_leave):
    """The limit holds while any thread is inside; the last to leave, whichever, restores it."""
    with blas_single_thread():  # the main thread first, as in a notebook
        pass
    assert nested_in_two_threads(first_to_leave) == {"still inside": [1] * len(blas_before)}
    assert blas_threads() == blas_before


def test_blas_single_thread_leaves_threadpoolctl_free_for_other_threads(blas_before):
    """After our call in the main thread, another thread's own threadpool_limits works (no thread kept control)."""
    with blas_single_thread():
        pass
    seen = {}

    def user():
        with threadpoolctl.threadpool_limits(limits=1, user_api="blas"):
            seen["inside"] = blas_threads()
        seen["after"] = blas_threads()

    in_a_thread(user)
    assert seen == {"inside": [1] * len(blas_before), "after": blas_before}
