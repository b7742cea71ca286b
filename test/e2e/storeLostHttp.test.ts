/**
 * End to end: an HTTP server on a PostgreSQL store that goes away (the database restarts, the network between them
 * is cut) behind a proxy the test cuts. The token check asks the store, so a request then is answered as a replica
 * that cannot reach its store answers: 503 with Retry-After, which a load balancer retries elsewhere, and not 500
 * "internal error"; and /readyz says not ready.
 */
import { describe, expect, test } from "bun:test";
import { tempDir } from "../support/fixtures.ts";
import { startHttp } from "../support/httpServer.ts";
import { pgServer } from "../support/pg.ts";
import { rta } from "../support/rta.ts";
import { cuttable } from "../support/storeProxy.ts";

const pg = await pgServer();

describe.skipIf(pg === null)("an HTTP server whose shared store goes away", () => {
  test("answers a request 503 with Retry-After, not 500, and /readyz not ready", { timeout: 60_000 }, async () => {
    const real = new URL(await (pg?.freshDb() as Promise<string>));
    const proxy = await cuttable(real);
    const store = new URL(real);
    store.port = String(proxy.port);
    const srv = await startHttp(["--root", tempDir(), "--store", store.toString()]);
    try {
      const made = await rta(["mcp", "token", "new", "--agent", "claude", "--json", "--store", store.toString()], {
        env: srv.env,
      });
      const token = JSON.parse(made.stdout).token;
      expect((await srv.initialize(token)).status).toBe(200);
      proxy.cut();
      const res = await srv.initialize(token);
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).not.toBeNull();
      expect(await res.text()).toContain("cannot reach its store");
      expect((await fetch(srv.url.replace("/mcp", "/readyz"))).status).toBe(503);
    } finally {
      await srv.stop();
      proxy.close();
    }
  });
});
