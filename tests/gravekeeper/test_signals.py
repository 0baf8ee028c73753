"""Stopping on a signal, whichever thread the kernel hands it to (gravekeeper/signals.py)."""

from __future__ import annotations

import os
import signal
import threading

from gravekeeper.signals import StopOnSignals


def test_a_signal_handed_to_another_thread_still_wakes_the_main_threads_wait() -> None:
    # What stopped `gravekeeper run` from stopping about once in forty: a main thread blocked in
    # Event.wait never runs a Python handler for a signal another thread received.
    stop, done = threading.Event(), threading.Event()
    worker = threading.Thread(target=done.wait, args=(30,))
    worker.start()
    try:
        with StopOnSignals(stop, (signal.SIGUSR1,)) as watching:
            assert worker.ident is not None
            threading.Timer(0.2, signal.pthread_kill, (worker.ident, signal.SIGUSR1)).start()
            assert stop.wait(10), "the wait was not woken"
            assert watching.received == signal.SIGUSR1
    finally:
        done.set()
        worker.join(5)


def test_a_signal_to_the_process_sets_it_and_leaving_puts_the_handler_back() -> None:
    before = signal.getsignal(signal.SIGUSR2)
    stop = threading.Event()
    with StopOnSignals(stop, (signal.SIGUSR2,)):
        assert signal.getsignal(signal.SIGUSR2) is not before
        os.kill(os.getpid(), signal.SIGUSR2)
        assert stop.wait(10)
    assert signal.getsignal(signal.SIGUSR2) is before


def test_another_signal_with_a_handler_does_not_stop() -> None:
    stop = threading.Event()
    seen = threading.Event()
    previous = signal.signal(signal.SIGUSR1, lambda *_: seen.set())
    try:
        with StopOnSignals(stop, (signal.SIGUSR2,)):
            os.kill(os.getpid(), signal.SIGUSR1)
            assert seen.wait(10)
            assert not stop.wait(0.5)  # a wait for something that must not happen: the watcher had its chance
    finally:
        signal.signal(signal.SIGUSR1, previous)
