"""An address that is not a Dask scheduler (an HTTP server, a server sending junk) is refused in one line within the
scheduler timeout, instead of a connection that waits for ever."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

pytest.importorskip("distributed", reason="the dask extra is not installed (pip install -e '.[dask]')")

from jbag_pipeline.compute import DaskCompute  # noqa: E402
from jbag_pipeline.compute.backends import CONNECT_TIMEOUT, TIMEOUT_ENV, scheduler_timeout  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


class _Page(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"<html>not dask</html>")

    def log_message(self, *args):
        pass


@pytest.fixture
def http_server():
    """An HTTP server on 127.0.0.1 (it reads Dask's handshake as a request line and waits for its end)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"tcp://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture
def junk_server():
    """A server that answers every connection with an HTTP error page, whatever it was sent."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    stop = threading.Event()

    def serve():
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            with conn:
                conn.sendall(b"HTTP/1.0 400 Bad Request\r\nContent-Type: text/html\r\n\r\n<html>junk</html>\r\n")
                time.sleep(0.5)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"tcp://127.0.0.1:{listener.getsockname()[1]}"
    stop.set()
    thread.join()
    listener.close()


def test_an_http_server_is_refused_when_the_timeout_runs_out(http_server):
    start = time.monotonic()
    with pytest.raises(ValueError, match=rf"{http_server} did not answer as a Dask scheduler within 2s") as caught:
        DaskCompute(http_server, timeout=2).client()
    assert time.monotonic() - start < 10 and "\n" not in str(caught.value)


def test_a_server_answering_junk_is_not_a_dask_scheduler(junk_server):
    with pytest.raises(ValueError, match=rf"{junk_server} is not a Dask scheduler \(") as caught:
        DaskCompute(junk_server, timeout=5).client()
    assert "\n" not in str(caught.value)


def test_the_scheduler_timeout_defaults_to_30s_and_is_settable(monkeypatch):
    monkeypatch.delenv(TIMEOUT_ENV, raising=False)
    assert scheduler_timeout() == CONNECT_TIMEOUT == 30.0
    assert DaskCompute("tcp://127.0.0.1:8786").timeout == 30.0
    monkeypatch.setenv(TIMEOUT_ENV, "4.5")
    assert DaskCompute("tcp://127.0.0.1:8786").timeout == 4.5
    assert DaskCompute("tcp://127.0.0.1:8786", timeout=2).timeout == 2.0
    for bad in ("0", "-1", "inf", "nan", "soon"):
        monkeypatch.setenv(TIMEOUT_ENV, bad)
        with pytest.raises(ValueError, match=TIMEOUT_ENV):
            scheduler_timeout()


def test_jbag_run_against_an_http_server_ends_in_one_line_and_creates_nothing(http_server, tmp_path):
    data = tmp_path / "data"
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "jbag_pipeline.cli", "run", "--preset", "smoke", "--compute", "dask",
                           "--scheduler", http_server, "--scheduler-timeout", "2", "--data-dir", str(data)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("jbag run: error: ")
    assert "did not answer as a Dask scheduler within 2s" in done.stderr
    assert time.monotonic() - start < 60
    assert list(tmp_path.iterdir()) == []
