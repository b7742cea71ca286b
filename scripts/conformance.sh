#!/usr/bin/env bash
# The official MCP conformance suite against dist/rta mcp serve --http, on both protocol eras.
# rta always asks for a token and the suite sends none, so a small proxy adds it (scripts/conformance-proxy.ts).
# Each era's result is compared with conformance/baseline-<era>.yml: scenarios bound to fixture tools rta
# does not have, each with its reason. Needs dist/rta (npm run build).
set -euo pipefail
cd "$(dirname "$0")/.."
BUN=node_modules/.bin/bun
SUITE=node_modules/@modelcontextprotocol/conformance/dist/index.js
work=$(mktemp -d)
pids=()
# The server writes its record's end line as it stops: it is waited for, or it writes into what rm is removing.
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

export RTA_DATA_DIR="$work/data" RTA_CONFIG_DIR="$work/config"
mkdir -p "$work/root"
token=$(./dist/rta mcp token new --agent conformance --json | "$BUN" -e 'console.log(JSON.parse(await Bun.stdin.text()).token)')

./dist/rta mcp serve --http 127.0.0.1:0 --root "$work/root" 2>"$work/server.err" &
pids+=($!)
for _ in $(seq 100); do
  port=$(sed -n 's|^rta mcp server listening on http://127.0.0.1:\([0-9]*\)/mcp$|\1|p' "$work/server.err")
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "${port:-}" ] || { cat "$work/server.err"; echo "rta did not start" >&2; exit 1; }

"$BUN" scripts/conformance-proxy.ts 0 "http://127.0.0.1:$port" "$token" >"$work/proxy.port" &
pids+=($!)
for _ in $(seq 100); do
  proxy=$(cat "$work/proxy.port" 2>/dev/null || true)
  [ -n "$proxy" ] && break
  sleep 0.1
done

status=0
for era in 2025-11-25 2026-07-28; do
  echo "=== conformance, requirements $era ==="
  if ! "$BUN" "$SUITE" server --url "http://localhost:$proxy/mcp" --requirements "$era" \
      --expected-failures "conformance/baseline-$era.yml" -o "$work/out-$era" >"$work/$era.log" 2>&1; then
    status=1
  fi
  sed -n '/=== SUMMARY ===/,$p' "$work/$era.log"
done
exit $status
