#!/usr/bin/env python3
"""Fits the operator cost model's efficiency curves to Vidur's per-operator profiles.

Usage: /usr/bin/python3 docs/cost_model/fit_operators.py [DATA_DIR] [OUT_DIR]
  DATA_DIR  the shared data folder (default $KVSIM_DATA_DIR or ../shared): reads
            calibration/vidur/compute/{a100,h100}/*/*/mlp.csv, the A100 attention profile and
            calibration/vidur/network/{a100,h100}_dgx/all_reduce.csv
  OUT_DIR   where the pictures and tables go (default docs/cost_model)
Writes fit.md (parameters and residuals, included in docs/cost_model.md), the
parameters as C++ initialisers (fit_params.inc.txt, pasted into simulator/cost/operator_fits.cc)
and one picture of measured vs modelled times per device and operator family (*.png).
Needs numpy, scipy and matplotlib (Debian: python3-numpy python3-scipy python3-matplotlib).

The model's forms (simulator/cost/operator_cost_model.h) are fitted in log space (least
squares of log(model / measured)), every profile row weighted alike:
  GEMM         t = floor + sqrt(tc^2 + tm^2),  tc = F / (P * ec(M)),  ec(M) = ec_max * M / (M + M_half)
                                              tm = bytes / (BW * em)
  elementwise  t = sqrt(floor^2 + (bytes / (BW * e))^2)
  decode attn  t = floor + bytes / (BW * e)
  prefill attn t = floor + F_cross / (P * ex(q)) + F_causal / (P * ec(q)),  e(q) = e_max * q / (q + q_half)
  all-reduce   t = latency + 2 (n - 1) / n * bytes / bus_bandwidth
"""
import collections
import csv
import glob
import math
import os
import sys

import numpy as np
from scipy.optimize import least_squares

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

DATA = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("KVSIM_DATA_DIR", "../shared")
OUT = sys.argv[2] if len(sys.argv) > 2 else os.path.dirname(os.path.abspath(__file__))
VIDUR = os.path.join(DATA, "calibration", "vidur")
# Peaks of the presets (presets/devices/a100-80g.yaml, h100-sxm.yaml): dense fp16 FLOP/s, HBM B/s.
PEAK = {"a100": (312e12, 2039e9), "h100": (989.5e12, 3350e9)}
ACT = 2  # bytes per fp16 activation; the profiles are fp16
GEMMS = ("attn_pre_proj", "attn_post_proj", "mlp_up_proj", "mlp_down_proj")
# Left out of every compute fit and used to test it (tests/simulator/cost/
# operator_cost_model_test.cc: OperatorFits.TheA100FitReproducesHeldOutProfileRows).
HOLD_OUT = "Llama-2-7b-hf"
ELEMENTWISE = {  # fit name -> profile columns
    "norm": ("input_layernorm", "post_attention_layernorm"),
    "rope": ("attn_rope",),
    "activation": ("mlp_act",),
    "residual_add": ("add",),
    "embedding": ("emb",),
}


def geometry(r):
    h, nh, nkv = int(r["n_embd"]), int(r["n_head"]), int(r["n_kv_head"])
    return h, nh, nkv, int(r["n_expanded_embd"]), r["use_gated_mlp"] == "True", h // nh


def gemm_kn(r, tp, op):
    h, nh, nkv, ff, gated, hd = geometry(r)
    return {"attn_pre_proj": (h, (nh + 2 * nkv) * hd // tp), "attn_post_proj": (nh * hd // tp, h),
            "mlp_up_proj": (h, (2 * ff if gated else ff) // tp), "mlp_down_proj": (ff // tp, h)}[op]


def elementwise_bytes(r, tp, col, m):
    h, nh, nkv, ff, gated, hd = geometry(r)
    return {"input_layernorm": 2 * m * h, "post_attention_layernorm": 2 * m * h,
            "attn_rope": 2 * m * (nh + nkv) * hd / tp, "mlp_act": (3 if gated else 2) * m * ff / tp,
            "add": 3 * m * h, "emb": 2 * m * h}[col] * ACT


def mlp_rows(dev, held_out=False):
    """The profile rows of every model but HOLD_OUT (held_out=False), or of HOLD_OUT only."""
    for path in sorted(glob.glob(f"{VIDUR}/compute/{dev}/*/*/mlp.csv")):
        model = path.split("/")[-2]
        if (model == HOLD_OUT) != held_out:
            continue
        with open(path) as f:
            for r in csv.DictReader(f):
                yield model, int(r["num_tensor_parallel_workers"]), int(r["num_tokens"]), r


def fit_log(model, x0, lo, hi, t):
    r = least_squares(lambda x: np.log(model(x) / t), x0, bounds=(lo, hi), x_scale="jac")
    return r.x, np.abs(np.exp(r.fun) - 1)


def gemm_model(x, m, k, n, peak, bw):
    floor, ec_max, m_half, em = x
    tc = 2 * m * k * n / (peak * ec_max * m / (m + m_half))
    tm = ACT * (k * n + m * (k + n)) / (bw * em)
    return floor + np.sqrt(tc ** 2 + tm ** 2)


def gemm_points(dev, held_out=False):
    pts = [(model, tp, op, m, *gemm_kn(r, tp, op), float(r[f"time_stats.{op}.median"]) * 1e-3)
           for model, tp, m, r in mlp_rows(dev, held_out) for op in GEMMS]
    return pts, np.array([p[3:] for p in pts], float).T


def gemm_held_out_error(dev, x):
    _, (m, k, n, t) = gemm_points(dev, held_out=True)
    peak, bw = PEAK[dev]
    return np.abs(gemm_model(x, m, k, n, peak, bw) / t - 1)


def fit_gemm(dev):
    pts, (m, k, n, t) = gemm_points(dev)
    peak, bw = PEAK[dev]
    x, err = fit_log(lambda x: gemm_model(x, m, k, n, peak, bw), [5e-6, 0.75, 50, 0.8],
                     [0, 0.05, 0, 0.05], [1e-4, 1.0, 1e4, 1.0], t)
    return x, err, pts


def fit_elementwise(dev, cols):
    pts = []
    for model, tp, m, r in mlp_rows(dev):
        for col in cols:
            v = r.get(f"time_stats.{col}.median", "")
            if v:
                pts.append((model, tp, col, m, elementwise_bytes(r, tp, col, m), float(v) * 1e-3))
    b = np.array([p[4] for p in pts]); t = np.array([p[5] for p in pts])
    bw = PEAK[dev][1]
    x, err = fit_log(lambda x: np.sqrt(x[0] ** 2 + (b / (bw * x[1])) ** 2), [4e-6, 0.5],
                     [0, 0.01], [1e-3, 1.0], t)
    return x, err, pts


def attention_rows():
    path = f"{VIDUR}/compute/a100/meta-llama/Llama-2-70b-hf/attention_tp2_e2d00e9.csv"
    dec, pre = [], []
    with open(path) as f:
        for r in csv.DictReader(f):
            heads = int(r["n_q_head"]) // int(r["num_tensor_parallel_workers"])
            kv_heads = int(r["n_kv_head"]) // int(r["num_tensor_parallel_workers"])
            hd = int(r["n_embd"]) // int(r["n_q_head"])
            c = int(r["kv_cache_size"])
            if r["is_prefill"] == "False":
                b = int(r["batch_size"])
                dec.append((b, c, b * (c + 1) * 2 * kv_heads * hd * ACT, float(r["time_stats.attn_decode.median"]) * 1e-3))
            else:
                q = int(r["prefill_chunk_size"])
                kappa = 4 * heads * hd  # FLOPs per (query, key) pair: QK^T and PV
                pre.append((q, c, kappa * q * c, kappa * q * (q + 1) / 2, float(r["time_stats.attn_prefill.median"]) * 1e-3))
    return np.array(dec, float), np.array(pre, float)


def prefill_model(x, q, fx, fc, peak):
    floor, ex, qx, ec, qc = x
    return floor + fx / (peak * ex * q / (q + qx)) + fc / (peak * ec * q / (q + qc))


def fit_attention():
    dec, pre = attention_rows()
    peak, bw = PEAK["a100"]
    xd, ed = fit_log(lambda x: x[0] + dec[:, 2] / (bw * x[1]), [15e-6, 0.7], [0, 0.01], [1e-3, 1.0], dec[:, 3])
    q, c, fx, fc, t = pre.T
    xp, ep = fit_log(lambda x: prefill_model(x, q, fx, fc, peak), [1e-5, 0.5, 50, 0.2, 500],
                     [0, 0.01, 0, 0.01, 0], [1e-3, 1.0, 1e5, 1.0, 1e5], t)
    return (xd, ed, dec), (xp, ep, pre)


def fit_all_reduce(dev):
    groups = collections.defaultdict(list)
    with open(f"{VIDUR}/network/{dev}_dgx/all_reduce.csv") as f:
        for r in csv.DictReader(f):
            n, dpn, size = int(r["num_workers"]), int(r["devices_per_node"]), int(r["size"])
            if r["rank"] == "0" and n == dpn and size <= 64 << 20:
                groups[n].append((size, float(r["time_stats.all_reduce.median"]) * 1e-3))
    out = {}
    for n, v in sorted(groups.items()):
        s, t = np.array(v).T
        x, err = fit_log(lambda x: x[0] + 2 * (n - 1) / n * s / x[1], [20e-6, 1e11], [0, 1e8], [1e-3, 2e12], t)
        out[n] = (x, err, s, t)
    return out


def stats(err):
    return (len(err), np.median(err), np.mean(err), np.percentile(err, 90), np.max(err))


def row(name, err, params):
    n, med, mean, p90, mx = stats(err)
    return f"| {name} | {params} | {n} | {med:.1%} | {mean:.1%} | {p90:.1%} | {mx:.0%} |"


def plot_gemm(dev, x, pts, path):
    peak, bw = PEAK[dev]
    cases = [("Llama-2-7b-hf", 1), ("Llama-2-70b-hf", 2), ("Llama-2-70b-hf", 8)]
    fig, axes = plt.subplots(1, 4, figsize=(18, 4.6))
    for ax, op in zip(axes, GEMMS):
        for (model, tp), color in zip(cases, ("tab:blue", "tab:orange", "tab:green")):
            sel = sorted((p for p in pts if p[0] == model and p[1] == tp and p[2] == op), key=lambda p: p[3])
            if not sel:
                continue
            m = np.array([p[3] for p in sel], float); k, n = sel[0][4], sel[0][5]
            ax.loglog(m, [p[6] * 1e6 for p in sel], ".", ms=3, color=color, label=f"{model} TP{tp} measured")
            ax.loglog(m, gemm_model(x, m, k, n, peak, bw) * 1e6, "-", color=color, lw=1.2, label="model")
        ax.set_title(f"{dev.upper()} {op}"); ax.set_xlabel("tokens M"); ax.set_ylabel("µs"); ax.grid(True, which="both", alpha=.3)
    axes[0].legend(fontsize=7)
    fig.tight_layout(); fig.savefig(path, dpi=90); plt.close(fig)


def plot_elementwise(dev, fits, path):
    bw = PEAK[dev][1]
    fig, axes = plt.subplots(1, len(fits), figsize=(18, 4.2))
    for ax, (name, (x, err, pts)) in zip(axes, fits.items()):
        b = np.array([p[4] for p in pts]); t = np.array([p[5] for p in pts])
        ax.loglog(b, t * 1e6, ".", ms=2, alpha=.3, label="measured (all models, TP)")
        grid = np.logspace(np.log10(b.min()), np.log10(b.max()), 100)
        ax.loglog(grid, np.sqrt(x[0] ** 2 + (grid / (bw * x[1])) ** 2) * 1e6, "k-", lw=1.2, label="model")
        ax.set_title(f"{dev.upper()} {name}"); ax.set_xlabel("bytes moved"); ax.set_ylabel("µs"); ax.grid(True, which="both", alpha=.3)
    axes[0].legend(fontsize=7)
    fig.tight_layout(); fig.savefig(path, dpi=90); plt.close(fig)


def plot_attention(dec_fit, pre_fit, ar, path):
    peak, bw = PEAK["a100"]
    fig, axes = plt.subplots(1, 3, figsize=(18, 4.6))
    xd, _, dec = dec_fit
    for b, color in zip((1, 8, 32, 128), ("tab:blue", "tab:orange", "tab:green", "tab:red")):
        sel = dec[dec[:, 0] == b]
        axes[0].plot(sel[:, 1], sel[:, 3] * 1e6, ".", ms=3, color=color, label=f"batch {b} measured")
        axes[0].plot(sel[:, 1], (xd[0] + sel[:, 2] / (bw * xd[1])) * 1e6, "-", color=color, lw=1.2)
    axes[0].set_title("A100 decode attention (Llama-2-70B TP2)"); axes[0].set_xlabel("KV length per sequence"); axes[0].set_ylabel("µs")
    xp, _, pre = pre_fit
    for c, color in zip((0, 512, 1024, 2048), ("tab:blue", "tab:orange", "tab:green", "tab:red")):
        sel = pre[pre[:, 1] == c]
        sel = sel[np.argsort(sel[:, 0])]
        axes[1].loglog(sel[:, 0], sel[:, 4] * 1e6, ".", ms=3, color=color, label=f"cached {c} measured")
        axes[1].loglog(sel[:, 0], prefill_model(xp, sel[:, 0], sel[:, 2], sel[:, 3], peak) * 1e6, "-", color=color, lw=1.2)
    axes[1].set_title("A100 prefill attention (Llama-2-70B TP2)"); axes[1].set_xlabel("chunk tokens q"); axes[1].set_ylabel("µs")
    for dev, ls in (("a100", "-"), ("h100", "--")):
        for n, (x, err, s, t) in ar[dev].items():
            line, = axes[2].loglog(s, t * 1e6, ".", ms=2, alpha=.4)
            axes[2].loglog(s, (x[0] + 2 * (n - 1) / n * s / x[1]) * 1e6, ls, color=line.get_color(), lw=1.2, label=f"{dev.upper()} DGX n={n}")
    axes[2].set_title("all-reduce (NCCL, DGX)"); axes[2].set_xlabel("bytes"); axes[2].set_ylabel("µs")
    for ax in axes:
        ax.grid(True, which="both", alpha=.3); ax.legend(fontsize=7)
    fig.tight_layout(); fig.savefig(path, dpi=90); plt.close(fig)


def main():
    md = ["| operator | parameters | rows | median \\|err\\| | mean | p90 | max |", "|---|---|---:|---:|---:|---:|---:|"]
    cxx = []
    ar = {dev: fit_all_reduce(dev) for dev in PEAK}
    dec_fit, pre_fit = fit_attention()
    for dev in PEAK:
        x, err, pts = fit_gemm(dev)
        md.append(row(f"{dev.upper()} GEMM (qkv, o, up, down; all models but {HOLD_OUT}, TP 1-8)", err,
                      f"floor {x[0]*1e6:.2f} µs, ec_max {x[1]:.3f}, M_half {x[2]:.1f}, em {x[3]:.3f}"))
        md.append(row(f"{dev.upper()} GEMM, held out ({HOLD_OUT}, TP 1-8: not fitted)",
                      gemm_held_out_error(dev, x), "the fit above"))
        cxx.append(f"// {dev}: gemm\n{{{x[0]:.4e}, {x[1]:.4f}, {x[2]:.2f}, {x[3]:.4f}}},")
        plot_gemm(dev, x, pts, os.path.join(OUT, f"fit_gemm_{dev}.png"))
        fits = {}
        for name, cols in ELEMENTWISE.items():
            xe, ee, pe = fit_elementwise(dev, cols)
            fits[name] = (xe, ee, pe)
            md.append(row(f"{dev.upper()} {name} ({', '.join(cols)})", ee, f"floor {xe[0]*1e6:.2f} µs, e {xe[1]:.3f}"))
            cxx.append(f"// {dev}: {name}\n{{{xe[0]:.4e}, {xe[1]:.4f}}},")
        plot_elementwise(dev, fits, os.path.join(OUT, f"fit_elementwise_{dev}.png"))
        for n, (xa, ea, s, t) in ar[dev].items():
            md.append(row(f"{dev.upper()} all-reduce n={n} ({dev}_dgx)", ea, f"latency {xa[0]*1e6:.1f} µs, bus {xa[1]/1e9:.0f} GB/s"))
            cxx.append(f"// {dev}: all_reduce n={n}\n{{{n}, {xa[0]:.4e}, {xa[1]/1e9:.1f}}},")
    xd, ed, _ = dec_fit
    xp, ep, _ = pre_fit
    md.append(row("A100 decode attention (Llama-2-70B TP2)", ed, f"floor {xd[0]*1e6:.2f} µs, e {xd[1]:.3f}"))
    md.append(row("A100 prefill attention (Llama-2-70B TP2)", ep,
                  f"floor {xp[0]*1e6:.2f} µs, cross {xp[1]:.3f} (q_half {xp[2]:.0f}), causal {xp[3]:.3f} (q_half {xp[4]:.0f})"))
    cxx.append(f"// decode attention\n{{{xd[0]:.4e}, {xd[1]:.4f}}},")
    cxx.append(f"// prefill attention\n{{{xp[0]:.4e}, {xp[1]:.4f}, {xp[2]:.1f}, {xp[3]:.4f}, {xp[4]:.1f}}},")
    plot_attention(dec_fit, pre_fit, ar, os.path.join(OUT, "fit_attention_network.png"))
    with open(os.path.join(OUT, "fit.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    with open(os.path.join(OUT, "fit_params.inc.txt"), "w") as f:
        f.write("\n".join(cxx) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    main()
