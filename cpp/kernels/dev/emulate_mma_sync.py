#!/usr/bin/env python3
"""Host emulation of the mma.sync kernel's index math (no GPU): one CTA's cp.async copies into the
swizzled shared-memory tiles, the per-lane ldmatrix(.trans) addresses, the m16n8k16 fragment layouts
(PTX ISA, "Matrix Fragments for mma.m16n8k16"), the epilogue staging and the guarded stores, written
with the same formulas as mma_sync/gemm_mma_sync.cuh. It checks that every layout variant and tile shape
computes C = A B exactly (integer-valued inputs) including ragged M/N/K edges, that the swizzle makes
each 8-address ldmatrix phase hit 8 distinct 16-byte bank groups, and that the main loop's running copy
pointers address the right global chunk for every compiled tile, layout, thread and k-tile.

    python3 cpp/kernels/dev/emulate_mma_sync.py
"""
import itertools
import sys

import numpy as np


def swz_offset(row, chunk, cols):
    R = cols // 8
    f = (row & 7) if R >= 8 else ((row // (8 // R)) & (R - 1))
    return row * cols + ((chunk ^ f) << 3)


def ldmatrix_x4(smem, addrs, trans):
    """addrs: 32 element offsets (lane l addresses row l%8 of matrix l//8). Returns regs[lane][j] = 2 values."""
    mats = [np.stack([smem[addrs[8 * j + r]: addrs[8 * j + r] + 8] for r in range(8)]) for j in range(4)]
    regs = np.zeros((32, 4, 2))
    for lane in range(32):
        g, c = lane // 4, lane % 4
        for j in range(4):
            m = mats[j].T if trans else mats[j]
            regs[lane, j] = m[g, 2 * c: 2 * c + 2]
    return regs


def run_cta(A, B, M, N, K, BM, BN, BK, WM, WN, a_k, b_k, m0, n0):
    threads = 32 * WM * WN
    wtm, wtn = BM // WM, BN // WN
    MI, NI = wtm // 16, wtn // 8
    a_rows, a_cols = (BM, BK) if a_k else (BK, BM)
    b_rows, b_cols = (BN, BK) if b_k else (BK, BN)
    acc = np.zeros((WM * WN, 32, MI, NI, 4))
    banks_ok = True
    for k0 in range(0, K, BK):
        sa = np.full(a_rows * a_cols, np.nan)
        sb = np.full(b_rows * b_cols, np.nan)
        for smem, rows, cols, src, kcontig, is_a in ((sa, a_rows, a_cols, A, a_k, True), (sb, b_rows, b_cols, B, b_k, False)):
            R = cols // 8
            for idx in range(rows * R):
                row, chunk = idx // R, idx % R
                # (grow, gcol) in the global matrix as stored: A K-contig rows=m cols=k; M-contig rows=k cols=m
                if is_a:
                    grow, glim_r, gcol, glim_c = ((m0 + row, M, k0 + chunk * 8, K) if kcontig else (k0 + row, K, m0 + chunk * 8, M))
                else:
                    grow, glim_r, gcol, glim_c = ((n0 + row, N, k0 + chunk * 8, K) if kcontig else (k0 + row, K, n0 + chunk * 8, N))
                vals = np.zeros(8)
                if grow < glim_r and gcol < glim_c:
                    valid = min(8, glim_c - gcol)
                    vals[:valid] = src[grow, gcol: gcol + valid]
                off = swz_offset(row, chunk, cols)
                smem[off: off + 8] = vals
        for warp in range(WM * WN):
            wm0, wn0 = (warp // WN) * wtm, (warp % WN) * wtn
            for kk in range(BK // 16):
                af = np.zeros((MI, 32, 4, 2))
                bf = np.zeros((NI, 32, 2, 2))
                for mi in range(MI):
                    addrs = []
                    for lane in range(32):
                        lrow, lmat = lane & 7, lane >> 3
                        if a_k:
                            addrs.append(swz_offset(wm0 + mi * 16 + lrow + (lmat & 1) * 8, kk * 2 + (lmat >> 1), a_cols))
                        else:
                            addrs.append(swz_offset(kk * 16 + lrow + (lmat >> 1) * 8, (wm0 + mi * 16) // 8 + (lmat & 1), a_cols))
                    if len({(a // 8) % 8 for a in addrs[:8]}) != 8:
                        banks_ok = False
                    af[mi] = ldmatrix_x4(sa, addrs, not a_k)
                for nj in range(NI // 2):
                    addrs = []
                    for lane in range(32):
                        lrow, lmat = lane & 7, lane >> 3
                        if b_k:
                            addrs.append(swz_offset(wn0 + nj * 16 + lrow + (lmat >> 1) * 8, kk * 2 + (lmat & 1), b_cols))
                        else:
                            addrs.append(swz_offset(kk * 16 + lrow + (lmat & 1) * 8, (wn0 + nj * 16) // 8 + (lmat >> 1), b_cols))
                    if len({(a // 8) % 8 for a in addrs[:8]}) != 8:
                        banks_ok = False
                    r = ldmatrix_x4(sb, addrs, not b_k)
                    bf[2 * nj] = r[:, 0:2]
                    bf[2 * nj + 1] = r[:, 2:4]
                # mma.m16n8k16: rebuild the 16x16 A, 16x8 B from the fragments, multiply, scatter to C frags
                for mi in range(MI):
                    Af = np.zeros((16, 16))
                    for lane in range(32):
                        g, c = lane // 4, lane % 4
                        Af[g, 2 * c:2 * c + 2] = af[mi, lane, 0]
                        Af[g + 8, 2 * c:2 * c + 2] = af[mi, lane, 1]
                        Af[g, 2 * c + 8:2 * c + 10] = af[mi, lane, 2]
                        Af[g + 8, 2 * c + 8:2 * c + 10] = af[mi, lane, 3]
                    for ni in range(NI):
                        Bf = np.zeros((16, 8))
                        for lane in range(32):
                            g, c = lane // 4, lane % 4
                            Bf[2 * c:2 * c + 2, g] = bf[ni, lane, 0]
                            Bf[2 * c + 8:2 * c + 10, g] = bf[ni, lane, 1]
                        Cf = Af @ Bf
                        for lane in range(32):
                            g, c = lane // 4, lane % 4
                            acc[warp, lane, mi, ni] += [Cf[g, 2 * c], Cf[g, 2 * c + 1], Cf[g + 8, 2 * c], Cf[g + 8, 2 * c + 1]]
    # epilogue: stage [BM][BN+8], then guarded copy-out
    pitch = BN + 8
    st = np.full(BM * pitch, np.nan)
    for warp in range(WM * WN):
        wm0, wn0 = (warp // WN) * wtm, (warp % WN) * wtn
        for lane in range(32):
            r, c = lane >> 2, (lane & 3) * 2
            for mi in range(MI):
                for ni in range(NI):
                    row, col = wm0 + mi * 16 + r, wn0 + ni * 8 + c
                    st[row * pitch + col: row * pitch + col + 2] = acc[warp, lane, mi, ni, 0:2]
                    st[(row + 8) * pitch + col: (row + 8) * pitch + col + 2] = acc[warp, lane, mi, ni, 2:4]
    C = {}
    for idx in range(BM * BN // 8):
        row, chunk = idx // (BN // 8), idx % (BN // 8)
        gm, gn = m0 + row, n0 + chunk * 8
        if gm >= M or gn >= N:
            continue
        for j in range(min(8, N - gn)):
            C[(gm, gn + j)] = st[row * pitch + chunk * 8 + j]
    return C, banks_ok


def check(BM, BN, BK, WM, WN, a_k, b_k, M, N, K, rng):
    A = rng.integers(-3, 4, size=(M, K)).astype(float)
    Bm = rng.integers(-3, 4, size=(K, N)).astype(float)
    As = A if a_k else A.T.copy()          # storage: K-contig rows m / M-contig rows k
    Bs = Bm.T.copy() if b_k else Bm        # storage: K-contig rows n / N-contig rows k
    ref = A @ Bm
    out = np.full((M, N), np.nan)
    ok_banks = True
    for m0 in range(0, M, BM):
        for n0 in range(0, N, BN):
            C, bk_ok = run_cta(As, Bs, M, N, K, BM, BN, BK, WM, WN, a_k, b_k, m0, n0)
            ok_banks &= bk_ok
            for (i, j), v in C.items():
                out[i, j] = v
    return np.array_equal(out, ref), ok_banks


def copy_plan(rows, cols, threads):
    """The kernel's Copy<Tile> constants (gemm_mma_sync.cuh) for a rows x cols tile of 16-bit elements."""
    C = cols // 8
    total = rows * C
    wide = threads >= C
    rpi = threads // C if wide else 1
    ipr = 1 if wide else C // threads
    iters = -(-total // threads)
    return dict(C=C, rows=rows, wide=wide, rpi=rpi, ipr=ipr, iters=iters, partial=total < threads,
                advanced=iters * rpi if wide else rows)


def check_running_copy_pointers(fam, space_path):
    """Replay the kernel's running copy pointers (copy_full / copy_edge advance, next_k_tile_pointers)
    over several k-tiles for every compiled tile, both operands, every layout and every thread: each
    cp.async must read global element (row, k-tile * BLOCK_K + chunk * 8) of its operand (K-contiguous)
    or (k-tile * BLOCK_K + row, chunk * 8). Returns the number of mismatches."""
    sys.path.insert(0, __file__.rsplit("/dev/", 1)[0])
    from generate import parse_config_space
    specs, _ = fam.specializations(parse_config_space(space_path))
    bad = 0
    for spec in specs:
        k = spec["kernels"][0]
        BM, BN, BK, T = k["block_m"], k["block_n"], k["block_k"], k["threads"]
        for a_k, b_k, _ in fam.LAYOUTS:
            for is_k, MN in ((a_k, BM), (b_k, BN)):
                P = copy_plan(*((MN, BK) if is_k else (BK, MN)), T)
                ld, origin = 4096 + 24, 2 * MN
                for tid in range(T):
                    r0, c0 = (tid // P["C"], tid % P["C"]) if P["wide"] else (0, tid)
                    cur = (origin + r0) * ld + c0 * 8 if is_k else r0 * ld + origin + c0 * 8
                    for kt in range(k["stages"] + 3):
                        for i in range(P["iters"]):
                            dr = i * P["rpi"] if P["wide"] else i // P["ipr"]
                            dc = 0 if P["wide"] else (i % P["ipr"]) * T
                            if not (P["partial"] and r0 >= P["rows"]):
                                want = ((origin + r0 + dr) * ld + kt * BK + (c0 + dc) * 8 if is_k
                                        else (kt * BK + r0 + dr) * ld + origin + (c0 + dc) * 8)
                                bad += cur + dc * 8 != want
                            if P["wide"] or i % P["ipr"] == P["ipr"] - 1:
                                cur += P["rpi"] * ld
                        cur += BK - P["advanced"] * ld if is_k else (BK - P["advanced"]) * ld
    return bad


def main():
    sys.path.insert(0, __file__.rsplit("/dev/", 1)[0])
    from families import mma_sync as fam
    space = __file__.rsplit("/kernels/", 1)[0] + "/model/config_space.def"
    bad_ptr = check_running_copy_pointers(fam, space)
    print(f"running copy pointers, every compiled tile x layout x thread: {bad_ptr} mismatches")
    rng = np.random.default_rng(0)
    cases = [(16, 16, 16), (32, 64, 32), (64, 32, 64), (128, 16, 16), (16, 128, 32), (64, 64, 16), (32, 32, 128)]
    bad = 0
    for (BM, BN, BK) in cases:
        warps, (WM, WN) = fam.choose_warps(BM, BN)
        for a_k, b_k, tag in fam.LAYOUTS + [(False, True, "mk")]:
            for (M, N, K) in [(BM + 3, BN + 5, BK + 8 + 3), (1, 7, 13), (BM, BN, 2 * BK)]:
                ok, banks = check(BM, BN, BK, WM, WN, a_k, b_k, M, N, K, rng)
                status = "ok" if ok and banks else ("WRONG" if not ok else "bank-conflict")
                if status != "ok":
                    bad += 1
                print(f"{BM}x{BN}x{BK} w{WM}x{WN} {tag} {M}x{N}x{K}: {status}")
    bad += bad_ptr
    print("all correct" if bad == 0 else f"{bad} failures")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
