/**
 * The npm ecosystem's lockfiles: package-lock.json (v1's nested
 * `dependencies`, v2 and v3's `packages`), pnpm-lock.yaml (v5 to v9) and
 * bun.lock (JSON with trailing commas). yarn.lock is yarn.ts.
 */
import { type Dep, record, str, unique } from "./types.ts";

/** The name a node_modules path ends in: `node_modules/a/node_modules/@s/b` is `@s/b`. */
function nameFromPath(path: string): string | undefined {
  const at = path.lastIndexOf("node_modules/");
  return at < 0 ? undefined : path.slice(at + "node_modules/".length) || undefined;
}

/** A version that names a release, not a link, a tarball or a git commit. */
function released(v: string | undefined): v is string {
  return v !== undefined && /^\d/.test(v);
}

/** package-lock.json or npm-shrinkwrap.json, any lockfileVersion; throws on text that is not JSON. */
export function parsePackageLock(text: string): Dep[] {
  const lock = record(JSON.parse(text)) ?? {};
  const out: Dep[] = [];
  const packages = record(lock.packages);
  if (packages) {
    for (const [path, entry] of Object.entries(packages)) {
      const e = record(entry);
      if (path === "" || !e || e.link === true) continue;
      const name = str(e.name) ?? nameFromPath(path);
      const version = str(e.version);
      if (name && released(version)) out.push({ name, version, ecosystem: "npm" });
    }
    return unique(out);
  }
  const walk = (deps: unknown) => {
    for (const [key, entry] of Object.entries(record(deps) ?? {})) {
      const e = record(entry);
      let name = key;
      let version = str(e?.version);
      // an alias: "npm:real@1.0.0" installs the real package
      const at = version?.startsWith("npm:") ? version.lastIndexOf("@") : -1;
      if (version && at > 4) [name, version] = [version.slice(4, at), version.slice(at + 1)];
      if (released(version)) out.push({ name, version, ecosystem: "npm" });
      if (e) walk(e.dependencies);
    }
  };
  walk(lock.dependencies);
  return unique(out);
}

/**
 * A pnpm package key as name and version: `/a/1.0.0` (v5), `/@s/b@1.0.0(peer@2)` (v6),
 * `@s/b@1.0.0` (v9). Undefined for a key that names no release.
 */
export function pnpmKey(key: string): { name: string; version: string } | undefined {
  let k = key.startsWith("/") ? key.slice(1) : key;
  const paren = k.indexOf("(");
  if (paren >= 0) k = k.slice(0, paren);
  const unscoped = k.startsWith("@") ? k.indexOf("/") + 1 : 0;
  const at = k.indexOf("@", Math.max(unscoped, 1));
  const slash = k.indexOf("/", unscoped);
  let name: string;
  let version: string;
  if (at > 0 && (slash < 0 || at < slash)) {
    name = k.slice(0, at); // v6, v9: name@version
    version = k.slice(at + 1);
  } else if (slash > 0) {
    name = k.slice(0, slash); // v5: name/version, then _peers
    version = k.slice(slash + 1).split("_")[0] as string;
  } else return undefined;
  return released(version) ? { name, version } : undefined;
}

/** pnpm-lock.yaml, read by Bun's YAML parser; throws on text that is not YAML. */
export function parsePnpmLock(text: string): Dep[] {
  const lock = record(Bun.YAML.parse(text)) ?? {};
  const out: Dep[] = [];
  for (const key of Object.keys(record(lock.packages) ?? {})) {
    const named = pnpmKey(key);
    const entry = record(record(lock.packages)?.[key]);
    const name = str(entry?.name) ?? named?.name;
    const version = str(entry?.version) ?? named?.version;
    if (name && released(version)) out.push({ name, version, ecosystem: "npm" });
  }
  return unique(out);
}

/** bun.lock (text, JSONC): `packages` maps a key to `["name@version", registry, info, integrity]`. */
export function parseBunLock(text: string): Dep[] {
  const lock = record(Bun.JSONC.parse(text)) ?? {};
  const out: Dep[] = [];
  for (const entry of Object.values(record(lock.packages) ?? {})) {
    const spec = Array.isArray(entry) ? str(entry[0]) : undefined;
    if (!spec) continue;
    const at = spec.lastIndexOf("@");
    if (at <= 0) continue;
    const version = spec.slice(at + 1);
    if (released(version)) out.push({ name: spec.slice(0, at), version, ecosystem: "npm" });
  }
  return unique(out);
}
