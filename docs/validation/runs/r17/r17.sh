#!/bin/bash
# Run r17 on the H200: (1) the versions explain reads from this machine's real nvcc, torch,
# torch.__config__ and gcc outputs against the tools' own answers, and its verdict on them
# against nvcc's (a real compile); (2) a host compiler newer than host_config.h allows: the
# real header's bound against explain's (data/host_compiler.tsv); (3) explain's throughput.
B=.hw/cuda-doctor; O=$OUT
export PATH=/usr/local/cuda/bin:$PATH
# (1) real outputs
nvcc --version > $O/nvcc.txt
python3 -c 'import torch; print("CUDA used to build PyTorch:", torch.version.cuda); print(torch.__config__.show())' > $O/torch.txt 2>&1
gcc -v 2> $O/gcc.txt
python3 -c 'import torch; print(torch.version.cuda)' > $O/truth-torch.txt
nvcc --version | sed -n 's/.*release \([0-9.]*\),.*/\1/p' > $O/truth-nvcc.txt
gcc -dumpfullversion > $O/truth-gcc.txt
printf '__global__ void k(){}\nint main(){k<<<1,1>>>();return 0;}\n' > $O/k.cu
nvcc -o $O/k $O/k.cu > $O/nvcc-compile.txt 2>&1; echo "nvcc compile rc=$?" >> $O/nvcc-compile.txt; rm -f $O/k
{ cat $O/nvcc.txt $O/gcc.txt $O/torch.txt; echo 'error: command failed with exit status 1'; } > $O/log-real.txt
$B --json explain --no-env $O/log-real.txt > $O/explain-real.json
echo "truth: nvcc $(cat $O/truth-nvcc.txt) torch $(cat $O/truth-torch.txt) gcc $(cat $O/truth-gcc.txt); $(tail -1 $O/nvcc-compile.txt)" | tee $O/summary.txt
echo "explain: $(jq -c '[.diagnoses[] | {signature, facts}]' $O/explain-real.json)" | tee -a $O/summary.txt
# the facts explain reads, one log per tool, through a diagnosis that wants them
for t in nvcc torch gcc; do { cat $O/$t.txt; echo 'nvcc fatal   : Unsupported gpu architecture '"'"'compute_99'"'"''; } > $O/log-$t.txt
  $B --json explain --no-env $O/log-$t.txt | jq -c --arg t $t '{tool: $t, facts: [.diagnoses[] | .facts]}'; done | tee -a $O/summary.txt
# (2) a gcc newer than the header allows: the real host_config.h's words and bound
G=$(gcc -dumpversion | cut -d. -f1); N=$((G + 10))
mkdir -p $O/cc; printf '#!/bin/sh\nexec g++ -U__GNUC__ -D__GNUC__=%s -Wno-builtin-macro-redefined "$@"\n' $N > $O/cc/g++; chmod +x $O/cc/g++
nvcc -ccbin $O/cc/g++ -o $O/k2 $O/k.cu > $O/nvcc-newgcc.txt 2>&1; echo "rc=$?" >> $O/nvcc-newgcc.txt; rm -rf $O/cc $O/k2
grep -m1 'unsupported GNU version' $O/nvcc-newgcc.txt | tee -a $O/summary.txt
{ echo "gcc version $N.1.0 (GCC)"; cat $O/nvcc.txt; echo 'error: command failed with exit status 1'; } > $O/log-newgcc.txt
$B --json explain --no-env $O/log-newgcc.txt > $O/explain-newgcc.json
$B --json explain --no-env $O/nvcc-newgcc.txt > $O/explain-newgcc-real.json
echo "stated gcc $N: $(jq -c '[.diagnoses[] | .signature, .facts.gcc_max]' $O/explain-newgcc.json); nvcc's own output: $(jq -c '[.diagnoses[] | .signature, .facts]' $O/explain-newgcc-real.json)" | tee -a $O/summary.txt
# (3) throughput, interleaved with the binary of the day's start
RUNS=3 REAL_MIB=64 BASE=.hw/base bash bench/explain.sh $B 1024 > $O/bench-explain.txt 2>&1; tail -15 $O/bench-explain.txt
