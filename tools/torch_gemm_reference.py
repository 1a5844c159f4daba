#!/usr/bin/env python3
"""The reference beside mcfleet's gemm family: PyTorch's cuBLAS on the same GPU,
in the same call (docs/performance.md, issue 11's targets).

  torch_gemm_reference.py rate [--size 8192] [--dtypes fp16,bf16,fp8-e4m3,tf32] [--reps 20] [-o out.json]
      Median, min and max TFLOP/s of size^3 products on full-entropy (randn)
      inputs, each timed with CUDA events after warm-up; fp8 through
      torch._scaled_mm (e4m3 x e4m3, bf16 out), as a center's PyTorch runs it.
  torch_gemm_reference.py sustain --seconds 60 [--dtype fp16] [--inputs randn|zero|exact] [-o out.json]
      Back-to-back products for that long; TFLOP/s per one-second window, so an
      independent sampler (nvidia-smi) read beside it gives the power at the limit.
      SIGINT, SIGTERM or SIGUSR1 ends the loop early and keeps the windows measured.

Runs only where torch sees a CUDA GPU (the device machines); exits 77 elsewhere.
"""
import argparse
import json
import signal
import statistics
import sys
import time


def die(msg, code=2):
    print("torch_gemm_reference: " + msg, file=sys.stderr)
    sys.exit(code)


def operands(torch, dtype, size, inputs, gen):
    """A and B (B given as the product's right operand) in the dtype asked."""
    def make():
        if inputs == "zero":
            return torch.zeros(size, size, device="cuda")
        if inputs == "exact":   # mcfleet's low-entropy values j/8, j in -8..8
            return torch.randint(-8, 9, (size, size), device="cuda", generator=gen).float() / 8
        return torch.randn(size, size, device="cuda", generator=gen)
    a, b = make(), make()
    if dtype == "fp8-e4m3":
        return a.to(torch.float8_e4m3fn), b.t().contiguous().to(torch.float8_e4m3fn).t()
    tt = {"fp16": torch.float16, "bf16": torch.bfloat16, "tf32": torch.float32, "fp32": torch.float32,
          "fp64": torch.float64}[dtype]
    return a.to(tt), b.to(tt)


def product(torch, dtype):
    if dtype == "fp8-e4m3":
        one = torch.ones((), device="cuda")
        return lambda a, b: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
    return lambda a, b: a @ b


def set_tf32(torch, dtype):
    torch.backends.cuda.matmul.allow_tf32 = dtype == "tf32"


def rate(torch, args):
    out = {"size": args.size, "gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "results": {}}
    gen = torch.Generator(device="cuda").manual_seed(args.seed)
    flop = 2.0 * args.size ** 3
    for dtype in args.dtypes.split(","):
        set_tf32(torch, dtype)
        try:
            a, b = operands(torch, dtype, args.size, "randn", gen)
            mm = product(torch, dtype)
            for _ in range(3):
                mm(a, b)
            torch.cuda.synchronize()
            times = []
            for _ in range(args.reps):
                s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                s.record()
                mm(a, b)
                e.record()
                e.synchronize()
                times.append(s.elapsed_time(e) * 1e-3)
        except Exception as exc:   # a type this torch or GPU lacks: say so, go on
            out["results"][dtype] = {"error": str(exc).splitlines()[0]}
            continue
        tf = [flop / t * 1e-12 for t in times]
        out["results"][dtype] = {"tflops_median": statistics.median(tf), "tflops_min": min(tf),
                                 "tflops_max": max(tf), "reps": args.reps}
        print("%-9s %5d^3  median %7.1f TFLOP/s  (min %.1f, max %.1f, %d reps)"
              % (dtype, args.size, statistics.median(tf), min(tf), max(tf), args.reps), flush=True)
    return out


def sustain(torch, args):
    gen = torch.Generator(device="cuda").manual_seed(args.seed)
    set_tf32(torch, args.dtype)
    a, b = operands(torch, args.dtype, args.size, args.inputs, gen)
    mm = product(torch, args.dtype)
    flop = 2.0 * args.size ** 3
    for _ in range(3):
        mm(a, b)
    torch.cuda.synchronize()
    windows, t0 = [], time.time()
    wall0 = t0
    stop = []   # a stop signal ends the loop; the windows measured are kept (a disturber is stopped by its caller)
    for sig in (signal.SIGTERM, signal.SIGUSR1):
        signal.signal(sig, lambda num, frame: stop.append(num))
    try:
        while time.time() - wall0 < args.seconds and not stop:
            n, ws = 0, time.time()
            s = torch.cuda.Event(enable_timing=True)
            e = torch.cuda.Event(enable_timing=True)
            s.record()
            while time.time() - ws < 1.0:
                for _ in range(8):
                    mm(a, b)
                n += 8
                e.record()
                e.synchronize()
            windows.append({"t_start": ws, "tflops": n * flop / (s.elapsed_time(e) * 1e-3) * 1e-12})
    except KeyboardInterrupt:
        stop.append(signal.SIGINT)
    steady = [w["tflops"] for w in windows[len(windows) // 2:]]
    med = statistics.median(steady) if steady else float("nan")
    print("sustain %s %s %d^3 %.0f s%s: last half median %.1f TFLOP/s" % (
        args.dtype, args.inputs, args.size, time.time() - wall0,
        " (stopped by signal %d)" % stop[0] if stop else "", med), flush=True)
    return {"dtype": args.dtype, "inputs": args.inputs, "size": args.size, "gpu": torch.cuda.get_device_name(),
            "torch": torch.__version__, "t0_unix": t0, "windows": windows,
            "stopped_by_signal": int(stop[0]) if stop else None,
            "steady_tflops_median": med}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("rate")
    r.add_argument("--size", type=int, default=8192)
    r.add_argument("--dtypes", default="fp16,bf16,fp8-e4m3,tf32")
    r.add_argument("--reps", type=int, default=20)
    s = sub.add_parser("sustain")
    s.add_argument("--seconds", type=float, default=60)
    s.add_argument("--size", type=int, default=8192)
    s.add_argument("--dtype", default="fp16")
    s.add_argument("--inputs", choices=("randn", "zero", "exact"), default="randn")
    for q in (r, s):
        q.add_argument("--seed", type=int, default=20261123)
        q.add_argument("-o", "--output")
    args = p.parse_args()
    try:
        import torch
    except ImportError:
        die("no torch here", 77)
    if not torch.cuda.is_available():
        die("torch sees no CUDA GPU", 77)
    out = rate(torch, args) if args.cmd == "rate" else sustain(torch, args)
    if args.output:
        with open(args.output, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
