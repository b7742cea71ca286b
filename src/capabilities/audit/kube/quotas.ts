/**
 * audit.kube.quotas: namespaces of the cluster of kubectl's current context
 * with no ResourceQuota (nothing caps what the namespace may take of the
 * cluster) or no LimitRange (a container that names no limits gets none).
 */
import { auditedNamespaces, defineKubeAudit, itemsOf, type KubeFinding, type KubeObject } from "./kubectl.ts";

/** The findings for one List of namespaces, ResourceQuotas and LimitRanges. */
export function quotaFindings(list: KubeObject[]): KubeFinding[] {
  const has = (kind: string) => new Set(itemsOf(list, kind).map((o) => o.metadata?.namespace));
  const quotas = has("ResourceQuota");
  const ranges = has("LimitRange");
  const out: KubeFinding[] = [];
  for (const ns of auditedNamespaces(list)) {
    if (!quotas.has(ns))
      out.push({
        check: "no quota",
        severity: "medium",
        object: `namespace ${ns}`,
        finding: "no ResourceQuota: the namespace may take as much CPU, memory and as many pods as the cluster has",
        fix: `add a ResourceQuota to ${ns} (kubectl create quota ${ns}-quota -n ${ns} --hard=requests.cpu=4,requests.memory=8Gi,pods=50)`,
      });
    if (!ranges.has(ns))
      out.push({
        check: "no limit range",
        severity: "low",
        object: `namespace ${ns}`,
        finding: "no LimitRange: a container that names no requests or limits gets none",
        fix: `add a LimitRange to ${ns} with default requests and limits for containers`,
      });
  }
  return out;
}

export const auditKubeQuotas = defineKubeAudit({
  name: "audit.kube.quotas",
  summary: "Audit a Kubernetes cluster's namespaces for a missing ResourceQuota or LimitRange",
  agentText:
    "Runs kubectl get namespaces,resourcequotas,limitranges; the cluster's own kube-* namespaces are left out. No rows: nothing was found.",
  searchWords: ["kubernetes", "k8s", "resource quota", "limitrange", "kubectl"],
  examples: [{ command: "rta audit kube quotas", note: "namespaces with no quota or limit range" }],
  kinds: "namespaces,resourcequotas,limitranges",
  findings: quotaFindings,
});
