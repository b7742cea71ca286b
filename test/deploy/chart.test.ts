/**
 * deploy/chart, checked without helm: rendered by test/deploy/goTemplate.ts
 * (a strict renderer of the Go-template subset the chart uses) with the
 * default values and with overrides, then read as the cluster would. When a
 * helm binary is at hand (RTA_TEST_HELM, or `helm` on PATH) the same values
 * are rendered by `helm template` too and must parse to the same objects;
 * without one that comparison is skipped, and the run says so.
 */
import { describe, expect, test } from "bun:test";
import { chownSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Command } from "commander";
import type { Cli } from "../../src/cli/factory.ts";
import { addMcpCommands } from "../../src/cli/mcpCommands.ts";
import { envOf, execForm, only, repoDockerfile } from "../image/dockerfile.ts";
import { canBindMount, tempDir } from "../support/fixtures.ts";
import { startHttp } from "../support/httpServer.ts";
import { nobodyBase } from "../support/nobody.ts";
import { KNOWN_FUNCTIONS, TemplateError, TemplateFail, Templates } from "./goTemplate.ts";
import { CHART, defaultValues, renderChart, templateFiles, type Values } from "./renderChart.ts";

type Obj = Record<string, unknown>;

/** `rta mcp serve`'s own options, from its commander definition: long name and whether it takes a value. */
function serveFlags(): Map<string, { value: "none" | "required" | "optional" }> {
  const program = new Command();
  addMcpCommands(program, {} as Cli);
  const serve = program.commands.find((c) => c.name() === "mcp")?.commands.find((c) => c.name() === "serve");
  if (!serve) throw new Error("no rta mcp serve command");
  return new Map(
    serve.options.map((o) => [
      o.long as string,
      { value: o.required ? "required" : o.optional ? "optional" : "none" } as const,
    ]),
  );
}

/** The flags in an argument list, each with the value it takes; an argument no flag explains is an error. */
function flagsOf(args: string[]): { flag: string; value?: string }[] {
  const known = serveFlags();
  const out: { flag: string; value?: string }[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const [flag, inline] = arg.includes("=")
      ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
      : [arg];
    const spec = known.get(flag);
    if (!spec) throw new Error(`${arg} is not a flag of rta mcp serve (${[...known.keys()].join(", ")})`);
    if (inline !== undefined || spec.value === "none") out.push({ flag, value: inline });
    else if (spec.value === "required" || !args[i + 1]?.startsWith("-")) {
      const value = args[++i];
      if (value === undefined) throw new Error(`${flag} has no value`);
      out.push({ flag, value });
    } else out.push({ flag });
  }
  return out;
}

function deploymentOf(r: ReturnType<typeof renderChart>): Obj {
  const d = r.manifests.get("deployment.yaml");
  if (!d) throw new Error("no Deployment rendered");
  return d;
}

function containerOf(d: Obj): Obj {
  const spec = (d.spec as Obj).template as Obj;
  const containers = (spec.spec as Obj).containers as Obj[];
  expect(containers).toHaveLength(1);
  return containers[0] as Obj;
}

/** The memory rule values.yaml states: idle floor + 16 MiB per MiB of ceiling, times the answers at once. */
function memoryRule(values: Values, maxResultMiB: number): string {
  const m = values.memory as { idleFloorMiB: number; answersAtOnce: number };
  return `${m.idleFloorMiB + 16 * maxResultMiB * m.answersAtOnce}Mi`;
}

const OVERRIDE: Values = {
  replicaCount: 3,
  store: { existingSecret: "team-pg", existingSecretKey: "dsn" },
  serverDefaults: { extraArgs: ["--max-result", "32", "--verbose"], allowHosts: ["rta.example.com"] },
  memory: { answersAtOnce: 2 },
};

describe("the chart's templates", () => {
  test("every .Values path a template reads is in values.yaml", () => {
    const values = defaultValues();
    const missing: string[] = [];
    for (const [file, text] of templateFiles())
      for (const [, path] of text.matchAll(/\.Values((?:\.\w+)+)/g)) {
        let v: unknown = values;
        for (const key of (path as string).slice(1).split(".")) {
          if (typeof v !== "object" || v === null || !(key in v)) {
            missing.push(`${file}: .Values${path}`);
            break;
          }
          v = (v as Obj)[key];
        }
      }
    expect(missing).toEqual([]);
  });

  test("every function a template calls is one the renderer knows (so helm and the test agree on each)", () => {
    const known = new Set(KNOWN_FUNCTIONS);
    const keywords = new Set(["if", "else", "end", "range", "with", "define", "true", "false", "nil"]);
    const used = new Set<string>();
    for (const [, text] of templateFiles())
      for (const [, action] of text.matchAll(/\{\{-?([\s\S]*?)-?\}\}/g)) {
        const code = (action as string).replace(/\/\*[\s\S]*?\*\//g, "").replace(/"(?:[^"\\]|\\.)*"/g, '""');
        for (const [word] of code.matchAll(/(?<![.$\w])[A-Za-z_]\w*/g)) if (!keywords.has(word)) used.add(word);
      }
    expect([...used].filter((f) => !known.has(f))).toEqual([]);
    expect(used.size).toBeGreaterThan(10);
  });

  test("the renderer refuses what it does not model, as helm would or more strictly", () => {
    const render = (text: string, root: unknown = { Values: { a: { b: 1 } } }) => {
      const t = new Templates();
      t.add("t.yaml", text);
      return t.render("t.yaml", root);
    };
    expect(() => render("{{ lookup 1 }}")).toThrow(/function "lookup" not defined/);
    expect(() => render("{{ .Values.a.c }}")).toThrow(TemplateError);
    expect(() => render("{{ .Values.a }}")).toThrow(/prints a map/);
    expect(() => render("{{ gt .Values.a.b 1 }}")).toThrow(/incompatible types/);
    expect(() => render('{{ template "x" . }}')).toThrow(/not in the subset/);
    expect(() => render("{{ if true }}x")).toThrow(/\{\{end\}\} is missing/);
    expect(() => render('{{ fail "no" }}')).toThrow(TemplateFail);
    // what it does model, as Go does it
    expect(render("a  {{- 1 -}}  b\n{{/* c */}}x")).toBe("a1b\nx");
    expect(
      render("{{ $n := 0 }}{{ range .Values.l }}{{ $n = add $n . }}{{ end }}{{ $n }}", { Values: { l: [1, 2, 3] } }),
    ).toBe("6");
    expect(render('{{ if eq 1 2 }}a{{ else if eq "x" "x" }}b{{ else }}c{{ end }}')).toBe("b");
    expect(render('{{ with "" }}a{{ else }}b{{ end }}{{ range $k, $v := .Values.a }}{{ $k }}={{ $v }}{{ end }}')).toBe(
      "bb=1",
    );
    expect(render('{{ "x" | quote | nindent 2 }}|{{ toYaml .Values | indent 2 }}')).toBe('\n  "x"|  a:\n    b: 1');
  });
});

describe("the chart rendered with its default values", () => {
  const r = renderChart();
  const d = deploymentOf(r);
  const c = containerOf(d);

  test("renders a Deployment and a Service, and no Secret or ConfigMap when none is asked for", () => {
    expect([...r.manifests.values()].map((m) => m.kind).sort()).toEqual(["Deployment", "Service"]);
    expect((d.spec as Obj).replicas).toBe(1);
  });

  test("runs the image as it is built: ENTRYPOINT rta kept, its CMD's serve on 0.0.0.0:8722, probes on that port", () => {
    expect(c.command).toBeUndefined();
    const args = c.args as string[];
    expect(args.slice(0, 4)).toEqual(["mcp", "serve", "--http", "0.0.0.0:8722"]);
    expect(c.ports).toEqual([{ name: "http", containerPort: 8722, protocol: "TCP" }]);
    expect((c.livenessProbe as Obj).httpGet).toEqual({ path: "/healthz", port: "http" });
    expect((c.readinessProbe as Obj).httpGet).toEqual({ path: "/readyz", port: "http" });
    const service = r.manifests.get("service.yaml") as Obj;
    expect(((service.spec as Obj).ports as Obj[])[0]).toMatchObject({ port: 8722, targetPort: "http" });
    expect((service.spec as Obj).selector).toEqual(((d.spec as Obj).selector as Obj).matchLabels);
  });

  test("agrees with the Dockerfile: its CMD, port, user, working directory, and data and config dirs", () => {
    const final = repoDockerfile().at(-1);
    if (!final) throw new Error("the Dockerfile has no stage");
    const image = envOf(final);
    expect((c.args as string[]).slice(0, 4)).toEqual(execForm(only(final, "CMD")) as string[]);
    expect((c.ports as Obj[])[0]?.containerPort).toBe(Number(only(final, "EXPOSE").args));
    const [uid, gid] = only(final, "USER").args.split(":").map(Number);
    const pod = ((d.spec as Obj).template as Obj).spec as Obj;
    expect(pod.securityContext).toMatchObject({ runAsUser: uid, runAsGroup: gid, fsGroup: gid });
    expect((r.values.serverDefaults as Obj).root).toBe(only(final, "WORKDIR").args);
    const env = Object.fromEntries((c.env as { name: string; value?: string }[]).map((e) => [e.name, e.value]));
    expect({ data: env.RTA_DATA_DIR, config: env.RTA_CONFIG_DIR }).toEqual({
      data: image.RTA_DATA_DIR,
      config: image.RTA_CONFIG_DIR,
    });
    const configured = containerOf(deploymentOf(renderChart({ config: "[limits]\n" })));
    const mounts = Object.fromEntries((configured.volumeMounts as Obj[]).map((m) => [m.name, m.mountPath]));
    expect({ data: mounts.data, config: mounts.config }).toEqual({
      data: image.RTA_DATA_DIR,
      config: image.RTA_CONFIG_DIR,
    });
  });

  test("every flag in serverDefaults.extraArgs' defaults, and every flag the chart adds, is a flag of rta mcp serve", () => {
    const extra = (r.values.serverDefaults as { extraArgs: string[] }).extraArgs;
    expect(extra.length).toBeGreaterThan(0);
    expect(flagsOf(extra).map((f) => f.flag)).toContain("--max-result");
    const args = c.args as string[];
    expect(args.slice(-extra.length)).toEqual(extra);
    expect(flagsOf(args.slice(2)).map((f) => f.flag)).toEqual([
      "--http",
      "--root",
      "--allow-host",
      "--allow-host",
      "--allow-host",
      "--allow-host",
      "--max-result",
    ]);
  });

  test("non-root, read-only root filesystem, every capability dropped, no service account token", () => {
    const pod = ((d.spec as Obj).template as Obj).spec as Obj;
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } });
    expect((pod.securityContext as Obj).runAsUser).toBeGreaterThan(0);
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(c.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ["ALL"] },
    });
  });

  test("the data dir, the root and /tmp are volumes, since the root filesystem is read-only", () => {
    const env = Object.fromEntries((c.env as { name: string; value?: string }[]).map((e) => [e.name, e.value]));
    expect(env.RTA_STORE).toBeUndefined();
    const mounts = Object.fromEntries((c.volumeMounts as Obj[]).map((m) => [m.mountPath, m.name]));
    expect(mounts[env.RTA_DATA_DIR as string]).toBe("data");
    expect(mounts["/work"]).toBe("workspace");
    expect(mounts["/tmp"]).toBe("tmp");
    const volumes = (((d.spec as Obj).template as Obj).spec as Obj).volumes as Obj[];
    expect(volumes.map((v) => v.name).sort()).toEqual(["data", "tmp", "workspace"]);
  });

  test("the memory limit and request follow the rule in values.yaml: 128 + 16 x 8 x 4 = 640 MiB", () => {
    expect(memoryRule(r.values, 8)).toBe("640Mi");
    expect(c.resources).toEqual({ requests: { cpu: "100m", memory: "640Mi" }, limits: { memory: "640Mi" } });
    expect(r.notes).toContain("Memory: 640 MiB per pod, from --max-result 8");
  });

  test("the rendered command line starts the real binary, and the probes and Service names answer as the pod's would", async () => {
    const data = tempDir();
    const root = tempDir();
    const served = renderChart({ serverDefaults: { root } });
    const args = containerOf(deploymentOf(served)).args as string[];
    // the chart's address is the pod's; here the server listens on loopback, as startHttp sets
    const server = await startHttp(args.slice(4), { data, config: tempDir() });
    try {
      for (const probe of ["livenessProbe", "readinessProbe"]) {
        const path = ((c[probe] as Obj).httpGet as Obj).path as string;
        expect((await fetch(`http://127.0.0.1:${server.port}${path}`)).status).toBe(200);
      }
      const token = await server.token("claude");
      const asked = (host: string) =>
        fetch(server.url, {
          method: "POST",
          headers: {
            host,
            authorization: `Bearer ${token}`,
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
          },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
        });
      const loopback = (await asked(`127.0.0.1:${server.port}`)).status;
      expect(loopback).not.toBe(403);
      for (const host of ["rta", "rta.default", "rta.default.svc", "rta.default.svc.cluster.local"])
        expect({ host, status: (await asked(`${host}:8722`)).status }).toEqual({ host, status: loopback });
      expect((await asked("elsewhere.example:8722")).status).toBe(403);
    } finally {
      await server.stop();
    }
  });
});

/** Whether this run may make a mount namespace with a read-only root, as a pod with readOnlyRootFilesystem has. */
function canMakeReadOnlyRoot(): boolean {
  return canBindMount() && Bun.which("unshare") !== null && Bun.which("setpriv") !== null;
}

describe.skipIf(!canMakeReadOnlyRoot())("the rendered server as the pod runs it", () => {
  test("as its UID, on a read-only root, with only its data dir and root writable: it starts, answers its probes and serves", async () => {
    const { base, bin } = nobodyBase();
    const data = join(base, "data");
    const root = join(base, "work");
    const pod = renderChart({ serverDefaults: { root } });
    const d = deploymentOf(pod);
    const uid = Number(((((d.spec as Obj).template as Obj).spec as Obj).securityContext as Obj).runAsUser);
    const as = ["setpriv", `--reuid=${uid}`, `--regid=${uid}`, "--clear-groups"];
    for (const dir of [data, root]) {
      mkdirSync(dir);
      chownSync(dir, uid, uid);
    }
    const env = {
      PATH: process.env.PATH ?? "",
      HOME: "/nonexistent",
      RTA_DATA_DIR: data,
      RTA_CONFIG_DIR: join(base, "config"),
    };
    const made = Bun.spawnSync([...as, bin, "mcp", "token", "new", "--agent", "claude"], { env });
    expect(made.exitCode).toBe(0);
    const token = made.stdout.toString().trim();
    const args = (containerOf(d).args as string[]).slice(4);
    // a private mount namespace: the data dir and the root stay writable as volumes are, everything else is read-only
    const script = [
      "set -e",
      `mount --bind '${data}' '${data}'`,
      `mount --bind '${root}' '${root}'`,
      "mount -o remount,bind,ro /",
      'exec "$@"',
    ].join("\n");
    const proc = Bun.spawn(
      [
        "unshare",
        "-m",
        "--propagation",
        "private",
        "sh",
        "-c",
        script,
        "sh",
        ...as,
        bin,
        "mcp",
        "serve",
        "--http",
        "127.0.0.1:0",
        ...args,
      ],
      { env, stdout: "ignore", stderr: "pipe" },
    );
    try {
      let err = "";
      let port = 0;
      const reader = (proc.stderr as ReadableStream<Uint8Array>).getReader();
      while (!port) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`the server did not start: ${err}`);
        err += new TextDecoder().decode(value);
        port = Number(err.match(/listening on http:\/\/127\.0\.0\.1:(\d+)\/mcp/)?.[1] ?? 0);
      }
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
      const init = await fetch(`http://127.0.0.1:${port}/mcp`, {
        method: "POST",
        headers: {
          host: "rta.default.svc.cluster.local:8722",
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "probe", version: "1" } },
        }),
      });
      expect(init.status).toBe(200);
      await init.body?.cancel();
    } finally {
      proc.kill("SIGTERM");
      await proc.exited;
    }
    // what it wrote is in its data dir, as its user
    expect(statSync(join(data, "agent-log.jsonl")).uid).toBe(uid);
  });
});

describe("the chart rendered with an override", () => {
  const r = renderChart(OVERRIDE, "team", "tools");
  const d = deploymentOf(r);
  const c = containerOf(d);

  test("3 replicas, the existing Secret read as RTA_STORE, no Secret of the chart's own", () => {
    expect((d.spec as Obj).replicas).toBe(3);
    expect(r.manifests.has("secret.yaml")).toBe(false);
    expect(c.env).toContainEqual({ name: "RTA_STORE", valueFrom: { secretKeyRef: { name: "team-pg", key: "dsn" } } });
  });

  test("extraArgs are appended to the command line, after the chart's own, each a real flag", () => {
    const args = c.args as string[];
    expect(args.slice(-3)).toEqual(["--max-result", "32", "--verbose"]);
    expect(args).toContain("rta.example.com");
    expect(args).toContain("team-rta.tools.svc.cluster.local");
    expect(flagsOf(args.slice(2)).filter((f) => f.flag === "--max-result")).toEqual([
      { flag: "--max-result", value: "32" },
    ]);
  });

  test("the memory limit follows --max-result from extraArgs: 128 + 16 x 32 x 2 = 1,152 MiB", () => {
    expect(memoryRule(r.values, 32)).toBe("1152Mi");
    expect((c.resources as Obj).limits).toEqual({ memory: "1152Mi" });
    const eq = renderChart({ serverDefaults: { extraArgs: ["--max-result=256"] } });
    expect((containerOf(deploymentOf(eq)).resources as Obj).limits).toEqual({ memory: memoryRule(eq.values, 256) });
  });

  test("a store URL given as a value goes to a Secret, and from it to RTA_STORE: never into the command line", () => {
    const url = "postgres://rta:s3cret-pw@db.internal:5432/rta";
    const s = renderChart({ replicaCount: 2, store: { url } });
    const secret = s.manifests.get("secret.yaml") as Obj;
    expect(secret.kind).toBe("Secret");
    expect(secret.stringData).toEqual({ url });
    const deployment = JSON.stringify(deploymentOf(s));
    expect(deployment).not.toContain("s3cret-pw");
    expect(deployment).not.toContain("db.internal");
    const env = containerOf(deploymentOf(s)).env as Obj[];
    expect(env).toContainEqual({
      name: "RTA_STORE",
      valueFrom: { secretKeyRef: { name: (secret.metadata as Obj).name, key: "url" } },
    });
    expect(s.notes).not.toContain("s3cret-pw");
  });

  test("refuses what would go wrong in the cluster, saying what to set", () => {
    const failure = (o: Values) => {
      try {
        renderChart(o);
      } catch (err) {
        if (err instanceof TemplateFail) return err.message;
        throw err;
      }
      return "rendered";
    };
    expect(failure({ replicaCount: 2 })).toContain("needs a shared store: set store.url or store.existingSecret");
    expect(failure({ serverDefaults: { extraArgs: ["--store", "postgres://x@y/z"] } })).toContain(
      "may not hold --store",
    );
    expect(failure({ serverDefaults: { extraArgs: ["--http", "0.0.0.0:9000"] } })).toContain("may not hold --http");
    expect(failure({ serverDefaults: { extraArgs: ["--max-result", "300"] } })).toContain("between 1 and 256");
    expect(failure({ serverDefaults: { extraArgs: ["--max-result"] } })).toContain("no value");
    expect(failure({ resources: { limits: { memory: "1Gi" } } })).toContain("resources may not set memory");
  });
});

const HELM = process.env.RTA_TEST_HELM || Bun.which("helm");
if (!HELM) process.stderr.write("helm comparison skipped: no helm on PATH and RTA_TEST_HELM unset\n");

describe.skipIf(!HELM)("helm template renders the same objects", () => {
  const cases: [string, Values][] = [
    ["default values", {}],
    ["the override", OVERRIDE],
    ["a store URL and a config", { replicaCount: 2, store: { url: "postgres://a:b@c/d" }, config: "[limits]\n" }],
    [
      "odd text: tabs, newlines, escape codes, quotes, line separators, long names",
      {
        config: 'a\tb\x1b[31mred\u00e9\u2028\u{1f600}\x7f "q" \\ \n[limits]\n',
        podAnnotations: { "x/y": "a: b", n: "0755", t: "true", e: "", z: "\x1b]0;title\x07" },
        serverDefaults: { allowHosts: ['h"ost', "yes", "a\nb"], extraArgs: ["--max-result", 8, "--verbose"] },
        nameOverride: "Weird-Name-That-Is-Quite-Long-And-Goes-On-Beyond-Sixty-Three-Chars-For-Sure",
        nodeSelector: { "kubernetes.io/os": "linux" },
        tolerations: [{ key: "k", operator: "Exists" }],
        imagePullSecrets: [{ name: "reg" }],
      },
    ],
  ];
  for (const [name, override] of cases)
    test(name, () => {
      const file = join(tempDir(), "values.json");
      // every rune past ASCII escaped (YAML's \U for one past 0xFFFF): helm's YAML reader refuses a raw DEL or line
      // separator in a values file, and a surrogate pair
      const ascii = JSON.stringify(override).replace(/[\u007f-\u{10ffff}]/gu, (c) => {
        const cp = c.codePointAt(0) as number;
        return cp < 0x10000 ? `\\u${cp.toString(16).padStart(4, "0")}` : `\\U${cp.toString(16).padStart(8, "0")}`;
      });
      writeFileSync(file, ascii);
      const ran = Bun.spawnSync([HELM as string, "template", "team", CHART, "--namespace", "tools", "-f", file]);
      expect(ran.stderr.toString()).toBe("");
      const theirs = ran.stdout
        .toString()
        .split(/^---$/m)
        .map((doc) => Bun.YAML.parse(doc) as Obj | null)
        .filter((doc): doc is Obj => doc !== null);
      const ours = [...renderChart(override, "team", "tools").manifests.values()];
      const byKind = (docs: Obj[]) => docs.sort((a, b) => String(a.kind).localeCompare(String(b.kind)));
      expect(byKind(ours)).toEqual(byKind(theirs));
    });
});
