/**
 * A stand-in for osv.dev on 127.0.0.1: `/v1/querybatch` answers from the
 * recorded advisories in test/fixtures/deps/osv/vulns.json (a package is
 * affected when the record lists its version, or a SEMVER range holds it),
 * and `/v1/vulns/{id}` gives each record. Extra records (a bench's) may be
 * added. It counts what it was asked, so a test sees what left the machine.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type StandIn, startStandIn } from "./standIn.ts";

export interface OsvRecord {
  id: string;
  affected: {
    package: { ecosystem: string; name: string };
    versions?: string[];
    ranges?: { type: string; events: Record<string, string>[] }[];
  }[];
}

/** The recorded advisories. */
export function recordedVulns(): OsvRecord[] {
  return JSON.parse(readFileSync(join(import.meta.dir, "../fixtures/deps/osv/vulns.json"), "utf8"));
}

/** x.y.z compared as numbers, for SEMVER ranges (the Go and crates.io records). */
function semver(a: string, b: string): number {
  const pa = a.split(/[.-]/).map(Number);
  const pb = b.split(/[.-]/).map(Number);
  for (let i = 0; i < 3; i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) - (pb[i] ?? 0);
  return 0;
}

function affects(rec: OsvRecord, eco: string, name: string, version: string): boolean {
  return rec.affected.some((a) => {
    if (a.package.ecosystem !== eco || a.package.name.toLowerCase() !== name.toLowerCase()) return false;
    if (a.versions) return a.versions.includes(version);
    return (a.ranges ?? []).some((r) => {
      let start: string | undefined;
      for (const e of r.events) {
        if (e.introduced !== undefined) start = e.introduced;
        if (e.fixed !== undefined && start !== undefined) {
          if ((start === "0" || semver(version, start) >= 0) && semver(version, e.fixed) < 0) return true;
          start = undefined;
        }
      }
      return false;
    });
  });
}

/** Starts the stand-in over the recorded advisories and `extra`; refuses nothing. */
export function startOsv(extra: OsvRecord[] = [], opts: { failBatch?: number } = {}): StandIn {
  const recs = [...recordedVulns(), ...extra];
  const routes: Record<string, object | ((req: Request, body: string) => Response)> = {
    "POST /v1/querybatch": (_req, body) => {
      if (opts.failBatch !== undefined) return Response.json({ message: "down" }, { status: opts.failBatch });
      const { queries } = JSON.parse(body) as {
        queries: { package: { name: string; ecosystem: string }; version: string }[];
      };
      if (queries.length > 1000) return Response.json({ code: 3, message: "Too many queries." }, { status: 400 });
      const results = queries.map((q) => {
        const vulns = recs
          .filter((r) => affects(r, q.package.ecosystem, q.package.name, q.version))
          .map((r) => ({ id: r.id, modified: "2024-05-20T12:00:00Z" }));
        return vulns.length > 0 ? { vulns } : {};
      });
      return Response.json({ results });
    },
  };
  for (const r of recs) routes[`GET /v1/vulns/${r.id}`] = r;
  return startStandIn(routes);
}
