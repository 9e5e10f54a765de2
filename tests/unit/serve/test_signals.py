"""A second stop signal while the server commits is held off, not fatal."""
import os
import signal
import threading

from workbench.serve import signals_held


def test_sigterm_while_committing_is_ignored_and_the_handlers_come_back():
    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    with signals_held(None):
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_IGN
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
        os.kill(os.getpid(), signal.SIGTERM)  # would end this test run if not held
        os.kill(os.getpid(), signal.SIGINT)
    assert {s: signal.getsignal(s) for s in before} == before


def test_a_library_caller_with_its_own_stopper_keeps_its_handlers():
    before = signal.getsignal(signal.SIGTERM)
    with signals_held(lambda stop: None):
        assert signal.getsignal(signal.SIGTERM) is before


def test_off_the_main_thread_nothing_is_changed():
    seen = []

    def work():
        with signals_held(None):
            seen.append(signal.getsignal(signal.SIGTERM))
    t = threading.Thread(target=work)
    t.start()
    t.join()
    assert seen == [signal.getsignal(signal.SIGTERM)]
