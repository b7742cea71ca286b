/**
 * go.sum (a line format of three fields), Cargo.lock (TOML), Gemfile.lock
 * (bundler's indented line format) and composer.lock (JSON).
 */
import { type Dep, record, str, unique } from "./types.ts";

/** Splits a line on runs of spaces and tabs; refuses nothing. */
function fields(line: string): string[] {
  const out: string[] = [];
  let word = "";
  for (const c of line) {
    if (c === " " || c === "\t" || c === "\r") {
      if (word !== "") out.push(word);
      word = "";
    } else word += c;
  }
  if (word !== "") out.push(word);
  return out;
}

/**
 * go.sum: `module version hash`, a module's `/go.mod` line beside its tree's.
 * Versions lose their `v`, as osv.dev files Go's; `+incompatible` is kept off too.
 */
export function parseGoSum(text: string): Dep[] {
  const out: Dep[] = [];
  for (const line of text.split("\n")) {
    const [name, raw, hash] = fields(line);
    if (!name || !raw || !hash) continue;
    const version = raw.replace(/\/go\.mod$/, "").replace(/\+incompatible$/, "");
    if (!version.startsWith("v")) continue;
    out.push({ name, version: version.slice(1), ecosystem: "Go" });
  }
  return unique(out);
}

/** Cargo.lock: each `[[package]]` from a registry (not a path or git checkout); throws on text that is not TOML. */
export function parseCargoLock(text: string): Dep[] {
  const lock = record(Bun.TOML.parse(text)) ?? {};
  const out: Dep[] = [];
  for (const entry of Array.isArray(lock.package) ? lock.package : []) {
    const e = record(entry);
    const name = str(e?.name);
    const version = str(e?.version);
    const source = str(e?.source);
    const fromRegistry = source?.startsWith("registry+") === true || source?.startsWith("sparse+") === true;
    if (name && version && fromRegistry) out.push({ name, version, ecosystem: "crates.io" });
  }
  return unique(out);
}

/**
 * Gemfile.lock: the `specs:` of each `GEM` section, a gem at four spaces as
 * `name (version)` (its own dependencies are at six). A platform after the
 * version (`1.13.10-x86_64-linux`) is left off.
 */
export function parseGemfileLock(text: string): Dep[] {
  const out: Dep[] = [];
  let section = "";
  let inSpecs = false;
  for (const raw of text.split("\n")) {
    const line = raw.replace(/\r$/, "");
    if (line.trim() === "") continue;
    let indent = 0;
    while (line[indent] === " ") indent++;
    if (indent === 0) {
      section = line.trim();
      inSpecs = false;
      continue;
    }
    if (indent === 2) {
      inSpecs = section === "GEM" && line.trim() === "specs:";
      continue;
    }
    if (indent !== 4 || !inSpecs) continue;
    const [name, paren] = fields(line);
    if (!name || !paren?.startsWith("(") || !paren.endsWith(")")) continue;
    const version = paren.slice(1, -1).split("-")[0] as string;
    if (version !== "") out.push({ name, version, ecosystem: "RubyGems" });
  }
  return unique(out);
}

/** composer.lock: `packages` and `packages-dev`, a leading `v` left off; throws on text that is not JSON. */
export function parseComposerLock(text: string): Dep[] {
  const lock = record(JSON.parse(text)) ?? {};
  const out: Dep[] = [];
  for (const group of ["packages", "packages-dev"]) {
    for (const entry of Array.isArray(lock[group]) ? (lock[group] as unknown[]) : []) {
      const e = record(entry);
      const name = str(e?.name);
      const version = str(e?.version)?.replace(/^v/, "");
      if (name && version && /^\d/.test(version)) out.push({ name, version, ecosystem: "Packagist" });
    }
  }
  return unique(out);
}
