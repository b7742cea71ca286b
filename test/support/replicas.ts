/**
 * What the replica tests share: the URIs a client is told changed, with a wait for the next; two `rta mcp serve
 * --http` replicas on a fresh PostgreSQL store with one root and an agent's token; a replica's record session, which
 * ends its owner name in the store's lease rows; and a count of a table's rows.
 */

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { SQL } from "bun";
import { tempDir } from "./fixtures.ts";
import { type RunningHttp, startHttp } from "./httpServer.ts";
import { rta } from "./rta.ts";

/** The URIs `client` is told changed, in order, and a wait for the `n`th. No wait is timed. */
export function updates(client: Client) {
  const told: string[] = [];
  let wake: (() => void) | undefined;
  client.setNotificationHandler("notifications/resources/updated", async (n) => {
    told.push(n.params.uri);
    wake?.();
  });
  const nth = async (n: number) => {
    while (told.length < n) await new Promise<void>((resolve) => (wake = resolve));
    return told[n - 1] as string;
  };
  return { told, nth };
}

/**
 * Two replicas on the fresh store `store`, sharing one root with notes.txt in it, each pushed to `running` (for the
 * caller to stop), and a token of agent claude.
 */
export async function twoReplicas(store: string, running: RunningHttp[]) {
  const root = tempDir();
  writeFileSync(join(root, "notes.txt"), "one\n");
  const [a, b] = (await Promise.all([0, 1].map(() => startHttp(["--root", root, "--store", store])))) as [
    RunningHttp,
    RunningHttp,
  ];
  running.push(a, b);
  const env = { RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: tempDir() };
  const made = await rta(["mcp", "token", "new", "--agent", "claude", "--json", "--store", store], { env });
  const token = JSON.parse(made.stdout).token as string;
  return { store, file: join(root, "notes.txt"), a, b, token };
}

/** The replica's record session, which its banner says and which ends its owner name in the store's rows. */
export function sessionOf(srv: RunningHttp): string {
  const session = srv.stderr().match(/\(session ([^)\s]+)\)/)?.[1];
  if (session === undefined) throw new Error(`no session in: ${srv.stderr()}`);
  return session;
}

/** How many rows `table` of `store` holds. */
export async function count(store: string, table: string): Promise<number> {
  const sql = new SQL(store, { max: 1 });
  try {
    return (await sql.unsafe(`SELECT count(*)::int AS n FROM ${table}`))[0].n as number;
  } finally {
    await sql.close();
  }
}
