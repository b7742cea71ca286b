/**
 * askOsv over a fake service: chunks of 1,000 distinct package@versions, a
 * paged result followed, each vulnerability fetched once and a few at a
 * time, a record osv.dev no longer has, a bad answer refused, and answers
 * given stale from the cache said.
 */
import { describe, expect, test } from "bun:test";
import {
  askOsv,
  depKey,
  MAX_DETAILS,
  MAX_PAGES,
  type OsvAnswer,
  type OsvService,
} from "../../../src/capabilities/audit/depsOsv.ts";
import type { Dep } from "../../../src/capabilities/audit/lockfiles/types.ts";
import { RtaError } from "../../../src/core/errors.ts";

const ok = (v: unknown, extra: Partial<OsvAnswer> = {}): OsvAnswer => ({
  status: 200,
  body: Buffer.from(JSON.stringify(v)),
  ...extra,
});

interface Fake extends OsvService {
  posts: { path: string; body: { queries?: unknown[]; page_token?: string } }[];
  gets: string[];
  most: number;
}

function fake(vulnsOf: (q: { package: { name: string } }) => string[], extra: Partial<OsvAnswer> = {}): Fake {
  let now = 0;
  const f: Fake = {
    posts: [],
    gets: [],
    most: 0,
    async post(path, body) {
      const b = body as { queries?: { package: { name: string } }[]; page_token?: string };
      f.posts.push({ path, body: b });
      if (path === "/v1/query") return ok({ vulns: [{ id: "PAGE-2" }] }, extra);
      const results = (b.queries ?? []).map((q) => {
        const ids = vulnsOf(q);
        const r: Record<string, unknown> = ids.length ? { vulns: ids.map((id) => ({ id, modified: "x" })) } : {};
        if (q.package.name === "paged") r.next_page_token = "t1";
        return r;
      });
      return ok({ results }, extra);
    },
    async get(path) {
      f.gets.push(path);
      f.most = Math.max(f.most, ++now);
      await Bun.sleep(1);
      now--;
      if (path.endsWith("/GONE")) return { status: 404, body: Buffer.from("{}") };
      return ok({ id: decodeURIComponent(path.split("/").pop() as string), summary: "s" }, extra);
    },
  };
  return f;
}

const npm = (name: string, version = "1.0.0"): Dep => ({ name, version, ecosystem: "npm" });

describe("askOsv", () => {
  test("2,500 distinct packages and their repeats: three batches, each package once", async () => {
    const deps = Array.from({ length: 2500 }, (_, i) => npm(`p${i}`));
    const f = fake(() => []);
    const a = await askOsv(f, [...deps, ...deps.slice(0, 100)]);
    expect(f.posts.map((p) => p.body.queries?.length)).toEqual([1000, 1000, 500]);
    expect(a.requests).toBe(3);
    expect(a.ids.size).toBe(0);
  });

  test("each id fetched once across packages, eight at a time at most; a 404 kept as unknown", async () => {
    const deps = Array.from({ length: 40 }, (_, i) => npm(`p${i}`));
    const f = fake((q) => [
      `V-${Number(q.package.name.slice(1)) % 20}`,
      "SHARED",
      ...(q.package.name === "p0" ? ["GONE"] : []),
    ]);
    const a = await askOsv(f, deps);
    expect(f.gets.length).toBe(22);
    expect(new Set(f.gets).size).toBe(22);
    expect(f.most).toBeLessThanOrEqual(8);
    expect(f.most).toBeGreaterThan(1);
    expect(a.vulns.get("GONE")).toBeUndefined();
    expect(a.vulns.has("GONE")).toBe(true);
    expect(a.ids.get(depKey(npm("p0")))).toEqual(["V-0", "SHARED", "GONE"]);
    expect(a.requests).toBe(1 + 22);
  });

  test("records asked for up to MAX_DETAILS in a call; the ids past it kept, and counted as unasked", async () => {
    const deps = Array.from({ length: 3 }, (_, i) => npm(`p${i}`));
    const f = fake((q) => Array.from({ length: 700 }, (_, j) => `${q.package.name}-${j}`));
    const a = await askOsv(f, deps);
    expect(f.gets.length).toBe(MAX_DETAILS);
    expect(a.unasked).toBe(2100 - MAX_DETAILS);
    expect(a.ids.get(depKey(npm("p2")))?.length).toBe(700);
    expect(a.requests).toBe(1 + MAX_DETAILS);
  });

  test("pages followed up to MAX_PAGES in a call, whatever the answers say; those left counted", async () => {
    const endless: OsvService = {
      post: async (path, body) =>
        path === "/v1/query"
          ? ok({ vulns: [], next_page_token: "again" })
          : ok({ results: (body as { queries: unknown[] }).queries.map(() => ({ next_page_token: "t" })) }),
      get: async () => ok({}),
    };
    const a = await askOsv(
      endless,
      Array.from({ length: 30 }, (_, i) => npm(`p${i}`)),
    );
    expect(a.requests).toBe(1 + MAX_PAGES);
    expect(a.unpaged).toBe(30);
  });

  test("a paged result is followed with /v1/query and its page token", async () => {
    const f = fake((q) => (q.package.name === "paged" ? ["PAGE-1"] : []));
    const a = await askOsv(f, [npm("paged"), npm("x")]);
    expect(f.posts[1]).toEqual({
      path: "/v1/query",
      body: { package: { name: "paged", ecosystem: "npm" }, version: "1.0.0", page_token: "t1" } as never,
    });
    expect(a.ids.get(depKey(npm("paged")))).toEqual(["PAGE-1", "PAGE-2"]);
  });

  test("an error status or a result count that does not match is refused offsite.answer.invalid", async () => {
    const down: OsvService = { post: async () => ({ status: 500, body: Buffer.from("") }), get: async () => ok({}) };
    const short: OsvService = { post: async () => ok({ results: [] }), get: async () => ok({}) };
    for (const s of [down, short]) {
      const err = await askOsv(s, [npm("a")]).catch((e) => e);
      expect(err).toBeInstanceOf(RtaError);
      expect((err as RtaError).code).toBe("offsite.answer.invalid");
    }
  });

  test("answers given stale from the cache: their age is kept", async () => {
    const f = fake((q) => (q.package.name === "a" ? ["V"] : []), { stale: true, ageMs: 3 * 86_400_000 });
    expect((await askOsv(f, [npm("a")])).staleMs).toBe(3 * 86_400_000);
    expect(
      (
        await askOsv(
          fake(() => []),
          [npm("a")],
        )
      ).staleMs,
    ).toBe(0);
  });
});
