#!/bin/bash
# Unpacks nvdisasm from Debian 12's nvidia-cuda-toolkit (non-free) into DIR
# (default build/tools), for the SASS checks on machines whose CUDA toolkit
# has no disassembler. Uses a private apt configuration: the system's apt
# sources are not changed; the archive is the one they name for bookworm
# (tools/debian-mirror.sh). Debian 12 only; elsewhere it says so and exits 0.
set -eu
dest=${1:-build/tools}
[ -x "$dest/nvdisasm" ] && { echo "nvdisasm: $dest/nvdisasm (present)"; exit 0; }
if ! grep -q 'VERSION_CODENAME=bookworm' /etc/os-release 2>/dev/null; then
    echo "nvdisasm: not Debian 12; the SASS checks will skip unless a CUDA toolkit's cuobjdump is on PATH"
    exit 0
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/lists/partial" "$tmp/archives/partial" "$dest"
# the Debian archive this machine's apt already uses, its non-free component
read -r uri keyring < <(bash "$(dirname "$0")/debian-mirror.sh" bookworm) || true
if [ -z "${uri:-}" ]; then
    echo "nvdisasm: no Debian 12 (bookworm) archive in this machine's apt sources; the SASS checks will skip"
    exit 0
fi
echo "deb ${keyring:+[signed-by=$keyring] }$uri bookworm non-free" >"$tmp/sources.list"
opts=(-o Dir::Etc::SourceList="$tmp/sources.list" -o Dir::Etc::SourceParts=/dev/null
      -o Dir::State::Lists="$tmp/lists" -o Dir::Cache::Archives="$tmp/archives" -o APT::Sandbox::User=root)
echo "nvdisasm: fetching nvidia-cuda-toolkit (Debian non-free, about 84 MB) for its disassembler"
apt-get "${opts[@]}" update -q >/dev/null
(cd "$tmp" && apt-get "${opts[@]}" download nvidia-cuda-toolkit >/dev/null)
dpkg-deb --fsys-tarfile "$tmp"/nvidia-cuda-toolkit_*.deb | tar -x -C "$tmp" ./usr/bin/nvdisasm
mv "$tmp/usr/bin/nvdisasm" "$dest/nvdisasm"
echo "nvdisasm: $dest/nvdisasm"
