#!/bin/bash
# Run r16 on the H200: (1) ldd's $PLATFORM against the running loader's;
# (2) explain's driver-too-old from stated versions, on this machine's real
# nvidia-smi and torch outputs; (3) explain's throughput with today's tables.
B=.hw/cuda-doctor; O=$OUT
# (1) the loader's platform
grep -m1 'vendor_id\|model name' /proc/cpuinfo > $O/cpu.txt; grep -m1 'model name' /proc/cpuinfo >> $O/cpu.txt
rtld=$($B ldd --json /bin/sh | jq -r .loader.interpreter)
$rtld --list-diagnostics 2>/dev/null | grep '^dl_platform=' > $O/loader-platform.txt
$B ldd --json /bin/sh | jq -r .loader.platform > $O/cd-platform.txt
python3 -c 'import ctypes,os; print(os.uname().machine)' >> $O/cpu.txt
echo "loader: $(cat $O/loader-platform.txt)  cuda-doctor: $(cat $O/cd-platform.txt)" | tee $O/summary.txt
# a library under $PLATFORM found by the real loader and by ldd
mkdir -p $O/plat/$(cat $O/cd-platform.txt)
echo 'int f(void){return 1;}' | gcc -shared -fPIC -x c -o $O/plat/$(cat $O/cd-platform.txt)/libp.so -Wl,-soname,libp.so -
echo 'int f(void); int main(void){return f()-1;}' | gcc -x c -o $O/plat/main - -L$O/plat/$(cat $O/cd-platform.txt) -lp -Wl,--disable-new-dtags -Wl,-rpath,'$ORIGIN/${PLATFORM}'
$O/plat/main && echo "the loader ran main with libp.so from \$ORIGIN/\${PLATFORM}: exit 0" | tee -a $O/summary.txt
ldd $O/plat/main | grep libp > $O/glibc-ldd.txt
$B ldd --json $O/plat/main | jq -r '.needs[] | select(.name=="libp.so") | .path' > $O/cd-ldd.txt
echo "glibc ldd: $(cat $O/glibc-ldd.txt) | cuda-doctor ldd: $(cat $O/cd-ldd.txt)" | tee -a $O/summary.txt
rm -rf $O/plat
# (2) stated versions: the real outputs (no contradiction), then the real header with a torch built for a newer major
nvidia-smi > $O/smi.txt
python3 -c 'import torch; print("torch.__version__ =", torch.__version__); print("torch.cuda.is_available():", torch.cuda.is_available())' > $O/torch.txt 2>&1
cat $O/smi.txt $O/torch.txt > $O/log-real.txt
$B --json explain --no-env $O/log-real.txt > $O/explain-real.json
{ cat $O/smi.txt; echo "torch.__version__ = 2.99.0+cu140"; echo "torch.cuda.is_available(): False"; } > $O/log-cu140.txt
$B --json explain --no-env $O/log-cu140.txt > $O/explain-cu140.json
for f in real cu140; do echo "$f: $(jq -c '[.diagnoses[] | .signature, .facts]' $O/explain-$f.json)"; done | tee -a $O/summary.txt
# (3) throughput
RUNS=3 REAL_MIB=64 bash bench/explain.sh $B 1024 > $O/bench-explain.txt 2>&1; tail -15 $O/bench-explain.txt
