/**
 * The version of a product installed here, for the eol reads: each asked of
 * the tool itself through ctx.spawn (an argument array, never a shell) or
 * read from the host's files (/etc/os-release, the kernel's osrelease).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { RunContext } from "../../core/capability.ts";

/** A version found, and how: the command run or the file read. */
export interface Found {
  version: string;
  by: string;
}

type Ctx = Pick<RunContext, "spawn" | "host">;
type Detector = (ctx: Ctx) => Promise<Found | undefined>;

/** The first version-like run of digits in a tool's output (stdout, then stderr). */
function versionIn(text: string, after = ""): string | undefined {
  const at = after ? text.indexOf(after) : 0;
  if (at < 0) return undefined;
  return /v?(\d+(?:\.\d+)+|\d+)/.exec(text.slice(at + after.length))?.[1];
}

function tool(argv: string[], after = ""): Detector {
  return async (ctx) => {
    const ran = await ctx.spawn(argv);
    if (ran?.code !== 0) return undefined;
    const version = versionIn(ran.stdout, after) ?? versionIn(ran.stderr, after);
    return version ? { version, by: argv.join(" ") } : undefined;
  };
}

function firstOf(...detectors: Detector[]): Detector {
  return async (ctx) => {
    for (const d of detectors) {
      const found = await d(ctx);
      if (found) return found;
    }
    return undefined;
  };
}

/** VERSION_ID of /etc/os-release when its ID is `id`. */
function osRelease(id: string): Detector {
  return async (ctx) => {
    let text: string;
    try {
      text = readFileSync(ctx.host.osReleaseFile, "utf8");
    } catch {
      return undefined;
    }
    const field = (k: string) => new RegExp(`^${k}=("?)([^"\\n]*)\\1$`, "m").exec(text)?.[2];
    if (field("ID") !== id) return undefined;
    const version = field("VERSION_ID");
    return version ? { version, by: "/etc/os-release" } : undefined;
  };
}

const kernel: Detector = async (ctx) => {
  try {
    const release = readFileSync(join(ctx.host.procRoot, "sys/kernel/osrelease"), "utf8").trim();
    const version = /^\d+\.\d+(?:\.\d+)?/.exec(release)?.[0];
    return version ? { version, by: "/proc/sys/kernel/osrelease" } : undefined;
  } catch {
    return undefined;
  }
};

/** What each detectable product is on endoflife.date, and how its version is found here. */
const DETECTORS: Record<string, { product: string; detect: Detector }> = {
  nodejs: { product: "nodejs", detect: tool(["node", "--version"]) },
  python: { product: "python", detect: firstOf(tool(["python3", "--version"]), tool(["python", "--version"])) },
  debian: { product: "debian", detect: osRelease("debian") },
  ubuntu: { product: "ubuntu", detect: osRelease("ubuntu") },
  postgresql: {
    product: "postgresql",
    detect: firstOf(tool(["postgres", "--version"], ")"), tool(["psql", "--version"], ")")),
  },
  nginx: { product: "nginx", detect: tool(["nginx", "-v"], "nginx/") },
  linux: { product: "linux", detect: kernel },
  bun: { product: "bun", detect: tool(["bun", "--version"]) },
};
const ALIASES: Record<string, string> = {
  node: "nodejs",
  "node.js": "nodejs",
  kernel: "linux",
  postgres: "postgresql",
};

/** The products rta finds installed, as a person names them. */
export const DETECTABLE = ["node", "python", "debian", "ubuntu", "postgresql", "nginx", "kernel", "bun"];

/** endoflife.date's name for a product a person may call otherwise (node is nodejs, kernel is linux). */
export function serviceName(product: string): string {
  const p = product.trim().toLowerCase();
  return ALIASES[p] ?? p;
}

/**
 * The version of `product` installed here: "unknown" when rta cannot tell for that product, "absent" when it finds
 * none. Refuses nothing.
 */
export async function detect(product: string, ctx: Ctx): Promise<Found | "unknown" | "absent"> {
  const d = DETECTORS[serviceName(product)];
  if (!d) return "unknown";
  return (await d.detect(ctx)) ?? "absent";
}
