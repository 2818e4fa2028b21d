"""A sweep's local Dask cluster is private (issues 17, 27): while a sweep runs, a client
without the cluster's credentials cannot run a task on its scheduler (one with them can),
no process of the sweep listens for HTTP or on anything but 127.0.0.1, and no process
imports a module planted in Dask's shared scratch folders (its own is made for the run,
0700, and removed at close)."""

import gc
import http.server
import os
import shutil
import socket
import stat
import tempfile
import threading
from pathlib import Path

import pytest

SWEEP_EXTRA = "needs the 'sweep' extra: pip install '.[sweep]'"

# the cluster module imports Dask: skip before importing it (Dask, its psutil and the TLS
# credentials' cryptography are the 'sweep' extra's)
pytest.importorskip("distributed", reason=SWEEP_EXTRA)
pytest.importorskip("cryptography", reason=SWEEP_EXTRA)
psutil = pytest.importorskip("psutil", reason=SWEEP_EXTRA)

from freege.progress import QUIET  # noqa: E402
from freege.validation.sweep import cluster as sweep_cluster  # noqa: E402
from freege.validation.sweep import engine as sweep  # noqa: E402
from freege.validation.sweep.grid import expand  # noqa: E402


def _listening() -> set[tuple[str, int]]:
    """(host, port) of every listening socket of this process and its children, read from
    the processes' own socket tables."""
    me = psutil.Process()
    found = set()
    for proc in (me, *me.children(recursive=True)):
        for conn in proc.net_connections(kind="inet"):
            if conn.status == psutil.CONN_LISTEN:
                found.add((conn.laddr.ip, conn.laddr.port))
    return found


def _speaks_http(port: int) -> bool:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(b"GET /health HTTP/1.0\r\nHost: localhost\r\n\r\n")
        try:
            reply = s.recv(16)
        except OSError:
            return False
    return reply.startswith(b"HTTP/")


def test_http_probe_finds_an_http_server():
    """The probe can fail: it recognises a plain HTTP server."""
    server = http.server.HTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    thread = threading.Thread(target=server.handle_request, daemon=True)
    thread.start()
    try:
        assert _speaks_http(server.server_address[1])
    finally:
        thread.join(5)
        server.server_close()


def _plant(tmp: Path, marker: Path) -> None:
    """A ``gilknocker`` module (one Dask tries to import) in both of Dask's default scratch
    folders under ``tmp``, which writes ``marker`` when imported; ``tmp`` becomes the
    temporary folder of this process (and of any process it starts)."""
    for name in ("dask-scratch-space", f"dask-scratch-space-{os.getuid()}"):
        (tmp / name).mkdir(mode=0o777)
        (tmp / name / "gilknocker.py").write_text(
            f"open({str(marker)!r}, 'a').write('imported in ' + str(__import__('os').getpid()))\n"
            "raise ImportError('planted')\n")


@pytest.fixture
def planted(tmp_path, monkeypatch):
    """The marker path of :func:`_plant`'s modules, planted in a temporary ``TMPDIR``."""
    tmp, marker = tmp_path / "tmpdir", tmp_path / "planted-module-ran.txt"
    tmp.mkdir()
    _plant(tmp, marker)
    monkeypatch.setenv("TMPDIR", str(tmp))
    monkeypatch.setattr(tempfile, "tempdir", None)  # gettempdir() reads TMPDIR afresh
    assert tempfile.gettempdir() == str(tmp)
    return marker


def _write(path: str) -> str:
    Path(path).write_text("ran")
    return path


def _scratch(dask_worker=None, dask_scheduler=None) -> str:
    return (dask_worker or dask_scheduler).local_directory


def test_sweep_cluster_refuses_clients_without_its_credentials(tmp_path, monkeypatch, planted):
    from distributed import Client
    from distributed.security import Security

    clusters = []
    real_start = sweep_cluster.start

    def start(*args):
        clusters.append(real_start(*args))
        return clusters[-1]

    monkeypatch.setattr(sweep_cluster, "start", start)
    seen: dict[str, object] = {}

    def probe(record):
        if seen:
            return
        cluster = clusters[0]
        address = cluster.scheduler_address
        seen["address"] = address
        seen["listening"] = _listening() - before  # the sweep's own sockets
        seen["http"] = [port for _, port in seen["listening"] if _speaks_http(port)]
        refused = []
        for who, kwargs in (("foreign credentials", {"security": Security.temporary()}),
                            ("plain tcp", {}),
                            ("no credentials", {})):
            target = address.replace("tls://", "tcp://") if who == "plain tcp" else address
            marker = tmp_path / f"{who.replace(' ', '-')}.txt"
            try:
                with Client(target, timeout=1, **kwargs) as client:
                    client.submit(_write, str(marker), pure=False).result(timeout=5)
            except Exception:  # refused: TLS handshake, timeout, or no TLS context
                refused.append(who)
            # a refused Client is half built: collect it here, not inside the next
            # Client's start (its __del__ stops the shared loop runner: a deadlock)
            gc.collect()
            assert not marker.exists(), who
        seen["refused"] = refused
        with Client(address, security=cluster.security, timeout=10) as client:
            own = client.submit(_write, str(tmp_path / "own.txt"), pure=False).result(30)
            seen["scratch"] = [client.run_on_scheduler(_scratch),
                               *client.run(_scratch).values()]
        seen["own"] = Path(own).read_text()
        seen["mode"] = stat.S_IMODE(os.stat(Path(seen["scratch"][0]).parents[1]).st_mode)

    points = expand({"n": [32], "h": [2], "dk": [8], "do": [24]})
    before = _listening()
    out = sweep.run(points, draws=4, store=tmp_path / "s.jsonl", workers=2, verbosity=QUIET,
                    on_record=probe)
    assert (out.ok, out.workers) == (4, 2)
    assert seen["address"].startswith("tls://127.0.0.1:")
    port = int(seen["address"].rsplit(":", 1)[1])
    assert ("127.0.0.1", port) in seen["listening"]
    assert {host for host, _ in seen["listening"]} == {"127.0.0.1"}
    assert seen["http"] == []
    assert seen["refused"] == ["foreign credentials", "plain tcp", "no credentials"]
    assert seen["own"] == "ran"  # the same call with the cluster's credentials works
    # the planted module never ran; the scheduler and both workers worked in one private
    # folder made for the run (not in the planted shared ones), now removed
    assert not planted.exists(), planted.read_text()
    assert len(seen["scratch"]) == 3
    private = {Path(d).parents[1] for d in seen["scratch"]}
    assert len(private) == 1, seen["scratch"]
    (private,) = private
    assert private.parent == Path(tempfile.gettempdir())
    assert not private.name.startswith("dask-scratch-space")
    assert seen["mode"] == 0o700
    assert not private.exists()


def test_tls_scheduler_through_dask_settings(tmp_path):
    """``--scheduler tls://...`` connects with Dask's standard ``distributed.comm.tls``
    settings (files named in the Dask configuration), and only with them."""
    import dask

    cluster = sweep_cluster.start(1)
    try:
        sec = cluster.security
        files = {}
        for key, pem in (("ca-file", sec.tls_ca_file), ("client.cert", sec.tls_client_cert),
                         ("client.key", sec.tls_client_key)):
            files[f"distributed.comm.tls.{key}"] = path = tmp_path / key
            path.write_text(pem)
            path.chmod(0o600)
        points = expand({"n": [32], "h": [2], "dk": [8], "do": [24]})
        with dask.config.set({k: str(v) for k, v in files.items()}):
            out = sweep.run(points, draws=2, store=tmp_path / "tls.jsonl", verbosity=QUIET,
                            scheduler=cluster.scheduler_address)
        assert (out.ok, out.workers) == (2, 1)
        with pytest.raises(ValueError, match="Dask has no TLS settings"):
            sweep.run(points, draws=3, store=tmp_path / "none.jsonl", verbosity=QUIET,
                      scheduler=cluster.scheduler_address)
    finally:
        cluster.close()


#: an unprivileged user: nobody
OTHER_UID = 65534


def _as_other_user(folder: str) -> list[str]:
    """In a forked child switched to :data:`OTHER_UID`: what that user could do in
    ``folder`` (list it, create a file, make a folder, read an entry), as the names of the
    attempts that were not refused with a permission error."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: drop root, try, report, exit without running pytest's exit
        allowed = []
        try:
            os.close(read)
            os.setgid(OTHER_UID)
            os.setuid(OTHER_UID)
            attempts = {"list": lambda: os.listdir(folder),
                        "create": lambda: open(os.path.join(folder, "planted.py"), "x"),
                        "mkdir": lambda: os.mkdir(os.path.join(folder, "planted")),
                        "stat an entry": lambda: os.stat(os.path.join(folder, "x"))}
            for name, attempt in attempts.items():
                try:
                    attempt()
                    allowed.append(name)
                except PermissionError:
                    pass
                except OSError as exc:  # e.g. the entry does not exist: it could look
                    allowed.append(f"{name} ({type(exc).__name__})")
            os.write(write, "\n".join(allowed).encode() or b"-")
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read) as reply:
        said = reply.read()
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and said, status
    return [] if said == "-" else said.splitlines()


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                    reason="switching to another user needs root")
def test_another_user_can_neither_read_nor_write_the_scratch_folder():
    """Issue 27: the private cluster's scratch folder, while the cluster runs and its
    servers have written into it, refuses another local user listing, creating, making a
    folder and looking up an entry (permission denied for each)."""
    with sweep_cluster.start(1) as cluster:
        scratch = cluster.scratch
        assert os.listdir(scratch)  # the servers work in it: there is something to read
        assert stat.S_IMODE(os.stat(scratch).st_mode) == 0o700
        assert _as_other_user(scratch) == []
    assert not os.path.exists(scratch)
    shared = tempfile.mkdtemp()  # the check can see: an open folder lets that user in
    try:
        os.chmod(shared, 0o777)
        assert _as_other_user(shared) == ["list", "create", "mkdir",
                                          "stat an entry (FileNotFoundError)"]
    finally:
        shutil.rmtree(shared)
