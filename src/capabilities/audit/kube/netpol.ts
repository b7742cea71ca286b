/**
 * audit.kube.netpol: the NetworkPolicies of the cluster of kubectl's current
 * context. A namespace no policy selects is open to every pod of the cluster;
 * a policy over every pod with a rule that admits every peer opens it again.
 */
import {
  auditedNamespaces,
  defineKubeAudit,
  itemsOf,
  type KubeFinding,
  type KubeObject,
  objectName,
} from "./kubectl.ts";

// biome-ignore lint/suspicious/noExplicitAny: a label selector as kubectl gives it
function emptySelector(s: any): boolean {
  return !s || (Object.keys(s.matchLabels ?? {}).length === 0 && (s.matchExpressions ?? []).length === 0);
}

/** A peer that is every source or destination: any pod of any namespace, or every address. */
// biome-ignore lint/suspicious/noExplicitAny: a NetworkPolicy peer as kubectl gives it
function peerIsEverything(p: any): boolean {
  if (p.ipBlock) return ["0.0.0.0/0", "::/0"].includes(p.ipBlock.cidr) && (p.ipBlock.except ?? []).length === 0;
  return p.namespaceSelector !== undefined && emptySelector(p.namespaceSelector) && emptySelector(p.podSelector);
}

/** A rule that admits everything on every port: `{}`, or peers that are all everything with no ports named. */
// biome-ignore lint/suspicious/noExplicitAny: a NetworkPolicy rule as kubectl gives it
function ruleAllowsAll(rule: any, peers: "from" | "to"): boolean {
  if ((rule.ports ?? []).length > 0) return false;
  const list = rule[peers] ?? [];
  return list.length === 0 || list.some(peerIsEverything);
}

/** The findings for one List of namespaces and NetworkPolicies: namespaces with none, and policies that allow all. */
export function netpolFindings(list: KubeObject[]): KubeFinding[] {
  const policies = itemsOf(list, "NetworkPolicy");
  const out: KubeFinding[] = [];
  for (const ns of auditedNamespaces(list)) {
    const own = policies.filter((p) => p.metadata?.namespace === ns);
    if (own.length === 0)
      out.push({
        check: "no policy",
        severity: "medium",
        object: `namespace ${ns}`,
        finding: "no NetworkPolicy: every pod takes traffic from any pod of the cluster",
        fix: `add a default-deny NetworkPolicy to ${ns} (podSelector: {}, policyTypes: [Ingress]), then allow what is needed`,
      });
    for (const p of own) {
      if (!emptySelector(p.spec?.podSelector)) continue;
      const types: string[] = p.spec?.policyTypes ?? (p.spec?.egress ? ["Ingress", "Egress"] : ["Ingress"]);
      if (types.includes("Ingress") && (p.spec?.ingress ?? []).some((r: unknown) => ruleAllowsAll(r, "from")))
        out.push({
          check: "allow all ingress",
          severity: "medium",
          object: objectName("networkpolicy", p),
          finding: "admits traffic from everywhere to every pod of the namespace",
          fix: "name the pods, namespaces or ports the rule admits, or delete the policy",
        });
      if (types.includes("Egress") && (p.spec?.egress ?? []).some((r: unknown) => ruleAllowsAll(r, "to")))
        out.push({
          check: "allow all egress",
          severity: "low",
          object: objectName("networkpolicy", p),
          finding: "lets every pod of the namespace reach anywhere",
          fix: "name the destinations and ports the rule allows (DNS, the services used)",
        });
    }
  }
  return out;
}

export const auditKubeNetpol = defineKubeAudit({
  name: "audit.kube.netpol",
  summary: "Audit a Kubernetes cluster's NetworkPolicies: namespaces with none, and policies that allow all",
  agentText:
    "Runs kubectl get namespaces,networkpolicies; the cluster's own kube-* namespaces are left out. No rows: nothing was found.",
  searchWords: ["kubernetes", "k8s", "network policy", "kubectl", "cluster security"],
  examples: [{ command: "rta audit kube netpol", note: "the NetworkPolicy findings of the current context's cluster" }],
  kinds: "namespaces,networkpolicies",
  findings: netpolFindings,
});
