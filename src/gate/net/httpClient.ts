/**
 * One HTTP exchange to a pinned address, with node:http and node:https. The
 * request goes to the address resolved once for the call; the name travels
 * only as the Host header and the TLS server name, so certificate checks are
 * made against the name. (Under Bun an `undici` import is Bun's own stand-in,
 * which ignores pinned lookups and limits: it is not used.)
 *
 * Timeouts on connecting, on the response headers and on the body are
 * separate; the body is kept up to a limit and the rest is not read.
 */
import type { RequestOptions } from "node:https";
import type { TLSSocket } from "node:tls";
import type { Exchange, HttpLimits } from "../../core/access.ts";
import { RtaError } from "../../core/errors.ts";
import { isIP } from "../../core/lazyNet.ts";

export interface Target {
  url: URL;
  /** the address the name was pinned to */
  address: string;
  /** extra trusted CAs (PEM), the operator's */
  ca?: string;
  /** a POST's body, sent as JSON */
  body?: Buffer;
}

/**
 * Sends one request to the target's pinned address and keeps the body up to
 * the limit. Refuses net.timeout (connect, headers or body too slow),
 * net.unreachable, net.tls and core.call.cancelled.
 */
export async function exchange(
  method: "GET" | "HEAD" | "POST",
  target: Target,
  limits: HttpLimits,
  signal?: AbortSignal,
): Promise<Exchange> {
  const { url, address } = target;
  const secure = url.protocol === "https:";
  // Loaded on the first request, not at start-up.
  const [http, https, { rootCertificates }] = await Promise.all([
    import("node:http"),
    import("node:https"),
    import("node:tls"),
  ]);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    let connectedAt = 0;
    let headersAt = 0;
    const timers: ReturnType<typeof setTimeout>[] = [];
    const done = (err?: Error, value?: Exchange) => {
      for (const t of timers) clearTimeout(t);
      if (err) reject(err);
      else resolve(value as Exchange);
    };
    // A limit that runs out ends the request as net.timeout.
    const limit = (ms: number, message: string, hint: string) =>
      timers.push(
        setTimeout(() => {
          req.destroy();
          done(new RtaError("net.timeout", message, hint));
        }, ms),
      );
    const options: RequestOptions = {
      method,
      host: address,
      port: url.port ? Number(url.port) : secure ? 443 : 80,
      path: `${url.pathname}${url.search}`,
      headers: {
        host: url.host,
        "user-agent": "rta",
        accept: "*/*",
        connection: "close",
        ...(target.body ? { "content-type": "application/json", "content-length": String(target.body.length) } : {}),
      },
      agent: false,
      ...(signal ? { signal } : {}),
    };
    if (secure) {
      const name = url.hostname.replace(/^\[|\]$/g, "");
      if (isIP(name) === 0) options.servername = name;
      if (target.ca) options.ca = [...rootCertificates, target.ca];
    }
    const req = (secure ? https : http).request(options, (res) => {
      headersAt = performance.now();
      // the headers came: their timer (and the connect one) stop, the body's starts
      for (const t of timers) clearTimeout(t);
      timers.length = 0;
      const socket = res.socket as TLSSocket | null;
      const tls =
        secure && socket
          ? { protocol: socket.getProtocol?.() ?? null, authorized: socket.authorized === true }
          : undefined;
      const chunks: Buffer[] = [];
      let kept = 0;
      let cut = false;
      limit(
        limits.bodyMs,
        `${url.host} sent its headers but not its body within ${limits.bodyMs} ms`,
        "ask again with a longer timeout, or for less",
      );
      res.on("data", (chunk: Buffer) => {
        if (cut) return;
        const room = limits.maxBody - kept;
        if (chunk.length > room) {
          chunks.push(chunk.subarray(0, room));
          kept += room;
          cut = true;
          req.destroy(); // the rest is not read
          finish();
          return;
        }
        chunks.push(chunk);
        kept += chunk.length;
      });
      const finish = () => {
        const length = Number(res.headers["content-length"]);
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers))
          if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(", ") : v;
        done(undefined, {
          status: res.statusCode ?? 0,
          headers,
          cookies: res.headers["set-cookie"] ?? [],
          body: Buffer.concat(chunks),
          cut,
          cutBytes: cut ? (Number.isFinite(length) ? length - kept : "unknown") : 0,
          timing: {
            connect_ms: Math.round(connectedAt - started),
            headers_ms: Math.round(headersAt - started),
            total_ms: Math.round(performance.now() - started),
          },
          ...(tls ? { tls } : {}),
        });
      };
      res.on("end", () => {
        if (!cut) finish();
      });
      res.on("error", (err) => {
        if (!cut) done(err);
      });
    });
    limit(
      limits.connectMs,
      `${url.host} (${address}) did not accept a connection within ${limits.connectMs} ms`,
      "check the host and port, or try again",
    );
    req.on("socket", (socket) => {
      socket.once(secure ? "secureConnect" : "connect", () => {
        connectedAt = performance.now();
        clearTimeout(timers.shift());
        limit(
          limits.headersMs,
          `${url.host} did not send its response headers within ${limits.headersMs} ms`,
          "ask again with a longer timeout",
        );
      });
    });
    req.on("error", (err: NodeJS.ErrnoException) => {
      const code = err.code ?? "";
      if (signal?.aborted) {
        done(
          new RtaError("core.call.cancelled", `the request to ${url.host} was cancelled`, "call again to start over"),
        );
        return;
      }
      if (code === "ECONNREFUSED" || code === "EHOSTUNREACH" || code === "ENETUNREACH" || code === "ECONNRESET") {
        done(
          new RtaError(
            "net.unreachable",
            `${url.host} (${address}) refused or dropped the connection (${code})`,
            "check the host and port",
          ),
        );
      } else if (/CERT|SSL|TLS|self.signed|verify/i.test(`${code} ${err.message}`)) {
        done(
          new RtaError(
            "net.tls",
            `the TLS handshake with ${url.host} failed: ${err.message}`,
            "cert.expiry says what is wrong with its certificate",
          ),
        );
      } else
        done(
          new RtaError(
            "net.unreachable",
            `${url.host} could not be reached: ${err.message}`,
            "check the host and port",
          ),
        );
    });
    req.end(target.body);
  });
}
