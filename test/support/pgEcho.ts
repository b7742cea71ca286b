/**
 * A PostgreSQL server that refuses every login and says back, in its error, the password the client sent (as sent
 * and percent-encoded): the worst a server or a client library could do with it. It runs in a child process, since
 * the store's bridge holds the test's thread while it waits, on a free 127.0.0.1 port. It speaks the startup message
 * (an SSL request is answered `N`), asks for a cleartext password, and answers it with an ErrorResponse.
 */
import type { Subprocess } from "bun";

const SERVER = `
const { createServer } = require("node:net");
const server = createServer((s) => {
  let buf = Buffer.alloc(0);
  let started = false;
  s.on("error", () => {});
  s.on("data", (d) => {
    buf = Buffer.concat([buf, d]);
    for (;;) {
      if (!started) {
        if (buf.length < 8 || buf.length < buf.readInt32BE(0)) return;
        const code = buf.readInt32BE(4);
        buf = buf.subarray(buf.readInt32BE(0));
        if (code === 80877103) { s.write("N"); continue; }
        started = true;
        const ask = Buffer.alloc(9);
        ask.write("R");
        ask.writeInt32BE(8, 1);
        ask.writeInt32BE(3, 5);
        s.write(ask);
        continue;
      }
      if (buf.length < 5 || buf.length < buf.readInt32BE(1) + 1) return;
      const said = buf.subarray(5, buf.readInt32BE(1) + 1).toString().replace(/\\0$/, "");
      const text = "password authentication failed: the client sent " + said + " (" + encodeURIComponent(said) + ")";
      const fields = Buffer.from("SFATAL\\0VFATAL\\0C28P01\\0M" + text + "\\0\\0");
      const head = Buffer.alloc(5);
      head.write("E");
      head.writeInt32BE(4 + fields.length, 1);
      s.end(Buffer.concat([head, fields]));
      return;
    }
  });
});
server.listen(0, "127.0.0.1", () => console.log(server.address().port));
`;

export interface EchoServer {
  port: number;
  stop(): void;
}

/** Starts the echoing server; stop() ends it. */
export async function startPgEcho(): Promise<EchoServer> {
  const proc: Subprocess<"ignore", "pipe", "ignore"> = Bun.spawn([process.execPath, "-e", SERVER], {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "ignore",
  });
  const reader = proc.stdout.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the echoing PostgreSQL server did not start");
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return { port: Number(text.trim()), stop: () => proc.kill() };
}
