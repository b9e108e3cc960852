#!/usr/bin/env bash
# The fleet stage of CI (.ci/run): builds the offline Debian package, then installs it on this
# machine and drives it with the Ansible role (test/fleet/deb.test.ts), and installs the npm pack
# tarball into a temporary prefix (test/fleet/tarball.test.ts). Root only; it changes the machine
# (and puts it back): not part of `npm test`.
set -euo pipefail
cd "$(dirname "$0")/../.."

# Debian packages: dpkg-shlibdeps (dpkg-dev) for the package's Depends, lintian to check it,
# ansible (with python3-apt for its apt module) to apply the role.
need=()
command -v dpkg-shlibdeps >/dev/null || need+=(dpkg-dev)
command -v lintian >/dev/null || need+=(lintian)
command -v ansible-playbook >/dev/null || need+=(ansible)
python3 -c 'import apt' 2>/dev/null || need+=(python3-apt)
if ((${#need[@]})); then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"
fi

started=$SECONDS
# Built under the strictest umask an administrator's root may have: the package sets every mode itself.
(umask 077 && npm run package)
echo "[fleet] package built in $((SECONDS - started)) s"
QWEN_MANAGED_FLEET_INSTALL=1 npx vitest run --config test/fleet/vitest.config.ts
echo "[fleet] stage done in $((SECONDS - started)) s"
