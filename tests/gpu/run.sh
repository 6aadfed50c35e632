#!/usr/bin/env bash
# The GPU checks, on a machine with CuPy and a CUDA GPU: the GPU tests, the device and seed
# tests that look for a GPU, the five-model benchmark on the GPU and a profile of one
# model's step there. Logs go to $OUT (or ./gpu-logs).
# Usage: bash tests/gpu/run.sh [pytest options]
set -o pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-gpu-logs}
mkdir -p "$OUT"
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
python3 -c "import sys, numpy, cupy; print(sys.version.split()[0], 'numpy', numpy.__version__,
'cupy', cupy.__version__, cupy.cuda.runtime.getDeviceProperties(0)['name'].decode())"
timeout 240 python3 -m pytest -p no:cacheprovider -o addopts="" -q -rfE --timeout 200 \
    --durations 10 -n 12 tests/gpu tests/device/test_device.py tests/seeds tests/examples "$@" \
    2>&1 | tee "$OUT/gpu_tests.log" | tail -80
cd benchmarks || exit
timeout 120 python3 models.py --device gpu --steps 5 --repeats 3 2>&1 | tee "$OUT/gpu_models.log"
timeout 60 python3 profile_step.py --device gpu --model resnet18 --top 40 \
    > "$OUT/gpu_profile.log" 2>&1
