#!/bin/bash
# Final verification call: every specialisation (+ cluster variants) checked against cuBLAS, the seed's
# 23 sizes timed against cuBLAS, layouts, group sizes, racecheck, then the package + op tests.
set -o pipefail
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
bash cpp/kernels/wgmma/dev/device_run.sh . 2>&1 | tail -4
B=/tmp/bench_wgmma
timeout 150 $B check '_(kk|kn|mk|mn)$' > $OUT/check_c1.txt 2>&1; echo "check c1 rc=$? $(grep -c PASS $OUT/check_c1.txt) pass $(grep -c FAIL $OUT/check_c1.txt) fail"
timeout 100 $B check '_c2$' > $OUT/check_c2.txt 2>&1; echo "check c2 rc=$? $(grep -c PASS $OUT/check_c2.txt) pass $(grep -c FAIL $OUT/check_c2.txt) fail"
grep FAIL $OUT/check_c*.txt | head -5
S='64,64,64;128,128,128;256,256,256;512,512,512;1024,1024,1024;2048,2048,2048;128,4096,4096;128,4096,14336;128,14336,4096;64,16384,4096;128,8192,4096;8192,128,4096;16384,64,4096;128,8192,8192;128,8192,28672;128,28672,8192;4096,4096,4096;4096,4096,14336;4096,14336,4096;8192,8192,8192;8192,14336,4096;8192,28672,8192;8192,53248,16384'
timeout 170 $B bench "$S" '_kk(_c2)?$' 8 > $OUT/bench23.txt 2>&1; echo "bench23 rc=$?"
timeout 40 $B bench '4096,4096,4096;8192,8192,8192' '128x256x64_s4_w12_.*_(kn|mk|mn)(_c2)?$' 8 > $OUT/bench_layouts.txt 2>&1; echo "layouts rc=$?"
timeout 30 $B bench '8192,8192,8192' '128x256x64_s4_w12_(fp16|bf16)_kk(_c2)?$' 1,4,16 > $OUT/bench_groups.txt 2>&1; echo "groups rc=$?"
timeout 60 compute-sanitizer --tool=racecheck --error-exitcode=9 $B check '128x256x64_s4_w12_bf16_kk(_c2)?$' small > $OUT/racecheck.txt 2>&1; echo "racecheck rc=$?"; tail -3 $OUT/racecheck.txt
timeout 60 compute-sanitizer --tool=memcheck --error-exitcode=9 $B check '128x(256|192)x64_s._w12_fp16_mn_c2$' small > $OUT/memcheck_c2.txt 2>&1; echo "memcheck c2 rc=$?"; tail -2 $OUT/memcheck_c2.txt
