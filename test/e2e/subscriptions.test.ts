/**
 * End to end: resource subscriptions over stdio with the official client, on
 * both eras (resources/subscribe on 2025-11-25, a subscriptions/listen naming
 * the URIs on 2026-07-28). Each wait for a notification is bounded only by
 * the test's own time limit; none is timed.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { tempDir } from "../support/fixtures.ts";
import { type Connected, connect, type Era } from "../support/mcpClient.ts";
import { updates } from "../support/replicas.ts";
import { rta } from "../support/rta.ts";

/** Subscribes to `uris` as the era does; the listen (modern) is returned, to be closed. */
async function subscribe(era: Era, client: Client, uris: string[]) {
  if (era === "legacy") {
    for (const uri of uris) await client.subscribeResource({ uri });
    return undefined;
  }
  const listen = await client.listen({ resourceSubscriptions: uris });
  expect(listen.honoredFilter.resourceSubscriptions).toEqual(uris);
  // one request answered after the listen: its URIs' first reads were made before this answer was
  await client.listResources();
  return listen;
}

const open: Connected[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});

for (const era of ["legacy", "modern"] as Era[]) {
  describe(`subscriptions, ${era} era`, () => {
    test("the server says it takes subscriptions", async () => {
      const s = await connect(era, ["--agent", "claude"]);
      open.push(s);
      expect(s.client.getServerCapabilities()?.resources?.subscribe).toBe(true);
    });

    test("rta://grants is told of a grant issued, then revoked, in another process", async () => {
      const data = tempDir();
      const env = { RTA_DATA_DIR: data };
      const s = await connect(era, ["--agent", "claude"], { dataDir: data });
      open.push(s);
      const u = updates(s.client);
      await subscribe(era, s.client, ["rta://grants"]);
      const allowed = await rta(["grant", "allow", "fs.write", "--agent", "claude", "--ttl", "10m"], { env });
      expect(allowed.code).toBe(0);
      expect(await u.nth(1)).toBe("rta://grants");
      const read = await s.client.readResource({ uri: "rta://grants" });
      const body = JSON.parse((read.contents[0] as { text: string }).text);
      expect(body.grants.map((g: { capability: string }) => g.capability)).toEqual(["fs.write"]);
      // another agent's grant changes nothing this agent can read: it is not told
      await rta(["grant", "allow", "fs.write", "--agent", "someone-else", "--ttl", "10m"], { env });
      expect((await rta(["grant", "revoke", "--agent", "claude"], { env })).code).toBe(0);
      expect(await u.nth(2)).toBe("rta://grants");
      expect(u.told).toEqual(["rta://grants", "rta://grants"]);
    });

    test("a file read is told of an append, watched through the descriptor opened at subscribe", async () => {
      const root = tempDir();
      const file = join(root, "app\tlog.txt");
      writeFileSync(file, "one\n");
      const s = await connect(era, ["--agent", "claude", "--root", root]);
      open.push(s);
      const u = updates(s.client);
      const uri = `rta://fs/read/${encodeURIComponent("app\tlog.txt")}`;
      await subscribe(era, s.client, [uri]);
      appendFileSync(file, "two\n");
      expect(await u.nth(1)).toBe(uri);
      const read = await s.client.readResource({ uri });
      expect(JSON.stringify(read.contents)).toContain("two");
    });

    test("a walk of a directory is told of a file made below its top (read again on the polled pace)", async () => {
      const root = tempDir();
      mkdirSync(join(root, "d", "sub"), { recursive: true });
      const s = await connect(era, ["--agent", "claude", "--root", root]);
      open.push(s);
      const u = updates(s.client);
      await subscribe(era, s.client, ["rta://fs/find?path=d"]);
      // the directory d itself does not change: only what is below it
      writeFileSync(join(root, "d", "sub", "new.txt"), "x\n");
      expect(await u.nth(1)).toBe("rta://fs/find?path=d");
      const read = await s.client.readResource({ uri: "rta://fs/find?path=d" });
      expect((read.contents[0] as { text: string }).text).toContain("d/sub/new.txt");
    }, 30_000); // the poll's 5 s is past the default time limit; the wait is not timed

    test("a URI this server does not offer, or reads back as wrong, is refused as a read of it is", async () => {
      const s = await connect(era, ["--agent", "claude"]);
      open.push(s);
      for (const [uri, said] of [
        ["rta://nope", "no resource at rta://nope"],
        ["rta://fs/read/a.txt?x=1", '"x" is not a parameter of rta://fs/read/{path}'],
      ] as const) {
        const refused =
          era === "legacy"
            ? s.client.subscribeResource({ uri })
            : s.client.listen({ resourceSubscriptions: ["rta://grants", uri] });
        await expect(refused).rejects.toThrow(said);
      }
    });

    test("the 65th subscription of a connection is refused, with what to do", async () => {
      const root = tempDir();
      for (let i = 0; i <= 64; i++) writeFileSync(join(root, `f${i}.txt`), `${i}\n`);
      const s = await connect(era, ["--agent", "claude", "--root", root]);
      open.push(s);
      const uris = Array.from({ length: 64 }, (_, i) => `rta://fs/read/f${i}.txt`);
      await subscribe(era, s.client, uris);
      const past = "rta://fs/read/f64.txt";
      const refused =
        era === "legacy"
          ? s.client.subscribeResource({ uri: past })
          : s.client.listen({ resourceSubscriptions: [past] });
      await expect(refused).rejects.toThrow("a connection may hold at most 64 subscriptions");
      // one already held is no new subscription
      if (era === "legacy") await s.client.subscribeResource({ uri: uris[0] as string });
      else await (await s.client.listen({ resourceSubscriptions: [uris[0] as string] })).close();
    });

    test("a locked agent is told nothing while the lock holds; once it is lifted, what changed is told", async () => {
      const root = tempDir();
      const file = join(root, "notes.txt");
      writeFileSync(file, "one\n");
      const data = tempDir();
      const env = { RTA_DATA_DIR: data };
      const s = await connect(era, ["--agent", "claude", "--root", root], { dataDir: data });
      open.push(s);
      let lifted = false;
      const early: string[] = [];
      s.client.setNotificationHandler("notifications/resources/updated", async (n) => {
        if (!lifted) early.push(n.params.uri);
      });
      const u = updates(s.client);
      await subscribe(era, s.client, ["rta://grants", "rta://fs/read/notes.txt"]);
      expect((await rta(["lock", "--agent", "claude"], { env })).code).toBe(0);
      appendFileSync(file, "two\n");
      expect((await rta(["grant", "allow", "fs.write", "--agent", "claude", "--ttl", "10m"], { env })).code).toBe(0);
      // the watchers look every 250 ms: a spawn of rta takes longer, so each has met the lock before it is lifted
      await rta(["lock", "list"], { env });
      lifted = true;
      expect((await rta(["lock", "lift", "--agent", "claude"], { env })).code).toBe(0);
      // what changed under the lock is told after it, the file's on the 5 s pace a refused read is tried again at
      await u.nth(2);
      expect(early).toEqual([]);
      expect([...u.told].sort()).toEqual(["rta://fs/read/notes.txt", "rta://grants"]);
    }, 20_000);
  });
}

describe("listens, 2026-07-28 over stdio", () => {
  test("forty listens open hold no place among the requests served: calls are still answered", async () => {
    const s = await connect("modern", ["--agent", "claude"]);
    open.push(s);
    const listens = [];
    for (let i = 0; i < 40; i++) listens.push(await s.client.listen({ resourceSubscriptions: ["rta://grants"] }));
    const during = await s.client.callTool({ name: "sys_info", arguments: {} });
    expect(during.isError).toBeFalsy();
    for (const l of listens) await l.close();
    const after = await s.client.callTool({ name: "sys_info", arguments: {} });
    expect(after.isError).toBeFalsy();
  });
});
