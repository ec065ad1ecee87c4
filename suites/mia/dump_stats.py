#!/usr/bin/env python3
# File: suites/mia/dump_stats.py
# Documentation, not run in CI: dumps the per-token statistics that
# `claimbench eval mia --stats FILE.jsonl` reads (format: suites/mia/README.md)
# from a Hugging Face causal LM on WikiMIA, so the WikiMIA table of Min-K%++
# can be reproduced on a machine with a GPU:
#
#   pip install torch transformers datasets
#   python dump_stats.py --model EleutherAI/pythia-2.8b --ref EleutherAI/pythia-70m \
#       --length 32 --out wikimia32_pythia2.8b.jsonl
#   claimbench eval mia --stats wikimia32_pythia2.8b.jsonl
#
# Per text x (brief §0-§1): ids = tokenizer(x); one forward pass; logits[:-1]
# paired with ids[1:] (the first token is never scored), and per position
#   ll    = log p(x_t | x_<t)
#   mu    = sum_v p log p           (fp32 log_softmax over the full vocabulary)
#   sigma = sqrt(sum_v p (log p)^2 - mu^2)
# plus ll of x.lower() (Lowercase) and the reference model's ll (Ref; as in
# the Min-K%++ repository the reference is fed its OWN tokenizer's ids here,
# fixing the run_ref.py bug the brief notes). For FSD, pass --ft ADAPTER_DIR
# (a PEFT LoRA adapter fine-tuned on held-out non-members) to add ll_ft and
# ll_lower_ft.
import argparse
import json

import torch
from datasets import load_dataset
from transformers import AutoModelForCausalLM, AutoTokenizer


def token_stats(model, tok, text, device, moments):
    ids = tok(text, return_tensors="pt").input_ids.to(device)
    with torch.no_grad():
        logits = model(ids).logits[0, :-1].float()  # [T-1, V]
    logp = torch.log_softmax(logits, dim=-1)
    target = ids[0, 1:]
    ll = logp.gather(-1, target[:, None])[:, 0]
    out = {"ll": ll.tolist()}
    if moments:
        p = logp.exp()
        mu = (p * logp).sum(-1)
        var = (p * logp.square()).sum(-1) - mu.square()
        out["mu"] = mu.tolist()
        out["sigma"] = var.clamp_min(0).sqrt().tolist()
    return out


def load(name, device):
    tok = AutoTokenizer.from_pretrained(name)
    model = AutoModelForCausalLM.from_pretrained(name, torch_dtype=torch.bfloat16).to(device).eval()
    return tok, model


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--ref", default=None)
    ap.add_argument("--ft", default=None, help="PEFT adapter directory (FSD)")
    ap.add_argument("--length", type=int, default=32, choices=[32, 64, 128, 256])
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    data = load_dataset("swj0419/WikiMIA", split=f"WikiMIA_length{args.length}")
    tok, model = load(args.model, device)
    ref = load(args.ref, device) if args.ref else None
    ft = None
    if args.ft:
        from peft import PeftModel
        ft = PeftModel.from_pretrained(load(args.model, device)[1], args.ft).eval()
    with open(args.out, "w") as f:
        for row in data:
            text = row["input"]
            rec = {"label": int(row["label"]), "text": text}
            rec.update(token_stats(model, tok, text, device, moments=True))
            rec["ll_lower"] = token_stats(model, tok, text.lower(), device, False)["ll"]
            if ref:
                rec["ll_ref"] = token_stats(ref[1], ref[0], text, device, False)["ll"]
            if ft:
                rec["ll_ft"] = token_stats(ft, tok, text, device, False)["ll"]
                rec["ll_lower_ft"] = token_stats(ft, tok, text.lower(), device, False)["ll"]
            f.write(json.dumps(rec, allow_nan=False) + "\n")


if __name__ == "__main__":
    main()
