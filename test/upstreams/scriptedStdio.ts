/**
 * A stdio MCP upstream, raw JSON-RPC a line, whose tools/call answers by the
 * tool's name: `echo` its arguments as text, `fail` an error response naming
 * the operator's secret (its SECRET env), `bad` a result whose content is no
 * list, `meta` a text result with `_meta`, `slow` never, `die` by exiting.
 * Each line it reads is appended to the file its LOG env names.
 */
import { appendFileSync } from "node:fs";

const log = process.env.LOG ?? "";
const secret = process.env.SECRET ?? "";

function send(message: unknown): void {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

type Message = { id?: number | string; method?: string; params?: Record<string, unknown> };

function answer(m: Message): void {
  if (m.id === undefined) return;
  if (m.method === "initialize") {
    const result = {
      protocolVersion: m.params?.protocolVersion,
      capabilities: { tools: {} },
      serverInfo: { name: "scripted", version: "1" },
    };
    send({ jsonrpc: "2.0", id: m.id, result });
    return;
  }
  if (m.method !== "tools/call") {
    send({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "no" } });
    return;
  }
  const name = m.params?.name;
  const text = JSON.stringify(m.params?.arguments ?? {});
  if (name === "echo") send({ jsonrpc: "2.0", id: m.id, result: { content: [{ type: "text", text }] } });
  else if (name === "fail") send({ jsonrpc: "2.0", id: m.id, error: { code: -32602, message: `bad token ${secret}` } });
  else if (name === "bad") send({ jsonrpc: "2.0", id: m.id, result: { content: "not a list" } });
  else if (name === "meta")
    send({ jsonrpc: "2.0", id: m.id, result: { content: [{ type: "text", text }], _meta: { at: 1 } } });
  else if (name === "die") process.exit(3);
}

let carry = "";
process.stdin.on("data", (chunk: Buffer) => {
  carry += chunk.toString("utf8");
  for (let nl = carry.indexOf("\n"); nl !== -1; nl = carry.indexOf("\n")) {
    const line = carry.slice(0, nl);
    carry = carry.slice(nl + 1);
    if (line.trim() === "") continue;
    if (log !== "") appendFileSync(log, `${line}\n`);
    answer(JSON.parse(line) as Message);
  }
});
process.stdin.on("end", () => process.exit(0));
