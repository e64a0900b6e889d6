"""scf.for loops of every trip count on the emulator: loops that combine
nothing across threads are emitted as groups of four trips and a remainder
loop (docs/codegen.md, "Loop unrolling"), so every count from zero to past
two groups is run, with run-time bounds and step, stores and an atomic in
the body, against values computed here."""
from __future__ import annotations

import numpy as np
import pytest
import triton
import triton.language as tl

import triton_metal


@triton.jit
def running_sums_kernel(x_ptr, sums_ptr, tickets_ptr, totals_ptr, counter_ptr, start, n, step,
                        BLOCK: tl.constexpr):
    """Each trip adds a block of x to a running sum, writes the running sum
    of that block and takes a ticket from a counter; then the totals and the
    trip count are written."""
    acc = tl.zeros([BLOCK], tl.int32)
    trips = 0
    for s in range(start, n, step):
        offs = s + tl.arange(0, BLOCK)
        mask = offs < n
        acc += tl.load(x_ptr + offs, mask=mask, other=0)
        tl.store(sums_ptr + offs, acc, mask=mask)
        ticket = tl.atomic_add(counter_ptr, 1)  # a scalar result: through a threadgroup buffer
        tl.store(tickets_ptr + trips, ticket)
        trips += 1
    tl.store(totals_ptr + tl.arange(0, BLOCK), acc)
    tl.store(totals_ptr + BLOCK, trips)


def reference(x: np.ndarray, start: int, n: int, step: int, block: int):
    sums = np.full(n, -1, np.int32)
    acc = np.zeros(block, np.int64)
    trips = 0
    for s in range(start, n, step):
        offs = s + np.arange(block)
        inside = offs < n
        acc[inside] += x[offs[inside]]
        sums[offs[inside]] = acc[inside]
        trips += 1
    return sums, acc.astype(np.int32), trips


@pytest.mark.parametrize("trips", range(10))
@pytest.mark.parametrize("start,step", [(0, 64), (5, 70)])
def test_every_trip_count_runs_every_trip_once(codegen_emulator, trips, start, step):
    block = 64
    n = start + (trips - 1) * step + 17 if trips else start  # the last trip is partly masked
    x = np.random.default_rng(trips).integers(-1000, 1000, max(n, 1)).astype(np.int32)
    sums = np.full(max(n, 1), -1, np.int32)
    tickets = np.full(16, -1, np.int32)
    totals = np.zeros(block + 1, np.int32)
    counter = np.zeros(1, np.int32)
    t = triton_metal.tensor
    compiled = running_sums_kernel[(1, )](t(x), t(sums), t(tickets), t(totals), t(counter), start, n, step,
                                          BLOCK=block)
    want_sums, want_acc, want_trips = reference(x, start, n, step, block)
    assert want_trips == trips
    assert totals[block] == trips
    np.testing.assert_array_equal(totals[:block], want_acc)
    np.testing.assert_array_equal(sums[:n], want_sums)
    np.testing.assert_array_equal(tickets[:trips], np.arange(trips))
    assert (tickets[trips:] == -1).all() and counter[0] == trips
    # The body is emitted twice; its copies share the atomic's buffer.
    buffers = compiled.metadata.tmetal_abi["layouts"]["threadgroup_buffers"]
    assert [b["name"] for b in buffers] == ["tg_scalar"]
    assert compiled.asm["msl"].count(b"threadgroup int tg_scalar[1];") == 1


@triton.jit
def load_only_sums_kernel(x_ptr, out_ptr, start, n, step, BLOCK: tl.constexpr):
    """A body that only loads and adds (two carried values, one a scalar):
    its groups of four trips and the trips left are written out loads first."""
    acc = tl.zeros([BLOCK], tl.int32)
    weighted = 0
    for s in range(start, n, step):
        offs = s + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < n, other=0)
        acc += x
        weighted = weighted * 3 + s  # order-sensitive: each trip once, in order
    tl.store(out_ptr + tl.arange(0, BLOCK), acc)
    tl.store(out_ptr + BLOCK, weighted)


@pytest.mark.parametrize("trips", range(10))
@pytest.mark.parametrize("start,step", [(0, 64), (5, 70)])
def test_every_trip_count_of_a_load_only_loop(codegen_emulator, trips, start, step):
    block = 64
    n = start + (trips - 1) * step + 17 if trips else start
    x = np.random.default_rng(100 + trips).integers(-1000, 1000, max(n, 1)).astype(np.int32)
    out = np.zeros(block + 1, np.int32)
    compiled = load_only_sums_kernel[(1, )](triton_metal.tensor(x), triton_metal.tensor(out), start, n, step,
                                            BLOCK=block)
    acc, weighted = np.zeros(block, np.int64), 0
    for s in range(start, n, step):
        offs = s + np.arange(block)
        acc[offs < n] += x[offs[offs < n]]
        weighted = (weighted * 3 + s) & 0xFFFFFFFF
    np.testing.assert_array_equal(out[:block], acc.astype(np.int32))
    assert out[block] == np.array(weighted, np.uint32).view(np.int32)
    source = compiled.asm["msl"].decode()
    assert "_left = " in source and "#pragma clang loop unroll_count(2)" not in source, source
