#!/usr/bin/env bash
# one batched validation run on the GPU machine
B=$PWD/.hw/bin/new/cuda-doctor
R=$OUT/r6; mkdir -p $R
chmod +x $B
( $B --version; nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader ) > $R/env.txt 2>&1
timeout 200 env PYENV=/opt/torch/.venv bash scripts/hw/fix-validate.sh $B $R/fix > $R/fix.log 2>&1; echo "fix rc=$?" >> $R/rc.txt
timeout 120 bash scripts/hw/h200-fleet.sh $B $R/fleet > $R/fleet.log 2>&1; echo "fleet rc=$?" >> $R/rc.txt
timeout 120 bash scripts/hw/h200-bundle.sh $B $R/bundle > $R/bundle.log 2>&1; echo "bundle rc=$?" >> $R/rc.txt
rm -f $R/bundle/bundle.tar.gz.keep
timeout 150 bash scripts/hw/h200-python.sh $B $R/python > $R/python.log 2>&1; echo "python rc=$?" >> $R/rc.txt
rm -rf $R/python/venv $R/python/dist
cat $R/rc.txt
tar czf $OUT/r6.tgz -C $OUT r6
ls -la $OUT
