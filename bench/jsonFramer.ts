/**
 * The stdio framer's speed, on the path of every call: MB/s over a stream of
 * small tools/call messages, one message of about 4 MiB that is mostly a
 * string, and one of numbers and nesting, each fed in 64 KiB chunks. Prints
 * the median of several runs.
 */
import { JsonFramer } from "../src/mcp/jsonFramer.ts";
import { median } from "./measure.ts";

const CHUNK = 64 * 1024;
const LIMIT = 4 * 1024 * 1024;

function stream(): Uint8Array {
  const lines: string[] = [];
  for (let i = 0; lines.join("").length < 8 * 1024 * 1024; i++)
    lines.push(
      `${JSON.stringify({ jsonrpc: "2.0", id: i, method: "tools/call", params: { name: "fs_read", arguments: { path: `notes/n${i}.md`, limit: 100 }, _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } } })}\n`,
    );
  return Buffer.from(lines.join(""));
}

const inputs: [string, Uint8Array][] = [
  ["small messages (8 MiB of ~250 B)", stream()],
  [
    "one string message (4 MiB)",
    Buffer.from(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "x", params: { s: "é-x".repeat(1_000_000) } })}\n`),
  ],
  [
    "numbers and nesting (~3 MiB)",
    Buffer.from(
      `${JSON.stringify({ jsonrpc: "2.0", id: 1, params: Array.from({ length: 100_000 }, (_, i) => [i, -i / 7, { t: true }]) })}\n`,
    ),
  ],
];

for (const [name, bytes] of inputs) {
  const times: number[] = [];
  let frames = 0;
  for (let run = 0; run < 9; run++) {
    const f = new JsonFramer(
      LIMIT,
      () => {
        frames++;
      },
      () => {
        throw new Error("past the limit");
      },
    );
    const t0 = performance.now();
    for (let at = 0; at < bytes.length; at += CHUNK) f.push(bytes.subarray(at, at + CHUNK));
    f.end();
    times.push(performance.now() - t0);
  }
  const ms = median(times);
  console.log(
    `framer, ${name}: ${(bytes.length / 1024 / 1024 / (ms / 1000)).toFixed(0)} MiB/s (${ms.toFixed(1)} ms, ${frames / 9} frames)`,
  );
}
