# One-off probe (fifty-ninth session): one launch of gemv_rowclass.cu's kernel per shape, for ncu to profile
# (ncu --kernel-name regex:gemv_nn_rc ... python3 THIS [pipe]): where the fixed ~5 us over cuBLAS at 1 x 4096 x 4096
# goes. ncu_gemv_rowclass_h100.txt.gz is the first form's (no argument); `pipe` profiles the pipelined form.
import os
import sys

import torch
from torch.utils.cpp_extension import load

HERE = os.path.dirname(os.path.abspath(__file__))
ext = load(name="gemv_rowclass_ext", sources=[os.path.join(HERE, "gemv_rowclass.cu")],
           extra_cuda_cflags=["-O3", "-gencode=arch=compute_90a,code=sm_90a"], verbose=False)
PIPE = len(sys.argv) > 1 and sys.argv[1] == "pipe"
for M, N, K, nb, u, s in [(1, 4096, 4096, 1, 2, 16), (1, 14336, 4096, 1, 2, 8)]:
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    ws = torch.empty(64 * M * N, device="cuda", dtype=torch.float32)
    counters = torch.zeros(N // 248 + 1, device="cuda", dtype=torch.int32)
    ext.gemv(a, b, nb, u, s, ws, counters, PIPE)
torch.cuda.synchronize()
print("done", file=sys.stderr)
