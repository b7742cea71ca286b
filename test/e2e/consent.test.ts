/**
 * End to end: stage 9, live consent. A capability on the policy's confirm
 * list runs for an agent only once the person behind the client accepts the
 * call: asked by `elicitation/create` on 2025-11-25, by an `input_required`
 * round on 2026-07-28, with the official client on both eras.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { readRecord } from "../../src/record/read.ts";
import { tempDir } from "../support/fixtures.ts";
import { startHttp } from "../support/httpServer.ts";
import { type Connected, connect, type Era, resultJson } from "../support/mcpClient.ts";
import { RTA, rta } from "../support/rta.ts";
import { stdioLines } from "../support/stdioLines.ts";

type Answer = "accept" | "decline" | "cancel" | "never";

interface Setup {
  era: Era;
  answer?: Answer;
  /** whether the client declares elicitation at all */
  elicits?: boolean;
  policy?: string;
}

interface Session extends Connected {
  root: string;
  asked: { message: string }[];
}

async function serve(o: Setup): Promise<Session> {
  const config = tempDir();
  const root = tempDir();
  writeFileSync(join(root, "a.txt"), "hello\n");
  mkdirSync(join(root, "sub"));
  writeFileSync(join(config, "policy.toml"), o.policy ?? 'confirm = ["fs.stat"]\n');
  const asked: { message: string }[] = [];
  const elicits = o.elicits ?? true;
  const s = await connect(o.era, ["--agent", "claude", "--root", root], {
    env: { RTA_CONFIG_DIR: config },
    ...(elicits ? { capabilities: { elicitation: { form: {} } } } : {}),
    setup: (client: Client) => {
      if (!elicits) return;
      client.setRequestHandler("elicitation/create", async (req) => {
        asked.push({ message: (req.params as { message: string }).message });
        if (o.answer === "never") return new Promise(() => {});
        return o.answer === "accept" || o.answer === undefined
          ? { action: "accept" as const, content: {} }
          : { action: o.answer as "decline" | "cancel" };
      });
    },
  });
  return { ...s, root, asked };
}

function outcomes(dataDir: string): string[] {
  return outcomesOf(dataDir, "fs_stat");
}

/** The outcomes the record holds for one tool's calls, in order. */
function outcomesOf(dataDir: string, tool: string): string[] {
  return readRecord(join(dataDir, "agent-log.jsonl"))
    .lines.filter((l) => l.capability === tool && l.outcome !== undefined)
    .map((l) => l.outcome as string);
}

for (const era of ["legacy", "modern"] as const) {
  describe(`confirm on ${era}`, () => {
    test("accepted: the person is shown the call and it runs", async () => {
      const s = await serve({ era, answer: "accept" });
      try {
        const r = await s.client.callTool({ name: "fs_stat", arguments: { path: "a.txt" } });
        expect(r.isError).toBeFalsy();
        expect(resultJson(r).type).toBe("object");
        expect(s.asked).toHaveLength(1);
        expect(s.asked[0]?.message).toContain("claude asks to run fs.stat");
        expect(s.asked[0]?.message).toContain("path: a.txt");
        const kept = outcomes(s.dataDir);
        expect(kept.at(-1)).toBe("ok");
        if (era === "modern") expect(kept).toContain("core.consent.asked");
      } finally {
        await s.close();
      }
    });

    test("declined: refused as core.consent.declined, and on the record", async () => {
      const s = await serve({ era, answer: "decline" });
      try {
        const r = await s.client.callTool({ name: "fs_stat", arguments: { path: "a.txt" } });
        expect(r.isError).toBe(true);
        expect(resultJson(r).code).toBe("core.consent.declined");
        expect(resultJson(r).message).toMatch(/declined/);
        expect(outcomes(s.dataDir).at(-1)).toBe("core.consent.declined");
      } finally {
        await s.close();
      }
    });

    test("a client that cannot elicit: refused as core.consent.unavailable, never run", async () => {
      const s = await serve({ era, elicits: false });
      try {
        const r = await s.client.callTool({ name: "fs_stat", arguments: { path: "a.txt" } });
        expect(r.isError).toBe(true);
        expect(resultJson(r).code).toBe("core.consent.unavailable");
        expect(outcomes(s.dataDir)).toEqual(["core.consent.unavailable"]);
        // a capability on no list still runs as before
        const free = await s.client.callTool({ name: "fs_list", arguments: { path: "." } });
        expect(free.isError).toBeFalsy();
      } finally {
        await s.close();
      }
    });
  });
}

test("legacy: no answer within consent_timeout is a refusal", async () => {
  const s = await serve({ era: "legacy", answer: "never", policy: 'confirm = ["fs"]\nconsent_timeout = "1s"\n' });
  try {
    const r = await s.client.callTool({ name: "fs_stat", arguments: { path: "a.txt" } });
    expect(resultJson(r).code).toBe("core.consent.declined");
    expect(resultJson(r).message).toMatch(/no answer came within 1 s/);
  } finally {
    await s.close();
  }
});

describe("2026-07-28: the request state, raw over stdio", () => {
  const MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
    "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
  };
  type Answer = {
    id: unknown;
    result?: {
      resultType?: string;
      requestState?: string;
      inputRequests?: Record<string, { method: string; params: { message: string } }>;
      content?: { text: string }[];
      isError?: boolean;
    };
    error?: { code: number; message: string; data?: { code?: string } };
  };
  const line = (m: unknown) => `${JSON.stringify(m)}\n`;
  const call = (id: number, args: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    line({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "fs_stat", arguments: args, _meta: MODERN_META, ...extra },
    });
  const accepted = { consent: { action: "accept", content: {} } };

  function serving(policy = 'confirm = ["fs.stat"]\n') {
    const data = tempDir();
    const config = tempDir();
    const root = tempDir();
    writeFileSync(join(root, "a.txt"), "hello\n");
    mkdirSync(join(root, "sub"));
    writeFileSync(join(config, "policy.toml"), policy);
    const proc = Bun.spawn([RTA, "mcp", "serve", "--agent", "claude", "--root", root], {
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
      env: { PATH: process.env.PATH ?? "", HOME: data, RTA_DATA_DIR: data, RTA_CONFIG_DIR: config },
    });
    const { out, until, send } = stdioLines<Answer>(proc);
    const ask = async (text: string): Promise<Answer> => {
      const seen = out.length;
      await send(text);
      await until(() => out.length > seen);
      return out[seen] as Answer;
    };
    const end = async () => {
      await proc.stdin.end();
      return proc.exited;
    };
    return { ask, end, data };
  }
  const code = (a: Answer) => JSON.parse(a.result?.content?.[0]?.text ?? "{}").code as string | undefined;
  /** A request state refused is a JSON-RPC error -32602, rta's code in its data. */
  const stale = (a: Answer) => (a.error?.code === -32602 ? a.error.data?.code : `not refused: ${JSON.stringify(a)}`);

  test("asked, accepted once; the same state replayed, altered, or for other arguments is refused", async () => {
    const { ask, end, data } = serving();
    try {
      const first = await ask(call(1, { path: "a.txt" }));
      expect(first.result?.resultType).toBe("input_required");
      expect(first.result?.inputRequests?.consent?.method).toBe("elicitation/create");
      expect(first.result?.inputRequests?.consent?.params.message).toContain("path: a.txt");
      const state = first.result?.requestState as string;
      expect(typeof state).toBe("string");

      const ran = await ask(call(2, { path: "a.txt" }, { inputResponses: accepted, requestState: state }));
      expect(ran.result?.resultType).toBe("complete");
      expect(ran.result?.isError).toBeFalsy();

      const replayed = await ask(call(3, { path: "a.txt" }, { inputResponses: accepted, requestState: state }));
      expect(stale(replayed)).toBe("core.consent.declined");
      expect(replayed.error?.message).toContain("used already");

      const second = (await ask(call(4, { path: "a.txt" }))).result?.requestState as string;
      const altered = `${second.slice(0, -2)}${second.endsWith("AA") ? "BB" : "AA"}`;
      expect(stale(await ask(call(5, { path: "a.txt" }, { inputResponses: accepted, requestState: altered })))).toBe(
        "core.consent.declined",
      );
      // the state of a call on a.txt does not let one on sub/ run
      const third = (await ask(call(6, { path: "a.txt" }))).result?.requestState as string;
      expect(stale(await ask(call(7, { path: "sub" }, { inputResponses: accepted, requestState: third })))).toBe(
        "core.consent.declined",
      );
      // a decline with a good state is a decline
      const fourth = (await ask(call(8, { path: "a.txt" }))).result?.requestState as string;
      const declined = { consent: { action: "decline" } };
      expect(code(await ask(call(9, { path: "a.txt" }, { inputResponses: declined, requestState: fourth })))).toBe(
        "core.consent.declined",
      );
      const kept = outcomes(data);
      expect(kept.filter((o) => o === "ok")).toHaveLength(1);
      expect(kept.filter((o) => o === "core.consent.asked")).toHaveLength(4);
    } finally {
      await end();
    }
  }, 20_000);

  test("an answer after consent_timeout is refused: the state has expired", async () => {
    const { ask, end } = serving('confirm = ["fs.stat"]\nconsent_timeout = "1s"\n');
    try {
      const state = (await ask(call(1, { path: "a.txt" }))).result?.requestState as string;
      await Bun.sleep(2100);
      const late = await ask(call(2, { path: "a.txt" }, { inputResponses: accepted, requestState: state }));
      expect(stale(late)).toBe("core.consent.declined");
    } finally {
      await end();
    }
  }, 20_000);
});

describe("over HTTP, with the official client", () => {
  for (const era of ["legacy", "modern"] as const) {
    test(`${era}: accepted runs, declined is refused, a client that cannot elicit is refused`, async () => {
      const data = tempDir();
      const config = tempDir();
      const root = tempDir();
      writeFileSync(join(root, "a.txt"), "hello\n");
      writeFileSync(join(config, "policy.toml"), 'confirm = ["fs"]\n');
      const srv = await startHttp(["--root", root], { data, config });
      const token = await srv.token("claude");
      const open = async (answer: "accept" | "decline" | undefined) => {
        const c = new Client(
          { name: "http-consent", version: "1" },
          {
            ...(era === "modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" as const } } } : {}),
            ...(answer ? { capabilities: { elicitation: { form: {} } } } : {}),
          },
        );
        if (answer)
          c.setRequestHandler("elicitation/create", async () =>
            answer === "accept" ? { action: "accept" as const, content: {} } : { action: "decline" as const },
          );
        await c.connect(
          new StreamableHTTPClientTransport(new URL(srv.url), {
            requestInit: { headers: { Authorization: `Bearer ${token}` } },
          }),
        );
        return c;
      };
      try {
        for (const [answer, expected] of [
          ["accept", undefined],
          ["decline", "core.consent.declined"],
          [undefined, "core.consent.unavailable"],
        ] as const) {
          const c = await open(answer);
          try {
            const r = await c.callTool({ name: "fs_stat", arguments: { path: "a.txt" } });
            expect(r.isError ? resultJson(r).code : undefined).toBe(expected);
          } finally {
            await c.close();
          }
        }
      } finally {
        await srv.stop();
      }
    }, 20_000);
  }
});

test("under a grant the person is still asked; a decline removes nothing and gives the grant's use back", async () => {
  const config = tempDir();
  const root = tempDir();
  const data = tempDir();
  mkdirSync(join(root, "old"));
  writeFileSync(join(root, "old", "x"), "x");
  writeFileSync(join(config, "policy.toml"), 'confirm = ["fs.rm"]\n');
  const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config };
  const asked: string[] = [];
  let answer: "accept" | "decline" = "decline";
  const s = await connect("legacy", ["--agent", "claude", "--root", root], {
    dataDir: data,
    env: { RTA_CONFIG_DIR: config },
    capabilities: { elicitation: { form: {} } },
    setup: (client: Client) =>
      client.setRequestHandler("elicitation/create", async (req) => {
        asked.push((req.params as { message: string }).message);
        return answer === "accept" ? { action: "accept" as const, content: {} } : { action: "decline" as const };
      }),
  });
  try {
    const granted = await rta(["grant", "allow", "fs.rm", "--agent", "claude", "--ttl", "5m", "--max-uses", "1"], {
      env,
    });
    expect(granted.code).toBe(0);
    const no = await s.client.callTool({ name: "fs_rm", arguments: { path: "old", recursive: true } });
    expect(resultJson(no).code).toBe("core.consent.declined");
    expect(existsSync(join(root, "old", "x"))).toBe(true);
    expect(asked[0]).toContain("claude asks to run fs.rm");
    expect(asked[0]).toContain("recursive: true");
    answer = "accept";
    const yes = await s.client.callTool({ name: "fs_rm", arguments: { path: "old", recursive: true } });
    expect(yes.isError).toBeFalsy();
    expect(existsSync(join(root, "old"))).toBe(false);
  } finally {
    await s.close();
  }
});

describe("ask_for_grants", () => {
  for (const era of ["legacy", "modern"] as const) {
    test(`${era}: a call without a grant asks for one; the grant chosen is issued within the ceiling and the call runs`, async () => {
      const config = tempDir();
      const root = tempDir();
      const data = tempDir();
      mkdirSync(join(root, "notes"));
      writeFileSync(join(config, "policy.toml"), 'ask_for_grants = true\nmax_ttl = "10m"\n');
      const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config };
      const asked: { message: string; schema: unknown }[] = [];
      let choice: string | undefined = "30 min";
      const s = await connect(era, ["--agent", "claude", "--root", root], {
        dataDir: data,
        clientName: "grant-client",
        env: { RTA_CONFIG_DIR: config },
        capabilities: { elicitation: { form: {} } },
        setup: (client: Client) =>
          client.setRequestHandler("elicitation/create", async (req) => {
            const p = req.params as { message: string; requestedSchema: unknown };
            asked.push({ message: p.message, schema: p.requestedSchema });
            return choice ? { action: "accept" as const, content: { for: choice } } : { action: "decline" as const };
          }),
      });
      try {
        choice = undefined;
        const no = await s.client.callTool({ name: "fs_write", arguments: { path: "notes/a.md", content: "x" } });
        expect(resultJson(no).code).toBe("core.consent.declined");
        expect(existsSync(join(root, "notes", "a.md"))).toBe(false);
        choice = "30 min";
        const yes = await s.client.callTool({ name: "fs_write", arguments: { path: "notes/a.md", content: "x" } });
        expect(yes.isError ? resultJson(yes) : undefined).toBeUndefined();
        expect(existsSync(join(root, "notes", "a.md"))).toBe(true);
        expect(asked[0]?.message).toContain("Allow claude to use fs.write on notes/a.md");
        expect(asked[0]?.message).toContain("For: once / 30 min / no");
        expect(JSON.stringify(asked[0]?.schema)).toContain('"enum":["once","30 min"]');
        const listed = await rta(["grant", "list", "--json"], { env });
        const grants = JSON.parse(listed.stdout).grants as Record<string, unknown>[];
        expect(grants).toHaveLength(1);
        const g = grants[0] as { issued_by: string; expires_at: number; issued_at: number; agent: string };
        expect(g.agent).toBe("claude");
        expect(g.issued_by).toBe("consent via grant-client 1.0.0");
        // 30 minutes asked for, 10 minutes the ceiling lets be issued
        expect(new Date(g.expires_at).getTime() - new Date(g.issued_at).getTime()).toBe(600_000);
        // the grant covers notes/a.md only: another file asks again
        asked.length = 0;
        await s.client.callTool({ name: "fs_write", arguments: { path: "notes/b.md", content: "x" } });
        expect(asked).toHaveLength(1);
      } finally {
        await s.close();
      }
    }, 20_000);
  }

  test("never asked when the ceiling caps every grant, nor when the policy does not say ask_for_grants", async () => {
    for (const policy of ['ask_for_grants = true\nnever = ["fs.write"]\n', 'confirm = ["fs.stat"]\n']) {
      const config = tempDir();
      const root = tempDir();
      writeFileSync(join(config, "policy.toml"), policy);
      let asked = 0;
      const s = await connect("legacy", ["--agent", "claude", "--root", root], {
        env: { RTA_CONFIG_DIR: config },
        capabilities: { elicitation: { form: {} } },
        setup: (client: Client) =>
          client.setRequestHandler("elicitation/create", async () => {
            asked++;
            return { action: "accept" as const, content: { for: "once" } };
          }),
      });
      try {
        const r = await s.client.callTool({ name: "fs_write", arguments: { path: "a.md", content: "x" } });
        expect(resultJson(r).code).toBe(policy.includes("never") ? "core.grant.ceiling" : "core.grant.required");
        expect(asked).toBe(0);
      } finally {
        await s.close();
      }
    }
  });
});

describe("roots on 2026-07-28", () => {
  const rooted = async (args: string[], declares: boolean) => {
    const theirs = tempDir();
    writeFileSync(join(theirs, "mine.txt"), "mine\n");
    let asked = 0;
    const s = await connect("modern", ["--agent", "claude", ...args], {
      ...(declares ? { capabilities: { roots: {} } } : {}),
      setup: (client: Client) => {
        if (declares)
          client.setRequestHandler("roots/list", async () => {
            asked++;
            return { roots: [{ uri: `file://${theirs}`, name: "project" }] };
          });
      },
    });
    return { s, theirs, asked: () => asked };
  };

  test("a server with no --root asks the client's roots inside the first call that names a path, once", async () => {
    const { s, theirs, asked } = await rooted([], true);
    try {
      expect((await s.client.callTool({ name: "sys_info", arguments: {} })).isError).toBeFalsy();
      expect(asked()).toBe(0);
      const r = await s.client.callTool({ name: "fs_stat", arguments: { path: join(theirs, "mine.txt") } });
      expect(r.isError ? resultJson(r) : undefined).toBeUndefined();
      expect(asked()).toBe(1);
      await s.client.callTool({ name: "fs_stat", arguments: { path: join(theirs, "mine.txt") } });
      expect(asked()).toBe(1);
      expect(s.stderr()).toContain("the client offered roots");
    } finally {
      await s.close();
    }
  });

  test("not asked of a client that declares no roots, nor by a server started with --root", async () => {
    for (const [args, declares] of [
      [[], false],
      [["--root", tempDir()], true],
    ] as const) {
      const { s, theirs, asked } = await rooted([...args], declares);
      try {
        const r = await s.client.callTool({ name: "fs_stat", arguments: { path: join(theirs, "mine.txt") } });
        expect(resultJson(r).code).toBe("core.path.outside");
        expect(asked()).toBe(0);
      } finally {
        await s.close();
      }
    }
  });
});

test("2026-07-28 over HTTP: a tampered and a replayed request state are refused -32602", async () => {
  const data = tempDir();
  const config = tempDir();
  const root = tempDir();
  writeFileSync(join(root, "a.txt"), "hello\n");
  writeFileSync(join(config, "policy.toml"), 'confirm = ["fs.stat"]\n');
  const srv = await startHttp(["--root", root], { data, config });
  const token = await srv.token("claude");
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
    "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
  };
  let id = 0;
  const call = async (extra: Record<string, unknown> = {}) => {
    const r = await fetch(srv.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${token}`,
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": "fs_stat",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: ++id,
        method: "tools/call",
        params: { name: "fs_stat", arguments: { path: "a.txt" }, _meta: meta, ...extra },
      }),
    });
    const text = await r.text();
    // an answer may come as one SSE event
    return JSON.parse(text.startsWith("{") ? text : (text.match(/^data: (.*)$/m)?.[1] ?? "{}")) as {
      result?: { resultType?: string; requestState?: string; isError?: boolean };
      error?: { code: number; data?: { code?: string } };
    };
  };
  const accepted = { consent: { action: "accept", content: {} } };
  try {
    const first = await call();
    expect(first.result?.resultType).toBe("input_required");
    const state = first.result?.requestState as string;
    const tampered = await call({ inputResponses: accepted, requestState: `${state}-TAMPERED` });
    expect([tampered.error?.code, tampered.error?.data?.code]).toEqual([-32602, "core.consent.declined"]);
    const ran = await call({ inputResponses: accepted, requestState: state });
    expect(ran.result?.resultType).toBe("complete");
    expect(ran.result?.isError).toBeFalsy();
    const replayed = await call({ inputResponses: accepted, requestState: state });
    expect([replayed.error?.code, replayed.error?.data?.code]).toEqual([-32602, "core.consent.declined"]);
  } finally {
    await srv.stop();
  }
}, 20_000);

test("2026-07-28: a grant asked for and then the call confirmed take two rounds, and the call runs once", async () => {
  const config = tempDir();
  const root = tempDir();
  writeFileSync(join(config, "policy.toml"), 'ask_for_grants = true\nconfirm = ["fs.write"]\n');
  const asked: string[] = [];
  const s = await connect("modern", ["--agent", "claude", "--root", root], {
    env: { RTA_CONFIG_DIR: config },
    capabilities: { elicitation: { form: {} } },
    setup: (client: Client) =>
      client.setRequestHandler("elicitation/create", async (req) => {
        asked.push((req.params as { message: string }).message.split("\n")[0] as string);
        return { action: "accept" as const, content: { for: "once" } };
      }),
  });
  try {
    const r = await s.client.callTool({ name: "fs_write", arguments: { path: "n.md", content: "x", mode: "append" } });
    expect(r.isError ? resultJson(r) : undefined).toBeUndefined();
    expect(asked).toEqual([
      "Allow claude to use fs.write on n.md (Write a file: create it, overwrite it, or append to it, atomically)? It holds no grant for it.",
      "claude asks to run fs.write (Write a file: create it, overwrite it, or append to it, atomically)",
    ]);
    expect(await Bun.file(join(root, "n.md")).text()).toBe("x");
    // the two questions, then the run line a call with effects writes before it runs, and its outcome
    expect(outcomesOf(s.dataDir, "fs_write")).toEqual(["core.consent.asked", "core.consent.asked", "run", "ok"]);
  } finally {
    await s.close();
  }
});
