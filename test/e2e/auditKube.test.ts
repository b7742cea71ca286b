/**
 * End to end: audit.kube.* in the built binary, with kubectl replaced (through the operator's config) by a script
 * that replays the recorded answers of a faulty and a clean cluster; from the command line, piped and on a terminal,
 * and over MCP with the official client in both eras, as free reads a lock stops.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { connect, type Era, resultJson } from "../support/mcpClient.ts";
import { noStack, rta } from "../support/rta.ts";
import { type StandIn, startStandIn } from "../support/standIn.ts";
import { onTerminal } from "../support/terminal.ts";

const FIXTURES = join(import.meta.dir, "../fixtures/kube");
const bin = tempDir();
const REFUSED =
  'E1201 16:48:51.165264    9471 memcache.go:265] "Unhandled Error" err="couldn\'t get current server API group list: Get \\"https://127.0.0.1:1/api?timeout=20s\\": dial tcp 127.0.0.1:1: connect: connection refused"\nThe connection to the server 127.0.0.1:1 was refused - did you specify the right host or port?';

function script(name: string, body: string): string {
  const path = join(bin, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

let eol: StandIn;

beforeAll(() => {
  eol = startStandIn({
    "/api/v1/products/kubernetes": readFileSync(join(FIXTURES, "endoflife-kubernetes.json"), "utf8"),
  });
  for (const cluster of ["faulty", "clean"])
    script(`kubectl-${cluster}`, `exec '${join(FIXTURES, "kubectl.sh")}' '${join(FIXTURES, cluster)}' "$@"`);
  script("kubectl-refused", `cat >&2 <<'END'\n${REFUSED}\nEND\nexit 1`);
  // a cluster whose objects are more than rta keeps (a tenant's, say): kubectl writes past the spawn's bound
  script("kubectl-huge", `printf '{"items":["'; head -c 200000000 /dev/zero | tr '\\0' a; printf '"]}'`);
});

afterAll(() => eol.stop());

/** Dirs and an environment whose config runs the kubectl named (a stand-in in `bin`, or any path). */
function setup(kubectl: string) {
  const data = tempDir();
  const config = tempDir();
  const path = kubectl.startsWith("/") ? kubectl : join(bin, kubectl);
  writeFileSync(join(config, "config.toml"), `[defaults.audit]\nkubectl = "${path}"\napi_url = "${eol.url}"\n`);
  return { data, config, env: { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config } };
}

const AUDITS = ["netpol", "podsecurity", "quotas", "rbac"];
const COUNTS: Record<string, number> = { netpol: 3, podsecurity: 7, quotas: 3, rbac: 4 };

describe("from the command line", () => {
  test("each audit: the faulty cluster's findings, the clean one's none, with exit 0", async () => {
    for (const audit of AUDITS) {
      const faulty = await rta(["audit", "kube", audit, "--json"], { env: setup("kubectl-faulty").env });
      expect([audit, faulty.code, faulty.stderr]).toEqual([audit, 0, ""]);
      const value = JSON.parse(faulty.stdout);
      expect(value.columns).toEqual(["check", "severity", "object", "finding", "fix"]);
      expect(value.rows).toHaveLength(COUNTS[audit] as number);
      const clean = await rta(["audit", "kube", audit, "--json"], { env: setup("kubectl-clean").env });
      expect([audit, clean.code, JSON.parse(clean.stdout).rows]).toEqual([audit, 0, []]);
    }
  });

  test("piped: one finding a line, tab-separated; on a terminal: a table under a header", async () => {
    const { env } = setup("kubectl-faulty");
    const piped = await rta(["audit", "kube", "quotas"], { env });
    expect(piped.stdout).toBe(
      [
        "no quota\tmedium\tnamespace web\tno ResourceQuota: the namespace may take as much CPU, memory and as many pods as the cluster has\tadd a ResourceQuota to web (kubectl create quota web-quota -n web --hard=requests.cpu=4,requests.memory=8Gi,pods=50)",
        "no limit range\tlow\tnamespace shop\tno LimitRange: a container that names no requests or limits gets none\tadd a LimitRange to shop with default requests and limits for containers",
        "no limit range\tlow\tnamespace web\tno LimitRange: a container that names no requests or limits gets none\tadd a LimitRange to web with default requests and limits for containers",
        "",
      ].join("\n"),
    );
    const shown = await onTerminal(["audit", "kube", "quotas"], { ...env, HOME: tempDir() });
    expect(shown.code).toBe(0);
    expect(shown.out).toMatch(/^CHECK\s+SEVERITY\s+OBJECT\s+FINDING\s+FIX\n/);
    expect(shown.out).toContain("no limit range  low       namespace shop");
  });

  test("kubectl missing: kube.tool.missing with the fix; a cluster that refuses: kube.unreachable", async () => {
    const missing = await rta(["audit", "kube", "rbac"], { env: setup("/nonexistent/bin/kubectl").env });
    expect(missing.code).toBe(4);
    expect(missing.stderr).toBe(
      "rta: error: rta cannot run kubectl: it is not installed on the machine running rta (kube.tool.missing)\nrta: hint: the person running rta can install kubectl (https://kubernetes.io/docs/tasks/tools/), or set kubectl to its full path under [defaults.audit] in config.toml\n",
    );
    const refused = await rta(["audit", "kube", "netpol"], { env: setup("kubectl-refused").env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toStartWith(
      "rta: error: the cluster did not answer: The connection to the server 127.0.0.1:1 was refused - did you specify the right host or port? (kube.unreachable)\nrta: hint: ",
    );
    expect(noStack(missing.stderr + refused.stderr)).toBe(true);
  });
});

describe("kubectl named by a relative path", () => {
  // found from wherever rta runs, often a root an agent may write (fs.write keeps an executable's mode)
  test("is not run: kube.tool.missing, with the fix to give its full path", async () => {
    const here = tempDir();
    mkdirSync(join(here, "bin"));
    writeFileSync(join(here, "bin/kubectl"), "#!/bin/sh\ntouch ran\nexit 1\n");
    chmodSync(join(here, "bin/kubectl"), 0o755);
    const { env, config } = setup("kubectl-clean");
    writeFileSync(join(config, "config.toml"), '[defaults.audit]\nkubectl = "bin/kubectl"\n');
    const r = await rta(["audit", "kube", "rbac"], { env, cwd: here });
    expect(r.stderr).toContain("(kube.tool.missing)\nrta: hint: ");
    expect(r.stderr).toContain("set kubectl to its full path");
    expect(existsSync(join(here, "ran"))).toBe(false);
  });
});

describe("over MCP", () => {
  for (const era of ["legacy", "modern"] as Era[]) {
    test(`${era}: free reads with no grant, described truthfully; the context and kubectl are not offered`, async () => {
      const { data, config } = setup("kubectl-faulty");
      const s = await connect(era, ["--agent", "claude"], { dataDir: data, env: { RTA_CONFIG_DIR: config } });
      try {
        const { tools } = await s.client.listTools();
        for (const audit of AUDITS) {
          const tool = tools.find((t) => t.name === `audit_kube_${audit}`);
          expect(tool?.description).toContain("cluster of kubectl's current context");
          expect(tool?.annotations?.openWorldHint).toBe(true);
          expect(tool?.annotations?.readOnlyHint).toBe(true);
          expect(Object.keys(tool?.inputSchema.properties ?? {})).not.toContain("context");
          expect(Object.keys(tool?.inputSchema.properties ?? {})).not.toContain("kubectl");
          const out = resultJson(await s.client.callTool({ name: `audit_kube_${audit}`, arguments: {} }));
          expect(out.type).toBe("table");
          expect((out.rows as unknown[]).length).toBe(COUNTS[audit] as number);
        }
        // each call is on the record, though it spent no grant
        const record = readFileSync(join(data, "agent-log.jsonl"), "utf8");
        for (const audit of AUDITS) expect(record).toContain(`"capability":"audit_kube_${audit}"`);
        const aimed = await s.client.callTool({ name: "audit_kube_rbac", arguments: { context: "prod" } });
        expect(aimed.isError).toBe(true);
        expect(resultJson(aimed).code).toBe("core.mcp.badargs");
      } finally {
        await s.close();
      }
    });
  }

  test("a never entry does not stop a call that names no profile; a lock stops each audit until it is lifted", async () => {
    const { data, config, env } = setup("kubectl-faulty");
    writeFileSync(join(config, "policy.toml"), 'never = ["audit.kube.rbac"]\n');
    const s = await connect("modern", ["--agent", "claude"], { dataDir: data, env: { RTA_CONFIG_DIR: config } });
    try {
      expect((await s.client.callTool({ name: "audit_kube_rbac", arguments: {} })).isError).toBeFalsy();
      expect((await rta(["lock", "audit", "--agent", "claude"], { env })).code).toBe(0);
      for (const audit of [...AUDITS, "eol"]) {
        const r = resultJson(await s.client.callTool({ name: `audit_kube_${audit}`, arguments: {} }));
        expect(r.code).toBe("core.lock.locked");
      }
      expect((await rta(["lock", "lift", "--agent", "claude"], { env })).code).toBe(0);
      expect((await rta(["lock", "audit.kube.rbac", "--agent", "claude"], { env })).code).toBe(0);
      expect(resultJson(await s.client.callTool({ name: "audit_kube_rbac", arguments: {} })).code).toBe(
        "core.lock.locked",
      );
      expect((await s.client.callTool({ name: "audit_kube_quotas", arguments: {} })).isError).toBeFalsy();
    } finally {
      await s.close();
    }
  });

  test("kubectl writing past what rta keeps: killed, and kube.failed says so; the server serves on", async () => {
    const { data, config } = setup("kubectl-huge");
    const s = await connect("modern", ["--agent", "claude"], { dataDir: data, env: { RTA_CONFIG_DIR: config } });
    try {
      const r = resultJson(await s.client.callTool({ name: "audit_kube_rbac", arguments: {} }));
      expect([r.code, r.message]).toEqual([
        "kube.failed",
        "kubectl's answer is larger than rta reads, so it was stopped",
      ]);
      expect((await s.client.callTool({ name: "sys_info", arguments: {} })).isError).toBeFalsy();
    } finally {
      await s.close();
    }
  });

  test("kubectl missing, over MCP: kube.tool.missing, as a tool error", async () => {
    const { data, config } = setup("/nonexistent/bin/kubectl");
    const s = await connect("legacy", ["--agent", "claude"], { dataDir: data, env: { RTA_CONFIG_DIR: config } });
    try {
      const r = await s.client.callTool({ name: "audit_kube_podsecurity", arguments: {} });
      expect(r.isError).toBe(true);
      expect(resultJson(r).code).toBe("kube.tool.missing");
    } finally {
      await s.close();
    }
  });
});

describe("audit.kube.eol, against a stand-in for endoflife.date", () => {
  test("the command line: the faulty cluster's ended releases, one row per control plane or kubelet version", async () => {
    const r = await rta(["audit", "kube", "eol", "--json"], { env: setup("kubectl-faulty").env });
    expect([r.code, r.stderr]).toEqual([0, ""]);
    const rows = JSON.parse(r.stdout).rows as Record<string, string>[];
    // every release the faulty cluster runs ended before this test was written: each stays past its end
    expect(rows.map((row) => [row.object, row.severity])).toEqual([
      ["cluster (API server)", "high"],
      ["node node-3", "high"],
      ["node node-4", "high"],
      ["node node-5", "high"],
      ["nodes node-1, node-2", "high"],
    ]);
    expect(rows[0]?.finding).toBe(
      "Kubernetes 1.27 (v1.27.16-eks-2f46c53) reached its end of life on 2024-06-28: no more security fixes",
    );
    expect(eol.asked.some((a) => a.path === "/api/v1/products/kubernetes")).toBe(true);
  });

  test("over MCP: a free read that says it asks endoflife.date and the cluster", async () => {
    const { data, config } = setup("kubectl-faulty");
    const s = await connect("modern", ["--agent", "claude"], { dataDir: data, env: { RTA_CONFIG_DIR: config } });
    try {
      const { tools } = await s.client.listTools();
      const tool = tools.find((t) => t.name === "audit_kube_eol");
      expect(tool?.description).toContain("endoflife.date");
      expect(tool?.description).toContain("cluster of kubectl's current context");
      expect(Object.keys(tool?.inputSchema.properties ?? {})).not.toContain("api_url");
      const out = resultJson(await s.client.callTool({ name: "audit_kube_eol", arguments: {} }));
      expect((out.rows as unknown[]).length).toBe(5);
    } finally {
      await s.close();
    }
  });
});

describe("kubectl's config, which the audits have kubectl read, under a root", () => {
  // A kubeconfig names a command kubectl runs for credentials: one an agent planted would run at its next free read.
  test("~/.kube and the files KUBECONFIG names are neither read, written, moved nor planted by an agent", async () => {
    const root = realpathSync(tempDir());
    const home = join(root, "home");
    mkdirSync(join(home, ".kube"), { recursive: true });
    mkdirSync(join(root, "clusters"));
    mkdirSync(join(root, "stage/.kube"), { recursive: true });
    const token = "kube-t0ken-s3cret";
    writeFileSync(join(home, ".kube/config"), `users:\n- name: u\n  user: {token: ${token}}\n`);
    writeFileSync(join(root, "clusters/prod.yaml"), `users:\n- name: p\n  user: {token: ${token}}\n`);
    const exec = "users:\n- name: u\n  user:\n    exec: {command: /bin/sh, args: [-c, id]}\n";
    writeFileSync(join(root, "stage/.kube/config"), exec);
    const { data, config } = setup("kubectl-clean");
    const env = {
      RTA_DATA_DIR: data,
      RTA_CONFIG_DIR: config,
      HOME: home,
      KUBECONFIG: `${join(root, "clusters/prod.yaml")}:${join(root, "clusters/next.yaml")}`,
    };
    expect((await rta(["grant", "allow", "fs", "--agent", "claude", "--ttl", "10m"], { env })).code).toBe(0);
    const s = await connect("modern", ["--agent", "claude", "--root", root], { dataDir: data, env });
    const call = async (name: string, args: Record<string, unknown>) =>
      resultJson(await s.client.callTool({ name, arguments: args })).code ?? "ok";
    try {
      const cases: [string, Record<string, unknown>, string][] = [
        ["fs_read", { path: "home/.kube/config" }, "core.path.withheld"],
        ["fs_write", { path: "home/.kube/config", content: exec, mode: "overwrite" }, "core.path.withheld"],
        ["fs_write", { path: "home/.kube/other", content: exec }, "core.path.withheld"],
        ["fs_move", { from: "stage/.kube/config", to: "home/.kube/config", overwrite: true }, "core.path.withheld"],
        ["fs_move", { from: "home/.kube", to: "moved" }, "core.path.withheld"],
        ["fs_rm", { path: "home/.kube", recursive: true }, "core.path.withheld"],
        ["fs_read", { path: "clusters/prod.yaml" }, "core.path.withheld"],
        ["fs_write", { path: "clusters/prod.yaml", content: exec, mode: "append" }, "core.path.withheld"],
        ["fs_write", { path: "clusters/next.yaml", content: exec }, "core.path.withheld"],
        ["fs_write", { path: "clusters/notes.md", content: "x" }, "ok"],
      ];
      const got = [];
      for (const [name, args] of cases) got.push([name, args, await call(name, args)]);
      expect(got).toEqual(cases);
      expect(readFileSync(join(home, ".kube/config"), "utf8")).toContain(token);
      const grep = resultJson(await s.client.callTool({ name: "fs_grep", arguments: { pattern: token, path: "." } }));
      expect(grep).toMatchObject({ type: "table", rows: [] });
      // the audits still read the cluster through kubectl
      expect(await call("audit_kube_quotas", {})).toBe("ok");
    } finally {
      await s.close();
    }
  });
});
