/**
 * The Dockerfile, checked as written: no registry and no container engine
 * needed. assemble.test.ts builds its final stage where buildah is installed.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { RTA } from "../support/rta.ts";
import {
  copyOf,
  envOf,
  execForm,
  inContext,
  only,
  parseDockerfile,
  ROOT,
  repoDockerfile,
  type Stage,
  volumesOf,
} from "./dockerfile.ts";

const stages = repoDockerfile();
const build = stages[0] as Stage;
const final = stages.at(-1) as Stage;
const ignore = readFileSync(join(ROOT, ".dockerignore"), "utf8");
const ops = (stage: Stage) => stage.instructions.map((i) => i.op);
/** What the build stage's COPY instructions take from the context, without a trailing slash. */
const copied = build.instructions
  .filter((i) => i.op === "COPY")
  .flatMap((i) => copyOf(i).sources)
  .map((s) => s.replace(/\/$/, ""));

describe("the reader", () => {
  test("joins continued lines, drops comments, and names stages", () => {
    const parsed = parseDockerfile("# c\nFROM a AS b\nRUN x \\\n  # note\n  y\nFROM c\nUSER 1\n");
    expect(parsed).toEqual([
      { from: "a", name: "b", instructions: [{ op: "RUN", args: "x y", line: 3 }] },
      { from: "c", instructions: [{ op: "USER", args: "1", line: 7 }] },
    ]);
    expect(() => parseDockerfile("USER 1\n")).toThrow("before the first FROM");
  });

  test("matches .dockerignore as Docker does: the last pattern wins, a parent's match counts", () => {
    expect(inContext("*\n!src\nsrc/generated\n", "src/core/x.ts")).toBe(true);
    expect(inContext("*\n!src\nsrc/generated\n", "src/generated/v.js")).toBe(false);
    expect(inContext("*\n!src\n", "srcs/x")).toBe(false);
    // a pattern names a path from the context's top: this one leaves a nested node_modules in
    expect(inContext("node_modules\n", "a/node_modules")).toBe(true);
  });
});

describe("the build stage", () => {
  test("is named build, on the Debian release the final stage's base is made from", () => {
    expect(stages.length).toBe(2);
    expect(build.name).toBe("build");
    expect(build.from).toMatch(/^node:\d+-bookworm(-slim)?(@sha256:[0-9a-f]{64})?$/);
    // bookworm is Debian 12: the binary is linked against the glibc it will run on
    expect(final.from).toMatch(/^gcr\.io\/distroless\/cc-debian12:nonroot(@sha256:[0-9a-f]{64})?$/);
  });

  test("runs the README's build: npm ci, then npm run build", () => {
    const runs = build.instructions.filter((i) => i.op === "RUN").map((i) => i.args);
    expect(runs.slice(0, 2)).toEqual(["npm ci", "npm run build"]);
    expect(readFileSync(join(ROOT, "README.md"), "utf8")).toContain("npm ci && npm run build");
  });

  test("copies the binary from where npm run build leaves it", () => {
    const workdir = only(build, "WORKDIR").args;
    const binary = final.instructions
      .filter((i) => i.op === "COPY")
      .map(copyOf)
      .find((c) => c.dest === "/usr/local/bin/rta");
    expect(binary).toEqual({ from: "build", sources: [`${workdir}/dist/rta`], dest: "/usr/local/bin/rta" });
    expect(relative(ROOT, RTA)).toBe("dist/rta");
    expect(readFileSync(join(ROOT, "scripts", "build.ts"), "utf8")).toContain('join(root, "dist", "rta")');
  });

  test("copies only what is in the build context, and the context holds no local state", () => {
    for (const source of copied) {
      expect({ source, there: existsSync(join(ROOT, source)) }).toEqual({ source, there: true });
      expect({ source, inContext: inContext(ignore, source) }).toEqual({ source, inContext: true });
    }
    for (const kept of ["node_modules/bun/package.json", "dist/rta", ".git", "test/e2e/x.ts", "src/generated/v.js"])
      expect({ kept, inContext: inContext(ignore, kept) }).toEqual({ kept, inContext: false });
    for (const needed of ["src/main.ts", "scripts/build.ts", "scripts/gen-validators.ts", "plugins/note/main.ts"])
      expect({ needed, inContext: inContext(ignore, needed) }).toEqual({ needed, inContext: true });
  });

  test("every relative import of what it copies resolves to a file it copies", () => {
    const inside = (file: string) => copied.some((c) => file === c || file.startsWith(`${c}/`));
    const outside: string[] = [];
    for (const dir of copied.filter((c) => statSync(join(ROOT, c)).isDirectory()))
      for (const file of sources(join(ROOT, dir))) {
        const rel = relative(ROOT, file);
        if (!inContext(ignore, rel)) continue;
        const text = readFileSync(file, "utf8");
        // (a template in a string, as gen-validators writes into the code it generates, is no import of its own)
        for (const m of text.matchAll(/(?:from|import)\s*\(?\s*"(\.\.?\/[^"$]+)"/g)) {
          const target = relative(ROOT, resolve(dirname(file), m[1] as string));
          // src/generated is made by the build stage's own npm run build
          if (!inside(target) || (!inContext(ignore, target) && !target.startsWith("src/generated/")))
            outside.push(`${rel} -> ${target}`);
        }
      }
    expect(outside).toEqual([]);
  });
});

describe("the final stage", () => {
  test("runs nothing and has no shell to run it: no RUN, no SHELL, no HEALTHCHECK", () => {
    expect(ops(final).filter((op) => ["RUN", "SHELL", "HEALTHCHECK", "ONBUILD", "ADD"].includes(op))).toEqual([]);
    expect(final.from).toContain("distroless");
  });

  test("runs as a numeric, non-root user, and that user owns the state volume", () => {
    const user = only(final, "USER").args;
    expect(user).toMatch(/^[1-9]\d*:[1-9]\d*$/);
    const [volume] = volumesOf(final);
    const state = final.instructions
      .filter((i) => i.op === "COPY")
      .map(copyOf)
      .find((c) => c.dest === volume);
    expect(state?.chown).toBe(user);
  });

  test("starts rta mcp serve over HTTP on the port it exposes", () => {
    expect(execForm(only(final, "ENTRYPOINT"))).toEqual(["rta"]);
    expect(execForm(only(final, "CMD"))).toEqual(["mcp", "serve", "--http", "0.0.0.0:8722"]);
    expect(only(final, "EXPOSE").args).toBe("8722");
    const path = (envOf(final).PATH ?? "").split(":");
    expect(path).toContain("/usr/local/bin");
  });

  test("keeps rta's data and config dirs on its one volume, and serves the working directory", () => {
    const env = envOf(final);
    const volumes = volumesOf(final);
    expect(volumes).toEqual(["/var/lib/rta"]);
    expect(env.RTA_DATA_DIR).toBe("/var/lib/rta/data");
    expect(env.RTA_CONFIG_DIR).toBe("/var/lib/rta/config");
    expect(only(final, "WORKDIR").args).toBe("/work");
  });
});

describe("docs/containers.md", () => {
  const page = readFileSync(join(ROOT, "docs", "containers.md"), "utf8");
  const rows = new Map(
    [...page.matchAll(/^\| ([a-z ]+) \| (.+) \|$/gm)].map((m) => [m[1] as string, m[2] as string] as const),
  );

  test("states the image's paths, user and port at the top, as the Dockerfile sets them", () => {
    const env = envOf(final);
    expect(rows.get("binary")).toContain(`\`/usr/local/bin/rta\`, \`ENTRYPOINT ${only(final, "ENTRYPOINT").args}\``);
    expect(rows.get("command")).toContain(`\`CMD ${JSON.stringify(execForm(only(final, "CMD")))}\``);
    expect(rows.get("port")).toContain(`\`${only(final, "EXPOSE").args}\``);
    expect(rows.get("user")).toContain(`\`${only(final, "USER").args}\``);
    expect(rows.get("state volume")).toContain(`\`${volumesOf(final)[0]}\``);
    expect(rows.get("state volume")).toContain(`\`${env.RTA_DATA_DIR}\` (\`RTA_DATA_DIR\`)`);
    expect(rows.get("state volume")).toContain(`\`${env.RTA_CONFIG_DIR}\` (\`RTA_CONFIG_DIR\`)`);
    expect(rows.get("served root")).toContain(`\`${only(final, "WORKDIR").args}\``);
  });

  test("runs the image with the paths the Dockerfile sets", () => {
    const volume = volumesOf(final)[0] as string;
    const runs = [...page.matchAll(/^\$ docker run (.*)$/gm)]
      .map((m) => m[1] as string)
      .filter((run) => !run.endsWith(" --version"));
    expect(runs.length).toBeGreaterThan(2);
    for (const run of runs)
      expect({ run, mountsState: run.includes(`:${volume} `) }).toEqual({ run, mountsState: true });
  });
});

/** The .ts files under `dir`, node_modules left out. */
function sources(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules") continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...sources(path));
    else if (entry.name.endsWith(".ts")) found.push(path);
  }
  return found;
}
