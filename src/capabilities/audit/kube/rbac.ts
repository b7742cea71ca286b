/**
 * audit.kube.rbac: the RBAC of the cluster of kubectl's current context.
 * cluster-admin bound to a subject that is not the cluster's own, roles with
 * wildcard verbs or resources bound to someone, and ClusterRoles that read
 * secrets bound cluster-wide. The cluster's own subjects (system:* users and
 * groups, service accounts of the kube-* namespaces) and roles (system:*) are
 * left out.
 */
import {
  defineKubeAudit,
  itemsOf,
  type KubeFinding,
  type KubeObject,
  objectName,
  SYSTEM_NAMESPACES,
} from "./kubectl.ts";

interface Subject {
  kind?: string;
  name?: string;
  namespace?: string;
}

function systemSubject(s: Subject): boolean {
  if ((s.name ?? "").startsWith("system:")) return true;
  return s.kind === "ServiceAccount" && SYSTEM_NAMESPACES.has(s.namespace ?? "");
}

function subjectName(s: Subject): string {
  return s.kind === "ServiceAccount" ? `ServiceAccount ${s.namespace ?? "?"}/${s.name}` : `${s.kind} ${s.name}`;
}

interface Rule {
  apiGroups?: string[];
  resources?: string[];
  verbs?: string[];
}

const READS = ["get", "list", "watch", "*"];

function readsSecrets(r: Rule): boolean {
  return (
    (r.apiGroups ?? []).some((g) => g === "" || g === "*") &&
    (r.resources ?? []).some((x) => x === "secrets" || x === "*") &&
    (r.verbs ?? []).some((v) => READS.includes(v))
  );
}

/** The findings for one List of ClusterRoles, ClusterRoleBindings, Roles and RoleBindings. */
export function rbacFindings(list: KubeObject[]): KubeFinding[] {
  const roles = new Map<string, KubeObject>();
  for (const r of itemsOf(list, "ClusterRole")) roles.set(`ClusterRole/${r.metadata?.name}`, r);
  for (const r of itemsOf(list, "Role")) roles.set(`Role/${r.metadata?.namespace}/${r.metadata?.name}`, r);
  const out: KubeFinding[] = [];
  const bindings = [...itemsOf(list, "ClusterRoleBinding"), ...itemsOf(list, "RoleBinding")];
  for (const b of bindings) {
    const subjects = ((b.subjects ?? []) as Subject[]).filter((s) => !systemSubject(s));
    if (subjects.length === 0) continue;
    const ref = b.roleRef ?? {};
    const roleName: string = ref.name ?? "";
    if (roleName.startsWith("system:")) continue;
    const clusterWide = b.kind === "ClusterRoleBinding";
    const bindingName = objectName(clusterWide ? "clusterrolebinding" : "rolebinding", b);
    const who = subjects.map(subjectName).join(", ");
    const scope = clusterWide ? "in every namespace" : `in namespace ${b.metadata?.namespace}`;
    if (ref.kind === "ClusterRole" && roleName === "cluster-admin") {
      out.push({
        check: "cluster-admin",
        severity: clusterWide ? "high" : "medium",
        object: bindingName,
        finding: `gives cluster-admin ${scope} to ${who}`,
        fix: "bind a role that grants only what these subjects need, then delete this binding",
      });
      continue;
    }
    const role = roles.get(
      ref.kind === "Role" ? `Role/${b.metadata?.namespace}/${roleName}` : `ClusterRole/${roleName}`,
    );
    const rules: Rule[] = role?.rules ?? [];
    const roleLabel = `${ref.kind === "Role" ? "role" : "clusterrole"} ${roleName}`;
    const wild = rules.filter((r) => (r.verbs ?? []).includes("*") || (r.resources ?? []).includes("*"));
    if (wild.length > 0)
      out.push({
        check: "wildcard",
        severity: wild.some((r) => (r.verbs ?? []).includes("*") && (r.resources ?? []).includes("*"))
          ? "high"
          : "medium",
        object: bindingName,
        finding: `binds ${roleLabel}, whose rules grant * verbs or resources ${scope}, to ${who}`,
        fix: `name the verbs and resources in ${roleLabel} instead of *`,
      });
    if (clusterWide && ref.kind === "ClusterRole" && rules.some(readsSecrets))
      out.push({
        check: "secrets cluster-wide",
        severity: "high",
        object: bindingName,
        finding: `binds ${roleLabel}, which reads secrets, in every namespace to ${who}`,
        fix: "bind the role with RoleBindings in the namespaces that need it, or drop secrets from its rules",
      });
  }
  return out;
}

export const auditKubeRbac = defineKubeAudit({
  name: "audit.kube.rbac",
  summary:
    "Audit a Kubernetes cluster's RBAC: cluster-admin bindings, wildcard roles bound to someone, secrets readable cluster-wide",
  agentText:
    "Runs kubectl get clusterroles,clusterrolebindings,roles,rolebindings; the cluster's own system:* roles and subjects are left out. No rows: nothing was found.",
  searchWords: ["kubernetes", "k8s", "rbac", "cluster-admin", "clusterrolebinding", "kubectl"],
  examples: [{ command: "rta audit kube rbac", note: "the RBAC findings of the current context's cluster" }],
  kinds: "clusterroles,clusterrolebindings,roles,rolebindings",
  findings: rbacFindings,
});
