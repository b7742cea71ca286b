/**
 * Python's: requirements*.txt (pins with `==`, read by a small line
 * tokenizer), poetry.lock and uv.lock (TOML, by Bun's parser) and
 * Pipfile.lock (JSON). Names are normalised as PEP 503 says, as osv.dev files them.
 */
import { type Dep, record, str, unique } from "./types.ts";

/** A PyPI name as PEP 503 normalises it: lower case, runs of `-`, `_` and `.` one `-`. */
export function pypiName(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, "-");
}

const NAME_CHARS = /[A-Za-z0-9._-]/;

/**
 * One requirement line's pin: the name, and the version after `==` (or
 * `===`); undefined for a comment, an option (`-r`, `--hash`), a URL, or a
 * requirement with no exact pin.
 */
export function requirementPin(line: string): { name: string; version: string } | undefined {
  let text = line;
  const hash = text.search(/(^|\s)#/);
  if (hash >= 0) text = text.slice(0, hash);
  text = text.trim();
  if (text === "" || text.startsWith("-")) return undefined;
  let i = 0;
  while (i < text.length && NAME_CHARS.test(text[i] as string)) i++;
  const name = text.slice(0, i);
  if (name === "") return undefined;
  if (text[i] === "[") {
    const close = text.indexOf("]", i);
    if (close < 0) return undefined;
    i = close + 1;
  }
  while (text[i] === " ") i++;
  const op = text.startsWith("===", i) ? "===" : text.startsWith("==", i) ? "==" : undefined;
  if (!op) return undefined;
  i += op.length;
  while (text[i] === " ") i++;
  let j = i;
  while (j < text.length && !" ;,\\".includes(text[j] as string)) j++;
  const version = text.slice(i, j);
  if (version === "" || version.includes("*") || text.slice(j).trimStart().startsWith(",")) return undefined;
  return { name, version };
}

/** requirements*.txt: each exact pin; refuses nothing (a line it cannot read is not a pin). */
export function parseRequirements(text: string): Dep[] {
  const out: Dep[] = [];
  // a line ending in `\` goes on in the next one
  for (const line of text.replace(/\\\r?\n/g, " ").split(/\r?\n/)) {
    const pin = requirementPin(line);
    if (pin) out.push({ name: pypiName(pin.name), version: pin.version, ecosystem: "PyPI" });
  }
  return unique(out);
}

/** poetry.lock or uv.lock: each `[[package]]` with a name and version; throws on text that is not TOML. */
export function parsePythonTomlLock(text: string): Dep[] {
  const lock = record(Bun.TOML.parse(text)) ?? {};
  const out: Dep[] = [];
  for (const entry of Array.isArray(lock.package) ? lock.package : []) {
    const e = record(entry);
    const name = str(e?.name);
    const version = str(e?.version);
    const source = record(e?.source);
    // uv: the project itself and path or git checkouts are not releases on PyPI
    if (source && (source.editable !== undefined || source.virtual !== undefined || source.git !== undefined)) continue;
    // poetry: a git checkout, a directory or a file is not a release on PyPI (a legacy index is)
    if (source && ["git", "directory", "file", "url"].includes(String(source.type))) continue;
    if (name && version) out.push({ name: pypiName(name), version, ecosystem: "PyPI" });
  }
  return unique(out);
}

/** Pipfile.lock: `default` and `develop`, each name to `{ "version": "==x" }`; throws on text that is not JSON. */
export function parsePipfileLock(text: string): Dep[] {
  const lock = record(JSON.parse(text)) ?? {};
  const out: Dep[] = [];
  for (const group of ["default", "develop"]) {
    for (const [name, entry] of Object.entries(record(lock[group]) ?? {})) {
      const pinned = str(record(entry)?.version);
      if (pinned?.startsWith("==")) out.push({ name: pypiName(name), version: pinned.slice(2), ecosystem: "PyPI" });
    }
  }
  return unique(out);
}
