#!/usr/bin/env bash
# Executes every notebook headless, top to bottom, with the tslab kernel; fails if any cell
# fails or an executed notebook is over 4 MB, and prints each notebook's run time and size.
#
# Usage: scripts/run-notebooks.sh [--keep DIR] [--data-dir DIR] [--no-doubles] [notebooks/NN-name.ipynb …]
#   --keep DIR     write the executed notebooks (with outputs) to DIR instead of a temp folder
#                  that is deleted; `jupyter nbconvert --to html DIR/NN-name.ipynb` then renders one
#   --data-dir DIR use DIR as GBR_DATA_DIR (caches: Hub data, vectors, replayed LLM calls)
#                  instead of a fresh temp folder
#   --no-doubles   use the providers configured in the environment instead of the local API
#                  doubles (real LLM and embedding servers: slow and, for paid APIs, not free)
#
# Environment (defaults for CI): GBR_NOTEBOOK_DATA=sample (the bundled demo set; "hf" for the
# benchmark), a fresh temporary GBR_DATA_DIR (caches), notebook outputs and figures under the
# temp folder. By default the OpenAI-compatible and Gemini doubles of test/fakes are started
# first (scripts/serve-doubles.ts), so that the LLM and embedding notebooks run their real code
# paths against scripted answers, and are stopped at the end.
#
# Each figure is stored interactive and, drawn by a local Chromium or Chrome (GBR_CHROMIUM, else the
# usual places; lib/report/render-figure.ts), as a PNG that shows where scripts do not run (GitHub,
# nbviewer, `jupyter nbconvert --to html` read without JavaScript). Without a browser the figures are
# interactive only, and each notebook says so once.
#
# Needs Jupyter and the tslab kernel, registered with its full path (registered here when missing):
#   apt-get install -y jupyter-nbconvert python3-nbclient python3-ipykernel
#   npx tslab install --binary="$PWD/node_modules/.bin/tslab" --python=/usr/bin/python3
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

keep=""
datadir=""
doubles=1
selected=()
while [ $# -gt 0 ]; do
  case "$1" in
    --keep) keep="$2"; shift 2 ;;
    --data-dir) datadir="$2"; shift 2 ;;
    --no-doubles) doubles=0; shift ;;
    -h|--help) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) selected+=("$1"); shift ;;
  esac
done
if [ ${#selected[@]} -eq 0 ]; then
  selected=(notebooks/[0-9][0-9]-*.ipynb)
fi

if ! command -v jupyter >/dev/null || ! jupyter nbconvert --version >/dev/null 2>&1; then
  echo "error: jupyter nbconvert not found; install it with:" >&2
  echo "  apt-get install -y jupyter-nbconvert python3-nbclient python3-ipykernel" >&2
  exit 1
fi
register=(npx tslab install "--binary=$ROOT/node_modules/.bin/tslab" --python=/usr/bin/python3)
if ! kernel=$(/usr/bin/python3 -c 'import jupyter_client.kernelspec as k; print(k.KernelSpecManager().get_kernel_spec("tslab").argv[0])' 2>/dev/null); then
  echo "registering the tslab kernel (${register[*]})"
  "${register[@]}" >/dev/null
elif ! command -v "$kernel" >/dev/null; then
  # Found below through node_modules/.bin on PATH; Jupyter started any other way would not find it.
  echo "note: the tslab kernel's command '$kernel' is not on PATH, so 'jupyter nbconvert --execute' and 'jupyter notebook' run by hand cannot start it; register it with its full path: ${register[*]}" >&2
fi

# The notebooks load lib/ compiled (notebooks/lib -> build/lib); bring the build up to date with
# the sources first (incremental: about a second when little changed).
node scripts/build-lib.js

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gbr-notebooks.XXXXXX")
doubles_pid=""
cleanup() {
  if [ -n "$doubles_pid" ]; then
    kill "$doubles_pid" 2>/dev/null || true
    wait "$doubles_pid" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT

out="${keep:-$tmp/executed}"
mkdir -p "$out"
export GBR_NOTEBOOK_DATA="${GBR_NOTEBOOK_DATA:-sample}"
export GBR_DATA_DIR="${datadir:-$tmp/data}"
export GBR_NOTEBOOK_OUT="$tmp/outputs"
export GBR_FIGURES_DIR="$tmp/figures"
# Nothing here may reach the internet: resources that would be downloaded (spaCy's tables, the
# Hub when the data is "hf" and not cached) are reported as skipped by the notebooks.
export GBR_SPACY_BASE_URL="${GBR_SPACY_BASE_URL:-http://unreachable.invalid}"

if [ "$doubles" = 1 ]; then
  node --import tsx scripts/serve-doubles.ts --dir "$tmp/doubles" >"$tmp/doubles.env" 2>"$tmp/doubles.log" &
  doubles_pid=$!
  for _ in $(seq 1 300); do
    grep -q '^# ready' "$tmp/doubles.env" 2>/dev/null && break
    if ! kill -0 "$doubles_pid" 2>/dev/null; then
      echo "error: the API doubles did not start:" >&2
      cat "$tmp/doubles.log" >&2
      exit 1
    fi
    sleep 0.1
  done
  grep -q '^# ready' "$tmp/doubles.env" || { echo "error: the API doubles did not start in 30 s" >&2; exit 1; }
  # shellcheck disable=SC1091
  . "$tmp/doubles.env"
  echo "API doubles: chat and embeddings at $GBR_CHAT_BASE_URL, Gemini at $GBR_GEMINI_BASE_URL"
fi
echo "data: $GBR_NOTEBOOK_DATA; executed notebooks: $out"

failed=()
MAX_NOTEBOOK_BYTES=4000000
total_start=$(date +%s)
for nb in "${selected[@]}"; do
  name=$(basename "$nb" .ipynb)
  start=$(date +%s%N)
  if PATH="$ROOT/node_modules/.bin:$PATH" jupyter nbconvert --to notebook --execute "$nb" --output-dir "$out" \
      --ExecutePreprocessor.timeout=600 --ExecutePreprocessor.kernel_name=tslab >"$tmp/$name.log" 2>&1; then
    status=ok
  else
    status=FAILED
    failed+=("$name")
  fi
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  size=""
  if [ "$status" = ok ]; then
    bytes=$(stat -c %s "$out/$name.ipynb")
    size=$(printf '%d.%d MB' $((bytes / 1000000)) $(((bytes % 1000000) / 100000)))
    # An executed notebook carries plotly once, minified (lib/report/notebook.ts), and a PNG of
    # 30-70 KB per figure: a few MB at most, so that it opens quickly and stays reasonable to share.
    if [ "$bytes" -gt "$MAX_NOTEBOOK_BYTES" ]; then
      status=TOO-BIG
      failed+=("$name")
      echo "error: executed $name.ipynb is $size, over the $((MAX_NOTEBOOK_BYTES / 1000000)) MB limit" >&2
    fi
  fi
  printf '%-36s %-7s %4d.%d s  %s\n' "$name" "$status" $((ms / 1000)) $(((ms % 1000) / 100)) "$size"
  if [ "$status" = FAILED ]; then
    # nbconvert names the failing cell, but tslab reports the error itself on stderr inside the
    # notebook: run it again keeping errors, and print what the failing cells wrote there.
    grep -v '^\s*$' "$tmp/$name.log" | grep -v '^\s*File \|^\s*\^' | tail -15 >&2
    PATH="$ROOT/node_modules/.bin:$PATH" jupyter nbconvert --to notebook --execute "$nb" --allow-errors --output-dir "$tmp/debug" \
      --ExecutePreprocessor.timeout=600 --ExecutePreprocessor.kernel_name=tslab >/dev/null 2>&1 || true
    /usr/bin/python3 - "$tmp/debug/$name.ipynb" >&2 <<'PY' || true
import json, sys
nb = json.load(open(sys.argv[1]))
code = [c for c in nb["cells"] if c["cell_type"] == "code"]
for i, c in enumerate(code):
    for o in c.get("outputs", []):
        if o.get("name") == "stderr" or o["output_type"] == "error":
            text = "".join(o.get("text", "")) or "\n".join(o.get("traceback", [])) or o.get("evalue", "")
            print(f"--- code cell {i}: {text.strip()[:2000]}")
PY
  fi
done
printf 'all notebooks: %d s\n' "$(( $(date +%s) - total_start ))"

echo "notebooks: $(( ${#selected[@]} - ${#failed[@]} )) passed, ${#failed[@]} failed"
if [ ${#failed[@]} -gt 0 ]; then
  echo "notebooks with errors: ${failed[*]}" >&2
  exit 1
fi
