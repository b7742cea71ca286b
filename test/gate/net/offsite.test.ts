import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Args, Capability } from "../../../src/core/capability.ts";
import { define } from "../../../src/core/capability.ts";
import { RtaError } from "../../../src/core/errors.ts";
import { offsiteFor } from "../../../src/gate/net/offsite.ts";
import { cacheKey, OffsiteCache } from "../../../src/gate/net/offsiteCache.ts";
import { tempDir } from "../../support/fixtures.ts";
import { startStandIn } from "../../support/standIn.ts";

const DAY = 24 * 60 * 60 * 1000;

const cap = define({
  name: "test.offsite",
  summary: "asks a stand-in",
  safety: "read",
  offsite: "stand-in.example",
  inputs: {
    api_url: { type: "string", description: "base", operatorOnly: true, default: "https://stand-in.example" },
    product: { type: "string", description: "a product" },
  },
  result: { shape: "object" },
  examples: [],
  run: async () => ({ type: "object", value: {} }) as never,
}) as unknown as Capability;

const standIn = startStandIn({
  "/api/v1/products": { result: [{ name: "node" }] },
  "POST /v1/querybatch": (_req, body) => Response.json({ echoed: JSON.parse(body) }),
  "/hop": () => new Response(null, { status: 302, headers: { location: "/api/v1/products" } }),
  "/away": () => new Response(null, { status: 302, headers: { location: "http://127.0.0.2:9/x" } }),
  "/big": () => new Response("x".repeat(5000)),
});
afterAll(() => standIn.stop());

function client(args: Args, now: { t: number }, dataDir = tempDir(), signal = new AbortController().signal) {
  const offsite = offsiteFor(cap, args, { dataDir, clock: { now: () => now.t }, signal });
  return { offsite, dataDir };
}

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    return err instanceof RtaError ? err.code : String(err);
  }
  return "none";
}

async function refusalOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return err instanceof RtaError ? err.code : String(err);
  }
  return "none";
}

describe("offsite client", () => {
  test("asks only a base that is an operator-only value of the call", () => {
    const now = { t: 1_700_000_000_000 };
    const { offsite } = client({ api_url: standIn.url, product: "http://evil.example" }, now);
    expect(refusal(() => offsite(standIn.url))).toBe("none");
    // an agent's own input is never a base, nor is any URL the capability makes up
    expect(refusal(() => offsite("http://evil.example"))).toBe("offsite.url");
    expect(refusal(() => offsite("https://stand-in.example"))).toBe("offsite.url");
    const noService = offsiteFor(
      { ...cap, offsite: undefined },
      { api_url: standIn.url },
      {
        dataDir: tempDir(),
        clock: { now: () => 0 },
        signal: new AbortController().signal,
      },
    );
    expect(refusal(() => noService(standIn.url))).toBe("offsite.url");
    for (const bad of ["ftp://h/x", "http://u:p@127.0.0.1/", "http://127.0.0.1/?q=1", "not a url"]) {
      const c = client({ api_url: bad }, now).offsite;
      expect(refusal(() => c(bad))).toBe("offsite.url");
    }
  });

  test("a GET is kept a day in a 0600 file, its age known, then asked again", async () => {
    const now = { t: 1_700_000_000_000 };
    const { offsite, dataDir } = client({ api_url: `${standIn.url}/` }, now);
    const c = offsite(`${standIn.url}/`);
    const before = standIn.asked.length;
    const first = await c.get("/api/v1/products");
    expect(first.status).toBe(200);
    expect(JSON.parse(first.body.toString())).toEqual({ result: [{ name: "node" }] });
    expect(first).toMatchObject({ cached: false, stale: false, ageMs: 0, fetchedAt: now.t });
    now.t += 3_600_000;
    const second = await c.get("api/v1/products");
    expect(second).toMatchObject({ cached: true, stale: false, ageMs: 3_600_000 });
    expect(standIn.asked.length).toBe(before + 1);
    const dir = join(dataDir, "cache", "offsite");
    const files = readdirSync(dir);
    expect(files).toHaveLength(1);
    expect(statSync(join(dir, files[0] as string)).mode & 0o777).toBe(0o600);
    now.t += DAY;
    expect((await c.get("/api/v1/products")).cached).toBe(false);
    expect(standIn.asked.length).toBe(before + 2);
  });

  test("a POST sends its JSON body, and the cache is keyed by it", async () => {
    const now = { t: 1_700_000_000_000 };
    const c = client({ api_url: standIn.url }, now).offsite(standIn.url);
    const a = await c.post("/v1/querybatch", { queries: [1] });
    expect(JSON.parse(a.body.toString())).toEqual({ echoed: { queries: [1] } });
    const b = await c.post("/v1/querybatch", { queries: [2] });
    expect(JSON.parse(b.body.toString())).toEqual({ echoed: { queries: [2] } });
    expect((await c.post("/v1/querybatch", { queries: [1] })).cached).toBe(true);
    const sent = standIn.asked.filter((q) => q.method === "POST").map((q) => q.body);
    expect(sent).toEqual(['{"queries":[1]}', '{"queries":[2]}']);
  });

  test("a redirect on the base's origin is followed, one off it is refused", async () => {
    const now = { t: 1 };
    const c = client({ api_url: standIn.url }, now).offsite(standIn.url);
    expect(JSON.parse((await c.get("/hop", { cacheMs: 0 })).body.toString())).toEqual({ result: [{ name: "node" }] });
    expect(await refusalOf(c.get("/away"))).toBe("offsite.redirect");
  });

  test("a path cannot leave the base's origin", async () => {
    const c = client({ api_url: standIn.url }, { t: 1 }).offsite(standIn.url);
    expect(await refusalOf(c.get("//127.0.0.2/x"))).toBe("none");
    expect(standIn.asked.at(-1)?.path).toBe("/127.0.0.2/x");
  });

  test("an answer past the size is refused, not cut", async () => {
    const c = client({ api_url: standIn.url }, { t: 1 }).offsite(standIn.url);
    expect(await refusalOf(c.get("/big", { maxBody: 4096 }))).toBe("offsite.answer.toolarge");
    expect((await c.get("/big", { maxBody: 5000 })).body.length).toBe(5000);
  });

  test("a service that cannot be reached is offsite.unreachable, or the stale answer when one is kept", async () => {
    const down = startStandIn({ "/p": { ok: true } });
    const now = { t: 1_700_000_000_000 };
    const { offsite } = client({ api_url: down.url }, now);
    const c = offsite(down.url);
    await c.get("/p");
    await down.stop();
    expect(await refusalOf(c.get("/other"))).toBe("offsite.unreachable");
    now.t += 2 * DAY;
    const stale = await c.get("/p");
    expect(stale).toMatchObject({ cached: true, stale: true, ageMs: 2 * DAY });
    try {
      await c.get("/other");
    } catch (err) {
      expect((err as RtaError).message).toContain("stand-in.example could not be reached");
      expect((err as RtaError).hint).toContain("offline");
    }
  });

  test("a cancelled call asks nothing", async () => {
    const ac = new AbortController();
    ac.abort();
    const c = client({ api_url: standIn.url }, { t: 1 }, tempDir(), ac.signal).offsite(standIn.url);
    const before = standIn.asked.length;
    expect(await refusalOf(c.get("/api/v1/products", { cacheMs: 0 }))).toBe("core.call.cancelled");
    expect(standIn.asked.length).toBe(before);
  });
});

describe("the offsite cache", () => {
  test("a FIFO, a link or a file larger than it writes, in an answer's place, is no answer, and nothing waits", () => {
    const dataDir = tempDir();
    const cache = new OffsiteCache(dataDir, 8000);
    const dir = join(dataDir, "cache", "offsite");
    mkdirSync(dir, { recursive: true });
    const kept = (url: string) =>
      JSON.stringify({ url, status: 200, fetchedAt: 1, body: Buffer.from("planted").toString("base64") });
    const at = (url: string) => join(dir, `${cacheKey("GET", url, undefined)}.json`);
    expect(Bun.spawnSync(["mkfifo", at("fifo")]).exitCode).toBe(0);
    writeFileSync(join(dataDir, "elsewhere.json"), kept("link"));
    symlinkSync(join(dataDir, "elsewhere.json"), at("link"));
    writeFileSync(at("huge"), kept("huge").padEnd(2001, " "));
    writeFileSync(at("plain"), kept("plain"));
    expect(cache.read(cacheKey("GET", "fifo", undefined), "fifo")).toBeUndefined();
    expect(cache.read(cacheKey("GET", "link", undefined), "link")).toBeUndefined();
    expect(cache.read(cacheKey("GET", "huge", undefined), "huge")).toBeUndefined();
    expect(cache.read(cacheKey("GET", "plain", undefined), "plain")?.body.toString()).toBe("planted");
  });

  test("is held to its bound: past it the oldest answers go, and one too large is never kept", () => {
    const dataDir = tempDir();
    const cache = new OffsiteCache(dataDir, 8000);
    const dir = join(dataDir, "cache", "offsite");
    for (let i = 0; i < 12; i++) {
      cache.write(cacheKey("GET", `u${i}`, undefined), `u${i}`, { status: 200, body: Buffer.alloc(900), fetchedAt: i });
      // each file a second older than the next, so which are oldest does not hang on the clock's grain
      const file = join(dir, `${cacheKey("GET", `u${i}`, undefined)}.json`);
      utimesSync(file, 1000 + i, 1000 + i);
    }
    const files = readdirSync(dir);
    const total = files.reduce((sum, f) => sum + statSync(join(dir, f)).size, 0);
    expect(total).toBeLessThanOrEqual(8000);
    expect(cache.read(cacheKey("GET", "u11", undefined), "u11")?.fetchedAt).toBe(11);
    expect(cache.read(cacheKey("GET", "u0", undefined), "u0")).toBeUndefined();
    expect(files.some((f) => f.endsWith(".tmp"))).toBe(false);
    cache.write(cacheKey("GET", "big", undefined), "big", { status: 200, body: Buffer.alloc(3000), fetchedAt: 1 });
    expect(cache.read(cacheKey("GET", "big", undefined), "big")).toBeUndefined();
    // a key read under another URL is no answer
    expect(cache.read(cacheKey("GET", "u11", undefined), "u10")).toBeUndefined();
  });
});
