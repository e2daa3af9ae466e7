#!/usr/bin/env python3
"""Closed-form PyTorch-profiler (Kineto) traces for issue 34's GPU model.

Each trace has the shape Kineto writes (cuda_runtime calls and GPU work joined by "correlation",
"cuda_sync" records, process and thread names, "distributedInfo") and times chosen so that the
critical path, the waits and the what-ifs have exact answers, listed in EXPECTED (microseconds).

    make_kineto.py OUT_DIR   writes OUT_DIR/<case>.json, and the rank directories OUT_DIR/allreduce/
                             OUT_DIR/allreduce_skewed/ (rank 1's clock SKEW us ahead),
                             OUT_DIR/allreduce2/ and OUT_DIR/p2p/
"""
import json
import os
import sys

PID, TID = 4000, 4000  # the host process and its main thread
DEVICE = 0


def meta(rank=0, streams=(7,)):
    events = [
        {"name": "process_name", "ph": "M", "ts": 0, "pid": PID, "tid": 0, "args": {"name": "python3"}},
        {"name": "thread_name", "ph": "M", "ts": 0, "pid": PID, "tid": TID, "args": {"name": f"thread {TID} (python3)"}},
        {"name": "process_labels", "ph": "M", "ts": 0, "pid": DEVICE, "tid": 0, "args": {"labels": f"GPU {DEVICE}"}},
    ]
    for s in streams:
        events.append({"name": "thread_name", "ph": "M", "ts": 0, "pid": DEVICE, "tid": s, "args": {"name": f"stream {s}"}})
    # The profiler's own span, which is no work of the program (profiler_spans).
    events.append({"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "pid": "Spans", "tid": "PyTorch Profiler",
                   "ts": 0, "dur": 1, "args": {"Op count": 0}})
    return events


class Trace:
    def __init__(self, rank=0, streams=(7,)):
        self.events = meta(rank, streams)
        self.correlation = 0
        self.rank = rank

    def cpu(self, name, ts, dur, cat="cpu_op"):
        self.events.append({"ph": "X", "cat": cat, "name": name, "pid": PID, "tid": TID, "ts": ts, "dur": dur, "args": {}})

    def call(self, name, ts, dur):
        self.correlation += 1
        self.events.append({"ph": "X", "cat": "cuda_runtime", "name": name, "pid": PID, "tid": TID, "ts": ts, "dur": dur,
                            "args": {"correlation": self.correlation, "cbid": 0}})
        return self.correlation

    def launch(self, ts, dur, kernel, stream, kts, kdur, cat="kernel", args=None):
        c = self.call("cudaLaunchKernel" if cat == "kernel" else "cudaMemcpyAsync", ts, dur)
        a = {"device": DEVICE, "stream": stream, "correlation": c}
        a.update(args or {})
        self.events.append({"ph": "X", "cat": cat, "name": kernel, "pid": DEVICE, "tid": stream, "ts": kts, "dur": kdur, "args": a})
        # Kineto repeats the correlation as an ac2g flow (launch_flows_replaced).
        self.events.append({"ph": "s", "id": c, "pid": PID, "tid": TID, "ts": ts, "cat": "ac2g", "name": "ac2g"})
        self.events.append({"ph": "f", "id": c, "pid": DEVICE, "tid": stream, "ts": kts, "cat": "ac2g", "name": "ac2g", "bp": "e"})
        return c

    def sync(self, name, ts, dur, kind, **args):
        c = self.call(name, ts, dur)
        a = {"cuda_sync_kind": kind, "correlation": c, "device": DEVICE, "context": 1, "stream": -1}
        a.update(args)
        self.events.append({"ph": "X", "cat": "cuda_sync", "name": kind, "pid": DEVICE, "tid": a["stream"] if a["stream"] >= 0 else -1,
                            "ts": ts, "dur": dur, "args": a})
        return c

    def document(self, world=1):
        return {"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": self.rank, "world_size": world},
                "traceEvents": self.events}


N = 10


def launch_bound():
    """N launches of 10 us, each kernel 3 us starting as its launch begins; then a device sync of 1 us.
    The GPU waits for the CPU: the path is the CPU's 10 N + 1 us."""
    t = Trace()
    for i in range(N):
        t.launch(10 * i, 10, "small_kernel", 7, 10 * i, 3)
    t.sync("cudaDeviceSynchronize", 10 * N, 1, "Context Sync")
    return t.document()


def sync_chain():
    """N times: a kernel of 100 us launched (5 us call) and waited for (cudaStreamSynchronize until
    it ends). The GPU sets the pace: the path is the N kernels, 100 N us."""
    t = Trace()
    for i in range(N):
        start = 100 * i
        t.launch(start, 5, "big_kernel", 7, start, 100)
        t.sync("cudaStreamSynchronize", start + 5, 95, "Stream Sync", stream=7)
    return t.document()


def event_join():
    """Kernel A (100 us) on stream 7; an event recorded after it; stream 8 waits for the event, then
    runs kernel B (50 us) as soon as A ends; the CPU synchronises the device. Path A + B = 150 us,
    which only the event edge explains (without it B could have run at 3 us)."""
    t = Trace(streams=(7, 8))
    t.launch(0, 1, "kernel_A", 7, 0, 100)
    record = t.call("cudaEventRecord", 1, 1)
    t.sync("cudaStreamWaitEvent", 2, 1, "Stream Wait Event", stream=8, wait_on_stream=7,
           wait_on_cuda_event_record_corr_id=record, wait_on_cuda_event_id=1)
    t.launch(3, 1, "kernel_B", 8, 100, 50)
    t.sync("cudaDeviceSynchronize", 4, 146, "Context Sync")
    return t.document()


WORK = {0: 100, 1: 300}  # rank 1 is the straggler
TRANSFER = 50


def allreduce(rank, steps=1):
    """Rank r computes WORK[r] us, then all-reduces with NCCL (the kernel runs from its launch until
    the last rank has arrived plus 50 us) and synchronises its stream. Path: rank 1's 300 us of
    compute and the 50 us transfer, 350 us; rank 0's stream waits 200 us in the all-reduce.
    With steps=2 (allreduce2/), the same again after the first all-reduce, the computation named
    "compute2": its 200 us wait is rank 1's extra compute2, although the ranks synchronised before."""
    t = Trace(rank=rank, streams=(20,))
    w = WORK[rank]
    step = max(WORK.values()) + TRANSFER
    for s in range(steps):
        start = s * step
        end = start + step
        t.cpu("compute" if s == 0 else f"compute{s + 1}", start, w)
        args = {"Collective name": "allreduce", "Process Group Name": "0", "Seq": s, "In msg nelems": 1024,
                "dtype": "Float", "Group size": 2}
        t.launch(start + w, 1, "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", 20,
                 start + w, end - start - w, args=args)
        t.sync("cudaStreamSynchronize", start + w + 1, end - start - w - 1, "Stream Sync", stream=20)
    return t.document(world=2)


SEND_AT, RECV_AT = 200, 50  # us of compute before the send (rank 0) and the receive (rank 1)


def p2p(rank):
    """Rank 0 computes SEND_AT us, then sends to rank 1 with NCCL's send kernel (PyTorch 2.4's
    "Dst Rank"); rank 1 computes RECV_AT us, then receives ("Src Rank"): its kernel runs until the
    send's has run TRANSFER us. Each rank synchronises its stream. Path: rank 0's 200 us of compute
    and the 50 us transfer, 250 us; rank 1's stream waits 150 us for the late sender."""
    t = Trace(rank=rank, streams=(20,))
    w = SEND_AT if rank == 0 else RECV_AT
    end = SEND_AT + TRANSFER
    t.cpu("compute", 0, w)
    args = {"Collective name": "send" if rank == 0 else "recv", "Process Group Name": "0", "Seq": 0,
            "In msg nelems": 1024, "dtype": "Float", "Group size": 2}
    args["Dst Rank" if rank == 0 else "Src Rank"] = 1 - rank
    t.launch(w, 1, "ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)", 20, w, end - w, args=args)
    t.sync("cudaStreamSynchronize", w + 1, end - w - 1, "Stream Sync", stream=20)
    return t.document(world=2)


SKEW = 5000  # us: rank 1's clock runs this far ahead in allreduce_skewed/


def skewed(doc, by):
    for e in doc["traceEvents"]:
        if e.get("ph") != "M" and isinstance(e.get("ts"), int):
            e["ts"] += by
    return doc


CASES = {"launch_bound": launch_bound, "sync_chain": sync_chain, "event_join": event_join}


def main():
    out = sys.argv[1]
    os.makedirs(os.path.join(out, "allreduce"), exist_ok=True)
    os.makedirs(os.path.join(out, "allreduce_skewed"), exist_ok=True)
    os.makedirs(os.path.join(out, "p2p"), exist_ok=True)
    os.makedirs(os.path.join(out, "allreduce2"), exist_ok=True)
    for rank in (0, 1):
        with open(os.path.join(out, "p2p", f"rank-{rank}.json"), "w") as f:
            json.dump(p2p(rank), f)
    for name, make in CASES.items():
        with open(os.path.join(out, name + ".json"), "w") as f:
            json.dump(make(), f)
    for rank in WORK:
        with open(os.path.join(out, "allreduce", f"rank-{rank}.json"), "w") as f:
            json.dump(allreduce(rank), f)
        with open(os.path.join(out, "allreduce_skewed", f"rank-{rank}.json"), "w") as f:
            json.dump(skewed(allreduce(rank), SKEW * rank), f)
        with open(os.path.join(out, "allreduce2", f"rank-{rank}.json"), "w") as f:
            json.dump(allreduce(rank, steps=2), f)


if __name__ == "__main__":
    main()
