#!/usr/bin/env bash
# Installs the Debian packages lynxsim needs, only those that are missing (one apt-get update first).
# Run as root on Debian 12 (bookworm); a no-op when everything is already there.
# --clang: also clang and its runtime libraries (libFuzzer, sanitizers), for `make asan-test` and `make fuzz`
# (fuzz/README.md).
set -euo pipefail
packages=(g++ cmake make pkg-config libsimgrid-dev libeigen3-dev nlohmann-json3-dev libcli11-dev doctest-dev
          libzstd-dev libsnappy-dev  # the Parquet reader's codecs (models/readers/parquet_reader.hpp)
          nettle-dev  # SHA-256 (common/sha256.hpp)
          libsentencepiece-dev  # optional: SentencePiece tokenizer models for the decoder (models/decoder/sp_tokenizer.hpp)
          python3 python3-matplotlib
          slurmctld slurmd slurm-client munge)  # the Slurm test starts a one-node cluster of its own
if [ "${1:-}" = "--clang" ]; then
  packages+=(clang libclang-rt-14-dev)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "install-deps: installing ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
$sudo apt-get update -q
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
