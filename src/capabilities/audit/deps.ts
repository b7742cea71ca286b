/**
 * audit.deps: the dependencies pinned by the lockfiles and manifests under a
 * directory, checked against osv.dev. Each file is read by a parser for its
 * own format (lockfiles/), the packages are asked about in batches
 * (depsOsv.ts), and each vulnerability found is a row with its severity and
 * the version that fixes it (depsVerdict.ts). Offline, every dependency is
 * listed with no id, and a warning says why.
 */
import { define } from "../../core/capability.ts";
import { RtaError } from "../../core/errors.ts";
import { Pacer } from "../../core/pacer.ts";
import type { Warning } from "../../core/result.ts";
import { notDir } from "../fs/entryKind.ts";
import { asWritten, WalkProgress, withSkipped } from "../fs/walkNotes.ts";
import { askOsv, depKey, type OsvAnswers } from "./depsOsv.ts";
import { bySeverity, verdict } from "./depsVerdict.ts";
import { parserFor } from "./lockfiles/index.ts";
import type { Dep } from "./lockfiles/types.ts";

/** A lockfile larger than this is passed by, and said. */
const MAX_FILE = 64 * 1024 * 1024;
/**
 * The bytes of lockfiles one call reads together: a parsed lockfile takes many times its size in memory, and a
 * tree of many large ones (a hostile repository's) would have the server hold gigabytes. Past it the walk stops, and
 * says so.
 */
export const MAX_READ = 128 * 1024 * 1024;
/** Directories whose lockfiles are a dependency's own, not the project's. */
const PASSED = new Set(["node_modules", ".git", ".venv", "venv", "site-packages", "vendor", "target", ".yarn"]);

interface Found extends Dep {
  file: string;
}

type Row = (string | number | null)[];

/** Vulnerabilities first, most severe (then highest score) first, then by package, version, file and id. */
function byRow(a: Row, b: Row): number {
  if ((a[3] === null) !== (b[3] === null)) return a[3] === null ? 1 : -1;
  const bySev = bySeverity(a[4] as string | null, b[4] as string | null);
  if (bySev !== 0) return bySev;
  const byScore = ((b[5] as number | null) ?? -1) - ((a[5] as number | null) ?? -1);
  if (byScore !== 0) return byScore;
  for (const i of [0, 1, 7, 3]) {
    const c = String(a[i]).localeCompare(String(b[i]));
    if (c !== 0) return c;
  }
  return 0;
}

export const auditDeps = define({
  name: "audit.deps",
  summary: "Check the dependencies in lockfiles under a directory for known vulnerabilities (osv.dev)",
  agentText:
    "Reads npm, pnpm, yarn, bun, pip, poetry, uv, Pipenv, Go, Cargo, Bundler, Composer and Maven lockfiles under the path. Only each dependency's name, version and ecosystem leave, then each vulnerability id found. Offline, it lists the dependencies with id null and a warning says why.",
  searchWords: ["cve", "vulnerabilities", "osv", "sca", "lockfile", "npm audit", "pip audit", "security"],
  safety: "read",
  offsite: "osv.dev",
  inputs: {
    path: { type: "string", description: "the directory to look under", default: ".", path: "read", positional: true },
    depth: { type: "integer", description: "how many levels down to look", range: [1, 64], default: 12 },
    all: {
      type: "boolean",
      description: "also list the dependencies with no known vulnerability (id null)",
      default: false,
    },
    osv_url: {
      type: "string",
      description: "the OSV API's base URL: the operator's, set in config ([defaults.audit] osv_url) for a mirror",
      default: "https://api.osv.dev",
      operatorOnly: true,
      baseUrl: true,
    },
  },
  result: {
    shape: "table",
    columns: [
      { name: "package", doc: "the package as its ecosystem names it (Maven: group:artifact)" },
      { name: "version", doc: "the version pinned" },
      { name: "ecosystem", doc: "npm, PyPI, Go, crates.io, RubyGems, Packagist or Maven" },
      { name: "id", doc: "the vulnerability (OSV, GHSA, RUSTSEC, GO id); null when none is known or none was asked" },
      { name: "severity", doc: "critical, high, medium or low: from the CVSS v3 score, else the advisory's own" },
      { name: "score", doc: "the CVSS v3 base score, computed from the vector" },
      { name: "fixed", doc: "the first version that fixes it for the pinned version's range; null when none is known" },
      { name: "file", doc: "the lockfile it is pinned in, beginning with the path as it was sent" },
      { name: "summary", doc: "the advisory's one-line summary" },
      { name: "cvss", doc: "the CVSS vector the advisory gives" },
    ],
  },
  examples: [
    { command: "rta audit deps .", note: "every known vulnerability in the lockfiles under the current directory" },
    { command: "rta audit deps services/api --all --json", note: "every dependency, vulnerable or not" },
  ],
  async run(args, ctx) {
    const p = ctx.paths.path;
    const dir = p.dir();
    if (!dir) throw notDir(p.sent);
    const warnings: Warning[] = [];
    const found: Found[] = [];
    const files = new Set<string>();
    let read = 0;
    const seen = new WalkProgress(ctx.progress);
    const pacer = new Pacer(ctx.signal, `looking for lockfiles under ${JSON.stringify(p.sent)}`);
    const { skipped } = await dir.walk(args.depth, pacer, (e) => {
      seen.saw(0);
      const parse = parserFor(e.name);
      if (!parse || !e.stat.isFile() || e.rel.split("/").some((part) => PASSED.has(part))) return true;
      const file = asWritten(p.sent, e.rel);
      if (e.stat.size > MAX_FILE) {
        warnings.push({ code: "audit.deps.unreadable", message: `${JSON.stringify(file)} is over 64 MiB: not read` });
        return true;
      }
      if (read + e.stat.size > MAX_READ) {
        warnings.push({
          code: "audit.deps.unreadable",
          message: `the lockfiles under ${JSON.stringify(p.sent)} are over ${MAX_READ / 1024 / 1024} MiB together: ${JSON.stringify(file)} and those after it were not read; audit its directories one at a time`,
        });
        return false;
      }
      const opened = e.openFile();
      if (!opened) return true; // withheld, or counted as skipped by the walk
      read += e.stat.size;
      try {
        const text = opened.read(0, e.stat.size).toString("utf8");
        for (const dep of parse(text)) found.push({ ...dep, file });
        files.add(file);
      } catch (err) {
        const why = err instanceof Error ? err.message.split("\n")[0] : String(err);
        warnings.push({
          code: "audit.deps.unreadable",
          message: `${JSON.stringify(file)} could not be parsed: ${why}`,
        });
      } finally {
        opened.close();
      }
      return true;
    });
    if (files.size === 0 && warnings.length === 0)
      warnings.push({
        code: "audit.deps.nofiles",
        message: `no lockfile rta reads was found under ${JSON.stringify(p.sent)}`,
      });
    let answers: OsvAnswers | undefined;
    if (found.length > 0) {
      try {
        answers = await askOsv(ctx.offsite(args.osv_url), found);
      } catch (err) {
        if (!(err instanceof RtaError) || (err.code !== "offsite.unreachable" && err.code !== "offsite.answer.invalid"))
          throw err;
        warnings.push({
          code: "audit.deps.offline",
          message: `${err.message}: no vulnerability was checked, and ${found.length === 1 ? "the dependency found is" : `the ${found.length} dependencies found are`} listed with no id`,
        });
      }
    }
    if (answers && answers.staleMs > 0)
      warnings.push({
        code: "audit.deps.stale",
        message: `osv.dev could not be reached: the vulnerabilities listed are from its answers of ${Math.ceil(answers.staleMs / 3_600_000)} hours ago`,
      });
    if (answers && answers.unasked + answers.unpaged > 0)
      warnings.push({
        code: "audit.deps.partial",
        message: `osv.dev named more than one call asks about: ${[
          answers.unasked > 0 ? `${answers.unasked} vulnerabilities are listed with no severity or fix` : "",
          answers.unpaged > 0 ? `${answers.unpaged} packages' further pages were not asked for` : "",
        ]
          .filter(Boolean)
          .join(", and ")}; audit a smaller directory`,
      });
    const rows: Row[] = [];
    for (const dep of found) {
      const ids = answers?.ids.get(depKey(dep)) ?? [];
      if (ids.length === 0) {
        if (args.all || !answers)
          rows.push([dep.name, dep.version, dep.ecosystem, null, null, null, null, dep.file, null, null]);
        continue;
      }
      for (const id of ids) {
        const v = verdict(answers?.vulns.get(id), dep);
        rows.push([
          dep.name,
          dep.version,
          dep.ecosystem,
          id,
          v.severity,
          v.score,
          v.fixed,
          dep.file,
          v.summary,
          v.vector,
        ]);
      }
    }
    rows.sort(byRow);
    const out = ctx.rows();
    for (const row of rows) {
      if (out.full()) break;
      out.add(row);
    }
    const result = withSkipped(out.finish(rows.length), skipped, p.sent);
    if (warnings.length > 0 && result.type === "table") result.warnings = [...warnings, ...(result.warnings ?? [])];
    return result;
  },
});
