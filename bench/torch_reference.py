#!/usr/bin/env python3
"""Reference figures measured on the same GPU in the same run as mcfleet:
cuBLAS GEMM 8192^3 through torch (bf16, fp16, tf32, fp64, fp8 via
torch._scaled_mm), torch's device-to-device copy and a = a + 0.5*b.
Random inputs; CUDA events; median of 20 after 5 warm-ups. Prints one JSON
object per figure."""
import json
import statistics

import torch


def timed(fn, reps=20, warm=5):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b) * 1e-3)
    return statistics.median(ts), min(ts), max(ts)


def emit(name, value, unit, t):
    print(json.dumps({"name": name, "value": value, "unit": unit, "median_s": t[0], "min_s": t[1], "max_s": t[2]}), flush=True)


def gemm(name, dtype, n=8192):
    a = torch.randn(n, n, device="cuda").to(dtype)
    b = torch.randn(n, n, device="cuda").to(dtype)
    t = timed(lambda: a @ b)
    emit(name, 2 * n ** 3 / t[0] / 1e12, "TFLOP/s", t)


def main():
    dev = torch.cuda.get_device_properties(0)
    print(json.dumps({"device": dev.name, "torch": torch.__version__, "cuda": torch.version.cuda}), flush=True)
    gemm("cublas-bf16", torch.bfloat16)
    gemm("cublas-fp16", torch.float16)
    torch.backends.cuda.matmul.allow_tf32 = True
    gemm("cublas-tf32", torch.float32)
    torch.backends.cuda.matmul.allow_tf32 = False
    gemm("cublas-fp64", torch.float64)
    n = 8192
    a = torch.randn(n, n, device="cuda").to(torch.float8_e4m3fn)
    b = torch.randn(n, n, device="cuda").to(torch.float8_e4m3fn).t()   # column-major, as _scaled_mm wants
    one = torch.tensor(1.0, device="cuda")
    t = timed(lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16))
    emit("cublas-fp8", 2 * n ** 3 / t[0] / 1e12, "TFLOP/s", t)
    x = torch.empty(2 ** 28, dtype=torch.float64, device="cuda").uniform_()   # 2 GiB
    y = torch.empty_like(x)
    t = timed(lambda: y.copy_(x))
    emit("torch-copy", 2 * x.numel() * 8 / t[0] / 1e9, "GB/s", t)
    t = timed(lambda: x.add_(y, alpha=0.5))
    emit("torch-axpy", 3 * x.numel() * 8 / t[0] / 1e9, "GB/s", t)


main()
