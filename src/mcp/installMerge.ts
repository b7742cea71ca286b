/**
 * A registration put into a client's file: merged with --write (the file
 * read in its own format first, other servers, settings and comments kept,
 * an earlier rta entry replaced, the old file kept beside it, the new one
 * renamed into place), or checked before it is appended to the file stdout
 * writes into, so `rta mcp install codex >> config.toml` never leaves a file
 * the client cannot read.
 */
import {
  closeSync,
  constants,
  copyFileSync,
  existsSync,
  fstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname } from "node:path";
import { RtaError } from "../core/errors.ts";
import { type Client, codexTable, containerKey, entry, type Registration, SERVER_KEY } from "./install.ts";
import { NotJson, setNested } from "./jsonEdit.ts";
import { replaceTable } from "./tomlEdit.ts";

/** The name of a client's file format, as an error says it. */
function formatName(client: Client): string {
  return client === "codex" ? "TOML" : client === "vscode" ? "JSON with comments" : "JSON";
}

/** The text parsed as the client parses it: TOML for codex, JSON with comments for vscode, JSON for the rest. */
export function parseAs(client: Client, text: string): unknown {
  if (client === "codex") return Bun.TOML.parse(text);
  if (client === "vscode") return Bun.JSONC.parse(text);
  return JSON.parse(text);
}

/** A file's name as a message says it: quoted, its controls escaped, when it holds any. */
function named(file: string): string {
  return /[\p{Cc}\p{Cf}\u2028\u2029]/u.test(file) ? JSON.stringify(file) : file;
}

function unreadable(file: string, client: Client, why: string): RtaError {
  return new RtaError(
    "core.config.unreadable",
    `${named(file)} is not ${formatName(client)} that rta can read (${why}), so rta will not write into it`,
    "fix or move the file, or run without --write and paste the registration in yourself",
  );
}

function reason(err: unknown): string {
  return ((err as Error)?.message ?? String(err)).split("\n")[0]?.replace(/^TOML Parse error: /, "") ?? "";
}

/** The parsed file as an object; refuses (core.config.unreadable) what does not parse or is no table/object at the top. */
function readDoc(client: Client, text: string, file: string): Record<string, unknown> {
  if (text.trim() === "") return {};
  let doc: unknown;
  try {
    doc = parseAs(client, text);
  } catch (err) {
    throw unreadable(file, client, reason(err));
  }
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) throw unreadable(file, client, "not an object");
  return doc as Record<string, unknown>;
}

/**
 * The client's file with this registration merged in: other servers,
 * settings and comments kept, an earlier rta entry replaced. Refuses
 * (core.config.unreadable) a file it cannot read in the client's format,
 * and one whose rta entry is in a form it cannot replace without touching
 * the rest; the merged text is parsed again and compared before it is
 * returned.
 */
export function mergeInto(existing: string | undefined, reg: Registration, file: string): string {
  const text = existing ?? "";
  const doc = readDoc(reg.client, text, file);
  const key = containerKey(reg.client);
  const servers = doc[key];
  if (servers !== undefined && (typeof servers !== "object" || servers === null || Array.isArray(servers)))
    throw unreadable(file, reg.client, `its "${key}" is not a table of servers`);
  let merged: string;
  try {
    merged =
      reg.client === "codex"
        ? replaceTable(text, [key, SERVER_KEY], codexTable(reg))
        : setNested(text, key, SERVER_KEY, entry(reg));
  } catch (err) {
    if (err instanceof NotJson) throw unreadable(file, reg.client, err.message);
    throw err;
  }
  // codex's table parses to the same value the JSON clients hold: entry(reg)
  const want = { ...doc, [key]: { ...(servers as Record<string, unknown> | undefined), [SERVER_KEY]: entry(reg) } };
  let got: unknown;
  try {
    got = parseAs(reg.client, merged);
  } catch {
    got = undefined;
  }
  if (!Bun.deepEquals(got, want, true))
    throw new RtaError(
      "core.config.unreadable",
      `${named(file)} registers ${SERVER_KEY} in a form rta cannot replace without changing the rest of the file`,
      `take the ${SERVER_KEY} entry out of the file yourself, then run again`,
    );
  return merged;
}

/**
 * What to print so that appending it to `existing` (the file stdout writes
 * into) still gives a file the client reads: the registration, after a
 * newline when the file does not end in one. Refuses (core.config.unreadable)
 * an append that would break the file: to a JSON file that is not empty (two
 * documents), to a TOML file that already registers rta or does not parse.
 */
export function appendable(existing: string, reg: Registration, rendered: string, file: string): string {
  if (existing.trim() === "") return rendered;
  // the same command, not a bare `rta mcp install <client> --write`: that would drop the person's --root and
  // --project, and register a server that serves whatever directory the client starts it in
  const write =
    "run the same command with --write in place of the redirection, to merge it into the client's file, keeping the rest";
  if (reg.client !== "codex")
    throw new RtaError(
      "core.config.unreadable",
      `${named(file)} is not empty, and a second JSON object after it would leave a file ${reg.client} cannot read`,
      write,
    );
  const doc = readDoc(reg.client, existing, file);
  if ((doc.mcp_servers as Record<string, unknown> | undefined)?.[SERVER_KEY] !== undefined)
    throw new RtaError(
      "core.config.unreadable",
      `${named(file)} already registers ${SERVER_KEY}, and a second [mcp_servers.${SERVER_KEY}] table would leave a file codex cannot read`,
      write,
    );
  const text = `${existing.endsWith("\n") ? "" : "\n"}\n${rendered}`;
  try {
    parseAs("codex", existing + text);
  } catch (err) {
    throw unreadable(file, "codex", reason(err));
  }
  return text;
}

/** A client's config is a few KiB; one past this is no config a person keeps, and is not read into memory. */
export const CLIENT_FILE_LIMIT_BYTES = 4 * 1024 * 1024;

/**
 * The text of the client's file at `target`, opened without waiting (a FIFO
 * in its place has no writer to wait for) and read only when it is a regular
 * file of at most CLIENT_FILE_LIMIT_BYTES; refuses anything else
 * (core.config.unreadable), naming it as `file`.
 */
function readClientFile(target: string, client: Client, file: string): string {
  const fd = openSync(target, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw unreadable(file, client, "not a regular file");
    if (st.size > CLIENT_FILE_LIMIT_BYTES)
      throw unreadable(file, client, `larger than ${CLIENT_FILE_LIMIT_BYTES / 1024 / 1024} MiB`);
    return readFileSync(fd, "utf8");
  } finally {
    closeSync(fd);
  }
}

export interface Written {
  file: string;
  backup?: string;
  /** the other servers the file registers, kept as they were: the client will start them too */
  others: string[];
}

/** The names of the servers other than rta's that the client's file registers; none for a file that is not there. */
function otherServers(client: Client, existing: string | undefined, file: string): string[] {
  const servers = readDoc(client, existing ?? "", file)[containerKey(client)];
  if (servers === null || typeof servers !== "object" || Array.isArray(servers)) return [];
  return Object.keys(servers).filter((name) => name !== SERVER_KEY);
}

/**
 * Writes the merged file atomically (a temp file beside it, then a rename),
 * after copying the old one aside; a file that is a link is written where
 * the link leads, so a dotfiles checkout keeps its link. Refuses what
 * mergeInto refuses; a failed write is the file system's error.
 */
export function writeRegistration(reg: Registration, file: string, now = new Date()): Written {
  const target = existsSync(file) ? realpathSync(file) : file;
  const existing = existsSync(target) ? readClientFile(target, reg.client, file) : undefined;
  const merged = mergeInto(existing, reg, file);
  mkdirSync(dirname(target), { recursive: true });
  const out: Written = { file, others: otherServers(reg.client, existing, file) };
  let mode = 0o600;
  if (existing !== undefined) {
    mode = statSync(target).mode & 0o777;
    out.backup = `${target}.bak-${now.toISOString().replace(/[:.]/g, "-")}`;
    copyFileSync(target, out.backup);
  }
  const temp = `${target}.rta-tmp-${process.pid}`;
  try {
    writeFileSync(temp, merged, { mode });
    renameSync(temp, target);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
  return out;
}
