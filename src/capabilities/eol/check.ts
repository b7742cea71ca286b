/**
 * eol.check: where one product's release cycle stands, from endoflife.date:
 * its support and security end dates, the days left, and the latest patch.
 * With no version it uses the one installed here, where rta can find it.
 */
import { define, type RunContext } from "../../core/capability.ts";
import { RtaError } from "../../core/errors.ts";
import { object } from "../../core/result.ts";
import { apiUrlInput, client, cycleOf, daysUntil, type Freshness, older, productCycles, status } from "./api.ts";
import { DETECTABLE, detect, serviceName } from "./detect.ts";

/** What eol.check says of one product and version. */
export interface Standing {
  product: string;
  label: string;
  version: string;
  detected_by?: string;
  cycle: string;
  release_date: string | null;
  lts: boolean;
  support_end: string | null;
  security_end: string | null;
  extended_end?: string;
  days_left: number | null;
  status: string;
  latest: string | null;
  latest_date: string | null;
  update: string | null;
}

/**
 * The standing of `version` of `wanted` on `now`. Refuses eol.cycle.unknown a version in no cycle (naming the
 * cycles), and what productCycles refuses.
 */
export async function standing(
  ctx: Pick<RunContext, "offsite" | "clock">,
  apiUrl: string,
  wanted: string,
  version: string,
  fresh: Freshness,
): Promise<Standing> {
  const product = await productCycles(client(ctx, apiUrl), serviceName(wanted), fresh);
  const cycle = cycleOf(product.cycles, version);
  if (!cycle)
    throw new RtaError(
      "eol.cycle.unknown",
      `${product.label} has no release cycle for version ${version}`,
      `its cycles are ${product.cycles
        .slice(0, 12)
        .map((c) => c.name)
        .join(", ")}${product.cycles.length > 12 ? ", ..." : ""}`,
    );
  const now = ctx.clock.now();
  const latest = cycle.latest;
  return {
    product: product.name,
    label: product.label,
    version,
    cycle: cycle.name,
    release_date: cycle.releaseDate,
    lts: cycle.lts,
    support_end: cycle.supportEnd,
    security_end: cycle.securityEnd,
    ...(cycle.extendedEnd ? { extended_end: cycle.extendedEnd } : {}),
    days_left: daysUntil(cycle.securityEnd, now),
    status: status(cycle, now),
    latest,
    latest_date: cycle.latestDate,
    update: latest !== null && version.includes(".") && older(version, latest) ? latest : null,
  };
}

/** The refusal for a product with no version given and none found here. */
export function undetected(product: string, why: "unknown" | "absent"): RtaError {
  return new RtaError(
    "eol.version.undetected",
    why === "unknown"
      ? `rta cannot find which version of ${product} is installed (it can for ${DETECTABLE.join(", ")})`
      : `no installed ${product} was found on the machine running rta`,
    `give the version: \`rta eol check ${product} VERSION\``,
  );
}

export const eolCheck = define({
  name: "eol.check",
  summary: "Whether a product's version is still supported: its cycle, support and security end, days left",
  agentText:
    "Leave version out to check what is installed here (node, python, debian, ubuntu, postgresql, nginx, kernel, bun). Only the product's name is sent; the version is matched here.",
  searchWords: ["end of life", "eol", "endoflife.date", "support", "lifecycle", "outdated", "upgrade"],
  safety: "read",
  offsite: "endoflife.date",
  inputs: {
    product: {
      type: "string",
      description: "the product as endoflife.date names it (nodejs or node, python, ubuntu, postgresql, ...)",
      required: true,
      positional: true,
    },
    version: {
      type: "string",
      description: "the version or cycle (20.11.1, 3.12, 22.04); left out, the one installed here",
      positional: true,
    },
    api_url: apiUrlInput,
  },
  result: {
    shape: "object",
    fields: [
      { name: "release_date", doc: "when the cycle was first released" },
      { name: "support_end", doc: "end of active support (bug fixes): null when endoflife.date gives no date" },
      { name: "security_end", doc: "end of security fixes, the end of life" },
      { name: "days_left", doc: "days until security_end; negative once it has passed" },
      { name: "update", doc: "the latest patch of the cycle when the version is older; else null" },
      { name: "data_age", doc: "how old endoflife.date's answer is (kept a day)", unit: "seconds" },
    ],
  },
  examples: [
    { command: "rta eol check nodejs 18.19.0", note: "Node.js 18's end of life, and its latest patch" },
    { command: "rta eol check postgresql", note: "the PostgreSQL installed here" },
  ],
  async run(args, ctx) {
    let version = args.version?.trim();
    let by: string | undefined;
    if (!version) {
      const found = await detect(args.product, ctx);
      if (typeof found === "string") throw undetected(args.product, found);
      version = found.version;
      by = found.by;
    }
    const fresh: Freshness = { ageMs: 0, stale: false };
    const result = await standing(ctx, args.api_url, args.product, version, fresh);
    return object({
      ...result,
      ...(by ? { detected_by: by } : {}),
      data_age: Math.round(fresh.ageMs / 1000),
      ...(fresh.stale ? { stale: true } : {}),
    });
  },
});
