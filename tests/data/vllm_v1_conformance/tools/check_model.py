#!/usr/bin/env python3
"""An independent model of vLLM v1's paged block pool rules (our own code, no vLLM import),
replaying every trace in traces/ and checking it step by step.

It proves that the trace format carries enough to replay: from the config, the initial free
queue and each step's op fields alone, the model recomputes every recorded result and state
(hit blocks, hit tokens, new blocks, ok/no-room, computed tokens, every block table, the whole
free queue, the blocks evicted and newly cached in the step, num_free_blocks and the prefix
cache stats) and compares them. Hashes are modelled by content: a full block's key is the
tuple of ALL tokens from the start of the sequence up to the block's end (what vLLM's chained
hash identifies). The rules are those of VLLM_RULES.md.

Usage: python3 check_model.py [traces/*.json]   (exit status 1 on the first mismatch)
"""
import glob
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


class Mismatch(Exception):
    pass


class Model:
    def __init__(self, cfg):
        self.n = cfg["num_blocks"]
        self.bs = cfg["block_size"]
        self.max_model_len = cfg["max_model_len"]
        self.null = 0
        self.free = list(range(1, self.n))     # front = next popped; block 0 is the null block
        self.ref = [0] * self.n
        self.key = [None] * self.n             # content key of a cached block
        self.cache = {}                        # key -> [block ids], insertion order
        self.reqs = {}                         # id -> dict(tokens, computed, table, ncached, preemptions)
        self.stats = [0] * 6
        self.evicted = []
        self.newly_cached = []

    # ---- pool ----------------------------------------------------------------------------
    def block_key(self, tokens, i):
        return tuple(tokens[: (i + 1) * self.bs])

    def find(self, k):
        blocks = self.cache.get(k)
        return blocks[0] if blocks else None

    def pop_blocks(self, count):
        out = self.free[:count]
        del self.free[:count]
        for b in out:                          # evict in pop order, then ref_cnt = 1
            if self.key[b] is not None:
                lst = self.cache[self.key[b]]
                lst.remove(b)
                if not lst:
                    del self.cache[self.key[b]]
                self.key[b] = None
                self.evicted.append(b)
            assert self.ref[b] == 0
            self.ref[b] = 1
        return out

    def touch(self, blocks):
        for b in blocks:
            if self.ref[b] == 0:
                self.free.remove(b)
            self.ref[b] += 1

    def release(self, ordered):
        for b in ordered:
            self.ref[b] -= 1
        self.free.extend(b for b in ordered if self.ref[b] == 0)

    # ---- manager -------------------------------------------------------------------------
    def computed_blocks(self, tokens):
        max_blocks = (len(tokens) - 1) // self.bs
        hit = []
        for i in range(max_blocks):
            b = self.find(self.block_key(tokens, i))
            if b is None:
                break
            hit.append(b)
        return hit

    def record_stats(self, r, hit_tokens):
        base = 3 if r["preemptions"] > 0 else 0
        self.stats[base] += 1
        self.stats[base + 1] += len(r["tokens"])
        self.stats[base + 2] += hit_tokens

    def fits_whole(self, r, hit):
        """full_sequence_must_fit: blocks for the whole sequence (less the hit) fit now."""
        required = -(-min(len(r["tokens"]), self.max_model_len) // self.bs)
        need = (max(required - len(hit) - len(r["table"]), 0)
                + sum(1 for b in hit if self.ref[b] == 0))
        return need <= len(self.free)

    def allocate(self, r, num_new, hit, lookahead=0):
        bs = self.bs
        local = r["computed"] + len(hit) * bs
        need_slot = min(local + num_new + lookahead, self.max_model_len)
        required = -(-need_slot // bs)
        table = r["table"]
        need = max(required - len(hit) - len(table), 0) + sum(1 for b in hit if self.ref[b] == 0)
        if need > len(self.free):
            return None
        if hit:
            self.touch(hit)
            table.extend(hit)
            r["ncached"] = len(table)
        new = []
        if required > len(table):
            new = self.pop_blocks(required - len(table))
            table.extend(new)
        to_cache = min(local + num_new, len(r["tokens"]))
        full = to_cache // bs
        for i in range(r["ncached"], full):
            b = table[i]
            assert self.key[b] is None
            k = self.block_key(r["tokens"], i)
            self.key[b] = k
            self.cache.setdefault(k, []).append(b)
            self.newly_cached.append(b)
        r["ncached"] = max(r["ncached"], full)
        return new

    def free_req(self, r):
        self.release(list(reversed(r["table"])))
        r["table"] = []
        r["ncached"] = 0

    # ---- ops -----------------------------------------------------------------------------
    def apply(self, s):
        op = s["op"]
        got = {}
        if op == "admit":
            rid = s["req"]
            if "tokens" in s:
                assert rid not in self.reqs
                self.reqs[rid] = {"tokens": list(s["tokens"]), "computed": 0, "table": [],
                                  "ncached": 0, "preemptions": 0}
            r = self.reqs[rid]
            hit = self.computed_blocks(r["tokens"])
            hit_tokens = len(hit) * self.bs
            self.record_stats(r, hit_tokens)
            num_new = len(r["tokens"]) - hit_tokens
            if "budget" in s:
                num_new = min(num_new, s["budget"])
            new = None
            if not s["full_fit"] or self.fits_whole(r, hit):
                new = self.allocate(r, num_new, hit)
            got.update(n=len(r["tokens"]), hit=hit, hit_tokens=hit_tokens, ok=new is not None)
            if new is not None:
                got["new"] = new
                r["computed"] = hit_tokens + num_new
            got["computed"] = r["computed"]
        elif op == "step":
            r = self.reqs[s["req"]]
            r["tokens"].extend(s["append"])
            num_new = len(r["tokens"]) - r["computed"]
            if "budget" in s:
                num_new = min(num_new, s["budget"])
            new = self.allocate(r, num_new, [], s.get("lookahead", 0))
            got["ok"] = new is not None
            if new is not None:
                got["new"] = new
                r["computed"] += num_new
            got["computed"] = r["computed"]
        elif op == "preempt":
            r = self.reqs[s["req"]]
            self.free_req(r)
            r["computed"] = 0
            r["preemptions"] += 1
        elif op == "finish":
            r = self.reqs.pop(s["req"])
            self.free_req(r)
        elif op == "lookup":
            hit = self.computed_blocks(s["tokens"])
            self.record_stats({"tokens": s["tokens"], "preemptions": 0}, len(hit) * self.bs)
            got.update(hit=hit, hit_tokens=len(hit) * self.bs)
        elif op == "reset":
            ok = len(self.free) == self.n - 1
            if ok:
                self.cache = {}
                self.key = [None] * self.n
            got["ok"] = ok
        else:
            raise Mismatch(f"unknown op {op}")
        got["evicted"] = self.evicted
        got["cached"] = sorted(set(self.newly_cached))
        self.evicted, self.newly_cached = [], []
        got["tables"] = {rid: r["table"] for rid, r in self.reqs.items() if r["table"]}
        got["free"] = list(self.free)
        got["nfree"] = len(self.free)
        got["stats"] = list(self.stats)
        return got


def check_file(path):
    with open(path) as f:
        trace = json.load(f)
    m = Model(trace["config"])
    if m.free != trace["initial"]["free"] or len(m.free) != trace["initial"]["nfree"]:
        raise Mismatch(f"{path}: initial free queue {trace['initial']} != {m.free}")
    for s in trace["steps"]:
        got = m.apply(s)
        for k, v in got.items():
            want = s.get(k)
            if k == "cached":
                want = sorted(want)
            if want != v:
                raise Mismatch(f"{os.path.basename(path)} step {s['i']} ({s['op']}): "
                               f"{k}: trace {want!r} model {v!r}")
    if m.stats != trace["final"]["stats"]:
        raise Mismatch(f"{path}: final stats")
    return len(trace["steps"])


def main():
    paths = sys.argv[1:] or sorted(
        p for p in glob.glob(os.path.join(HERE, os.pardir, "traces", "*.json"))
        if not p.endswith("index.json"))
    steps = 0
    for p in paths:
        try:
            steps += check_file(p)
        except Mismatch as e:
            print("MISMATCH", e)
            return 1
    print(f"{len(paths)} traces, {steps} steps: the model agrees with vLLM at every step")
    return 0


if __name__ == "__main__":
    sys.exit(main())
