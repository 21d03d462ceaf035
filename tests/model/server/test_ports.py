"""Local servers: a free port, waiting until one is ready, and stopping it with all it started."""

import os
import signal
import socket
import subprocess
import sys

import pytest

from kitchen.model.server.ports import free_port, listening, running, stop, wait_for, wait_for_port


@pytest.fixture
def server_socket():
    """A socket listening on a free port of 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield s


def python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_a_free_port_has_nothing_listening_on_it():
    port = free_port()
    assert 1024 < port < 65536 and not listening(port)


def test_listening_is_true_exactly_while_a_socket_listens(server_socket):
    port = server_socket.getsockname()[1]
    assert listening(port)
    wait_for_port(port, seconds=1)  # returns at once
    server_socket.close()
    assert not listening(port)


def test_waiting_for_what_never_gets_ready_times_out_and_names_it():
    with pytest.raises(TimeoutError, match="the toy server was not ready within 0.3 s"):
        wait_for(lambda: False, 0.3, "the toy server")
    port = free_port()
    with pytest.raises(TimeoutError, match=f"the server on port {port}"):
        wait_for_port(port, seconds=0.3)


def test_a_server_that_exits_before_it_is_ready_is_an_error_with_the_end_of_its_log(tmp_path):
    log = tmp_path / "server.log"
    with pytest.raises(RuntimeError, match=r"(?s)the toy server exited with code 3 .*no model file"):
        with running(python("print('error: no model file'); raise SystemExit(3)"), log, lambda: False, 30,
                     "the toy server"):
            pass


def test_a_running_server_is_stopped_on_leaving(tmp_path):
    log = tmp_path / "server.log"
    code = "import os, time; print(os.getpid(), flush=True); time.sleep(60)"
    with running(python(code), log, lambda: log.read_text().strip() != "", 30, "the toy server"):
        pid = int(log.read_text())
        os.kill(pid, 0)  # alive
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_a_process_that_ignores_the_request_to_end_is_killed_after_the_wait():
    code = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print('up', flush=True); time.sleep(60)"
    process = subprocess.Popen(python(code), stdout=subprocess.PIPE, text=True, start_new_session=True)
    assert process.stdout.readline().strip() == "up"  # its handler is in place
    stop(process, seconds=0.5)
    assert process.returncode == -signal.SIGKILL
    process.stdout.close()
    polite = subprocess.Popen(python("import time; time.sleep(60)"), start_new_session=True)
    stop(polite, seconds=15)
    assert polite.returncode == -signal.SIGTERM
