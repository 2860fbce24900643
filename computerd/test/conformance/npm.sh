#!/bin/bash
# npm: an offline install of a local tarball ($PKG_TGZ, packed by the runner) into a fresh project.
set -u
cd "$1" || exit 1
export npm_config_cache="$PWD/.npm-cache" npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
npm init -y > /dev/null
npm install --offline --no-progress "$PKG_TGZ" 2>&1 | grep -o 'added 1 package'
node -e "console.log(require('tiny-conformance-pkg').double(21))"
ls node_modules/tiny-conformance-pkg | sort
grep -c tiny-conformance-pkg package.json
node -e "const l = require('./package-lock.json'); console.log(Object.keys(l.packages).sort().join(','))"
npm ls --depth=0 2>&1 | grep -o 'tiny-conformance-pkg@1.0.0'
rm -rf node_modules; ls
