/**
 * What a person approved of each upstream: every tool's definition as it was
 * then (and its digest), and for a stdio upstream the sha256 of its
 * executable. Kept in the data dir (`upstreams/approved.json`, 0600, written
 * whole under a lock). A new upstream is in quarantine until approved once; a
 * tool whose definition differs from the approved one, or that appeared
 * since, is withheld; a stdio upstream whose executable changed is withheld
 * whole. A grant on an upstream or its tools binds to the approval's pin.
 */
import { createHash } from "node:crypto";
import { accessSync, constants, mkdirSync, realpathSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { canonical } from "../core/canonical.ts";
import type { UpstreamConfig } from "../core/configUpstreams.ts";
import { RtaError } from "../core/errors.ts";
import { releaseFileLock, tryFileLock } from "../core/fileLock.ts";
import { readRegularFileSync } from "../core/regularFile.ts";
import { type Digest, fileDigest, rememberDigest } from "../plugins/digest.ts";
import type { SelectedDefinition } from "./catalog.ts";
import type { UpstreamTool } from "./discover.ts";
import { KEPT_FILE_BYTES, readUpstreamsFile } from "./kept.ts";

/** Where in the data dir the approvals are kept. */
export const APPROVALS_FILE = join("upstreams", "approved.json");

/** A tool as it was approved: its definition and digest. */
export type ApprovedTool = Omit<UpstreamTool, "fault">;

/**
 * How an upstream is reached, as its approval binds it: a stdio upstream's
 * whole command (program and arguments) and the names of its env's variables
 * (sorted; none kept when it has none), an HTTP upstream's URL. The env's
 * values and the headers are not bound: they carry credentials an operator
 * rotates. A name is: `NODE_OPTIONS` or `PYTHONPATH` added makes the same
 * program run other code.
 */
export type Reach = { command: string[]; env?: string[] } | { url: string };

/** How `config` reaches its upstream, as an approval binds it. */
export function reachOf(config: UpstreamConfig): Reach {
  if (config.transport.kind !== "stdio") return { url: config.transport.url };
  const env = Object.keys(config.transport.env).sort();
  return { command: [...config.transport.command], ...(env.length > 0 ? { env } : {}) };
}

/** What of how an upstream is reached moved between `old` and `now`: "its command", "its env's names" or "its URL". */
export function reachMoved(old: Reach | undefined | null, now: Reach): string {
  if (!("command" in now)) return "its URL";
  const same = old != null && "command" in old && canonical(old.command) === canonical(now.command);
  return same ? "its env's variable names" : "its command";
}

export interface Approval {
  approved_at: string;
  /** the sha256 of a stdio upstream's executable when it was approved */
  exe?: string;
  /** how the upstream was reached when it was approved (none: approved before rta bound it) */
  reach?: Reach;
  tools: ApprovedTool[];
  /** the selected resources, templates and prompts as they were approved (config's `select`) */
  selected?: SelectedDefinition[];
}

export type Approvals = Record<string, Approval>;

/** A tool withheld from agents, and why. */
export interface Withheld {
  tool: string;
  code: "upstream.quarantined" | "upstream.changed";
  reason: string;
}

/** Every approval kept; none when the file is missing or unreadable. Refuses nothing. */
export function readApprovals(dataDir: string): Approvals {
  return readUpstreamsFile(join(dataDir, APPROVALS_FILE)) as Approvals;
}

/**
 * Applies `change` to the approvals under the lock and writes them whole
 * (0600); throws what the system says, and upstream.busy when another live
 * rta holds the lock past the wait.
 */
export function updateApprovals(dataDir: string, change: (a: Approvals) => void): void {
  const dir = join(dataDir, "upstreams");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const lock = join(dir, "approved.lock");
  for (let i = 0; !tryFileLock(lock); i++) {
    if (i > 200)
      throw new RtaError(
        "upstream.busy",
        "another rta is approving or removing an upstream",
        "wait for it to finish, then run the command again",
      );
    Bun.sleepSync(10);
  }
  try {
    const approvals = readApprovals(dataDir);
    change(approvals);
    const file = join(dataDir, APPROVALS_FILE);
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify({ version: 1, upstreams: approvals }, null, 1)}\n`, { mode: 0o600 });
    renameSync(tmp, file);
  } finally {
    releaseFileLock(lock);
  }
}

/**
 * The sha256 of the program a stdio upstream's child runs: command[0] found
 * on its PATH as the child would find it (config's env PATH, else rta's),
 * its links followed; undefined for an http upstream or a program not found.
 * A digest is kept in `dataDir` by the file's identity (plugins/digest.ts):
 * a server that starts hashes a 100 MB interpreter again only once it changed.
 */
export function exeDigest(config: UpstreamConfig, dataDir?: string): string | undefined {
  if (config.transport.kind !== "stdio") return undefined;
  const program = config.transport.command[0] ?? "";
  const path = config.transport.env.PATH ?? "/usr/local/bin:/usr/bin:/bin";
  const candidates = program.includes("/")
    ? [resolve("/", program)]
    : // as the child, started in /, finds it: a relative (or empty) entry of PATH is taken from /
      path.split(":").map((dir) => resolve("/", dir, program));
  const kept = dataDir === undefined ? {} : keptDigests(dataDir);
  for (const candidate of candidates) {
    let real: string;
    try {
      real = realpathSync(candidate);
      // a file the child cannot run is passed over by it: the next directory of PATH
      if (!statSync(real).isFile()) continue;
      accessSync(real, constants.X_OK);
    } catch {
      continue; // not there: the next directory of PATH
    }
    const before = kept[real];
    if (before !== undefined) rememberDigest(real, before);
    try {
      const digest = fileDigest(real);
      if (dataDir !== undefined && before?.identity !== digest.identity) keepDigest(dataDir, real, digest);
      return digest.sha256;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

const DIGESTS = join("upstreams", "executables.json");

function keptDigests(dataDir: string): Record<string, Digest> {
  try {
    const bytes = readRegularFileSync(join(dataDir, DIGESTS), KEPT_FILE_BYTES).bytes;
    return JSON.parse(Buffer.from(bytes).toString("utf8")) as Record<string, Digest>;
  } catch {
    return {};
  }
}

function keepDigest(dataDir: string, file: string, digest: Digest): void {
  try {
    const all = { ...keptDigests(dataDir), [file]: digest };
    mkdirSync(join(dataDir, "upstreams"), { recursive: true, mode: 0o700 });
    const tmp = join(dataDir, `${DIGESTS}.${process.pid}.tmp`);
    writeFileSync(tmp, JSON.stringify(all), { mode: 0o600 });
    renameSync(tmp, join(dataDir, DIGESTS));
  } catch {
    // hashed again next time
  }
}

/** The pin a grant on the upstream or one of its tools binds to: its approval's digests. Refuses nothing. */
export function approvalPin(approval: Approval): string {
  const tools = Object.fromEntries(approval.tools.map((t) => [t.name, t.digest]));
  const reach = approval.reach !== undefined ? { reach: approval.reach } : {};
  return createHash("sha256")
    .update(canonical({ exe: approval.exe ?? null, tools, ...reach }))
    .digest("hex");
}

/**
 * The tools offered (approved as they are now) and those withheld with why,
 * given what a discovery found now (`tools`, and `exe`, the executable's
 * digest then). A `stdio` upstream whose executable was not hashed (not
 * readable) now or at its approval is withheld whole: nothing pins what it
 * runs. Given `reach` (how config reaches it now), an upstream reached
 * otherwise than approved (another command or URL) is withheld whole too.
 * Refuses nothing.
 */
export function judged(
  name: string,
  tools: readonly UpstreamTool[],
  exe: string | undefined,
  approval: Approval | undefined,
  stdio = false,
  reach?: Reach,
): { offered: UpstreamTool[]; withheld: Withheld[] } {
  const hint = `rta upstream approve ${name}`;
  if (approval === undefined) {
    const reason = `not approved yet: a person runs \`${hint}\``;
    return { offered: [], withheld: tools.map((t) => ({ tool: t.name, code: "upstream.quarantined", reason })) };
  }
  const whole = wholeWithheld(name, exe, approval, stdio, reach);
  if (whole !== undefined) return { offered: [], withheld: tools.map((t) => ({ ...whole, tool: t.name })) };
  const was = new Map(approval.tools.map((t) => [t.name, t.digest]));
  const offered: UpstreamTool[] = [];
  const withheld: Withheld[] = [];
  for (const t of tools) {
    const digest = was.get(t.name);
    if (digest === t.digest) offered.push(t);
    else if (digest === undefined)
      withheld.push({ tool: t.name, code: "upstream.quarantined", reason: `new since the approval: \`${hint}\`` });
    else withheld.push({ tool: t.name, code: "upstream.changed", reason: `changed since the approval: \`${hint}\`` });
  }
  return { offered, withheld };
}

/** Why a stdio upstream is withheld whole (its executable changed, or cannot be read); undefined when it is not. */
export function wholeWithheld(
  name: string,
  exe: string | undefined,
  approval: Approval,
  stdio: boolean,
  reach?: Reach,
): Withheld | undefined {
  const hint = `rta upstream approve ${name}`;
  if ((approval.exe !== undefined || stdio) && (exe !== approval.exe || exe === undefined)) {
    const what =
      exe === undefined ? "its program cannot be read to check it" : "its executable changed since it was approved";
    return { tool: "", code: "upstream.changed", reason: `${what}: a person runs \`${hint}\`` };
  }
  if (reach !== undefined && !sameReach(approval.reach, reach)) {
    const what = reachMoved(approval.reach, reach);
    return {
      tool: "",
      code: "upstream.changed",
      reason: `${what} changed since it was approved: a person runs \`${hint}\``,
    };
  }
  return undefined;
}

/** Whether an approval's reach is `now` (one approved before rta bound it is not). */
export function sameReach(approved: Reach | undefined, now: Reach): boolean {
  return approved !== undefined && canonical(approved) === canonical(now);
}

/** The approval of `tools` as found now, reached by `reach`, with the `selected` definitions. */
export function approvalOf(
  tools: readonly UpstreamTool[],
  exe: string | undefined,
  at: Date,
  reach?: Reach,
  selected: readonly SelectedDefinition[] = [],
): Approval {
  return {
    approved_at: at.toISOString(),
    ...(exe !== undefined ? { exe } : {}),
    ...(reach !== undefined ? { reach } : {}),
    tools: tools.map(({ fault: _fault, ...t }) => t),
    ...(selected.length > 0 ? { selected: [...selected] } : {}),
  };
}
