#!/usr/bin/env python3
"""PyTorch CPU peer of suites/lm/lm_bench.cpp: what a user would run instead.

The same Llama shapes as suites/lm/model_presets.h (target, draft), written the
way a PyTorch user writes them (nn.Linear without bias, RMSNorm, rotate_half
RoPE, grouped KV heads, SwiGLU, F.scaled_dot_product_attention is not in
torch 1.13, so softmax(q k^T / sqrt(d)) v), timed on the same workloads:

  train_step  one AdamW step (torch.optim.AdamW, grad-norm clipping at 1.0)
              of batch x seq tokens with next-token cross-entropy
  prefill     a forward pass over T tokens that fills a KV cache
  decode      one token at batch 1 from a cache of t - 1 tokens (the cache
              is concatenated, as simple user code does; torch.no_grad)

Prints one JSON line per measurement on stdout: peer, workload, params,
median_s, min_s, max_s, reps, tokens_per_s, threads. Compare with
`claimbench bench --filter lm/cpu/` run at the same thread count, in the
same session (README "Performance").

Usage: python3 suites/lm/lm_torch_peer.py [--threads 2] [--reps 7] [--quick]
(Debian 12: apt-get install python3-torch; use the system python3.)
"""

import argparse
import json
import math
import statistics
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

PRESETS = {  # suites/lm/model_presets.h
    "target": dict(d=256, layers=6, heads=8, kv=2, inter=704, tied=False),
    "draft": dict(d=128, layers=2, heads=4, kv=2, inter=352, tied=True),
}
VOCAB, EPS, THETA = 2048, 1e-5, 10000.0


class RMSNorm(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))

    def forward(self, x):
        return self.weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + EPS))


def rope(x, pos):  # x [B, heads, T, hd], pos [T]
    hd = x.shape[-1]
    inv = THETA ** (-torch.arange(0, hd, 2, dtype=torch.float32) / hd)
    f = pos[:, None].float() * inv[None, :]
    emb = torch.cat([f, f], dim=-1)
    cos, sin = emb.cos(), emb.sin()
    x1, x2 = x[..., : hd // 2], x[..., hd // 2:]
    return x * cos + torch.cat([-x2, x1], dim=-1) * sin


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        d, self.h, self.kv = c["d"], c["heads"], c["kv"]
        self.hd = d // self.h
        self.q = nn.Linear(d, self.h * self.hd, bias=False)
        self.k = nn.Linear(d, self.kv * self.hd, bias=False)
        self.v = nn.Linear(d, self.kv * self.hd, bias=False)
        self.o = nn.Linear(self.h * self.hd, d, bias=False)
        self.gate = nn.Linear(d, c["inter"], bias=False)
        self.up = nn.Linear(d, c["inter"], bias=False)
        self.down = nn.Linear(c["inter"], d, bias=False)
        self.n1, self.n2 = RMSNorm(d), RMSNorm(d)

    def forward(self, x, pos, cache=None):
        B, T, _ = x.shape
        n = self.n1(x)
        q = self.q(n).view(B, T, self.h, self.hd).transpose(1, 2)
        k = self.k(n).view(B, T, self.kv, self.hd).transpose(1, 2)
        v = self.v(n).view(B, T, self.kv, self.hd).transpose(1, 2)
        q, k = rope(q, pos), rope(k, pos)
        if cache is not None:
            if cache.get("k") is not None:
                k = torch.cat([cache["k"], k], dim=2)
                v = torch.cat([cache["v"], v], dim=2)
            cache["k"], cache["v"] = k, v
        rep = self.h // self.kv
        k, v = k.repeat_interleave(rep, dim=1), v.repeat_interleave(rep, dim=1)
        s = q @ k.transpose(-1, -2) / math.sqrt(self.hd)
        S = k.shape[2]
        if T > 1:
            mask = torch.ones(T, S, dtype=torch.bool).tril(S - T)
            s = s.masked_fill(~mask, float("-inf"))
        a = (s.softmax(-1) @ v).transpose(1, 2).reshape(B, T, -1)
        h = x + self.o(a)
        m = self.n2(h)
        return h + self.down(F.silu(self.gate(m)) * self.up(m))


class Llama(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, c["d"])
        self.blocks = nn.ModuleList(Block(c) for _ in range(c["layers"]))
        self.norm = RMSNorm(c["d"])
        self.head = nn.Linear(c["d"], VOCAB, bias=False)
        if c["tied"]:
            self.head.weight = self.embed.weight
        for p in self.parameters():
            if p.dim() >= 2:
                nn.init.normal_(p, std=0.02)

    def forward(self, ids, pos0=0, caches=None):
        x = self.embed(ids)
        pos = torch.arange(pos0, pos0 + ids.shape[1])
        for i, b in enumerate(self.blocks):
            x = b(x, pos, None if caches is None else caches[i])
        return self.head(self.norm(x))


def timed(fn, reps):
    fn()  # warm-up
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return ts


def emit(workload, params, ts, tokens, threads):
    med = statistics.median(ts)
    print(json.dumps(dict(peer="torch", workload=workload, params=params, median_s=med,
                          min_s=min(ts), max_s=max(ts), reps=len(ts),
                          tokens_per_s=tokens / med, threads=threads)), flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--reps", type=int, default=7)
    p.add_argument("--quick", action="store_true", help="draft only, fewer reps")
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(1)
    threads = torch.get_num_threads()
    print(f"torch {torch.__version__}, {threads} threads", file=sys.stderr)
    presets = ["draft"] if args.quick else ["target", "draft"]
    reps = max(3, args.reps // 2) if args.quick else args.reps
    for name in presets:
        model = Llama(PRESETS[name])
        nparams = sum(p.numel() for p in model.parameters())
        B, T = 8, 256
        ids = torch.randint(0, VOCAB, (B, T + 1))
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.95), weight_decay=0.1)

        def step():
            opt.zero_grad(set_to_none=True)
            logits = model(ids[:, :-1])
            loss = F.cross_entropy(logits.reshape(-1, VOCAB), ids[:, 1:].reshape(-1))
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()

        common = dict(preset=name, parameters=nparams)
        emit("train_step", dict(common, batch=B, seq=T), timed(step, reps), B * T, threads)

        t = 1024
        prompt = torch.randint(0, VOCAB, (1, t))
        with torch.no_grad():
            def prefill():
                caches = [dict(k=None, v=None) for _ in model.blocks]
                model(prompt, 0, caches)
                return caches

            emit("prefill", dict(common, T=t), timed(prefill, reps), t, threads)
            filled = prefill()
            # Trim each cache to t - 1 positions; every timed call decodes at position t - 1.
            base = [dict(k=c["k"][:, :, : t - 1], v=c["v"][:, :, : t - 1]) for c in filled]
            last = prompt[:, t - 1:]

            def decode():
                caches = [dict(c) for c in base]
                model(last, t - 1, caches)

            emit("decode", dict(common, t=t), timed(decode, reps * 10), 1, threads)


if __name__ == "__main__":
    main()
