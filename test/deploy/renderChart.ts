/**
 * deploy/chart rendered as `helm template` would: values.yaml merged with an
 * override (maps deep, anything else replaced), every template parsed so the
 * defines of _helpers.tpl are everyone's, each manifest rendered and parsed
 * (Bun.YAML), NOTES.txt rendered as text.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Templates } from "./goTemplate.ts";

export const CHART = join(import.meta.dir, "..", "..", "deploy", "chart");

export type Values = Record<string, unknown>;

export interface Rendered {
  /** each manifest file that rendered something, parsed */
  manifests: Map<string, Record<string, unknown>>;
  notes: string;
  values: Values;
}

/** values.yaml as parsed. */
export function defaultValues(): Values {
  return Bun.YAML.parse(readFileSync(join(CHART, "values.yaml"), "utf8")) as Values;
}

/** Helm's merge of an override into the defaults: maps merged key by key, a list or scalar replaced. */
export function mergeValues(base: unknown, over: unknown): unknown {
  if (!isMap(base) || !isMap(over)) return over === undefined ? base : over;
  const out: Values = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = mergeValues(base[k], v);
  return out;
}

function isMap(v: unknown): v is Values {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The template files, by their name under templates/. */
export function templateFiles(): Map<string, string> {
  const dir = join(CHART, "templates");
  return new Map(
    readdirSync(dir)
      .sort()
      .map((name) => [name, readFileSync(join(dir, name), "utf8")]),
  );
}

/** Renders the chart as release `release` in `namespace` with `override` merged into values.yaml. */
export function renderChart(override: Values = {}, release = "rta", namespace = "default"): Rendered {
  const chart = Bun.YAML.parse(readFileSync(join(CHART, "Chart.yaml"), "utf8")) as Values;
  const values = mergeValues(defaultValues(), override) as Values;
  const root = {
    Values: values,
    Release: { Name: release, Namespace: namespace, Service: "Helm", IsInstall: true, IsUpgrade: false },
    Chart: { Name: chart.name, Version: chart.version, AppVersion: chart.appVersion },
  };
  const templates = new Templates();
  const files = templateFiles();
  for (const [name, text] of files) templates.add(name, text);
  const manifests = new Map<string, Record<string, unknown>>();
  let notes = "";
  for (const name of files.keys()) {
    if (name.startsWith("_")) continue;
    const text = templates.render(name, root);
    if (name === "NOTES.txt") {
      notes = text;
      continue;
    }
    if (text.trim() === "") continue;
    manifests.set(name, Bun.YAML.parse(text) as Record<string, unknown>);
  }
  return { manifests, notes, values };
}
