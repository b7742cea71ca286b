/**
 * The address rules as units: which destination an agent's call may reach and
 * which redirect it may follow, decided from the agent and its grant's host.
 * No packet is sent: the addresses are given, never looked up or dialled.
 */
import { describe, expect, test } from "bun:test";
import type { AddressClass } from "../../../src/core/access.ts";
import { RtaError } from "../../../src/core/errors.ts";
import { CallNet } from "../../../src/gate/net/callNet.ts";
import { checkReach, mayFollow, type Reach } from "../../../src/gate/net/destination.ts";

const person: Reach = { agent: undefined, grantHost: undefined, capability: "http.get" };
const anyHost: Reach = { agent: "claude", grantHost: null, capability: "http.get" };
const named = (host: string): Reach => ({ agent: "claude", grantHost: host, capability: "http.get" });

function refusal(reach: Reach, host: string, address: string, kind: AddressClass): RtaError | undefined {
  try {
    checkReach(reach, host, address, kind);
    return undefined;
  } catch (err) {
    return err as RtaError;
  }
}

describe("what an agent may reach", () => {
  test("a loopback, private, link-local or metadata address is refused unless the grant names it", () => {
    const err = refusal(anyHost, "a.test", "127.0.0.1", "loopback");
    expect(err).toBeInstanceOf(RtaError);
    expect(err?.code).toBe("net.destination.private");
    expect(err?.message).toBe("a.test is at 127.0.0.1, a loopback address, which only a grant naming it may reach");
    expect(err?.hint).toBe(
      "a person can allow it by running `rta grant allow http.get --agent claude --ttl 5m --host a.test`",
    );
    expect(refusal(named("other.test"), "10.0.0.5", "10.0.0.5", "private")?.message).toBe(
      "10.0.0.5 is a private address, which only a grant naming it may reach",
    );
    expect(refusal(anyHost, "fe80::1", "fe80::1", "link-local")?.code).toBe("net.destination.private");
    expect(refusal(anyHost, "169.254.169.254", "169.254.169.254", "metadata")?.message).toBe(
      "169.254.169.254 is a metadata address, which only a grant naming it may reach",
    );
    expect(refusal(anyHost, "x.test", "0.0.0.0", "unspecified")?.message).toContain("an unspecified address");
  });

  test("a grant naming the host or the address reaches it; a public address needs no naming", () => {
    expect(refusal(named("a.test"), "a.test", "127.0.0.1", "loopback")).toBeUndefined();
    expect(refusal(named("127.0.0.1"), "a.test", "127.0.0.1", "loopback")).toBeUndefined();
    expect(refusal(anyHost, "example.com", "93.184.215.14", "public")).toBeUndefined();
  });

  test("a person reaches anywhere", () => {
    expect(refusal(person, "a.test", "169.254.169.254", "metadata")).toBeUndefined();
  });
});

describe("which redirect an agent may follow", () => {
  test("the same host always; another host only when the grant names none or that one", () => {
    expect(mayFollow(named("a.test"), "a.test", "a.test")).toBe(true);
    expect(mayFollow(named("a.test"), "a.test", "b.test")).toBe(false);
    expect(mayFollow(named("b.test"), "a.test", "b.test")).toBe(true);
    expect(mayFollow(anyHost, "a.test", "b.test")).toBe(true);
    expect(mayFollow(person, "a.test", "b.test")).toBe(true);
  });
});

describe("the network a call is handed", () => {
  test("connects only to a destination it resolved itself", () => {
    const net = new CallNet(anyHost, new AbortController().signal);
    const madeUp = { host: "a.test", address: "127.0.0.1", kind: "loopback" as const };
    expect(() => net.dial(madeUp, 80)).toThrow("a destination this call did not resolve");
    expect(net.dialTls(madeUp, 443)).rejects.toThrow("a destination this call did not resolve");
  });

  test("an address written out is held to the rules before any lookup", async () => {
    const net = new CallNet(named("b.test"), new AbortController().signal);
    const err = await net.resolve("169.254.169.254").catch((e: unknown) => e as RtaError);
    expect((err as RtaError).code).toBe("net.destination.private");
    expect(net.mayFollow("a.test", "c.test")).toBe(false);
  });

  test("a destination it resolved cannot be pointed elsewhere, and who calls cannot be read from it", async () => {
    const net = new CallNet(named("93.184.215.14"), new AbortController().signal);
    const dest = await net.resolve("93.184.215.14");
    expect(dest).toEqual({ host: "93.184.215.14", address: "93.184.215.14", kind: "public" });
    expect(Object.isFrozen(dest)).toBe(true);
    expect(JSON.stringify(net)).toBe("{}");
    expect(Object.keys(net)).toEqual([]);
  });
});
