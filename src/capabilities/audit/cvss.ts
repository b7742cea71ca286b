/**
 * CVSS v3.0 and v3.1 base scores from their vectors, as FIRST's
 * specification computes them, and the qualitative rating of a score.
 */

const AV: Record<string, number> = { N: 0.85, A: 0.62, L: 0.55, P: 0.2 };
const AC: Record<string, number> = { L: 0.77, H: 0.44 };
const UI: Record<string, number> = { N: 0.85, R: 0.62 };
const CIA: Record<string, number> = { H: 0.56, L: 0.22, N: 0 };

/** CVSS 3.1's Roundup: the smallest number of one decimal at least x, free of float error. */
function roundUp(x: number): number {
  const i = Math.round(x * 100_000);
  return i % 10_000 === 0 ? i / 100_000 : (Math.floor(i / 10_000) + 1) / 10;
}

/**
 * The base score of a `CVSS:3.x/AV:…` vector, 0.0 to 10.0; undefined for a
 * vector of another version or one missing a base metric.
 */
export function cvss3Score(vector: string): number | undefined {
  const parts = vector.split("/");
  if (parts[0] !== "CVSS:3.1" && parts[0] !== "CVSS:3.0") return undefined;
  const m = new Map<string, string>();
  for (const part of parts.slice(1)) {
    const colon = part.indexOf(":");
    if (colon > 0) m.set(part.slice(0, colon), part.slice(colon + 1));
  }
  const scope = m.get("S");
  const pr = m.get("PR");
  const av = AV[m.get("AV") ?? ""];
  const ac = AC[m.get("AC") ?? ""];
  const ui = UI[m.get("UI") ?? ""];
  const c = CIA[m.get("C") ?? ""];
  const i = CIA[m.get("I") ?? ""];
  const a = CIA[m.get("A") ?? ""];
  if (scope !== "U" && scope !== "C") return undefined;
  const prw =
    pr === "N"
      ? 0.85
      : pr === "L"
        ? scope === "C"
          ? 0.68
          : 0.62
        : pr === "H"
          ? scope === "C"
            ? 0.5
            : 0.27
          : undefined;
  if (av === undefined || ac === undefined || ui === undefined || prw === undefined) return undefined;
  if (c === undefined || i === undefined || a === undefined) return undefined;
  const iss = 1 - (1 - c) * (1 - i) * (1 - a);
  const impact = scope === "U" ? 6.42 * iss : 7.52 * (iss - 0.029) - 3.25 * (iss - 0.02) ** 15;
  const exploitability = 8.22 * av * ac * prw * ui;
  if (impact <= 0) return 0;
  return scope === "U"
    ? roundUp(Math.min(impact + exploitability, 10))
    : roundUp(Math.min(1.08 * (impact + exploitability), 10));
}

/** The rating CVSS gives a score: none, low, medium, high or critical. */
export function rating(score: number): "none" | "low" | "medium" | "high" | "critical" {
  if (score === 0) return "none";
  if (score < 4) return "low";
  if (score < 7) return "medium";
  if (score < 9) return "high";
  return "critical";
}
