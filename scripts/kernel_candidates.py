#!/usr/bin/env python3
"""Kernel candidates for issue 10 item 5, each against its baseline measured in the same run.

Targets (both GPUs): best transpose >= 95 % of our best copy (copy_vec4_flat); own SGEMM >= 90 % of
cuBLAS SGEMM (FP32, no TF32) at N = 4096 and 8192; float sum >= PyTorch's sum.

METHOD (the engine's and scripts/library_anchors.py's): every candidate is compiled with
cupy.RawModule (NVRTC; CuPy picks the architecture), run once and checked against a reference
(transpose and copy exactly; sum against a float64 sum, relative error <= 1e-4; SGEMM against
cupy.matmul, max |C - ref| <= 1e-4 x max |ref|), then timed with CUDA events on the default stream:
before every sample a buffer of twice the L2 size is written (the L2 flush); 3 warm-up runs, the
median of SAMPLES (default 20). Bytes count what is read plus written (transpose/copy 2 x 1 GiB,
sum 1 GiB); SGEMM flops are 2 N^3.
  transpose  16384 x 16384 floats; baseline copy_vec4_flat (kernels/coalescing/flat_copy.cu) on the
             same 1 GiB; the current tile32 / tile64_vec4 (kernels/transpose_conrad) for reference
  sum        2^28 floats (1 GiB); baselines torch.sum (if PyTorch imports) and cupy.sum; the
             current reduce_best shape is the candidate LD=0, MODE=0, U=4, 256 threads, SM*8; the
             same candidates again on 2^28 ints (the reduction experiment's type), checked exactly
  sgemm      N = 4096 and 8192; baseline cupy.matmul (CUPY_TF32=0) and torch.mm (allow_tf32 off);
             the ratio is to the faster library; the current sgemm_warptile (BK 16) for reference
Candidates are template instantiations of scripts/kernel-candidates/{transpose,reduce,sgemm}.cu.
Rows named "book <variant>" time the handbook's own versions of the winners and of the follow-ups
aimed at the misses (kernels/transpose_conrad/transpose_fast.cu, kernels/reduction/reduce_lastblk.cu,
kernels/sgemm/sgemm_tuned.cu, compiled with the defines their experiment.toml gives), launched as
the experiments launch them; --self-test replays the templates' arithmetic, which theirs repeats.
Exit status 1 when any candidate fails verification or errors (the others still run).

Run on the GPU machine, from the repository root (about a minute on an H100):
    python3 scripts/kernel_candidates.py            # everything
    python3 scripts/kernel_candidates.py --only transpose,sum --samples 30
    python3 scripts/kernel_candidates.py --only sgemm --filter 'g1$'   # only matching candidates
    python3 scripts/kernel_candidates.py --dry-run  # the plan, no GPU needed
    python3 scripts/kernel_candidates.py --self-test   # the kernels' index arithmetic in Python, no GPU
    python3 scripts/kernel_candidates.py --nvrtc-check /path/libnvrtc.so.13   # compile for sm_90, no GPU
"""
import argparse
import os
import re
import statistics
import sys
import time

os.environ.setdefault("CUPY_TF32", "0")   # before CuPy loads: cuBLAS SGEMM in plain FP32

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CAND = os.path.join(HERE, "kernel-candidates")
OPTS = ("--std=c++17",)

# ---------------------------------------------------------------- the plan
TRANSPOSE_N = 16384
# (T, R, V, SW, CS): tile, block rows, floats per vector, swizzle instead of padding, __stcs
TRANSPOSE = [
    (32, 8, 1, 0, 0), (32, 8, 1, 1, 0), (32, 8, 1, 0, 1), (32, 4, 1, 1, 1), (32, 8, 2, 1, 1),
    (64, 8, 1, 0, 0), (64, 8, 1, 1, 0), (64, 8, 1, 1, 1), (64, 16, 1, 1, 1), (64, 4, 1, 1, 1),
    (64, 8, 2, 0, 0), (64, 8, 2, 1, 0), (64, 8, 2, 1, 1), (64, 4, 2, 1, 1), (64, 16, 2, 1, 1),
    (64, 16, 4, 0, 0), (64, 16, 4, 1, 1), (64, 8, 4, 1, 1),
]
# (TR, TC): transpose_multi, TR/64 x TC/64 tiles of transpose_t<64, 16, 2, 1, 1> per block (32 x 16
# threads, dynamic shared memory 4 * TR * TC bytes): longer DRAM runs, more bytes in flight
TRANSPOSE_MULTI = [(128, 64), (64, 128), (128, 128)]
# (PERSIST, ORDER, LD, MB): transpose_p, tile64_v2's tiles pipelined across a persistent block's
# tiles, walked diagonally, loads hinted to 256-byte L2 lines; MB blocks per SM (the grid when
# persistent; otherwise one block per tile)
TRANSPOSE_PIPE = [(0, 0, 1, 1), (0, 1, 0, 1), (1, 0, 0, 2), (1, 0, 1, 2), (1, 1, 0, 2), (1, 0, 0, 4),
                  (1, 0, 1, 4), (1, 1, 1, 4)]
# Session 8 (the H200's transpose at 94.3 % of its copy):
# (LDH, STH): transpose_h, tile64_v2 (transpose_t<64, 16, 2, 1, 1>) with load hints 0 plain,
# 1 nc.L1::no_allocate, 2 L2 evict_first policy, 3 both; store hints 0 plain, 1 .cs, 2
# L1::no_allocate, 3 L2 evict_first policy, 4 L2 evict_last policy
TRANSPOSE_H = [(0, 1), (1, 1), (2, 1), (3, 1), (0, 0), (2, 0), (0, 2), (0, 3), (2, 3), (0, 4)]
# transpose_h<0, 1> (= tile64_v2) held to MB blocks per SM by unused dynamic shared memory
TRANSPOSE_OCC = [2, 3]
# (TR, TC, ST): transpose_r4, 16-byte loads and stores through 4 x 4 register transposes, 256
# threads, TR x TC tiles; ST 0 st.global.v4, 1 __stcs, 2 bulk copy (cp.async.bulk) per out row
TRANSPOSE_R4 = [
    (64, 64, 0), (64, 64, 1), (64, 64, 2), (32, 128, 1), (128, 32, 1), (128, 64, 1), (64, 128, 1),
    (128, 128, 1), (32, 128, 2), (128, 64, 2), (64, 128, 2), (128, 128, 2), (32, 256, 1), (256, 32, 1),
]
# The book's versions (kernels/transpose_conrad/transpose_fast.cu), the same arithmetic as
# transpose_t<64, 16, 2, 1, 1> and transpose_multi: (variant, kernel, defines, TR, TC)
TRANSPOSE_BOOK = [
    ("tile64_v2", "transpose_tile64_v2", (), 64, 64),
    ("tile128x64_v2", "transpose_multi", ("-DTR=128", "-DTC=64"), 128, 64),
    ("tile128_v2", "transpose_multi", ("-DTR=128", "-DTC=128"), 128, 128),
]
SUM_N = 2**28
# (NT, U, LD, MODE, grid): threads, float4 loads in flight, load kind, combine mode, grid
# (grid: "SM*k" = k blocks per SM, "flat" = one pass, each thread exactly U float4)
SUM = [
    (256, 4, 0, 0, "SM*8"), (256, 4, 0, 2, "SM*8"), (256, 8, 0, 2, "SM*8"), (256, 8, 0, 1, "SM*8"),
    (256, 4, 1, 2, "SM*8"), (256, 8, 1, 2, "SM*8"), (256, 4, 2, 2, "SM*8"), (256, 8, 2, 2, "SM*8"),
    (512, 4, 2, 2, "SM*4"), (1024, 4, 2, 2, "SM*2"), (256, 8, 2, 2, "SM*16"), (256, 4, 0, 2, "SM*32"),
    (256, 4, 0, 2, "flat"), (256, 8, 2, 2, "flat"), (128, 8, 2, 2, "SM*16"),
]
SGEMM_NS = (4096, 8192)
# (BM, BN, BK, WM, WN, MINB, GROUP, STAGES): STAGES 0 = sgemm_t (two shared stages filled from
# registers prefetched during the FMAs), STAGES >= 2 = sgemm_async (cp.async, STAGES shared stages)
SGEMM = [
    (128, 128, 8, 64, 32, 2, 1, 0), (128, 128, 16, 64, 32, 2, 1, 0), (128, 128, 8, 64, 32, 2, 8, 0),
    (128, 128, 16, 64, 32, 2, 8, 0), (128, 128, 16, 64, 32, 1, 8, 0), (128, 128, 8, 32, 64, 2, 8, 0),
    (128, 256, 8, 64, 64, 1, 8, 0), (256, 128, 8, 64, 32, 1, 8, 0), (128, 256, 8, 64, 64, 1, 1, 0),
    (128, 128, 8, 64, 64, 2, 8, 0), (128, 128, 16, 64, 64, 2, 8, 0),
    (128, 128, 8, 64, 32, 2, 8, 3), (128, 128, 8, 64, 32, 2, 8, 4), (128, 128, 16, 64, 32, 1, 8, 2),
    (128, 256, 8, 64, 64, 1, 8, 3), (128, 128, 8, 64, 64, 2, 8, 4), (128, 128, 8, 64, 32, 1, 8, 3),
    # issue 10 follow-up for the H100: the winner's warp tile in 128 x 64 blocks of 4 warps, 4 per SM
    (128, 64, 8, 64, 32, 4, 1, 0), (128, 64, 8, 64, 32, 4, 8, 0),
    # session 7: the winner's rasterisation in groups of 2, 4 and 16 block-rows (4096 on the H100 sat
    # at 89.9 %, g1, and g8 was 1 % slower)
    (128, 128, 8, 64, 32, 2, 2, 0), (128, 128, 8, 64, 32, 2, 4, 0), (128, 128, 8, 64, 32, 2, 16, 0),
]
# Session 8 tried a stream-K tail (sgemm_sk: the winner's tiles in a persistent grid of SMs x 2
# blocks, the last tiles' k-iterations split over every block): 73 % of cuBLAS, the persistent grid
# alone 87 % (results/h100-s8-sgemm-1.txt); the kernel is in commit c72bed5, removed since.
# The book's versions (kernels/sgemm/sgemm_tuned.cu's sgemm_warptile_bk8 = sgemm_t<BM, BN, 8, 64,
# 32, MINB, GROUP>): (variant, defines, BM, BN, threads)
SGEMM_BOOK = [
    ("warptile_bk8", (), 128, 128, 256),
    ("warptile_bk8_g8", ("-DGROUP=8",), 128, 128, 256),
    ("warptile_128x64", ("-DBN=64", "-DMINB=4"), 128, 64, 128),
]
# The book's sum (kernels/reduction/reduce_lastblk.cu's reduce_lastblock = rsum<int, 256, 4, 0, 2>)
# on min(SM*32, ceil(n / 1024)) blocks, as the reduction experiment launches it
SUM_BOOK_GRID_PER_SM = 32


def t_name(c):
    return "transpose_t<%d, %d, %d, %d, %d>" % c


def t_label(c):
    t, r, v, sw, cs = c
    return f"T{t} {t // v}x{r} v{v} {'swz' if sw else 'pad'}{' cs' if cs else ''}"


def m_name(c):
    return "transpose_multi<%d, %d>" % c


def p_name(c):
    return "transpose_p<%d, %d, %d, %d>" % c


def p_label(c):
    persist, order, ld, bps = c
    return ("persistent %d/SM" % bps if persist else "T64 v2") + (" diag" if order else "") + (" L2::256B" if ld else "")


def h_name(c):
    return "transpose_h<%d, %d>" % c


def h_label(c):
    ld, st = c
    return f"T64 v2 ld:{('plain', 'nc.na', 'L2ef', 'nc.na+L2ef')[ld]} st:{('plain', 'cs', 'L1na', 'L2ef', 'L2el')[st]}"


def r_name(c):
    return "transpose_r4<%d, %d, %d>" % c


def r_label(c):
    tr, tc, st = c
    return f"r4 {tr}x{tc} v4 {('st', 'cs', 'bulk')[st]}"


def r_smem(c):
    tr, tc, _ = c
    return tc * (tr // 4 + 8) * 16


def m_label(c):
    tr, tc = c
    return f"T64 x{tr // 64}x{tc // 64} ({tr}x{tc}) v2 swz cs"


SUM_TYPES = ("float", "int")


def s_names(c, e="float"):
    nt, u, ld, mode, _ = c
    return ["rsum<%s, %d, %d, %d, %d>" % (e, nt, u, ld, mode)] + (["rsum_final<%s, %d>" % (e, nt)] if mode == 0 else [])


def s_label(c):
    nt, u, ld, mode, grid = c
    return f"x{nt} U{u} {('ld', 'ldcs', 'nc256')[ld]} {('2pass', 'atomic', 'lastblk')[mode]} {grid}"


def g_name(c):
    if c[7]:
        return "sgemm_async<%d, %d, %d, %d, %d, %d, %d, %d>" % c
    return "sgemm_t<%d, %d, %d, %d, %d, %d, %d>" % c[:7]


def g_label(c):
    bm, bn, bk, wm, wn, minb, group, stages = c
    feed = f" async{stages}" if stages else ""
    return f"{bm}x{bn}x{bk} w{wm}x{wn} mb{minb} g{group}{feed}"


def plan():
    rows = [("transpose", f"{TRANSPOSE_N}^2 f32", "copy_vec4_flat (baseline), tile32, tile64_vec4 (current)")]
    rows += [("transpose", t_label(c), t_name(c)) for c in TRANSPOSE]
    rows += [("transpose", m_label(c), m_name(c)) for c in TRANSPOSE_MULTI]
    rows += [("transpose", h_label(c), h_name(c)) for c in TRANSPOSE_H]
    rows += [("transpose", f"T64 v2 cs {mb}/SM", "transpose_h<0, 1> + unused dynamic shared memory") for mb in TRANSPOSE_OCC]
    rows += [("transpose", r_label(c), r_name(c)) for c in TRANSPOSE_R4]
    rows += [("transpose", f"book {v}", f"transpose_fast.cu {k} {' '.join(d)}") for v, k, d, _, _ in TRANSPOSE_BOOK]
    rows += [("sum", f"{SUM_N} f32", "torch.sum, cupy.sum (baselines)")]
    rows += [("sum", s_label(c), " + ".join(s_names(c, e))) for e in SUM_TYPES for c in SUM]
    rows += [("sum", "book best_lastblock", "reduce_lastblk.cu reduce_lastblock (int)")]
    rows += [("sgemm", f"N = {SGEMM_NS}", "cupy.matmul / torch.mm FP32 (baselines), sgemm_warptile BK16 (current)")]
    rows += [("sgemm", g_label(c), g_name(c)) for c in SGEMM]
    rows += [("sgemm", f"book {v}", f"sgemm_tuned.cu sgemm_warptile_bk8 {' '.join(d)}") for v, d, _, _, _ in SGEMM_BOOK]
    return rows


# ---------------------------------------------------------------- compile check without a GPU
def nvrtc_check(lib):
    """Compile every candidate file for sm_90 with NVRTC (ctypes), print ptxas's register/spill lines."""
    import ctypes
    nv = ctypes.CDLL(lib)
    nv.nvrtcGetErrorString.restype = ctypes.c_char_p
    files = {
        "transpose.cu": [t_name(c) for c in TRANSPOSE] + [m_name(c) for c in TRANSPOSE_MULTI]
        + sorted({p_name(c) for c in TRANSPOSE_PIPE}) + [h_name(c) for c in TRANSPOSE_H]
        + [r_name(c) for c in TRANSPOSE_R4],
        "reduce.cu": sorted({n for c in SUM for e in SUM_TYPES for n in s_names(c, e)}),
        "sgemm.cu": [g_name(c) for c in SGEMM],
        "../../kernels/coalescing/flat_copy.cu": [],
        "../../kernels/transpose_conrad/transpose.cu": [],
        "../../kernels/sgemm/sgemm.cu": [],
    }
    builds = [(f, names, ()) for f, names in files.items()]
    builds += [("../../kernels/transpose_conrad/transpose_fast.cu", [], d) for _, _, d, _, _ in TRANSPOSE_BOOK[1:]]
    builds += [("../../kernels/reduction/reduce_lastblk.cu", [], ())]
    builds += [("../../kernels/sgemm/sgemm_tuned.cu", [], d) for _, d, _, _, _ in SGEMM_BOOK]
    bad = 0
    for fname, names, defines in builds:
        src = open(os.path.join(CAND, fname), "rb").read()
        prog = ctypes.c_void_p()
        assert nv.nvrtcCreateProgram(ctypes.byref(prog), src, fname.encode(), 0, None, None) == 0
        for n in names:
            nv.nvrtcAddNameExpression(prog, n.encode())
        opts = [b"--std=c++17", b"--gpu-architecture=sm_90", b"--ptxas-options=-v", b"-DBK=16"]
        opts += [d.encode() for d in defines]
        arr = (ctypes.c_char_p * len(opts))(*opts)
        t0 = time.time()
        rc = nv.nvrtcCompileProgram(prog, len(opts), arr)
        size = ctypes.c_size_t()
        nv.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
        log = ctypes.create_string_buffer(size.value)
        nv.nvrtcGetProgramLog(prog, log)
        text = log.value.decode(errors="replace")
        print(f"== {fname} {' '.join(defines)}: {nv.nvrtcGetErrorString(rc).decode()} in {time.time() - t0:.1f} s")
        if rc != 0:
            print(text)
            bad += 1
            continue
        lowered = {}
        for n in names:
            low = ctypes.c_char_p()
            nv.nvrtcGetLoweredName(prog, n.encode(), ctypes.byref(low))
            lowered[low.value.decode()] = n
        entry = None
        for line in text.splitlines():
            m = re.search(r"entry function '([^']+)'", line)
            if m:
                entry = lowered.get(m.group(1), m.group(1))
            elif "registers" in line:
                print(f"   {entry:44} {line.split(':', 1)[1].strip()}")
            elif "spill" in line and " 0 bytes spill stores" not in line:
                print(f"   {entry:44} SPILLS: {line.strip()}")
    return bad


# ---------------------------------------------------------------- index checks without a GPU
def self_test():
    """Replay the kernels' index arithmetic in plain Python for small sizes: every transpose
    candidate moves every element to its place (and never stores twice to one shared word); every
    SGEMM candidate's rasterisation, tile loads and output ownership cover each element once."""
    bad = 0
    n = 128
    a = [[r * n + c for c in range(n)] for r in range(n)]
    for (t, r, v, sw, cs) in TRANSPOSE:
        p = t if sw else t + 1
        b = [[-1] * n for _ in range(n)]

        def sz(rr, cc):
            return cc ^ ((rr // v) & 31) if sw else cc
        ok = True
        for by in range(n // t):
            for bx in range(n // t):
                r0, c0 = by * t, bx * t
                tile = [None] * (t * p)
                for ty in range(r):
                    for tx in range(t // v):
                        for k in range(t // r):
                            row = ty + k * r
                            for e in range(v):
                                idx = row * p + sz(row, v * tx + e)
                                ok &= tile[idx] is None
                                tile[idx] = a[r0 + row][c0 + v * tx + e]
                for ty in range(r):
                    for tx in range(t // v):
                        for k in range(t // r):
                            c = ty + k * r
                            for e in range(v):
                                rr = v * tx + e
                                b[c0 + c][r0 + v * tx + e] = tile[rr * p + sz(rr, c)]
        ok &= all(b[j][i] == a[i][j] for i in range(n) for j in range(n))
        bad += not ok
        print(f"  transpose {t_label((t, r, v, sw, cs)):28} {'ok' if ok else 'WRONG'}")
    for c in TRANSPOSE_R4:
        ok = self_test_r4(*c[:2])
        bad += not ok
        print(f"  transpose {r_label(c):28} {'ok' if ok else 'WRONG'}")
    for tr, tc in TRANSPOSE_MULTI:   # also the book's transpose_multi (and, at 64 x 64, tile64_v2)
        ok = self_test_multi(tr, tc)
        bad += not ok
        print(f"  transpose {m_label((tr, tc)):28} {'ok' if ok else 'WRONG'}")
    for n_, grid in [(1 << 12, 3), (4099, 5), (4103, 17), (1 << 14, 32), (1001, 64), (3, 2), (1 << 16, 3), (65543, 3), (67987, 3)]:
        ok = self_test_sum(n_, grid)
        bad += not ok
        print(f"  sum n = {n_}, {grid} blocks of 256: {'ok' if ok else 'WRONG'}")
    for cfg in SGEMM:
        bm_, bn_, bk, wm_, wn_, _, group, stages = cfg
        nt = (bm_ // wm_) * (bn_ // wn_) * 32
        n = max(bm_, bn_) * 4 + bm_ * 2   # num_m not a multiple of GROUP: a short last group
        n -= n % (bm_ * bn_ // min(bm_, bn_))
        num_m, num_n = n // bm_, n // bn_
        seen = []
        for pid in range(num_m * num_n):
            if group > 1:
                ig = group * num_n
                fm = (pid // ig) * group
                gsz = min(num_m - fm, group)
                seen.append((fm + (pid % ig) % gsz, (pid % ig) // gsz))
            else:
                seen.append((pid // num_n, pid % num_n))
        ok = sorted(seen) == [(i, j) for i in range(num_m) for j in range(num_n)]
        a4, b4 = bm_ * bk // 4, bk * bn_ // 4
        la, lb = -(-a4 // nt), -(-b4 // nt)
        ca, cb, cc_ = {}, {}, {}
        for t in range(nt):
            for p_ in range(0 if stages else la):   # sgemm_t: float4 A loads
                idx = t + p_ * nt
                if idx < a4:
                    rr, cc = idx // (bk // 4), idx % (bk // 4)
                    for e in range(4):
                        ca[(cc * 4 + e, rr)] = ca.get((cc * 4 + e, rr), 0) + 1
            for p_ in range(-(-(bm_ * bk) // nt) if stages else 0):   # sgemm_async: 4-byte A copies
                idx = t + p_ * nt
                if idx < bm_ * bk:
                    key = (idx % bk, idx // bk)
                    ca[key] = ca.get(key, 0) + 1
            for p_ in range(lb):
                idx = t + p_ * nt
                if idx < b4:
                    rr, cc = idx // (bn_ // 4), idx % (bn_ // 4)
                    for e in range(4):
                        cb[(rr, cc * 4 + e)] = cb.get((rr, cc * 4 + e), 0) + 1
            warp, lane = t >> 5, t & 31
            wm, wn = (warp // (bn_ // wn_)) * wm_, (warp % (bn_ // wn_)) * wn_
            lm, ln = (lane & 7) * 4, (lane >> 3) * 4
            for i in range(wm_ // 32):
                for r in range(4):
                    for j in range(wn_ // 16):
                        for q in range(4):
                            key = (wm + i * 32 + lm + r, wn + j * 16 + ln + q)
                            cc_[key] = cc_.get(key, 0) + 1
        ok &= len(ca) == bk * bm_ and set(ca.values()) == {1}
        ok &= len(cb) == bk * bn_ and set(cb.values()) == {1}
        ok &= len(cc_) == bm_ * bn_ and set(cc_.values()) == {1}
        ok &= all(0 <= k[0] < bm_ and 0 <= k[1] < bn_ for k in cc_)
        bad += not ok
        print(f"  sgemm {g_label(cfg):32} {'ok' if ok else 'WRONG'} ({nt} threads, N = {n})")
    return bad


def self_test_r4(tr, tc):
    """transpose_r4<TR, TC>'s index arithmetic on a rectangular matrix: every element lands at its
    transposed place; no 16-byte shared slot written twice or outside its out row; the 8 lanes of
    each quarter warp hit 8 different 16-byte bank groups in both shared-memory phases."""
    rows, cols = 2 * tr, 3 * tc
    a = [[r * cols + c for c in range(cols)] for r in range(rows)]
    b = [[None] * rows for _ in range(cols)]
    s16 = tr // 4 + 8
    size = tc * s16
    base = lambda c: c * s16 + ((c >> 2) & 7)  # noqa: E731
    q_n = tr * tc // 16 // 256
    ok = q_n >= 1 and base(tc - 1) + tr // 4 <= size
    for c in range(tc - 1):
        ok &= base(c) + tr // 4 <= base(c + 1)   # rows do not overlap
    for by in range(rows // tr):
        for bx in range(cols // tc):
            r0, c0 = by * tr, bx * tc
            smem = [None] * size
            for q in range(q_n):
                for j in range(4):
                    groups = {}
                    for t in range(256):
                        idx = t + 256 * q
                        cb, rb = idx % (tc // 4), idx // (tc // 4)
                        slot = base(4 * cb + j) + rb
                        ok &= smem[slot] is None
                        smem[slot] = [a[r0 + 4 * rb + i][c0 + 4 * cb + j] for i in range(4)]
                        groups.setdefault(t // 8, set()).add(slot % 8)
                    ok &= all(len(g) == 8 for g in groups.values())
            for q in range(q_n * 4):
                groups = {}
                for t in range(256):
                    idx = t + 256 * q
                    rb, c = idx % (tr // 4), idx // (tr // 4)
                    slot = base(c) + rb
                    groups.setdefault(t // 8, set()).add(slot % 8)
                    for e in range(4):
                        b[c0 + c][r0 + 4 * rb + e] = smem[slot][e]
                ok &= all(len(g) == 8 for g in groups.values())
            for c in range(tc):   # the bulk copies read out row c whole: TR floats from base(c)
                flat = [x for rb in range(tr // 4) for x in smem[base(c) + rb]]
                ok &= flat == [a[r0 + r][c0 + c] for r in range(tr)]
    return ok and all(b[j][i] == a[i][j] for i in range(rows) for j in range(cols))


def self_test_multi(tr, tc):
    """transpose_multi<TR, TC>'s index arithmetic on a rectangular matrix (rows != cols): every
    element lands at its transposed place, no shared word is written twice or read unwritten."""
    rows, cols = 2 * tr, 3 * tc
    a = [[r * cols + c for c in range(cols)] for r in range(rows)]
    b = [[None] * rows for _ in range(cols)]
    ok = True

    def swz(r, c):
        return r * 64 + (c ^ ((r >> 1) & 31))
    for by in range(rows // tr):
        for bx in range(cols // tc):
            r0, c0 = by * tr, bx * tc
            tiles = [None] * (tr * tc)
            for ty in range(16):
                for tx in range(32):
                    for i in range(tr // 64):
                        for j in range(tc // 64):
                            base = (i * (tc // 64) + j) * 4096
                            for k in range(4):
                                r = ty + 16 * k
                                for e in range(2):
                                    idx = base + swz(r, 2 * tx + e)
                                    ok &= tiles[idx] is None
                                    tiles[idx] = a[r0 + 64 * i + r][c0 + 64 * j + 2 * tx + e]
            for ty in range(16):
                for tx in range(32):
                    for j in range(tc // 64):
                        for k in range(4):
                            for i in range(tr // 64):
                                base = (i * (tc // 64) + j) * 4096
                                c = ty + 16 * k
                                for e in range(2):
                                    val = tiles[base + swz(2 * tx + e, c)]
                                    ok &= val is not None
                                    b[c0 + 64 * j + c][r0 + 64 * i + 2 * tx + e] = val
    return ok and all(b[j][i] == a[i][j] for i in range(rows) for j in range(cols))


def self_test_sum(n, grid, nt=256, u=4):
    """rsum's (and reduce_lastblock's) grid-stride loops: every element is added exactly once."""
    seen = [0] * (n + 4 * u * grid * nt)   # room to notice a read past the end
    n4, nthreads = n >> 2, grid * nt
    for gtid in range(nthreads):
        i = gtid
        while i + (u - 1) * nthreads < n4:
            for q in range(u):
                for e in range(4):
                    seen[4 * (i + q * nthreads) + e] += 1
            i += u * nthreads
        while i < n4:
            for e in range(4):
                seen[4 * i + e] += 1
            i += nthreads
        j = 4 * n4 + gtid
        while j < n:
            seen[j] += 1
            j += nthreads
    return all(x == 1 for x in seen[:n]) and not any(seen[n:])


# ---------------------------------------------------------------- the GPU run
def main():
    global TRANSPOSE_N, SUM_N
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="transpose,sum,sgemm")
    ap.add_argument("--samples", type=int, default=20)
    ap.add_argument("--transpose-n", type=int, default=TRANSPOSE_N, help="matrix side (a multiple of 64)")
    ap.add_argument("--sum-n", type=int, default=SUM_N, help="floats to sum")
    ap.add_argument("--filter", default=None, metavar="REGEX",
                    help="time only the candidates whose label matches (baselines always run)")
    ap.add_argument("--dry-run", action="store_true", help="print the plan and exit")
    ap.add_argument("--self-test", action="store_true", help="replay the index arithmetic on the CPU")
    ap.add_argument("--nvrtc-check", metavar="LIBNVRTC", help="compile for sm_90 only, no GPU")
    args = ap.parse_args()
    TRANSPOSE_N, SUM_N = args.transpose_n, args.sum_n
    if TRANSPOSE_N % 64:
        ap.error("--transpose-n must be a multiple of 64")
    if args.dry_run:
        for sec, label, what in plan():
            print(f"{sec:10} {label:34} {what}")
        return 0
    if args.self_test:
        return 1 if self_test() else 0
    if args.nvrtc_check:
        return 1 if nvrtc_check(args.nvrtc_check) else 0
    bench = Bench(args.samples, args.filter)
    only = set(args.only.split(","))
    t0 = time.time()
    if "transpose" in only:
        bench.transpose()
    if "sum" in only:
        bench.sum()
    if "sgemm" in only:
        bench.sgemm()
    print(f"\n{bench.failed} failed; {time.time() - t0:.0f} s")
    return 1 if bench.failed else 0


class Bench:
    def __init__(self, samples, pattern=None):
        import cupy as cp
        self.cp = cp
        self.samples = samples
        self.pattern = re.compile(pattern) if pattern else None
        self.failed = 0
        props = cp.cuda.runtime.getDeviceProperties(0)
        self.sms = props["multiProcessorCount"]
        l2 = props["l2CacheSize"]
        clock = cp.cuda.runtime.deviceGetAttribute(cp.cuda.runtime.cudaDevAttrMemoryClockRate, 0)
        bus = cp.cuda.runtime.deviceGetAttribute(cp.cuda.runtime.cudaDevAttrGlobalMemoryBusWidth, 0)
        self.peak = 2 * clock * 1e3 * bus / 8 / 1e9
        self.flush_buf = cp.empty(2 * l2, dtype=cp.uint8)
        try:
            import torch
            self.torch = torch
            torch.backends.cuda.matmul.allow_tf32 = False
            torch.backends.cudnn.allow_tf32 = False
        except Exception as e:  # noqa: BLE001 - PyTorch is optional, say so
            print(f"(PyTorch unavailable: {e}; torch baselines skipped)")
            self.torch = None
        print(f"{props['name'].decode()}: {self.sms} SMs, L2 {l2 / 2**20:.0f} MiB, theoretical "
              f"{self.peak:.0f} GB/s; CuPy {cp.__version__}, CUPY_TF32={os.environ['CUPY_TF32']}, "
              f"median of {samples}, L2 flushed before each sample")

    def module(self, fname, names, opts=()):
        src = open(fname).read()
        return self.cp.RawModule(code=src, options=OPTS + tuple(opts), name_expressions=names or None)

    def want(self, label):
        return self.pattern is None or bool(self.pattern.search(label))

    def time_ms(self, run):
        cp = self.cp
        start, end = cp.cuda.Event(), cp.cuda.Event()
        for _ in range(3):
            run()
        times = []
        for _ in range(self.samples):
            self.flush_buf.fill(1)
            start.record()
            run()
            end.record()
            end.synchronize()
            times.append(cp.cuda.get_elapsed_time(start, end))
        return statistics.median(times)

    def row(self, label, ms, value, unit, base, ok, note=""):
        ratio = f"{100 * value / base:6.1f}%" if base else "      "
        flag = "ok" if ok else "FAIL"
        print(f"  {label:36} {ms:9.4f} ms {value:8.1f} {unit:7} {ratio}  {flag} {note}")

    def case(self, label, setup_check, run, value_of, unit, base):
        """Run once, verify, time; print a row; return the value (None on failure)."""
        try:
            run()
            self.cp.cuda.Device().synchronize()
            ok, note = setup_check()
            ms = self.time_ms(run)
            value = value_of(ms)
            self.row(label, ms, value, unit, base, ok, note)
            if not ok:
                self.failed += 1
                return None
            return value
        except Exception as e:  # noqa: BLE001 - report and go on to the next candidate
            self.failed += 1
            print(f"  {label:36} ERROR {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
            return None

    # ------------------------------------------------------------ transpose
    def transpose(self):
        cp = self.cp
        n = TRANSPOSE_N
        a = cp.random.random((n, n), dtype=cp.float32)
        b = cp.empty_like(a)
        moved = 2 * a.nbytes
        gbps = lambda ms: moved / ms / 1e6  # noqa: E731
        print(f"\n== transpose {n} x {n} f32 (GB/s; % = of copy_vec4_flat in this run, target >= 95 %)")
        flat = self.module(os.path.join(ROOT, "kernels/coalescing/flat_copy.cu"), None).get_function("copy_vec4_flat")
        n4 = n * n // 4

        def check_copy():
            ok = bool(cp.array_equal(b, a))
            return ok, ""

        def check_t():
            ok = bool(cp.array_equal(b, a.T))
            return ok, ""

        b.fill(-1)
        base = self.case("copy_vec4_flat (baseline)", check_copy,
                         lambda: flat(((n4 + 255) // 256,), (256,), (a, b, cp.int64(n4))),
                         gbps, "GB/s", None)
        print(f"  {'':36} copy = {100 * (base or 0) / self.peak:.1f} % of theoretical {self.peak:.0f} GB/s")
        cur = self.module(os.path.join(ROOT, "kernels/transpose_conrad/transpose.cu"), None)
        t32, t64 = cur.get_function("transpose_tile32"), cur.get_function("transpose_tile64_vec4")
        best = None
        for label, fn, grid, block in [("current tile32", t32, (n // 32, n // 32), (32, 8)),
                                       ("current tile64_vec4", t64, (n // 64, n // 64), (16, 16))]:
            b.fill(-1)
            self.case(label, check_t, lambda f=fn, g=grid, k=block: f(g, k, (a, b, cp.int32(n), cp.int32(n))),
                      gbps, "GB/s", base)
        tt = [c for c in TRANSPOSE if self.want(t_label(c))]
        tm = [c for c in TRANSPOSE_MULTI if self.want(m_label(c))]
        tp = [c for c in TRANSPOSE_PIPE if self.want(p_label(c))]
        th = [c for c in TRANSPOSE_H if self.want(h_label(c))]
        to = [mb for mb in TRANSPOSE_OCC if self.want(f"T64 v2 cs {mb}/SM")]
        tr4 = [c for c in TRANSPOSE_R4 if self.want(r_label(c))]
        names = ([t_name(c) for c in tt] + [m_name(c) for c in tm] + sorted({p_name(c) for c in tp})
                 + sorted({h_name(c) for c in th} | ({h_name((0, 1))} if to else set())) + [r_name(c) for c in tr4])
        mod = self.module(os.path.join(CAND, "transpose.cu"), names)
        args = (a, b, cp.int32(n), cp.int32(n))
        # (label, kernel name, grid, block) of every template candidate
        plain = [(p_label(c), p_name(c), (self.sms * c[3] if c[0] else (n // 64) ** 2,), (32, 16))
                 for c in tp]
        plain += [(t_label(c), t_name(c), (n // c[0], n // c[0]), (c[0] // c[2], c[1])) for c in tt]
        for label, name, grid, block in plain:
            b.fill(-1)
            try:
                fn = mod.get_function(name)
            except Exception as e:  # noqa: BLE001
                self.failed += 1
                print(f"  {label:36} COMPILE ERROR {e}")
                continue
            val = self.case(label, check_t, lambda f=fn, g=grid, k=block: f(g, k, args), gbps, "GB/s", base)
            if val and (best is None or val > best[0]):
                best = (val, label)
        # session 8: (label, kernel name, grid, block, dynamic shared memory)
        extra = [(h_label(c), h_name(c), (n // 64, n // 64), (32, 16), 0) for c in th]
        per_sm = 228 * 1024   # an SM's shared memory for blocks; each block also takes 1 KiB
        extra += [(f"T64 v2 cs {mb}/SM", h_name((0, 1)), (n // 64, n // 64), (32, 16),
                   per_sm // mb - 1024 - 16384 - 256) for mb in to]
        extra += [(r_label(c), r_name(c), (n // c[1], n // c[0]), (256,), r_smem(c)) for c in tr4]
        for label, name, grid, block, smem in extra:
            b.fill(-1)
            try:
                fn = mod.get_function(name)
                if smem > 48 * 1024:
                    fn.max_dynamic_shared_size_bytes = smem
            except Exception as e:  # noqa: BLE001
                self.failed += 1
                print(f"  {label:36} COMPILE ERROR {e}")
                continue
            val = self.case(label, check_t, lambda f=fn, g=grid, k=block, sm=smem: f(g, k, args, shared_mem=sm),
                            gbps, "GB/s", base)
            if val and (best is None or val > best[0]):
                best = (val, label)
        multi = [(m_label(c), lambda c=c: mod.get_function(m_name(c)), c[0], c[1]) for c in tm]
        book = os.path.join(ROOT, "kernels/transpose_conrad/transpose_fast.cu")
        multi += [(f"book {v}", lambda k=k, d=d: self.module(book, None, d).get_function(k), tr, tc)
                  for v, k, d, tr, tc in TRANSPOSE_BOOK if self.want(f"book {v}")]
        for label, get, tr, tc in multi:   # 32 x 16 threads, dynamic shared memory (static in tile64_v2)
            b.fill(-1)
            try:
                fn = get()
                smem = 4 * tr * tc if fn.attributes["shared_size_bytes"] == 0 else 0
                if smem > 48 * 1024:
                    fn.max_dynamic_shared_size_bytes = smem
            except Exception as e:  # noqa: BLE001
                self.failed += 1
                print(f"  {label:36} COMPILE ERROR {e}")
                continue
            val = self.case(label, check_t,
                            lambda f=fn, tr=tr, tc=tc, sm=smem: f((n // tc, n // tr), (32, 16), (a, b, cp.int32(n), cp.int32(n)),
                                                                   shared_mem=sm),
                            gbps, "GB/s", base)
            if val and (best is None or val > best[0]):
                best = (val, label)
        if best and base:
            print(f"  best candidate: {best[1]} {best[0]:.0f} GB/s = {100 * best[0] / base:.1f} % of copy")
        del a, b
        cp.get_default_memory_pool().free_all_blocks()

    # ------------------------------------------------------------ sum
    def sum(self):
        base = self.sum_of("float", None)
        self.sum_of("int", base)

    def sum_of(self, etype, base):
        """Float: library baselines then candidates; int (what the reduction experiment sums):
        candidates only, against the float library figure (the same bytes), checked exactly."""
        cp = self.cp
        n = SUM_N
        if etype == "float":
            x = cp.random.random(n, dtype=cp.float32)
            ref = float(cp.sum(x, dtype=cp.float64))
            dt = cp.float32
        else:
            x = cp.random.randint(0, 4, n, dtype=cp.int32)   # the experiment's init: sums < 2^31 to 2^28
            ref = int(cp.sum(x, dtype=cp.int64))
            dt = cp.int32
        out = cp.zeros(1, dtype=dt)
        max_grid = max([self.grid_of(c) for c in SUM] + [self.sms * SUM_BOOK_GRID_PER_SM])
        partial = cp.zeros(max_grid, dtype=dt)
        ticket = cp.zeros(1, dtype=cp.uint32)
        gbps = lambda ms: x.nbytes / ms / 1e6  # noqa: E731
        print(f"\n== sum of {n} {etype} (GB/s; % = of the faster library float sum, target >= 100 %)")
        got = {}

        def check(get):
            def f():
                if etype == "int":
                    v = int(get())
                    return v == ref, "" if v == ref else f"got {v}, want {ref}"
                v = float(get())
                rel = abs(v - ref) / abs(ref)
                return rel <= 1e-4, f"rel err {rel:.1e}"
            return f

        if etype == "float":
            base = 0.0
            if self.torch is not None:
                tx = self.torch.from_dlpack(x)   # zero-copy

                def run_t():
                    got["t"] = self.torch.sum(tx)
                self.torch.cuda.synchronize()
                v = self.case("torch.sum (baseline)", check(lambda: got["t"].item()), run_t, gbps, "GB/s", None)
                base = max(base, v or 0)

            def run_c():
                got["c"] = cp.sum(x)
            v = self.case("cupy.sum (baseline)", check(lambda: got["c"]), run_c, gbps, "GB/s", None)
            base = max(base, v or 0)
            print(f"  {'':36} library sum = {100 * base / self.peak:.1f} % of theoretical {self.peak:.0f} GB/s")
        names = sorted({nm for c in SUM for nm in s_names(c, etype)})
        mod = self.module(os.path.join(CAND, "reduce.cu"), names)
        best = None
        for c in SUM:
            nt, u, ld, mode, _ = c
            grid = self.grid_of(c)
            try:
                fns = [mod.get_function(nm) for nm in s_names(c, etype)]
            except Exception as e:  # noqa: BLE001
                self.failed += 1
                print(f"  {s_label(c):36} COMPILE ERROR {e}")
                continue

            def run(fns=fns, nt=nt, mode=mode, grid=grid):
                if mode == 1:
                    out.fill(0)
                fns[0]((grid,), (nt,), (x, partial, out, ticket, cp.int64(n)))
                if mode == 0:
                    fns[1]((1,), (nt,), (partial, out, cp.int32(grid)))
            out.fill(-1)
            val = self.case(s_label(c), check(lambda: out[0]), run, gbps, "GB/s", base)
            if val and (best is None or val > best[0]):
                best = (val, s_label(c))
        if etype == "int":   # the book's reduce_lastblock, launched as the reduction experiment does
            try:
                fn = self.module(os.path.join(ROOT, "kernels/reduction/reduce_lastblk.cu"), None).get_function("reduce_lastblock")
                grid = min(self.sms * SUM_BOOK_GRID_PER_SM, -(-n // 1024))
                ticket.fill(0)
                out.fill(-1)
                val = self.case("book best_lastblock", check(lambda: out[0]),
                                lambda: fn((grid,), (256,), (x, partial, out, ticket, cp.int64(n))), gbps, "GB/s", base)
                if val and (best is None or val > best[0]):
                    best = (val, "book best_lastblock")
            except Exception as e:  # noqa: BLE001
                self.failed += 1
                print(f"  {'book best_lastblock':36} COMPILE ERROR {e}")
        if best and base:
            print(f"  best {etype} candidate: {best[1]} {best[0]:.0f} GB/s = {100 * best[0] / base:.1f} % of the library")
        del x, partial
        cp.get_default_memory_pool().free_all_blocks()
        return base

    def grid_of(self, c):
        nt, u, _, _, grid = c
        if grid == "flat":
            return -(-SUM_N // (4 * nt * u))
        return self.sms * int(grid.split("*")[1])

    # ------------------------------------------------------------ sgemm
    def sgemm(self):
        cp = self.cp
        sgemm = [c for c in SGEMM if self.want(g_label(c))]
        names = [g_name(c) for c in sgemm]
        mod = self.module(os.path.join(CAND, "sgemm.cu"), names)
        cur = self.module(os.path.join(ROOT, "kernels/sgemm/sgemm.cu"), None, ("-DBK=16",)).get_function("sgemm_warptile")
        for n in SGEMM_NS:
            a = cp.random.uniform(-1, 1, (n, n), dtype=cp.float32)
            b = cp.random.uniform(-1, 1, (n, n), dtype=cp.float32)
            c = cp.empty((n, n), dtype=cp.float32)
            ref = cp.matmul(a, b)
            scale = float(cp.abs(ref).max())
            tflops = lambda ms, n=n: 2 * n**3 / ms / 1e9  # noqa: E731
            print(f"\n== SGEMM N = {n} (TFLOP/s; % = of the faster FP32 library, target >= 90 %)")

            def check():
                err = float(cp.abs(c - ref).max()) / scale
                return err <= 1e-4, f"max err {err:.1e}"

            base = 0.0
            c.fill(0)
            v = self.case("cupy.matmul FP32 (baseline)", check, lambda: cp.matmul(a, b, out=c), tflops, "TFLOP/s", None)
            base = max(base, v or 0)
            if self.torch is not None:
                ta, tb, tc = (self.torch.from_dlpack(m) for m in (a, b, c))   # zero-copy
                c.fill(0)
                v = self.case("torch.mm FP32 (baseline)", check, lambda: self.torch.mm(ta, tb, out=tc), tflops, "TFLOP/s", None)
                base = max(base, v or 0)
            c.fill(0)
            self.case("current sgemm_warptile BK16", check,
                      lambda: cur((n // 128, n // 128), (256,), (a, b, c, cp.int32(n))), tflops, "TFLOP/s", base)
            best = None
            book = os.path.join(ROOT, "kernels/sgemm/sgemm_tuned.cu")
            for v, d, bm, bn, threads in SGEMM_BOOK:
                if not self.want(f"book {v}"):
                    continue
                try:
                    fn = self.module(book, None, d).get_function("sgemm_warptile_bk8")
                except Exception as e:  # noqa: BLE001
                    self.failed += 1
                    print(f"  {'book ' + v:36} COMPILE ERROR {e}")
                    continue
                c.fill(0)
                val = self.case(f"book {v}", check,
                                lambda f=fn, g=(n // bm) * (n // bn), t=threads: f((g,), (t,), (a, b, c, cp.int32(n))),
                                tflops, "TFLOP/s", base)
                if val and (best is None or val > best[0]):
                    best = (val, f"book {v}")
            for cfg in sgemm:
                bm, bn, _, wm, wn = cfg[:5]
                threads = (bm // wm) * (bn // wn) * 32
                try:
                    fn = mod.get_function(g_name(cfg))
                except Exception as e:  # noqa: BLE001
                    self.failed += 1
                    print(f"  {g_label(cfg):36} COMPILE ERROR {e}")
                    continue
                c.fill(0)
                val = self.case(g_label(cfg), check,
                                lambda f=fn, g=(n // bm) * (n // bn), t=threads: f((g,), (t,), (a, b, c, cp.int32(n))),
                                tflops, "TFLOP/s", base)
                if val and (best is None or val > best[0]):
                    best = (val, g_label(cfg))
            if best and base:
                print(f"  best candidate: {best[1]} {best[0]:.1f} TFLOP/s = {100 * best[0] / base:.1f} % of the library")
            del a, b, c, ref
            cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    sys.exit(main())
