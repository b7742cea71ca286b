/**
 * audit.kube.eol: the Kubernetes versions of the cluster of kubectl's
 * current context (the API server's from kubectl version, each node's
 * kubelet from kubectl get nodes) against endoflife.date's `kubernetes`
 * product, asked through eol's own lookup at the operator's api_url.
 */
import { define } from "../../../core/capability.ts";
import { RtaError } from "../../../core/errors.ts";
import { apiUrlInput, client, type Freshness, productCycles } from "../../eol/api.ts";
import { KUBE_FINDING_COLUMNS, kubectlJson, kubectlList, kubeInputs, writeKubeFindings } from "./kubectl.ts";
import { eolFindings } from "./versions.ts";

export const auditKubeEol = define({
  name: "audit.kube.eol",
  summary: "Audit a Kubernetes cluster's control plane and kubelet versions against their end-of-life dates",
  agentText:
    "Runs kubectl version and kubectl get nodes, and asks endoflife.date for the kubernetes release cycles. No rows: every version is supported and on its cycle's latest patch.",
  searchWords: ["kubernetes", "k8s", "end of life", "eol", "upgrade", "kubelet version", "kubectl"],
  safety: "read",
  offsite: "endoflife.date and the cluster of kubectl's current context",
  inputs: {
    ...kubeInputs,
    // config fills an input from the capability's table, then its area's: eol's table does not reach an audit
    api_url: {
      ...apiUrlInput,
      description: "endoflife.date's base URL: the operator's, set in config ([defaults.audit] api_url) for a mirror",
    },
  },
  result: { shape: "table", columns: KUBE_FINDING_COLUMNS },
  examples: [{ command: "rta audit kube eol", note: "whether the current context's cluster runs supported releases" }],
  async run(args, ctx) {
    const version = (await kubectlJson(ctx.spawn, args, ["version", "-o", "json"])) as {
      serverVersion?: { gitVersion?: unknown };
    };
    const git = version?.serverVersion?.gitVersion;
    if (typeof git !== "string")
      throw new RtaError(
        "kube.failed",
        "kubectl version gave no server version",
        "run kubectl version to see what the cluster answers",
      );
    const nodes = await kubectlList(ctx.spawn, args, "nodes");
    const fresh: Freshness = { ageMs: 0, stale: false };
    let cycles: Awaited<ReturnType<typeof productCycles>>["cycles"];
    try {
      cycles = (await productCycles(client(ctx, args.api_url), "kubernetes", fresh)).cycles;
    } catch (err) {
      if (err instanceof RtaError && err.code === "offsite.unreachable")
        throw new RtaError(
          "offsite.unreachable",
          `endoflife.date could not be reached, so the cluster's versions (${git}) were not weighed`,
          err.hint,
        );
      throw err;
    }
    return writeKubeFindings(ctx.rows(), eolFindings(git, nodes, cycles, ctx.clock.now()));
  },
});
