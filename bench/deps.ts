/**
 * audit.deps over a monorepo: 20 lockfiles of 250 dependencies each (5,000
 * in all, in ten formats), generated here, against a stand-in for osv.dev on
 * 127.0.0.1. As in a real monorepo the workspaces share much: neighbouring
 * lockfiles of one ecosystem overlap by half, so ~3,250 package@versions are
 * distinct, and 5 advisories hit packages many of them pin. Prints the wall
 * time (median of RUNS, each with a fresh data dir, so nothing comes from the
 * day cache; then one run on a warm cache) and the requests osv.dev was sent:
 * querybatch chunks (distinct packages / 1,000) plus one per advisory found.
 * `bun bench/deps.ts [RTA_BINARY]` (default dist/rta).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { type OsvRecord, startOsv } from "../test/support/osvStandIn.ts";
import { benchDir, median } from "./measure.ts";

const binary = resolve(process.argv[2] ?? join(import.meta.dir, "..", "dist", "rta"));
const RUNS = 5;
const PER_FILE = 250;
const { dir, env } = benchDir("deps");
const repo = join(dir, "repo");

type Pin = [name: string, version: string];
const pool = (prefix: string, n: number): Pin[] =>
  Array.from({ length: n }, (_, i) => [`${prefix}${i}`, `1.${i % 7}.${i % 13}`]);
const npm = pool("pkg-", 2000);
const pypi = pool("py-lib-", 1000);
const window = (p: Pin[], k: number) => p.slice(k * (PER_FILE / 2), k * (PER_FILE / 2) + PER_FILE);

const formats: Record<string, (pins: Pin[]) => string> = {
  "package-lock.json": (pins) =>
    JSON.stringify({
      lockfileVersion: 3,
      packages: Object.fromEntries(pins.map(([n, v]) => [`node_modules/${n}`, { version: v }])),
    }),
  "yarn.lock": (pins) =>
    `# yarn lockfile v1\n\n${pins.map(([n, v]) => `${n}@^${v}:\n  version "${v}"\n  resolved "https://r/${n}-${v}.tgz"\n`).join("\n")}`,
  "pnpm-lock.yaml": (pins) =>
    `lockfileVersion: '9.0'\n\npackages:\n\n${pins.map(([n, v]) => `  ${n}@${v}:\n    resolution: {integrity: sha512-x}\n`).join("\n")}`,
  "bun.lock": (pins) =>
    `{\n  "lockfileVersion": 1,\n  "packages": {\n${pins.map(([n, v]) => `    "${n}": ["${n}@${v}", "", {}, "sha512-x"],`).join("\n")}\n  }\n}\n`,
  "requirements.txt": (pins) => pins.map(([n, v]) => `${n}==${v}\n`).join(""),
  "poetry.lock": (pins) => pins.map(([n, v]) => `[[package]]\nname = "${n}"\nversion = "${v}"\n\n`).join(""),
  "uv.lock": (pins) =>
    `version = 1\n\n${pins.map(([n, v]) => `[[package]]\nname = "${n}"\nversion = "${v}"\nsource = { registry = "https://pypi.example.com/simple" }\n\n`).join("")}`,
  "Pipfile.lock": (pins) =>
    JSON.stringify({ default: Object.fromEntries(pins.map(([n, v]) => [n, { version: `==${v}` }])), develop: {} }),
  "go.sum": (pins) =>
    pins.map(([n, v]) => `example.com/${n} v${v} h1:x=\nexample.com/${n} v${v}/go.mod h1:y=\n`).join(""),
  "Cargo.lock": (pins) =>
    `version = 3\n\n${pins.map(([n, v]) => `[[package]]\nname = "${n}"\nversion = "${v}"\nsource = "registry+https://github.com/rust-lang/crates.io-index"\n\n`).join("")}`,
  "Gemfile.lock": (pins) =>
    `GEM\n  remote: https://gems.example.com/\n  specs:\n${pins.map(([n, v]) => `    ${n} (${v})\n`).join("")}\n`,
  "composer.lock": (pins) => JSON.stringify({ packages: pins.map(([n, v]) => ({ name: `vendor/${n}`, version: v })) }),
  "pom.xml": (pins) =>
    `<project><dependencies>${pins.map(([n, v]) => `<dependency><groupId>org.example</groupId><artifactId>${n}</artifactId><version>${v}</version></dependency>`).join("")}</dependencies></project>`,
};

const files: [string, Pin[]][] = [
  ...["package-lock.json", "package-lock.json", "package-lock.json", "package-lock.json", "yarn.lock", "yarn.lock"]
    .concat(["pnpm-lock.yaml", "pnpm-lock.yaml", "bun.lock", "bun.lock"])
    .map((f, k): [string, Pin[]] => [f, window(npm, k)]),
  ...["requirements.txt", "requirements.txt", "poetry.lock", "poetry.lock", "uv.lock", "Pipfile.lock"].map(
    (f, k): [string, Pin[]] => [f, window(pypi, k)],
  ),
  ["go.sum", pool("mod", PER_FILE)],
  ["Cargo.lock", pool("crate", PER_FILE)],
  ["Gemfile.lock", pool("gem", PER_FILE)],
  ["pom.xml", pool("art", PER_FILE)],
];
let deps = 0;
for (const [k, [name, pins]] of files.entries()) {
  mkdirSync(join(repo, "packages", `ws${k}`), { recursive: true });
  writeFileSync(join(repo, "packages", `ws${k}`, name), (formats[name] as (p: Pin[]) => string)(pins));
  deps += pins.length;
}

// five advisories, each on a package several workspaces pin
const hit: [string, string, Pin][] = [
  ["npm", "GHSA-bnch-0001-0001", npm[100] as Pin],
  ["npm", "GHSA-bnch-0002-0002", npm[700] as Pin],
  ["npm", "GHSA-bnch-0003-0003", npm[1200] as Pin],
  ["PyPI", "GHSA-bnch-0004-0004", pypi[300] as Pin],
  ["crates.io", "RUSTSEC-2099-0001", ["crate10", "1.3.10"]],
];
const extra: OsvRecord[] = hit.map(([eco, id, [name, version]]) => ({
  id,
  summary: `a bench advisory for ${name}`,
  severity: [{ type: "CVSS_V3", score: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H" }],
  affected: [
    {
      package: { ecosystem: eco, name },
      versions: [version],
      ranges: [{ type: "ECOSYSTEM", events: [{ introduced: "0" }, { fixed: "9.9.9" }] as Record<string, string>[] }],
    },
  ],
}));
const osv = startOsv(extra);
mkdirSync(env.RTA_CONFIG_DIR as string, { recursive: true });
writeFileSync(join(env.RTA_CONFIG_DIR as string, "config.toml"), `[defaults."audit.deps"]\nosv_url = "${osv.url}"\n`);

// the stand-in answers from this process: run the binary without blocking it
const runs: Awaited<ReturnType<typeof runOnce>>[] = [];
for (let i = 0; i < RUNS; i++) runs.push(await runOnce(join(dir, `data${i}`)));
const warm = await runOnce(join(dir, `data${RUNS - 1}`));

async function runOnce(dataDir: string) {
  const before = osv.asked.length;
  const t0 = performance.now();
  const p = Bun.spawn([binary, "audit", "deps", repo, "--json"], {
    env: { ...env, RTA_DATA_DIR: dataDir },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  const ms = performance.now() - t0;
  if (code !== 0) throw new Error(`rta exited ${code}: ${err}`);
  const asked = osv.asked.slice(before);
  return {
    ms,
    requests: asked.length,
    batches: asked.filter((a) => a.path === "/v1/querybatch").length,
    rows: JSON.parse(out).total as number,
  };
}

console.log(`audit.deps: ${deps} dependencies in ${files.length} lockfiles under ${repo}`);
console.log(
  `  wall, cold cache: median ${median(runs.map((r) => r.ms)).toFixed(0)} ms of ${RUNS} (${runs.map((r) => r.ms.toFixed(0)).join(", ")})`,
);
console.log(`  wall, warm cache: ${warm.ms.toFixed(0)} ms`);
const r0 = runs[0] as (typeof runs)[number];
console.log(
  `  osv requests per cold run: ${r0.requests} (${r0.batches} querybatch, ${r0.requests - r0.batches} vulns); warm: ${warm.requests}`,
);
console.log(`  rows (vulnerable pins): ${r0.rows}`);
await osv.stop();
