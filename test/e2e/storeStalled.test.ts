/**
 * End to end: a PostgreSQL store that stops answering (a hung server, a network that drops packets) behind a proxy
 * the test freezes. The server waits on the store for every call, so once one request has waited out its time the
 * next ones are refused at once, still closed, instead of each holding the whole server up for seconds in turn.
 */
import { describe, expect, test } from "bun:test";
import { tempDir } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { pgServer } from "../support/pg.ts";
import { freezable } from "../support/storeProxy.ts";

const pg = await pgServer();

describe.skipIf(pg === null)("a shared store that stops answering", () => {
  test("refuses the calls after the first that waited out its time at once, and closed", {
    timeout: 90_000,
  }, async () => {
    const real = new URL(await (pg?.freshDb() as Promise<string>));
    const proxy = await freezable(real);
    const store = new URL(real);
    store.port = String(proxy.port);
    const data = tempDir();
    const s = await connect("legacy", ["--agent", "claude", "--root", data, "--store", store.toString()], {
      dataDir: data,
    });
    try {
      const call = async () =>
        resultJson(await s.client.callTool({ name: "sys_info", arguments: {} }, { timeout: 80_000 }));
      expect((await call()).type).toBe("object");
      proxy.freeze();
      const answers = await Promise.all([call(), call(), call()]);
      for (const a of answers) expect(a).toMatchObject({ type: "error", code: "core.store.unavailable" });
      // one waited; the others were told what it found, without waiting in turn
      expect(answers.filter((a) => String(a.message).includes("a moment ago")).length).toBe(2);
    } finally {
      await s.close();
      proxy.close();
    }
  });
});
