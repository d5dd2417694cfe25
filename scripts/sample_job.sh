#!/usr/bin/env bash
# sample_job.sh - the README's main job on a sample that our own code generates (no third-party assets):
# build the two-bone cylinder rig, pose it, deform it with LBS and DQS and print the figures.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${SKINKIT_BUILD:-build}
"$B/skinkit" --version
"$B/skinkit" demo
