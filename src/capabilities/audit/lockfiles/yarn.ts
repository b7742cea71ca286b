/**
 * yarn.lock: v1's own line format, read by a small tokenizer, and berry's
 * (yarn 2 and later) YAML, read by Bun's YAML parser.
 */
import { type Dep, record, str, unique } from "./types.ts";

/** One line of a yarn v1 lockfile: its indent, its words (quotes taken off), and whether it ends a key with `:`. */
export interface YarnLine {
  indent: number;
  words: string[];
  opens: boolean;
}

/** Splits one v1 line into words: quoted strings (with `\"` kept) or runs up to a space, comma or colon. */
export function yarnTokens(line: string): YarnLine {
  let i = 0;
  while (line[i] === " ") i++;
  const indent = i;
  const words: string[] = [];
  let opens = false;
  while (i < line.length) {
    const c = line[i] as string;
    if (c === " " || c === ",") {
      i++;
    } else if (c === '"') {
      let word = "";
      i++;
      while (i < line.length && line[i] !== '"') {
        if (line[i] === "\\" && i + 1 < line.length) i++;
        word += line[i];
        i++;
      }
      i++;
      words.push(word);
    } else if (c === ":" && (i + 1 === line.length || line[i + 1] === " ")) {
      opens = true;
      i++;
    } else {
      let word = "";
      while (i < line.length && !" ,".includes(line[i] as string)) {
        if (line[i] === ":" && (i + 1 === line.length || line[i + 1] === " ")) break;
        word += line[i];
        i++;
      }
      words.push(word);
    }
  }
  return { indent, words, opens };
}

/** The package a spec names: `@s/a@^1` is `@s/a`, `a@npm:^1` is `a`, `b@npm:@s/a@^1` is `@s/a`. */
function specName(spec: string): string | undefined {
  const at = spec.indexOf("@", 1);
  if (at < 0) return undefined;
  // an alias, `alias@npm:real@^1`: the package installed is the real one
  const range = spec.slice(at + 1);
  if (range.startsWith("npm:") && range.indexOf("@", 5) > 0) return range.slice(4, range.indexOf("@", 5));
  return spec.slice(0, at);
}

function parseV1(text: string): Dep[] {
  const out: Dep[] = [];
  let name: string | undefined;
  for (const raw of text.split("\n")) {
    const line = raw.replace(/\r$/, "");
    if (line.trim() === "" || line.trimStart().startsWith("#")) continue;
    const t = yarnTokens(line);
    if (t.indent === 0) {
      name = t.opens && t.words[0] !== undefined ? specName(t.words[0]) : undefined;
    } else if (t.indent === 2 && name && t.words[0] === "version" && !t.opens) {
      const version = t.words[1];
      if (version && /^\d/.test(version)) out.push({ name, version, ecosystem: "npm" });
    }
  }
  return out;
}

function parseBerry(text: string): Dep[] {
  const out: Dep[] = [];
  for (const [key, entry] of Object.entries(record(Bun.YAML.parse(text)) ?? {})) {
    const e = record(entry);
    if (key === "__metadata" || !e) continue;
    const resolution = str(e.resolution) ?? "";
    const marker = resolution.indexOf("@npm:", 1);
    const version = str(String(e.version ?? ""));
    if (marker < 0 || !version || !/^\d/.test(version)) continue; // a workspace, a patch, a link, git
    out.push({ name: resolution.slice(0, marker), version, ecosystem: "npm" });
  }
  return out;
}

/** yarn.lock of either kind: berry when it has a `__metadata:` key, else v1; throws on YAML it cannot read. */
export function parseYarnLock(text: string): Dep[] {
  const berry = text.split("\n").some((l) => l.startsWith("__metadata:"));
  return unique(berry ? parseBerry(text) : parseV1(text));
}
