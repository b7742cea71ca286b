import { describe, expect, test } from "bun:test";
import type { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import type { SessionRows } from "../../../src/gate/store/pgSessions.ts";
import {
  bodyLimit,
  type Check,
  type Exchange,
  hostCheck,
  LOOPBACK_NAMES,
  originCheck,
  type Resume,
  sessionCheck,
  tokenCheck,
  valueLimit,
  whileServing,
} from "../../../src/mcp/http/checks.ts";
import { InFlight } from "../../../src/mcp/http/limits.ts";
import { type LegacySession, LegacySessions } from "../../../src/mcp/http/sessions.ts";
import { REQUEST_LIMIT_BYTES, REQUEST_VALUE_LIMIT } from "../../../src/mcp/requestValues.ts";

const allowed = new Set([...LOOPBACK_NAMES, "rta.example", "fe80::1"]);

function exchange(headers: Record<string, string> = {}, init: RequestInit = {}): Exchange {
  return { req: new Request("http://127.0.0.1/mcp", { method: "POST", headers, ...init }) };
}

/** The status, headers and JSON-RPC error a check answered with, or "pass". */
async function outcome(check: Check, x: Exchange) {
  const res = await check(x);
  if (!res) return "pass";
  const text = await res.text();
  return {
    status: res.status,
    connection: res.headers.get("connection"),
    retryAfter: res.headers.get("retry-after"),
    error: text ? (JSON.parse(text) as { error: { code: number; message: string } }).error : null,
  };
}

describe("whileServing", () => {
  test("passes until the server stops, then answers 503 with Retry-After and closes", async () => {
    let stopping = false;
    const check = whileServing(() => stopping);
    expect(await outcome(check, exchange())).toBe("pass");
    stopping = true;
    expect(await outcome(check, exchange())).toEqual({
      status: 503,
      connection: "close",
      retryAfter: "5",
      error: { code: -32000, message: "the server is stopping" },
    });
  });
});

describe("hostCheck", () => {
  const check = hostCheck(allowed);
  test("loopback names and the allowed ones pass, with any port, in any case, IPv6 with brackets", async () => {
    for (const host of ["localhost", "LOCALHOST:8722", "127.0.0.1:1", "[::1]:8722", "rta.example", "[fe80::1]"])
      expect(await outcome(check, exchange({ host }))).toBe("pass");
  });
  test("a name not served, or one the URL parser would only make into one, is refused 403 and closed", async () => {
    for (const host of ["evil.example", "127.1", "[0:0::1]", "x@localhost", "localhost:", "localhost.", "[FE80::1]"])
      expect(await outcome(check, exchange({ host }))).toEqual({
        status: 403,
        connection: "close",
        retryAfter: null,
        error: { code: -32000, message: "this host name is not served here" },
      });
  });
});

describe("originCheck", () => {
  const check = originCheck(allowed);
  const refusal = {
    status: 403,
    connection: "close",
    retryAfter: null,
    error: { code: -32000, message: "requests from this origin are not served here" },
  };
  test("no Origin passes: only browsers send one", async () => {
    expect(await outcome(check, exchange())).toBe("pass");
  });
  test("an Origin whose host is served passes, with any scheme and port, in any case", async () => {
    for (const origin of ["http://localhost:8722", "https://RTA.example", "http://[::1]", "http://[fe80::1]:9"])
      expect(await outcome(check, exchange({ origin }))).toBe("pass");
  });
  test("any other, an empty one, `null` and one that is not a URL are refused 403 and closed", async () => {
    for (const origin of ["http://evil.example", "https://rta.example.evil.test", "", "null", "localhost", "file://"])
      expect(await outcome(check, exchange({ origin }))).toEqual(refusal);
  });
  test("a scheme wildcard given as a host name allows no origin of that scheme", async () => {
    const wild = originCheck(new Set([...LOOPBACK_NAMES, "moz-extension://*"]));
    expect(await outcome(wild, exchange({ origin: "moz-extension://abc" }))).toEqual(refusal);
  });
});

describe("tokenCheck", () => {
  const check = tokenCheck((header) => (header === "Bearer good" ? "claude" : undefined));
  test("a token taken names the agent, for the checks after it and the server", async () => {
    const x = exchange({ authorization: "Bearer good" });
    expect(await outcome(check, x)).toBe("pass");
    expect(x.agent).toBe("claude");
    expect(x.authInfo).toEqual({ token: "-", clientId: "claude", scopes: [], extra: { agent: "claude" } });
  });
  test("no token or a wrong one gets 401 with a Bearer challenge and nothing else", async () => {
    for (const headers of [{}, { authorization: "Bearer bad" }] as Record<string, string>[]) {
      const res = (await check(exchange(headers))) as Response;
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe('Bearer realm="rta"');
      expect(res.headers.get("connection")).toBe("close");
      expect(await res.json()).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32001, message: "unauthorized" } });
    }
  });
  test("a token the store cannot check (it threw) gets 503 with Retry-After, its agent not noted", async () => {
    const away = tokenCheck(() => {
      throw new Error("connection refused");
    });
    const x = exchange({ authorization: "Bearer good" });
    expect(await outcome(away, x)).toEqual({
      status: 503,
      connection: "close",
      retryAfter: "5",
      error: { code: -32000, message: "the server cannot reach its store just now: try again" },
    });
    expect(x.agent).toBeUndefined();
  });
});

describe("bodyLimit", () => {
  const agentX = (headers: Record<string, string>, body?: string, method = "POST"): Exchange => ({
    ...exchange(headers, { method, ...(body !== undefined ? { body } : {}) }),
    agent: "claude",
  });
  test("reads a POST's body, holding a ticket for it; other methods pass untouched", async () => {
    const inFlight = new InFlight();
    const x = agentX({}, '{"a":1}');
    expect(await outcome(bodyLimit(inFlight), x)).toBe("pass");
    expect(new TextDecoder().decode(x.body)).toBe('{"a":1}');
    expect(inFlight.heldBytes).toBe(7);
    x.ticket?.release();
    expect(inFlight.heldBytes).toBe(0);
    const get = agentX({}, undefined, "GET");
    expect(await outcome(bodyLimit(inFlight), get)).toBe("pass");
    expect(get.ticket).toBeUndefined();
  });
  test("past the limit: 413, closed", async () => {
    const x = agentX({ "content-length": String(REQUEST_LIMIT_BYTES + 1) }, "x");
    expect(await outcome(bodyLimit(new InFlight()), x)).toEqual({
      status: 413,
      connection: "close",
      retryAfter: null,
      error: { code: -32600, message: "the request body is larger than 4 MiB" },
    });
    expect(x.ticket).toBeDefined(); // given back by the front once the answer is sent
  });
  test("an agent past its requests in flight: 429 with Retry-After for a request, its ticket given back once sent", async () => {
    const inFlight = new InFlight(100, 100, 1);
    expect(await outcome(bodyLimit(inFlight), agentX({}, "1"))).toBe("pass");
    const x = agentX({}, '{"jsonrpc":"2.0","id":2,"method":"tools/list"}');
    expect(await outcome(bodyLimit(inFlight), x)).toEqual({
      status: 429,
      connection: "close",
      retryAfter: "5",
      error: { code: -32000, message: "this agent already has 1 requests in flight" },
    });
    expect(x.ticket?.past).toBe(true);
  });

  test("an agent past its requests in flight may still send a cancellation", async () => {
    const inFlight = new InFlight(100, 1000, 1);
    expect(await outcome(bodyLimit(inFlight), agentX({}, "1"))).toBe("pass");
    const cancel = '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}';
    expect(await outcome(bodyLimit(inFlight), agentX({}, cancel))).toBe("pass");
  });
});

describe("valueLimit", () => {
  test("notes the parsed body; one that is not JSON, or no body, passes unparsed", async () => {
    const x: Exchange = { ...exchange(), body: new TextEncoder().encode('{"method":"x"}') };
    expect(await outcome(valueLimit, x)).toBe("pass");
    expect(x.parsedBody).toEqual({ method: "x" });
    const bad: Exchange = { ...exchange(), body: new TextEncoder().encode("{") };
    expect(await outcome(valueLimit, bad)).toBe("pass");
    expect(bad.parsedBody).toBeUndefined();
    expect(await outcome(valueLimit, exchange())).toBe("pass");
  });
  test("a body holding more values than the limit gets 400, its connection kept", async () => {
    const body = new TextEncoder().encode(JSON.stringify({ params: Array(REQUEST_VALUE_LIMIT).fill(0) }));
    expect(await outcome(valueLimit, { ...exchange(), body })).toEqual({
      status: 400,
      connection: null,
      retryAfter: null,
      error: { code: -32600, message: `the request holds more than ${REQUEST_VALUE_LIMIT} values` },
    });
  });
});

describe("sessionCheck", () => {
  const transport = () => ({ close: async () => {} }) as unknown as WebStandardStreamableHTTPServerTransport;
  test("a request naming no session passes; one naming its agent's own is given it", async () => {
    const sessions = new LegacySessions({ now: () => 0 });
    const made = sessions.make("claude", transport);
    if ("status" in made) throw new Error("refused");
    const check = sessionCheck(sessions);
    expect(await outcome(check, { ...exchange(), agent: "claude" })).toBe("pass");
    const x: Exchange = { ...exchange({ "mcp-session-id": made.id }), agent: "claude" };
    expect(await outcome(check, x)).toBe("pass");
    expect(x.session).toBe(made);
  });
  test("another agent's session, or none by that id, is 404", async () => {
    const sessions = new LegacySessions({ now: () => 0 });
    const made = sessions.make("claude", transport);
    if ("status" in made) throw new Error("refused");
    for (const [id, agent] of [
      [made.id, "cursor"],
      ["no-such-id", "claude"],
    ] as const)
      expect(await outcome(sessionCheck(sessions), { ...exchange({ "mcp-session-id": id }), agent })).toEqual({
        status: 404,
        connection: null,
        retryAfter: null,
        error: { code: -32001, message: "no such session: start again with initialize" },
      });
  });
  test("with a shared store: a row not held here is built by resume; one it cannot build is 404; a store away is 503", async () => {
    const row = {
      id: "r1",
      agent: "claude",
      protocol: "2025-11-25",
      client: {},
      capabilities: {},
      createdAt: 0,
      lastUsed: 0,
    };
    let away = false;
    const rows = {
      touch: (id: string, agent: string) => {
        if (away) throw new Error("the store is away");
        return id === row.id && agent === row.agent ? row : undefined;
      },
    } as unknown as SessionRows;
    const sessions = new LegacySessions({ now: () => 0 }, undefined, () => rows);
    const built = { id: "r1" } as LegacySession;
    const asked: string[] = [];
    const resume: Resume = async (r) => {
      asked.push(r.id);
      return asked.length === 1 ? built : undefined;
    };
    const x: Exchange = {
      ...exchange({ "mcp-session-id": "r1" }),
      agent: "claude",
      authInfo: { token: "-", clientId: "claude", scopes: [] },
    };
    expect(await outcome(sessionCheck(sessions, resume), x)).toBe("pass");
    expect(x.session).toBe(built);
    const gone = {
      status: 404,
      connection: null,
      retryAfter: null,
      error: { code: -32001, message: "no such session: start again with initialize" },
    };
    expect(
      await outcome(sessionCheck(sessions, resume), { ...exchange({ "mcp-session-id": "r1" }), agent: "claude" }),
    ).toEqual(gone);
    expect(
      await outcome(sessionCheck(sessions, resume), { ...exchange({ "mcp-session-id": "r1" }), agent: "cursor" }),
    ).toEqual(gone);
    expect(
      await outcome(sessionCheck(sessions, resume), {
        ...exchange({ "mcp-session-id": "x".repeat(200) }),
        agent: "claude",
      }),
    ).toEqual(gone);
    expect(asked).toEqual(["r1", "r1"]);
    away = true;
    expect(
      await outcome(sessionCheck(sessions, resume), { ...exchange({ "mcp-session-id": "r1" }), agent: "claude" }),
    ).toMatchObject({
      status: 503,
      retryAfter: "5",
    });
  });
});
