/** A stand-in for endoflife.date's API v1 on 127.0.0.1, serving the recorded answers in test/fixtures/eol. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type StandIn, startStandIn } from "./standIn.ts";

const FIXTURES = join(import.meta.dir, "..", "fixtures", "eol");
const PRODUCTS = ["nodejs", "postgresql", "ubuntu", "linux", "python", "redis"];

/** Serves /api/v1/products and /api/v1/products/{name} for the recorded products; any other is a 404. */
export function startEolStandIn(): StandIn {
  const routes: Record<string, string> = { "/api/v1/products": readFileSync(join(FIXTURES, "products.json"), "utf8") };
  for (const p of PRODUCTS) routes[`/api/v1/products/${p}`] = readFileSync(join(FIXTURES, `${p}.json`), "utf8");
  return startStandIn(routes);
}
