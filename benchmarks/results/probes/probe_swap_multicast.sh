#!/bin/bash
# Probe (forty-second session, issue 13): the swapped-operand tiles in 2-CTA clusters multicasting the problem's A
# ("_c2_ab", families/wgmma.py SWAP_AB_MULTICAST_STUDY_TILES) against their one-CTA kernels, the built 64- and 128-row
# tiles and cuBLAS at mid-M sizes of the gen-* sets. Dev harness (cpp/kernels/wgmma/dev), fp16 nt, GROUP_SIZE_M 12,
# unsplit, cold rotating inputs, CUDA events per launch (launch overhead included: compare kernels with each other,
# cuBLAS only roughly), median; every study kernel checked against cuBLAS first.
#   bash benchmarks/results/probes/probe_swap_multicast.sh
SIZES="156,4160,7424;150,4096,4096;96,4096,14336;160,2048,5120;288,4096,4096;192,14336,3584;262,25408,4736;320,14336,5120;517,8704,11712;426,13760,10304;528,13952,5504;256,5120,5120;397,12288,1600;214,2688,26112;1018,1088,5504"
bash benchmarks/results/probes/dev_harness_probe.sh probe_swap_multicast \
  '^origami_wgmma_(80x64|96x128|112x128|112x256|160x128)x64_s[0-9]+_w(8|12)_fp16_kk(_c2)?_ab$|^origami_wgmma_64x(64x64_s8|128x64_s8|160x64_s7|256x64_s4)_w8_fp16_kk$|^origami_wgmma_128x(64|128|256)x64_s[0-9]+_w12_fp16_kk$' \
  '_c2_ab$' "$SIZES" 'fp16_kk(_c2)?(_ab)?$' 12
