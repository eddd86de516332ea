"""Soak: Lookout under viewers, wall screens and admins, against a faulty upstream.

    .venv/bin/python bench/soak.py --users 200 --minutes 30 [--write]

Starts a private Redis, the simulator answering 5 % of requests with a 500, hanging 1 %
past Lookout's read timeout and garbling 1 % (`--error-rate`, `--timeout-rate`,
`--malformed-rate`), and Lookout as `manage.py run_stack --no-simulator` (gunicorn,
Celery worker and beat: the pollers run as in production) on a fresh SQLite database.
Then locust (`bench/soak_locustfile.py`) runs `--users` users for `--minutes`: viewers on
the overview, the unit list and unit pages (each refreshing its live region every 5 s),
one in ten a wall screen, plus `--admins` admins approving transfers and asking for
fixity checks through the confirmation forms (one-time keys, some double-submitted).
A feeder keeps transfers arriving that wait for approval.

Before locust starts, a short warm-up loads each kind of page a few times (the server's
first requests import views and compile templates, which a server in service did long
ago); it is not measured. Afterwards the faults stop and simulated time stops with them,
so the service's state no longer moves; two workflow poll intervals later, it checks:
- latency per page (p50, p95, p99; target p99 < 300 ms) and every 5xx answer (target 0);
- convergence: every unit's status in Lookout is what the simulator says (time stopped:
  a unit that moved in the last second is not counted as Lookout lagging);
- exactly once: from the simulator's record of operations, every action an admin
  confirmed happened upstream exactly once when Lookout said it was done (or could not
  know), never when Lookout said it was not, and never twice.
Exit status 0 only if 0 5xx, 0 lost or doubled actions and converged (latency is
reported, and checked too unless --no-latency-target). `--json` writes the figures,
`--write` adds them to docs/benchmarks/soak.md.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections import Counter
from contextlib import nullcontext
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

LOCUSTFILE = ROOT / "bench" / "soak_locustfile.py"
P99_TARGET_MS = 300.0
# Lookout gives up on an upstream answer after this long; a "time-out" hangs longer.
READ_TIMEOUT = 3.0
HANG_SECONDS = 5.0
ACTIONS = ("transfer_approve", "package_fixity_check")
# Outcomes after which the action may or may not have happened upstream.
UNKNOWN_OUTCOMES = {"timed_out", "unknown", "pending"}


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# --- steps run inside Lookout's environment (a child process with its settings) ------


def _django() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()


def prepare(out: str, viewers: int, admins: int) -> None:
    """Users with their sessions (no password logins: they would dominate the start) and a
    wall link, written to `out` for the locustfile."""
    _django()
    from importlib import import_module

    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.auth.models import Group, User

    from dashboard.lib.roles import Role
    from dashboard.services import wall_links

    store_class = import_module(settings.SESSION_ENGINE).SessionStore

    def sessions(role: str, count: int, accounts: int) -> list[str]:
        group = Group.objects.get(name=Role(role).value)
        users = []
        for number in range(accounts):
            user = User.objects.create_user(f"soak-{role}-{number}", password=None)
            user.groups.add(group)
            users.append(user)
        keys = []
        for number in range(count):
            user = users[number % accounts]
            store = store_class()
            store[SESSION_KEY] = str(user.pk)
            store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
            store[HASH_SESSION_KEY] = user.get_session_auth_hash()
            store.create()
            keys.append(store.session_key)
        return keys

    payload = {
        "viewers": sessions("viewer", viewers, min(viewers, 20)),
        "admins": sessions("admin", admins, admins),
        "admins_count": admins,
        "wall_token": wall_links.wall_link_create(name="soak").token,
        "wall_refresh_seconds": settings.LOOKOUT_WALL_REFRESH_SECONDS,
    }
    Path(out).write_text(json.dumps(payload))


def inspect(out: str) -> None:
    """What Lookout's database says: unit statuses and the admins' audit entries."""
    _django()
    from dashboard.models import AuditEntry, Unit

    units = {u.uuid: u.status for u in Unit.objects.filter(hidden=False)}
    entries = [
        {
            "key": e.idempotency_key,
            "action": e.action,
            "target": e.target,
            "outcome": e.shown_outcome,
            "status": e.upstream_status,
            "message": e.upstream_message[:300],
        }
        for e in AuditEntry.objects.filter(action__in=ACTIONS)
    ]
    Path(out).write_text(json.dumps({"units": units, "audit": entries}))


# --- the orchestra --------------------------------------------------------------------


def control(sim: Any, path: str, payload: dict[str, Any] | None = None) -> Any:
    return sim.control(path, payload)


class Feeder(threading.Thread):
    """Starts a transfer that waits for approval every `every` seconds (retrying faults),
    and samples the load average."""

    def __init__(self, sim: Any, every: float) -> None:
        super().__init__(daemon=True)
        self.sim = sim
        self.every = every
        self.stop = threading.Event()
        self.started = 0
        self.loads: list[float] = []

    def run(self) -> None:
        from dashboard.clients.workflow import WorkflowClient, WorkflowError

        client = WorkflowClient(
            self.sim.workflow_url, self.sim.user, self.sim.key, timeout=(3, READ_TIMEOUT)
        )
        sources = [tuple(pair) for pair in control(self.sim, "state")["transfer_sources"]]
        while not self.stop.is_set():
            self.loads.append(os.getloadavg()[0])
            location, path = sources[self.started % len(sources)]
            for _ in range(5):
                try:
                    client.create_package(
                        name=f"soak-{self.started}",
                        location_uuid=location,
                        path=path,
                        auto_approve=False,
                    )
                except WorkflowError:
                    continue
                self.started += 1
                break
            self.stop.wait(self.every)


WARM_UP_PAGES = ("/", "/units/", "/waiting/", "/storage/packages/", "/wall/")
WARM_UP_ROUNDS = 6


def warm_up(url: str, sessions_file: str) -> int:
    """Load each kind of page, full and as its htmx refresh, from 8 threads (every
    gunicorn thread sees some), plus a token exchange with a token that opens nothing.
    Returns the number of requests; none of them is measured."""
    from concurrent.futures import ThreadPoolExecutor

    session = json.loads(Path(sessions_file).read_text())["viewers"][0]
    bogus_token = "x" * 43  # the shape of a token, so the exchange view itself runs

    def load(path: str, htmx: bool) -> None:
        request = urllib.request.Request(f"{url}{path}")
        request.add_header("Cookie", f"sessionid={session}")
        if htmx:
            request.add_header("HX-Request", "true")
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                answer.read()
        except OSError:
            pass  # a refused token answers 403/404: the view ran, which is the point

    jobs = [
        (path, htmx)
        for _ in range(WARM_UP_ROUNDS)
        for path in (*WARM_UP_PAGES, f"/wall/{bogus_token}/")
        for htmx in (False, True)
    ]
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda job: load(*job), jobs))
    return len(jobs)


def tree_cpu(root: int) -> dict[str, float]:
    """CPU seconds used so far by the processes under `root`, by role (from /proc)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue  # gone meanwhile
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    wanted, queue = set(), [root]
    while queue:
        pid = queue.pop()
        wanted.add(pid)
        queue += [child for child, parent in parents.items() if parent == pid]
    tick = os.sysconf("SC_CLK_TCK")
    used: Counter[str] = Counter()
    for pid in wanted:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        role = next((r for r in ("gunicorn", "worker", "beat") if r in command), "other")
        used[role] += (int(fields[11]) + int(fields[12])) / tick  # utime + stime
    return dict(used)


def wait_until_up(url: str, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/accounts/login/", timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.5)
    raise RuntimeError(f"Lookout did not answer on {url} within {seconds:.0f} s")


def child(env: dict[str, str], *args: str, timeout: float = 600) -> None:
    subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=env, check=True, timeout=timeout,
        stdout=subprocess.DEVNULL,
    )  # fmt: skip


def read_latency(prefix: str) -> dict[str, dict[str, float]]:
    rows = {}
    with open(f"{prefix}_stats.csv", encoding="utf-8") as stats:
        for row in csv.DictReader(stats):
            if row["Name"] == "Aggregated":
                continue
            rows[row["Name"]] = {
                "requests": int(row["Request Count"]),
                "failures": int(row["Failure Count"]),
                "p50": float(row["50%"]),
                "p95": float(row["95%"]),
                "p99": float(row["99%"]),
                "max": float(row["Max Response Time"]),
            }
    return rows


def exactly_once(
    audit: list[dict[str, Any]], submitted: list[dict[str, Any]], upstream: list[dict[str, str]]
) -> dict[str, Any]:
    """Compare what admins confirmed, what Lookout recorded and what happened upstream."""
    done_upstream = Counter((a["action"], a["target"]) for a in upstream if a["action"] in ACTIONS)
    by_key = {entry["key"]: entry for entry in audit}
    lost, doubled, misreported, unrecorded, unconfirmed = [], [], [], [], []
    outcomes: Counter[str] = Counter()
    for form in submitted:
        entry = by_key.get(form["key"])
        if entry is None:
            unrecorded.append(form)  # confirmed, but no audit row at all
            continue
        outcomes[entry["outcome"]] += 1
        times = done_upstream[(form["action"], form["target"])]
        if times > 1:
            doubled.append({**entry, "upstream_times": times})
        elif entry["outcome"] == "done" and times == 0:
            lost.append(entry)
        elif entry["outcome"] == "refused" and times == 1:
            misreported.append(entry)  # Lookout said the service said no, but it did it
        elif entry["outcome"] != "done" and times == 1:
            # Timed out, or accepted with an unreadable answer: Lookout said it could not
            # know, and the service had done it.
            unconfirmed.append(entry)
    confirmed = {(f["action"], f["target"]) for f in submitted}
    # Nothing else acts on these targets: an upstream action nobody confirmed is a double.
    stray = [key for key in done_upstream if key not in confirmed]
    return {
        "forms": len(submitted),
        "double_submits": sum(1 for f in submitted if f["posts"] > 1),
        "outcomes": dict(outcomes),
        "upstream": sum(done_upstream.values()),
        "lost": lost,
        "doubled": doubled,
        "misreported": misreported,
        "unconfirmed": len(unconfirmed),
        "unrecorded": unrecorded,
        "stray": [list(key) for key in stray],
    }


def convergence(
    lookout: dict[str, str], before: list[dict[str, str]], after: list[dict[str, str]]
) -> dict[str, Any]:
    """Every unit Lookout knows that the service still lists has, in Lookout, the status
    it had upstream just before or just after Lookout's was read (it may move on between).

    Units Lookout never heard of are counted apart: the service's lists name only
    completed and waiting units, so a unit that failed before Lookout started, say, can
    never be discovered (the same is true of the real service).
    """
    then = {u["uuid"]: u["status"] for u in before}
    now = {u["uuid"]: u["status"] for u in after}
    behind = []
    undiscoverable: Counter[str] = Counter()
    for uuid, status in now.items():
        if uuid not in lookout:
            undiscoverable[status] += 1
        elif uuid in then and lookout[uuid] not in (then[uuid], status):
            behind.append({"uuid": uuid, "lookout": lookout[uuid], "upstream": status})
    compared = sum(1 for uuid in now if uuid in lookout and uuid in then)
    return {"units": compared, "behind": behind, "never_seen": dict(undiscoverable)}


def run(args: argparse.Namespace) -> dict[str, Any]:
    from tests.support import simulator_process
    from tests.support.postgres_server import postgres_server
    from tests.support.redis_server import redis_server
    from tests.support.simulator_process import SimulatorProcess

    # Seeding takes longer than the tests' usual 20 s when the machine is busy.
    simulator_process.START_TIMEOUT_SECONDS = 120.0

    workdir = tempfile.mkdtemp(prefix="lookout-soak-")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    faults = {
        "error_rate": args.error_rate,
        "timeout_rate": args.timeout_rate,
        "malformed_rate": args.malformed_rate,
    }
    database = postgres_server() if args.database == "postgres" else nullcontext(None)
    with (
        database as database_url,
        redis_server() as redis_url,
        SimulatorProcess(
            units=args.units,
            packages=args.packages,
            seed=args.seed,
            timeout_seconds=HANG_SECONDS,
            arrivals_per_hour=args.arrivals_per_hour,
        ) as sim,
    ):
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "LOOKOUT_VAR_DIR": workdir,
            "DATABASE_URL": database_url or f"sqlite:///{workdir}/soak.sqlite3",
            "REDIS_URL": redis_url,
            "LOOKOUT_PORT": str(port),
            "LOOKOUT_WORKFLOW_URL": sim.workflow_url,
            "LOOKOUT_STORAGE_URL": sim.storage_url,
            "LOOKOUT_WORKFLOW_POLL_INTERVAL": str(args.poll),
            "LOOKOUT_STORAGE_POLL_INTERVAL": str(max(5, args.poll)),
            "LOOKOUT_HTTP_READ_TIMEOUT": str(READ_TIMEOUT),
            "LOOKOUT_SESSION_IDLE_MINUTES": str(int(args.minutes) + 60),
        }
        child(env, "manage.py", "migrate", "--noinput")
        sessions = f"{workdir}/sessions.json"
        child(env, __file__, "--prepare", sessions, "--users", str(args.users),
              "--admins", str(args.admins))  # fmt: skip
        with open(f"{workdir}/stack.log", "w") as log:
            stack = subprocess.Popen(
                [sys.executable, "manage.py", "run_stack", "--no-simulator", "--port", str(port)],
                cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
            )  # fmt: skip
        feeder = Feeder(sim, every=args.feed_every)
        try:
            wait_until_up(url, 240)
            # Give the pollers a first round before anyone looks, as after any start.
            time.sleep(args.poll * 2)
            warmed = warm_up(url, sessions)
            control(sim, "faults", faults)
            feeder.start()
            prefix = f"{workdir}/locust"
            out = f"{workdir}/locust-out.json"
            started = time.monotonic()
            cpu_before = tree_cpu(stack.pid)
            subprocess.run(
                [
                    sys.executable, "-m", "locust", "-f", str(LOCUSTFILE), "--headless",
                    "--host", url, "--users", str(args.users + args.admins),
                    "--spawn-rate", str(args.spawn_rate), "--run-time", f"{args.seconds}s",
                    "--csv", prefix, "--only-summary", "--loglevel", "WARNING",
                    "--stop-timeout", "10",
                ],
                cwd=ROOT, env={**env, "SOAK_SESSIONS": sessions, "SOAK_OUT": out},
                check=False, timeout=args.seconds + 300, stdout=subprocess.DEVNULL,
            )  # fmt: skip
            ran = time.monotonic() - started
            cpu_after = tree_cpu(stack.pid)
            feeder.stop.set()
            control(sim, "faults", {name: 0.0 for name in faults})
            # Stop simulated time: convergence is judged against a state that holds still.
            control(sim, "speed", {"speed": 0})
            # Two poll intervals after the faults stop, plus the hang of a last time-out.
            time.sleep(2 * args.poll + HANG_SECONDS)
            before = control(sim, "units")["units"]
            state = f"{workdir}/lookout.json"
            child(env, __file__, "--inspect", state)
            after = control(sim, "units")["units"]
            upstream = control(sim, "actions")["actions"]
        finally:
            feeder.stop.set()
            stack.terminate()
            try:
                stack.wait(timeout=30)
            except subprocess.TimeoutExpired:
                stack.kill()
        locust = json.loads(Path(out).read_text())
        lookout = json.loads(Path(state).read_text())
        stack_errors = [
            line.strip()
            for line in Path(f"{workdir}/stack.log").read_text().splitlines()
            if '" 5' in line and "web |" in line
        ]
    latency = read_latency(prefix)
    loads = feeder.loads or [os.getloadavg()[0]]
    requests = sum(row["requests"] for row in latency.values())
    cpu = {role: cpu_after.get(role, 0.0) - cpu_before.get(role, 0.0) for role in cpu_after}
    return {
        "command": " ".join(["bench/soak.py", *sys.argv[1:]]),
        "date": datetime.now().strftime("%Y-%m-%d %H:%M"),
        "seconds": round(ran),
        "users": args.users,
        "admins": args.admins,
        "faults": faults,
        "database": args.database,
        "poll_interval": args.poll,
        "warm_up_requests": warmed,
        "load_average": {
            "min": min(loads),
            "median": statistics.median(loads),
            "max": max(loads),
        },
        "latency": latency,
        "requests_per_second": requests / max(ran, 1),
        # CPU seconds over the run by role, and the web server's per request.
        "cpu_seconds": cpu,
        "web_cpu_ms_per_request": 1000 * cpu.get("gunicorn", 0.0) / max(requests, 1),
        "server_errors": locust["server_error_count"],
        "server_error_samples": locust["server_errors"][:5],
        "stack_5xx_lines": stack_errors[:5],
        "statuses": locust["statuses"],
        "transfers_fed": feeder.started,
        "actions": exactly_once(lookout["audit"], locust["submitted"], upstream),
        "convergence": convergence(lookout["units"], before, after),
        "workdir": workdir,
    }


def verdicts(report: dict[str, Any], *, latency_target: bool) -> dict[str, bool]:
    actions = report["actions"]
    pages = {n: row for n, row in report["latency"].items() if not n.startswith(ACTIONS)}
    checks = {
        "no 5xx": report["server_errors"] == 0,
        "no lost or doubled action": not (
            actions["lost"]
            or actions["doubled"]
            or actions["misreported"]
            or actions["unrecorded"]
            or actions["stray"]
        ),
        "converged within 2 poll intervals": not report["convergence"]["behind"],
    }
    if latency_target:
        checks["p99 < 300 ms on every page"] = all(
            row["p99"] < P99_TARGET_MS for row in pages.values()
        )
    return checks


def render(report: dict[str, Any], checks: dict[str, bool]) -> str:
    load = report["load_average"]
    actions = report["actions"]
    lines = [
        f"Command: `.venv/bin/python {report['command']}` ({report['date']}, "
        f"{report['seconds']} s, {report['users']} users + {report['admins']} admins, "
        f"{report['database']}, workflow poll every {report['poll_interval']} s; faults: "
        + ", ".join(f"{k} {v:g}" for k, v in report["faults"].items())
        + f"; 1-minute load average {load['min']:.1f}-{load['max']:.1f}, "
        f"median {load['median']:.1f}; {report['warm_up_requests']} warm-up requests "
        "before, not measured; simulated time stopped with the faults)",
        "",
        "| page | requests | p50 ms | p95 ms | p99 ms | max ms |",
        "|---|---|---|---|---|---|",
    ]
    for name, row in sorted(report["latency"].items()):
        lines.append(
            f"| {name} | {row['requests']} | {row['p50']:.0f} | {row['p95']:.0f} | "
            f"{row['p99']:.0f} | {row['max']:.0f} |"
        )
    cpu = report["cpu_seconds"]
    lines += [
        "",
        f"Throughput {report['requests_per_second']:.1f} requests/s. CPU over the run: "
        f"web (gunicorn) {cpu.get('gunicorn', 0):.0f} s, "
        f"{report['web_cpu_ms_per_request']:.0f} ms per request; Celery worker "
        f"{cpu.get('worker', 0):.0f} s; beat {cpu.get('beat', 0):.0f} s "
        f"(of {2 * report['seconds']} core-seconds the machine has).",
        "",
        f"5xx answers: {report['server_errors']}. Transfers fed for approval: "
        f"{report['transfers_fed']}. Confirmed forms: {actions['forms']} "
        f"({actions['double_submits']} submitted twice), outcomes "
        + ", ".join(f"{k} {v}" for k, v in sorted(actions["outcomes"].items()))
        + f"; upstream operations recorded by the simulator: {actions['upstream']}; "
        f"lost {len(actions['lost'])}, doubled {len(actions['doubled'])}, "
        f"reported as refused but done {len(actions['misreported'])}, "
        f"done while Lookout said it could not know {actions['unconfirmed']}, "
        f"without an audit row {len(actions['unrecorded'])}, "
        f"upstream without a form {len(actions['stray'])}. Convergence two poll "
        f"intervals ({2 * report['poll_interval']} s, plus {HANG_SECONDS:g} s for a last "
        f"hanging request) after the faults stopped: "
        f"{report['convergence']['units'] - len(report['convergence']['behind'])} of "
        f"{report['convergence']['units']} units Lookout knows as the service says "
        f"(never seen by Lookout, as the service's lists never name them: "
        + (
            ", ".join(f"{v} {k}" for k, v in sorted(report["convergence"]["never_seen"].items()))
            or "none"
        )
        + ").",
        "",
        "Verdicts: " + "; ".join(f"{k}: {'met' if ok else 'MISSED'}" for k, ok in checks.items()),
    ]
    return "\n".join(lines)


def write_benchmarks(text: str, report: dict[str, Any]) -> None:
    path = ROOT / "docs" / "benchmarks" / "soak.md"
    heading = (
        f"## Soak: {report['users']} users for {report['seconds'] // 60} minutes against a "
        f"faulty upstream ({report['date'][:10]})"
    )
    path.write_text(path.read_text().rstrip("\n") + f"\n\n{heading}\n\n{text}\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prepare", help=argparse.SUPPRESS)
    parser.add_argument("--inspect", help=argparse.SUPPRESS)
    parser.add_argument("--users", type=int, default=200, help="viewers and wall screens")
    parser.add_argument("--admins", type=int, default=3)
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--spawn-rate", type=float, default=10.0, help="users started per s")
    parser.add_argument("--poll", type=int, default=10, help="workflow poll interval, s")
    parser.add_argument("--units", type=int, default=60, help="units the simulator seeds")
    parser.add_argument("--packages", type=int, default=200)
    parser.add_argument("--arrivals-per-hour", type=float, default=30.0)
    parser.add_argument("--feed-every", type=float, default=20.0, help="s between fed transfers")
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--error-rate", type=float, default=0.05)
    parser.add_argument("--timeout-rate", type=float, default=0.01)
    parser.add_argument("--malformed-rate", type=float, default=0.01)
    parser.add_argument(
        "--database",
        choices=["sqlite", "postgres"],
        default="sqlite",
        help="SQLite in a scratch folder, or a private PostgreSQL server (initdb'd for the run)",
    )
    parser.add_argument("--no-latency-target", action="store_true")
    parser.add_argument("--json", help="write the figures here")
    parser.add_argument(
        "--write", action="store_true", help="append them to docs/benchmarks/soak.md"
    )
    args = parser.parse_args()
    if args.prepare:
        prepare(args.prepare, args.users, args.admins)
        return 0
    if args.inspect:
        inspect(args.inspect)
        return 0
    args.seconds = int(args.minutes * 60)
    report = run(args)
    checks = verdicts(report, latency_target=not args.no_latency_target)
    report["verdicts"] = checks
    text = render(report, checks)
    print(text)
    for problem in ("lost", "doubled", "misreported", "unrecorded", "stray"):
        for item in report["actions"][problem][:5]:
            print(f"{problem}: {item}", file=sys.stderr)
    for item in report["convergence"]["behind"][:10]:
        print(f"behind: {item}", file=sys.stderr)
    for item in report["server_error_samples"]:
        print(f"5xx: {item}", file=sys.stderr)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))
    if args.write:
        write_benchmarks(text, report)
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
