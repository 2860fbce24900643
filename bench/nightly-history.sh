#!/usr/bin/env bash
# The nightly benchmark's memory (.github/workflows/nightly-bench.yml): downloads the last
# successful night's `bench-report` artifact with the GitHub CLI and puts its runs
# (fs-*.json, at most the newest 30) into bench/results/, beside the run of tonight, so the
# HTML report shows the trend and the compare step finds last night's run. Prints the path of
# last night's run on stdout, or nothing on the first night. Needs GH_TOKEN and GITHUB_REPOSITORY.
set -euo pipefail
cd "$(dirname "$0")/.."

workflow=nightly-bench.yml
results=bench/results
keep=30
previous=$(mktemp -d)
trap 'rm -rf "$previous"' EXIT

run_id=$(gh run list --repo "$GITHUB_REPOSITORY" --workflow "$workflow" --status success --limit 1 \
  --json databaseId --jq '.[0].databaseId // empty')
if [[ -z $run_id ]]; then
  echo "nightly-history: no earlier successful night" >&2
  exit 0
fi
if ! gh run download "$run_id" --repo "$GITHUB_REPOSITORY" --name bench-report --dir "$previous" >&2; then
  echo "nightly-history: run $run_id has no bench-report artifact" >&2
  exit 0
fi
mkdir -p "$results"
# Tonight's run is the newest file; the history is everything the last night kept.
mapfile -t runs < <(find "$previous" -name 'fs-*.json' -printf '%f\n' | sort | tail -n "$keep")
for name in ${runs[@]+"${runs[@]}"}; do
  cp "$(find "$previous" -name "$name" | head -n 1)" "$results/$name"
done
if ((${#runs[@]} > 0)); then echo "$results/${runs[-1]}"; fi
