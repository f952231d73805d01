#!/usr/bin/env python3
"""Records conformance traces from vLLM's own v1 KV cache manager (our own code).

It imports vLLM's unmodified vllm/v1/core/{block_pool,kv_cache_utils,kv_cache_manager,
single_type_kv_cache_manager,kv_cache_coordinator}.py (and kv_cache_interface.py, request.py,
metrics/stats.py, utils/{hashing,math_utils}.py) from vllm_src/, with the rest of vLLM and torch
replaced by the small fakes in stubs/. It drives KVCacheManager the way vLLM's scheduler does
(get_computed_blocks -> allocate_slots for a waiting request, allocate_slots for a running one,
free on finish and on preemption) and writes one JSON file per operation stream to traces/.
FORMAT.md describes the files. No vLLM code or hash value goes into a trace: only token ids,
block ids and counts.

Usage: python3 record.py [--out traces] [--random N]
"""
import argparse
import json
import logging
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "stubs"))  # stubs/vllm/* extend __path__ to vllm_src/
os.environ["PYTHONHASHSEED"] = "0"  # read by init_none_hash: fixed seed of the hash chain

try:  # kv_cache_interface.py wants typing_extensions.Self; Debian's python3 may lack it
    import typing_extensions  # noqa: F401
except ImportError:
    import types
    import typing

    sys.modules["typing_extensions"] = types.SimpleNamespace(Self=typing.Self)

import torch  # noqa: E402  (the stub)
from vllm.sampling_params import SamplingParams  # noqa: E402
from vllm.utils.hashing import sha256  # noqa: E402
from vllm.v1.core.kv_cache_manager import KVCacheManager  # noqa: E402
from vllm.v1.core.kv_cache_utils import get_request_block_hasher, init_none_hash  # noqa: E402
from vllm.v1.kv_cache_interface import (  # noqa: E402
    FullAttentionSpec,
    KVCacheConfig,
    KVCacheGroupSpec,
)
from vllm.v1.request import Request  # noqa: E402

VLLM_COMMIT = "9aaf83ef502fc37bc647f6e474314d48ba36cd1c"
VLLM_DATE = "2026-05-19T11:44:32-07:00"
FORMAT = "kvsim-vllm-conformance/1"
MAX_MODEL_LEN = 1 << 20  # never caps anything in these streams
HASH_NAME = "sha256"  # vllm.utils.hashing.sha256 (pickle + SHA-256), PYTHONHASHSEED=0

init_none_hash(sha256)
logging.getLogger("vllm").setLevel(logging.ERROR)


def dumps(obj):
    return json.dumps(obj, separators=(",", ":"))


class Recorder:
    """One operation stream against a fresh vLLM KVCacheManager, recorded step by step."""

    def __init__(self, name, kind, num_blocks, block_size, description, seed=None,
                 params=None):
        self.name = name
        self.kind = kind
        self.seed = seed
        self.description = description
        self.params = params or {}
        self.num_blocks = num_blocks
        self.block_size = block_size
        spec = FullAttentionSpec(block_size=block_size, num_kv_heads=1, head_size=8,
                                 dtype=torch.float16)
        config = KVCacheConfig(num_blocks=num_blocks, kv_cache_tensors=[],
                               kv_cache_groups=[KVCacheGroupSpec(["layer.0"], spec)])
        self.kv = KVCacheManager(config, max_model_len=MAX_MODEL_LEN,
                                 hash_block_size=block_size, enable_caching=True,
                                 log_stats=True)
        self.pool = self.kv.block_pool
        self.hasher = get_request_block_hasher(block_size, sha256)
        self.reqs = {}          # id -> vLLM Request, for requests not finished
        self.running = []       # ids, admission order (vLLM scheduler's self.running)
        self.waiting = []       # ids, front first (preempted ones are prepended)
        self.steps = []
        self.features = set()
        self.num_lookups = 0
        # Evictions: wrap the pool's own _maybe_evict_cached_block (instance attribute).
        self._evicted = []
        real_evict = self.pool._maybe_evict_cached_block

        def evict_and_log(block):
            evicted = real_evict(block)
            if evicted:
                self._evicted.append(block.block_id)
            return evicted

        self.pool._maybe_evict_cached_block = evict_and_log
        self.initial = self._state()

    # ---- state -------------------------------------------------------------------------
    def free_order(self):
        return [b.block_id for b in self.pool.free_block_queue.get_all_free_blocks()]

    def tables(self):
        mgr = self.kv.coordinator.single_type_managers[0]
        return {rid: [b.block_id for b in blocks]
                for rid, blocks in mgr.req_to_blocks.items() if blocks}

    def stats(self):
        s = self.kv.prefix_cache_stats
        return [s.requests, s.queries, s.hits, s.preempted_requests, s.preempted_queries,
                s.preempted_hits]

    def hashed(self):
        return [b.block_hash is not None for b in self.pool.blocks]

    def _state(self):
        free = self.free_order()
        assert len(free) == self.pool.get_num_free_blocks()
        return {"free": free, "nfree": self.pool.get_num_free_blocks()}

    def _record(self, step, before_hashed):
        after = self.hashed()
        evicted = self._evicted
        self._evicted = []
        ev = set(evicted)
        cached = [i for i, h in enumerate(after)
                  if h and (not before_hashed[i] or i in ev)]
        step["evicted"] = evicted
        step["cached"] = cached
        step["tables"] = self.tables()
        step.update(self._state())
        step["stats"] = self.stats()
        step = {"i": len(self.steps), **step}
        self.steps.append(step)
        return step

    # ---- operations (each one recorded step) -------------------------------------------
    def admit(self, rid, tokens=None, budget=None, full_fit=True):
        """Schedules a waiting request: get_computed_blocks, then allocate_slots with the hit
        (vLLM scheduler, waiting queue). tokens: a new request's prompt; None: the request
        exists (preempted, or an earlier admission found no room). full_fit: the scheduler's
        full_sequence_must_fit (scheduler_reserve_full_isl, True by default in vLLM)."""
        before = self.hashed()
        step = {"op": "admit", "req": rid}
        if tokens is not None:
            assert rid not in self.reqs
            req = Request(rid, list(tokens), SamplingParams(), None, block_hasher=self.hasher)
            self.reqs[rid] = req
            step["tokens"] = list(tokens)
        else:
            req = self.reqs[rid]
            assert rid in self.waiting
        assert req.num_computed_tokens == 0
        step["n"] = req.num_tokens
        if budget is not None:
            step["budget"] = budget
            self.features.add("chunked")
        computed_blocks, num_hit = self.kv.get_computed_blocks(req)
        num_new = req.num_tokens - num_hit
        if budget is not None:
            num_new = min(num_new, budget)
        step["full_fit"] = full_fit
        new_blocks = self.kv.allocate_slots(req, num_new, num_new_computed_tokens=num_hit,
                                            new_computed_blocks=computed_blocks,
                                            full_sequence_must_fit=full_fit)
        hit_ids = computed_blocks.get_block_ids()[0] if num_hit else []
        step["hit"] = hit_ids
        step["hit_tokens"] = num_hit
        if new_blocks is None:
            step["ok"] = False
            if rid not in self.waiting:
                self.waiting.append(rid)
        else:
            step["ok"] = True
            step["new"] = new_blocks.get_block_ids()[0]
            req.num_computed_tokens = num_hit + num_new
            if rid in self.waiting:
                self.waiting.remove(rid)
            self.running.append(rid)
        step["computed"] = req.num_computed_tokens
        return self._record(step, before)

    def step(self, rid, append=(), budget=None, lookahead=0):
        """One scheduler step of a running request: the tokens sampled since its last step
        are appended (none during a chunked prefill or a retry), then allocate_slots for
        all tokens not yet computed (capped by budget), with num_lookahead_tokens."""
        before = self.hashed()
        req = self.reqs[rid]
        assert rid in self.running
        step = {"op": "step", "req": rid, "append": list(append)}
        if append:
            assert req.num_computed_tokens == req.num_tokens, "appending during a prefill"
            req.append_output_token_ids(list(append))
        num_new = req.num_tokens - req.num_computed_tokens
        if budget is not None:
            num_new = min(num_new, budget)
            step["budget"] = budget
            self.features.add("chunked")
        if lookahead:
            step["lookahead"] = lookahead
            self.features.add("lookahead")
        assert num_new > 0
        new_blocks = self.kv.allocate_slots(req, num_new, num_lookahead_tokens=lookahead)
        if new_blocks is None:
            step["ok"] = False
        else:
            step["ok"] = True
            step["new"] = new_blocks.get_block_ids()[0] if any(new_blocks.blocks) else []
            req.num_computed_tokens += num_new
        step["computed"] = req.num_computed_tokens
        return self._record(step, before)

    def preempt(self, rid):
        """vLLM Scheduler._preempt_request: free the blocks, num_computed_tokens = 0,
        num_preemptions += 1, back to the front of the waiting queue (tokens kept)."""
        before = self.hashed()
        req = self.reqs[rid]
        self.running.remove(rid)
        self.kv.free(req)
        req.num_computed_tokens = 0
        req.num_preemptions += 1
        self.waiting.insert(0, rid)
        self.features.add("preempt")
        return self._record({"op": "preempt", "req": rid}, before)

    def finish(self, rid):
        """The request finished (or was aborted while waiting): KVCacheManager.free."""
        before = self.hashed()
        req = self.reqs.pop(rid)
        if rid in self.running:
            self.running.remove(rid)
        if rid in self.waiting:
            self.waiting.remove(rid)
        self.kv.free(req)
        return self._record({"op": "finish", "req": rid}, before)

    def lookup(self, tokens):
        """get_computed_blocks for a new request that is then dropped (a prefix probe):
        no state change but the prefix cache stats."""
        before = self.hashed()
        self.num_lookups += 1
        req = Request(f"q{self.num_lookups}", list(tokens), SamplingParams(), None,
                      block_hasher=self.hasher)
        computed_blocks, num_hit = self.kv.get_computed_blocks(req)
        step = {"op": "lookup", "tokens": list(tokens),
                "hit": computed_blocks.get_block_ids()[0] if num_hit else [],
                "hit_tokens": num_hit}
        self.features.add("lookup")
        return self._record(step, before)

    def reset(self):
        before = self.hashed()
        ok = self.kv.reset_prefix_cache()
        self.features.add("reset")
        return self._record({"op": "reset", "ok": ok}, before)

    # ---- output --------------------------------------------------------------------------
    def write(self, out_dir):
        header = {
            "format": FORMAT,
            "name": self.name,
            "kind": self.kind,
            "seed": self.seed,
            "description": self.description,
            "params": self.params,
            "features": sorted(self.features),
            "config": {"num_blocks": self.num_blocks, "block_size": self.block_size,
                       "null_block": self.pool.null_block.block_id,
                       "max_model_len": MAX_MODEL_LEN, "enable_caching": True,
                       "hash": HASH_NAME, "kv_cache_groups": 1,
                       "spec": "FullAttentionSpec"},
            "vllm": {"repo": "vllm-project/vllm", "commit": VLLM_COMMIT, "date": VLLM_DATE},
            "initial": self.initial,
            "final": {"num_steps": len(self.steps),
                      "num_evictions": sum(len(s["evicted"]) for s in self.steps),
                      "stats": self.stats()},
        }
        path = os.path.join(out_dir, self.name + ".json")
        with open(path, "w") as f:
            text = dumps(header)
            f.write(text[:-1] + ',\n"steps":[\n')
            f.write(",\n".join(dumps(s) for s in self.steps))
            f.write("\n]}\n")
        return path


# ---- token helpers -----------------------------------------------------------------------
def seq(first, count):
    return list(range(first, first + count))


def greedy_next(context, count):
    """Deterministic 'greedy decoding': the next tokens depend only on the context, so two
    requests with equal token lists generate equal continuations (duplicate-hash blocks)."""
    out = []
    ctx = list(context)
    for _ in range(count):
        h = 0
        for t in ctx[-4:]:
            h = (h * 1000003 + t) & 0xFFFFFFFF
        tok = 20000 + (h + len(ctx)) % 5000
        out.append(tok)
        ctx.append(tok)
    return out


# ---- scripted streams (one rule each) ------------------------------------------------------
def scripted():
    streams = []

    r = Recorder("s01_null_block", "scripted", 6, 4,
                 "Block 0 is the null block: never in the free queue, never handed out; "
                 "num_free_blocks starts at num_blocks-1. A 20-token prompt takes all 5 "
                 "usable blocks; a 1-token prompt then finds no room.")
    r.admit("r1", seq(100, 20))
    r.admit("r2", [7])
    r.finish("r1")
    r.admit("r2")
    r.finish("r2")
    streams.append(r)

    r = Recorder("s02_free_order_tail_first", "scripted", 10, 4,
                 "free() releases a request's blocks in reverse table order: the tail joins "
                 "the free queue first and is evicted first. Freed blocks go to the back, "
                 "behind the never-used ones; shared blocks join when their last holder frees.")
    r.admit("r1", seq(100, 10))          # blocks 1 2 3 (3 partial)
    r.admit("r2", seq(100, 8) + seq(500, 5))  # hit 1 2, new 4 5
    r.finish("r1")                       # only 3 has ref 0 now
    r.finish("r2")                       # 5 4 2 1
    r.admit("r3", seq(900, 28))          # 7 blocks: 6 7 8 9 then 3 5 4 (evictions)
    r.finish("r3")
    streams.append(r)

    r = Recorder("s03_eviction_order_single_queue", "scripted", 6, 4,
                 "vLLM keeps one LRU free queue: a cached (hashed) block freed before an "
                 "unhashed one is evicted first, even while the unhashed block is free. "
                 "(kvsim's lru reuses every unhashed free block before any cached one.)")
    r.admit("r1", seq(100, 8))           # blocks 1 2, both cached
    r.admit("r2", seq(300, 3))           # block 3, partial (unhashed)
    r.finish("r1")                       # queue: 4 5 2 1
    r.finish("r2")                       # queue: 4 5 2 1 3
    r.admit("r3", seq(700, 12))          # pops 4 5 2 -> evicts 2 (cached) not 3
    r.lookup(seq(100, 8) + [1])          # hit stops at block 1's successor: 2 is gone
    r.finish("r3")
    streams.append(r)

    r = Recorder("s04_touch_cached_free_block", "scripted", 8, 4,
                 "A prefix hit on a free cached block takes it out of the middle of the "
                 "free queue (touch) and raises its ref count; a hit on a held block only "
                 "raises the ref count. The hit blocks are touched before new blocks are "
                 "popped, so the allocation cannot evict them.")
    r.admit("r1", seq(100, 12))          # 1 2 3 all full and cached
    r.finish("r1")                       # queue 4 5 6 7 3 2 1
    r.admit("r2", seq(100, 8) + seq(400, 6))  # hit 1 2 (touched out of the queue), new 4 5
    r.admit("r3", seq(100, 4) + seq(600, 3))  # hit 1 (held: ref 2->3), new 6
    r.finish("r2")
    r.finish("r3")
    streams.append(r)

    r = Recorder("s05_no_room_counts_free_hits", "scripted", 6, 4,
                 "allocate_slots counts hit blocks that sit in the free queue "
                 "(num_evictable computed blocks) as blocks it needs: here the new blocks "
                 "alone would fit but new + free hits do not, so it returns None and "
                 "nothing changes (free queue, tables, hashes). Prefix stats still count "
                 "the lookup of the failed admission.")
    r.admit("r1", seq(100, 8))           # 1 2 cached
    r.finish("r1")                       # queue 3 4 5 2 1
    r.admit("r2", seq(800, 8))           # 3 4
    r.admit("r3", seq(100, 8) + seq(200, 5))  # hit 1 2 (both free) + 2 new: needs 4 > 3 free
    r.admit("r4", seq(900, 9))           # 3 new blocks: fits exactly (evicts 2 1)
    r.admit("r3")                        # retry: hit now gone? lookups recorded again
    r.finish("r2")
    r.admit("r3")
    r.finish("r3")
    r.finish("r4")
    streams.append(r)

    r = Recorder("s06_hit_capped_at_num_tokens_minus_1", "scripted", 10, 4,
                 "get_computed_blocks caps the hit at num_tokens-1 tokens (rounded down to "
                 "whole blocks): an 8-token prompt whose 2 blocks are cached hits 1 block and "
                 "recomputes the second into a NEW block, which is cached too: two blocks "
                 "now hold the same hash. A 9-token prompt with the same 8 tokens hits 2.")
    r.admit("r1", seq(100, 8))           # 1 2
    r.admit("r2", seq(100, 8))           # hit [1], new 3 (same content as 2)
    r.lookup(seq(100, 8) + [5])          # hit [1 2]: the first-cached copy
    r.admit("r3", seq(100, 9))           # hit [1 2], new 4
    r.finish("r1")
    r.finish("r2")
    r.finish("r3")
    streams.append(r)

    r = Recorder("s07_duplicate_hash_second_copy_hits", "scripted", 7, 4,
                 "Several blocks per hash: the first-inserted copy answers lookups; when it "
                 "is evicted the other copy still hits. (kvsim: first registration wins and "
                 "the duplicate stays unhashed, so after the eviction nothing would hit.)")
    r.admit("r1", seq(100, 8))           # 1 2
    r.admit("r2", seq(100, 8))           # hit 1, new 3 = duplicate of 2
    r.lookup(seq(100, 9))                # hit [1 2]
    r.finish("r1")                       # 2 freed (ref 0); 1 still held by r2
    r.admit("r3", seq(900, 13))          # 4 5 6 then 2: evicts the first copy
    r.lookup(seq(100, 9))                # hit [1 3]: the second copy
    r.finish("r3")
    r.admit("r4", seq(100, 9))           # hit [1 3]
    r.finish("r2")
    r.finish("r4")
    streams.append(r)

    r = Recorder("s08_partial_block_not_cached", "scripted", 8, 4,
                 "Only full blocks get a hash. A 6-token prompt caches its first block; the "
                 "partial second block is cached in the step whose allocation makes its "
                 "tokens complete (the step that appends and schedules the 8th token).")
    r.admit("r1", seq(100, 6))           # 1 (cached) 2 (partial)
    r.lookup(seq(100, 7))                # hit [1]
    r.step("r1", [106])                  # 7 tokens: 2 still partial
    r.step("r1", [107])                  # 8 tokens: 2 cached now
    r.lookup(seq(100, 9))                # hit [1 2]
    r.step("r1", [108])                  # new block 3
    r.finish("r1")
    streams.append(r)

    r = Recorder("s09_preempt_and_readmit", "scripted", 7, 4,
                 "Preemption (vLLM scheduler: free, num_computed_tokens=0, back to the "
                 "waiting queue keeping prompt+output tokens). The freed blocks stay cached "
                 "until evicted; re-admission looks up prompt+generated tokens (hit capped "
                 "at num_tokens-1) and counts in the preempted_* prefix stats.")
    r.admit("r1", seq(100, 6))           # 1 2
    r.step("r1", [200])
    r.step("r1", [201])                  # 8 tokens, 2 cached
    r.admit("r2", seq(300, 11))          # 3 4 5
    r.step("r1", [202])                  # new 6
    r.step("r2", [400])                  # 12 tokens: fits in 5
    r.step("r2", [401])                  # needs a block: none free -> None
    r.preempt("r2")                      # scheduler preempts the last running request
    r.step("r1", [203, 204, 205, 206])   # r1 grows into r2's freed blocks
    r.admit("r2")                        # re-admission: prompt + [400, 401]
    r.finish("r1")
    r.admit("r2")
    r.finish("r2")
    streams.append(r)

    r = Recorder("s10_reset_prefix_cache", "scripted", 8, 4,
                 "reset_prefix_cache fails (False, nothing changes) while any block is held; "
                 "with every block free it drops every hash, keeps the free-queue order, and "
                 "later lookups miss.")
    r.admit("r1", seq(100, 9))
    r.reset()
    r.finish("r1")
    r.lookup(seq(100, 9))
    r.reset()
    r.lookup(seq(100, 9))
    r.admit("r2", seq(100, 9))
    r.finish("r2")
    streams.append(r)

    r = Recorder("s11_chunked_prefill", "scripted", 12, 4,
                 "Chunked prefill (allocate_slots with fewer tokens than the prompt): only "
                 "the blocks whose tokens are scheduled so far are cached, so a concurrent "
                 "identical prompt hits only that part and then fills duplicate blocks.")
    p = seq(100, 17)
    r.admit("r1", p, budget=6)           # tokens 0..5: block 1 cached, 2 partial
    r.admit("r2", p, budget=6)           # hit [1]; tokens 4..9
    r.step("r1", budget=6)               # r1 12 tokens: 2 3 cached
    r.step("r2", budget=20)              # r2 rest: its own copies of blocks 2.. cached too
    r.step("r1", budget=20)
    r.lookup(p + [1])
    r.finish("r1")
    r.lookup(p + [1])
    r.finish("r2")
    streams.append(r)

    r = Recorder("s12_lookahead_slots", "scripted", 10, 4,
                 "num_lookahead_tokens (speculative decoding) allocates slots beyond "
                 "num_tokens; caching stops at request.num_tokens, so lookahead-only blocks "
                 "stay unhashed until real tokens fill them. Fewer tokens than already "
                 "allocated need no new block.")
    r.admit("r1", seq(100, 6))
    r.step("r1", [1], lookahead=3)       # 7 tokens + 3 lookahead = 10 slots: 3 blocks
    r.step("r1", [2], lookahead=3)       # 8 + 3 = 11: no new block; block 2 now cached
    r.step("r1", [3, 4, 5], lookahead=3)  # 11 + 3 = 14: block 4
    r.step("r1", [6], lookahead=0)
    r.finish("r1")
    streams.append(r)

    r = Recorder("s13_greedy_twins_duplicate_decode_blocks", "scripted", 12, 4,
                 "Two requests with the same prompt admitted one after the other decode the "
                 "same tokens (greedy): every block filled by decode gets the same hash in "
                 "both, so the cache holds two blocks per hash; freeing order decides "
                 "which copy survives eviction.")
    p = seq(100, 5)
    r.admit("a", p)
    r.admit("b", p)
    ga, gb = list(p), list(p)
    for _ in range(8):
        t = greedy_next(ga, 1)
        ga += t
        r.step("a", t)
        t = greedy_next(gb, 1)
        gb += t
        r.step("b", t)
    r.finish("a")
    r.lookup(ga + [1])
    r.admit("c", seq(800, 28))          # 7 blocks: the never-used ones, then a's tail copies
    r.lookup(ga + [1])
    r.finish("b")
    r.finish("c")
    streams.append(r)

    r = Recorder("s14_stats_count_every_lookup", "scripted", 5, 4,
                 "PrefixCacheStats are recorded by get_computed_blocks: queries += num_tokens, "
                 "hits += hit tokens, for every attempt, including admissions that then "
                 "find no room and retries of them; preempted requests count apart.")
    r.admit("r1", seq(100, 9))           # 1 2 3
    r.admit("r2", seq(100, 8) + [9, 9])  # hit 1 2, new 4
    r.admit("r3", seq(100, 8) + [7] * 3)  # hit 1 2 (held) + 1 new, 0 free: no room
    r.admit("r3")                        # again
    r.finish("r1")
    r.admit("r3")
    r.preempt("r3")
    r.admit("r3")
    r.finish("r2")
    r.finish("r3")
    streams.append(r)

    r = Recorder("s15_full_sequence_must_fit", "scripted", 8, 4,
                 "vLLM's scheduler admits with full_sequence_must_fit=True by default "
                 "(scheduler_reserve_full_isl): a chunked admission is refused unless the "
                 "WHOLE prompt (less the hit) fits now, though only the first chunk is "
                 "allocated. With the flag off only the chunk has to fit.")
    r.admit("r1", seq(100, 12))          # 1 2 3
    r.admit("r2", seq(500, 20), budget=4)  # needs 5 > 4 free: refused
    r.admit("r2", budget=4, full_fit=False)  # only the chunk: block 4
    r.step("r2", budget=4)
    r.admit("r3", seq(100, 8) + seq(900, 9), budget=4)  # hit 1 2 + 3 more for 17 tokens
    r.finish("r1")
    r.admit("r3", budget=4)
    r.finish("r2")
    r.finish("r3")
    streams.append(r)
    return streams


# ---- random streams --------------------------------------------------------------------------
PATTERNS = ["system", "tree", "identical", "unique", "mixed"]


class PromptSource:
    """Prompts with a sharing pattern, in token ids."""

    def __init__(self, rng, pattern, block_size, num_blocks):
        self.rng = rng
        self.pattern = pattern
        self.bs = block_size
        self.max_len = max(2, min(block_size * max(3, num_blocks // 2), 6 * block_size + 3, 64))
        self.next_tok = 1000
        n_sys = rng.randint(1, 3)
        self.systems = [self.fresh(rng.randint(1, max(1, self.max_len * 2 // 3)))
                        for _ in range(n_sys)]
        # tree: segments of random length; a prompt is a root-to-node path.
        self.tree = {(): []}
        self.identical = [self.fresh(rng.randint(1, self.max_len)) for _ in range(rng.randint(1, 3))]

    def fresh(self, n):
        out = list(range(self.next_tok, self.next_tok + n))
        self.next_tok += n
        return out

    def tree_prompt(self):
        path = ()
        toks = []
        while True:
            kids = self.tree[path]
            if len(toks) >= self.max_len or (path and self.rng.random() < 0.35):
                break
            if not kids or (len(kids) < 3 and self.rng.random() < 0.4):
                seg = self.fresh(self.rng.choice([self.bs // 2 or 1, self.bs, self.bs + 1,
                                                  2 * self.bs, self.bs - 1 or 1]))
                kids.append(seg)
                self.tree[path + (len(kids) - 1,)] = []
            i = self.rng.randrange(len(kids))
            toks += kids[i]
            path = path + (i,)
        return toks[: self.max_len] or self.fresh(1)

    def prompt(self):
        pat = self.pattern
        if pat == "mixed":
            pat = self.rng.choice(["system", "tree", "identical", "unique"])
        if pat == "system":
            base = list(self.rng.choice(self.systems))
            return (base + self.fresh(self.rng.randint(0, max(1, self.max_len - len(base)))))[
                : self.max_len] or self.fresh(1)
        if pat == "tree":
            return self.tree_prompt()
        if pat == "identical":
            if self.rng.random() < 0.8:
                return list(self.rng.choice(self.identical))
            return self.fresh(self.rng.randint(1, self.max_len))
        return self.fresh(self.rng.randint(1, self.max_len))


def random_stream(seed):
    rng = random.Random(seed)
    bs = rng.choice([2, 3, 4, 4, 4, 8, 8, 16])
    num_blocks = rng.randint(8, 32) if bs <= 4 else rng.randint(8, 20)
    pattern = PATTERNS[seed % len(PATTERNS)]
    greedy = rng.random() < 0.6
    use_lookahead = seed % 7 == 3
    use_chunked = seed % 4 == 1
    num_ops = rng.randint(45, 80)
    params = {"pattern": pattern, "greedy": greedy, "lookahead": use_lookahead,
              "chunked": use_chunked, "num_ops": num_ops}
    r = Recorder(f"r{seed:03d}", "random", num_blocks, bs,
                 f"seeded random stream: {pattern} prompts, "
                 f"{'greedy' if greedy else 'sampled'} decode"
                 f"{', lookahead' if use_lookahead else ''}"
                 f"{', chunked prefill' if use_chunked else ''}", seed=seed, params=params)
    src = PromptSource(rng, pattern, bs, num_blocks)
    next_id = [0]

    def new_tokens(rid, k):
        req = r.reqs[rid]
        if greedy:
            return greedy_next(list(req.all_token_ids), k)
        return [rng.randint(30000, 30000 + 50) for _ in range(k)]

    def budget():
        if use_chunked and rng.random() < 0.5:
            return rng.randint(1, 3 * bs)
        return None

    def schedule_step(rid, append):
        """A running request's step; on no room, preempt the last running request (vLLM's
        FCFS policy) and retry until it fits or the request itself was preempted."""
        la = rng.randint(1, 3) if use_lookahead and rng.random() < 0.7 else 0
        b = budget()
        st = r.step(rid, append, budget=b, lookahead=la)
        while not st["ok"]:
            victim = r.running[-1]
            r.preempt(victim)
            if victim == rid:
                return
            st = r.step(rid, (), budget=b, lookahead=la)

    use_reset = seed % 3 == 0
    ops = 0
    while ops < num_ops:
        ops += 1
        # Keep the pool under pressure: while many blocks are free, mostly admit and grow;
        # once it is nearly full, finish and preempt too, so that freed cached blocks get
        # reused (evicted) by the next allocations.
        roomy = r.pool.get_num_free_blocks() > (num_blocks - 1) * 0.3
        if roomy:
            weights = {"admit": 45, "step": 40, "finish": 3, "readmit": 6, "lookup": 4,
                       "preempt": 1, "reset": 0, "abort": 1}
        else:
            weights = {"admit": 15, "step": 35, "finish": 20, "readmit": 12, "lookup": 6,
                       "preempt": 6, "reset": 2 if use_reset else 0, "abort": 4}
        action = rng.choices(list(weights), weights=list(weights.values()))[0]
        if action == "admit" and len(r.running) + len(r.waiting) < 10:
            next_id[0] += 1
            rid = f"q{next_id[0]}"
            r.admit(rid, src.prompt(), budget=budget(), full_fit=rng.random() < 0.75)
        elif action == "step" and r.running:
            rid = rng.choice(r.running)
            req = r.reqs[rid]
            if req.num_computed_tokens < req.num_tokens:
                schedule_step(rid, ())          # prefill chunk or retry
            else:
                k = 1 if rng.random() < 0.8 else rng.randint(2, 2 * bs)
                schedule_step(rid, new_tokens(rid, k))
        elif action == "finish" and r.running:
            r.finish(rng.choice(r.running))
        elif action == "readmit" and r.waiting:
            r.admit(r.waiting[0], budget=budget(), full_fit=rng.random() < 0.75)
        elif action == "lookup":
            if r.reqs and rng.random() < 0.6:
                req = r.reqs[rng.choice(list(r.reqs))]
                toks = list(req.all_token_ids)[: rng.randint(1, req.num_tokens)]
                if rng.random() < 0.5:
                    toks += [rng.randint(1, 9)]
            else:
                toks = src.prompt()
            r.lookup(toks)
        elif action == "preempt" and r.running:
            r.preempt(rng.choice(r.running))
        elif action == "reset":
            r.reset()
        elif action == "abort" and r.waiting:
            r.finish(r.waiting[-1])  # abort a waiting request
        else:
            ops -= 1  # nothing to do for that action now: draw again
    for rid in list(r.running) + list(r.waiting):
        r.finish(rid)
    if use_reset:
        r.reset()
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(HERE, os.pardir, "traces"))
    ap.add_argument("--random", type=int, default=52, help="number of seeded random streams")
    ap.add_argument("--first-seed", type=int, default=1)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for f in os.listdir(args.out):
        if f.endswith(".json"):
            os.remove(os.path.join(args.out, f))
    streams = scripted()
    for seed in range(args.first_seed, args.first_seed + args.random):
        streams.append(random_stream(seed))
    total = 0
    index = []
    for s in streams:
        path = s.write(args.out)
        size = os.path.getsize(path)
        total += size
        index.append({"file": os.path.basename(path), "kind": s.kind, "seed": s.seed,
                      "num_blocks": s.num_blocks, "block_size": s.block_size,
                      "steps": len(s.steps), "features": sorted(s.features),
                      "evictions": sum(len(x["evicted"]) for x in s.steps)})
    with open(os.path.join(args.out, "index.json"), "w") as f:
        json.dump({"format": FORMAT, "vllm_commit": VLLM_COMMIT, "streams": index}, f,
                  indent=0, separators=(",", ":"))
    print(f"{len(streams)} streams, {sum(len(s.steps) for s in streams)} steps, "
          f"{total} bytes in {args.out}")


if __name__ == "__main__":
    main()
