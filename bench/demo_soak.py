"""Soak: the demo's simulator with arrivals on, for many simulated hours at full speed.

    .venv/bin/python bench/demo_soak.py --sim-hours 48 --sample-minutes 5

Builds the simulator in this process with `make run`'s settings (60 seeded units, 300
packages, 28 days of back-dated history, 30 arrivals an hour with bursts of 5, finished
units aging out after an hour),
freezes its clock and moves it on --sample-minutes at a time. At every sample it reads
what the services would list: moving units (status PROCESSING), units waiting (awaiting
approval or a decision, USER_INPUT), units and packages held, and the process RSS.
It prints the series (every hour) and a summary. Exit status 1 if some hour had no
moving unit, or if RSS in the last third grew more than 10% over the middle third
(the first third is warm-up).
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dashboard.management.commands.run_stack import (  # noqa: E402
    DEMO_ARRIVAL_BURST,
    DEMO_ARRIVALS_PER_HOUR,
    DEMO_HISTORY_DAYS,
)
from simulator.config import SimulatorConfig  # noqa: E402
from simulator.server import Simulation  # noqa: E402


def rss_mib() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sim-hours", type=float, default=48)
    parser.add_argument("--sample-minutes", type=float, default=5)
    parser.add_argument("--arrivals-per-hour", type=float, default=DEMO_ARRIVALS_PER_HOUR)
    parser.add_argument("--arrival-burst", type=int, default=DEMO_ARRIVAL_BURST)
    parser.add_argument("--history-days", type=float, default=DEMO_HISTORY_DAYS)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    config = SimulatorConfig(
        units=60,
        packages=300,
        seed=args.seed,
        speed=0,
        start=datetime(2024, 6, 3, 9),
        arrivals_per_hour=args.arrivals_per_hour,
        arrival_burst=args.arrival_burst,
        history_days=args.history_days,
    )
    began = time.perf_counter()
    sim = Simulation(config)
    samples = int(args.sim_hours * 60 / args.sample_minutes)
    per_hour = max(1, round(60 / args.sample_minutes))
    rows = []
    print("hour  moving  waiting  held units  packages  arrived  aged out  RSS MiB")
    for sample in range(1, samples + 1):
        sim.clock.advance(args.sample_minutes * 60)
        now = sim.sync()
        counts = sim.workflow.counts(now)
        moving = sum(n for kind, n in counts.items() if kind.endswith(":PROCESSING"))
        waiting = sum(n for kind, n in counts.items() if kind.endswith(":USER_INPUT"))
        gc.collect()
        row = (
            sample * args.sample_minutes / 60,
            moving,
            waiting,
            len(sim.workflow.units),
            sim.storage.package_count(),
            sim.workflow.arrivals.count if sim.workflow.arrivals else 0,
            sim.workflow.aged_out,
            rss_mib(),
        )
        rows.append(row)
        if sample % per_hour == 0:
            print("{:4.0f}  {:6d}  {:7d}  {:10d}  {:8d}  {:7d}  {:8d}  {:7.1f}".format(*row))
    elapsed = time.perf_counter() - began

    hours: dict[int, list[int]] = {}
    for row in rows:
        hours.setdefault(int((row[0] - 1e-9) // 1), []).append(row[1])
    idle_hours = [hour for hour, moving in hours.items() if max(moving) == 0]
    moving_all = [row[1] for row in rows]
    third = len(rows) // 3
    middle = statistics.median(row[7] for row in rows[third : 2 * third])
    last = statistics.median(row[7] for row in rows[2 * third :])
    growth = (last - middle) / middle
    print(
        f"\n{len(rows)} samples over {args.sim_hours:g} simulated hours in {elapsed:.1f} s; "
        f"moving units per sample: min {min(moving_all)}, median "
        f"{statistics.median(moving_all):g}, max {max(moving_all)}; samples with none: "
        f"{sum(1 for m in moving_all if m == 0)}; hours with none: {len(idle_hours)}"
    )
    waiting_all = [row[2] for row in rows]
    print(
        f"waiting units: min {min(waiting_all)}, median {statistics.median(waiting_all):g}, "
        f"max {max(waiting_all)}; held units: min {min(r[3] for r in rows)}, "
        f"max {max(r[3] for r in rows)}; packages: max {max(r[4] for r in rows)}"
    )
    print(f"RSS median, middle third {middle:.1f} MiB, last third {last:.1f} MiB ({growth:+.1%})")
    stable = not idle_hours and growth <= 0.10
    print("stable" if stable else "NOT stable")
    return 0 if stable else 1


if __name__ == "__main__":
    sys.exit(main())
