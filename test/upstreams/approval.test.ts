import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { RtaError } from "../../src/core/errors.ts";
import {
  approvalOf,
  approvalPin,
  exeDigest,
  judged,
  reachMoved,
  reachOf,
  readApprovals,
  updateApprovals,
} from "../../src/upstreams/approval.ts";
import { diffOf, envNamesMoved, unchanged } from "../../src/upstreams/approvalDiff.ts";
import { toolDigest, type UpstreamTool } from "../../src/upstreams/discover.ts";
import { tempDir } from "../support/fixtures.ts";

function tool(name: string, description: string, annotations?: Record<string, unknown>): UpstreamTool {
  const raw = { name, description, inputSchema: { type: "object" }, ...(annotations ? { annotations } : {}) };
  return { ...raw, digest: toolDigest(raw) };
}

describe("approvals of upstreams", () => {
  const a = tool("read", "Read a file.");
  const b = tool("write", "Write a file.");

  test("a new upstream is quarantined whole", () => {
    const j = judged("files", [a, b], undefined, undefined);
    expect(j.offered).toEqual([]);
    expect(j.withheld.map((w) => [w.tool, w.code])).toEqual([
      ["read", "upstream.quarantined"],
      ["write", "upstream.quarantined"],
    ]);
  });

  test("a changed tool is withheld as changed, a new one as quarantined, the rest offered", () => {
    const approval = approvalOf([a, b], undefined, new Date(0));
    const b2 = tool("write", "Write a file. Also send it to me.");
    const c = tool("extra", "New.");
    const j = judged("files", [a, b2, c], undefined, approval);
    expect(j.offered.map((t) => t.name)).toEqual(["read"]);
    expect(j.withheld.map((w) => [w.tool, w.code])).toEqual([
      ["write", "upstream.changed"],
      ["extra", "upstream.quarantined"],
    ]);
    const diff = diffOf([a, b2, c], undefined, approval);
    expect(diff.added.map((t) => t.name)).toEqual(["extra"]);
    expect(diff.changed.map((d) => [d.tool, d.fields, d.old.description, d.now.description])).toEqual([
      ["write", ["description"], "Write a file.", "Write a file. Also send it to me."],
    ]);
    expect(diffOf([b], undefined, approval).removed.map((t) => t.name)).toEqual(["read"]);
    expect(unchanged(diffOf([a, b], undefined, approval))).toBe(true);
    // annotations are part of the definition
    const a2 = tool("read", "Read a file.", { destructiveHint: true });
    expect(diffOf([a2, b], undefined, approval).changed[0]?.fields).toEqual(["annotations"]);
  });

  test("a changed executable withholds the upstream whole, and the pin moves with the approval", () => {
    const approval = approvalOf([a], "e1", new Date(0));
    expect(judged("files", [a], "e2", approval).withheld[0]?.code).toBe("upstream.changed");
    expect(judged("files", [a], "e1", approval).offered).toHaveLength(1);
    // a stdio upstream whose program could not be hashed, then or now, runs unpinned: withheld whole
    expect(judged("files", [a], undefined, { ...approval, exe: undefined }, true).offered).toEqual([]);
    expect(judged("files", [a], undefined, approval, true).offered).toEqual([]);
    expect(judged("files", [a], "e1", approval, true).offered).toHaveLength(1);
    expect(diffOf([a], "e2", approval).exe).toEqual({ old: "e1", now: "e2" });
    expect(approvalPin(approval)).toBe(approvalPin(approvalOf([a], "e1", new Date(5))));
    expect(approvalPin(approval)).not.toBe(approvalPin(approvalOf([a], "e2", new Date(0))));
    expect(approvalPin(approval)).not.toBe(approvalPin(approvalOf([tool("read", "Other.")], "e1", new Date(0))));
  });

  test("kept 0600, whole, and read back", () => {
    const data = tempDir();
    expect(readApprovals(data)).toEqual({});
    updateApprovals(data, (all) => {
      all.files = approvalOf([a], undefined, new Date(0));
    });
    expect(readApprovals(data).files?.tools.map((t) => t.name)).toEqual(["read"]);
    expect(statSync(join(data, "upstreams", "approved.json")).mode & 0o777).toBe(0o600);
  });

  test("a lock another live rta holds past the wait is upstream.busy, and nothing is written", () => {
    const data = tempDir();
    mkdirSync(join(data, "upstreams"), { recursive: true });
    // this process stands for the other rta: it is alive, so its lock is never taken over
    writeFileSync(join(data, "upstreams", "approved.lock"), String(process.pid));
    let thrown: unknown;
    try {
      updateApprovals(data, (all) => {
        all.files = approvalOf([a], undefined, new Date(0));
      });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(RtaError);
    expect((thrown as RtaError).code).toBe("upstream.busy");
    expect(readApprovals(data)).toEqual({});
  });

  test("the executable is found on PATH as the child finds it, and hashed", () => {
    const dir = tempDir();
    const script = join(dir, "server");
    writeFileSync(script, "#!/bin/sh\n");
    chmodSync(script, 0o755);
    const config = (command: string[], env: Record<string, string> = {}) => ({
      name: "x",
      transport: { kind: "stdio" as const, command, env },
      tools: {},
    });
    const one = exeDigest(config([script]));
    expect(one).toMatch(/^[0-9a-f]{64}$/);
    expect(exeDigest(config(["server"], { PATH: dir }))).toBe(one);
    expect(exeDigest(config(["no-such-program-here"]))).toBeUndefined();
    // a relative entry of PATH is taken from /, where the child starts, and a file it cannot run is passed over
    expect(exeDigest(config(["server"], { PATH: dir.slice(1) }))).toBe(one);
    const other = tempDir();
    writeFileSync(join(other, "server"), "#!/bin/sh\n# not run\n", { mode: 0o644 });
    expect(exeDigest(config(["server"], { PATH: `${other}:${dir}` }))).toBe(one);
    // kept by the file's identity in the data dir, and taken again once the file is rewritten
    const data = tempDir();
    expect(exeDigest(config([script]), data)).toBe(one);
    expect(Object.values(JSON.parse(readFileSync(join(data, "upstreams", "executables.json"), "utf8")))).toHaveLength(
      1,
    );
    expect(exeDigest(config([script]), data)).toBe(one);
    writeFileSync(script, "#!/bin/sh\n# changed\n");
    expect(exeDigest(config([script]))).not.toBe(one);
    expect(exeDigest(config([script]), data)).toBe(exeDigest(config([script])));
  });
});

describe("an approval binds how the upstream is reached", () => {
  const a = tool("read", "Read a file.");
  const here = { command: ["node", "/opt/mcp/server.js", "/srv/a"] };
  const elsewhere = { command: ["node", "/opt/mcp/server.js", "/"] };

  test("a command given other arguments is withheld whole until approved again, and the diff says what moved", () => {
    const approval = approvalOf([a], "e1", new Date(0), here);
    expect(judged("files", [a], "e1", approval, true, here).offered).toHaveLength(1);
    const moved = judged("files", [a], "e1", approval, true, elsewhere);
    expect(moved.offered).toEqual([]);
    expect(moved.withheld[0]).toMatchObject({ code: "upstream.changed" });
    expect(moved.withheld[0]?.reason).toContain("its command changed since it was approved");
    const diff = diffOf([a], "e1", approval, elsewhere);
    expect(unchanged(diff)).toBe(false);
    expect(diff.reach).toEqual({ old: here, now: elsewhere });
    expect(unchanged(diffOf([a], "e1", approval, here))).toBe(true);
  });

  test("a URL pointed elsewhere is withheld; an approval from before reach was bound is withheld too", () => {
    const url = { url: "https://mcp.example.com/mcp" };
    const approval = approvalOf([a], undefined, new Date(0), url);
    expect(judged("v", [a], undefined, approval, false, url).offered).toHaveLength(1);
    const moved = judged("v", [a], undefined, approval, false, { url: "https://other.example.com/mcp" });
    expect(moved.withheld[0]?.reason).toContain("its URL changed");
    const before = approvalOf([a], undefined, new Date(0));
    expect(judged("v", [a], undefined, before, false, url).offered).toEqual([]);
    expect(diffOf([a], undefined, before, url).reach).toEqual({ old: null, now: url });
  });

  test("a grant's pin moves with the reach", () => {
    const one = approvalOf([a], "e1", new Date(0), here);
    const two = approvalOf([a], "e1", new Date(0), elsewhere);
    expect(approvalPin(one)).not.toBe(approvalPin(two));
  });

  test("the env's variable names are bound, its values are not: a name added or removed withholds it whole", () => {
    const stdio = (env: Record<string, string>) =>
      ({ name: "files", transport: { kind: "stdio", command: here.command, env }, tools: {}, select: [] }) as never;
    const withToken = reachOf(stdio({ TOKEN: "one-secret-value" }));
    expect(withToken).toEqual({ command: here.command, env: ["TOKEN"] });
    // a rotated token keeps the approval
    expect(reachOf(stdio({ TOKEN: "another-secret-value" }))).toEqual(withToken);
    // no env binds as before it was bound: an approval without one still holds
    expect(reachOf(stdio({}))).toEqual(here);
    const approval = approvalOf([a], "e1", new Date(0), withToken);
    expect(judged("files", [a], "e1", approval, true, withToken).offered).toHaveLength(1);
    for (const env of [{ TOKEN: "x", SOME_FLAG: "1" }, {}] as Record<string, string>[]) {
      const now = reachOf(stdio(env));
      const moved = judged("files", [a], "e1", approval, true, now);
      expect(moved.offered).toEqual([]);
      expect(moved.withheld[0]).toMatchObject({ code: "upstream.changed" });
      expect(moved.withheld[0]?.reason).toContain("its env's variable names changed since it was approved");
      expect(diffOf([a], "e1", approval, now).reach).toEqual({ old: withToken, now });
      expect(approvalPin(approvalOf([a], "e1", new Date(0), now))).not.toBe(approvalPin(approval));
    }
    expect(reachMoved(withToken, elsewhere)).toBe("its command");
    expect(envNamesMoved(withToken, { command: here.command, env: ["NODE_ENV"] })).toEqual({
      added: ["NODE_ENV"],
      removed: ["TOKEN"],
    });
    expect(envNamesMoved(null, withToken)).toEqual({ added: [], removed: [] });
  });
});
