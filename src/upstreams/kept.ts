/**
 * What the last discovery found of each upstream, kept in the data dir
 * (`upstreams/discovered.json`, 0600, written whole) under the digest of how
 * the upstream is reached: its tools and its selections, or why it failed. A
 * person's command knows the tools without starting anything, and a running
 * server takes up another process's.
 */
import { createHash } from "node:crypto";
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { canonical } from "../core/canonical.ts";
import type { UpstreamConfig } from "../core/configUpstreams.ts";
import { readRegularFileSync } from "../core/regularFile.ts";
import type { CatalogFound } from "./catalog.ts";
import type { UpstreamTool } from "./discover.ts";

/** Where in the data dir the last discovery is kept. */
export const KEPT_FILE = join("upstreams", "discovered.json");
/** What the approvals' or discoveries' file may hold: 10,000 tools of 10 MiB for each of a few dozen upstreams. */
export const KEPT_FILE_BYTES = 512 * 1024 * 1024;

/** What the last discovery found of each upstream: its tools, or why it failed. */
export type Kept = Record<
  string,
  { config: string; tools?: UpstreamTool[]; reason?: string; exe?: string; catalog?: CatalogFound }
>;

/** A digest of how an upstream is reached: a changed command, url, env or header forgets what was found. */
export function configDigest(config: UpstreamConfig): string {
  return createHash("sha256").update(canonical(config.transport)).digest("hex");
}

/** What the data dir keeps; nothing when the file is missing or unreadable. Refuses nothing. */
export function readKept(dataDir: string): Kept {
  return readUpstreamsFile(join(dataDir, KEPT_FILE)) as Kept;
}

/**
 * The `upstreams` table of a version 1 file (the discoveries' or the
 * approvals'); empty when it is missing, unreadable or of another version.
 * Refuses nothing.
 */
export function readUpstreamsFile(file: string): Record<string, unknown> {
  try {
    // a FIFO put at its name would hold a running server, which reads it again as the file changes
    const bytes = readRegularFileSync(file, KEPT_FILE_BYTES).bytes;
    const read = JSON.parse(Buffer.from(bytes).toString("utf8")) as { version?: unknown; upstreams?: unknown };
    if (read.version !== 1 || typeof read.upstreams !== "object" || read.upstreams === null) return {};
    return read.upstreams as Record<string, unknown>;
  } catch {
    return {};
  }
}

/** Writes `kept` whole (0600); a failure leaves a person's command knowing fewer tools. Refuses nothing. */
export function writeKept(dataDir: string, kept: Kept): void {
  try {
    const file = join(dataDir, KEPT_FILE);
    mkdirSync(join(dataDir, "upstreams"), { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ version: 1, upstreams: kept }), { mode: 0o600 });
    renameSync(tmp, file);
  } catch {
    // a person's command then knows fewer tools; the server offers what it found all the same
  }
}
