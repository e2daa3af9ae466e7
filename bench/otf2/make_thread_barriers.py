#!/usr/bin/env python3
"""Writes a Chrome JSON trace of THREADS threads passing INSTANCES thread-barrier instances.

Each thread works in a "work" region of a duration that depends on the thread and the round,
then arrives at the round's barrier (sync markers, model/thread_sync.h) and leaves it when the
last thread has arrived. --objects team gives every round its own barrier object, as the OMPT
tool does (one per parallel region: its team's number); --objects one reuses one barrier, as a
pthread_barrier_t does. Thread 0 creates the others first and joins them last.

  make_thread_barriers.py OUT.json --threads 4 --instances 100 [--objects team|one]
"""
import argparse
import json


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--threads", type=int, default=4)
    p.add_argument("--instances", type=int, default=100)
    p.add_argument("--objects", choices=("team", "one"), default="team")
    a = p.parse_args()
    ev = []
    for t in range(a.threads):
        ev.append({"ph": "M", "name": "thread_name", "pid": 1, "tid": t + 1, "args": {"name": f"thread {t}"}})

    def mark(t, ns, text):
        ev.append({"ph": "i", "name": text, "cat": "marker", "ts": ns / 1000.0, "pid": 1, "tid": t + 1, "s": "t"})

    def work(t, begin, end):
        ev.append({"ph": "X", "name": "work", "cat": "function", "ts": begin / 1000.0, "pid": 1, "tid": t + 1,
                   "dur": (end - begin) / 1000.0})

    for t in range(1, a.threads):
        mark(0, 0, f"sync.thread_create {t:x} 0")
        mark(t, 1, f"sync.thread_begin {t:x} 0")
    now = 10
    for k in range(a.instances):
        obj = 0x100000 + (k if a.objects == "team" else 0)
        arrive = [now + 10 + 7 * ((t * 13 + k * 5) % 11) for t in range(a.threads)]
        leave = max(arrive) + 2
        for t in range(a.threads):
            work(t, now, arrive[t])
            mark(t, arrive[t], f"sync.barrier_enter {obj:x} {a.threads}")
            mark(t, leave, f"sync.barrier_leave {obj:x} 0")
        now = leave + 1
    for t in range(1, a.threads):
        mark(t, now + t, f"sync.thread_end {t:x} 0")
        mark(0, now + t, f"sync.thread_join_begin {t:x} 0")
        mark(0, now + t + 1, f"sync.thread_join_end {t:x} 0")
    with open(a.out, "w") as f:
        json.dump({"displayTimeUnit": "ns", "traceEvents": ev}, f)


if __name__ == "__main__":
    main()
