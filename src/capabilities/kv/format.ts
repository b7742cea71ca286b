/**
 * The kv store's plaintext, as docs/secrets.md documents it: a first line
 * `# rta kv 1`, then one JSON object per line, in name order:
 * `{"name":"deploy-key","value":"…","comment":"…","modified":"2026-12-01T14:00:00.000Z"}`
 * (`comment` may be absent). A person can write it by hand and encrypt it
 * with the age CLI. A line that is not so is refused by its number, never
 * its text: the text may be a value.
 */
import { RtaError } from "../../core/errors.ts";

export interface KvEntry {
  name: string;
  value: string;
  comment?: string;
  /** when the value or comment was last set, as an ISO 8601 UTC time */
  modified: string;
}

/** The first line of the plaintext. */
export const HEADER = "# rta kv 1";

const NAME = /^[A-Za-z0-9._/-]{1,128}$/;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;
const FIELDS = new Set(["name", "value", "comment", "modified"]);

/** Why `name` cannot name a key (empty when it can): 1–128 of `A-Z a-z 0-9 . _ / -`, no leading `-` or `/`, no `..` segment. */
export function nameProblem(name: string): string {
  if (!NAME.test(name)) return "a key name is 1 to 128 letters, digits, `.`, `_`, `/` or `-`";
  if (name.startsWith("-") || name.startsWith("/")) return "a key name starts with no `-` or `/`";
  if (name.split("/").includes("..")) return "a key name has no `..` segment";
  return "";
}

/** Refuses (core.input.invalid, with a hint) a name nameProblem finds a problem with. */
export function checkName(name: string): void {
  const problem = nameProblem(name);
  if (problem !== "")
    throw new RtaError(
      "core.input.invalid",
      `${problem}`,
      "name keys like `deploy-key`, `db/prod.password` or `team.api_token`",
    );
}

/**
 * Reads the plaintext into a map by name. Refuses (kv.format, naming the
 * line) a missing header, a line that is no JSON object of the documented
 * fields, a bad name or time, and a name given twice. Lines may come in any
 * order; a final newline and a CRLF ending are taken. With `edited` (a
 * person's `rta kv edit`, which stamps every key it adds or changes) a line
 * may leave `modified` out, and its entry's `modified` is "".
 */
export function parseStore(text: string, edited = false): Map<string, KvEntry> {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const strip = (line: string) => (line.endsWith("\r") ? line.slice(0, -1) : line);
  if (lines.length === 0 || strip(lines[0] as string) !== HEADER)
    throw formatError(1, `its first line is not \`${HEADER}\``);
  const store = new Map<string, KvEntry>();
  for (let i = 1; i < lines.length; i++) {
    const entry = parseLine(strip(lines[i] as string), i + 1, edited);
    if (store.has(entry.name)) throw formatError(i + 1, "it names a key an earlier line names");
    store.set(entry.name, entry);
  }
  return store;
}

function parseLine(line: string, at: number, edited: boolean): KvEntry {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw formatError(at, "it is not one JSON object");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw formatError(at, "it is not one JSON object");
  const o = value as Record<string, unknown>;
  // the field is not named: a value typed where a field's name goes would be said
  for (const key of Object.keys(o))
    if (!FIELDS.has(key)) throw formatError(at, "it has a field other than `name`, `value`, `comment` and `modified`");
  if (typeof o.name !== "string" || nameProblem(o.name) !== "") throw formatError(at, "its `name` is no key name");
  if (typeof o.value !== "string") throw formatError(at, "its `value` is not a string");
  if (o.comment !== undefined && typeof o.comment !== "string") throw formatError(at, "its `comment` is not a string");
  if (o.modified === undefined && !edited) throw formatError(at, "it has no `modified`");
  if (
    o.modified !== undefined &&
    (typeof o.modified !== "string" || !ISO_TIME.test(o.modified) || Number.isNaN(Date.parse(o.modified)))
  )
    throw formatError(at, "its `modified` is not a UTC time like 2026-12-01T14:00:00.000Z");
  const entry: KvEntry = { name: o.name, value: o.value, modified: typeof o.modified === "string" ? o.modified : "" };
  if (o.comment !== undefined) entry.comment = o.comment;
  return entry;
}

function formatError(line: number, why: string): RtaError {
  return new RtaError(
    "kv.format",
    `the kv store's line ${line} does not read as rta's format: ${why}`,
    "decrypt it with `age -d -i <identity> kv.age`, mend that line as docs/secrets.md shows, and encrypt it again",
  );
}

/** The plaintext of a store: the header, then each entry's line in name order (by code point), then a newline. */
export function formatStore(store: ReadonlyMap<string, KvEntry>): string {
  const names = [...store.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const lines = [HEADER];
  for (const name of names) {
    const e = store.get(name) as KvEntry;
    // the documented order of fields: name, value, comment, modified
    const line =
      e.comment === undefined
        ? { name: e.name, value: e.value, modified: e.modified }
        : { name: e.name, value: e.value, comment: e.comment, modified: e.modified };
    lines.push(JSON.stringify(line));
  }
  return `${lines.join("\n")}\n`;
}

/** A key's `modified` as a result gives it: ISO 8601 in UTC to the second, as rta's other times; a time that does not read is given as it is. */
export function isoSecond(modified: string): string {
  const at = Date.parse(modified);
  return Number.isNaN(at) ? modified : new Date(at).toISOString().replace(/\.\d+Z$/, "Z");
}
