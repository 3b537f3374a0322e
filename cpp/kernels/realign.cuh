// Realigning a 16-byte piece of memory that does not start on a 16-byte boundary, in registers. Shared by the op's
// row copy (row_copy.cu) and the mma.sync kernels' in-place path for operands with 2-byte aligned rows
// (mma_sync/gemm_mma_sync.cuh, REALIGN): both read the (at most two) aligned 16-byte blocks that hold the piece with
// 16-byte vector loads and rebuild the piece from them.
//
// Why aligned blocks: a 16-byte vector access must be 16-byte aligned, and reading a whole aligned block that
// contains a byte of an allocation never leaves that allocation's pages (16-byte blocks do not cross pages), so the
// reads need no guard beyond "the block holds a byte we want".
#pragma once
#include <cuda_runtime.h>

namespace origami {

// Bytes [off, off + 16) of the 32 bytes lo|hi, off even (a 2- or 4-byte element boundary): the window of five
// words starting at word off / 4 (shifted by conditional moves, so it stays in registers), then each output word
// from two neighbours: selector 0x5432 takes the upper half of the first and the lower half of the second (a
// 2-byte shift), 0x3210 the first whole. off = 0 gives lo (hi unused).
__device__ __forceinline__ uint4 realign(const uint4 lo, const uint4 hi, int off) {
  unsigned a0 = lo.x, a1 = lo.y, a2 = lo.z, a3 = lo.w, a4 = hi.x, a5 = hi.y, a6 = hi.z, a7 = hi.w;
  if (off & 8) { a0 = a2; a1 = a3; a2 = a4; a3 = a5; a4 = a6; a5 = a7; }
  if (off & 4) { a0 = a1; a1 = a2; a2 = a3; a3 = a4; a4 = a5; }
  const unsigned sel = (off & 2) ? 0x5432u : 0x3210u;
  return make_uint4(__byte_perm(a0, a1, sel), __byte_perm(a1, a2, sel), __byte_perm(a2, a3, sel),
                    __byte_perm(a3, a4, sel));
}

}  // namespace origami
