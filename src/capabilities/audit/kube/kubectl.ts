/**
 * What the audit.kube.* reads share: kubectl run from an argument array
 * against the cluster of the current context (or the context the operator's
 * config names), its JSON read, and its failures said as kube.* codes; the
 * findings table, with the object each finding is about.
 */
import {
  type Capability,
  type ColumnSpec,
  define,
  type Example,
  type InputSpec,
  type RowWriter,
} from "../../../core/capability.ts";
import { RtaError } from "../../../core/errors.ts";
import type { ResultValue } from "../../../core/result.ts";
import type { Finding } from "../findings.ts";

/** How long kubectl waits for the API server on one request; the spawn's own limit stands behind it. */
export const REQUEST_TIMEOUT = "20s";

/** The inputs every audit.kube.* read takes, all the operator's: never offered to an agent. */
export const kubeInputs = {
  context: {
    type: "string",
    description: "the kubeconfig context to read instead of the current one (the operator's to set)",
    operatorOnly: true,
    profile: true,
  },
  kubectl: {
    type: "string",
    description:
      "the kubectl to run: a name looked for in the system's bin dirs, or a full path (the operator's to set)",
    operatorOnly: true,
    default: "kubectl",
  },
} as const satisfies Record<string, InputSpec>;

/** A Kubernetes object as the audits read it: only the fields they look at. */
export interface KubeObject {
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    labels?: Record<string, string>;
    ownerReferences?: { kind?: string; name?: string }[];
  };
  // biome-ignore lint/suspicious/noExplicitAny: each audit reads the spec of its own kinds, as kubectl gives it
  spec?: any;
  // biome-ignore lint/suspicious/noExplicitAny: as above, for the status (a node's kubelet version)
  status?: any;
  // biome-ignore lint/suspicious/noExplicitAny: RBAC objects carry rules, subjects and roleRef at the top
  [field: string]: any;
}

/** Namespaces the cluster runs itself: the namespace-wide checks leave them out. */
export const SYSTEM_NAMESPACES: ReadonlySet<string> = new Set(["kube-system", "kube-public", "kube-node-lease"]);

/** The items of a kubectl List of the given kind. */
export function itemsOf(list: KubeObject[], kind: string): KubeObject[] {
  return list.filter((o) => o.kind === kind);
}

/** The names of the namespaces an audit looks at: every one but the cluster's own, sorted. */
export function auditedNamespaces(list: KubeObject[]): string[] {
  return itemsOf(list, "Namespace")
    .map((n) => n.metadata?.name ?? "")
    .filter((n) => n !== "" && !SYSTEM_NAMESPACES.has(n))
    .sort();
}

/** One finding of a kube audit: a mail-style finding with the object it is about. */
export interface KubeFinding extends Finding {
  object: string;
}

export const KUBE_FINDING_COLUMNS: readonly ColumnSpec[] = [
  { name: "check", doc: "what was checked" },
  { name: "severity", doc: "high, medium, low, or info for what could not be weighed" },
  { name: "object", doc: "the Kubernetes object: its kind, then namespace/name" },
  { name: "finding", doc: "what was found" },
  { name: "fix", doc: "what to change, in one line" },
];

const RANK = { high: 0, medium: 1, low: 2, info: 3, ok: 4 } as const;

/** Writes the findings, the most severe first, then by object; refuses what the row writer refuses (past the hard bound). */
export function writeKubeFindings(out: RowWriter, findings: KubeFinding[]): ResultValue {
  const sorted = [...findings].sort(
    (a, b) => RANK[a.severity] - RANK[b.severity] || a.object.localeCompare(b.object) || a.check.localeCompare(b.check),
  );
  for (const f of sorted) out.add([f.check, f.severity, f.object, f.finding, f.fix]);
  return out.finish();
}

/**
 * kubectl's output a person should see: its last line (kubectl logs its retries first and sums up last), without
 * kubectl's own "error: " and at most 300 characters.
 */
function lastLine(stderr: string): string {
  let line = (stderr.trim().split("\n").at(-1) ?? "").replace(/^error:\s*/i, "").trim();
  // a klog line (kubectl stopped before it summed up): the error it logged, unquoted
  const logged = /^[EWI]\d{4} [\d:.]+\s+\d+ [^\]]+\] .*?err="((?:[^"\\]|\\.)*)"/.exec(line);
  if (logged?.[1] !== undefined) line = logged[1].replaceAll('\\"', '"');
  return line.length > 300 ? `${line.slice(0, 300)}…` : line || "no message";
}

const UNREACHABLE =
  /unable to connect to the server|connection (?:was )?refused|i\/o timeout|deadline exceeded|client\.timeout|no such host|no route to host|network is unreachable|tls handshake timeout|timeout awaiting|the server was unable to return a response in the time/i;

/**
 * Runs kubectl with `args` (after the context and the request timeout) and parses its JSON. Refuses
 * kube.tool.missing when kubectl cannot be run, kube.unreachable when the cluster does not answer (or kubectl is
 * killed at the spawn's limit), and kube.failed for any other error, output past the spawn's bound, or output that
 * is not JSON.
 */
export async function kubectlJson(
  spawn: (
    argv: readonly string[],
  ) => Promise<{ code: number; stdout: string; stderr: string; cut?: boolean } | undefined>,
  inputs: { kubectl: string; context?: string | undefined },
  args: readonly string[],
): Promise<unknown> {
  const argv = [
    inputs.kubectl,
    ...(inputs.context ? [`--context=${inputs.context}`] : []),
    `--request-timeout=${REQUEST_TIMEOUT}`,
    ...args,
  ];
  const ran = await spawn(argv);
  if (!ran)
    throw new RtaError(
      "kube.tool.missing",
      "rta cannot run kubectl: it is not installed on the machine running rta",
      "the person running rta can install kubectl (https://kubernetes.io/docs/tasks/tools/), or set kubectl to its full path under [defaults.audit] in config.toml",
    );
  if (ran.cut)
    throw new RtaError(
      "kube.failed",
      "kubectl's answer is larger than rta reads, so it was stopped",
      "the cluster holds more than rta can audit at once: run the kubectl command by hand, or audit a smaller cluster",
    );
  if (ran.code !== 0) {
    const said = lastLine(ran.stderr);
    // with no kubeconfig at all, kubectl tries localhost:8080: that is no cluster down but none configured
    if (/localhost:8080/.test(ran.stderr))
      throw new RtaError(
        "kube.failed",
        "kubectl has no cluster configured: it found no kubeconfig and tried localhost:8080",
        "the person running rta can set up kubectl's config (~/.kube/config or KUBECONFIG) for the user rta runs as",
      );
    if (UNREACHABLE.test(ran.stderr) || (ran.code > 128 && ran.stderr.trim() === ""))
      throw new RtaError(
        "kube.unreachable",
        `the cluster did not answer: ${ran.stderr.trim() === "" ? "kubectl was stopped at its time limit" : said}`,
        `check that the cluster of kubectl's ${inputs.context ? `context ${inputs.context}` : "current context"} is up (kubectl cluster-info); each request waits ${REQUEST_TIMEOUT}, and kubectl a minute at most`,
      );
    throw new RtaError(
      "kube.failed",
      `kubectl failed: ${said}`,
      /current-context|context was not found|no configuration/i.test(ran.stderr)
        ? "the person running rta can choose a context (kubectl config use-context), or name one as context under [defaults.audit] in config.toml"
        : /forbidden|unauthorized|credentials/i.test(ran.stderr)
          ? "the credentials of kubectl's context need to get and list what this audit reads"
          : "run the same kubectl command to see the whole error",
    );
  }
  try {
    return JSON.parse(ran.stdout);
  } catch {
    throw new RtaError("kube.failed", "kubectl's output is not JSON", "check that kubectl is the real kubectl");
  }
}

/** The items of `kubectl get <kinds> -A -o json`; refuses what kubectlJson refuses, and kube.failed for no List. */
export async function kubectlList(
  spawn: Parameters<typeof kubectlJson>[0],
  inputs: Parameters<typeof kubectlJson>[1],
  kinds: string,
): Promise<KubeObject[]> {
  const out = (await kubectlJson(spawn, inputs, ["get", kinds, "--all-namespaces", "-o", "json"])) as {
    items?: unknown;
  };
  if (!out || !Array.isArray(out.items))
    throw new RtaError("kube.failed", "kubectl's answer is not a List", "check that kubectl is the real kubectl");
  return out.items as KubeObject[];
}

/** `kind namespace/name`, or `kind name` for a cluster-wide object. */
export function objectName(kind: string, o: KubeObject): string {
  const ns = o.metadata?.namespace;
  return `${kind} ${ns ? `${ns}/` : ""}${o.metadata?.name ?? "?"}`;
}

/**
 * An audit.kube.* read over one `kubectl get <kinds>` List: the shared inputs, offsite and findings table, and a run
 * that writes `findings` of the List; refuses what kubectlList and writeKubeFindings refuse.
 */
export function defineKubeAudit(decl: {
  name: string;
  summary: string;
  agentText: string;
  searchWords: readonly string[];
  examples: readonly Example[];
  kinds: string;
  findings: (list: KubeObject[]) => KubeFinding[];
}): Capability<typeof kubeInputs> {
  const { kinds, findings, ...described } = decl;
  return define({
    ...described,
    safety: "read",
    offsite: "the cluster of kubectl's current context",
    inputs: kubeInputs,
    result: { shape: "table", columns: KUBE_FINDING_COLUMNS },
    async run(args, ctx) {
      return writeKubeFindings(ctx.rows(), findings(await kubectlList(ctx.spawn, args, kinds)));
    },
  });
}
