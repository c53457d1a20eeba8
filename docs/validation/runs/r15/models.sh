#!/bin/bash
# explain's compute capability from the GPU a log names, against nvidia-smi and torch on this machine
B=.hw/cuda-doctor; O=$OUT
nvidia-smi > $O/smi.txt; nvidia-smi -L > $O/smi-L.txt
nvidia-smi --query-gpu=name,compute_cap --format=csv,noheader > $O/smi-cc.txt
python3 -c 'import torch; print("GPU 0:", torch.cuda.get_device_name(0)); print("cap", "%d.%d" % torch.cuda.get_device_capability(0))' > $O/torch.txt 2>&1
L='RuntimeError: CUDA error: no kernel image is available for execution on the device'
for f in smi smi-L torch; do
  { grep -v '^cap' $O/$f.txt; echo "$L"; } > $O/log-$f.txt
  $B --json explain --no-env $O/log-$f.txt > $O/explain-$f.json
  echo "$f: $(jq -r '.diagnoses[0] | .signature + " cc=" + (.facts.cc // "null") + " line=" + ((.fact_lines.cc // 0)|tostring)' $O/explain-$f.json)"
done | tee $O/summary.txt
echo "nvidia-smi: $(cat $O/smi-cc.txt)"; echo "torch: $(tail -1 $O/torch.txt)"
