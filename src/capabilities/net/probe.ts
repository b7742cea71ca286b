/**
 * net.probe: what answers on a port: whether it speaks first (a banner, as
 * SSH and SMTP do), whether it speaks TLS, and whether it speaks HTTP, with
 * its status line and Server header.
 */
import type { Socket } from "node:net";
import { define } from "../../core/capability.ts";
import { object } from "../../core/result.ts";
import { dnsServerInput } from "./operatorInputs.ts";

/** How long a server is given to speak first, and each step to finish. */
const BANNER_WAIT_MS = 800;
const STEP_TIMEOUT_MS = 3000;
/** A banner or response head is read up to this much. */
const READ_LIMIT = 4096;

/** On a connection just dialled (plain or TLS), optionally writes, and reads what comes within `waitMs`. */
function exchange(
  socket: Socket,
  write: string | undefined,
  waitMs: number,
): Promise<{ ok: boolean; data: string; tls?: { protocol: string | null } }> {
  return new Promise((resolve) => {
    let data = "";
    let settled = false;
    const finish = (ok: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const tls =
        "getProtocol" in socket
          ? { protocol: (socket as unknown as { getProtocol(): string | null }).getProtocol() }
          : undefined;
      socket.destroy();
      resolve({ ok, data, ...(tls ? { tls } : {}) });
    };
    const timer = setTimeout(() => finish(true), waitMs);
    socket.once("error", () => finish(false));
    socket.once("secureConnect" in socket ? "secureConnect" : "connect", () => {
      if (write !== undefined) socket.write(write);
    });
    socket.on("data", (d: Buffer) => {
      data += d.toString("latin1");
      if (data.length >= READ_LIMIT || (write !== undefined && data.includes("\r\n\r\n"))) finish(true);
    });
    socket.once("end", () => finish(true));
  });
}

export const netProbe = define({
  name: "net.probe",
  summary: "Identify what answers on a TCP port: banner, TLS or plain, HTTP or not, and its Server header",
  searchWords: ["service detection", "what is listening", "banner grab", "fingerprint"],
  safety: "read",
  reaches: "host",
  inputs: {
    host: { type: "string", description: "the host name or address", required: true, positional: true },
    port: { type: "integer", description: "the TCP port", required: true, range: [1, 65535], positional: true },
    server: dnsServerInput,
  },
  result: { shape: "object" },
  examples: [{ command: "rta net probe example.com 443", note: "what answers on 443" }],
  async run(args, ctx) {
    const dest = await ctx.net.resolve(args.host, args.server);
    const port = args.port;
    const banner = await exchange(ctx.net.dial(dest, port), undefined, BANNER_WAIT_MS);
    if (!banner.ok) return object({ host: dest.host, address: dest.address, port, open: false });
    const tls = await exchange(await ctx.net.dialTls(dest, port), undefined, STEP_TIMEOUT_MS);
    const speaksTls = tls.ok && tls.tls?.protocol != null;
    const request = `HEAD / HTTP/1.1\r\nHost: ${dest.host}\r\nUser-Agent: rta\r\nConnection: close\r\n\r\n`;
    const http = await exchange(
      speaksTls ? await ctx.net.dialTls(dest, port) : ctx.net.dial(dest, port),
      request,
      STEP_TIMEOUT_MS,
    );
    const statusLine = http.data.match(/^HTTP\/\d(?:\.\d)? \d{3}[^\r\n]*/)?.[0];
    const serverHeader = http.data.match(/\r\nserver:\s*([^\r\n]*)/i)?.[1];
    return object({
      host: dest.host,
      address: dest.address,
      port,
      open: true,
      banner: banner.data.trim().split("\n")[0]?.slice(0, 200) || null,
      tls: speaksTls ? { protocol: tls.tls?.protocol ?? null } : false,
      http: statusLine ? { status_line: statusLine, server: serverHeader ?? null } : false,
    });
  },
});
