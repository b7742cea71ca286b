/**
 * The versions audit.kube.eol weighs: the API server's (kubectl version) and
 * each node's kubelet (kubectl get nodes), held against endoflife.date's
 * cycles of the `kubernetes` product.
 */
import { type Cycle, cycleOf, daysUntil, older, status } from "../../eol/api.ts";
import type { KubeFinding, KubeObject } from "./kubectl.ts";

/** A Kubernetes version read from a gitVersion ("v1.29.4-eks-036c24b", "v1.30.2+k3s1"): its cycle and patch. */
export interface KubeVersion {
  cycle: string;
  patch: string;
  raw: string;
}

/** The version in a gitVersion or kubeletVersion, or undefined for text that holds none. */
export function kubeVersion(raw: string): KubeVersion | undefined {
  const m = /^v?(\d+)\.(\d+)\.(\d+)/.exec(raw.trim());
  return m ? { cycle: `${m[1]}.${m[2]}`, patch: `${m[1]}.${m[2]}.${m[3]}`, raw: raw.trim() } : undefined;
}

/** How near its end a cycle is said to be ending soon, in days. */
const SOON_DAYS = 90;

/** The newest cycle endoflife.date lists that has not ended at `now`, for the fix. */
function newestSupported(cycles: Cycle[], now: number): string | undefined {
  const live = cycles.filter((c) => status(c, now) !== "end of life").map((c) => c.name);
  return live.sort((x, y) => (older(x, y) ? 1 : -1))[0];
}

/** The findings for one version on `object` (the control plane, or the nodes whose kubelets run it). */
function versionFindings(object: string, what: string, v: KubeVersion, cycles: Cycle[], now: number): KubeFinding[] {
  const c = cycleOf(cycles, v.patch);
  const target = newestSupported(cycles, now);
  const upgrade = `upgrade ${what} to a supported release${target ? ` (${target} is the newest)` : ""}`;
  if (!c)
    return [
      {
        check: "end of life",
        severity: "info",
        object,
        finding: `endoflife.date lists no Kubernetes ${v.cycle} (${v.raw})`,
        fix: "check the release with the cluster's vendor",
      },
    ];
  const left = daysUntil(c.securityEnd, now);
  if (status(c, now) === "end of life")
    return [
      {
        check: "end of life",
        severity: "high",
        object,
        finding: `Kubernetes ${c.name} (${v.raw}) ${c.securityEnd ? `reached its end of life on ${c.securityEnd}` : "has reached its end of life"}: no more security fixes`,
        fix: upgrade,
      },
    ];
  if (left !== null && left <= SOON_DAYS)
    return [
      {
        check: "end of life",
        severity: "medium",
        object,
        finding: `Kubernetes ${c.name} (${v.raw}) reaches its end of life on ${c.securityEnd}, in ${left} days`,
        fix: upgrade,
      },
    ];
  if (c.latest && older(v.patch, c.latest))
    return [
      {
        check: "patch",
        severity: "low",
        object,
        finding: `${v.raw} is behind the latest patch of ${c.name}, ${c.latest}`,
        fix: `upgrade ${what} to ${c.latest}`,
      },
    ];
  return [];
}

/**
 * The findings for the API server's gitVersion and the nodes' kubelets, against endoflife.date's cycles at `now`:
 * past its end of life (high), within 90 days of it (medium), behind its cycle's latest patch (low), a cycle
 * endoflife.date does not list (info). Nodes that run one version are one object.
 */
export function eolFindings(serverVersion: string, nodes: KubeObject[], cycles: Cycle[], now: number): KubeFinding[] {
  const out: KubeFinding[] = [];
  const server = kubeVersion(serverVersion);
  if (server) out.push(...versionFindings("cluster (API server)", "the control plane", server, cycles, now));
  const byVersion = new Map<string, string[]>();
  for (const n of nodes) {
    const raw: string = n.status?.nodeInfo?.kubeletVersion ?? "";
    byVersion.set(raw, [...(byVersion.get(raw) ?? []), n.metadata?.name ?? "?"]);
  }
  for (const [raw, names] of [...byVersion].sort(([a], [b]) => a.localeCompare(b))) {
    const v = kubeVersion(raw);
    if (!v) continue;
    const object = `${names.length === 1 ? "node" : "nodes"} ${names.sort().join(", ")}`;
    out.push(...versionFindings(object, names.length === 1 ? "its kubelet" : "their kubelets", v, cycles, now));
  }
  return out;
}
