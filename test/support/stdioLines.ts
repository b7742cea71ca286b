/**
 * A stdio server's lines, read raw: for the tests that write bytes no MCP
 * client would (a request under an id already in flight, an envelope the SDK
 * refuses) and must see every line the server writes back, in order.
 */
import type { Subprocess } from "bun";

/** What `stdioLines` gives: the lines so far, a wait for a condition on them, and a write to the server's stdin. */
export interface StdioLines<T> {
  /** every line the server wrote to stdout, parsed as JSON, in order */
  out: T[];
  /** resolves once `seen()` holds, or once the server's stdout has ended */
  until(seen: () => boolean): Promise<void>;
  /** writes `text` to the server's stdin and flushes it */
  send(text: string): Promise<void>;
}

/** Reads `proc`'s stdout as JSON lines into `out` from now on; throws (in the reading) on a line that is not JSON. */
export function stdioLines<T>(proc: Subprocess<"pipe", "pipe", "pipe" | "ignore">): StdioLines<T> {
  const out: T[] = [];
  let ended = false;
  let wake = () => {};
  void (async () => {
    const decoder = new TextDecoder();
    let carry = "";
    for await (const chunk of proc.stdout) {
      carry += decoder.decode(chunk, { stream: true });
      const lines = carry.split("\n");
      carry = lines.pop() ?? "";
      for (const l of lines) out.push(JSON.parse(l));
      wake();
    }
    ended = true;
    wake();
  })();
  return {
    out,
    async until(seen) {
      while (!seen() && !ended) await new Promise<void>((resolve) => (wake = resolve));
    },
    async send(text) {
      proc.stdin.write(text);
      await proc.stdin.flush();
    },
  };
}
