"""Start a throw-away local multi-node Ray cluster on loopback, for tests and benches.

Why real processes and not ``ray.init(local_mode=True)``: the executor's guarantees (actors
on other nodes, a worker process killed mid-run, the object store between processes) only
show on a real cluster. Each node is a ``ray start --block`` process in its own session, so
stopping the cluster kills exactly the process groups this helper started, never another
user's Ray (``ray stop`` would stop every Ray on the machine). Every port is chosen free on
127.0.0.1, so two clusters (a test and a bench) can run side by side.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from rabench.cluster.redis_proc import free_port

_START_TIMEOUT_S = 90.0
_STOP_GRACE_S = 5.0


@dataclass
class RayCluster:
    """A running local cluster: its address (``127.0.0.1:PORT``) and node processes."""

    address: str
    temp_dir: Path
    nodes: list[subprocess.Popen[bytes]] = field(default_factory=list)
    cpus_per_node: int = 1

    def add_node(self, cpus: int | None = None) -> None:
        """One more worker node joined to the head (returns once the head counts its CPUs)."""
        want = self.cpus() + (cpus or self.cpus_per_node)
        self.nodes.append(_launch(["--address", self.address], cpus or self.cpus_per_node, self.temp_dir))
        _wait_cpus(self, want)

    def cpus(self) -> int:
        """CPUs the cluster reports as alive (``ray status`` on the head's GCS)."""
        return _alive_cpus(self.address)

    def stop(self) -> None:
        for proc in reversed(self.nodes):
            _stop(proc)
        self.nodes.clear()


def _ray_bin() -> str:
    here = Path(sys.executable).parent / "ray"
    found = str(here) if here.is_file() else shutil.which("ray")
    if found is None:
        raise RuntimeError("the ray command is not installed (pip install ray)")
    return found


def _launch(where: list[str], cpus: int, temp_dir: Path) -> subprocess.Popen[bytes]:
    args = [
        _ray_bin(),
        "start",
        *where,
        "--block",
        "--num-cpus",
        str(cpus),
        "--num-gpus",
        "0",
        "--node-ip-address",
        "127.0.0.1",
        "--disable-usage-stats",
        "--node-manager-port",
        str(free_port()),
        "--object-manager-port",
        str(free_port()),
        "--metrics-export-port",
        str(free_port()),
        "--runtime-env-agent-port",
        str(free_port()),
        "--dashboard-agent-listen-port",
        str(free_port()),
        "--dashboard-agent-grpc-port",
        str(free_port()),
        "--object-store-memory",
        str(200 * 1024 * 1024),
    ]
    if "--head" in where:
        args += ["--temp-dir", str(temp_dir), "--include-dashboard=false"]
    env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0")
    with (temp_dir / f"node-{time.monotonic_ns()}.log").open("wb") as log:
        return subprocess.Popen(
            args, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True
        )


_WAIT_SCRIPT = """
import sys, time, ray
address, want, timeout = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
ray.init(address=address, logging_level="ERROR", log_to_driver=False)
deadline = time.monotonic() + timeout
while True:
    alive = int(sum(n["Resources"].get("CPU", 0) for n in ray.nodes() if n["Alive"]))
    if alive >= want or time.monotonic() > deadline:
        print(alive)
        break
    time.sleep(0.2)
"""


def _alive_cpus(address: str, want: int = 0, timeout_s: float = 0.0) -> int:
    """Alive CPUs from the GCS, waiting up to ``timeout_s`` for ``want``; from a child process,
    so no driver stays attached to the cluster in the caller."""
    try:
        out = subprocess.run(
            [sys.executable, "-c", _WAIT_SCRIPT, address, str(want), str(timeout_s)],
            capture_output=True,
            text=True,
            timeout=timeout_s + 60,
            env=dict(os.environ, RAY_USAGE_STATS_ENABLED="0"),
        )
        return int(out.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError, subprocess.TimeoutExpired):
        return 0


def _wait_cpus(cluster: RayCluster, want: int) -> None:
    alive = _alive_cpus(cluster.address, want, _START_TIMEOUT_S)
    dead = [p for p in cluster.nodes if p.poll() is not None]
    if dead:
        raise RuntimeError(f"a ray node exited with status {dead[0].returncode} (logs in {cluster.temp_dir})")
    if alive < want:
        raise TimeoutError(
            f"the ray cluster did not reach {want} CPUs within {_START_TIMEOUT_S:.0f} s (logs in {cluster.temp_dir})"
        )


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM the node's process group and every descendant (Ray's worker processes start
    sessions of their own), then SIGKILL what is left after a grace period."""
    pids = _descendants(proc.pid)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, sig)
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)
        deadline = time.monotonic() + _STOP_GRACE_S
        while time.monotonic() < deadline:
            if proc.poll() is not None and not _group_alive(proc.pid) and not any(_alive(p) for p in pids):
                return
            time.sleep(0.1)


def _descendants(root: int) -> list[int]:
    """Every process below ``root`` (from /proc), so none is left when its parent is gone."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rpartition(")")[2].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    found: list[int] = []
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state != "Z"


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@contextlib.contextmanager
def start_ray_cluster(nodes: int = 2, cpus_per_node: int = 1) -> Iterator[RayCluster]:
    """A head plus ``nodes - 1`` worker nodes on 127.0.0.1, stopped (and its folder removed) on exit."""
    # A short path: Ray's unix socket paths must stay under 107 bytes.
    temp_dir = Path(tempfile.mkdtemp(prefix="rbray-", dir="/tmp"))
    port = free_port()
    cluster = RayCluster(address=f"127.0.0.1:{port}", temp_dir=temp_dir, cpus_per_node=cpus_per_node)
    try:
        cluster.nodes.append(_launch(["--head", "--port", str(port)], cpus_per_node, temp_dir))
        _wait_cpus(cluster, cpus_per_node)
        for _ in range(nodes - 1):
            cluster.add_node()
        yield cluster
    finally:
        cluster.stop()
        shutil.rmtree(temp_dir, ignore_errors=True)
