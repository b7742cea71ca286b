/**
 * audit.kube.podsecurity: the pods of the cluster of kubectl's current
 * context, outside its own kube-* namespaces: privileged containers, the
 * host's network, PID or IPC namespaces, containers that run or may run as
 * root, containers with no CPU or memory limit; and each namespace's Pod
 * Security admission label. Pods of one owner (a ReplicaSet, a DaemonSet)
 * are one object: the first pod is read for them all.
 */
import {
  auditedNamespaces,
  defineKubeAudit,
  itemsOf,
  type KubeFinding,
  type KubeObject,
  SYSTEM_NAMESPACES,
} from "./kubectl.ts";

const ENFORCE = "pod-security.kubernetes.io/enforce";

function admissionFindings(list: KubeObject[]): KubeFinding[] {
  const names = new Set(auditedNamespaces(list));
  const out: KubeFinding[] = [];
  for (const ns of itemsOf(list, "Namespace")) {
    const name = ns.metadata?.name ?? "";
    if (!names.has(name)) continue;
    const level = ns.metadata?.labels?.[ENFORCE];
    const fix = `kubectl label namespace ${name} ${ENFORCE}=restricted (or baseline, where restricted is too strict)`;
    if (level === undefined)
      out.push({
        check: "pod security admission",
        severity: "medium",
        object: `namespace ${name}`,
        finding: "no Pod Security enforce label: any pod spec is admitted",
        fix,
      });
    else if (level === "privileged")
      out.push({
        check: "pod security admission",
        severity: "medium",
        object: `namespace ${name}`,
        finding: "Pod Security enforce level is privileged: any pod spec is admitted",
        fix,
      });
  }
  return out;
}

/** The pods to read, one per owner: [the object named, the pod read, how many pods it stands for]. */
function podGroups(list: KubeObject[]): [string, KubeObject, number][] {
  const groups = new Map<string, [string, KubeObject, number]>();
  for (const pod of itemsOf(list, "Pod")) {
    const ns = pod.metadata?.namespace ?? "";
    if (SYSTEM_NAMESPACES.has(ns)) continue;
    const owner = pod.metadata?.ownerReferences?.[0];
    const object = owner?.kind
      ? `${owner.kind.toLowerCase()} ${ns}/${owner.name ?? "?"}`
      : `pod ${ns}/${pod.metadata?.name ?? "?"}`;
    const seen = groups.get(object);
    if (seen) seen[2]++;
    else groups.set(object, [object, pod, 1]);
  }
  return [...groups.values()];
}

// biome-ignore lint/suspicious/noExplicitAny: a container and its pod's spec, as kubectl gives them
function containerFindings(object: string, c: any, podSpec: any, pods: string): KubeFinding[] {
  const out: KubeFinding[] = [];
  const where = `${object}, container ${c.name ?? "?"}`;
  const sc = c.securityContext ?? {};
  const podSc = podSpec.securityContext ?? {};
  if (sc.privileged === true)
    out.push({
      check: "privileged",
      severity: "high",
      object: where,
      finding: `runs privileged: it has every capability and the host's devices${pods}`,
      fix: "remove securityContext.privileged, and add only the capabilities it needs",
    });
  const user = sc.runAsUser ?? podSc.runAsUser;
  const nonRoot = sc.runAsNonRoot ?? podSc.runAsNonRoot;
  if (user === 0)
    out.push({
      check: "root user",
      severity: "high",
      object: where,
      finding: `runs as root (runAsUser 0)${pods}`,
      fix: "set securityContext.runAsUser to a non-zero uid and runAsNonRoot: true",
    });
  else if (user === undefined && nonRoot !== true)
    out.push({
      check: "root user",
      severity: "medium",
      object: where,
      finding: `may run as root: neither runAsNonRoot nor runAsUser is set${pods}`,
      fix: "set securityContext.runAsNonRoot: true (and runAsUser, where the image's user is root)",
    });
  const limits = c.resources?.limits ?? {};
  const missing = ["cpu", "memory"].filter((r) => limits[r] === undefined);
  if (missing.length > 0)
    out.push({
      check: "limits",
      severity: "low",
      object: where,
      finding: `no ${missing.join(" or ")} limit${pods}`,
      fix: `set resources.limits.${missing.join(" and resources.limits.")}`,
    });
  return out;
}

/** The findings for one List of namespaces and pods. */
export function podSecurityFindings(list: KubeObject[]): KubeFinding[] {
  const out = admissionFindings(list);
  for (const [object, pod, count] of podGroups(list)) {
    const spec = pod.spec ?? {};
    const pods = count > 1 ? ` (${count} pods)` : "";
    const shared = (["hostNetwork", "hostPID", "hostIPC"] as const).filter((k) => spec[k] === true);
    if (shared.length > 0)
      out.push({
        check: "host namespaces",
        severity: "high",
        object,
        finding: `shares the host's ${shared.map((k) => k.slice(4).replace("Network", "network")).join(", ")}${pods}`,
        fix: `remove ${shared.join(", ")} from the pod spec`,
      });
    for (const c of [...(spec.initContainers ?? []), ...(spec.containers ?? [])])
      out.push(...containerFindings(object, c, spec, pods));
  }
  return out;
}

export const auditKubePodsecurity = defineKubeAudit({
  name: "audit.kube.podsecurity",
  summary:
    "Audit a Kubernetes cluster's pods: privileged containers, host namespaces, root users, missing limits, Pod Security labels",
  agentText:
    "Runs kubectl get namespaces,pods; the cluster's own kube-* namespaces are left out, and the pods of one owner are one object. No rows: nothing was found.",
  searchWords: ["kubernetes", "k8s", "pod security", "privileged", "runAsNonRoot", "kubectl", "kubescape"],
  examples: [
    { command: "rta audit kube podsecurity", note: "the pod security findings of the current context's cluster" },
  ],
  kinds: "namespaces,pods",
  findings: podSecurityFindings,
});
