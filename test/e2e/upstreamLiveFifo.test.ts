/**
 * End to end: a running server reads the approvals' and discoveries' files
 * again as they change, and the executables' digests on each call. A FIFO
 * put at one of their names is not opened (it would hold the server for a
 * writer that never comes): the server answers on, as if the file were gone.
 */
import { afterAll, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { renameSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { rta } from "../support/rta.ts";
import { approveUpstream } from "../upstreams/approved.ts";
import { startFixture } from "../upstreams/fixtureServer.ts";

const vendor = startFixture();
afterAll(() => vendor.stop());

/** Puts a FIFO at `file`, in one rename, as a file changed under a running server is. */
function fifoAt(file: string): void {
  execFileSync("mkfifo", [`${file}.fifo`]);
  renameSync(`${file}.fifo`, file);
}

test("a FIFO at the approvals', discoveries' or digests' name leaves a running server answering", async () => {
  const data = tempDir();
  const config = tempDir();
  const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config, HOME: data };
  const add = ["upstream", "add", "vendor", "--url", vendor.url, "--header", `Authorization: Bearer ${vendor.token}`];
  expect((await rta(add, { env })).code).toBe(0);
  await approveUpstream(env, "vendor");
  const server = await connect("legacy", [], { dataDir: data, env });
  // a list paged while the server takes up a change is refused from its second page on: listed again from the start
  const names = async (): Promise<string[]> => {
    for (;;) {
      try {
        return (await server.client.listTools()).tools.map((t) => t.name).filter((n) => n.startsWith("vendor_"));
      } catch (err) {
        if (!String(err).includes("list again from the start")) throw err;
      }
    }
  };
  try {
    expect(await names()).toContain("vendor_echo");
    fifoAt(join(data, "upstreams", "discovered.json"));
    fifoAt(join(data, "upstreams", "executables.json"));
    const echoed = resultJson(await server.client.callTool({ name: "vendor_echo", arguments: { text: "on" } }));
    expect(JSON.stringify(echoed)).toContain("on");
    // approvals that cannot be read are none: the upstream is withheld, and the server says so at once
    fifoAt(join(data, "upstreams", "approved.json"));
    let listed = await names();
    while (listed.length > 0) listed = await names();
    expect(listed).toEqual([]);
    const held = resultJson(await server.client.callTool({ name: "vendor_echo", arguments: { text: "x" } }));
    expect(held).toMatchObject({ code: "upstream.quarantined" });
  } finally {
    await server.close();
  }
}, 60_000);
