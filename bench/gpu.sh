#!/usr/bin/env bash
# bench/gpu.sh: theon's mode="JAX" against hand-written jax.jit on an NVIDIA GPU.
#
#   bench/gpu.sh [--quick] [--python PYTHON] [--doc docs/performance.md]
#
# Runs, on the GPU jax sees (JAX_PLATFORMS=cuda):
#   1. bench/run.py --theon-mode JAX --libs theon,jax   (the benchmark runner: theon's
#      JAX mode and the hand-written jax.jit workloads of bench/workloads_jax.py, each in
#      its own process) -> bench/results/gpu.md and .jsonl
#   2. bench/jax_mode.py --native   (the two called alternately in one process: call
#      times, paired ratios, first results) -> bench/results/gpu_jax_mode.md
# and writes both tables, with the GPU's name, into the section "On a GPU: bench/gpu.sh"
# of docs/performance.md (between its two marker comments; the section is appended, and
# the file created, when absent).
#
# JAX_PLATFORMS=cpu bench/gpu.sh --quick runs the same on the CPU (two workloads): a
# test of the script where no GPU is available; the section then says so.
# PYTHON needs theon's dependencies and jax (with CUDA: pip install 'jax[cuda12]').
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

PYTHON=${PYTHON:-}
DOC=docs/performance.md
QUICK=0
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) QUICK=1 ;;
        --python) PYTHON=$2; shift ;;
        --doc) DOC=$2; shift ;;
        -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
        *) echo "bench/gpu.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done
if [ -z "$PYTHON" ]; then
    if [ -x .venv/bin/python ]; then PYTHON=.venv/bin/python; else PYTHON=python3; fi
fi
# an absolute path: the runner probes interpreters from another directory
PYTHON=$(command -v "$PYTHON")
case "$PYTHON" in /*) ;; *) PYTHON="$ROOT/$PYTHON" ;; esac

if [ "${JAX_PLATFORMS:-}" = "cpu" ]; then
    DEVICE="the CPU (JAX_PLATFORMS=cpu): a test of the script, not a GPU measurement"
else
    if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
        echo "bench/gpu.sh: no NVIDIA GPU (nvidia-smi finds none); set JAX_PLATFORMS=cpu" \
             "to test the script on the CPU" >&2
        exit 3
    fi
    export JAX_PLATFORMS=cuda
    DEVICE="$(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader \
              | head -1) (nvidia-smi: name, memory, driver)"
fi
# jax must see the device, or every number below would be the CPU's
"$PYTHON" - <<'EOF'
import os, sys
import jax
want = os.environ["JAX_PLATFORMS"] if os.environ.get("JAX_PLATFORMS") else "cpu"
devs = jax.devices()
print("jax", jax.__version__, "devices:", devs, file=sys.stderr)
if devs[0].platform not in (want, "gpu" if want == "cuda" else want):
    sys.exit(f"bench/gpu.sh: jax runs on {devs[0].platform}, not {want}: install jax[cuda12]")
EOF

if [ "$QUICK" -eq 1 ]; then
    ONLY=logreg_grad,mlp_train_step
else
    ONLY=elemwise_chain,logreg_grad,mlp_train_step,dropout_mlp_step,big_graph_compile,jacobian_vectorized,rnn_bptt,scan_small_steps,convnet_step,sparse_logreg,gp_logp,batched_solve
fi
mkdir -p bench/results
STAMP=$(date -u '+%Y-%m-%d %H:%M UTC')
echo "== bench/run.py --theon-mode JAX --libs theon,jax ($ONLY)" >&2
"$PYTHON" bench/run.py --theon-mode JAX --libs theon,jax --peer "$PYTHON" --only "$ONLY" \
    --timeout 1200 --out bench/results/gpu.md --quiet
echo "== bench/jax_mode.py --native" >&2
"$PYTHON" bench/jax_mode.py --native --only "$ONLY" > bench/results/gpu_jax_mode.md
# no machine's paths in the results: the interpreter and the checkout become placeholders
for f in bench/results/gpu.md bench/results/gpu.jsonl bench/results/gpu_jax_mode.md; do
    sed -i -e "s#$PYTHON#<python>#g" -e "s#$ROOT/##g" -e "s#$ROOT#.#g" "$f"
done

DEVICE="$DEVICE" STAMP="$STAMP" QUICK="$QUICK" DOC="$DOC" "$PYTHON" - <<'EOF'
import os
from pathlib import Path

begin, end = "<!-- bench/gpu.sh: begin -->", "<!-- bench/gpu.sh: end -->"
doc = Path(os.environ["DOC"])
runner = Path("bench/results/gpu.md").read_text().strip().splitlines()
table = [ln for ln in runner if ln.startswith("|")]
paired = Path("bench/results/gpu_jax_mode.md").read_text().strip()
quick = os.environ["QUICK"] == "1"
body = "\n".join([
    begin,
    f"Run of {os.environ['STAMP']} on {os.environ['DEVICE']}"
    + (", two workloads (`--quick`)." if quick else "."),
    "",
    "The benchmark runner (`bench/results/gpu.md`; theon's results come back as NumPy "
    "arrays, so its call times include the copy from the device; the hand-written "
    "`jax.jit` leaves its results on the device):",
    "",
    *table,
    "",
    "theon's `mode=\"JAX\"` and the hand-written `jax.jit` called alternately in one "
    "process (`bench/results/gpu_jax_mode.md`):",
    "",
    paired,
    end,
])
text = doc.read_text() if doc.exists() else "# Performance\n"
if begin in text and end in text:
    head, rest = text.split(begin, 1)
    text = head + body + rest.split(end, 1)[1]
else:
    text = text.rstrip("\n") + "\n\n## On a GPU: `bench/gpu.sh`\n\n" + body + "\n"
doc.write_text(text)
print(f"wrote {doc}")
EOF
