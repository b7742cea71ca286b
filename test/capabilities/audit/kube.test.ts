/**
 * audit.kube.*: each audit over the recorded answers of a faulty cluster (every problem planted once) and a clean
 * one, through the pipeline with kubectl replaced by a fake spawn that replays them; and kubectl's failures.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { netpolFindings } from "../../../src/capabilities/audit/kube/netpol.ts";
import { podSecurityFindings } from "../../../src/capabilities/audit/kube/podsecurity.ts";
import { quotaFindings } from "../../../src/capabilities/audit/kube/quotas.ts";
import { rbacFindings } from "../../../src/capabilities/audit/kube/rbac.ts";
import { builtinCatalogue } from "../../../src/capabilities/builtinCatalogue.ts";
import type { Spawned } from "../../../src/core/access.ts";
import { type AgentOrigin, person } from "../../../src/core/call.ts";
import { runCall } from "../../../src/gate/pipeline.ts";
import { fixedClock, testDeps } from "../../support/fixtures.ts";
import { type StandIn, startStandIn } from "../../support/standIn.ts";

const FIXTURES = join(import.meta.dir, "../../fixtures/kube");
const agent: AgentOrigin = { kind: "agent", name: "claude", client: "c", session: "s", transport: "memory" };

function recorded(cluster: string, kinds: string) {
  return JSON.parse(readFileSync(join(FIXTURES, cluster, `${kinds}.json`), "utf8")).items;
}

/** A spawn that answers as kubectl.sh would for `cluster`, or as `answer` says; each argv it was handed is kept. */
function fakeKubectl(cluster: string, answer?: (argv: readonly string[]) => Spawned | undefined) {
  const argvs: (readonly string[])[] = [];
  const spawn = () => async (argv: readonly string[]) => {
    argvs.push(argv);
    if (answer) return answer(argv);
    const kinds = argv.includes("version") ? "version" : (argv[argv.indexOf("get") + 1] as string);
    return { code: 0, stdout: readFileSync(join(FIXTURES, cluster, `${kinds}.json`), "utf8"), stderr: "" };
  };
  return { argvs, spawn };
}

const planted: Record<string, string[][]> = {
  "audit.kube.netpol": [
    ["no policy", "medium", "namespace shop"],
    ["allow all ingress", "medium", "networkpolicy web/allow-all"],
    ["allow all egress", "low", "networkpolicy web/open-egress"],
  ],
  "audit.kube.podsecurity": [
    ["host namespaces", "high", "daemonset shop/agent"],
    ["privileged", "high", "pod shop/priv, container debug"],
    ["root user", "high", "replicaset web/web-5d9f7c, container nginx"],
    ["pod security admission", "medium", "namespace shop"],
    ["pod security admission", "medium", "namespace web"],
    ["root user", "medium", "pod web/maybe-root, container app"],
    ["limits", "low", "pod web/nolimits, container app"],
  ],
  "audit.kube.quotas": [
    ["no quota", "medium", "namespace web"],
    ["no limit range", "low", "namespace shop"],
    ["no limit range", "low", "namespace web"],
  ],
  "audit.kube.rbac": [
    ["cluster-admin", "high", "clusterrolebinding alice-admin"],
    ["secrets cluster-wide", "high", "clusterrolebinding read-secrets"],
    ["cluster-admin", "medium", "rolebinding shop/bob-admin"],
    ["wildcard", "medium", "rolebinding web/ops"],
  ],
};

async function rows(capability: string, cluster: string, config = "") {
  const deps = testDeps();
  mkdirSync(deps.dirs.config, { recursive: true });
  writeFileSync(join(deps.dirs.config, "config.toml"), config);
  const fake = fakeKubectl(cluster);
  deps.spawn = fake.spawn;
  const out = await runCall(
    { capability: capability.replaceAll(".", "_"), args: {}, origin: agent },
    builtinCatalogue(),
    deps,
  );
  if (!out.ok) throw new Error(`${out.error.code}: ${out.error.message}`);
  return { rows: (out.value as { rows: string[][] }).rows, argvs: fake.argvs, deps };
}

describe("each audit, as an agent calls it with no grant", () => {
  for (const [capability, want] of Object.entries(planted)) {
    test(`${capability}: the faulty cluster gives exactly the planted findings, the clean one none`, async () => {
      const faulty = await rows(capability, "faulty");
      expect(faulty.rows.map((r) => r.slice(0, 3))).toEqual(want);
      for (const r of faulty.rows) {
        expect(r).toHaveLength(5);
        expect(r[3]).not.toBe("");
        expect(r[4]).not.toBe("");
        expect(r[4]).not.toContain("\n");
      }
      expect((await rows(capability, "clean")).rows).toEqual([]);
    });
  }

  test("kubectl is run from an argument array with a request timeout, over every namespace, as JSON", async () => {
    const { argvs } = await rows("audit.kube.rbac", "clean");
    expect(argvs).toEqual([
      [
        "kubectl",
        "--request-timeout=20s",
        "get",
        "clusterroles,clusterrolebindings,roles,rolebindings",
        "--all-namespaces",
        "-o",
        "json",
      ],
    ]);
  });

  test("the operator's config names the context and the kubectl; an agent can set neither", async () => {
    const { argvs } = await rows(
      "audit.kube.quotas",
      "clean",
      '[defaults.audit]\ncontext = "prod-eu"\nkubectl = "/opt/kube/bin/kubectl"\n',
    );
    expect(argvs[0]?.slice(0, 3)).toEqual(["/opt/kube/bin/kubectl", "--context=prod-eu", "--request-timeout=20s"]);
    const deps = testDeps();
    deps.spawn = fakeKubectl("clean").spawn;
    for (const args of [{ context: "other" }, { kubectl: "/tmp/evil" }]) {
      const out = await runCall({ capability: "audit_kube_quotas", args, origin: agent }, builtinCatalogue(), deps);
      expect(out.ok).toBe(false);
      if (!out.ok) expect(out.error.code).toBe("core.mcp.badargs");
    }
  });
});

describe("the findings read the recorded answers themselves", () => {
  test("system namespaces and the cluster's own subjects are left out", () => {
    const objects = [
      ...netpolFindings(recorded("faulty", "namespaces,networkpolicies")),
      ...podSecurityFindings(recorded("faulty", "namespaces,pods")),
      ...quotaFindings(recorded("faulty", "namespaces,resourcequotas,limitranges")),
      ...rbacFindings(recorded("faulty", "clusterroles,clusterrolebindings,roles,rolebindings")),
    ].map((f) => `${f.object} ${f.finding}`);
    for (const o of objects) expect(o).not.toMatch(/kube-system|kube-proxy|system:/);
  });

  test("the pods of one owner are one object, counted", () => {
    const agentFinding = podSecurityFindings(recorded("faulty", "namespaces,pods")).find(
      (f) => f.object === "daemonset shop/agent",
    );
    expect(agentFinding?.finding).toBe("shares the host's network, PID (2 pods)");
  });
});

describe("kubectl's failures", () => {
  async function failing(answer: Spawned | undefined) {
    const deps = testDeps();
    deps.spawn = fakeKubectl("clean", () => answer).spawn;
    const out = await runCall({ capability: "audit.kube.netpol", args: {}, origin: person }, builtinCatalogue(), deps);
    if (out.ok) throw new Error("the call succeeded");
    return out.error;
  }

  test("not installed: kube.tool.missing, with the fix", async () => {
    const e = await failing(undefined);
    expect(e.code).toBe("kube.tool.missing");
    expect(e.hint).toContain("install kubectl");
  });

  test("a cluster that refuses or does not answer: kube.unreachable", async () => {
    const refused = await failing({
      code: 1,
      stdout: "",
      stderr:
        'E1201 16:48:51.165264    9471 memcache.go:265] "Unhandled Error" err="couldn\'t get current server API group list: Get \\"https://127.0.0.1:1/api?timeout=20s\\": dial tcp 127.0.0.1:1: connect: connection refused"\nThe connection to the server 127.0.0.1:1 was refused - did you specify the right host or port?\n',
    });
    expect(refused.code).toBe("kube.unreachable");
    expect(refused.message).toBe(
      "the cluster did not answer: The connection to the server 127.0.0.1:1 was refused - did you specify the right host or port?",
    );
    // stopped at the spawn's limit while it still retried: the error its last log line holds
    const stopped = await failing({
      code: 143,
      stdout: "",
      stderr:
        'E1201 17:00:13.917295    2857 memcache.go:265] "Unhandled Error" err="couldn\'t get current server API group list: Get \\"https://127.0.0.5:6443/api?timeout=20s\\": net/http: TLS handshake timeout"\n',
    });
    expect(stopped.code).toBe("kube.unreachable");
    expect(stopped.message).toBe(
      'the cluster did not answer: couldn\'t get current server API group list: Get "https://127.0.0.5:6443/api?timeout=20s": net/http: TLS handshake timeout',
    );
    const killed = await failing({ code: 143, stdout: "", stderr: "" });
    expect(killed.code).toBe("kube.unreachable");
    expect(killed.message).toContain("time limit");
  });

  test("no kubeconfig, forbidden, and output that is not JSON: kube.failed, each with its hint", async () => {
    const none = await failing({
      code: 1,
      stdout: "",
      stderr: "The connection to the server localhost:8080 was refused - did you specify the right host or port?\n",
    });
    expect([none.code, none.message]).toEqual([
      "kube.failed",
      "kubectl has no cluster configured: it found no kubeconfig and tried localhost:8080",
    ]);
    const forbidden = await failing({
      code: 1,
      stdout: "",
      stderr:
        'Error from server (Forbidden): namespaces is forbidden: User "dev" cannot list resource "namespaces" in API group "" at the cluster scope\n',
    });
    expect(forbidden.code).toBe("kube.failed");
    expect(forbidden.hint).toContain("credentials");
    expect((await failing({ code: 0, stdout: "<html>", stderr: "" })).code).toBe("kube.failed");
  });
});

describe("audit.kube.eol, against a stand-in for endoflife.date", () => {
  let eol: StandIn;
  beforeAll(() => {
    eol = startStandIn({
      "/api/v1/products/kubernetes": readFileSync(join(FIXTURES, "endoflife-kubernetes.json"), "utf8"),
    });
  });
  afterAll(() => eol.stop());

  async function eolCall(cluster: string, apiUrl = eol.url) {
    const deps = testDeps({ clock: fixedClock(Date.parse("2025-01-15T12:00:00Z")) });
    mkdirSync(deps.dirs.config, { recursive: true });
    writeFileSync(join(deps.dirs.config, "config.toml"), `[defaults.audit]\napi_url = "${apiUrl}"\n`);
    const fake = fakeKubectl(cluster);
    deps.spawn = fake.spawn;
    const out = await runCall({ capability: "audit_kube_eol", args: {}, origin: agent }, builtinCatalogue(), deps);
    return { out, fake };
  }

  async function eolRows(cluster: string) {
    const { out, fake } = await eolCall(cluster);
    if (!out.ok) throw new Error(`${out.error.code}: ${out.error.message}`);
    return { rows: (out.value as { rows: string[][] }).rows, argvs: fake.argvs };
  }

  test("the faulty cluster: ended, ending and behind-patch versions of the control plane and the kubelets", async () => {
    const { rows, argvs } = await eolRows("faulty");
    expect(rows).toEqual([
      [
        "end of life",
        "high",
        "cluster (API server)",
        "Kubernetes 1.27 (v1.27.16-eks-2f46c53) reached its end of life on 2024-06-28: no more security fixes",
        "upgrade the control plane to a supported release (1.32 is the newest)",
      ],
      [
        "end of life",
        "high",
        "node node-3",
        "Kubernetes 1.27 (v1.27.16-eks-2f46c53) reached its end of life on 2024-06-28: no more security fixes",
        "upgrade its kubelet to a supported release (1.32 is the newest)",
      ],
      [
        "end of life",
        "high",
        "nodes node-1, node-2",
        "Kubernetes 1.26 (v1.26.15-eks-ae9a62a) reached its end of life on 2024-02-28: no more security fixes",
        "upgrade their kubelets to a supported release (1.32 is the newest)",
      ],
      [
        "end of life",
        "medium",
        "node node-4",
        "Kubernetes 1.29 (v1.29.4-eks-ae9a62a) reaches its end of life on 2025-02-28, in 44 days",
        "upgrade its kubelet to a supported release (1.32 is the newest)",
      ],
      [
        "patch",
        "low",
        "node node-5",
        "v1.30.2-eks-1552ad0 is behind the latest patch of 1.30, 1.30.9",
        "upgrade its kubelet to 1.30.9",
      ],
    ]);
    expect(argvs.map((a) => a.slice(2))).toEqual([
      ["version", "-o", "json"],
      ["get", "nodes", "--all-namespaces", "-o", "json"],
    ]);
    expect(eol.asked.map((a) => a.path)).toContain("/api/v1/products/kubernetes");
  });

  test("the clean cluster: none", async () => {
    expect((await eolRows("clean")).rows).toEqual([]);
  });

  test("endoflife.date unreachable: offsite.unreachable, naming the version that was not weighed", async () => {
    const { out } = await eolCall("faulty", "http://127.0.0.1:1");
    expect(out.ok).toBe(false);
    if (!out.ok)
      expect([out.error.code, out.error.message]).toEqual([
        "offsite.unreachable",
        "endoflife.date could not be reached, so the cluster's versions (v1.27.16-eks-2f46c53) were not weighed",
      ]);
  });
});
