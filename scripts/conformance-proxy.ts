/**
 * For the conformance run only: a forwarding proxy that adds the
 * Authorization header the suite cannot send, and passes everything else
 * through unchanged, Host and Origin included. rta itself never serves HTTP
 * without a token.
 *
 *   bun scripts/conformance-proxy.ts <listen-port> <upstream-origin> <token>
 */
const [listen, upstream, token] = process.argv.slice(2) as [string, string, string];

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: Number(listen),
  async fetch(req) {
    const url = new URL(req.url);
    const headers = new Headers(req.headers);
    headers.set("authorization", `Bearer ${token}`);
    const body = req.method === "GET" || req.method === "HEAD" ? undefined : await req.arrayBuffer();
    const res = await fetch(`${upstream}${url.pathname}${url.search}`, {
      method: req.method,
      headers,
      ...(body !== undefined ? { body } : {}),
      redirect: "manual",
      decompress: false,
    } as RequestInit);
    return new Response(res.body, { status: res.status, headers: res.headers });
  },
});
process.stdout.write(`${server.port}\n`);
