/** Serves holey.ts's answers on stdin and stdout, run by bun. */
import { holeyAnswer, type Message } from "./holey.ts";

let carry = "";
process.stdin.on("data", (chunk: Buffer) => {
  carry += chunk.toString("utf8");
  for (let nl = carry.indexOf("\n"); nl !== -1; nl = carry.indexOf("\n")) {
    const line = carry.slice(0, nl);
    carry = carry.slice(nl + 1);
    const reply = line.trim() === "" ? undefined : holeyAnswer(JSON.parse(line) as Message);
    if (reply !== undefined) process.stdout.write(`${JSON.stringify(reply)}\n`);
  }
});
process.stdin.on("end", () => process.exit(0));
