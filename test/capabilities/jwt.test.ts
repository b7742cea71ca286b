import { describe, expect, test } from "bun:test";
import { builtinCatalogue } from "../../src/capabilities/builtinCatalogue.ts";
import type { Call } from "../../src/core/call.ts";
import { person } from "../../src/core/call.ts";
import { runCall } from "../../src/gate/pipeline.ts";
import { fixedClock, testDeps } from "../support/fixtures.ts";

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
const NOW = 1_800_000_000; // seconds
const token = (claims: Record<string, unknown>, header: Record<string, unknown> = { alg: "RS256", typ: "JWT" }) =>
  `${b64(header)}.${b64(claims)}.c2lnbmF0dXJl`;

async function decode(t: string) {
  const call: Call = { capability: "jwt.decode", args: { token: t }, origin: person };
  return runCall(call, builtinCatalogue(), testDeps({ clock: fixedClock(NOW * 1000) }));
}

describe("jwt.decode", () => {
  test("header and claims, with times in words against the clock", async () => {
    const out = await decode(token({ sub: "alice", exp: NOW + 3 * 3600, iat: NOW - 600, nbf: NOW - 600 }));
    expect(out.ok).toBe(true);
    if (!out.ok || out.value.type !== "object") return;
    const v = out.value.value as Record<string, Record<string, unknown>>;
    expect(v.header).toEqual({ alg: "RS256", typ: "JWT" });
    expect(v.claims?.sub).toBe("alice");
    expect(v.times?.exp).toBe(`expires in 3 h (${new Date((NOW + 10800) * 1000).toISOString()})`);
    expect(v.times?.iat).toStartWith("issued 10 min ago");
    expect(v.times?.nbf).toStartWith("valid from 10 min ago");
    expect(out.value.value.expired).toBe(false);
    expect(out.value.value.signature).toBe("present, not verified");
  });

  test("an expired token says so", async () => {
    const out = await decode(token({ exp: NOW - 2 * 86400 }));
    if (!out.ok || out.value.type !== "object") throw new Error("expected a result");
    expect(out.value.value.expired).toBe(true);
    expect((out.value.value.times as Record<string, string>).exp).toStartWith("expired 2 d ago");
  });

  test("an unsigned token (alg none, empty signature) decodes, and says it has no signature", async () => {
    const out = await decode(`${b64({ alg: "none" })}.${b64({ sub: "x" })}.`);
    if (!out.ok || out.value.type !== "object") throw new Error("expected a result");
    expect(out.value.value.signature).toBe("none");
    expect(out.value.value.expired).toBeNull();
  });

  test("malformed tokens get jwt.malformed, and the message never repeats the token or a part of it", async () => {
    const secretish = "c3VwZXJzZWNyZXRwYXJ0";
    const cases: [string, RegExp][] = [
      [`${secretish}`, /expected 3 parts.*found 1/],
      [`${secretish}.${secretish}`, /found 2/],
      [`${secretish}.${secretish}.x.y.z`, /encrypted \(JWE\)/],
      [`${secretish}!.${b64({})}.x`, /header is not base64url/],
      [`${secretish}.${b64({})}.x`, /header is not JSON/],
      [`${b64([1, 2])}.${b64({})}.x`, /header is not a JSON object/],
      [`${b64({ alg: "x" })}.${Buffer.from("not json").toString("base64url")}.x`, /claims is not JSON/],
    ];
    for (const [bad, why] of cases) {
      const out = await decode(bad);
      expect(out.ok).toBe(false);
      if (out.ok) continue;
      expect(out.error.code).toBe("jwt.malformed");
      expect(out.error.message).toMatch(why);
      expect(`${out.error.message} ${out.error.hint}`).not.toContain(secretish);
    }
  });

  test("surrounding whitespace from a pipe is ignored", async () => {
    const out = await decode(`  ${token({ sub: "a" })}\n`);
    expect(out.ok).toBe(true);
  });
});
