#!/usr/bin/env bash
# The GPU checks and benchmarks, for a machine with CuPy and a CUDA GPU, in about 8 minutes.
# Wheels carried in .whl/ (such a machine may have no package index: the cuDNN frontend,
# nvidia-cudnn-frontend) are installed first. Then, by stage:
#   tests    the GPU tests (tests/gpu, skipped elsewhere) and the device and seed tests
#   programs (not in the default list) only the to_static and CUDA graph tests, on every
#            third spec entry, the cuDNN tests and the fused kernels against their NumPy
#            statements
#   bench    benchmarks/models.py --device gpu: the five models, eager and to_static
#            (CUDA graphs), against PyTorch CUDA eager
#   big      the compute-bound cases (ResNet-50 batch 64 at 224x224, a d=1024 Transformer)
#   amp      a bfloat16 auto_cast step of ResNet-18 and the Transformer against PyTorch's
#   rnn      (not in the default list) the LSTM and GRU with each step's product and
#            element-wise kernel apart (DYGRAPH_RNN_STEP_WIDTH=0), against bench's figures
#            for one kernel a layer direction
#   winograd (not in the default list) big's ResNet-50 with cuDNN's Winograd and FFT
#            engines allowed (DYGRAPH_CUDNN_WINOGRAD=1), against big's figures
#   optimes  (not in the default list) big's cases' device time by op, one eager step
#            each (benchmarks/gpu_op_times.py)
#   attention (not in the default list) float16 attention forward and backward: cuDNN's
#            fused op, the composition and PyTorch's (benchmarks/attention.py)
#   overhead the host time per op on the GPU (benchmarks/op_overhead.py) against PyTorch's
#   profile  a profile of eager ResNet-18 and Transformer steps (host time by function)
# Logs go to $OUT (or ./gpu-logs); the benchmark outputs are named as committed under
# benchmarks/results/ (<date>-gpu-<stage>.txt).
# Usage: bash tests/gpu/run.sh [stage ...]   (default: all of them, in that order)
set -o pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-gpu-logs}
mkdir -p "$OUT"
if ls .whl/*.whl > /dev/null 2>&1; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site .whl/*.whl 2>&1 | tail -3
    export PYTHONPATH=/tmp/site
fi
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1 DYGRAPH_GPU_LOG=$OUT
DAY=$(date +%Y-%m-%d)
python3 -c "import sys, numpy, cupy; print(sys.version.split()[0], 'numpy', numpy.__version__,
'cupy', cupy.__version__, cupy.cuda.runtime.getDeviceProperties(0)['name'].decode())"
python3 -c "import cudnn; print('cudnn frontend', cudnn.__version__, 'backend',
cudnn.backend_version())" 2>&1 | tail -1
for stage in ${*:-tests bench big amp overhead profile}; do
    start=$SECONDS
    case $stage in
    tests)
        timeout 240 python3 -m pytest -p no:cacheprovider -o addopts="" -q -rfE \
            --timeout 200 --durations 10 -n 12 tests/gpu tests/device/test_device.py \
            tests/seeds tests/examples 2>&1 | tee "$OUT/gpu_tests.log" | tail -60 ;;
    programs)  # the programs and CUDA graph checks alone, a third of the spec table
        DYGRAPH_GPU_SPEC_STRIDE=3 timeout 110 python3 -m pytest -p no:cacheprovider \
            -o addopts="" -q -rfE --timeout 60 -n 14 tests/gpu/test_programs_on_gpu.py \
            tests/gpu/test_cudnn.py tests/gpu/test_cudnn_attention.py \
            tests/gpu/test_fused_kernels.py 2>&1 \
            | tee "$OUT/gpu_programs.log" | tail -40 ;;
    bench)
        timeout 150 python3 benchmarks/models.py --device gpu --modes eager,to_static \
            --steps 10 --repeats 3 --out "$OUT/$DAY-gpu-models.txt" 2>&1 | tail -15 ;;
    big)
        timeout 150 python3 benchmarks/models.py --device gpu --modes eager,to_static \
            --models resnet50_b64,transformer_big --steps 3 --repeats 2 --warmup 1 \
            --out "$OUT/$DAY-gpu-compute-bound.txt" ;;
    amp)
        timeout 90 python3 benchmarks/models.py --device gpu --modes eager,to_static \
            --models resnet18,transformer --amp bfloat16 --steps 10 --repeats 3 \
            --out "$OUT/$DAY-gpu-bfloat16.txt" ;;
    rnn)  # the RNN steps as cuBLAS products and element-wise kernels, to compare with bench
        DYGRAPH_RNN_STEP_WIDTH=0 timeout 90 python3 benchmarks/models.py --device gpu \
            --modes eager,to_static --models lstm,gru --steps 10 --repeats 3 \
            --out "$OUT/$DAY-gpu-rnn-two-kernels.txt" ;;
    winograd)  # cuDNN's Winograd and FFT engines allowed, to compare with big
        DYGRAPH_CUDNN_WINOGRAD=1 timeout 120 python3 benchmarks/models.py --device gpu \
            --modes eager,to_static --models resnet50_b64 --steps 3 --repeats 2 --warmup 1 \
            --out "$OUT/$DAY-gpu-compute-bound-winograd.txt" ;;
    optimes)  # where a compute-bound step's device time goes, by op
        timeout 120 python3 benchmarks/gpu_op_times.py --models resnet50_b64,transformer_big \
            --out "$OUT/$DAY-gpu-op-times.txt" ;;
    attention)  # float16 attention: cuDNN's fused op, the composition, PyTorch's
        timeout 120 python3 benchmarks/attention.py --steps 10 --repeats 3 \
            --out "$OUT/$DAY-gpu-attention.txt" ;;
    gelu)  # the transformer with exact GELU: erf on the GPU, element-wise chains fused
        timeout 90 python3 benchmarks/models.py --device gpu --modes eager,to_static \
            --models transformer_gelu --steps 10 --repeats 3 \
            --out "$OUT/$DAY-gpu-gelu.txt" ;;
    overhead)
        timeout 60 python3 benchmarks/op_overhead.py --device gpu --repeats 3 \
            2>&1 | tee "$OUT/$DAY-gpu-op-overhead.txt" ;;
    profile)  # host time by function, of a conv net's and the Transformer's eager steps
        for model in resnet18 transformer; do
            timeout 45 python3 benchmarks/profile_step.py --device gpu --model $model \
                --top 40 > "$OUT/gpu_profile_$model.log" 2>&1
        done ;;
    *)
        echo "unknown stage $stage" ;;
    esac
    echo "== stage $stage: $((SECONDS - start)) s"
done
