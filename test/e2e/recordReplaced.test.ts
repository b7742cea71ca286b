/**
 * End to end: a record file removed or replaced while a server runs. The
 * server kept writing to the file it opened first, so once the record's name
 * held another file (or none), calls ran with their lines written where no one
 * would read them. Now each line goes to the file the name holds, and a name
 * that holds a link, a FIFO or a dir refuses the call as core.record.unavailable.
 */
import { describe, expect, test } from "bun:test";
import { execFileSync, spawnSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  linkSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { readRecord } from "../../src/record/read.ts";
import { tempDir } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { AS_NOBODY, NOBODY } from "../support/nobody.ts";
import { RTA, rta } from "../support/rta.ts";

/** rta doctor, run in `env`, fails its record check with a detail that names `path`. */
async function doctorFailsOn(env: Record<string, string>, path: string): Promise<void> {
  const r = await rta(["doctor", "--json"], { env });
  const findings = (JSON.parse(r.stdout) as { findings: { check: string; status: string; detail: string }[] }).findings;
  expect(findings).toContainEqual(
    expect.objectContaining({ check: "record", status: "fail", detail: expect.stringContaining(path) }),
  );
}

async function serving() {
  const data = tempDir();
  const config = tempDir();
  const s = await connect("legacy", ["--agent", "claude"], { dataDir: data, env: { RTA_CONFIG_DIR: config } });
  expect(resultJson(await s.client.callTool({ name: "sys_info", arguments: {} })).type).toBe("object");
  return { s, data, file: join(data, "agent-log.jsonl"), env: { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config } };
}

describe("the record's name holds another file while a server runs", () => {
  test("removed: the next call's lines go to a new file at the record's name, and --verify names the cut", async () => {
    const { s, file, env } = await serving();
    try {
      rmSync(file);
      expect(resultJson(await s.client.callTool({ name: "proc_list", arguments: { limit: 1 } })).type).toBe("table");
    } finally {
      await s.close();
    }
    // before, the lines went to the removed file and the record's name held nothing
    const calls = readRecord(file).lines.map((l) => `${l.capability}:${l.outcome}`);
    expect(calls).toEqual(["proc_list:ok", ":end"]);
    const verified = await rta(["agent", "log", "--verify", "--json"], { env });
    expect(verified.code).not.toBe(0);
    expect((JSON.parse(verified.stdout) as { problems: { kind: string }[] }).problems.map((p) => p.kind)).toContain(
      "cut-session",
    );
  });

  for (const kind of ["a FIFO", "a link", "a dir"] as const) {
    test(`replaced by ${kind}: the call is refused and does not run`, async () => {
      const { s, file } = await serving();
      const elsewhere = join(tempDir(), "elsewhere.jsonl");
      writeFileSync(elsewhere, "");
      renameSync(file, `${file}.old`);
      if (kind === "a FIFO") execFileSync("mkfifo", [file]);
      else if (kind === "a link") symlinkSync(elsewhere, file);
      else mkdirSync(file);
      try {
        const answer = resultJson(await s.client.callTool({ name: "sys_info", arguments: {} }));
        expect(answer.code).toBe("core.record.unavailable");
      } finally {
        await s.close();
      }
      expect(readFileSync(elsewhere, "utf8")).toBe("");
      expect(s.stderr()).toContain("the record cannot be written");
      // and the old file has only the first call (a free read, its one line): nothing was written to it after it
      // left the record's name
      expect(readRecord(`${file}.old`).lines.filter((l) => !l.kind || l.kind === "run")).toHaveLength(1);
    });
  }
});

describe("rta doctor on a record that is not a file", () => {
  for (const kind of ["a FIFO", "a link"] as const) {
    test(`${kind} at the record's name is a failed check, said at once`, async () => {
      const data = tempDir();
      const file = join(data, "agent-log.jsonl");
      const elsewhere = join(tempDir(), "elsewhere.jsonl");
      writeFileSync(elsewhere, "");
      // a FIFO made doctor wait for good on its open; a link to a writable file was said to be fine
      if (kind === "a FIFO") execFileSync("mkfifo", [file]);
      else symlinkSync(elsewhere, file);
      const r = await rta(["doctor", "--json"], { env: { RTA_DATA_DIR: data, RTA_CONFIG_DIR: tempDir() } });
      const findings = (JSON.parse(r.stdout) as { findings: { check: string; status: string; detail: string }[] })
        .findings;
      expect(findings.find((f) => f.check === "record")).toMatchObject({
        status: "fail",
        detail: expect.stringContaining("is not a file"),
      });
      expect(r.code).not.toBe(0);
    }, 20_000);
  }

  test("a FIFO at the checkpoint's name refuses every call, and doctor says so", async () => {
    const { s, data, env } = await serving();
    try {
      const checkpoint = join(data, "record.checkpoint");
      rmSync(checkpoint);
      execFileSync("mkfifo", [checkpoint]);
      expect(resultJson(await s.client.callTool({ name: "sys_info", arguments: {} })).code).toBe(
        "core.record.unavailable",
      );
      await doctorFailsOn(env, checkpoint);
      rmSync(checkpoint);
      expect(resultJson(await s.client.callTool({ name: "sys_info", arguments: {} })).type).toBe("object");
    } finally {
      await s.close();
    }
  }, 20_000);
  // The checkpoint is rewritten in place at its offset 0: a hard link at its name to the record's key or gate.db
  // had the next line write the checkpoint over that file's first bytes, losing the key (no line verifies any
  // more) or every grant and lock.
  for (const other of ["record.key", "gate.db"] as const) {
    test(`a hard link to ${other} at the checkpoint's name refuses every call and leaves ${other} as it was`, async () => {
      const { s, data, env } = await serving();
      const checkpoint = join(data, "record.checkpoint");
      const was = readFileSync(join(data, other));
      try {
        rmSync(checkpoint);
        linkSync(join(data, other), checkpoint);
        expect(resultJson(await s.client.callTool({ name: "sys_info", arguments: {} })).code).toBe(
          "core.record.unavailable",
        );
        expect(readFileSync(join(data, other)).equals(was)).toBe(true);
        await doctorFailsOn(env, checkpoint);
        rmSync(checkpoint);
        expect(resultJson(await s.client.callTool({ name: "sys_info", arguments: {} })).type).toBe("object");
      } finally {
        await s.close();
      }
    }, 20_000);
  }
});

describe("the checkpoint's mode", () => {
  // gate.db, where the checkpoint was kept, is made 0600 each time a server opens it. record.checkpoint kept the
  // mode it was found with: restored or made by hand open to others, along with the record, another account could
  // put an old checkpoint back over a cut tail, and --verify said the record was whole.
  test("a checkpoint open to others is made 0600 when a server opens it, so another account cannot roll it back", async () => {
    const data = tempDir();
    const config = tempDir();
    chmodSync(data, 0o755);
    const file = join(data, "agent-log.jsonl");
    const checkpoint = join(data, "record.checkpoint");
    const calls = async (n: number) => {
      const s = await connect("legacy", ["--agent", "claude"], { dataDir: data, env: { RTA_CONFIG_DIR: config } });
      try {
        for (let i = 0; i < n; i++)
          expect(resultJson(await s.client.callTool({ name: "sys_info", arguments: {} })).type).toBe("object");
      } finally {
        await s.close();
      }
    };
    await calls(1);
    chmodSync(file, 0o666);
    chmodSync(checkpoint, 0o666);
    await calls(1);
    expect(statSync(checkpoint).mode & 0o777).toBe(0o600);
    // As nobody: keep the checkpoint and the record's size as they are, let more calls be written, then cut the
    // record back and put the old checkpoint back.
    const aside = tempDir();
    chmodSync(aside, 0o777);
    const nobody = (script: string) =>
      spawnSync(AS_NOBODY[0] as string, [...AS_NOBODY.slice(1), "sh", "-c", script], {
        env: { PATH: process.env.PATH ?? "" },
      }).status;
    const size = statSync(file).size;
    expect(nobody(`cat ${checkpoint} > ${aside}/old`)).not.toBe(0);
    await calls(2);
    nobody(`truncate -s ${size} ${file}; cat ${aside}/old > ${checkpoint}`);
    const verified = await rta(["agent", "log", "--verify", "--json"], {
      env: { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config },
    });
    expect((JSON.parse(verified.stdout) as { problems: { kind: string }[] }).problems.map((p) => p.kind)).toContain(
      "cut-tail",
    );
  }, 30_000);
  test("a checkpoint of another account's, open to this one, refuses calls and doctor says so", async () => {
    // root ignores modes, so the server runs as nobody, in a data dir of its own, with a checkpoint root keeps
    const top = tempDir();
    const data = join(top, "data");
    mkdirSync(data);
    chmodSync(top, 0o755);
    chownSync(data, NOBODY, NOBODY);
    const checkpoint = join(data, "record.checkpoint");
    writeFileSync(checkpoint, "");
    chmodSync(checkpoint, 0o666);
    const asNobody = [...AS_NOBODY, RTA];
    const env = { PATH: process.env.PATH ?? "", RTA_DATA_DIR: data, RTA_CONFIG_DIR: join(top, "config"), HOME: top };
    const requests = [
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "x", version: "1" } },
      },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "sys_info", arguments: {} } },
    ];
    const served = spawnSync(asNobody[0] as string, [...asNobody.slice(1), "mcp", "serve", "--root", top], {
      env,
      input: requests.map((r) => `${JSON.stringify(r)}\n`).join(""),
    });
    const answer = served.stdout
      .toString()
      .split("\n")
      .find((l) => l.includes('"id":2'));
    expect(JSON.parse(JSON.parse(answer ?? "{}").result.content[0].text).code).toBe("core.record.unavailable");
    expect(statSync(checkpoint).mode & 0o777).toBe(0o666);
    const doctor = spawnSync(asNobody[0] as string, [...asNobody.slice(1), "doctor", "--json"], { env });
    const findings = (
      JSON.parse(doctor.stdout.toString()) as { findings: { check: string; status: string; detail: string }[] }
    ).findings;
    expect(findings).toContainEqual(
      expect.objectContaining({ check: "record", status: "fail", detail: `${checkpoint} cannot be written` }),
    );
  }, 30_000);
});
