/**
 * End to end: reads as resource templates and completion, over stdio with the
 * official client, on both eras. A template read is the tool call, through
 * the same pipeline: same answer, same refusals, on the record as a resource
 * read.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ProtocolError } from "@modelcontextprotocol/client";
import { tempDir } from "../support/fixtures.ts";
import { type Connected, connect, type Era, resultJson } from "../support/mcpClient.ts";
import { rta } from "../support/rta.ts";

/** The error a promise is rejected with. */
async function refusal(p: Promise<unknown>): Promise<ProtocolError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(ProtocolError);
    return e as ProtocolError;
  }
  throw new Error("expected a refusal");
}

function textOf(read: { contents: unknown[] }): { text: string; mimeType?: string; uri: string } {
  expect(read.contents.length).toBe(1);
  return read.contents[0] as { text: string; mimeType?: string; uri: string };
}

for (const era of ["legacy", "modern"] as Era[]) {
  describe(`reads as templates, ${era} era`, () => {
    let s: Connected;
    const work = tempDir();
    // rta's own data dir, inside the root: withheld from every listing and completion
    const data = join(work, "rta-state");
    const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: tempDir() };
    beforeAll(async () => {
      mkdirSync(data);
      mkdirSync(join(work, "docs"));
      writeFileSync(join(work, "notes.txt"), "one\ntwo\nthree\nfour\n");
      writeFileSync(join(work, "notes two.md"), "# title\n");
      writeFileSync(join(work, "docs", "guide.md"), "guide\n");
      writeFileSync(join(work, "na\tme\x1b[31m.txt"), "odd\n");
      writeFileSync(join(work, ".hidden"), "h\n");
      s = await connect(era, ["--agent", "claude", "--root", work], { dataDir: data, env });
    });
    afterAll(async () => {
      await s.close();
    });

    test("each read with inputs is a template: required in the path, optional in the query, in name order", async () => {
      const { resourceTemplates } = await s.client.listResourceTemplates();
      const uris = resourceTemplates.map((t) => t.uriTemplate);
      expect(uris).toContain("rta://fs/read/{path}{?from_line,length,lines,offset}");
      expect(uris).toContain("rta://net/port/{host}/{ports}{?timeout_ms}");
      expect(uris).toContain("rta://fs/list{?hidden,path}");
      expect(uris[0]).toBe("rta://capability/{name}");
      // nothing above read, and no read with no inputs (that is a plain resource)
      expect(uris.some((u) => /^rta:\/\/fs\/(write|rm|mkdir)/.test(u))).toBe(false);
      expect(uris).not.toContain("rta://sys/info");
      const read = resourceTemplates.find((t) => t.name === "fs_read");
      expect(read?.mimeType).toBe("text/plain");
      expect(resourceTemplates.find((t) => t.name === "fs_stat")?.mimeType).toBe("application/json");
      const { resources } = await s.client.listResources();
      const plain = resources.map((r) => r.uri);
      expect(plain[0]).toBe("rta://grants");
      for (const u of ["rta://sys/info", "rta://fs/list", "rta://proc/list"]) expect(plain).toContain(u);
      expect(plain).not.toContain("rta://fs/read");
    });

    test("a template read answers what the tool call with the same arguments answers", async () => {
      const viaTool = resultJson(
        await s.client.callTool({ name: "fs_read", arguments: { path: "notes.txt", from_line: 2, lines: 2 } }),
      );
      const read = textOf(await s.client.readResource({ uri: "rta://fs/read/notes.txt?from_line=2&lines=2" }));
      expect(read.mimeType).toBe("text/plain");
      expect(read.uri).toBe("rta://fs/read/notes.txt?from_line=2&lines=2");
      expect(read.text).toBe(viaTool.text as string);
      expect(read.text).toStartWith("two\nthree\n");
      const whole = textOf(await s.client.readResource({ uri: "rta://fs/read/notes.txt" }));
      expect(whole.text).toBe("one\ntwo\nthree\nfour\n");

      // a path percent-encoded into one segment, with a space
      const stat = textOf(await s.client.readResource({ uri: `rta://fs/stat/${encodeURIComponent("notes two.md")}` }));
      const statTool = await s.client.callTool({ name: "fs_stat", arguments: { path: "notes two.md" } });
      expect(stat.mimeType).toBe("application/json");
      expect(stat.text).toBe((statTool.content as { text: string }[])[0]?.text as string);
      const nested = textOf(await s.client.readResource({ uri: "rta://fs/read/docs%2Fguide.md" }));
      expect(nested.text).toBe("guide\n");

      // a read whose inputs are all optional, as its plain resource and with a query
      const listed = textOf(await s.client.readResource({ uri: "rta://fs/list?hidden=true" }));
      const listTool = await s.client.callTool({ name: "fs_list", arguments: { hidden: true } });
      expect(listed.text).toBe((listTool.content as { text: string }[])[0]?.text as string);
      expect(listed.text).toContain(".hidden");
      expect(listed.text).not.toContain("rta-state");
      const plain = textOf(await s.client.readResource({ uri: "rta://fs/list" }));
      expect(plain.text).not.toContain(".hidden");
    });

    test("strict parsing: an unknown, repeated or valueless parameter, a wrong segment count, over 2 KiB", async () => {
      const unknown = await refusal(s.client.readResource({ uri: "rta://fs/read/notes.txt?line=2" }));
      expect(unknown.code).toBe(-32602);
      expect(unknown.message).toContain(
        '"line" is not a parameter of rta://fs/read/{path}{?from_line,length,lines,offset}',
      );
      const repeated = await refusal(s.client.readResource({ uri: "rta://fs/read/notes.txt?lines=1&lines=2" }));
      expect(repeated.code).toBe(-32602);
      expect(repeated.message).toContain("lines is given more than once");
      const noValue = await refusal(s.client.readResource({ uri: "rta://fs/read/notes.txt?lines" }));
      expect(noValue.message).toContain("lines has no value");
      const segments = await refusal(s.client.readResource({ uri: "rta://fs/read/docs/guide.md" }));
      expect(segments.code).toBe(-32602);
      expect(segments.message).toContain("takes 1 path segment after rta://fs/read, this URI has 2");
      const none = await refusal(s.client.readResource({ uri: "rta://net/port/127.0.0.1" }));
      expect(none.message).toContain("takes 2 path segments");
      const inPath = await refusal(s.client.readResource({ uri: "rta://fs/read/notes.txt?path=x" }));
      expect(inPath.message).toContain("is a path segment of");
      const long = await refusal(s.client.readResource({ uri: `rta://fs/read/${"a".repeat(2100)}` }));
      expect(long.code).toBe(-32602);
      expect(long.message).toContain("over 2048");
      expect(long.message.length).toBeLessThan(200);
      // exactly 2048 bytes is read: ./ after ./ to the file, each percent-encoded
      const head = "rta://fs/read/";
      const steps = ".%2F".repeat((2048 - head.length - "notes.txt".length) / 4);
      const edge = `${head}${".".repeat((2048 - head.length - "notes.txt".length) % 4)}${steps}notes.txt`;
      expect(Buffer.byteLength(edge)).toBe(2048);
      const atEdge = await s.client.readResource({ uri: edge }).catch((e: Error) => e);
      expect(String(atEdge instanceof Error ? atEdge.message : "read")).not.toContain("over 2048");
    });

    test("typed conversion from the schema: -32602 with a message per field", async () => {
      const bad = await refusal(s.client.readResource({ uri: "rta://fs/read/notes.txt?from_line=two&lines=1.5" }));
      expect(bad.code).toBe(-32602);
      expect(bad.data).toMatchObject({
        fields: { from_line: '"two" is not an integer', lines: '"1.5" is not an integer' },
      });
      const flag = await refusal(s.client.readResource({ uri: "rta://fs/list?hidden=yes" }));
      expect(flag.message).toContain('hidden: "yes" is not true or false');
      const option = await refusal(s.client.readResource({ uri: "rta://proc/list?sort=colour" }));
      expect(option.message).toContain("sort:");
      // a value the declaration refuses is the pipeline's refusal, with its code
      const range = await refusal(s.client.readResource({ uri: "rta://fs/read/notes.txt?lines=0" }));
      expect(range.code).toBe(-32602);
      expect((range.data as { code: string }).code).toBe("core.input.range");
    });

    test("a destination read is refused without a grant, and the record says it came as a resource read", async () => {
      const refused = await refusal(s.client.readResource({ uri: "rta://http/head/http%3A%2F%2F127.0.0.1%3A9%2F" }));
      expect((refused.data as { code: string }).code).toBe("core.grant.required");
      expect((refused.data as { hint: string }).hint).toContain("rta grant allow http.head");
      const log = await rta(["agent", "log", "--agent", "claude", "--json"], { env });
      const lines = JSON.parse(log.stdout) as { capability: string; outcome: string; via?: string }[];
      const asRead = lines.filter((l) => l.via === "resource");
      expect(asRead.some((l) => l.capability === "http_head" && l.outcome === "core.grant.required")).toBe(true);
      expect(asRead.some((l) => l.capability === "fs_read" && l.outcome === "ok")).toBe(true);
      // a tools/call is not marked
      expect(lines.some((l) => l.capability === "fs_read" && l.via === undefined)).toBe(true);
      expect((await rta(["agent", "log", "--verify"], { env })).code).toBe(0);
    });

    test("completion: an enum, a boolean, and a path within the roots with withheld names absent", async () => {
      const sort = await s.client.complete({
        ref: { type: "ref/resource", uri: "rta://proc/list{?limit,sort}" },
        argument: { name: "sort", value: "" },
      });
      expect(sort.completion.values.length).toBeGreaterThan(1);
      const one = sort.completion.values[0] as string;
      const typed = await s.client.complete({
        ref: { type: "ref/resource", uri: "rta://proc/list{?limit,sort}" },
        argument: { name: "sort", value: one.slice(0, 2) },
      });
      expect(typed.completion.values.every((v) => v.startsWith(one.slice(0, 2)))).toBe(true);
      const hidden = await s.client.complete({
        ref: { type: "ref/resource", uri: "rta://fs/list{?hidden,path}" },
        argument: { name: "hidden", value: "" },
      });
      expect(hidden.completion.values).toEqual(["false", "true"]);
      const path = await s.client.complete({
        ref: { type: "ref/resource", uri: "rta://fs/read/{path}{?from_line,length,lines,offset}" },
        argument: { name: "path", value: "" },
      });
      expect(path.completion.values).toEqual(["docs/", "na\tme\x1b[31m.txt", "notes two.md", "notes.txt"]);
      expect(path.completion.values.join()).not.toContain("rta-state");
      const withheld = await s.client.complete({
        ref: { type: "ref/resource", uri: "rta://fs/read/{path}{?from_line,length,lines,offset}" },
        argument: { name: "path", value: "rta" },
      });
      expect(withheld.completion.values).toEqual([]);
      const inside = await s.client.complete({
        ref: { type: "ref/resource", uri: "rta://fs/read/{path}{?from_line,length,lines,offset}" },
        argument: { name: "path", value: "rta-state/" },
      });
      expect(inside.completion.values).toEqual([]);
      const sub = await s.client.complete({
        ref: { type: "ref/resource", uri: "rta://fs/read/{path}{?from_line,length,lines,offset}" },
        argument: { name: "path", value: "docs/g" },
      });
      expect(sub.completion.values).toEqual(["docs/guide.md"]);
      const dot = await s.client.complete({
        ref: { type: "ref/resource", uri: "rta://fs/read/{path}{?from_line,length,lines,offset}" },
        argument: { name: "path", value: "." },
      });
      expect(dot.completion.values).toEqual([".hidden"]);
      // outside the roots: nothing, not a listing of /
      const outside = await s.client.complete({
        ref: { type: "ref/resource", uri: "rta://fs/read/{path}{?from_line,length,lines,offset}" },
        argument: { name: "path", value: "/e" },
      });
      expect(outside.completion.values).toEqual([]);
      const prompt = await s.client.complete({
        ref: { type: "ref/prompt", name: "site_check" },
        argument: { name: "host", value: "ex" },
      });
      expect(prompt.completion.values).toEqual([]);
    });

    test("a locked agent's resource read is refused, free read or not, until the lock is lifted", async () => {
      expect((await rta(["lock", "--agent", "claude"], { env })).code).toBe(0);
      try {
        const locked = await refusal(s.client.readResource({ uri: "rta://fs/read/notes.txt" }));
        expect(locked.code).toBe(-32600);
        expect((locked.data as { code: string }).code).toBe("core.lock.locked");
        const plain = await refusal(s.client.readResource({ uri: "rta://sys/info" }));
        expect((plain.data as { code: string }).code).toBe("core.lock.locked");
      } finally {
        await rta(["lock", "lift", "--agent", "claude"], { env });
      }
      expect(textOf(await s.client.readResource({ uri: "rta://fs/read/notes.txt" })).text).toContain("one");
    });
  });
}
